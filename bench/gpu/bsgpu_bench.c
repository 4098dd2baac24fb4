/*
 * bsgpu-bench: the device measurements of gpu/device-check.sh, as rows of one Markdown table
 * (bench/RESULTS.md's format): pinned copy bandwidth, each CTR kernel (CUDA events), the bulk path
 * the daemon's backend uses (bsgpu_keystream into registered host memory at 1 to 64 MiB a call,
 * 1 to 1,000 sessions, with keys sent per call or resident on the device, checked against the
 * CPU on a sample) and the key search (both builds of the 255-register kernels). Every row: the
 * median of each of two passes, the goal, whether it is met, the model bound (an estimate from
 * static SASS counts, gpu/README.md), registers and resident warps, and the SM clock before and
 * after (nvidia-smi).
 *
 * Sections run one at a time (--section) so that device-check.sh can run each as its own process:
 * a failure is that section's rows, never the others'. A benchmark, not a test.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bsgpu.h"
#include "bsgpu_lanes.h"
#include "bsks.h"
#include "modes/ctr.h"

static const bs_block_cipher *const cores[BSGPU_NCIPHERS] = {
    &bs_present80_bs64, &bs_present128_bs64,  &bs_gift64_bs64,
    &bs_gift128_bs64,   &bs_rijndael256_bs64,
};

/*
 * Goals (issue 15, H200) and model bounds: ALU-pipe instructions a thread executes (static SASS
 * of the sm_90 cubin, nvcc 13.0, times loop trip counts), against 132 SMs x 64 lanes x 1.98 GHz.
 * Estimates, not measurements; gpu/README.md ("Performance model") has the derivation.
 */
static const struct {
    const char *name;
    double goal_gbit, bound_gbit;
} ctr_rows[BSGPU_NCIPHERS] = {
    {"PRESENT-80/128", 3500, 5255}, {"", 0, 0}, {"GIFT-64", 4000, 7140}, {"GIFT-128", 3000, 5010},
    {"RIJNDAEL-256", 1500, 2280},
};
static const struct {
    const char *name;
    double goal_log2, bound_log2; /* 0: none */
} ks_rows[4] = {
    {"PRESENT-80", 35.5, 36.37},
    {"PRESENT-128", 0, 0},
    {"GIFT-64", 0, 36.55},
    {"GIFT-128", 0, 35.00},
};

enum { PASSES_MAX = 2 };

static unsigned reps = 10, passes = 2;
static uint64_t bulk_max = (uint64_t)64 << 20;
static FILE *out2;

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

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (out2 != NULL) {
        va_start(ap, fmt);
        vfprintf(out2, fmt, ap);
        va_end(ap);
        fflush(out2);
    }
    fflush(stdout);
}

/* The SM clock now, in MHz, from nvidia-smi ("n/a" where there is none). */
static void sm_clock(char *buf, size_t len)
{
    snprintf(buf, len, "n/a");
    FILE *p = popen("nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -i 0 "
                    "2>/dev/null",
                    "r");
    if (p == NULL)
        return;
    char line[64];
    if (fgets(line, sizeof line, p) != NULL) {
        line[strcspn(line, " \r\n")] = 0;
        if (line[0] >= '0' && line[0] <= '9')
            snprintf(buf, len, "%.15s", line);
    }
    pclose(p);
}

/* One row being measured: clock before, the passes' medians, then everything else. */
typedef struct row {
    char clk0[16];
    double v[PASSES_MAX];
    unsigned n;
    int failed;
} row;

static void row_start(row *r)
{
    memset(r, 0, sizeof *r);
    sm_clock(r->clk0, sizeof r->clk0);
}

static const char *fmt_num(char *buf, size_t len, double v, const char *f)
{
    if (isnan(v))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, f, v);
    return buf;
}

/*
 * | measurement | size | run 1 | run 2 | unit | goal | met | model bound (est.) | regs |
 *   warps/SM | SM MHz before→after |; the verdict on the worse run. higher: bigger is better.
 */
static void row_end(row *r, const char *what, const char *size, const char *unit, const char *f,
                    double goal, double bound, const char *extra_met, int regs, int warps)
{
    char clk1[16], a[32], b[32], g[32], bd[32], rg[32], wp[32];
    sm_clock(clk1, sizeof clk1);
    const double v0 = r->n > 0 ? r->v[0] : NAN, v1 = r->n > 1 ? r->v[1] : NAN;
    double worst = v0;
    if (!isnan(v1) && (isnan(worst) || v1 < worst))
        worst = v1;
    const char *met = "—";
    if (r->failed)
        met = extra_met != NULL ? extra_met : "n/a (failed)";
    else if (goal > 0)
        met = isnan(worst) ? "n/a" : worst >= goal ? "yes" : "no";
    if (goal > 0)
        snprintf(g, sizeof g, "≥ ");
    else
        g[0] = 0;
    if (goal > 0)
        fmt_num(g + strlen(g), sizeof g - strlen(g), goal, f);
    if (bound > 0) {
        snprintf(bd, sizeof bd, "≤ ");
        fmt_num(bd + strlen(bd), sizeof bd - strlen(bd), bound, f);
    } else {
        snprintf(bd, sizeof bd, "—");
    }
    if (regs > 0)
        snprintf(rg, sizeof rg, "%d", regs);
    else
        snprintf(rg, sizeof rg, "—");
    if (warps > 0)
        snprintf(wp, sizeof wp, "%d", warps);
    else
        snprintf(wp, sizeof wp, "—");
    emit("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s→%s |\n", what, size,
         fmt_num(a, sizeof a, v0, f), fmt_num(b, sizeof b, v1, f), unit, g[0] ? g : "—", met, bd,
         rg, wp, r->clk0, clk1);
}

static void header(void)
{
    emit("| measurement | size | run 1 | run 2 | unit | goal | met | model bound (est.) | regs | "
         "warps/SM | SM MHz before→after |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n");
}

static int open_ctx(bsgpu_ctx **ctx, size_t chunk)
{
    if (bsgpu_open(ctx, 0, 3, chunk) != 0) {
        fprintf(stderr, "bsgpu-bench: %s\n", bsgpu_last_error(NULL));
        return -1;
    }
    char desc[512];
    bsgpu_describe(*ctx, desc, sizeof desc);
    fprintf(stderr, "bsgpu-bench: %s\n", desc);
    return 0;
}

/* ---- copies ---- */

/* Median pinned D2H bandwidth of `bytes` (GB/s), or NAN; also prints both rows when asked. */
static int section_copies(bsgpu_ctx *ctx, size_t bytes, int print, double *d2h_out)
{
    float *h = (float *)calloc(reps, sizeof *h), *d = (float *)calloc(reps, sizeof *d);
    row rh, rd;
    int failed = 0;
    row_start(&rh);
    rd = rh;
    for (unsigned p = 0; p < passes; p++) {
        if (bsgpu_time_copies(ctx, bytes, reps, h, d) != 0) {
            fprintf(stderr, "copies: %s\n", bsgpu_last_error(ctx));
            rh.failed = rd.failed = failed = 1;
            break;
        }
        rh.v[rh.n++] = bytes / (median(h, reps) * 1e6);
        rd.v[rd.n++] = bytes / (median(d, reps) * 1e6);
    }
    if (d2h_out != NULL)
        *d2h_out = rd.n > 0 ? (rd.n > 1 && rd.v[1] < rd.v[0] ? rd.v[1] : rd.v[0]) : NAN;
    if (print) {
        char size[32];
        snprintf(size, sizeof size, "%zu MiB", bytes >> 20);
        row_end(&rh, "copy H2D, pinned", size, "GB/s", "%.1f", 0, 0, NULL, 0, 0);
        row_end(&rd, "copy D2H, pinned", size, "GB/s", "%.1f", 0, 0, NULL, 0, 0);
    }
    free(h);
    free(d);
    return failed;
}

/* ---- kernels ---- */

static int section_kernels(bsgpu_ctx *ctx, uint64_t bytes)
{
    float *ms = (float *)calloc(reps, sizeof *ms);
    uint64_t seed = 0x6b65726e;
    int failed = 0;
    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        if (c == BSGPU_PRESENT128)
            continue; /* the PRESENT kernel serves both key sizes */
        uint8_t key[32];
        bsgpu_key dk;
        fill(key, sizeof key, &seed);
        bsgpu_key_from_bytes(&dk, (bsgpu_cipher)c, key);
        row r;
        row_start(&r);
        for (unsigned p = 0; p < passes; p++) {
            if (bsgpu_time_kernel(ctx, (bsgpu_cipher)c, &dk, bytes, reps, ms) != 0) {
                fprintf(stderr, "%s kernel: %s\n", ctr_rows[c].name, bsgpu_last_error(ctx));
                r.failed = failed = 1;
                break;
            }
            r.v[r.n++] = bytes * 8.0 / (median(ms, reps) * 1e6);
        }
        bsgpu_kernel_attr a;
        bsgpu_get_kernel_attr(ctx, (bsgpu_cipher)c, &a);
        char what[96], size[32];
        snprintf(what, sizeof what, "%s-CTR kernel, into device memory", ctr_rows[c].name);
        snprintf(size, sizeof size, "%.2f GiB", bytes / 1073741824.0);
        row_end(&r, what, size, "Gbit/s", "%.0f", ctr_rows[c].goal_gbit, ctr_rows[c].bound_gbit,
                NULL, a.regs, a.warps_per_sm);
    }
    free(ms);
    return failed;
}

/* ---- bulk ---- */

typedef struct host_buf {
    uint8_t *p;
    size_t len;
    int kind; /* 0 registered, 1 cudaMallocHost, 2 pageable */
} host_buf;

static const char *const buf_kind[3] = {"registered", "pinned (cudaMallocHost)", "pageable"};

/* Registered memory, else pinned from the driver, else pageable: the rows say which. */
static int host_buf_get(bsgpu_ctx *ctx, host_buf *b, size_t len, int want_pageable)
{
    b->len = len;
    b->kind = 2;
    b->p = (uint8_t *)aligned_alloc(4096, len);
    if (b->p == NULL)
        return -1;
    if (want_pageable)
        return 0;
    if (bsgpu_register_host(ctx, b->p, len) == 0) {
        b->kind = 0;
        return 0;
    }
    fprintf(stderr, "bulk: registering host memory refused (%s): cudaMallocHost instead\n",
            bsgpu_last_error(ctx));
    uint8_t *q = (uint8_t *)bsgpu_alloc_pinned(ctx, len);
    if (q != NULL) {
        free(b->p);
        b->p = q;
        b->kind = 1;
    }
    return 0;
}

static void host_buf_put(bsgpu_ctx *ctx, host_buf *b)
{
    if (b->kind == 0)
        bsgpu_unregister_host(ctx, b->p);
    if (b->kind == 1)
        bsgpu_free_pinned(b->p);
    else
        free(b->p);
}

/*
 * One bulk row: `bytes` a call as `sessions` jobs of their own keys (the daemon's batch), into
 * buf back to back with a 64-byte gap (so that no two copies merge, as in the daemon's separate
 * windows), reps calls a pass; the output is checked against the CPU on a sample of jobs.
 * resident: the keys are loaded into the device's key table once, before the timing (as the
 * daemon does at OPEN), and the calls name their slots instead of uploading them.
 */
static int bulk_row(bsgpu_ctx *ctx, int c, host_buf *buf, uint64_t bytes, unsigned sessions,
                    double d2h, uint64_t *seed, int never_stage, int resident)
{
    const bs_block_cipher *core = cores[c];
    const size_t bl = core->block_len;
    const uint64_t per = bytes / sessions / bl;
    bsgpu_job *jobs = (bsgpu_job *)calloc(sessions, sizeof *jobs);
    bsgpu_key *dk = (bsgpu_key *)calloc(sessions, sizeof *dk);
    bsgpu_keyop *ops = (bsgpu_keyop *)calloc(sessions, sizeof *ops);
    /* bs_key_schedule is 64-byte aligned (bitslice.h; VAES loads it aligned): not calloc. */
    bs_key_schedule *ks = (bs_key_schedule *)aligned_alloc(64, sessions * sizeof *ks);
    if (ks != NULL)
        memset(ks, 0, sessions * sizeof *ks);
    float *ms = (float *)calloc(reps, sizeof *ms);
    row r;
    int failed = 0;
    row_start(&r);
    if (jobs == NULL || dk == NULL || ops == NULL || ks == NULL || ms == NULL ||
        (per * bl + 64) * sessions > buf->len) {
        r.failed = failed = 1;
        goto done;
    }
    for (unsigned j = 0; j < sessions; j++) {
        uint8_t key[32];
        fill(key, sizeof key, seed);
        core->set_key(&ks[j], key);
        bsgpu_key_from_schedule(&dk[j], core, &ks[j]);
        fill(jobs[j].counter, bl, seed);
        jobs[j].nblocks = per;
        jobs[j].key_index = resident ? j | BSGPU_KEY_RESIDENT : j;
        jobs[j].dst = buf->p + (size_t)j * (per * bl + 64);
        ops[j].slot = j;
        ops[j].cipher = (uint32_t)c;
        ops[j].load = 1;
    }
    if (resident && bsgpu_keys_update(ctx, ops, dk, sessions) != 0) {
        fprintf(stderr, "%s bulk: loading the keys: %s\n", core->name, bsgpu_last_error(ctx));
        r.failed = failed = 1;
        goto done;
    }
    bsgpu_set_stage_below(ctx, never_stage ? 0 : BSGPU_STAGE_BELOW_DEFAULT);
    bsgpu_stats s0, s1;
    memset(&s0, 0, sizeof s0);
    memset(&s1, 0, sizeof s1);
    for (unsigned p = 0; p < passes && !failed; p++) {
        bsgpu_get_stats(ctx, &s0);
        for (unsigned i = 0; i < reps; i++) {
            const double t0 = now_s();
            if (bsgpu_keystream(ctx, (bsgpu_cipher)c, resident ? NULL : dk, resident ? 0 : sessions,
                                jobs, sessions) != 0) {
                fprintf(stderr, "%s bulk: %s\n", core->name, bsgpu_last_error(ctx));
                r.failed = failed = 1;
                break;
            }
            ms[i] = (float)((now_s() - t0) * 1e3);
        }
        if (!failed)
            r.v[r.n++] = per * bl * sessions / (median(ms, reps) * 1e6);
        bsgpu_get_stats(ctx, &s1);
    }
    /* Timed output is right output: first and last blocks of a sample of the jobs. */
    for (unsigned j = 0; j < sessions && !failed; j += sessions / 7 + 1) {
        uint8_t want[4096], ctr[32];
        const uint64_t n = per < sizeof want / bl ? per : sizeof want / bl;
        bs_ctr_keystream(core, &ks[j], jobs[j].counter, n, want);
        int bad = memcmp(want, jobs[j].dst, n * bl) != 0;
        memcpy(ctr, jobs[j].counter, bl);
        bs_ctr_add(ctr, bl, per - n);
        bs_ctr_keystream(core, &ks[j], ctr, n, want);
        bad |= memcmp(want, jobs[j].dst + (per - n) * bl, n * bl) != 0;
        if (bad) {
            fprintf(stderr, "%s bulk: output differs from the CPU (job %u)\n", core->name, j);
            r.failed = failed = 1;
        }
    }
done:;
    char what[160], size[96];
    snprintf(what, sizeof what, "%s-CTR bulk, bsgpu_keystream into %s host memory%s%s", core->name,
             buf_kind[buf->kind], never_stage ? ", staging off" : "",
             resident ? ", keys resident on the device" : "");
    snprintf(size, sizeof size, "%.0f MiB a call, %u session%s, %.1f copies a call%s",
             bytes / 1048576.0, sessions, sessions > 1 ? "s" : "",
             failed ? 0.0 : (double)(s1.copies - s0.copies) / reps,
             s1.staged_launches > s0.staged_launches ? ", staged" : "");
    /* The bulk goal is for calls of 16 MiB and more; smaller ones show the fixed costs. */
    double goal = bytes >= ((uint64_t)16 << 20) && !isnan(d2h) ? 0.8 * d2h : 0;
    /* Issue 26: 1,000 sessions x 1 MiB a call, keys on the device, at 20 GB/s. */
    if (resident && sessions >= 1000 && bytes == ((uint64_t)1 << 20))
        goal = 20;
    row_end(&r, what, size, "GB/s", "%.1f", goal, isnan(d2h) ? 0 : d2h,
            failed && r.n > 0 ? "WRONG OUTPUT" : NULL, 0, 0);
    bsgpu_set_stage_below(ctx, BSGPU_STAGE_BELOW_DEFAULT);
    if (resident) {
        /* The slots zeroed again: the next row's keys are its own. */
        for (unsigned j = 0; j < sessions; j++)
            ops[j].load = 0;
        memset(dk, 0, sessions * sizeof *dk);
        if (bsgpu_keys_update(ctx, ops, dk, sessions) != 0)
            failed = 1;
    }
    free(jobs);
    free(dk);
    free(ops);
    free(ks);
    free(ms);
    return failed;
}

static int section_bulk(void)
{
    bsgpu_ctx *ctx;
    /* The daemon's configuration (service backend: 3 streams of 64 MiB). */
    if (open_ctx(&ctx, (size_t)64 << 20) != 0)
        return 1;
    double d2h = NAN;
    int failed = section_copies(ctx, (size_t)64 << 20, 0, &d2h);
    char dv[32];
    emit("| (bulk: D2H of 64 MiB, pinned, for the goal) | 64 MiB | %s | | GB/s | | | | | | |\n",
         fmt_num(dv, sizeof dv, d2h, "%.1f"));
    uint64_t seed = 0x62756c6b;
    const size_t cap = ((size_t)64 << 20) + 1000 * 64 + 4096;
    host_buf buf;
    if (host_buf_get(ctx, &buf, cap, 0) != 0) {
        bsgpu_close(ctx);
        return 1;
    }
    /* A key table of 1,000 slots for the resident rows. */
    const int resident_ok = bsgpu_keys_reserve(ctx, 1000) == 0;
    if (!resident_ok) {
        fprintf(stderr, "bulk: no device key table: %s\n", bsgpu_last_error(ctx));
        failed = 1;
    }
    static const uint64_t sizes[4] = {1u << 20, 4u << 20, 16u << 20, 64u << 20};
    uint64_t top = sizes[0];
    for (int i = 0; i < 4; i++) {
        if (sizes[i] > bulk_max)
            continue;
        top = sizes[i];
        for (int k = 0; k < 2; k++)
            failed |=
                bulk_row(ctx, BSGPU_PRESENT80, &buf, sizes[i], k == 0 ? 1 : 1000, d2h, &seed, 0, 0);
        /* Many small sessions with the copies batched instead of staged: the policy's test. */
        failed |= bulk_row(ctx, BSGPU_PRESENT80, &buf, sizes[i], 1000, d2h, &seed, 1, 0);
        /* The same sessions with their keys on the device since "OPEN" (issue 26). */
        if (resident_ok)
            failed |= bulk_row(ctx, BSGPU_PRESENT80, &buf, sizes[i], 1000, d2h, &seed, 0, 1);
    }
    for (int c = BSGPU_GIFT64; c < BSGPU_NCIPHERS; c++)
        failed |= bulk_row(ctx, c, &buf, top, 64, d2h, &seed, 0, 0);
    if (resident_ok)
        failed |= bulk_row(ctx, BSGPU_RIJNDAEL256, &buf, sizes[0], 1000, d2h, &seed, 0, 1);
    host_buf_put(ctx, &buf);
    /* The same into pageable memory: what an unregistered window costs. */
    if (host_buf_get(ctx, &buf, cap, 1) == 0) {
        failed |= bulk_row(ctx, BSGPU_PRESENT80, &buf, top, 1, d2h, &seed, 0, 0);
        host_buf_put(ctx, &buf);
    }
    bsgpu_close(ctx);
    return failed;
}

/* ---- key search ---- */

static int section_keysearch(unsigned ks_bits)
{
    uint64_t seed = 0x6b657973;
    int failed = 0;
    for (int c = 0; c < 4; c++)
        for (unsigned v = 0; v < 2; v++) {
            /* The other build only where it differs (the 255-register kernels). */
            if (v == 1 && c != BSGPU_PRESENT80 && c != BSGPU_GIFT128)
                continue;
            const bs_block_cipher *core = bs_block_cipher_by_name(ks_rows[c].name);
            uint8_t key[16], mask[16] = {0}, pt[1][16], ct[1][16], found[16];
            bs_key_schedule ks;
            char err[256];
            fill(key, sizeof key, &seed);
            for (unsigned i = 0; i < ks_bits; i++)
                mask[core->key_len - 1 - i / 8] |= (uint8_t)(1u << (i % 8));
            core->set_key(&ks, key);
            fill(pt[0], 16, &seed);
            core->encrypt(&ks, ct[0], pt[0], 1);
            key[0] ^= 0x80; /* a known bit wrong: nothing to find, the whole space swept */
            bsks_search s;
            uint64_t tried;
            bsks_prepare(&s, ks_rows[c].name, key, mask, (const uint8_t(*)[16])pt,
                         (const uint8_t(*)[16])ct, 1, err, sizeof err);
            bsks_cuda_set_variant(v);
            row r;
            /* One untimed sweep first: the first call of a kernel pays its module load. */
            if (bsks_search_cuda(&s, 0, found, &tried, err, sizeof err) < 0)
                fprintf(stderr, "%s key search (warm-up): %s\n", ks_rows[c].name, err);
            row_start(&r);
            for (unsigned p = 0; p < passes; p++) {
                const double t0 = now_s();
                const int rc = bsks_search_cuda(&s, 0, found, &tried, err, sizeof err);
                const double dt = now_s() - t0;
                if (rc != 0) {
                    fprintf(stderr, "%s key search: %s\n", ks_rows[c].name,
                            rc < 0 ? err : "found a key outside the space");
                    r.failed = failed = 1;
                    break;
                }
                r.v[r.n++] = log2((double)tried / dt);
            }
            bsks_kernel_attr a;
            bsks_cuda_kernel_attr(c, v, &a);
            char what[128], size[64];
            snprintf(what, sizeof what, "%s key search%s%s", ks_rows[c].name,
                     v ? ", register-capped launch bounds" : "",
                     a.local_bytes > 0 ? ", spills" : "");
            snprintf(size, sizeof size, "2^%u keys, full sweep", ks_bits);
            row_end(&r, what, size, "log2 keys/s", "%.2f", ks_rows[c].goal_log2,
                    ks_rows[c].bound_log2, NULL, a.regs, a.warps_per_sm);
        }
    bsks_cuda_set_variant(0);
    return failed;
}

/* What the command line asks for (--reps, --passes, --bulk-max and --out set their globals). */
typedef struct gpu_bench_opts {
    uint64_t bytes;
    unsigned ks_bits;
    const char *section;
} gpu_bench_opts;

/* 0, or the exit status of a refused command line (2). */
static int parse_args(int argc, char **argv, gpu_bench_opts *o)
{
    const char *out_path = NULL;
    *o = (gpu_bench_opts){.bytes = (uint64_t)1 << 30, .ks_bits = 32, .section = "all"};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc)
            o->bytes = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc)
            passes = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--keysearch-bits") == 0 && i + 1 < argc)
            o->ks_bits = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (strcmp(argv[i], "--bulk-max") == 0 && i + 1 < argc)
            bulk_max = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--section") == 0 && i + 1 < argc)
            o->section = argv[++i];
        else if (strcmp(argv[i], "--header") == 0)
            o->section = "header";
        else {
            fprintf(stderr, "usage: bsgpu-bench [--header | --section all|copies|kernels|bulk|"
                            "keysearch] [--passes 1|2] [--bytes N] [--reps N] "
                            "[--keysearch-bits N] [--bulk-max BYTES] [--out FILE (appended)]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 100 || o->ks_bits < 6 || o->ks_bits > 40 || passes < 1 ||
        passes > PASSES_MAX || o->bytes < 4096) {
        fprintf(stderr, "bsgpu-bench: reps 1..100, passes 1..2, keysearch-bits 6..40\n");
        return 2;
    }
    if (out_path != NULL && (out2 = fopen(out_path, "a")) == NULL) {
        perror(out_path);
        return 2;
    }
    return 0;
}

/* Runs (and reports, row by row) the sections asked for: 0, 1 (a row failed), 2 (unknown). */
static int run_sections(const gpu_bench_opts *o)
{
    const int all = strcmp(o->section, "all") == 0;
    int failed = 0, known = all;
    if (all || strcmp(o->section, "copies") == 0 || strcmp(o->section, "kernels") == 0) {
        known = 1;
        bsgpu_ctx *ctx;
        if (open_ctx(&ctx, (size_t)256 << 20) != 0)
            return 1;
        if (all || strcmp(o->section, "copies") == 0)
            failed |= section_copies(ctx, (size_t)256 << 20, 1, NULL);
        if (all || strcmp(o->section, "kernels") == 0)
            failed |= section_kernels(ctx, o->bytes);
        bsgpu_close(ctx);
    }
    if (all || strcmp(o->section, "bulk") == 0) {
        known = 1;
        failed |= section_bulk();
    }
    if (all || strcmp(o->section, "keysearch") == 0) {
        known = 1;
        failed |= section_keysearch(o->ks_bits);
    }
    if (!known) {
        fprintf(stderr, "bsgpu-bench: unknown section %s\n", o->section);
        return 2;
    }
    return failed;
}

int main(int argc, char **argv)
{
    gpu_bench_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0)
        return rc;
    const int header_only = strcmp(o.section, "header") == 0;
    if (header_only || strcmp(o.section, "all") == 0)
        header();
    if (header_only)
        return 0;
    if (bsgpu_device_count() == 0) {
        fprintf(stderr, "bsgpu-bench: no CUDA device\n");
        return 77;
    }
    rc = run_sections(&o);
    if (out2 != NULL)
        fclose(out2);
    return rc;
}
