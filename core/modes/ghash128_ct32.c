/*
 * ghash128_ct32.c: constant-time, table-free GHASH-128 (SP 800-38D) for 32-bit targets: the
 * 32-bit GHASH template (ghash_ct32.inc.h: ctmul32 and ctshift32) over four limbs, a two-level
 * Karatsuba frame of nine limb products, and the reduction modulo x^128 + x^7 + x^2 + x + 1.
 */
#include "gcm128.h"

#include "clmul32.h"

/* y = the 255-bit product c reduced mod x^128 + x^7 + x^2 + x + 1. */
static void reduce(uint32_t y[4], const uint32_t c[8])
{
    /* Fold c[4..7] with x^128 = x^7 + x^2 + x + 1, then the at most 7 bits past x^127. */
    uint32_t prev = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t h = c[4 + i];
        y[i] =
            c[i] ^ h ^ (h << 1) ^ (prev >> 31) ^ (h << 2) ^ (prev >> 30) ^ (h << 7) ^ (prev >> 25);
        prev = h;
    }
    uint32_t o = (prev >> 31) ^ (prev >> 30) ^ (prev >> 25);
    y[0] ^= o ^ (o << 1) ^ (o << 2) ^ (o << 7);
}

/* The nine limb operands of a two-level Karatsuba product of a[0..3] (clmul32.h). */
#define kara_operands bs_kara_operands4

#define GH_LIMBS 4
#define GH_IMPL bs_ghash128_impl
#define GH_HKEY_WORDS BS_GHASH128_HKEY_WORDS
#define GH_NAME(x) bs_ghash128_##x
#include "ghash_ct32.inc.h"
#undef GH_LIMBS
#undef GH_IMPL
#undef GH_HKEY_WORDS
#undef GH_NAME
#undef kara_operands

const bs_ghash128_impl *bs_ghash128_default(void)
{
#if defined(BS_GHASH128_TABLE4_DEFAULT)
    return &bs_ghash128_table4_not_ct;
#elif defined(__riscv) && !defined(__riscv_mul)
    return &bs_ghash128_ctshift32;
#else
    return &bs_ghash128_ctmul32;
#endif
}
