/*
 * ghash256_ct32.c: constant-time GHASH-256 for 32-bit targets (docs/spec/rijndael256-gcm.md):
 * the 32-bit GHASH template (ghash_ct32.inc.h: ctmul32 and ctshift32) over eight limbs, a
 * three-level Karatsuba frame of 27 limb products, and the reduction modulo
 * x^256 + x^10 + x^5 + x^2 + 1.
 */
#include "gcm256.h"

#include "clmul32.h"

/* The 27 limb operands of a three-level Karatsuba product of a[0..7]. */
static void kara_operands(uint32_t op[27], const uint32_t a[8])
{
    uint32_t m[4];
    for (int i = 0; i < 4; i++)
        m[i] = a[i] ^ a[4 + i];
    bs_kara_operands4(op, a);
    bs_kara_operands4(op + 9, a + 4);
    bs_kara_operands4(op + 18, m);
}

/* y = the 511-bit product c reduced mod f = x^256 + x^10 + x^5 + x^2 + 1. */
static void reduce(uint32_t y[8], const uint32_t c[16])
{
    /* Fold c[8..15] once with x^256 = x^10 + x^5 + x^2 + 1, then the at most 10 bits past x^255. */
    uint32_t prev = 0;
    for (int i = 0; i < 8; i++) {
        uint32_t h = c[8 + i];
        y[i] =
            c[i] ^ h ^ (h << 2) ^ (prev >> 30) ^ (h << 5) ^ (prev >> 27) ^ (h << 10) ^ (prev >> 22);
        prev = h;
    }
    uint32_t o = (prev >> 30) ^ (prev >> 27) ^ (prev >> 22);
    y[0] ^= o ^ (o << 2) ^ (o << 5) ^ (o << 10);
}

#define GH_LIMBS 8
#define GH_IMPL bs_ghash256_impl
#define GH_HKEY_WORDS BS_GHASH256_HKEY_WORDS
#define GH_NAME(x) bs_ghash256_##x
#include "ghash_ct32.inc.h"
#undef GH_LIMBS
#undef GH_IMPL
#undef GH_HKEY_WORDS
#undef GH_NAME
