/*
 * ghash256_vpclmul.c: GHASH-256 with VPCLMULQDQ on zmm (x86-64 with AVX-512), chosen at run
 * time; bit-exact with the portable ghash256_ctmul64.c. Two blocks per register, one reduction
 * per 16 blocks, all in registers: the kernel and its key form are in ghash256_vpclmul.h, which
 * the stitched GCM loop (gcm256_vaes.c) shares.
 */
#include "../bs_cpu.h"
#include "gcm256.h"
#include "ghash256_rev.h"

#ifdef BS_GHASH256_HAVE_VPCLMUL

#include "ghash256_vpclmul.h"

/* Words (low first) of a K1 / K2 pair (ghash256_vpclmul.h) from G_p and G_(p-1). */
static void pair_form(uint64_t k[BS_VPCLMUL_PAIR_WORDS], const uint64_t gp[4], const uint64_t gq[4])
{
    const uint64_t k1[8] = {gp[2], gp[3], gp[0], gp[1], gq[2], gq[3], gq[0], gq[1]};
    const uint64_t k2[8] = {gp[0], gp[1], gp[2], gp[3], gq[0], gq[1], gq[2], gq[3]};
    memcpy(k, k1, sizeof k1);
    memcpy(k + 8, k2, sizeof k2);
}

/* Entry 0: the pair (G_1, G_0 = 0). */
static void vpclmul_init_first(uint64_t *hkey, const uint8_t h[32])
{
    uint64_t hw[4], g1[4];
    const uint64_t zero[4] = {0, 0, 0, 0};
    bs_ghash256_load_rev(hw, h);
    /*
     * G_1 = H * x^-1 mod P, x^-1 = x^255 + x^9 + x^4 + x: a left shift of the reversed words and,
     * where H has the term x^0 (the top bit), the terms x^255, x^9, x^4, x^1 (bits 0, 246, 251
     * and 254). The mask keeps it free of a branch on the key.
     */
    const uint64_t m = (uint64_t)0 - (hw[3] >> 63);
    for (int i = 3; i > 0; i--)
        g1[i] = (hw[i] << 1) | (hw[i - 1] >> 63);
    g1[0] = (hw[0] << 1) ^ (m & 1);
    g1[3] ^= m & (((uint64_t)1 << 62) | ((uint64_t)1 << 59) | ((uint64_t)1 << 54));
    pair_form(hkey, g1, zero);
    bs_wipe(hw, sizeof hw);
    bs_wipe(g1, sizeof g1);
}

/*
 * Entries have..want - 1: G_(p+1) = G_p * H, block G_p times the pair (G_1, 0). G_p is read back
 * from the first four words of entry p - 1, which are its K1 = (G_p words 2, 3, 0, 1): the
 * register layout of a block, as the product wants it.
 */
BS_VPCLMUL_TARGET static void vpclmul_extend(uint64_t *hkey, unsigned have, unsigned want)
{
    BS_ALIGN(32) uint64_t w[8];
    __m256i gp = _mm256_loadu_si256((const __m256i *)(hkey + BS_VPCLMUL_PAIR_WORDS * (have - 1)));
    for (unsigned p = have; p < want; p++) {
        bs_vpclmul_acc t;
        bs_vpclmul_acc_zero(&t);
        bs_vpclmul_mul(&t, _mm512_zextsi256_si512(gp), hkey);
        const __m256i g = bs_vpclmul_reduce(&t); /* words 0..3 of G_(p+1) */
        /* K1 = (g2, g3, g0, g1 | p2, p3, p0, p1), K2 = (g0..g3 | p0..p3) with gp = (p2, p3, p0,
         * p1). */
        const __m256i gs = bs_vpclmul_swap(g);
        _mm256_store_si256((__m256i *)w, gs);
        _mm256_store_si256((__m256i *)(w + 4), gp);
        memcpy(hkey + BS_VPCLMUL_PAIR_WORDS * p, w, 8 * sizeof(uint64_t));
        _mm256_store_si256((__m256i *)w, g);
        _mm256_store_si256((__m256i *)(w + 4), bs_vpclmul_swap(gp));
        memcpy(hkey + BS_VPCLMUL_PAIR_WORDS * p + 8, w, 8 * sizeof(uint64_t));
        gp = gs;
    }
    bs_wipe(w, sizeof w);
}

static void vpclmul_init(uint64_t *hkey, const uint8_t h[32])
{
    vpclmul_init_first(hkey, h);
    vpclmul_extend(hkey, 1, BS_VPCLMUL_CHUNK);
}

BS_VPCLMUL_TARGET static void vpclmul_mul_blocks(const uint64_t *hkey, uint8_t y[32],
                                                 const uint8_t *blocks, size_t nblocks)
{
    __m256i yr = bs_vpclmul_load_y(y);
    for (; nblocks >= BS_VPCLMUL_CHUNK;
         nblocks -= BS_VPCLMUL_CHUNK, blocks += 32 * BS_VPCLMUL_CHUNK)
        yr = bs_vpclmul_chunk(hkey, yr, blocks, BS_VPCLMUL_CHUNK);
    if (nblocks > 0)
        yr = bs_vpclmul_chunk(hkey, yr, blocks, nblocks);
    bs_vpclmul_store_y(y, yr);
}

const bs_ghash256_impl bs_ghash256_vpclmul_impl = {
    .name = "vpclmul",
    .constant_time = 1,
    .init = vpclmul_init,
    .mul_blocks = vpclmul_mul_blocks,
    .init_first = vpclmul_init_first,
    .extend = vpclmul_extend,
    .max_powers = BS_VPCLMUL_CHUNK,
    .power_words = BS_VPCLMUL_PAIR_WORDS,
};

#endif
