/*
 * ghash256_vpclmul.c: GHASH-256 with VPCLMULQDQ on zmm (x86-64 with AVX-512), chosen at run
 * time; bit-exact with ghash256_ct.c. Layout and reduction: ghash256_rev.h.
 *
 * One 256 x 256-bit carry-less product is four VPCLMULQDQ: the block (words a0..a3) sits in the
 * register twice, lanes (a0,a1) (a2,a3) (a0,a1) (a2,a3), a power of H (h0..h3) as lanes
 * (h0,h1) (h0,h1) (h2,h3) (h2,h3), so that the lanes hold the four 128 x 128 products at word
 * offsets 0, 2, 2 and 4; the immediates 00, 11, 01 and 10 give each lane's low, high and two
 * middle 64 x 64 products. Eight blocks are multiplied by H^8 .. H^1 and summed unreduced
 * (Y' = (Y ^ X1) H^8 ^ X2 H^7 ^ ... ^ X8 H), then the lanes are combined and reduced once.
 * Carry-less multiplies and permutes take constant time; nothing branches on or indexes by data.
 *
 * Key form: H^1 .. H^8, each as the 8 words of its register (64 words).
 */
#include "../bs_cpu.h"
#include "gcm256.h"
#include "ghash256_rev.h"

#ifdef BS_GHASH256_HAVE_VPCLMUL

#include <immintrin.h>

#define VPCLMUL_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,vpclmulqdq")))
#define POWERS 8
#define POW_WORDS 8

_Static_assert(POWERS *POW_WORDS <= BS_GHASH256_HKEY_WORDS, "key form too large");

/* Byte k of the register = byte 31 - (k mod 32) of the block: its words a0..a3, twice. */
static const uint8_t BLOCK_REV[64] = {
    31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10,
    9,  8,  7,  6,  5,  4,  3,  2,  1,  0,  31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
    19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,  8,  7,  6,  5,  4,  3,  2,  1,  0,
};

/* The register form of a power of H from its words (layout comment). */
static void power_form(uint64_t k[POW_WORDS], const uint64_t h[4])
{
    k[0] = h[0], k[1] = h[1], k[2] = h[0], k[3] = h[1];
    k[4] = h[2], k[5] = h[3], k[6] = h[2], k[7] = h[3];
}

/* Sums of the lanes' low, high and middle products (unreduced). */
typedef struct {
    __m512i lo, hi, mid;
} acc512;

VPCLMUL_TARGET static inline void mul_acc(acc512 *t, __m512i a, __m512i h)
{
    t->lo = _mm512_xor_si512(t->lo, _mm512_clmulepi64_epi128(a, h, 0x00));
    t->hi = _mm512_xor_si512(t->hi, _mm512_clmulepi64_epi128(a, h, 0x11));
    t->mid = _mm512_ternarylogic_epi64(t->mid, _mm512_clmulepi64_epi128(a, h, 0x01),
                                       _mm512_clmulepi64_epi128(a, h, 0x10), 0x96);
}

/* The lanes of t combined into the 511-bit product p[0..7] and reduced into y. */
VPCLMUL_TARGET static inline void combine_reduce(uint64_t y[4], const acc512 *t)
{
    BS_ALIGN(64) uint64_t l[8], h[8];
    uint64_t p[8];
    _mm512_store_si512((void *)l, _mm512_xor_si512(t->lo, _mm512_bslli_epi128(t->mid, 8)));
    _mm512_store_si512((void *)h, _mm512_xor_si512(t->hi, _mm512_bsrli_epi128(t->mid, 8)));
    p[0] = l[0];
    p[1] = l[1];
    p[2] = h[0] ^ l[2] ^ l[4];
    p[3] = h[1] ^ l[3] ^ l[5];
    p[4] = h[2] ^ h[4] ^ l[6];
    p[5] = h[3] ^ h[5] ^ l[7];
    p[6] = h[6];
    p[7] = h[7];
    bs_ghash256_rev_reduce(y, p);
    bs_wipe(l, sizeof l);
    bs_wipe(h, sizeof h);
    bs_wipe(p, sizeof p);
}

VPCLMUL_TARGET static inline __m512i words_reg(const uint64_t w[4])
{
    return _mm512_set_epi64((long long)w[3], (long long)w[2], (long long)w[1], (long long)w[0],
                            (long long)w[3], (long long)w[2], (long long)w[1], (long long)w[0]);
}

VPCLMUL_TARGET static void vpclmul_init(uint64_t *hkey, const uint8_t h[32])
{
    uint64_t h1[4], pw[4];
    memset(hkey, 0, BS_GHASH256_HKEY_WORDS * sizeof(uint64_t));
    bs_ghash256_load_rev(h1, h);
    memcpy(pw, h1, sizeof pw);
    power_form(hkey, h1);
    const __m512i hreg = _mm512_loadu_si512((const void *)hkey);
    for (int i = 1; i < POWERS; i++) {
        acc512 t = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
        mul_acc(&t, words_reg(pw), hreg);
        combine_reduce(pw, &t);
        power_form(hkey + POW_WORDS * i, pw);
    }
    bs_wipe(h1, sizeof h1);
    bs_wipe(pw, sizeof pw);
}

VPCLMUL_TARGET static void vpclmul_mul_blocks(const uint64_t *hkey, uint8_t y[32],
                                              const uint8_t *blocks, size_t nblocks)
{
    const __m512i rev = _mm512_loadu_si512((const void *)BLOCK_REV);
    uint64_t acc[4];
    bs_ghash256_load_rev(acc, y);
    while (nblocks > 0) {
        const size_t n = nblocks < POWERS ? nblocks : POWERS;
        acc512 t = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
        for (size_t j = 0; j < n; j++) {
            __m512i x = _mm512_permutexvar_epi8(rev, _mm512_castsi256_si512(_mm256_loadu_si256(
                                                         (const __m256i *)(blocks + 32 * j))));
            if (j == 0)
                x = _mm512_xor_si512(x, words_reg(acc));
            mul_acc(&t, x, _mm512_loadu_si512((const void *)(hkey + POW_WORDS * (n - 1 - j))));
        }
        combine_reduce(acc, &t);
        blocks += 32 * n;
        nblocks -= n;
    }
    bs_ghash256_store_rev(y, acc);
    bs_wipe(acc, sizeof acc);
}

const bs_ghash256_impl bs_ghash256_vpclmul_impl = {
    "vpclmul",
    1,
    vpclmul_init,
    vpclmul_mul_blocks,
};

#endif
