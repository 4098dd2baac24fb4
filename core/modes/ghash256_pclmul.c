/*
 * ghash256_pclmul.c: GHASH-256 with PCLMULQDQ (x86-64), chosen at run time; bit-exact with the
 * portable ghash256_ctmul64.c. Carry-less multiply instructions take constant time, and nothing
 * here indexes memory or branches on data.
 *
 * Layout. A block is kept as the 256-bit integer it is when read big-endian (word 3 = bytes
 * 0..7 read big-endian, word 0 = bytes 24..31): bit 255 - j is the coefficient of x^j. The
 * carry-less product of two such integers is the 511-bit reversal of the polynomial product,
 * so shifting it left by one gives the 512-bit reversal: its high 256 bits are the product's
 * terms x^0..x^255 and its low 256 bits those of x^256..x^511, which x^256 = x^10 + x^5 + x^2 + 1
 * folds back (shifts to the right, in this order).
 *
 * Key form: the reversed words of H, H^2, H^3, H^4 (4 words each) and, for each power, the XORs
 * Karatsuba needs (5 words): 36 words.
 */
#include "gcm256.h"
#include "../bs_cpu.h"
#include "ghash256_rev.h"

#ifdef BS_GHASH256_HAVE_PCLMUL

#include <immintrin.h>

#define PCLMUL_TARGET __attribute__((target("pclmul,sse4.1")))
#define POW_WORDS 9
#define POWERS 4 /* blocks per reduction */

PCLMUL_TARGET static inline void clmul64(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
    __m128i r = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a),
                                     _mm_cvtsi64_si128((long long)b), 0x00);
    *lo = (uint64_t)_mm_cvtsi128_si64(r);
    *hi = (uint64_t)_mm_extract_epi64(r, 1);
}

/* c[0..3] = a[0..1] * b[0..1], with bm = b[0] ^ b[1]. */
PCLMUL_TARGET static inline void mul128(uint64_t c[4], const uint64_t a[2], const uint64_t b[2],
                                        uint64_t bm)
{
    uint64_t l0, l1, h0, h1, m0, m1;
    clmul64(a[0], b[0], &l0, &l1);
    clmul64(a[1], b[1], &h0, &h1);
    clmul64(a[0] ^ a[1], bm, &m0, &m1);
    m0 ^= l0 ^ h0;
    m1 ^= l1 ^ h1;
    c[0] = l0;
    c[1] = l1 ^ m0;
    c[2] = h0 ^ m1;
    c[3] = h1;
}

/* p[0..7] ^= a * h, h in key form (see the layout comment). */
PCLMUL_TARGET static inline void mul256_acc(uint64_t p[8], const uint64_t a[4], const uint64_t *h)
{
    uint64_t lo[4], hi[4], mid[4], am[2] = {a[0] ^ a[2], a[1] ^ a[3]};
    mul128(lo, a, h, h[4]);
    mul128(hi, a + 2, h + 2, h[5]);
    mul128(mid, am, h + 6, h[8]);
    for (int i = 0; i < 4; i++)
        mid[i] ^= lo[i] ^ hi[i];
    p[0] ^= lo[0];
    p[1] ^= lo[1];
    p[2] ^= lo[2] ^ mid[0];
    p[3] ^= lo[3] ^ mid[1];
    p[4] ^= hi[0] ^ mid[2];
    p[5] ^= hi[1] ^ mid[3];
    p[6] ^= hi[2];
    p[7] ^= hi[3];
}

static void key_form(uint64_t *k, const uint64_t h[4])
{
    memcpy(k, h, 4 * sizeof(uint64_t));
    k[4] = h[0] ^ h[1];
    k[5] = h[2] ^ h[3];
    k[6] = h[0] ^ h[2];
    k[7] = h[1] ^ h[3];
    k[8] = k[6] ^ k[7];
}

static void pclmul_init_first(uint64_t *hkey, const uint8_t h[32])
{
    uint64_t pw[4];
    bs_ghash256_load_rev(pw, h);
    key_form(hkey, pw);
    bs_wipe(pw, sizeof pw);
}

/* H^(i+1) = H^i * H for i = have..want - 1. */
PCLMUL_TARGET static void pclmul_extend(uint64_t *hkey, unsigned have, unsigned want)
{
    uint64_t pw[4], p[8];
    memcpy(pw, hkey + POW_WORDS * (have - 1), sizeof pw);
    for (unsigned i = have; i < want; i++) {
        memset(p, 0, sizeof p);
        mul256_acc(p, pw, hkey);
        bs_ghash256_rev_reduce(pw, p);
        key_form(hkey + POW_WORDS * i, pw);
    }
    bs_wipe(pw, sizeof pw);
    bs_wipe(p, sizeof p);
}

static void pclmul_init(uint64_t *hkey, const uint8_t h[32])
{
    pclmul_init_first(hkey, h);
    pclmul_extend(hkey, 1, POWERS);
}

/* Four blocks per reduction: Y' = (Y ^ X1) H^4 ^ X2 H^3 ^ X3 H^2 ^ X4 H. */
PCLMUL_TARGET static void pclmul_mul_blocks(const uint64_t *hkey, uint8_t y[32],
                                            const uint8_t *blocks, size_t nblocks)
{
    uint64_t acc[4], x[4], p[8];
    bs_ghash256_load_rev(acc, y);
    while (nblocks > 0) {
        size_t n = nblocks < POWERS ? nblocks : POWERS;
        memset(p, 0, sizeof p);
        for (size_t j = 0; j < n; j++) {
            bs_ghash256_load_rev(x, blocks + 32 * j);
            if (j == 0)
                for (int i = 0; i < 4; i++)
                    x[i] ^= acc[i];
            mul256_acc(p, x, hkey + POW_WORDS * (n - 1 - j));
        }
        bs_ghash256_rev_reduce(acc, p);
        blocks += 32 * n;
        nblocks -= n;
    }
    bs_ghash256_store_rev(y, acc);
    bs_wipe(acc, sizeof acc);
    bs_wipe(x, sizeof x);
    bs_wipe(p, sizeof p);
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
    .level = BS_CPU_AESNI,
};

#endif
