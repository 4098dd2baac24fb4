/*
 * rijndael256_ct2.h: Rijndael-256 on two blocks at once in eight uint64_t words, for short
 * calls, where a full bitsliced pass (rijndael256.h) would mostly encrypt padding. Constant-time:
 * straight-line logic; only the public block count decides branches.
 *
 * Layout (byte-sliced, as in rijndael256_ct32.c but two blocks wide): q[j] bit 16r + 8b + c holds
 * bit j of state[r][c] (= byte r + 4c) of block b. So row r is the 16-bit lane r of every word,
 * the row below is the word rotated right by 16, ShiftRows rotates each 8-bit column field of
 * row r right by its offset (0, 1, 3, 4), and the S-box circuit of rijndael256.h (without the
 * constant 0x63, folded into round keys 1..14 as there) runs on the eight words directly.
 *
 * Packing: word c of each block (little-endian: byte lane r = row r) gives x_c = column c of
 * block 0 | column c of block 1 << 32, byte 4b + r; two byte swaps move byte 4b + r to 2r + b,
 * then an 8x8 bit transpose per byte lane across the eight words moves bit j of x_c to bit c
 * of q[j]. Unpacking undoes the two steps (the byte swaps in reverse order).
 */
#ifndef BS_RIJNDAEL256_CT2_H
#define BS_RIJNDAEL256_CT2_H

#include "../bitslice.h"
#include "rijndael256.h"

/* Round keys: 8 words per round, both halves holding the same round key. */
#define BS_R256_CT2_RK_WORDS ((BS_R256_ROUNDS + 1) * 8)

/* Swaps the bits of x at positions m with those at positions m << n. */
BS_FN uint64_t bs_r256_ct2_swap(uint64_t x, uint64_t m, unsigned n)
{
    const uint64_t t = ((x >> n) ^ x) & m;
    return x ^ t ^ (t << n);
}

/* The 8x8 bit transpose in each byte lane across the eight words; its own inverse. */
BS_FN void bs_r256_ct2_transpose(uint64_t *q)
{
    for (int i = 0; i < 8; i += 2)
        bs_swapmove64(&q[i + 1], &q[i], 0x5555555555555555ull, 1);
    for (int i = 0; i < 8; i += 4)
        for (int k = i; k < i + 2; k++)
            bs_swapmove64(&q[k + 2], &q[k], 0x3333333333333333ull, 2);
    for (int k = 0; k < 4; k++)
        bs_swapmove64(&q[k + 4], &q[k], 0x0F0F0F0F0F0F0F0Full, 4);
}

/* Packs blocks a and b (32 bytes each, any alignment). */
BS_FN void bs_r256_ct2_pack(uint64_t *q, const uint8_t *a, const uint8_t *b)
{
    for (int c = 0; c < 8; c++) { /* byte 4b + r -> 2r + b */
        const uint64_t lo = bs_load_le32(a + 4 * c), hi = bs_load_le32(b + 4 * c);
        const uint64_t x = lo | hi << 32;
        q[c] = bs_r256_ct2_swap(bs_r256_ct2_swap(x, 0x00000000FFFF0000ull, 16),
                                0x0000FF000000FF00ull, 8);
    }
    bs_r256_ct2_transpose(q);
}

/* The inverse of bs_r256_ct2_pack; b may be NULL (block 1 dropped). q is clobbered. */
BS_FN void bs_r256_ct2_unpack(uint8_t *a, uint8_t *b, uint64_t *q)
{
    bs_r256_ct2_transpose(q);
    for (int c = 0; c < 8; c++) { /* byte 2r + b -> 4b + r */
        const uint64_t x = bs_r256_ct2_swap(bs_r256_ct2_swap(q[c], 0x0000FF000000FF00ull, 8),
                                            0x00000000FFFF0000ull, 16);
        bs_store_le32(a + 4 * c, (uint32_t)x);
        if (b)
            bs_store_le32(b + 4 * c, (uint32_t)(x >> 32));
    }
}

/* The rounds for one uint64_t pair of blocks (rijndael256_ct2_rounds.inc.h): bs_r256_ct2_*. */
#define BS_W uint64_t
#define BS_SFX ct2
#include "rijndael256_ct2_rounds.inc.h"
#undef BS_W
#undef BS_SFX

/*
 * Four blocks in a pair of uint64_t lanes (blocks 0, 1 in lane 0; 2, 3 in lane 1), where GCC
 * or clang vector extensions map them to 128-bit registers. BS_R256_CT4 says it is there.
 */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) &&                           \
    (defined(__SSE2__) || defined(__ARM_NEON))
#define BS_R256_CT4 1
typedef uint64_t bs_r256_v2 __attribute__((vector_size(16)));
#define BS_W bs_r256_v2
#define BS_SFX ct4
#include "rijndael256_ct2_rounds.inc.h"
#undef BS_W
#undef BS_SFX

BS_FN void bs_r256_ct4_pack(bs_r256_v2 *q, const uint8_t *in)
{
    uint64_t a[8], b[8];
    bs_r256_ct2_pack(a, in, in + BS_R256_BLOCK);
    bs_r256_ct2_pack(b, in + 2 * BS_R256_BLOCK, in + 3 * BS_R256_BLOCK);
    for (int j = 0; j < 8; j++) {
        const bs_r256_v2 x = {a[j], b[j]};
        q[j] = x;
    }
    bs_wipe(a, sizeof a);
    bs_wipe(b, sizeof b);
}

BS_FN void bs_r256_ct4_unpack(uint8_t *out, const bs_r256_v2 *q)
{
    uint64_t a[8], b[8];
    for (int j = 0; j < 8; j++) {
        a[j] = q[j][0];
        b[j] = q[j][1];
    }
    bs_r256_ct2_unpack(out, out + BS_R256_BLOCK, a);
    bs_r256_ct2_unpack(out + 2 * BS_R256_BLOCK, out + 3 * BS_R256_BLOCK, b);
    bs_wipe(a, sizeof a);
    bs_wipe(b, sizeof b);
}
#endif

/* Round keys from the expanded key (bs_r256_key_expand), constant 0x63 folded in as above. */
BS_FN void bs_r256_ct2_key(uint64_t *rk, const uint8_t *w)
{
    for (int round = 0; round <= BS_R256_ROUNDS; round++) {
        uint8_t k[BS_R256_BLOCK];
        for (int p = 0; p < BS_R256_BLOCK; p++)
            k[p] = (uint8_t)(w[BS_R256_BLOCK * round + p] ^ (round ? 0x63 : 0));
        bs_r256_ct2_pack(rk + 8 * round, k, k);
        bs_wipe(k, sizeof k);
    }
}

#endif
