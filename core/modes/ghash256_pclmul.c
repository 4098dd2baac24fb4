/*
 * ghash256_pclmul.c: GHASH-256 with PCLMULQDQ on xmm (x86-64, SSE4.1; CPU level aesni), chosen at
 * run time; bit-exact with the portable ghash256_ctmul64.c. Carry-less multiplies, shuffles and
 * shifts take constant time, and nothing here indexes memory or branches on data.
 *
 * Layout. A block is the 256-bit integer of ghash256_rev.h (words a3..a0 = bytes 0..31 read
 * big-endian, a3 first), held as two registers: A23 = (a2, a3) and A01 = (a0, a1), low word first,
 * each what a PSHUFB that reverses 16 bytes makes of a block's first and second half.
 *
 * No shift by one (as ghash256_vpclmul.h): the carry-less product of A and G, read as a 512-bit
 * reversed polynomial, is x * A * G, so the key form holds G_k = H^k * x^-1 (mod P) and a product
 * by G_k reads directly as A * H^k: its words 4..7 are the terms x^0..x^255 and words 0..3 those
 * of x^256..x^511, which x^256 = x^10 + x^5 + x^2 + 1 folds back.
 *
 * Product: two-level Karatsuba, nine PCLMULQDQ a block. A * G = P_hh x^128-words ^ P_ll ^ the
 * cross terms at word offset 2, where P_hh = A23 G23, P_ll = A01 G01 and the cross terms are
 * (A23 ^ A01)(G23 ^ G01) ^ P_hh ^ P_ll; each 128 x 128 product is three 64 x 64 ones (low, high,
 * and the product of each side's two words XORed). Up to eight blocks are summed unreduced, nine
 * sums in registers (Y' = (Y ^ X1) H^n ^ X2 H^(n-1) ^ ... ^ Xn H), then combined and reduced once.
 *
 * Key form: for k = 1..8, G_k as five registers (10 words): G23, G01, GC = G23 ^ G01, and the
 * Karatsuba words KM = (g0 ^ g1, g2 ^ g3) and KC = (gc0 ^ gc1, 0): 80 words.
 */
#include "gcm256.h"
#include "../bs_cpu.h"
#include "ghash256_rev.h"

#ifdef BS_GHASH256_HAVE_PCLMUL

#include <immintrin.h>

#define PCLMUL_TARGET __attribute__((target("pclmul,sse4.1,ssse3")))
#define POW_WORDS 10
#define POWERS 8 /* blocks per reduction */

_Static_assert(POWERS *POW_WORDS <= BS_GHASH256_HKEY_WORDS, "key form too large");

/* The nine unreduced sums: low, high and middle 64 x 64 products of P_ll, P_hh and the cross. */
typedef struct {
    __m128i ll0, ll1, llm, hh0, hh1, hhm, c0, c1, cm;
} pclmul_acc;

PCLMUL_TARGET static inline __m128i rev16(void)
{
    return _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/* A register's low word ^ high word, in its low word. */
PCLMUL_TARGET static inline __m128i halves(__m128i x)
{
    return _mm_xor_si128(x, _mm_shuffle_epi32(x, 0x4e));
}

/* t += (a23, a01) * G (g: the power's five registers). */
PCLMUL_TARGET static inline void mul_acc(pclmul_acc *t, __m128i a23, __m128i a01, const uint64_t *g)
{
    const __m128i g23 = _mm_loadu_si128((const __m128i *)g);
    const __m128i g01 = _mm_loadu_si128((const __m128i *)(g + 2));
    const __m128i gc = _mm_loadu_si128((const __m128i *)(g + 4));
    const __m128i km = _mm_loadu_si128((const __m128i *)(g + 6));
    const __m128i kc = _mm_loadu_si128((const __m128i *)(g + 8));
    const __m128i ac = _mm_xor_si128(a23, a01);
    t->ll0 = _mm_xor_si128(t->ll0, _mm_clmulepi64_si128(a01, g01, 0x00));
    t->ll1 = _mm_xor_si128(t->ll1, _mm_clmulepi64_si128(a01, g01, 0x11));
    t->llm = _mm_xor_si128(t->llm, _mm_clmulepi64_si128(halves(a01), km, 0x00));
    t->hh0 = _mm_xor_si128(t->hh0, _mm_clmulepi64_si128(a23, g23, 0x00));
    t->hh1 = _mm_xor_si128(t->hh1, _mm_clmulepi64_si128(a23, g23, 0x11));
    t->hhm = _mm_xor_si128(t->hhm, _mm_clmulepi64_si128(halves(a23), km, 0x10));
    t->c0 = _mm_xor_si128(t->c0, _mm_clmulepi64_si128(ac, gc, 0x00));
    t->c1 = _mm_xor_si128(t->c1, _mm_clmulepi64_si128(ac, gc, 0x11));
    t->cm = _mm_xor_si128(t->cm, _mm_clmulepi64_si128(halves(ac), kc, 0x00));
}

/* A 128 x 128 product from its Karatsuba sums: low and high 128 bits. */
PCLMUL_TARGET static inline void join128(__m128i lo, __m128i hi, __m128i m, __m128i *low,
                                         __m128i *high)
{
    m = _mm_xor_si128(m, _mm_xor_si128(lo, hi));
    *low = _mm_xor_si128(lo, _mm_slli_si128(m, 8));
    *high = _mm_xor_si128(hi, _mm_srli_si128(m, 8));
}

/* The 256-bit shift right by s of (l01, l23) (words low first), word by word. */
#define SHR256(l, n, s) _mm_xor_si128(_mm_srli_epi64((l), (s)), _mm_slli_epi64((n), 64 - (s)))

/* The sums in t, combined and reduced: *y01, *y23 = words (y0, y1), (y2, y3). */
PCLMUL_TARGET static inline void reduce(const pclmul_acc *t, __m128i *y01, __m128i *y23)
{
    __m128i ll_lo, ll_hi, hh_lo, hh_hi, c_lo, c_hi;
    join128(t->ll0, t->ll1, t->llm, &ll_lo, &ll_hi);
    join128(t->hh0, t->hh1, t->hhm, &hh_lo, &hh_hi);
    join128(t->c0, t->c1, t->cm, &c_lo, &c_hi);
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
    a = _mm_xor_si128(a, _mm_xor_si128(SHR256(l01, n01, 2), SHR256(l01, n01, 5)));
    b = _mm_xor_si128(b, _mm_xor_si128(SHR256(q23, n23, 2), SHR256(q23, n23, 5)));
    *y01 = _mm_xor_si128(a, SHR256(l01, n01, 10));
    *y23 = _mm_xor_si128(b, SHR256(q23, n23, 10));
}

PCLMUL_TARGET static inline void acc_zero(pclmul_acc *t)
{
    t->ll0 = t->ll1 = t->llm = t->hh0 = t->hh1 = t->hhm = t->c0 = t->c1 = t->cm =
        _mm_setzero_si128();
}

/* Stores G (words g01 = (g0, g1), g23 = (g2, g3)) in the key form at k. */
PCLMUL_TARGET static void key_form(uint64_t *k, __m128i g01, __m128i g23)
{
    const __m128i gc = _mm_xor_si128(g23, g01);
    _mm_storeu_si128((__m128i *)k, g23);
    _mm_storeu_si128((__m128i *)(k + 2), g01);
    _mm_storeu_si128((__m128i *)(k + 4), gc);
    _mm_storeu_si128((__m128i *)(k + 6), _mm_unpacklo_epi64(halves(g01), halves(g23)));
    _mm_storeu_si128((__m128i *)(k + 8), _mm_move_epi64(halves(gc)));
}

/*
 * G_1 = H * x^-1 mod P, x^-1 = x^255 + x^9 + x^4 + x: the reversed words of H shifted left by one
 * as one 256-bit integer, the top bit (H's term x^0) rotating into bit 0 (x^255), and where that
 * bit is set the terms x^9, x^4, x^1 (bits 246, 251, 254) XORed in under a mask.
 */
static void pclmul_init_first(uint64_t *hkey, const uint8_t h[32])
{
    uint64_t w[4], g[4];
    bs_ghash256_load_rev(w, h);
    const uint64_t top = w[3] >> 63, mask = (uint64_t)0 - top;
    g[0] = (w[0] << 1) | top;
    for (int i = 1; i < 4; i++)
        g[i] = (w[i] << 1) | (w[i - 1] >> 63);
    g[3] ^= mask & (((uint64_t)1 << 62) | ((uint64_t)1 << 59) | ((uint64_t)1 << 54));
    key_form(hkey, _mm_loadu_si128((const __m128i *)g), _mm_loadu_si128((const __m128i *)(g + 2)));
    bs_wipe(w, sizeof w);
    bs_wipe(g, sizeof g);
}

/* G_(i+1) = G_i * G_1 (a product by G_1 reads as G_i * H) for i = have..want - 1. */
PCLMUL_TARGET static void pclmul_extend(uint64_t *hkey, unsigned have, unsigned want)
{
    const uint64_t *g = hkey + POW_WORDS * (have - 1);
    __m128i g23 = _mm_loadu_si128((const __m128i *)g),
            g01 = _mm_loadu_si128((const __m128i *)(g + 2));
    for (unsigned i = have; i < want; i++) {
        pclmul_acc t;
        acc_zero(&t);
        mul_acc(&t, g23, g01, hkey);
        reduce(&t, &g01, &g23);
        key_form(hkey + POW_WORDS * i, g01, g23);
    }
}

static void pclmul_init(uint64_t *hkey, const uint8_t h[32])
{
    pclmul_init_first(hkey, h);
    pclmul_extend(hkey, 1, POWERS);
}

/* Up to eight blocks per reduction: Y' = (Y ^ X1) H^n ^ X2 H^(n-1) ^ ... ^ Xn H. */
PCLMUL_TARGET static void pclmul_mul_blocks(const uint64_t *hkey, uint8_t y[32],
                                            const uint8_t *blocks, size_t nblocks)
{
    const __m128i rv = rev16();
    __m128i y23 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)y), rv);
    __m128i y01 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(y + 16)), rv);
    while (nblocks > 0) {
        const size_t n = nblocks < POWERS ? nblocks : POWERS;
        pclmul_acc t;
        acc_zero(&t);
        for (size_t j = 0; j < n; j++) {
            __m128i a23 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32 * j)), rv);
            __m128i a01 =
                _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32 * j + 16)), rv);
            if (j == 0) {
                a23 = _mm_xor_si128(a23, y23);
                a01 = _mm_xor_si128(a01, y01);
            }
            mul_acc(&t, a23, a01, hkey + POW_WORDS * (n - 1 - j));
        }
        reduce(&t, &y01, &y23);
        blocks += 32 * n;
        nblocks -= n;
    }
    _mm_storeu_si128((__m128i *)y, _mm_shuffle_epi8(y23, rv));
    _mm_storeu_si128((__m128i *)(y + 16), _mm_shuffle_epi8(y01, rv));
}

const bs_ghash256_impl bs_ghash256_pclmul_impl = {
    .name = "pclmul",
    .constant_time = 1,
    .init = pclmul_init,
    .mul_blocks = pclmul_mul_blocks,
    .init_first = pclmul_init_first,
    .extend = pclmul_extend,
    .max_powers = POWERS,
    .power_words = POW_WORDS,
    .form_words = POWERS * POW_WORDS,
    .level = BS_CPU_AESNI,
};

#endif
