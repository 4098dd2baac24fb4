/*
 * bs_common.h: what every core header needs, in the common subset of C11 and C++ so that
 * nvcc can include it.
 *
 * Rules for everything under core/:
 *   - only <stdint.h>, <stddef.h>, <string.h>; no malloc, no I/O, no globals that hold state;
 *   - no branch, memory index or variable-time instruction that depends on a key or data bit;
 *   - functions meant for the GPU as well as the host are declared BS_FN.
 */
#ifndef BS_COMMON_H
#define BS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define BS_FN __host__ __device__ static inline
#else
#define BS_FN static inline
#endif

/*
 * Template includes (core/<cipher>/<part>.inc.h, after knot-resolver's kru.inc.c): a header without
 * include guard that defines a family of functions for one word type. Its includer defines
 * BS_W (the word type) and BS_SFX (the name suffix), includes it, and #undefs both; the template
 * names its functions BS_TPL(name), i.e. name_SFX. Unlike a function-defining macro, the code
 * keeps its own lines for debuggers, valgrind and clang-format. BS_CAT pastes after expansion.
 */
#define BS_CAT_(a, b) a##b
#define BS_CAT(a, b) BS_CAT_(a, b)
#define BS_TPL(name) BS_CAT(name, BS_CAT(_, BS_SFX))

#if defined(__GNUC__) || defined(__clang__)
#define BS_ALIGN(n) __attribute__((aligned(n)))
#else
#define BS_ALIGN(n)
#endif

BS_FN uint64_t bs_load_be64(const uint8_t *p)
{
    return ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
           ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
           ((uint64_t)p[6] << 8) | (uint64_t)p[7];
}

BS_FN void bs_store_be64(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)(v >> 56);
    p[1] = (uint8_t)(v >> 48);
    p[2] = (uint8_t)(v >> 40);
    p[3] = (uint8_t)(v >> 32);
    p[4] = (uint8_t)(v >> 24);
    p[5] = (uint8_t)(v >> 16);
    p[6] = (uint8_t)(v >> 8);
    p[7] = (uint8_t)v;
}

BS_FN uint32_t bs_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

BS_FN void bs_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

BS_FN uint32_t bs_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

BS_FN void bs_store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

BS_FN uint64_t bs_load_le64(const uint8_t *p)
{
    return (uint64_t)bs_load_le32(p) | ((uint64_t)bs_load_le32(p + 4) << 32);
}

BS_FN void bs_store_le64(uint8_t *p, uint64_t v)
{
    bs_store_le32(p, (uint32_t)v);
    bs_store_le32(p + 4, (uint32_t)(v >> 32));
}

/*
 * SWAPMOVE (the bit-permutation primitive of bitsliced packing): exchanges the bits of *a
 * selected by mask m with the bits of *b selected by (m << n).
 */
BS_FN void bs_swapmove64(uint64_t *a, uint64_t *b, uint64_t m, unsigned n)
{
    uint64_t t = ((*b >> n) ^ *a) & m;
    *a ^= t;
    *b ^= t << n;
}

/*
 * The 64x64 bit-matrix transpose x[L] bit i <-> x[i] bit L is six SWAPMOVE stages, which commute.
 * Stages 2 and 1 act within groups of four words (bs_ortho4, cheap to run while loading or
 * storing); stages 32 and 16, then 8 and 4, run in pairs over the whole array
 * (bs_ortho_wide, loops over contiguous words that vectorize).
 */
BS_FN void bs_ortho4(uint64_t *w0, uint64_t *w1, uint64_t *w2, uint64_t *w3)
{
    bs_swapmove64(w2, w0, 0x3333333333333333ull, 2);
    bs_swapmove64(w3, w1, 0x3333333333333333ull, 2);
    bs_swapmove64(w1, w0, 0x5555555555555555ull, 1);
    bs_swapmove64(w3, w2, 0x5555555555555555ull, 1);
}

/* Two SWAPMOVE stages on four words: (a, c) and (b, d) by 2d, then (a, b) and (c, d) by d. */
BS_FN void bs_ortho2x2(uint64_t *a, uint64_t *b, uint64_t *c, uint64_t *d, unsigned n, uint64_t m2,
                       uint64_t m1)
{
    bs_swapmove64(c, a, m2, 2 * n);
    bs_swapmove64(d, b, m2, 2 * n);
    bs_swapmove64(b, a, m1, n);
    bs_swapmove64(d, c, m1, n);
}

BS_FN void bs_ortho_wide(uint64_t x[64])
{
    for (unsigned j = 0; j < 16; j++)
        bs_ortho2x2(&x[j], &x[j + 16], &x[j + 32], &x[j + 48], 16, 0x00000000ffffffffull,
                    0x0000ffff0000ffffull);
    for (unsigned i = 0; i < 64; i += 16)
        for (unsigned j = i; j < i + 4; j++)
            bs_ortho2x2(&x[j], &x[j + 4], &x[j + 8], &x[j + 12], 4, 0x00ff00ff00ff00ffull,
                        0x0f0f0f0f0f0f0f0full);
}

BS_FN void bs_transpose64(uint64_t x[64])
{
    for (unsigned g = 0; g < 64; g += 4)
        bs_ortho4(&x[g], &x[g + 1], &x[g + 2], &x[g + 3]);
    bs_ortho_wide(x);
}

BS_FN void bs_swapmove32(uint32_t *a, uint32_t *b, uint32_t m, unsigned n)
{
    uint32_t t = ((*b >> n) ^ *a) & m;
    *a ^= t;
    *b ^= t << n;
}

/*
 * Nibble slicing with SWAPMOVE, for the 32-bit PRESENT and GIFT variants (defined in
 * gift/gift_fix32.c): w[i] bit 4m + j -> s[j] bit 8i + m (w: a 128-bit block, or two 64-bit
 * blocks, as little-endian words).
 */
void bs_mcu_nibble_pack(uint32_t s[4], const uint32_t w[4]);
void bs_mcu_nibble_unpack(uint32_t w[4], const uint32_t s[4]);

#endif
