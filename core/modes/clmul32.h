/*
 * clmul32.h: the constant-time 32-bit carry-less multiply pieces shared by GHASH-256 and
 * GHASH-128 (ghash256_ct32.c, ghash128_ct32.c): bit reversal, the integer multiply with
 * "holes" (after BearSSL's ghash_ctmul32), the multiply-free shift-and-mask product and the
 * Karatsuba recombination. Field elements are limbs in polynomial order: bit j of limb i is the
 * coefficient of x^(32 i + j); in GCM's reflected byte order limb i is the bit reversal of the
 * big-endian word at bytes 4 i .. 4 i + 3.
 */
#ifndef BS_CLMUL32_H
#define BS_CLMUL32_H

#include "../bitslice.h"

#define BS_CLMUL_M0 0x11111111u
#define BS_CLMUL_M1 0x22222222u
#define BS_CLMUL_M2 0x44444444u
#define BS_CLMUL_M3 0x88888888u

static inline uint32_t bs_rev32(uint32_t x)
{
#if defined(__arm__) && defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 2 &&              \
    (defined(__GNUC__) || defined(__clang__))
    /* Thumb-2 (ARMv6T2 and later, ARMv7-M included) has RBIT. */
    uint32_t r;
    __asm__("rbit %0, %1" : "=r"(r) : "r"(x));
    return r;
#else
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    /* Compilers turn this into a byte swap where there is one (no libgcc __bswapsi2 call). */
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    return (x >> 16) | (x << 16);
#endif
}

/*
 * z[c] ^= the class-c part (before masking) of the low 32 bits of the integer product of the
 * classes of x and y: bits of class c of (z[c] & M_c) are the low 32 bits of the carry-less
 * product. Each operand is split into four classes of bits 4 apart; a column of one class sums
 * at most 8 terms, so no carry reaches the next bit of its class. Masking is linear, so sums
 * over several products are masked once (bs_clmul_merge).
 */
static inline void bs_bmul32_acc(uint32_t z[4], uint32_t x, uint32_t y)
{
    uint32_t x0 = x & BS_CLMUL_M0, x1 = x & BS_CLMUL_M1, x2 = x & BS_CLMUL_M2, x3 = x & BS_CLMUL_M3;
    uint32_t y0 = y & BS_CLMUL_M0, y1 = y & BS_CLMUL_M1, y2 = y & BS_CLMUL_M2, y3 = y & BS_CLMUL_M3;
    z[0] ^= (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    z[1] ^= (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    z[2] ^= (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    z[3] ^= (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
}

static inline uint32_t bs_clmul_merge(const uint32_t z[4])
{
    return (z[0] & BS_CLMUL_M0) | (z[1] & BS_CLMUL_M1) | (z[2] & BS_CLMUL_M2) |
           (z[3] & BS_CLMUL_M3);
}

/* lo, hi ^= the 63-bit carry-less product of x and y, one masked shift of y per bit of x. */
static inline void bs_clmul32_shift_acc(uint32_t *lo, uint32_t *hi, uint32_t x, uint32_t y)
{
    uint32_t l = y & (0u - (x & 1u)), h = 0;
    /* Unrolled, the shifts are constants; 0 - (bit 31 >> 31) compiles to one arithmetic shift. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC unroll 31
#endif
    for (unsigned i = 1; i < 32; i++) {
        uint32_t m = 0u - ((x << (31 - i)) >> 31);
        l ^= (y << i) & m;
        h ^= (y >> (32 - i)) & m;
    }
    *lo ^= l;
    *hi ^= h;
}

/* The three limb operands of one Karatsuba level of (a0, a1): low, high, their sum. */
static inline void bs_kara_operands2(uint32_t *op, uint32_t a0, uint32_t a1)
{
    op[0] = a0;
    op[1] = a1;
    op[2] = a0 ^ a1;
}

/* The nine limb operands of a two-level Karatsuba product of a[0..3]. */
static inline void bs_kara_operands4(uint32_t *op, const uint32_t a[4])
{
    bs_kara_operands2(op, a[0], a[1]);
    bs_kara_operands2(op + 3, a[2], a[3]);
    bs_kara_operands2(op + 6, a[0] ^ a[2], a[1] ^ a[3]);
}

/*
 * c (4 n words) = the product of two 2n-word operands from the three 2n-word products of their
 * halves: lo, hi, and mid = (a_lo ^ a_hi)(b_lo ^ b_hi).
 */
static inline void bs_kara_join(uint32_t *c, const uint32_t *lo, const uint32_t *hi,
                                const uint32_t *mid, int n)
{
    for (int i = 0; i < 2 * n; i++) {
        c[i] = lo[i];
        c[2 * n + i] = hi[i];
    }
    for (int i = 0; i < 2 * n; i++)
        c[n + i] ^= mid[i] ^ lo[i] ^ hi[i];
}

#endif
