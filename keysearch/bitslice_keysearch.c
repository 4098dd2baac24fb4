/*
 * bitslice keysearch: finds the unknown bits of a PRESENT or GIFT key from plaintext/ciphertext
 * pairs, on the CPU (bitsliced, 64 candidates a pass, all cores) or on a CUDA device. --part K/N
 * searches one of N fixed slices of the key space, so that a scheduler (Slurm job arrays, GNU
 * parallel) can shard a search without any protocol of ours: the slices depend only on the
 * search and N, never on the engine or the machine.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <time.h>

#include <getopt.h>

#include "bs_hex.h"
#include "bs_num.h"
#include "bs_opt.h"
#include "bs_progress.h"
#include "bsks.h"
#ifdef BSGPU_HAVE_CUDA
#include "bsgpu.h"
#endif

#ifndef BS_VERSION
#define BS_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(
        f, "usage: bitslice keysearch -c CIPHER -k KEY -m MASK -p PT -x CT [-p PT -x CT]...\n"
           "                          [--part K/N] [--cpu | --gpu] [-t THREADS] [-d DEVICE]\n"
           "                          [-q]\n"
           "  -c, --cipher CIPHER     PRESENT-80, PRESENT-128, GIFT-64 or GIFT-128, or a\n"
           "                          provider name (PRESENT-80-CTR, PRESENT-CTR = PRESENT-128,\n"
           "                          GIFT64-CTR, ...)\n"
           "  -k, --key KEY           the key in hex, any value in the unknown bits\n"
           "  -m, --mask MASK         hex, as long as KEY: set bits are unknown (at most 64)\n"
           "  -p, --plaintext PT      a plaintext block and its ciphertext, hex; up to 4\n"
           "  -x, --ciphertext CT     pairs, the first is compared in the bitsliced lanes,\n"
           "                          every pair checks a hit\n"
           "      --cpu               search on the CPU (default when no CUDA device is present)\n"
           "      --gpu               search on CUDA device DEVICE (default 0); fails without one\n"
           "  -t, --threads N         CPU threads (default 0: one per online CPU)\n"
           "  -d, --device N          the CUDA device (default 0)\n"
           "      --part K/N          search only slice K (0..N-1) of N disjoint slices of the\n"
           "                          key space; the N slices cover every candidate once, for\n"
           "                          any N (default 0/1: all)\n"
           "  -q, --quiet             no progress line (shown on standard error when it is a\n"
           "                          terminal)\n"
           "Prints the key and the rate; exit status 0 found, 1 not found (in this slice),\n"
           "2 usage or error.\n");
}

/* Exactly n bytes of hex. */
static int parse_hex(const char *s, uint8_t *out, size_t n)
{
    return strlen(s) == 2 * n && bs_hex_decode(s, out, n) == (long)n ? 0 : -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether a progress line is on the terminal: a ^C then ends it before the shell's prompt. */
static volatile sig_atomic_t line_shown;

static void on_interrupt(int sig)
{
    if (line_shown)
        (void)!write(STDERR_FILENO, "\n", 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The progress line's callback: candidates tried so far. */
static void show_progress(uint64_t tried, void *arg)
{
    /* Set before the line is drawn: a ^C in between still ends it. */
    line_shown = 1;
    bs_progress_update((bs_progress *)arg, (double)tried, 0);
}

int main(int argc, char **argv)
{
    const char *cipher = NULL, *key_hex = NULL, *mask_hex = NULL;
    const char *pt_hex[BSKS_MAX_PAIRS], *ct_hex[BSKS_MAX_PAIRS];
    unsigned npt = 0, nct = 0, threads = 0;
    int device = 0, mode = 0; /* 0 auto, 1 cpu, 2 gpu */
    uint64_t part_k = 0, part_n = 1;
    int quiet = 0, c;
    static const struct option lo[] = {
        {"cipher", required_argument, 0, 'c'},
        {"key", required_argument, 0, 'k'},
        {"mask", required_argument, 0, 'm'},
        {"plaintext", required_argument, 0, 'p'},
        {"ciphertext", required_argument, 0, 'x'},
        {"part", required_argument, 0, 'P'},
        {"cpu", no_argument, 0, 'C'},
        {"gpu", no_argument, 0, 'G'},
        {"threads", required_argument, 0, 't'},
        {"device", required_argument, 0, 'd'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:k:m:p:x:t:d:qhV", lo, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("bitslice-keysearch %s\n", BS_VERSION);
            return 0;
        case 'q':
            quiet = 1;
            break;
        case 'P':
            if (bs_parse_part(optarg, &part_k, &part_n) != 0) {
                fprintf(stderr, "bitslice keysearch: --part wants K/N with 0 <= K < N (got '%s')\n",
                        optarg);
                return 2;
            }
            break;
        case 'C':
            mode = 1;
            break;
        case 'G':
            mode = 2;
            break;
        case 'c':
            cipher = optarg;
            break;
        case 'k':
            key_hex = optarg;
            break;
        case 'm':
            mask_hex = optarg;
            break;
        case 'p':
        case 'x':
            if ((c == 'p' ? npt : nct) >= BSKS_MAX_PAIRS) {
                fprintf(stderr, "bitslice keysearch: at most %d pairs (-p PT -x CT)\n",
                        BSKS_MAX_PAIRS);
                return 2;
            }
            if (c == 'p')
                pt_hex[npt++] = optarg;
            else
                ct_hex[nct++] = optarg;
            break;
        case 't':
            if (bs_parse_uint(optarg, 0, 4096, &threads) != 0) {
                fprintf(stderr, "bitslice keysearch: -t wants 0..4096 threads, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 'd': {
            unsigned dev;
            if (bs_parse_uint(optarg, 0, 1024, &dev) != 0) {
                fprintf(stderr, "bitslice keysearch: -d wants a device number, got '%s'\n", optarg);
                return 2;
            }
            device = (int)dev;
            break;
        }
        default:
            return bs_opt_error("bitslice keysearch", "bitslice keysearch", c, argv);
        }
    }
    if (optind < argc)
        return bs_usage_error("bitslice keysearch", "bitslice keysearch", "unexpected argument",
                              argv[optind]);
    if (cipher == NULL || key_hex == NULL || mask_hex == NULL || npt == 0 || npt != nct) {
        return bs_usage_error("bitslice keysearch", "bitslice keysearch",
                              "-c, -k, -m and as many -p as -x (at least one) are required", NULL);
    }
    const bs_block_cipher *core = bs_block_cipher_by_any_name(cipher);
    if (core == NULL) {
        fprintf(stderr,
                "bitslice keysearch: unknown cipher '%s'; key search supports %s (or their "
                "provider names: PRESENT-80-CTR, GIFT64-CTR, ...)\n",
                cipher, BSKS_CIPHER_NAMES);
        return 2;
    }
    cipher = core->name;
    uint8_t key[16], mask[16], pt[BSKS_MAX_PAIRS][16], ct[BSKS_MAX_PAIRS][16];
    if (parse_hex(key_hex, key, core->key_len) != 0 ||
        parse_hex(mask_hex, mask, core->key_len) != 0) {
        fprintf(stderr, "bitslice keysearch: KEY and MASK must be %u bytes of hex\n",
                core->key_len);
        return 2;
    }
    for (unsigned p = 0; p < npt; p++)
        if (parse_hex(pt_hex[p], pt[p], core->block_len) != 0 ||
            parse_hex(ct_hex[p], ct[p], core->block_len) != 0) {
            fprintf(stderr, "bitslice keysearch: PT and CT must be %u bytes of hex\n",
                    core->block_len);
            return 2;
        }
    bsks_search s;
    char err[256];
    if (bsks_prepare(&s, cipher, key, mask, (const uint8_t(*)[16])pt, (const uint8_t(*)[16])ct, npt,
                     err, sizeof err) != 0) {
        fprintf(stderr, "bitslice keysearch: %s\n", err);
        return 2;
    }
#ifdef BSGPU_HAVE_CUDA
    const int have_gpu = bsgpu_device_count() > device;
#else
    const int have_gpu = 0;
#endif
    if (mode == 2 && !have_gpu) {
        fprintf(stderr, "bitslice keysearch: no CUDA device %d%s\n", device,
#ifdef BSGPU_HAVE_CUDA
                ""
#else
                " (built without CUDA)"
#endif
        );
        return 2;
    }
    const int use_gpu = mode == 2 || (mode == 0 && have_gpu);
    uint8_t found[16];
    uint64_t tried = 0;
    int rc;
    /* The slice in chunks of 64 candidates; the GPU's chunks of 32 are halves of those. */
    uint64_t first, last;
    bsks_part(&s, 6, part_k, part_n, &first, &last);
    const uint64_t c32 = bsks_chunks(&s, 5);
    const uint64_t g_first = 2 * first < c32 ? 2 * first : c32,
                   g_last = 2 * last < c32 ? 2 * last : c32;
    const double space = ldexp(1.0, (int)s.pb.nunknown), slice = (double)(last - first) * 64;
    bs_progress pr;
    const bsks_progress_fn fn = !quiet && isatty(STDERR_FILENO) ? show_progress : NULL;
    bs_progress_start(&pr, fn != NULL, slice < space ? slice : space, BS_PROGRESS_KEYS);
    if (fn != NULL) {
        signal(SIGINT, on_interrupt);
        signal(SIGTERM, on_interrupt);
    }
    const double t0 = now_s();
    if (use_gpu) {
#ifdef BSGPU_HAVE_CUDA
        rc = bsks_search_cuda_range(&s, device, g_first, g_last, found, &tried, fn, &pr, err,
                                    sizeof err);
#else
        (void)g_first;
        (void)g_last;
        rc = -1;
#endif
        if (rc < 0) {
            fprintf(stderr, "bitslice keysearch: CUDA: %s\n", err);
            return 2;
        }
    } else {
        rc = bsks_search_cpu_progress(&s, threads, first, last, found, &tried, fn, &pr);
        if (rc < 0) {
            fprintf(stderr, "bitslice keysearch: out of memory\n");
            return 2;
        }
    }
    const double dt = now_s() - t0;
    bs_progress_update(&pr, (double)tried, 1);
    line_shown = 0;
    printf("engine=%s cipher=%s unknown_bits=%u part=%" PRIu64 "/%" PRIu64 " chunks=%" PRIu64
           "..%" PRIu64 " keys=%llu seconds=%.3f keys_per_s=%.4g log2_keys_per_s=%.2f\n",
           use_gpu ? "cuda" : "cpu", cipher, s.pb.nunknown, part_k, part_n, first, last,
           (unsigned long long)tried, dt, dt > 0 ? (double)tried / dt : 0.0,
           dt > 0 && tried > 0 ? log2((double)tried / dt) : 0.0);
    if (rc == 1) {
        printf("found ");
        for (unsigned i = 0; i < core->key_len; i++)
            printf("%02x", found[i]);
        printf("\n");
        return 0;
    }
    printf("not found\n");
    return 1;
}
