/*
 * GIFT-64 and GIFT-128, 512 blocks per pass on zmm registers (x86-64 with AVX-512).
 *
 * Layout: that of gift.h with 512-bit words (bs_v512.h): element g, bit l of s[i] is bit i of
 * block 8 l + g (GIFT-128: s[0..63] the low 64 bits of the blocks, s[64..127] the high ones,
 * split with one VPERMT2Q per half before the transpose). The S-box statements
 * (BS_GIFT_SBOX_NN_STEPS, _ANDN_STEPS), the permutation-as-renaming (BS_GIFT64_PN,
 * BS_GIFT128_PN) and the round-key masks are gift.h's; the masks are bs64's uint64_t ones,
 * broadcast to the eight elements as they are used, so the key schedule is gift_bs64.c's and
 * short calls run there (the narrow path). In counter mode the high 64 bits of a GIFT-128
 * counter are the same in every block: their bitsliced words are all-zero or all-one masks,
 * made without a transpose, and the low 64 bits too (bs_v8_counter_words). The rounds go two at
 * a time over a quarter (GIFT-128: an eighth) of the state in registers (gift64_quarter2).
 * Logic, shifts and permutes only: constant time.
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "gift.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

/* The GIFT-128 round form must be the one gift_bs64.c's key schedule was made for. */
#if defined(__BMI__) || defined(__aarch64__)
#define GIFT128_ANDN 1
#else
#define GIFT128_ANDN 0
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))),                 \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif

#include "../bs_v512.h"

typedef bs_v8 v8;

/*
 * Two rounds per call, a part of the state at a time. The S-boxes 4q..4q+3 of a round send
 * their outputs to nibbles q + 4t (GIFT-64; q + 8t for GIFT-128), t = 0..3 (BS_GIFT64_PN), and
 * those nibbles take all their inputs from them: so a quarter (an eighth) of the state goes
 * through two rounds in registers, and the state, which no register file holds, is loaded and
 * stored once per two rounds instead of once per round. Each output word gets its round key and
 * constant where it is made (the key masks are indexed by destination nibble); all indices are
 * constants once q is.
 */
static inline __attribute__((always_inline)) void gift64_quarter2(v8 *restrict d,
                                                                  const v8 *restrict s,
                                                                  const uint64_t *m1,
                                                                  const uint64_t *m2, unsigned q)
{
    v8 t[16]; /* t[4 u + b]: bit b of nibble q + 4 u after the first round */
    for (unsigned jl = 0; jl < 4; jl++) {
        const unsigned n = 4 * q + jl;
        v8 x0 = s[4 * n], x1 = s[4 * n + 1], x2 = s[4 * n + 2], x3 = s[4 * n + 3];
        BS_GIFT_SBOX_NN_STEPS(x0, x1, x2, x3);
        t[4 * (BS_GIFT64_PN(n, 0) >> 2)] = x3 ^ m1[BS_GIFT64_PN(n, 0)];
        t[4 * (BS_GIFT64_PN(n, 1) >> 2) + 1] = x1 ^ m1[16 + BS_GIFT64_PN(n, 1)];
        t[4 * (BS_GIFT64_PN(n, 2) >> 2) + 2] = x2;
        t[4 * (BS_GIFT64_PN(n, 3) >> 2) + 3] = x0;
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 4 * u;
        if (n < 6)
            t[4 * u + 3] ^= m1[32 + n];
        if (n == 15)
            t[4 * u + 3] = ~t[4 * u + 3];
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 4 * u, p3 = BS_GIFT64_PN(n, 3);
        v8 x0 = t[4 * u], x1 = t[4 * u + 1], x2 = t[4 * u + 2], x3 = t[4 * u + 3];
        BS_GIFT_SBOX_NN_STEPS(x0, x1, x2, x3);
        d[4 * BS_GIFT64_PN(n, 0)] = x3 ^ m2[BS_GIFT64_PN(n, 0)];
        d[4 * BS_GIFT64_PN(n, 1) + 1] = x1 ^ m2[16 + BS_GIFT64_PN(n, 1)];
        d[4 * BS_GIFT64_PN(n, 2) + 2] = x2;
        d[4 * p3 + 3] = p3 < 6 ? x0 ^ m2[32 + p3] : p3 == 15 ? ~x0 : x0;
    }
}

/* Two rounds, s -> d (keys m, then m + BS_GIFT64_RK_WORDS). */
__attribute__((noinline)) static void gift64_round2(v8 *restrict d, const v8 *restrict s,
                                                    const uint64_t *m)
{
    const uint64_t *m2 = m + BS_GIFT64_RK_WORDS;
    gift64_quarter2(d, s, m, m2, 0);
    gift64_quarter2(d, s, m, m2, 1);
    gift64_quarter2(d, s, m, m2, 2);
    gift64_quarter2(d, s, m, m2, 3);
}

#if GIFT128_ANDN
#define GIFT128_SBOX BS_GIFT_SBOX_ANDN_STEPS
#define GIFT128_OUT3(x) (x)
#else
#define GIFT128_SBOX BS_GIFT_SBOX_NN_STEPS
#define GIFT128_OUT3(x) (~(x))
#endif

static inline __attribute__((always_inline)) void gift128_eighth2(v8 *restrict d,
                                                                  const v8 *restrict s,
                                                                  const uint64_t *m1,
                                                                  const uint64_t *m2, unsigned q)
{
    v8 t[16]; /* t[4 u + b]: bit b of nibble q + 8 u after the first round */
    for (unsigned jl = 0; jl < 4; jl++) {
        const unsigned n = 4 * q + jl;
        v8 x0 = s[4 * n], x1 = s[4 * n + 1], x2 = s[4 * n + 2], x3 = s[4 * n + 3];
        GIFT128_SBOX(x0, x1, x2, x3);
        t[4 * (BS_GIFT128_PN(n, 0) >> 3)] = GIFT128_OUT3(x3);
        t[4 * (BS_GIFT128_PN(n, 1) >> 3) + 1] = x1 ^ m1[BS_GIFT128_PN(n, 1)];
        t[4 * (BS_GIFT128_PN(n, 2) >> 3) + 2] = x2 ^ m1[32 + BS_GIFT128_PN(n, 2)];
        t[4 * (BS_GIFT128_PN(n, 3) >> 3) + 3] = x0;
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 8 * u;
        if (n < 6)
            t[4 * u + 3] ^= m1[64 + n];
        if (n == 31)
            t[4 * u + 3] = ~t[4 * u + 3];
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 8 * u, p3 = BS_GIFT128_PN(n, 3);
        v8 x0 = t[4 * u], x1 = t[4 * u + 1], x2 = t[4 * u + 2], x3 = t[4 * u + 3];
        GIFT128_SBOX(x0, x1, x2, x3);
        d[4 * BS_GIFT128_PN(n, 0)] = GIFT128_OUT3(x3);
        d[4 * BS_GIFT128_PN(n, 1) + 1] = x1 ^ m2[BS_GIFT128_PN(n, 1)];
        d[4 * BS_GIFT128_PN(n, 2) + 2] = x2 ^ m2[32 + BS_GIFT128_PN(n, 2)];
        d[4 * p3 + 3] = p3 < 6 ? x0 ^ m2[64 + p3] : p3 == 31 ? ~x0 : x0;
    }
}

__attribute__((noinline)) static void gift128_round2(v8 *restrict d, const v8 *restrict s,
                                                     const uint64_t *m)
{
    const uint64_t *m2 = m + BS_GIFT128_RK_WORDS;
    gift128_eighth2(d, s, m, m2, 0);
    gift128_eighth2(d, s, m, m2, 1);
    gift128_eighth2(d, s, m, m2, 2);
    gift128_eighth2(d, s, m, m2, 3);
    gift128_eighth2(d, s, m, m2, 4);
    gift128_eighth2(d, s, m, m2, 5);
    gift128_eighth2(d, s, m, m2, 6);
    gift128_eighth2(d, s, m, m2, 7);
}

#if GIFT128_ANDN
static void flip03(v8 *s)
{
    for (unsigned n = 0; n < 32; n++) {
        s[4 * n] = ~s[4 * n];
        s[4 * n + 3] = ~s[4 * n + 3];
    }
}
#endif

_Static_assert(BS_GIFT64_ROUNDS % 4 == 0 && BS_GIFT128_ROUNDS % 4 == 0, "two pairs per loop");

/* a packed; the rounds alternate a -> b -> a; returns the state holding the result. */
static v8 *gift64_rounds(v8 *a, v8 *b, const uint64_t *m)
{
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r += 4) {
        gift64_round2(b, a, m);
        gift64_round2(a, b, m + 2 * BS_GIFT64_RK_WORDS);
        m += 4 * BS_GIFT64_RK_WORDS;
    }
    return a;
}

static v8 *gift128_rounds(v8 *a, v8 *b, const uint64_t *m)
{
#if GIFT128_ANDN
    flip03(a);
#endif
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r += 4) {
        gift128_round2(b, a, m);
        gift128_round2(a, b, m + 2 * BS_GIFT128_RK_WORDS);
        m += 4 * BS_GIFT128_RK_WORDS;
    }
#if GIFT128_ANDN
    flip03(a);
#endif
    return a;
}

/* GIFT-64, one pass (bs_v8_pass_fn): st[0..63] and st[64..127] the two states. */
static void gift64_pass(const bs_key_schedule *ks, v8 *st, const uint8_t *src, const uint8_t *in,
                        uint8_t *out)
{
    v8 *a = st, *b = st + 64;
    if (src != NULL) {
        for (unsigned l = 0; l < 64; l++)
            a[l] = bs_v8_bswap64(bs_v8_load(src + 64 * l));
        bs_v8_transpose64(a);
    }
    v8 *r = gift64_rounds(a, b, ks->w);
    bs_v8_transpose64_bytes(r);
    bs_v8_out64(r, in, out);
}

/*
 * GIFT-128, one pass: st[0..127] and st[128..255] the two states (words 0..63: the low halves
 * of the blocks, 64..127 the high ones; from src: split with one VPERMT2Q per half).
 */
static void gift128_pass(const bs_key_schedule *ks, v8 *st, const uint8_t *src, const uint8_t *in,
                         uint8_t *out)
{
    const __m512i join_lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i join_hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    v8 *a = st, *b = st + 128;
    if (src != NULL) {
        const __m512i pick_lo = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
        const __m512i pick_hi = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
        for (unsigned l = 0; l < 64; l++) {
            __m512i p = _mm512_loadu_si512((const void *)(src + 128 * l));
            __m512i q = _mm512_loadu_si512((const void *)(src + 128 * l + 64));
            a[l] = bs_v8_bswap64((v8)_mm512_permutex2var_epi64(p, pick_lo, q));
            a[64 + l] = bs_v8_bswap64((v8)_mm512_permutex2var_epi64(p, pick_hi, q));
        }
        bs_v8_transpose64(a);
        bs_v8_transpose64(a + 64);
    }
    v8 *r = gift128_rounds(a, b, ks->w);
    bs_v8_transpose64_bytes(r);
    bs_v8_transpose64_bytes(r + 64);
    for (unsigned k = 0; k < 8; k++) {
        v8 lo[8], hi[8];
        bs_v8_transpose64_bits(lo, r, k);
        bs_v8_transpose64_bits(hi, r + 64, k);
        BS_V8_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            /* Blocks 8l..8l+3 and 8l+4..8l+7: (high, low) pairs of elements, big-endian. */
            const unsigned l = 8 * k + j;
            __m512i h = (__m512i)bs_v8_bswap64(hi[j]), w = (__m512i)bs_v8_bswap64(lo[j]);
            v8 c0 = (v8)_mm512_permutex2var_epi64(h, join_lo, w);
            v8 c1 = (v8)_mm512_permutex2var_epi64(h, join_hi, w);
            if (in != NULL) {
                c0 ^= bs_v8_load(in + 128 * l);
                c1 ^= bs_v8_load(in + 128 * l + 64);
            }
            bs_v8_store(out + 128 * l, c0);
            bs_v8_store(out + 128 * l + 64, c1);
        }
    }
}

static void g64_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in, size_t n)
{
    bs_v8_wide_encrypt(gift64_pass, &bs_gift64_bs64, ks, out, in, n);
}

static void g128_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in, size_t n)
{
    bs_v8_wide_encrypt(gift128_pass, &bs_gift128_bs64, ks, out, in, n);
}

static void g64_ctr32(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                      uint8_t *out, size_t n)
{
    bs_v8_wide_ctr32(gift64_pass, &bs_gift64_bs64, ks, ctr, in, out, n);
}

static void g128_ctr32(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                       uint8_t *out, size_t n)
{
    bs_v8_wide_ctr32(gift128_pass, &bs_gift128_bs64, ks, ctr, in, out, n);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* The key schedule is bs64's (it is what the narrow path runs on). */
static void g64_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_gift64_bs64.set_key(ks, key);
}

static void g128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_gift128_bs64.set_key(ks, key);
}

/* The schedules are the bs64 cores', so are their compact keys. */
static int g64_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_gift64_bs64.export_round_keys(ks, out, nwords);
}

static int g128_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_gift128_bs64.export_round_keys(ks, out, nwords);
}

const bs_block_cipher bs_gift64_avx512 = {
    "GIFT-64", "avx512", 16, 8, 64, g64_set_key, g64_encrypt, g64_export,
};
const bs_block_cipher bs_gift128_avx512 = {
    "GIFT-128", "avx512", 16, 16, 64, g128_set_key, g128_encrypt, g128_export,
};
const bs_ctr32_fn bs_gift64_avx512_ctr32 = g64_ctr32;
const bs_ctr32_fn bs_gift128_avx512_ctr32 = g128_ctr32;

#endif
