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

#include "ghash256_pclmul.h"

#define PCLMUL_TARGET BS_PCLMUL_TARGET
#define POW_WORDS BS_PCLMUL_POW_WORDS
#define POWERS BS_PCLMUL_POWERS

/* Stores G (words g01 = (g0, g1), g23 = (g2, g3)) in the key form at k. */
PCLMUL_TARGET static void key_form(uint64_t *k, __m128i g01, __m128i g23)
{
    const __m128i gc = _mm_xor_si128(g23, g01);
    _mm_storeu_si128((__m128i *)k, g23);
    _mm_storeu_si128((__m128i *)(k + 2), g01);
    _mm_storeu_si128((__m128i *)(k + 4), gc);
    _mm_storeu_si128((__m128i *)(k + 6),
                     _mm_unpacklo_epi64(bs_pclmul_halves(g01), bs_pclmul_halves(g23)));
    _mm_storeu_si128((__m128i *)(k + 8), _mm_move_epi64(bs_pclmul_halves(gc)));
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
        bs_pclmul_acc t;
        bs_pclmul_acc_zero(&t);
        bs_pclmul_mul_acc(&t, g23, g01, hkey);
        bs_pclmul_reduce(&t, &g01, &g23);
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
    const __m128i rv = bs_pclmul_rev();
    __m128i y23 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)y), rv);
    __m128i y01 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(y + 16)), rv);
    while (nblocks > 0) {
        const size_t n = nblocks < POWERS ? nblocks : POWERS;
        bs_pclmul_acc t;
        bs_pclmul_acc_zero(&t);
        for (size_t j = 0; j < n; j++) {
            __m128i a23 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32 * j)), rv);
            __m128i a01 =
                _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32 * j + 16)), rv);
            if (j == 0) {
                a23 = _mm_xor_si128(a23, y23);
                a01 = _mm_xor_si128(a01, y01);
            }
            bs_pclmul_mul_acc(&t, a23, a01, hkey + POW_WORDS * (n - 1 - j));
        }
        bs_pclmul_reduce(&t, &y01, &y23);
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
