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
 * long tail of interrupts); the largest |t| is reported, with the fixed class's mean minus the
 * random class's in that test ("delta", ticks: how large, beside how sure). |t| above 4.5 means the
 * classes are distinguishable: the target leaks. The control (a table S-box with entries on
 * separate cache lines, 64 KiB in all: more than L1) must exceed it, or the measurement is too
 * noisy to mean anything.
 *
 * Second control: GHASH-128 with Shoup's 4-bit tables (ghash128_table4_not_ct.c), whose indices
 * are nibbles of the secret-dependent accumulator. Its 256-byte table (four cache lines) lives in
 * the key form (hkey), which stays in L1 between back-to-back calls, where an index shows only
 * through finer effects than a miss; a cache-sharing attacker evicts it between the victim's calls
 * (Flush+Reload, Prime+Probe). The "+evict" targets do that (CLFLUSH of the key form before each
 * call, untimed, the same lines in both classes), so that the indices show as a number of misses;
 * the constant-time GHASHes get the same eviction, and load the same lines whatever the data. The
 * table GHASH in L1 is reported ("not-ct code"), judged by neither verdict.
 *
 * Targets: every block cipher in the registry (bs_block_ciphers: the host cores and the MCU
 * cores that run on the host) plus the masked AES cores, each with secret data and with a
 * secret key; every GHASH-256 and GHASH-128; RIJNDAEL-256-GCM at each CPU level; AES-GCM over
 * each AES core and constant-time GHASH-128.
 *
 * Usage: dudect [--measurements N] [--filter TEXT,TEXT..] [--fixed zero|repeat|random] [--list]
 * (a filter matches "NAME SECRET", e.g. "avx512 data", "GHASH"; the control always runs)
 */
#include "aes/aes_masked.h"
#include "bitslice.h"
#include "bs_cpu.h"
#include "modes/gcm128.h"
#include "modes/gcm256.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

/* The masked AES cores' randomness: its own splitmix64 stream, so that the class sequence of
 * the other targets does not depend on whether the masked ones ran. Timing only: no secrecy. */
static uint64_t mask_rng = 0x2545f4914f6cdd1dull;
static void mask_words(void *ctx, uint32_t *w, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (mask_rng += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        w[i] = (uint32_t)(z ^ (z >> 31));
    }
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
    const uint64_t m = 0 - (uint64_t)cls;
    size_t i = 0;
    /* Eight bytes at a time: the preparation of a 12 KiB pass cost more than the pass. */
    for (; i + 8 <= n; i += 8) {
        uint64_t r = rnd64(), f;
        memcpy(&f, fixed_bytes + i, 8);
        r = (r & m) | (f & ~m);
        memcpy(dst + i, &r, 8);
    }
    for (; i < n; i++)
        dst[i] = (uint8_t)((rnd64() & m) | (fixed_bytes[i] & ~m));
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
    const bs_ghash128_impl *ghash128;
    int level;
    int evict; /* flush the key form (GHASH's hkey) from the caches before each call */
    size_t blocks;
    int expect_leak;
    int reference; /* the hardware reference: reported, judged by neither verdict */
    int not_ct;    /* known non-constant-time code outside the control's setting: reported */
} target;

static BS_ALIGN(64) uint8_t data[MAXBYTES], out[MAXBYTES], key[48];
static bs_key_schedule ks;
static BS_ALIGN(64) uint64_t hkey[BS_GHASH256_HKEY_WORDS];
static uint8_t ghash_y[32];
static bs_gcm256_ctx gcm;
static bs_gcm128_ctx gcm128;
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

/* Evicts n bytes at p from every cache level (untimed, before a call); CLFLUSH is SSE2. */
static void evict(const void *p, size_t n)
{
    for (size_t i = 0; i < n; i += 64)
        _mm_clflush((const uint8_t *)p + i);
    _mm_mfence();
}

static size_t ghash_block(const target *t)
{
    return t->ghash128 != NULL ? 16 : 32;
}

/* GHASH-256 and GHASH-128, data class: fixed random H; all-zero or random blocks. */
static void prep_ghash(target *t, int cls)
{
    class_bytes(data, ghash_block(t) * t->blocks, cls);
    memset(ghash_y, 0, sizeof ghash_y);
    if (t->evict)
        evict(hkey, sizeof hkey);
}

/*
 * Key class: all-zero or random H, its key form made untimed; fixed chosen blocks: the first all
 * 0x11, the others zero (set in main). With zero blocks alone y would stay 0 whatever H; with
 * random ones the table GHASH would index all four lines of its table in both classes. These
 * keep a zero H's lookups on the table's first line (entries 0-3) and let a random H's product
 * spread them over all four: a chosen-plaintext setting, which the t-test may use.
 */
static void prep_ghash_key(target *t, int cls)
{
    uint8_t h[32];
    class_bytes(h, ghash_block(t), cls);
    if (t->ghash128 != NULL)
        t->ghash128->init(hkey, h);
    else
        t->ghash->init(hkey, h);
    memset(ghash_y, 0, sizeof ghash_y);
    if (t->evict)
        evict(hkey, sizeof hkey);
}

static void run_ghash(target *t)
{
    if (t->ghash128 != NULL)
        t->ghash128->mul_blocks(hkey, ghash_y, data, t->blocks);
    else
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
    bs_cpu_limit(BS_CPU_TOP);
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
 * RIJNDAEL-256-GCM re-keyed in the timed part: set_key_iv (the key schedule beside H, E_K(J0)
 * and the first keystream block where the core fuses them), then 48 blocks (a 32-block stitched
 * batch and a 16-block one at avx512) or 96 (the long loop) and the tag; zero or random key and
 * data. The rekey-iv12 targets take a 12-byte IV, whose J0 goes by GHASH (at avx512 the in-register
 * start of gcm256_vaes.c).
 */
static void prep_gcm_rekey(target *t, int cls)
{
    class_bytes(key, 32, cls);
    class_bytes(data, 32 * t->blocks, cls);
}

static void gcm_rekey(target *t, size_t iv_len)
{
    static const uint8_t iv[28] = {1};
    uint8_t tag[32];
    bs_cpu_limit(t->level);
    bs_gcm256_set_key_iv(&gcm, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32, iv, iv_len);
    bs_cpu_limit(BS_CPU_TOP);
    bs_gcm256_encrypt(&gcm, out, data, 32 * t->blocks);
    bs_gcm256_tag(&gcm, tag, sizeof tag);
    sink ^= tag[0];
}

static void run_gcm_rekey(target *t)
{
    gcm_rekey(t, 28);
}

static void run_gcm_rekey_iv12(target *t)
{
    gcm_rekey(t, 12);
}

/* AES-GCM (GCM-128) over an AES core and a GHASH-128: zero or random key (set untimed) and
 * data, as RIJNDAEL-256-GCM above. */
static void prep_gcm128(target *t, int cls)
{
    class_bytes(key, t->cipher->key_len, cls);
    class_bytes(data, 16 * t->blocks, cls);
    if (bs_gcm128_set_key(&gcm128, t->cipher, key, t->cipher->key_len) != BS_OK)
        abort();
    bs_gcm128_set_ghash(&gcm128, t->ghash128);
    if (t->evict)
        evict(gcm128.hkey, sizeof gcm128.hkey);
}

static void run_gcm128(target *t)
{
    static const uint8_t iv[12] = {1};
    uint8_t tag[16];
    bs_gcm128_set_iv(&gcm128, iv, sizeof iv);
    if (t->prepare == prep_gcm128)
        bs_gcm128_encrypt(&gcm128, out, data, 16 * t->blocks);
    else
        bs_gcm128_decrypt(&gcm128, out, data, 16 * t->blocks);
    bs_gcm128_tag(&gcm128, tag, sizeof tag);
    sink ^= tag[0];
}

/*
 * The same, decrypting, with a fixed key (set in main) and all-zero or random ciphertext: the
 * table GHASH's control inside GCM. Encrypting, GHASH runs over the ciphertext, which is the
 * keystream for a zero plaintext and so spreads the table's indices over all its lines in both
 * classes; decrypting zero blocks keeps the accumulator zero and the lookups on the first line.
 */
static void prep_gcm128_dec(target *t, int cls)
{
    class_bytes(data, 16 * t->blocks, cls);
    if (t->evict)
        evict(gcm128.hkey, sizeof gcm128.hkey);
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

/*
 * Runs n measurements; returns the largest |t| over the crops, the uncropped t in *t_raw, and
 * in *delta the fixed class's mean minus the random class's, in ticks, in the test with the
 * largest |t| (how large the difference is, beside how sure).
 */
static double measure(target *t, long n, double *t_raw, double *delta)
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
    *delta = 0;
    for (int k = 0; k <= NCROP; k++) {
        double v = fabs(welch_t(&w[k]));
        if (v > best) {
            best = v;
            *delta = w[k].mean[0] - w[k].mean[1];
        }
    }
    *t_raw = welch_t(&w[NCROP]);
    return best;
}

/* filter: comma-separated substrings of "NAME SECRET"; any one matches; a trailing '$' anchors
 * one at the end ("GHASH-128/ctmul32 data$" leaves out "... data+evict"). */
static int matches(const char *name, const char *what, const char *filter)
{
    char full[160], one[64];
    snprintf(full, sizeof full, "%.63s %.31s", name, what);
    for (const char *p = filter; *p;) {
        size_t len = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one - 1 ? len : sizeof one - 1), p);
        size_t ol = strlen(one);
        int anchored = ol > 0 && one[ol - 1] == '$';
        if (anchored)
            one[--ol] = 0;
        const char *hit = ol > 0 ? strstr(full, one) : NULL;
        if (hit != NULL && anchored)
            hit = strlen(full) >= ol && strcmp(full + strlen(full) - ol, one) == 0 ? hit : NULL;
        if (hit != NULL)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

static size_t blocks_for(const bs_block_cipher *c)
{
    /* A full pass of the implementation's widest path: the code that runs on bulk data. */
    if (c->level == BS_CPU_AVX512 && c->block_len <= 24)
        return 512; /* up to SPEEDY's 24-byte blocks */
    if (c->level == BS_CPU_AVX2 && c->block_len <= 24)
        return 256; /* the ymm cores' pass (their lanes field says 64: the CTR read-ahead) */
    return c->lanes;
}

/* What the command line asks for (--fixed sets fixed_kind). */
typedef struct dudect_opts {
    long n;
    const char *filter;
    int list;
} dudect_opts;

static void parse_args(int argc, char **argv, dudect_opts *o)
{
    *o = (dudect_opts){.n = 10000000};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--measurements") == 0 && i + 1 < argc)
            o->n = atol(argv[++i]);
        else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
            o->filter = argv[++i];
        else if (strcmp(argv[i], "--list") == 0)
            o->list = 1;
        else if (strcmp(argv[i], "--fixed") == 0 && i + 1 < argc) {
            const char *k = argv[++i];
            fixed_kind = strcmp(k, "zero") == 0     ? FIXED_ZERO
                         : strcmp(k, "repeat") == 0 ? FIXED_REPEAT
                         : strcmp(k, "random") == 0 ? FIXED_RANDOM
                                                    : -1;
            if (fixed_kind < 0) {
                fprintf(stderr, "dudect: --fixed takes zero, repeat or random\n");
                exit(2);
            }
        } else {
            fprintf(stderr,
                    "usage: dudect [--measurements N] [--filter TEXT] [--fixed zero|repeat|random] "
                    "[--list]\n");
            exit(2);
        }
    }
}

#define MAX_TARGETS 224

/* The controls (the table S-box; at avx512 the zmm-logic reference). */
static int add_controls(target *targets, int nt)
{
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
    return nt;
}

/* Two per cipher implementation: the registry, then the masked AES cores (not in it:
 * bs_block_cipher_by_name never returns them). */
static int add_cipher_targets(target *targets, int nt)
{
    const bs_block_cipher *masked[] = {&bs_aes128_masked32, &bs_aes256_masked32};
    size_t nreg = 0;
    while (bs_block_ciphers[nreg] != NULL)
        nreg++;
    /* Two targets per cipher, and the GHASH/GCM ones after them: the table must hold them all. */
    if (nt + 2 * (nreg + 2) + 60 > MAX_TARGETS) {
        fprintf(stderr, "dudect: %zu ciphers do not fit the target table: make it larger\n",
                nreg + 2);
        exit(2);
    }
    for (size_t i = 0; i < nreg + 2; i++) {
        const bs_block_cipher *c = i < nreg ? bs_block_ciphers[i] : masked[i - nreg];
        if (!bs_impl_usable(c))
            continue;
        target *t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "%s/%s", c->name, c->impl);
        t->what = "data", t->prepare = prep_block_data, t->run = run_block;
        t->cipher = c, t->blocks = blocks_for(c);
        t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "%s/%s", c->name, c->impl);
        t->what = "key", t->prepare = prep_block_key, t->run = run_block_key;
        t->cipher = c, t->blocks = blocks_for(c);
    }
    return nt;
}

static const bs_ghash128_impl *const gh128[] = {&bs_ghash128_ctmul32, &bs_ghash128_ctshift32,
                                                &bs_ghash128_table4_not_ct};
#define NGH128 (sizeof gh128 / sizeof gh128[0])

/* Each GHASH: secret data with the key form in L1, the same evicted before each call, and a
 * secret H (evicted). */
static int add_ghash_targets(target *targets, int nt)
{
    const bs_ghash256_impl *gh[] = {&bs_ghash256_ctmul64, &bs_ghash256_ctmul32,
                                    &bs_ghash256_ctshift32, bs_ghash256_pclmul(),
                                    bs_ghash256_vpclmul()};
    size_t ngh = sizeof gh / sizeof gh[0];
    for (size_t g = 0; g < ngh + NGH128; g++) {
        if (g < ngh && gh[g] == NULL)
            continue;
        for (int v = 0; v < 3; v++) {
            target *t = &targets[nt++];
            if (g < ngh) {
                t->ghash = gh[g];
                snprintf(t->name, sizeof t->name, "GHASH-256/%s", gh[g]->name);
            } else {
                t->ghash128 = gh128[g - ngh];
                snprintf(t->name, sizeof t->name, "GHASH-128/%s", t->ghash128->name);
            }
            t->what = v == 0 ? "data" : v == 1 ? "data+evict" : "key+evict";
            t->prepare = v == 2 ? prep_ghash_key : prep_ghash, t->run = run_ghash;
            /* 8 blocks: the VPCLMULQDQ path's aggregated reduction (8 per reduction) once. */
            t->evict = v > 0, t->blocks = 8;
            if (t->ghash128 != NULL && !t->ghash128->constant_time) {
                /* Evicted, the table GHASH is the second control; in L1 it is reported. */
                t->expect_leak = t->evict;
                t->not_ct = !t->evict;
            }
        }
    }
    return nt;
}

/* RIJNDAEL-256-GCM at each CPU level; AES-GCM over each AES core with the constant-time
 * GHASH-128s, and the table one (evicted: a control) over one core. */
static int add_gcm_targets(target *targets, int nt)
{
    for (int lvl = bs_cpu_level(); lvl >= BS_CPU_PORTABLE; lvl--) {
        target *t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "RIJNDAEL-256-GCM/level-%s", bs_cpu_level_name(lvl));
        t->what = "key+data", t->prepare = prep_gcm, t->run = run_gcm;
        t->level = lvl, t->blocks = 16;
    }
    /* 96 blocks: the stitched loops with GHASH inside (at avx512, two 32-block batches that
     * absorb the one before, their reductions on the integer units). */
    for (int lvl = bs_cpu_level(); lvl >= BS_CPU_AESNI; lvl--) {
        target *t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "RIJNDAEL-256-GCM/96-blocks-level-%s",
                 bs_cpu_level_name(lvl));
        t->what = "key+data", t->prepare = prep_gcm, t->run = run_gcm;
        t->level = lvl, t->blocks = 96;
    }
    for (int lvl = bs_cpu_level(); lvl >= BS_CPU_AESNI; lvl -= BS_CPU_AVX512 - BS_CPU_AESNI) {
        target *t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "RIJNDAEL-256-GCM/rekey-level-%s",
                 bs_cpu_level_name(lvl));
        t->what = "key+data", t->prepare = prep_gcm_rekey, t->run = run_gcm_rekey;
        t->level = lvl, t->blocks = 48;
        t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "RIJNDAEL-256-GCM/rekey-iv12-level-%s",
                 bs_cpu_level_name(lvl));
        t->what = "key+data", t->prepare = prep_gcm_rekey, t->run = run_gcm_rekey_iv12;
        t->level = lvl, t->blocks = 48;
    }
    /* 96 blocks re-keyed: at avx512 the long loop, which makes all 16 key powers and the middle
     * form (beside its first batch's rounds) where the 48-block targets make 8. */
    if (bs_cpu_level() >= BS_CPU_AVX512) {
        target *t = &targets[nt++];
        snprintf(t->name, sizeof t->name, "RIJNDAEL-256-GCM/rekey-96-blocks-level-%s",
                 bs_cpu_level_name(BS_CPU_AVX512));
        t->what = "key+data", t->prepare = prep_gcm_rekey, t->run = run_gcm_rekey;
        t->level = BS_CPU_AVX512, t->blocks = 96;
    }
    const bs_block_cipher *aes[] = {&bs_aes128_fix32,     &bs_aes256_fix32,    &bs_aes128_semifix32,
                                    &bs_aes256_semifix32, &bs_aes128_masked32, &bs_aes256_masked32};
    for (size_t a = 0; a < sizeof aes / sizeof aes[0]; a++)
        for (size_t g = 0; g < NGH128; g++) {
            if (!gh128[g]->constant_time && a != 0)
                continue;
            target *t = &targets[nt++];
            snprintf(t->name, sizeof t->name, "%s-GCM/%s+%s", aes[a]->name, aes[a]->impl,
                     gh128[g]->name);
            /* 4 blocks: ctmul32's four-block reduction once; two passes of the 2-block cores. */
            t->cipher = aes[a], t->ghash128 = gh128[g], t->blocks = 4, t->run = run_gcm128;
            if (gh128[g]->constant_time) {
                t->what = "key+data", t->prepare = prep_gcm128;
            } else {
                t->what = "dec data+evict", t->prepare = prep_gcm128_dec;
                t->evict = t->expect_leak = 1;
            }
        }
    return nt;
}

/* The fixed state a target starts from (key, data, GHASH key), before its measurements. */
static void setup_target(const target *t)
{
    if (t->cipher != NULL && t->prepare != prep_control && t->prepare != prep_gcm128 &&
        t->prepare != prep_gcm128_dec) {
        memset(key, 0, sizeof key);
        t->cipher->set_key(&ks, key);
    }
    memset(data, 0, sizeof data);
    if (t->prepare == prep_ghash) {
        uint8_t h[32];
        fill_random(h, sizeof h);
        if (t->ghash128 != NULL)
            t->ghash128->init(hkey, h);
        else
            t->ghash->init(hkey, h);
    }
    if (t->prepare == prep_ghash_key)
        memset(data, 0x11, ghash_block(t));
    if (t->prepare == prep_gcm128_dec) {
        memset(key, 0, sizeof key);
        if (bs_gcm128_set_key(&gcm128, t->cipher, key, t->cipher->key_len) != BS_OK)
            abort();
        bs_gcm128_set_ghash(&gcm128, t->ghash128);
    }
}

static void report_header(long n)
{
    printf("dudect: %ld measurements per target (+%d warm-up), CPU level %s, fixed class %s; "
           "|t| > 4.5: leak\n",
           n, WARMUP, bs_cpu_level_name(bs_cpu_level()),
           fixed_kind == FIXED_ZERO     ? "zero"
           : fixed_kind == FIXED_REPEAT ? "repeat"
                                        : "random");
    printf("%-36s %-14s %6s %10s %10s %9s %6s  %s\n", "target", "secret", "blocks", "max |t|",
           "t (raw)", "delta", "s", "verdict");
}

/* One target's line; returns 1 when its verdict fails the run (a leak, or a control missed). */
static int report_target(const target *t, double m, double raw, double delta, double seconds)
{
    int leak = m > 4.5;
    const char *verdict = t->reference     ? (leak ? "hardware: data-dependent" : "hardware: flat")
                          : t->not_ct      ? (leak ? "not-ct code: seen" : "not-ct code: not seen")
                          : t->expect_leak ? (leak ? "control caught" : "CONTROL NOT CAUGHT")
                                           : (leak ? "LEAK?" : "no leak detected");
    printf("%-36s %-14s %6zu %10.2f %10.2f %9.1f %6.1f  %s\n", t->name, t->what, t->blocks, m, raw,
           delta, seconds, verdict);
    fflush(stdout);
    if (t->reference || t->not_ct)
        return 0;
    return t->expect_leak ? !leak : leak;
}

int main(int argc, char **argv)
{
    dudect_opts o;
    parse_args(argc, argv, &o);
    for (size_t i = 0; i < sizeof leaky_table; i++)
        leaky_table[i] = (uint8_t)(i * 167 + 13);
    make_fixed();
    bs_aes_masked_set_rng(mask_words, NULL);

    /* The controls, two per cipher implementation, the GHASHes and the GCM levels. */
    static target targets[MAX_TARGETS];
    int nt = add_controls(targets, 0);
    nt = add_cipher_targets(targets, nt);
    nt = add_ghash_targets(targets, nt);
    nt = add_gcm_targets(targets, nt);

    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu(), &set);
    sched_setaffinity(0, sizeof set, &set);
    report_header(o.n);
    int bad = 0;
    for (int i = 0; i < nt; i++) {
        target *t = &targets[i];
        if (o.filter != NULL && !matches(t->name, t->what, o.filter) && i != 0)
            continue;
        if (o.list) {
            printf("%s %s\n", t->name, t->what);
            continue;
        }
        setup_target(t);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        double raw, delta, m = measure(t, o.n, &raw, &delta);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        bad |= report_target(t, m, raw, delta,
                             (double)(t1.tv_sec - t0.tv_sec) +
                                 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    }
    return bad;
}

#endif
