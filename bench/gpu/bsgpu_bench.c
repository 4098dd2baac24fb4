/*
 * bsgpu-bench: the device measurements of gpu/device-check.sh, printed as one table: pinned copy
 * bandwidth, each keystream kernel (CUDA events, median of the repetitions), the bulk path the
 * daemon's backend uses (bsgpu_keystream into registered host memory, many sessions, checked
 * against the CPU on a sample), and the key search. A benchmark, not a test.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bsgpu.h"
#include "bsks.h"
#include "modes/ctr.h"

static const bs_block_cipher *const cores[BSGPU_NCIPHERS] = {
    &bs_present80_bs64, &bs_present128_bs64,  &bs_gift64_bs64,
    &bs_gift128_bs64,   &bs_rijndael256_bs64,
};

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static float median(float *v, unsigned n)
{
    qsort(v, n, sizeof v[0], cmp_float);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill(uint8_t *p, size_t n, uint64_t *x)
{
    for (size_t i = 0; i < n; i++) {
        *x = *x * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (uint8_t)(*x >> 56);
    }
}

static FILE *out2;

static void row(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void row(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (out2 != NULL) {
        va_start(ap, fmt);
        vfprintf(out2, fmt, ap);
        va_end(ap);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    uint64_t bytes = (uint64_t)1 << 30;
    unsigned reps = 10, ks_bits = 32;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc)
            bytes = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--keysearch-bits") == 0 && i + 1 < argc)
            ks_bits = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else {
            fprintf(stderr, "usage: bsgpu-bench [--bytes N] [--reps N] [--keysearch-bits N] "
                            "[--out FILE]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 100 || ks_bits < 6 || ks_bits > 40) {
        fprintf(stderr, "bsgpu-bench: reps 1..100, keysearch-bits 6..40\n");
        return 2;
    }
    if (bsgpu_device_count() == 0) {
        fprintf(stderr, "bsgpu-bench: no CUDA device\n");
        return 77;
    }
    if (out_path != NULL && (out2 = fopen(out_path, "w")) == NULL) {
        perror(out_path);
        return 2;
    }
    bsgpu_ctx *ctx;
    if (bsgpu_open(&ctx, 0, 3, (size_t)256 << 20) != 0) {
        fprintf(stderr, "bsgpu-bench: %s\n", bsgpu_last_error(NULL));
        return 1;
    }
    char desc[512];
    bsgpu_describe(ctx, desc, sizeof desc);
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    row("# bsgpu-bench %s, %s\n", date, desc);
    row("| measurement | size | median | unit |\n|---|---|---|---|\n");
    float *ms = (float *)calloc(reps, sizeof *ms), *ms2 = (float *)calloc(reps, sizeof *ms2);
    uint64_t seed = 0x5eed;
    int failed = 0;

    const size_t cbytes = (size_t)256 << 20;
    if (bsgpu_time_copies(ctx, cbytes, reps, ms, ms2) != 0) {
        fprintf(stderr, "copies: %s\n", bsgpu_last_error(ctx));
        return 1;
    }
    const double h2d = cbytes / (median(ms, reps) * 1e6), d2h = cbytes / (median(ms2, reps) * 1e6);
    row("| copy H2D, pinned | 256 MiB | %.2f | GB/s |\n", h2d);
    row("| copy D2H, pinned | 256 MiB | %.2f | GB/s |\n", d2h);

    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        uint8_t key[32];
        bsgpu_key dk;
        fill(key, sizeof key, &seed);
        bsgpu_key_from_bytes(&dk, (bsgpu_cipher)c, key);
        if (bsgpu_time_kernel(ctx, (bsgpu_cipher)c, &dk, bytes, reps, ms) != 0) {
            fprintf(stderr, "%s kernel: %s\n", cores[c]->name, bsgpu_last_error(ctx));
            failed = 1;
            continue;
        }
        const float m = median(ms, reps);
        row("| %s-CTR kernel, device only | %.2f GiB | %.1f | Gbit/s |\n", cores[c]->name,
            bytes / 1073741824.0, bytes * 8.0 / (m * 1e6));
    }

    /* Bulk: 64 sessions of bytes / 64 each, into one registered buffer. */
    uint8_t *host = (uint8_t *)aligned_alloc(4096, (size_t)bytes);
    if (host == NULL || bsgpu_register_host(ctx, host, (size_t)bytes) != 0) {
        fprintf(stderr, "bulk buffer: %s\n", bsgpu_last_error(ctx));
        return 1;
    }
    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        enum { NS = 64 };
        bsgpu_job jobs[NS];
        bsgpu_key dk[NS];
        bs_key_schedule ks[NS];
        const size_t bl = cores[c]->block_len;
        const uint64_t per = bytes / NS / bl;
        for (int j = 0; j < NS; j++) {
            uint8_t key[32];
            fill(key, sizeof key, &seed);
            cores[c]->set_key(&ks[j], key);
            bsgpu_key_from_schedule(&dk[j], cores[c], &ks[j]);
            fill(jobs[j].counter, bl, &seed);
            jobs[j].nblocks = per;
            jobs[j].key_index = (uint32_t)j;
            jobs[j].dst = host + (size_t)j * per * bl;
        }
        for (unsigned r = 0; r < reps; r++) {
            const double t0 = now_s();
            if (bsgpu_keystream(ctx, (bsgpu_cipher)c, dk, NS, jobs, NS) != 0) {
                fprintf(stderr, "%s bulk: %s\n", cores[c]->name, bsgpu_last_error(ctx));
                return 1;
            }
            ms[r] = (float)((now_s() - t0) * 1e3);
        }
        /* The output is checked, so that the time is of right output. */
        uint8_t want[4096];
        for (int j = 0; j < NS; j += 9) {
            const uint64_t n = sizeof want / bl;
            bs_ctr_keystream(cores[c], &ks[j], jobs[j].counter, n, want);
            if (memcmp(want, jobs[j].dst, n * bl) != 0) {
                fprintf(stderr, "%s bulk: output differs from the CPU\n", cores[c]->name);
                failed = 1;
            }
        }
        const float m = median(ms, reps);
        row("| %s-CTR bulk, bsgpu_keystream to registered host memory, 64 sessions | %.2f GiB "
            "| %.2f | GB/s (%.0f%% of D2H) |\n",
            cores[c]->name, NS * per * bl / 1073741824.0, NS * per * bl / (m * 1e6),
            100.0 * (NS * per * bl / (m * 1e6)) / d2h);
    }
    bsgpu_unregister_host(ctx, host);
    free(host);

    /* Key search over the whole space: the first pair's key is outside it (a known bit flipped). */
    static const char *const ks_names[4] = {"PRESENT-80", "PRESENT-128", "GIFT-64", "GIFT-128"};
    for (int c = 0; c < 4; c++) {
        const bs_block_cipher *core = bs_block_cipher_by_name(ks_names[c]);
        uint8_t key[16], mask[16] = {0}, pt[1][16], ct[1][16], found[16];
        bs_key_schedule ks;
        char err[256];
        fill(key, sizeof key, &seed);
        for (unsigned i = 0; i < ks_bits; i++)
            mask[core->key_len - 1 - i / 8] |= (uint8_t)(1u << (i % 8));
        core->set_key(&ks, key);
        fill(pt[0], 16, &seed);
        core->encrypt(&ks, ct[0], pt[0], 1);
        key[0] ^= 0x80;
        bsks_search s;
        uint64_t tried;
        bsks_prepare(&s, ks_names[c], key, mask, (const uint8_t(*)[16])pt, (const uint8_t(*)[16])ct,
                     1, err, sizeof err);
        const double t0 = now_s();
        const int rc = bsks_search_cuda(&s, 0, found, &tried, err, sizeof err);
        const double dt = now_s() - t0;
        if (rc < 0) {
            fprintf(stderr, "%s key search: %s\n", ks_names[c], err);
            failed = 1;
            continue;
        }
        row("| %s key search, %u unknown bits, full sweep | 2^%u keys | 2^%.2f | keys/s |\n",
            ks_names[c], ks_bits, ks_bits, log2((double)tried / dt));
    }
    bsgpu_close(ctx);
    if (out2 != NULL)
        fclose(out2);
    return failed;
}
