/*
 * dudect: timing-leak detection for every implementation, SIMD included (Reparaz, Balasch and
 * Verbauwhede, "Dude, is my code constant time?", DATE 2017). valgrind cannot execute AVX-512,
 * so this is the constant-time evidence for those cores; it is a measurement, not a test.
 *
 * For each target, measurements alternate at random between two classes: class 0 uses a fixed
 * secret (all-zero data, or a fixed key), class 1 a fresh random one; the inputs are prepared
 * before the timed region. Each measurement is the TSC ticks of one call (lfence on both
 * sides). Welch's t-test compares the two classes' times, on all measurements and on those
 * below several percentiles of the first ones (the cropping of the paper, which removes the
 * long tail of interrupts); the largest |t| is reported. |t| above 4.5 means the classes are
 * distinguishable: the target leaks. The control (a table S-box with entries on separate cache
 * lines, 64 KiB in all: more than L1) must exceed it, or the measurement is too noisy to mean
 * anything.
 *
 * Usage: dudect [--measurements N] [--filter TEXT,TEXT..] [--fixed zero|repeat|random] [--list]
 * (a filter matches "NAME SECRET", e.g. "avx512 data", "GHASH"; the control always runs)
 */
#include "bitslice.h"
#include "bs_cpu.h"
#include "modes/gcm256.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if !defined(__x86_64__)
int main(void)
{
    fprintf(stderr, "dudect: x86-64 only (TSC)\n");
    return 77;
}
#else

#include <x86intrin.h>

#define NCROP 8
#define WARMUP 20000
#define MAXBYTES (512 * 24)

/* Welford's running mean and variance per class. */
typedef struct {
    double n[2], mean[2], m2[2];
} welch;

static void welch_add(welch *w, int cls, double x)
{
    w->n[cls] += 1;
    double d = x - w->mean[cls];
    w->mean[cls] += d / w->n[cls];
    w->m2[cls] += d * (x - w->mean[cls]);
}

static double welch_t(const welch *w)
{
    if (w->n[0] < 2 || w->n[1] < 2)
        return 0;
    double v0 = w->m2[0] / (w->n[0] - 1), v1 = w->m2[1] / (w->n[1] - 1);
    double den = sqrt(v0 / w->n[0] + v1 / w->n[1]);
    return den > 0 ? (w->mean[0] - w->mean[1]) / den : 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd64(void)
{
    /* splitmix64: the classes' choice and the random secrets. */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = rnd64();
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

/*
 * The fixed class's secret (--fixed): all zero (the default), one random block repeated, or
 * random bytes drawn once. Zero and repeated blocks make every lane of a bitsliced core the
 * same, so that each state word is all zeros or all ones in every round; a fixed random buffer
 * keeps the lanes distinct. A flag that goes away with --fixed random comes from that
 * uniformity (how much the bits toggle, i.e. power), not from a secret-dependent code path.
 */
enum { FIXED_ZERO, FIXED_REPEAT, FIXED_RANDOM };
static int fixed_kind = FIXED_ZERO;
static uint8_t fixed_bytes[MAXBYTES];

static void make_fixed(void)
{
    memset(fixed_bytes, 0, sizeof fixed_bytes);
    if (fixed_kind == FIXED_RANDOM)
        fill_random(fixed_bytes, sizeof fixed_bytes);
    if (fixed_kind == FIXED_REPEAT) {
        uint8_t blk[32];
        fill_random(blk, sizeof blk);
        for (size_t i = 0; i < sizeof fixed_bytes; i++)
            fixed_bytes[i] = blk[i % 32];
    }
}

/*
 * dst = the class's secret: random bytes, kept (class 1) or replaced by the fixed bytes
 * (class 0) under a mask. Both classes touch the same memory in the same order, so that
 * preparing one leaves the caches and store buffers as preparing the other does. A repeated
 * block repeats with the period of a 32-byte block, which is a whole number of blocks of every
 * cipher here (8, 16, 24 or 32 bytes: a 24-byte SPEEDY block only when the fixed kind is zero
 * or random).
 */
static void class_bytes(uint8_t *dst, size_t n, int cls)
{
    const uint8_t m = (uint8_t)(0u - (unsigned)cls);
    fill_random(dst, n);
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)((dst[i] & m) | (fixed_bytes[i] & (uint8_t)~m));
}

static inline uint64_t tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

/* A target: prepare(cls) sets up the secret of its class, untimed; run() is timed. */
typedef struct target {
    char name[64];
    const char *what; /* which secret the classes differ in */
    void (*prepare)(struct target *t, int cls);
    void (*run)(struct target *t);
    const bs_block_cipher *cipher;
    const bs_ghash256_impl *ghash;
    int level;
    size_t blocks;
    int expect_leak;
    int reference; /* the hardware reference: reported, judged by neither verdict */
} target;

static BS_ALIGN(64) uint8_t data[MAXBYTES], out[MAXBYTES], key[48];
static bs_key_schedule ks;
static BS_ALIGN(64) uint64_t hkey[BS_GHASH256_HKEY_WORDS];
static uint8_t ghash_y[32];
static bs_gcm256_ctx gcm;
static volatile uint8_t sink;

/* Block cipher, data class: fixed key; all-zero or random plaintext. */
static void prep_block_data(target *t, int cls)
{
    class_bytes(data, t->blocks * t->cipher->block_len, cls);
}

static void run_block(target *t)
{
    t->cipher->encrypt(&ks, out, data, t->blocks);
}

/* Block cipher, key class: fixed plaintext; all-zero or random key; key setup timed too. */
static void prep_block_key(target *t, int cls)
{
    class_bytes(key, t->cipher->key_len, cls);
}

static void run_block_key(target *t)
{
    t->cipher->set_key(&ks, key);
    t->cipher->encrypt(&ks, out, data, t->blocks);
}

/* GHASH-256: fixed H; all-zero or random blocks. */
static void prep_ghash(target *t, int cls)
{
    class_bytes(data, 32 * t->blocks, cls);
    memset(ghash_y, 0, sizeof ghash_y);
}

static void run_ghash(target *t)
{
    t->ghash->mul_blocks(hkey, ghash_y, data, t->blocks);
}

/* RIJNDAEL-256-GCM at a CPU level: a whole message; zero or random key (set untimed) and data. */
static void prep_gcm(target *t, int cls)
{
    class_bytes(key, 32, cls);
    class_bytes(data, 32 * t->blocks, cls);
    bs_cpu_limit(t->level);
    if (bs_gcm256_set_key(&gcm, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32) != BS_OK)
        abort();
    bs_cpu_limit(BS_CPU_LEVELS - 1);
}

static void run_gcm(target *t)
{
    static const uint8_t iv[28] = {1};
    uint8_t tag[32];
    bs_gcm256_set_iv(&gcm, iv, sizeof iv);
    bs_gcm256_encrypt(&gcm, out, data, 32 * t->blocks);
    bs_gcm256_tag(&gcm, tag, sizeof tag);
    sink ^= tag[0];
}

/*
 * The leaky control: a table S-box over 16 secret bytes, each entry on its own 256-byte stride
 * (64 KiB in all), the way T-table code spreads its tables over cache lines and sets.
 */
static uint8_t leaky_table[256 * 256];

static void prep_control(target *t, int cls)
{
    prep_block_data(t, cls);
}

static void run_control(target *t)
{
    (void)t;
    uint8_t acc = 0;
    for (int i = 0; i < 16; i++)
        acc ^= leaky_table[256 * data[i]];
    sink ^= acc;
}

/*
 * A hardware reference, not a control: 64 zmm words of data through rounds of VPTERNLOG and
 * rotations, stored and reloaded every round, the instruction mix of a 512-lane bitsliced core
 * with no S-box, key or table: its
 * instruction stream and memory accesses cannot depend on the data. If it is flagged too, what
 * the test sees is the processor's own data-dependent timing (how much the operands toggle: power
 * and clock management), not a secret-dependent path in a core.
 */
__attribute__((target("avx512f"))) static void run_zmm_logic(target *t)
{
    (void)t;
    static BS_ALIGN(64) __m512i state[64];
    __m512i v[64];
    for (int i = 0; i < 64; i++)
        v[i] = _mm512_loadu_si512((const void *)(data + 64 * i));
    for (int r = 0; r < 31; r++) {
        /* Through memory every round, as the cores' 64-word states go (no register file holds
         * them). */
        for (int i = 0; i < 64; i++)
            _mm512_store_si512((void *)&state[i], v[i]);
        __asm__ __volatile__("" : : : "memory");
        for (int i = 0; i < 64; i++)
            v[i] = _mm512_load_si512((const void *)&state[i]);
        for (int i = 0; i < 64; i += 4) {
            __m512i a = v[i], b = v[i + 1], c = v[i + 2], d = v[i + 3];
            v[i] = _mm512_ternarylogic_epi64(a, b, c, 0x96);
            v[i + 1] = _mm512_ternarylogic_epi64(b, c, d, 0xca);
            v[i + 2] = _mm512_ternarylogic_epi64(c, d, a, 0xe8);
            v[i + 3] = _mm512_rol_epi64(d, 7);
        }
        __m512i first = v[0];
        for (int i = 0; i < 63; i++)
            v[i] = _mm512_xor_si512(v[i], v[(i + 17) & 63]);
        v[63] = _mm512_xor_si512(v[63], first);
    }
    for (int i = 0; i < 64; i++)
        _mm512_storeu_si512((void *)(out + 64 * i), v[i]);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Runs n measurements; returns the largest |t| over the crops. */
static double measure(target *t, long n, double *t_raw)
{
    static uint64_t warm[WARMUP];
    uint64_t crop[NCROP];
    welch w[NCROP + 1];
    memset(w, 0, sizeof w);
    for (long i = 0; i < WARMUP; i++) {
        int cls = (int)(rnd64() & 1);
        t->prepare(t, cls);
        uint64_t a = tsc();
        t->run(t);
        warm[i] = tsc() - a;
    }
    qsort(warm, WARMUP, sizeof warm[0], cmp_u64);
    /* Percentiles 1 - 0.5^(10 (k + 1) / NCROP), as in the paper's code. */
    for (int k = 0; k < NCROP; k++) {
        double p = 1.0 - pow(0.5, 10.0 * (k + 1) / NCROP);
        crop[k] = warm[(size_t)(p * (WARMUP - 1))];
    }
    for (long i = 0; i < n; i++) {
        int cls = (int)(rnd64() & 1);
        t->prepare(t, cls);
        uint64_t a = tsc();
        t->run(t);
        double x = (double)(tsc() - a);
        welch_add(&w[NCROP], cls, x);
        for (int k = 0; k < NCROP; k++)
            if (x <= (double)crop[k])
                welch_add(&w[k], cls, x);
    }
    double best = 0;
    for (int k = 0; k <= NCROP; k++) {
        double v = fabs(welch_t(&w[k]));
        best = v > best ? v : best;
    }
    *t_raw = welch_t(&w[NCROP]);
    return best;
}

/* filter: comma-separated substrings of "NAME SECRET"; any one matches. */
static int matches(const char *name, const char *what, const char *filter)
{
    char full[160], one[64];
    snprintf(full, sizeof full, "%.63s %.31s", name, what);
    for (const char *p = filter; *p;) {
        size_t len = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one - 1 ? len : sizeof one - 1), p);
        if (len > 0 && strstr(full, one) != NULL)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

static size_t blocks_for(const bs_block_cipher *c)
{
    /* A full pass of the implementation's widest path: the code that runs on bulk data. */
    if (bs_impl_level(c->impl) == BS_CPU_AVX512 && c->block_len <= 24)
        return 512; /* up to SPEEDY's 24-byte blocks */
    if (bs_impl_level(c->impl) == BS_CPU_AVX2 && c->block_len <= 24)
        return 256; /* the ymm cores' pass (their lanes field says 64: the CTR read-ahead) */
    return c->lanes;
}

int main(int argc, char **argv)
{
    long n = 10000000;
    const char *filter = NULL;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--measurements") == 0 && i + 1 < argc)
            n = atol(argv[++i]);
        else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
            filter = argv[++i];
        else if (strcmp(argv[i], "--list") == 0)
            list = 1;
        else if (strcmp(argv[i], "--fixed") == 0 && i + 1 < argc) {
            const char *k = argv[++i];
            fixed_kind = strcmp(k, "zero") == 0     ? FIXED_ZERO
                         : strcmp(k, "repeat") == 0 ? FIXED_REPEAT
                         : strcmp(k, "random") == 0 ? FIXED_RANDOM
                                                    : -1;
            if (fixed_kind < 0) {
                fprintf(stderr, "dudect: --fixed takes zero, repeat or random\n");
                return 2;
            }
        } else {
            fprintf(stderr,
                    "usage: dudect [--measurements N] [--filter TEXT] [--fixed zero|repeat|random] "
                    "[--list]\n");
            return 2;
        }
    }
    for (size_t i = 0; i < sizeof leaky_table; i++)
        leaky_table[i] = (uint8_t)(i * 167 + 13);
    make_fixed();

    /* The control, two per cipher implementation, the GHASHes and the GCM levels. */
    static target targets[160];
    int nt = 0;
    target *t = &targets[nt++];
    snprintf(t->name, sizeof t->name, "control-table-sbox");
    t->what = "data", t->prepare = prep_control, t->run = run_control, t->expect_leak = 1;
    t->cipher = &bs_rijndael256_bs64, t->blocks = 1;
    if (bs_cpu_level() >= BS_CPU_AVX512) {
        t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "reference-zmm-logic");
        t->what = "data", t->prepare = prep_control, t->run = run_zmm_logic;
        t->cipher = &bs_rijndael256_bs64, t->blocks = 128; /* 4 KiB: 128 blocks of 32 bytes */
        t->reference = 1;
    }
    for (size_t i = 0; bs_block_ciphers[i] != NULL && nt < 140; i++) {
        const bs_block_cipher *c = bs_block_ciphers[i];
        if (!bs_impl_usable(c))
            continue;
        t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "%s/%s", c->name, c->impl);
        t->what = "data", t->prepare = prep_block_data, t->run = run_block;
        t->cipher = c, t->blocks = blocks_for(c);
        t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "%s/%s", c->name, c->impl);
        t->what = "key", t->prepare = prep_block_key, t->run = run_block_key;
        t->cipher = c, t->blocks = blocks_for(c);
    }
    const bs_ghash256_impl *gh[] = {&bs_ghash256_ctmul64, &bs_ghash256_ctmul32,
                                    &bs_ghash256_ctshift32, bs_ghash256_pclmul(),
                                    bs_ghash256_vpclmul()};
    for (size_t g = 0; g < sizeof gh / sizeof gh[0] && gh[g] != NULL; g++) {
        t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "GHASH-256/%s", gh[g]->name);
        t->what = "data", t->prepare = prep_ghash, t->run = run_ghash;
        t->ghash = gh[g], t->blocks = 16;
    }
    for (int lvl = bs_cpu_level(); lvl >= 0; lvl--) {
        t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "RIJNDAEL-256-GCM/level-%s", bs_cpu_level_name(lvl));
        t->what = "key+data", t->prepare = prep_gcm, t->run = run_gcm;
        t->level = lvl, t->blocks = 16;
    }

    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu(), &set);
    sched_setaffinity(0, sizeof set, &set);
    printf("dudect: %ld measurements per target (+%d warm-up), CPU level %s, fixed class %s; "
           "|t| > 4.5: leak\n",
           n, WARMUP, bs_cpu_level_name(bs_cpu_level()),
           fixed_kind == FIXED_ZERO     ? "zero"
           : fixed_kind == FIXED_REPEAT ? "repeat"
                                        : "random");
    printf("%-36s %-9s %6s %10s %10s  %s\n", "target", "secret", "blocks", "max |t|", "t (raw)",
           "verdict");
    int bad = 0;
    for (int i = 0; i < nt; i++) {
        t = &targets[i];
        if (filter != NULL && !matches(t->name, t->what, filter) && !t->expect_leak)
            continue;
        if (list) {
            printf("%s %s\n", t->name, t->what);
            continue;
        }
        if (t->cipher != NULL && t->prepare != prep_control) {
            memset(key, 0, sizeof key);
            t->cipher->set_key(&ks, key);
        }
        if (t->ghash != NULL) {
            uint8_t h[32];
            fill_random(h, sizeof h);
            t->ghash->init(hkey, h);
        }
        memset(data, 0, sizeof data);
        double raw, m = measure(t, n, &raw);
        int leak = m > 4.5;
        const char *verdict = t->reference ? (leak ? "hardware: data-dependent" : "hardware: flat")
                              : t->expect_leak ? (leak ? "control caught" : "CONTROL NOT CAUGHT")
                                               : (leak ? "LEAK?" : "no leak detected");
        if (!t->reference)
            bad |= t->expect_leak ? !leak : leak;
        printf("%-36s %-9s %6zu %10.2f %10.2f  %s\n", t->name, t->what, t->blocks, m, raw, verdict);
        fflush(stdout);
    }
    return bad;
}

#endif
