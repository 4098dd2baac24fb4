/*
 * ghash256_pclmul.h: the GHASH-256 arithmetic on PCLMULQDQ (xmm) that ghash256_pclmul.c and the
 * stitched AES-NI loop of gcm256_aesni.c share: the key form, the unreduced products and the one
 * reduction per batch (the layout and the algebra are described in ghash256_pclmul.c). Include
 * only where BS_GHASH256_HAVE_PCLMUL is defined; call from functions whose target has
 * "pclmul,sse4.1,ssse3". Carry-less multiplies, shuffles and shifts take constant time and
 * nothing here branches on or indexes by data.
 */
#ifndef BS_GHASH256_PCLMUL_H
#define BS_GHASH256_PCLMUL_H

#include <immintrin.h>
#include <stdint.h>

#include "gcm256.h"
#include "ghash256_rev.h"

#define BS_PCLMUL_TARGET __attribute__((target("pclmul,sse4.1,ssse3")))
/* Words of one key power in the key form, and the powers made (blocks per reduction). */
#define BS_PCLMUL_POW_WORDS 10
#define BS_PCLMUL_POWERS 8

_Static_assert(BS_PCLMUL_POWERS *BS_PCLMUL_POW_WORDS <= BS_GHASH256_HKEY_WORDS,
               "key form too large");

/* The nine unreduced sums: low, high and middle 64 x 64 products of P_ll, P_hh and the cross. */
typedef struct {
    __m128i ll0, ll1, llm, hh0, hh1, hhm, c0, c1, cm;
} bs_pclmul_acc;

BS_PCLMUL_TARGET static inline __attribute__((always_inline)) __m128i bs_pclmul_rev(void)
{
    return _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/* A register's low word ^ high word, in its low word. */
BS_PCLMUL_TARGET static inline __attribute__((always_inline)) __m128i bs_pclmul_halves(__m128i x)
{
    return _mm_xor_si128(x, _mm_shuffle_epi32(x, 0x4e));
}

/* t += (a23, a01) * G (g: the power's five registers). */
BS_PCLMUL_TARGET static inline __attribute__((always_inline)) void
bs_pclmul_mul_acc(bs_pclmul_acc *t, __m128i a23, __m128i a01, const uint64_t *g)
{
    const __m128i g23 = _mm_loadu_si128((const __m128i *)g);
    const __m128i g01 = _mm_loadu_si128((const __m128i *)(g + 2));
    const __m128i gc = _mm_loadu_si128((const __m128i *)(g + 4));
    const __m128i km = _mm_loadu_si128((const __m128i *)(g + 6));
    const __m128i kc = _mm_loadu_si128((const __m128i *)(g + 8));
    const __m128i ac = _mm_xor_si128(a23, a01);
    t->ll0 = _mm_xor_si128(t->ll0, _mm_clmulepi64_si128(a01, g01, 0x00));
    t->ll1 = _mm_xor_si128(t->ll1, _mm_clmulepi64_si128(a01, g01, 0x11));
    t->llm = _mm_xor_si128(t->llm, _mm_clmulepi64_si128(bs_pclmul_halves(a01), km, 0x00));
    t->hh0 = _mm_xor_si128(t->hh0, _mm_clmulepi64_si128(a23, g23, 0x00));
    t->hh1 = _mm_xor_si128(t->hh1, _mm_clmulepi64_si128(a23, g23, 0x11));
    t->hhm = _mm_xor_si128(t->hhm, _mm_clmulepi64_si128(bs_pclmul_halves(a23), km, 0x10));
    t->c0 = _mm_xor_si128(t->c0, _mm_clmulepi64_si128(ac, gc, 0x00));
    t->c1 = _mm_xor_si128(t->c1, _mm_clmulepi64_si128(ac, gc, 0x11));
    t->cm = _mm_xor_si128(t->cm, _mm_clmulepi64_si128(bs_pclmul_halves(ac), kc, 0x00));
}

/* A 128 x 128 product from its Karatsuba sums: low and high 128 bits. */
BS_PCLMUL_TARGET static inline __attribute__((always_inline)) void
bs_pclmul_join128(__m128i lo, __m128i hi, __m128i m, __m128i *low, __m128i *high)
{
    m = _mm_xor_si128(m, _mm_xor_si128(lo, hi));
    *low = _mm_xor_si128(lo, _mm_slli_si128(m, 8));
    *high = _mm_xor_si128(hi, _mm_srli_si128(m, 8));
}

/* The 256-bit shift right by s of (l01, l23) (words low first), word by word. */
#define BS_PCLMUL_SHR256(l, n, s)                                                                  \
    _mm_xor_si128(_mm_srli_epi64((l), (s)), _mm_slli_epi64((n), 64 - (s)))

/* The sums in t, combined and reduced: *y01, *y23 = words (y0, y1), (y2, y3). */
BS_PCLMUL_TARGET static inline __attribute__((always_inline)) void
bs_pclmul_reduce(const bs_pclmul_acc *t, __m128i *y01, __m128i *y23)
{
    __m128i ll_lo, ll_hi, hh_lo, hh_hi, c_lo, c_hi;
    bs_pclmul_join128(t->ll0, t->ll1, t->llm, &ll_lo, &ll_hi);
    bs_pclmul_join128(t->hh0, t->hh1, t->hhm, &hh_lo, &hh_hi);
    bs_pclmul_join128(t->c0, t->c1, t->cm, &c_lo, &c_hi);
    c_lo = _mm_xor_si128(c_lo, _mm_xor_si128(ll_lo, hh_lo));
    c_hi = _mm_xor_si128(c_hi, _mm_xor_si128(ll_hi, hh_hi));
    /* L = words 0..3 (x^256..x^511), U = words 4..7 (x^0..x^255). */
    const __m128i l01 = ll_lo, l23 = _mm_xor_si128(ll_hi, c_lo);
    const __m128i u01 = _mm_xor_si128(hh_lo, c_hi), u23 = hh_hi;
    /* Bits of L's word 0 shifted out below x^255 are x^256..x^265: folded into word 3 first. */
    const __m128i w0 = _mm_unpacklo_epi64(l01, l01);
    const __m128i o = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(w0, 62), _mm_slli_epi64(w0, 59)),
                                    _mm_slli_epi64(w0, 54));
    const __m128i q23 = _mm_xor_si128(l23, _mm_unpackhi_epi64(_mm_setzero_si128(), o));
    const __m128i n01 = _mm_alignr_epi8(q23, l01, 8); /* (l1, q2) */
    const __m128i n23 = _mm_srli_si128(q23, 8);       /* (q3, 0) */
    __m128i a = _mm_xor_si128(u01, l01), b = _mm_xor_si128(u23, q23);
    a = _mm_xor_si128(a,
                      _mm_xor_si128(BS_PCLMUL_SHR256(l01, n01, 2), BS_PCLMUL_SHR256(l01, n01, 5)));
    b = _mm_xor_si128(b,
                      _mm_xor_si128(BS_PCLMUL_SHR256(q23, n23, 2), BS_PCLMUL_SHR256(q23, n23, 5)));
    *y01 = _mm_xor_si128(a, BS_PCLMUL_SHR256(l01, n01, 10));
    *y23 = _mm_xor_si128(b, BS_PCLMUL_SHR256(q23, n23, 10));
}

/*
 * bs_pclmul_reduce on the integer units, from memory: sums = the nine sums of a bs_pclmul_acc as
 * 18 words (each register low word first), y = words y0..y3. For loops where every vector
 * instruction competes for the same units and the general registers are idle. Read from memory
 * (the asm below): the compiler would otherwise move the words out of registers by lane.
 */
static inline __attribute__((always_inline)) void bs_pclmul_reduce_words(const uint64_t *sums,
                                                                         uint64_t y[4])
{
    __asm__ volatile("" : : "r"(sums) : "memory");
    const uint64_t *ll0 = sums, *ll1 = sums + 2, *llm = sums + 4;
    const uint64_t *hh0 = sums + 6, *hh1 = sums + 8, *hhm = sums + 10;
    const uint64_t *c0 = sums + 12, *c1 = sums + 14, *cm = sums + 16;
    /* bs_pclmul_join128 of each product: (lo, hi) = words 0..3. */
    const uint64_t lm0 = llm[0] ^ ll0[0] ^ ll1[0], lm1 = llm[1] ^ ll0[1] ^ ll1[1];
    const uint64_t hm0 = hhm[0] ^ hh0[0] ^ hh1[0], hm1 = hhm[1] ^ hh0[1] ^ hh1[1];
    const uint64_t cm0 = cm[0] ^ c0[0] ^ c1[0], cm1 = cm[1] ^ c0[1] ^ c1[1];
    const uint64_t ll_0 = ll0[0], ll_1 = ll0[1] ^ lm0, ll_2 = ll1[0] ^ lm1, ll_3 = ll1[1];
    const uint64_t hh_0 = hh0[0], hh_1 = hh0[1] ^ hm0, hh_2 = hh1[0] ^ hm1, hh_3 = hh1[1];
    const uint64_t c_0 = c0[0] ^ ll_0 ^ hh_0, c_1 = c0[1] ^ cm0 ^ ll_1 ^ hh_1;
    const uint64_t c_2 = c1[0] ^ cm1 ^ ll_2 ^ hh_2, c_3 = c1[1] ^ ll_3 ^ hh_3;
    /* L = words 0..3 (x^256..x^511), U = words 4..7 (x^0..x^255). */
    const uint64_t l0 = ll_0, l1 = ll_1, l2 = ll_2 ^ c_0, l3 = ll_3 ^ c_1;
    const uint64_t u0 = hh_0 ^ c_2, u1 = hh_1 ^ c_3, u2 = hh_2, u3 = hh_3;
    /* Bits of L's word 0 shifted out below x^255 fold into word 3 first. */
    const uint64_t q3 = l3 ^ bs_ghash256_rev_out(l0);
    y[0] = u0 ^ bs_ghash256_rev_in(l0) ^ bs_ghash256_rev_out(l1);
    y[1] = u1 ^ bs_ghash256_rev_in(l1) ^ bs_ghash256_rev_out(l2);
    y[2] = u2 ^ bs_ghash256_rev_in(l2) ^ bs_ghash256_rev_out(q3);
    y[3] = u3 ^ bs_ghash256_rev_in(q3);
}

BS_PCLMUL_TARGET static inline __attribute__((always_inline)) void
bs_pclmul_acc_zero(bs_pclmul_acc *t)
{
    t->ll0 = t->ll1 = t->llm = t->hh0 = t->hh1 = t->hhm = t->c0 = t->c1 = t->cm =
        _mm_setzero_si128();
}

#endif
