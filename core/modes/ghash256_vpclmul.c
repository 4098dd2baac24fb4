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

/* Entry 0 (bs_vpclmul_first). */
BS_VPCLMUL_TARGET static void vpclmul_init_first(uint64_t *hkey, const uint8_t h[32])
{
    bs_vpclmul_first(hkey, _mm256_loadu_si256((const __m256i *)h));
}

/* Entries have..want - 1 (bs_vpclmul_powers: those before them again, unchanged). */
BS_VPCLMUL_TARGET static void vpclmul_extend(uint64_t *hkey, unsigned have, unsigned want)
{
    (void)have;
    bs_vpclmul_powers(hkey, want);
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
    .form_words = BS_VPCLMUL_FORM_WORDS,
    .level = BS_CPU_AVX512,
};

#endif
