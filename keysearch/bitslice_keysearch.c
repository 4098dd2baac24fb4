/*
 * bitslice-keysearch: finds the unknown bits of a PRESENT or GIFT key from plaintext/ciphertext
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
#include <time.h>

#include "bs_hex.h"
#include "bsks.h"
#ifdef BSGPU_HAVE_CUDA
#include "bsgpu.h"
#endif

#ifndef BS_VERSION
#define BS_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f, "usage: bitslice keysearch -c CIPHER -k KEY -m MASK -p PT -x CT [-p PT -x CT]...\n"
               "                          [--part K/N] [--cpu | --gpu] [-t THREADS] [-d DEVICE]\n"
               "                          [-q]\n"
               "  CIPHER   PRESENT-80, PRESENT-128, GIFT-64 or GIFT-128, or a provider name\n"
               "           (PRESENT-80-CTR, PRESENT-CTR = PRESENT-128, GIFT64-CTR, ...)\n"
               "  KEY      the key in hex, any value in the unknown bits\n"
               "  MASK     hex, as long as KEY: set bits are unknown (at most 64 of them)\n"
               "  PT, CT   a plaintext block and its ciphertext, hex; up to 4 pairs, the first is\n"
               "           compared in the bitsliced lanes, every pair checks a hit\n"
               "  --cpu    search on the CPU (default when no CUDA device is present)\n"
               "  --gpu    search on CUDA device DEVICE (default 0); fails without one\n"
               "  -t       CPU threads (default 0: one per online CPU)\n"
               "  --part K/N  search only slice K (0..N-1) of N disjoint slices of the key space;\n"
               "           the N slices cover every candidate once, for any N (default 0/1: all)\n"
               "  -q       no progress line (shown on standard error when it is a terminal)\n"
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

/* "K/N" with 0 <= K < N, both decimal. */
static int parse_part(const char *s, uint64_t *k, uint64_t *n)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    *k = strtoull(s, &end, 10);
    if (*end != '/' || end[1] < '0' || end[1] > '9')
        return -1;
    *n = strtoull(end + 1, &end, 10);
    return *end == 0 && *n >= 1 && *k < *n ? 0 : -1;
}

typedef struct progress {
    double t0, last, total; /* total: candidates in the slice (2^64 does not fit a uint64_t) */
} progress;

/* One line, rewritten in place: share done, rate, time left. */
static void show_progress(uint64_t tried, void *arg)
{
    progress *p = (progress *)arg;
    const double now = now_s(), dt = now - p->t0;
    const double done = (double)tried < p->total ? (double)tried : p->total;
    if (now - p->last < 0.5 && done < p->total)
        return;
    p->last = now;
    const double rate = dt > 0 ? (double)tried / dt : 0;
    const double frac = p->total > 0 ? done / p->total : 1;
    const double left = rate > 0 ? (p->total - done) / rate : 0;
    char eta[32];
    if (rate <= 0)
        snprintf(eta, sizeof eta, "?");
    else if (left < 3600 * 99)
        snprintf(eta, sizeof eta, "%d:%02d:%02d", (int)(left / 3600), (int)(left / 60) % 60,
                 (int)left % 60);
    else
        snprintf(eta, sizeof eta, "%.3g days", left / 86400);
    fprintf(stderr, "\r%5.1f%%  %.3g of %.3g keys  %.3g keys/s  ETA %s   ", 100 * frac, done,
            p->total, rate, eta);
}

int main(int argc, char **argv)
{
    const char *cipher = NULL, *key_hex = NULL, *mask_hex = NULL;
    const char *pt_hex[BSKS_MAX_PAIRS], *ct_hex[BSKS_MAX_PAIRS];
    unsigned npt = 0, nct = 0, threads = 0;
    int device = 0, mode = 0; /* 0 auto, 1 cpu, 2 gpu */
    uint64_t part_k = 0, part_n = 1;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("bitslice-keysearch %s\n", BS_VERSION);
            return 0;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (has && strcmp(a, "--part") == 0) {
            if (parse_part(argv[++i], &part_k, &part_n) != 0) {
                fprintf(stderr, "bitslice-keysearch: --part wants K/N with 0 <= K < N (got '%s')\n",
                        argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--cpu") == 0) {
            mode = 1;
        } else if (strcmp(a, "--gpu") == 0) {
            mode = 2;
        } else if (has && strcmp(a, "-c") == 0) {
            cipher = argv[++i];
        } else if (has && strcmp(a, "-k") == 0) {
            key_hex = argv[++i];
        } else if (has && strcmp(a, "-m") == 0) {
            mask_hex = argv[++i];
        } else if (has && strcmp(a, "-p") == 0 && npt < BSKS_MAX_PAIRS) {
            pt_hex[npt++] = argv[++i];
        } else if (has && strcmp(a, "-x") == 0 && nct < BSKS_MAX_PAIRS) {
            ct_hex[nct++] = argv[++i];
        } else if (has && strcmp(a, "-t") == 0) {
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (has && strcmp(a, "-d") == 0) {
            device = atoi(argv[++i]);
        } else {
            fprintf(stderr,
                    "bitslice-keysearch: %s '%s'\nRun 'bitslice keysearch --help' for the "
                    "options.\n",
                    a[0] == '-' ? "unknown option or missing argument" : "unexpected argument", a);
            return 2;
        }
    }
    if (cipher == NULL || key_hex == NULL || mask_hex == NULL || npt == 0 || npt != nct) {
        fprintf(stderr, "bitslice-keysearch: -c, -k, -m and as many -p as -x (at least one) "
                        "are required\nRun 'bitslice keysearch --help' for the options.\n");
        return 2;
    }
    const bs_block_cipher *core = bs_block_cipher_by_any_name(cipher);
    if (core == NULL) {
        fprintf(stderr, "bitslice-keysearch: unknown cipher %s\n", cipher);
        return 2;
    }
    cipher = core->name;
    uint8_t key[16], mask[16], pt[BSKS_MAX_PAIRS][16], ct[BSKS_MAX_PAIRS][16];
    if (parse_hex(key_hex, key, core->key_len) != 0 ||
        parse_hex(mask_hex, mask, core->key_len) != 0) {
        fprintf(stderr, "bitslice-keysearch: KEY and MASK must be %u bytes of hex\n",
                core->key_len);
        return 2;
    }
    for (unsigned p = 0; p < npt; p++)
        if (parse_hex(pt_hex[p], pt[p], core->block_len) != 0 ||
            parse_hex(ct_hex[p], ct[p], core->block_len) != 0) {
            fprintf(stderr, "bitslice-keysearch: PT and CT must be %u bytes of hex\n",
                    core->block_len);
            return 2;
        }
    bsks_search s;
    char err[256];
    if (bsks_prepare(&s, cipher, key, mask, (const uint8_t(*)[16])pt, (const uint8_t(*)[16])ct, npt,
                     err, sizeof err) != 0) {
        fprintf(stderr, "bitslice-keysearch: %s\n", err);
        return 2;
    }
#ifdef BSGPU_HAVE_CUDA
    const int have_gpu = bsgpu_device_count() > device;
#else
    const int have_gpu = 0;
#endif
    if (mode == 2 && !have_gpu) {
        fprintf(stderr, "bitslice-keysearch: no CUDA device %d%s\n", device,
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
    progress pr = {now_s(), 0, slice < space ? slice : space};
    const bsks_progress_fn fn = !quiet && isatty(STDERR_FILENO) ? show_progress : NULL;
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
            fprintf(stderr, "bitslice-keysearch: CUDA: %s\n", err);
            return 2;
        }
    } else {
        rc = bsks_search_cpu_progress(&s, threads, first, last, found, &tried, fn, &pr);
        if (rc < 0) {
            fprintf(stderr, "bitslice-keysearch: out of memory\n");
            return 2;
        }
    }
    const double dt = now_s() - t0;
    if (fn != NULL)
        fprintf(stderr, "\n");
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
