/*
 * bsbench: throughput of every compiled-in core in CTR mode, RIJNDAEL-256-GCM and GHASH-256,
 * AES-256-GCM over the fixsliced AES core with each GHASH-128 (the 4-bit table one is marked
 * NOT CONSTANT-TIME) on one core, beside OpenSSL's AES-256-CTR and AES-256-GCM through EVP in
 * the same run.
 *
 * Each (mode, size) cell is the median of several runs; a run repeats one operation on a buffer
 * of that size for at least a minimum time. CTR operations continue one stream (as `openssl
 * speed` does); a GCM operation is a whole message: set IV, 16 bytes of AAD, the data, the tag.
 * MB/s counts data bytes only, MB = 10^6 bytes; +-% is half the interquartile range of the runs.
 * Cycles are TSC ticks on x86 (the nominal frequency, not the core clock under turbo); elsewhere
 * the column is ns/B.
 *
 * --cheapest times every operation (short ones in batches of 16 KiB) alone with the TSC and
 * reports the cheapest: on a loaded machine the least disturbed call, a figure for comparing two
 * builds, not a throughput claim. --messages makes each CTR operation (and OpenSSL's) a message
 * of its own: a new IV, then the data, so that no call is served from keystream an earlier one
 * computed ahead.
 *
 * Usage: bsbench [--quick] [--filter TEXT] [--sizes 64,16K,1M] [--runs N] [--impl NAME]
 *                [--openssl DIR] (or BS_BENCH_OPENSSL=DIR: OpenSSL's rows from DIR/lib's libcrypto)
 *                [--fastest|--cheapest] [--messages]
 */
#include "bitslice.h"
#include "bs_cpu.h"
#include "modes/ctr.h"
#include "modes/gcm128.h"
#include "modes/gcm256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "openssl_select.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#else
#define BENCH_HAVE_TSC 0
#endif

enum kind { K_CTR, K_GCM, K_GHASH, K_GCM128, K_GHASH128, K_OSSL_CTR, K_OSSL_GCM };

typedef struct row {
    char label[48];
    char impl[24];
    enum kind kind;
    const bs_block_cipher *cipher; /* K_CTR */
    const void *ghash;             /* K_GHASH, K_GCM128, K_GHASH128: a bs_ghash256/128_impl */
    int level;                     /* K_GCM: the CPU level (bs_cpu.h) its key setup runs at */
    int ref;                       /* index of the OpenSSL row for the ratio, or -1 */
    int selected;
    double mbps[16]; /* per size, for the ratio */
} row;

typedef struct state {
    row *r;
    bs_ctr_ctx ctr;
    bs_gcm256_ctx gcm;
    BS_ALIGN(64) uint64_t hkey[BS_GHASH256_HKEY_WORDS];
    bs_gcm128_ctx gcm128;
    BS_ALIGN(64) uint64_t hkey128[BS_GHASH128_HKEY_WORDS];
    uint8_t y[32];
    uint8_t iv[32];
    EVP_CIPHER_CTX *evp;
} state;

static const uint8_t bench_key[32] = {
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d, 0x77, 0x81,
    0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4};
static const uint8_t bench_aad[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bsbench: %s: %s\n", what, why);
    exit(1);
}

static void check(const char *what, int rc)
{
    if (rc != BS_OK)
        die(what, bs_strerror(rc));
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t ticks(void)
{
#if BENCH_HAVE_TSC
    return __rdtsc();
#else
    return 0;
#endif
}

/* --messages: every CTR operation a message of its own (a new IV, then the data). */
static int ctr_messages;

/* Fresh key and IV before each run (untimed), so that no run meets a data limit. */
static void prepare(state *s)
{
    const row *r = s->r;
    memset(s->iv, 0, sizeof s->iv);
    switch (r->kind) {
    case K_CTR:
        check("ctr set_key", bs_ctr_set_key(&s->ctr, r->cipher, bench_key, r->cipher->key_len));
        check("ctr set_iv", bs_ctr_set_iv(&s->ctr, s->iv, bs_ctr_iv_len(r->cipher)));
        break;
    case K_GCM:
        bs_cpu_limit(r->level);
        check("gcm set_key",
              bs_gcm256_set_key(&s->gcm, bs_block_cipher_by_name("RIJNDAEL-256"), bench_key, 32));
        bs_cpu_limit(BS_CPU_TOP);
        break;
    case K_GHASH:
        ((const bs_ghash256_impl *)r->ghash)->init(s->hkey, bench_key);
        memset(s->y, 0, sizeof s->y);
        break;
    case K_GCM128:
        check("gcm128 set_key",
              bs_gcm128_set_key(&s->gcm128, bs_block_cipher_by_name("AES-256"), bench_key, 32));
        bs_gcm128_set_ghash(&s->gcm128, (const bs_ghash128_impl *)r->ghash);
        break;
    case K_GHASH128:
        ((const bs_ghash128_impl *)r->ghash)->init(s->hkey128, bench_key);
        memset(s->y, 0, sizeof s->y);
        break;
    case K_OSSL_CTR:
        if (!EVP_EncryptInit_ex(s->evp, EVP_aes_256_ctr(), NULL, bench_key, s->iv))
            die("EVP", "AES-256-CTR init failed");
        break;
    case K_OSSL_GCM:
        if (!EVP_EncryptInit_ex(s->evp, EVP_aes_256_gcm(), NULL, bench_key, NULL))
            die("EVP", "AES-256-GCM init failed");
        break;
    }
}

/* One operation on len bytes of buf, in place. */
static void operate(state *s, uint8_t *buf, size_t len)
{
    int outl;
    uint8_t tag[32];
    switch (s->r->kind) {
    case K_CTR:
        if (ctr_messages) {
            bs_ctr_add(s->iv, 4, 1); /* the IV's first 4 bytes count the messages */
            check("ctr set_iv", bs_ctr_set_iv(&s->ctr, s->iv, bs_ctr_iv_len(s->r->cipher)));
        }
        check("ctr crypt", bs_ctr_crypt(&s->ctr, buf, buf, len));
        break;
    case K_GCM:
        bs_ctr_add(s->iv, 28, 1);
        check("gcm set_iv", bs_gcm256_set_iv(&s->gcm, s->iv, 28));
        check("gcm aad", bs_gcm256_aad(&s->gcm, bench_aad, sizeof bench_aad));
        check("gcm encrypt", bs_gcm256_encrypt(&s->gcm, buf, buf, len));
        check("gcm tag", bs_gcm256_tag(&s->gcm, tag, 32));
        buf[0] ^= tag[0];
        break;
    case K_GHASH:
        ((const bs_ghash256_impl *)s->r->ghash)->mul_blocks(s->hkey, s->y, buf, len / 32);
        buf[0] ^= s->y[0];
        break;
    case K_GCM128:
        bs_ctr_add(s->iv, 12, 1);
        check("gcm128 set_iv", bs_gcm128_set_iv(&s->gcm128, s->iv, 12));
        check("gcm128 aad", bs_gcm128_aad(&s->gcm128, bench_aad, sizeof bench_aad));
        check("gcm128 encrypt", bs_gcm128_encrypt(&s->gcm128, buf, buf, len));
        check("gcm128 tag", bs_gcm128_tag(&s->gcm128, tag, 16));
        buf[0] ^= tag[0];
        break;
    case K_GHASH128:
        ((const bs_ghash128_impl *)s->r->ghash)->mul_blocks(s->hkey128, s->y, buf, len / 16);
        buf[0] ^= s->y[0];
        break;
    case K_OSSL_CTR:
        if (ctr_messages) {
            bs_ctr_add(s->iv, 4, 1);
            if (!EVP_EncryptInit_ex(s->evp, NULL, NULL, NULL, s->iv))
                die("EVP", "AES-256-CTR init failed");
        }
        if (!EVP_EncryptUpdate(s->evp, buf, &outl, buf, (int)len))
            die("EVP", "AES-256-CTR update failed");
        break;
    case K_OSSL_GCM:
        bs_ctr_add(s->iv, 12, 1);
        if (!EVP_EncryptInit_ex(s->evp, NULL, NULL, NULL, s->iv) ||
            !EVP_EncryptUpdate(s->evp, NULL, &outl, bench_aad, sizeof bench_aad) ||
            !EVP_EncryptUpdate(s->evp, buf, &outl, buf, (int)len) ||
            !EVP_EncryptFinal_ex(s->evp, buf + len, &outl) ||
            !EVP_CIPHER_CTX_ctrl(s->evp, EVP_CTRL_AEAD_GET_TAG, 16, tag))
            die("EVP", "AES-256-GCM message failed");
        buf[0] ^= tag[0];
        break;
    }
}

typedef struct sample {
    double ns;
    double ticks;
    double spread; /* half the interquartile range of the times, relative to the median */
} sample;

static int by_ns(const void *a, const void *b)
{
    double x = ((const sample *)a)->ns, y = ((const sample *)b)->ns;
    return (x > y) - (x < y);
}

static double total_ns, total_ticks; /* for the TSC frequency in the footer */

/* The median (by time) of `runs` runs of at least min_ns each, per byte. */
/*
 * --fastest: report the fastest run instead of the median. On a machine shared with other
 * work every run is slowed by preemption; the fastest one is the least disturbed (the spread
 * is still that of the median).
 */
static int report_fastest;

/*
 * --cheapest: every operation of the runs timed alone with the TSC (operations under 16 KiB in
 * batches of 16 KiB or more, since short CTR calls mostly XOR keystream read ahead by an earlier
 * one), and the cheapest one reported (its MB/s at the TSC frequency measured over the runs).
 * Preemption and a busy sibling thread only ever add time, so on a shared machine this is the
 * steadiest figure for an A/B of two builds; it is a best case, not a throughput (x86 only;
 * elsewhere --fastest).
 */
static int report_cheapest;

static sample measure(state *s, uint8_t *buf, size_t len, int runs, double min_ns)
{
    /* Calibration (also the warm-up): double the count until one batch takes min_ns / 4. */
    uint64_t iters = 1;
    for (;;) {
        prepare(s);
        double t0 = now_ns();
        for (uint64_t i = 0; i < iters; i++)
            operate(s, buf, len);
        double dt = now_ns() - t0;
        if (dt >= min_ns / 4) {
            iters = (uint64_t)((double)iters * min_ns / dt) + 1;
            break;
        }
        iters *= 2;
    }
    sample smp[64];
    /* --cheapest: batches of at least 16 KiB (short CTR calls mostly read keystream ahead). */
    uint64_t cheapest = UINT64_MAX, batch = 1;
    while (batch * len < 16384 && 2 * batch <= iters)
        batch *= 2;
    iters = (iters + batch - 1) / batch * batch;
    for (int r = 0; r < runs; r++) {
        prepare(s);
        double t0 = now_ns();
        uint64_t c0 = ticks();
        if (report_cheapest && BENCH_HAVE_TSC) {
            for (uint64_t i = 0; i + batch <= iters; i += batch) {
                uint64_t a = ticks();
                for (uint64_t j = 0; j < batch; j++)
                    operate(s, buf, len);
                uint64_t d = ticks() - a;
                cheapest = d < cheapest ? d : cheapest;
            }
        } else {
            for (uint64_t i = 0; i < iters; i++)
                operate(s, buf, len);
        }
        uint64_t c1 = ticks();
        double t1 = now_ns();
        smp[r].ns = (t1 - t0) / ((double)iters * (double)len);
        smp[r].ticks = (double)(c1 - c0) / ((double)iters * (double)len);
        total_ns += t1 - t0;
        total_ticks += (double)(c1 - c0);
    }
    qsort(smp, (size_t)runs, sizeof smp[0], by_ns);
    sample med = smp[runs / 2];
    med.spread = (smp[(3 * runs) / 4].ns - smp[runs / 4].ns) / (2 * med.ns);
    if (report_fastest) {
        double spread = med.spread;
        med = smp[0];
        med.spread = spread;
    }
    if (report_cheapest && BENCH_HAVE_TSC && total_ticks > 0) {
        med.ticks = (double)cheapest / ((double)batch * (double)len);
        med.ns = med.ticks * total_ns / total_ticks;
    }
    return med;
}

static size_t parse_size(const char *p, char **end)
{
    size_t v = strtoul(p, end, 10);
    if (**end == 'K' || **end == 'k') {
        v <<= 10;
        (*end)++;
    } else if (**end == 'M' || **end == 'm') {
        v <<= 20;
        (*end)++;
    }
    return v;
}

static void size_label(char *out, size_t n, size_t v)
{
    if (v >= (1u << 20) && v % (1u << 20) == 0)
        snprintf(out, n, "%zu MiB", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(out, n, "%zu KiB", v >> 10);
    else
        snprintf(out, n, "%zu B", v);
}

static int matches(const char *label, const char *filter)
{
    if (filter == NULL)
        return 1;
    size_t n = strlen(filter);
    for (const char *p = label; *p; p++)
        if (strncasecmp(p, filter, n) == 0)
            return 1;
    return 0;
}

static void pin_to_current_cpu(char *where, size_t n)
{
    snprintf(where, n, "not pinned");
#ifdef __linux__
    int cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu >= 0) {
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) == 0)
            snprintf(where, n, "pinned to CPU %d", cpu);
    }
#endif
}

static void cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            colon += 2;
            colon[strcspn(colon, "\n")] = 0;
            snprintf(out, n, "%s", colon);
            break;
        }
    }
    fclose(f);
}

/* Rows of the table: every registered core's CTR row, then the GCM and GHASH rows. */
#define MAX_ROWS 160

static row *add_row(row *rows, int *nrows, const char *label, const char *impl, enum kind kind,
                    int ref)
{
    if (*nrows >= MAX_ROWS) {
        /* Never drop a row quietly: a table missing an implementation reads as complete. */
        fprintf(stderr, "bsbench: more than %d rows; raise MAX_ROWS\n", MAX_ROWS);
        exit(1);
    }
    row *r = &rows[(*nrows)++];
    memset(r, 0, sizeof *r);
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->impl, sizeof r->impl, "%s", impl);
    r->kind = kind;
    r->ref = ref;
    return r;
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: bsbench [--quick] [--filter TEXT] [--impl NAME] [--sizes 64,16K,1M] [--runs N]\n"
        "               [--fastest | --cheapest] [--messages]\n"
        "  --quick    7 runs of at least 5 ms per cell instead of 9 of 50 ms\n"
        "  --openssl DIR  measure OpenSSL from DIR/lib (an install prefix; also\n"
        "             $BS_BENCH_OPENSSL), not the system libcrypto\n"
        "  --filter   only rows whose name contains TEXT (case-insensitive); the\n"
        "             OpenSSL rows they are compared with run too\n"
        "  --impl     only rows of this implementation (e.g. avx512; exact)\n"
        "  --sizes    buffer sizes, suffixes K and M (default 64,16K,1M)\n"
        "  --runs     runs per cell (median), 3..63\n"
        "  --fastest  report each cell's fastest run, not the median (shared machines)\n"
        "  --cheapest report each cell's cheapest single operation (TSC; for A/B on a\n"
        "             loaded machine, a best case rather than a throughput)\n"
        "  --messages every CTR operation a message of its own: a new IV, then the data\n"
        "             (default: CTR operations continue one stream)\n");
    exit(2);
}

/* What the command line asks for. */
typedef struct bench_opts {
    size_t sizes[16];
    int nsizes, runs;
    double min_ns;
    const char *filter, *impl_filter;
} bench_opts;

static void parse_args(int argc, char **argv, bench_opts *o)
{
    *o = (bench_opts){.sizes = {64, 16 << 10, 1 << 20}, .nsizes = 3, .runs = 9, .min_ns = 50e6};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            o->runs = 7;
            o->min_ns = 5e6;
        } else if (strcmp(argv[i], "--fastest") == 0) {
            report_fastest = 1;
        } else if (strcmp(argv[i], "--cheapest") == 0) {
            report_cheapest = 1;
        } else if (strcmp(argv[i], "--messages") == 0) {
            ctr_messages = 1;
        } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            o->filter = argv[++i];
        } else if (strcmp(argv[i], "--impl") == 0 && i + 1 < argc) {
            o->impl_filter = argv[++i];
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            o->runs = atoi(argv[++i]);
            if (o->runs < 3 || o->runs > 63)
                usage();
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            char *p = argv[++i], *end;
            o->nsizes = 0;
            while (*p && o->nsizes < 16) {
                o->sizes[o->nsizes] = parse_size(p, &end);
                if (end == p || o->sizes[o->nsizes] == 0 || o->sizes[o->nsizes] > (256u << 20))
                    usage();
                o->nsizes++;
                p = *end == ',' ? end + 1 : end;
                if (*end != ',' && *end != 0)
                    usage();
            }
        } else {
            usage();
        }
    }
}

/*
 * GCM at each CPU level up to the one in force (what set_key picks there: core + GHASH), best
 * first; a level that picks the same pair as the one above it is left out. Then a GHASH-256 row
 * for each GHASH those levels picked.
 */
static void add_gcm256_rows(row *rows, int *nrows)
{
    static bs_gcm256_ctx probe;
    const bs_ghash256_impl *ghashes[BS_CPU_TOP + 1];
    int nghash = 0;
    char last[24] = "";
    for (int lvl = bs_cpu_level(); lvl >= BS_CPU_PORTABLE; lvl--) {
        char impl[24];
        bs_cpu_limit(lvl);
        check("gcm set_key",
              bs_gcm256_set_key(&probe, bs_block_cipher_by_name("RIJNDAEL-256"), bench_key, 32));
        bs_cpu_limit(BS_CPU_TOP);
        snprintf(impl, sizeof impl, "%s+%s", probe.cipher->impl, probe.ghash->name);
        if (strcmp(impl, last) == 0)
            continue;
        snprintf(last, sizeof last, "%s", impl);
        add_row(rows, nrows, "RIJNDAEL-256-GCM", impl, K_GCM, 1)->level = lvl;
        int seen = 0;
        for (int g = 0; g < nghash; g++)
            seen |= ghashes[g] == probe.ghash;
        if (!seen)
            ghashes[nghash++] = probe.ghash;
    }
    bs_gcm256_clear(&probe);
    for (int g = 0; g < nghash; g++)
        add_row(rows, nrows, "GHASH-256", ghashes[g]->name, K_GHASH, -1)->ghash = ghashes[g];
}

/*
 * AES-256-GCM over the fixsliced core with each GHASH-128; the 4-bit table is NOT constant-time
 * (its name says so, and so does its GHASH row).
 */
static void add_gcm128_rows(row *rows, int *nrows)
{
    static const bs_ghash128_impl *const g128[] = {&bs_ghash128_ctmul32, &bs_ghash128_ctshift32,
                                                   &bs_ghash128_table4_not_ct};
    const bs_block_cipher *aes = bs_block_cipher_by_name("AES-256");
    for (size_t g = 0; g < 3 && aes != NULL; g++) {
        char impl[24];
        snprintf(impl, sizeof impl, "%s+%s", aes->impl, g128[g]->name);
        add_row(rows, nrows, "AES-256-GCM", impl, K_GCM128, 1)->ghash = g128[g];
    }
    for (size_t g = 0; g < 3; g++)
        add_row(rows, nrows, g128[g]->constant_time ? "GHASH-128" : "GHASH-128 (NOT CT)",
                g128[g]->name, K_GHASH128, -1)
            ->ghash = g128[g];
}

/*
 * The rows: OpenSSL first (the ratios need them), then every core's CTR, GCM, GHASH; those the
 * options name are selected, with the OpenSSL rows they are compared with. Returns the count.
 */
static int plan_rows(row *rows, const bench_opts *o)
{
    int nrows = 0;
    add_row(rows, &nrows, "AES-256-CTR", "OpenSSL", K_OSSL_CTR, -1);
    add_row(rows, &nrows, "AES-256-GCM", "OpenSSL", K_OSSL_GCM, -1);
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        char label[48];
        if (!bs_impl_usable(bs_block_ciphers[i])) {
            printf("skipped %s/%s: this CPU (level %s) lacks what it needs\n",
                   bs_block_ciphers[i]->name, bs_block_ciphers[i]->impl,
                   bs_cpu_level_name(bs_cpu_level()));
            continue;
        }
        snprintf(label, sizeof label, "%s-CTR", bs_block_ciphers[i]->name);
        add_row(rows, &nrows, label, bs_block_ciphers[i]->impl, K_CTR, 0)->cipher =
            bs_block_ciphers[i];
    }
    add_gcm256_rows(rows, &nrows);
    add_gcm128_rows(rows, &nrows);
    for (int i = 0; i < nrows; i++)
        if (matches(rows[i].label, o->filter) &&
            (o->impl_filter == NULL || strcmp(rows[i].impl, o->impl_filter) == 0)) {
            rows[i].selected = 1;
            if (rows[i].ref >= 0)
                rows[rows[i].ref].selected = 1;
        }
    return nrows;
}

/* The header: machine, method, units and the column titles. */
static void report_header(const bench_opts *o)
{
    char pin[64], model[128];
    pin_to_current_cpu(pin, sizeof pin);
    cpu_model(model, sizeof model);
    printf("bsbench: %s, one thread %s; %s\n", model, pin, bs_openssl_describe());
    if (report_cheapest && BENCH_HAVE_TSC)
        printf("cheapest operation (batches >= 16 KiB) in %d runs of >= %.0f ms per cell; +-%%: "
               "half the "
               "interquartile range of the runs\n",
               o->runs, o->min_ns / 1e6);
    else
        printf("%s of %d runs of >= %.0f ms per cell; +-%%: half the interquartile range\n",
               report_fastest ? "fastest" : "median", o->runs, o->min_ns / 1e6);
    printf(
        "MB = 10^6 data bytes; a GCM operation = new IV + 16 B AAD + data + tag; a CTR one = %s\n",
        ctr_messages ? "new IV + data (--messages)" : "the data, continuing one stream");
#if BENCH_HAVE_TSC
    printf("c/B: TSC cycles per byte, at the TSC's nominal frequency (not the core clock)\n");
    const char *unit = "c/B";
#else
    printf("ns/B: no cycle counter on this architecture\n");
    const char *unit = "ns/B";
#endif
    printf("\n%-18s %-13s %8s %10s %6s %8s  %s\n", "mode", "impl", "size", "MB/s", "+-%", unit,
           "vs OpenSSL");
}

/* One measured cell's line (m NULL: a size this row has no operation for). */
static void report_cell(const row *rows, const row *r, int z, size_t size, const sample *m)
{
    char sz[32], ratio[96] = "-";
    size_label(sz, sizeof sz, size);
    if (m == NULL) {
        printf("%-18s %-13s %8s %10s %6s %8s  %s\n", r->label, r->impl, sz, "-", "-", "-", "-");
        return;
    }
    if (r->ref >= 0 && rows[r->ref].mbps[z] > 0)
        snprintf(ratio, sizeof ratio, "%.3fx %s", r->mbps[z] / rows[r->ref].mbps[z],
                 rows[r->ref].label);
    printf("%-18s %-13s %8s %10.1f %6.1f %8.2f  %s\n", r->label, r->impl, sz, r->mbps[z],
           100 * m->spread, BENCH_HAVE_TSC ? m->ticks : m->ns, ratio);
    fflush(stdout);
}

/* Every selected row at every size, each cell reported as soon as it is measured. */
static void run_rows(state *s, row *rows, int nrows, const bench_opts *o, uint8_t *buf)
{
    for (int i = 0; i < nrows; i++) {
        row *r = &rows[i];
        if (!r->selected)
            continue;
        s->r = r;
        for (int z = 0; z < o->nsizes; z++) {
            size_t len = o->sizes[z];
            if (r->kind == K_GHASH)
                len -= len % 32;
            if (len == 0) {
                report_cell(rows, r, z, o->sizes[z], NULL);
                continue;
            }
            sample m = measure(s, buf, len, o->runs, o->min_ns);
            r->mbps[z] = 1e3 / m.ns;
            report_cell(rows, r, z, o->sizes[z], &m);
        }
    }
}

int main(int argc, char **argv)
{
    bench_opts o;
    static row rows[MAX_ROWS];

    bs_openssl_select(&argc, argv);
    parse_args(argc, argv, &o);
    const int nrows = plan_rows(rows, &o);

    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    uint8_t *buf = (uint8_t *)aligned_alloc(64, (max + 64 + 63) / 64 * 64);
    state *s = (state *)aligned_alloc(64, (sizeof(state) + 63) / 64 * 64);
    if (buf == NULL || s == NULL)
        die("memory", "allocation failed");
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < max + 64; i++)
        buf[i] = (uint8_t)(i * 131 + 7);
    s->evp = EVP_CIPHER_CTX_new();
    if (s->evp == NULL)
        die("EVP", "EVP_CIPHER_CTX_new failed");

    report_header(&o);
    run_rows(s, rows, nrows, &o, buf);
#if BENCH_HAVE_TSC
    if (total_ns > 0)
        printf("\nTSC frequency measured over the runs: %.3f GHz\n", total_ticks / total_ns);
#endif

    EVP_CIPHER_CTX_free(s->evp);
    bs_gcm256_clear(&s->gcm);
    bs_ctr_clear(&s->ctr);
    free(s);
    free(buf);
    return 0;
}
