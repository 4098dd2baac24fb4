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

/*
 * Entry 0: the pair (G_1, G_0 = 0), in registers. G_1 = H * x^-1 mod P, x^-1 = x^255 + x^9 +
 * x^4 + x: the reversed words (w0..w3) of H shifted left by one as one 256-bit integer, the top
 * bit (H's term x^0) rotating into bit 0 (x^255), and where that bit is set the terms x^9, x^4,
 * x^1 (bits 246, 251, 254) XORed in under a mask: no branch on the key.
 */
BS_VPCLMUL_TARGET static void vpclmul_init_first(uint64_t *hkey, const uint8_t h[32])
{
    const __m256i w = bs_vpclmul_swap(bs_vpclmul_load_y(h)); /* (w0, w1, w2, w3) */
    const __m256i prev = _mm256_alignr_epi64(w, w, 3);       /* (w3, w0, w1, w2) */
    const __m256i m = _mm256_srai_epi64(_mm256_permute4x64_epi64(w, 0xff), 63);
    const __m256i c = _mm256_set_epi64x(
        (long long)(((uint64_t)1 << 62) | ((uint64_t)1 << 59) | ((uint64_t)1 << 54)), 0, 0, 0);
    const __m256i g1 = _mm256_ternarylogic_epi64(
        _mm256_or_si256(_mm256_slli_epi64(w, 1), _mm256_srli_epi64(prev, 63)), m, c,
        0x78); /* a ^ (m & c) */
    /* K1 = (g2, g3, g0, g1 | 0), K2 = (g0, g1, g2, g3 | 0), KM: pair_form(G_1, 0). */
    const __m256i z = _mm256_setzero_si256();
    _mm256_storeu_si256((__m256i *)hkey, bs_vpclmul_swap(g1));
    _mm256_storeu_si256((__m256i *)(hkey + 4), z);
    _mm256_storeu_si256((__m256i *)(hkey + 8), g1);
    _mm256_storeu_si256((__m256i *)(hkey + 12), z);
    _mm256_storeu_si256((__m256i *)(hkey + 16), bs_vpclmul_km(bs_vpclmul_swap(g1), g1));
    _mm256_storeu_si256((__m256i *)(hkey + 20), z);
}

/*
 * Two products reduced apart: t holds two blocks' (register layout) products by one power, its K
 * forms in both halves, and each 256-bit half of the result is that block's product as words
 * (y0..y3), low word first. The reduction of bs_vpclmul_reduce_lanes, with every step kept inside
 * its half: lane moves by VPERMT2Q and VPERMQ, the halves' sums by masks.
 */
BS_VPCLMUL_TARGET static __m512i vpclmul_reduce2(const bs_vpclmul_acc *t)
{
    __m512i a, b, c, d;
    bs_vpclmul_lanes(t->lo1, t->hi1, t->m1, &a, &b);
    bs_vpclmul_lanes(t->lo2, t->hi2, t->m2, &c, &d);
    /* The K2 products, both lanes of a half at word offset 2, summed in each lane. */
    const __m512i cs = _mm512_xor_si512(c, _mm512_shuffle_i64x2(c, c, 0xb1));
    const __m512i ds = _mm512_xor_si512(d, _mm512_shuffle_i64x2(d, d, 0xb1));
    /* Per half: u = words 4..7 = [a lane 0 | b lane 0] ^ [ds | 0], l = words 0..3. */
    const __m512i u = _mm512_xor_si512(
        _mm512_permutex2var_epi64(a, _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), b),
        _mm512_maskz_mov_epi64(0x33, ds));
    const __m512i l = _mm512_xor_si512(
        _mm512_permutex2var_epi64(a, _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2), b),
        _mm512_maskz_mov_epi64(0xcc, cs));
    const __m512i w = _mm512_permutexvar_epi64(_mm512_set_epi64(4, 7, 6, 5, 0, 3, 2, 1), l);
    const __m512i z = _mm512_ternarylogic_epi64(_mm512_slli_epi64(w, 62), _mm512_slli_epi64(w, 59),
                                                _mm512_slli_epi64(w, 54), 0x96);
    const __m512i q = _mm512_mask_xor_epi64(l, 0x88, l, z);
    __m512i y = _mm512_ternarylogic_epi64(u, _mm512_maskz_mov_epi64(0x77, z), q, 0x96);
    y = _mm512_ternarylogic_epi64(y, _mm512_srli_epi64(q, 2), _mm512_srli_epi64(q, 5), 0x96);
    return _mm512_xor_si512(y, _mm512_srli_epi64(q, 10));
}

/*
 * Entries have..want - 1, a level at a time: G_p = G_(p - n) * G_n for p = n + 1 .. min(2n, want)
 * with n the powers made so far, independent products (the carry-less multiplier pipelines them),
 * so that 16 powers from one take four levels of latency instead of fifteen; two products to a
 * register, G_n's K forms in both halves, reduced apart (vpclmul_reduce2). A product of G_a (as a
 * block, in the register layout) by the K forms of G_b reads as G_a * H^b = G_(a+b). G_q is read
 * back from the first four words of entry q - 1, its K1 = (G_q words 2, 3, 0, 1): the register
 * layout of a block.
 */
BS_VPCLMUL_TARGET static void vpclmul_extend(uint64_t *hkey, unsigned have, unsigned want)
{
    while (have < want) {
        const unsigned top = 2 * have < want ? 2 * have : want;
        const uint64_t *by = hkey + BS_VPCLMUL_PAIR_WORDS * (have - 1); /* G_n's K forms first */
        const __m512i k1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)by));
        const __m512i k2 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(by + 8)));
        const __m512i km = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(by + 16)));
        __m256i g[BS_VPCLMUL_CHUNK]; /* words 0..3 of G_p */
        for (unsigned p = have + 1; p <= top; p += 2) {
            const uint64_t *gi = hkey + BS_VPCLMUL_PAIR_WORDS * (p - have - 1);
            __m512i x = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)gi));
            if (p < top)
                x = _mm512_inserti64x4(
                    x, _mm256_loadu_si256((const __m256i *)(gi + BS_VPCLMUL_PAIR_WORDS)), 1);
            bs_vpclmul_acc t;
            bs_vpclmul_acc_zero(&t);
            bs_vpclmul_mul_k(&t, x, bs_vpclmul_halves(x), k1, k2, km);
            const __m512i y = vpclmul_reduce2(&t);
            g[p - have - 1] = _mm512_castsi512_si256(y);
            if (p < top)
                g[p - have] = _mm512_extracti64x4_epi64(y, 1);
        }
        /* Entry p - 1 = the pair (G_p, G_(p-1)): K1 = (G_p 2, 3, 0, 1 | G_(p-1) 2, 3, 0, 1),
         * K2 = (G_p 0..3 | G_(p-1) 0..3). */
        __m256i prev = _mm256_loadu_si256(
            (const __m256i *)(hkey + BS_VPCLMUL_PAIR_WORDS * (have - 1))); /* K1 form */
        for (unsigned p = have + 1; p <= top; p++) {
            uint64_t *e = hkey + BS_VPCLMUL_PAIR_WORDS * (p - 1);
            const __m256i gs = bs_vpclmul_swap(g[p - have - 1]);
            _mm256_storeu_si256((__m256i *)e, gs);
            _mm256_storeu_si256((__m256i *)(e + 4), prev);
            _mm256_storeu_si256((__m256i *)(e + 8), g[p - have - 1]);
            _mm256_storeu_si256((__m256i *)(e + 12), bs_vpclmul_swap(prev));
            _mm256_storeu_si256((__m256i *)(e + 16), bs_vpclmul_km(gs, g[p - have - 1]));
            _mm256_storeu_si256((__m256i *)(e + 20), bs_vpclmul_km(prev, bs_vpclmul_swap(prev)));
            prev = gs;
        }
        have = top;
    }
}

static void vpclmul_init(uint64_t *hkey, const uint8_t h[32])
{
    vpclmul_init_first(hkey, h);
    vpclmul_extend(hkey, 1, BS_VPCLMUL_CHUNK);
}

/*
 * 64-byte aligned: a short message calls it for each block, and where the linker happened to put
 * it (unaligned, beside the key-power code) a re-keyed 16-byte message ran about 20 % slower
 * through openssl speed (two builds differing only in the layout of this file).
 */
BS_VPCLMUL_TARGET __attribute__((aligned(64))) static void
vpclmul_mul_blocks(const uint64_t *hkey, uint8_t y[32], const uint8_t *blocks, size_t nblocks)
{
    __m256i yr = bs_vpclmul_load_y(y);
    if (nblocks == 1) { /* a short message's blocks, one at a time */
        bs_vpclmul_store_y(y, bs_vpclmul_one(hkey, yr, blocks));
        return;
    }
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
    .level = BS_CPU_AVX512,
};

#endif
