/*
 * Exact first-order checks of the masked AES core's recorded values (the instrumented build of
 * core/aes/aes_masked32.c, which records every word it computes from the data or the key),
 * where the t-test (test_aes_masked_tvla.c) only samples:
 *
 * 1. The pattern S-box, bit by bit, exhaustively: each bit position of a slice word carries
 *    one (input byte x, m0 bit, m1 bit) combination, 1024 in 32 calls. A recorded value is
 *    independent of x when, for every x, the number of the four mask combinations that set its
 *    bit is the same. The S-box works bit-wise, and different bits use independent mask bits,
 *    so a word whose every bit passes is independent of the state too.
 * 2. Every other recorded value of a whole encryption, AES-128 and AES-256, at word level. For
 *    fixed data and key, a value outside the AND gadgets is affine in the call's 320 random
 *    bits (m0, m1, r): v = f(data) ^ L(random). It is independent of the data when every
 *    f(data') ^ f(data) lies in the image of L (over GF(2)); L is measured from the 320 unit
 *    vectors, the data vary over random keys and plaintexts. The values found not affine must
 *    be exactly the gadgets' products of a masked operand with a mask or another masked
 *    operand (A & B, mb & ~A, ma & B: 3 per AND, 34 ANDs per round); each is also a value
 *    of check 1.
 * 3. Controls: with m1 = m0 the S-box check must fail; a data difference planted outside
 *    the mask image of one recorded value must fail the linear check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aes/aes_masked.h"

#define CAP (1u << 16)
static uint32_t trace_buf[CAP];

typedef struct {
    uint64_t s;
} prng;

static uint64_t next64(prng *p)
{
    uint64_t z = (p->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_prng(void *ctx, uint32_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint32_t)next64(ctx);
}

/* vm: the value-model variant (bs_aes128_maskedv_2blocks: one word a call), checked bit by
 * bit; else the default one (ten words), checked at word level. */
static int vm;
#define NWORDS ((size_t)(vm ? BS_AES_MASKEDV_RAND_ENC : BS_AES_MASKED_RAND_ENC))

/* The call's random words, chosen by the test. */
static uint32_t fixed_words[BS_AES_MASKED_RAND_ENC];

static void rng_fixed(void *ctx, uint32_t *out, size_t n)
{
    (void)ctx;
    if (n != NWORDS) {
        fprintf(stderr, "unexpected draw of %zu words\n", n);
        exit(1);
    }
    memcpy(out, fixed_words, n * sizeof *out);
}

static void trace_start(void)
{
    bs_aes_masked_trace = trace_buf;
    bs_aes_masked_trace_cap = CAP;
    bs_aes_masked_trace_len = 0;
}

static size_t trace_len(void)
{
    if (bs_aes_masked_trace_len > CAP) {
        fprintf(stderr, "trace of %zu words exceeds %u\n", bs_aes_masked_trace_len, CAP);
        exit(1);
    }
    return bs_aes_masked_trace_len;
}

/* ---- 1. the S-box, bit by bit ------------------------------------------------------------ */

static int sbox_check(int same_masks)
{
    static uint16_t ones[4096][256]; /* position, x: how many of the 4 mask cases set the bit */
    size_t len = 0;
    memset(ones, 0, sizeof ones);
    for (unsigned w = 0; w < 32; w++) {
        uint32_t q[8] = {0}, mw[4] = {0, 0, 0, 0};
        for (unsigned j = 0; j < 32; j++) {
            const unsigned combo = 32 * w + j, x = combo >> 2;
            const uint32_t b0 = combo & 1, b1 = same_masks ? b0 : (combo >> 1) & 1;
            mw[0] |= b0 << j;
            mw[1] |= b1 << j;
            for (unsigned b = 0; b < 8; b++) {
                const unsigned p = bs_aes_masked_trace_pattern_in[b];
                const uint32_t m = ((p & 1) ? b0 : 0) ^ ((p & 2) ? b1 : 0);
                q[b] |= (((x >> b) & 1u) ^ m) << j;
            }
        }
        mw[2] = mw[0] ^ mw[1];
        mw[3] = mw[0] | mw[1];
        trace_start();
        bs_aes_masked_trace_sbox(q, mw);
        len = trace_len();
        if (len > 4096) {
            fprintf(stderr, "S-box trace too long\n");
            exit(1);
        }
        for (size_t p = 0; p < len; p++)
            for (unsigned j = 0; j < 32; j++)
                ones[p][(32 * w + j) >> 2] += (trace_buf[p] >> j) & 1;
    }
    size_t bad = 0;
    for (size_t p = 0; p < len; p++)
        for (unsigned x = 1; x < 256; x++)
            if (ones[p][x] != ones[p][0]) {
                bad++;
                break;
            }
    printf("S-box%s: %zu recorded values, %zu depend on the input (bit by bit, all 1024 "
           "cases)\n",
           same_masks ? " with m1 = m0" : "", len, bad);
    return bad != 0;
}

/* ---- 2. the linear values of a whole encryption, word level ------------------------------- */

#define NRAND (32 * NWORDS)

typedef struct {
    uint32_t basis[32]; /* reduced: basis[k] has its top bit at k, or 0 */
} span;

static void span_add(span *s, uint32_t v)
{
    for (int k = 31; k >= 0 && v; k--) {
        if (!((v >> k) & 1))
            continue;
        if (!s->basis[k]) {
            s->basis[k] = v;
            return;
        }
        v ^= s->basis[k];
    }
}

static int span_has(const span *s, uint32_t v)
{
    for (int k = 31; k >= 0 && v; k--)
        if ((v >> k) & 1) {
            if (!s->basis[k])
                return 0;
            v ^= s->basis[k];
        }
    return v == 0;
}

static uint8_t plain[32];
static int aes256;
static bs_aes128_masked_key k128;
static bs_aes256_masked_key k256;

static void set_key(const uint8_t key[32], prng *p)
{
    if (aes256)
        bs_aes256_masked_set_key(&k256, key, rng_prng, p);
    else
        bs_aes128_masked_set_key(&k128, key, rng_prng, p);
}

/* One encryption with the words w; its trace into dst (len words). */
static size_t run(const uint32_t w[BS_AES_MASKED_RAND_ENC], uint32_t *dst)
{
    uint8_t out[32];
    memcpy(fixed_words, w, sizeof fixed_words);
    trace_start();
    if (aes256 && vm)
        bs_aes256_maskedv_2blocks(&k256, out, plain, rng_fixed, NULL);
    else if (aes256)
        bs_aes256_masked_2blocks(&k256, out, plain, rng_fixed, NULL);
    else if (vm)
        bs_aes128_maskedv_2blocks(&k128, out, plain, rng_fixed, NULL);
    else
        bs_aes128_masked_2blocks(&k128, out, plain, rng_fixed, NULL);
    size_t len = trace_len();
    memcpy(dst, trace_buf, len * sizeof *dst);
    return len;
}

static uint32_t base[CAP], tmp[CAP], tmp2[CAP], tmp3[CAP];
static span spans[CAP];
static uint8_t nonaffine[CAP];
static uint32_t covered[CAP]; /* the bits whose mask row is not zero (the value model) */

static void unit(uint32_t w[BS_AES_MASKED_RAND_ENC], unsigned bit)
{
    memset(w, 0, BS_AES_MASKED_RAND_ENC * sizeof *w);
    w[bit / 32] = 1u << (bit % 32);
}

static int linear_check(int plant)
{
    prng p = {0x243f6a8885a308d3ull + (uint64_t)aes256};
    uint8_t key[32];
    uint32_t w[BS_AES_MASKED_RAND_ENC], zero[BS_AES_MASKED_RAND_ENC] = {0};
    const size_t nw = NWORDS;
    for (unsigned i = 0; i < 32; i++) {
        key[i] = (uint8_t)next64(&p);
        plain[i] = (uint8_t)next64(&p);
    }
    set_key(key, &p);
    const size_t len = run(zero, base);
    memset(spans, 0, len * sizeof *spans);
    memset(nonaffine, 0, len);
    memset(covered, 0, len * sizeof *covered);
    /* L from the unit vectors */
    for (unsigned bit = 0; bit < NRAND; bit++) {
        unit(w, bit);
        if (run(w, tmp) != len) {
            fprintf(stderr, "trace length depends on the randomness\n");
            exit(1);
        }
        for (size_t i = 0; i < len; i++) {
            span_add(&spans[i], tmp[i] ^ base[i]);
            covered[i] |= tmp[i] ^ base[i];
        }
    }
    /* affine: v(a ^ b) ^ v(a) ^ v(b) ^ v(0) = 0 on random pairs */
    for (unsigned n = 0; n < 24; n++) {
        uint32_t a[BS_AES_MASKED_RAND_ENC], b[BS_AES_MASKED_RAND_ENC], ab[BS_AES_MASKED_RAND_ENC];
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        rng_prng(&p, a, nw);
        rng_prng(&p, b, nw);
        for (unsigned i = 0; i < BS_AES_MASKED_RAND_ENC; i++)
            ab[i] = a[i] ^ b[i];
        run(a, tmp);
        run(b, tmp2);
        run(ab, tmp3);
        for (size_t i = 0; i < len; i++)
            if (tmp[i] ^ tmp2[i] ^ tmp3[i] ^ base[i])
                nonaffine[i] = 1;
    }
    size_t nna = 0;
    for (size_t i = 0; i < len; i++)
        nna += nonaffine[i];
    const size_t nr = aes256 ? 14 : 10, expect = nr * 34 * 3;
    int bad = nna != expect;
    /* the data: other keys and plaintexts, masks zero */
    size_t dependent = 0, lowrank = 0;
    static uint8_t dep[CAP];
    memset(dep, 0, len);
    for (unsigned n = 0; n < 48; n++) {
        for (unsigned i = 0; i < 32; i++) {
            key[i] = (uint8_t)next64(&p);
            plain[i] = (uint8_t)next64(&p);
        }
        set_key(key, &p);
        if (run(zero, tmp) != len) {
            fprintf(stderr, "trace length depends on the data\n");
            exit(1);
        }
        if (plant) {
            /* the control: the first value with a rank < 32 mask map gets a data difference
             * outside that map's image, as an unmasked XOR of two slices would */
            for (size_t i = 0; i < len; i++) {
                unsigned rank = 0;
                for (unsigned k = 0; k < 32; k++)
                    rank += spans[i].basis[k] != 0;
                if (nonaffine[i] || (vm ? covered[i] == 0xffffffffu : rank == 32))
                    continue;
                for (unsigned k = 0; k < 32; k++)
                    if (vm ? !((covered[i] >> k) & 1) : !span_has(&spans[i], 1u << k)) {
                        tmp[i] = base[i] ^ (1u << k);
                        break;
                    }
                break;
            }
        }
        for (size_t i = 0; i < len; i++)
            if (!nonaffine[i] && (vm ? ((tmp[i] ^ base[i]) & ~covered[i]) != 0
                                     : !span_has(&spans[i], tmp[i] ^ base[i])))
                dep[i] = 1;
    }
    for (size_t i = 0; i < len; i++) {
        dependent += dep[i];
        if (dep[i] && getenv("EXACT_DEBUG"))
            fprintf(stderr, "dep %zu of %zu\n", i, len);
        unsigned rank = 0;
        for (unsigned k = 0; k < 32; k++)
            rank += spans[i].basis[k] != 0;
        lowrank += !nonaffine[i] && rank < 32;
    }
    if (vm) {
        printf("AES-%d, value-model variant (one word a call)%s: %zu recorded values, %zu not "
               "affine in the randomness (the AND gadgets: %zu expected), %zu of the rest with "
               "a word not uniform, %zu with a bit that depends on the data\n",
               aes256 ? 256 : 128, plant ? " (planted control)" : "", len, nna, expect, lowrank,
               dependent);
        return bad || dependent != 0;
    }
    printf("AES-%d%s: %zu recorded values, %zu not affine in the randomness (the AND gadgets: "
           "%zu expected), %zu of the rest masked by a map of rank < 32, %zu depend on the "
           "data\n",
           aes256 ? 256 : 128, plant ? " (planted control)" : "", len, nna, expect, lowrank,
           dependent);
    return bad || dependent != 0;
}

int main(void)
{
    int bad = 0;
    if (sbox_check(0)) {
        printf("FAIL: an S-box value depends on its input\n");
        bad = 1;
    }
    if (!sbox_check(1)) {
        printf("FAIL: the m1 = m0 control was not detected\n");
        bad = 1;
    }
    for (aes256 = 0; aes256 <= 1; aes256++)
        if (linear_check(0)) {
            printf("FAIL: a linear-layer value depends on the data\n");
            bad = 1;
        }
    aes256 = 0;
    if (!linear_check(1)) {
        printf("FAIL: the planted control was not detected\n");
        bad = 1;
    }
    /* the value-model variant: m1 = ror(m0, odd), so every bit position still gets an
     * independent pair (m0, m1), the S-box check above holding for it bit by bit; the rest,
     * bit by bit */
    vm = 1;
    for (aes256 = 0; aes256 <= 1; aes256++)
        if (linear_check(0)) {
            printf("FAIL: a value of the value-model variant has a bit that depends on the "
                   "data\n");
            bad = 1;
        }
    aes256 = 0;
    if (!linear_check(1)) {
        printf("FAIL: the planted control was not detected (value-model variant)\n");
        bad = 1;
    }
    vm = 0;
    printf(bad ? "FAIL\n" : "ok\n");
    return bad;
}
