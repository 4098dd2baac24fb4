/*
 * speedy.h: SPEEDY-r-192 (Leander, Moos, Moradi, Rasoolzadeh, "The SPEEDY Family of Block
 * Ciphers", TCHES 2021(4)), r = 5, 6, 7, in the conventions of docs/spec/skinny-speedy.md: the
 * 24 bytes are the bits x[0..191], most significant first (x[0] = 0x80 of byte 0); row i is
 * x[6i..6i+5], x[6i] the most significant S-box input bit; column j is x[6i+j] over all rows.
 *
 * Two layouts share this header:
 *
 * 6x32 (speedy_bs32.c, one block): s[j], j = 0..5, holds column j; bit 31 - i of s[j] is
 *   x[6i + j] (row 0 is the most significant bit). The SubBox is then a Boolean network on the six
 *   words (bit-parallel over the 32 rows), ShiftColumns (y[i,j] = x[i+j, j]) is s[j] <<<= j and
 *   MixColumns (y[i,j] = XOR over a of x[i+a, j]) is XOR over a of s[j] <<< a, a in ALPHA.
 *   bs_speedy_pack32 / bs_speedy_unpack32 convert with SWAPMOVE (derivation at the function).
 *
 * 192x64 (speedy_bs64.c, 64 blocks): s[32 j + i] holds x[6i + j] of every lane (bit L of the
 *   word is lane L). ShiftColumns and MixColumns are index arithmetic and XORs of words.
 *
 * Key schedule: k_0 = key, k_{r+1}[n] = k_r[(7n + 1) mod 192]. Round keys as the cores use
 * them: rk_0 = k_0; rk_r = k_r ^ c_{r-1} for r = 1 .. R-1 (the round constant of the round
 * before is added with the next key); rk_R = k_R.
 *
 * Everything here is constant time: no table, no branch or index that depends on key or data.
 */
#ifndef BS_SPEEDY_H
#define BS_SPEEDY_H

#include "../bitslice.h"

#define BS_SPEEDY_BLOCK 24
#define BS_SPEEDY_MAX_ROUNDS 7
/* Key schedule sizes: rk_0 .. rk_R, packed 6 words each (bs32), or 192 lane masks (bs64). */
#define BS_SPEEDY_BS32_RK_WORDS (6 * (BS_SPEEDY_MAX_ROUNDS + 1))
#define BS_SPEEDY_BS64_RK_WORDS (192 * (BS_SPEEDY_MAX_ROUNDS + 1))

/*
 * c_r, r = 0..5: the 192-bit pieces of the fractional part of pi, most significant bit first
 * (c_0 = 243f6a88...: pi = 3.243f6a88... in hex). tests/kat/model/speedy_model.py computes them
 * from Machin's formula; the vectors check them.
 */
static const uint8_t bs_speedy_rc[BS_SPEEDY_MAX_ROUNDS - 1][BS_SPEEDY_BLOCK] = {
    {0x24, 0x3f, 0x6a, 0x88, 0x85, 0xa3, 0x08, 0xd3, 0x13, 0x19, 0x8a, 0x2e,
     0x03, 0x70, 0x73, 0x44, 0xa4, 0x09, 0x38, 0x22, 0x29, 0x9f, 0x31, 0xd0},
    {0x08, 0x2e, 0xfa, 0x98, 0xec, 0x4e, 0x6c, 0x89, 0x45, 0x28, 0x21, 0xe6,
     0x38, 0xd0, 0x13, 0x77, 0xbe, 0x54, 0x66, 0xcf, 0x34, 0xe9, 0x0c, 0x6c},
    {0xc0, 0xac, 0x29, 0xb7, 0xc9, 0x7c, 0x50, 0xdd, 0x3f, 0x84, 0xd5, 0xb5,
     0xb5, 0x47, 0x09, 0x17, 0x92, 0x16, 0xd5, 0xd9, 0x89, 0x79, 0xfb, 0x1b},
    {0xd1, 0x31, 0x0b, 0xa6, 0x98, 0xdf, 0xb5, 0xac, 0x2f, 0xfd, 0x72, 0xdb,
     0xd0, 0x1a, 0xdf, 0xb7, 0xb8, 0xe1, 0xaf, 0xed, 0x6a, 0x26, 0x7e, 0x96},
    {0xba, 0x7c, 0x90, 0x45, 0xf1, 0x2c, 0x7f, 0x99, 0x24, 0xa1, 0x99, 0x47,
     0xb3, 0x91, 0x6c, 0xf7, 0x08, 0x01, 0xf2, 0xe2, 0x85, 0x8e, 0xfc, 0x16},
    {0x63, 0x69, 0x20, 0xd8, 0x71, 0x57, 0x4e, 0x69, 0xa4, 0x58, 0xfe, 0xa3,
     0xf4, 0x93, 0x3d, 0x7e, 0x0d, 0x95, 0x74, 0x8f, 0x72, 0x8e, 0xb6, 0x58},
};

/* Bit n of a 192-bit string (x[0] = 0x80 of byte 0). Public index. */
BS_FN unsigned bs_speedy_bit(const uint8_t *b, unsigned n)
{
    return (b[n >> 3] >> (7 - (n & 7))) & 1u;
}

/* k <- the next key: k'[n] = k[(7n + 1) mod 192]. Fixed loop, public indices only. */
BS_FN void bs_speedy_key_next(uint8_t k[BS_SPEEDY_BLOCK])
{
    uint8_t t[BS_SPEEDY_BLOCK] = {0};
    for (unsigned n = 0; n < 192; n++)
        t[n >> 3] |= (uint8_t)(bs_speedy_bit(k, (7 * n + 1) % 192) << (7 - (n & 7)));
    memcpy(k, t, BS_SPEEDY_BLOCK);
    for (unsigned i = 0; i < BS_SPEEDY_BLOCK; i++)
        t[i] = 0;
}

/*
 * The round keys rk_0 .. rk_R as bytes (layout above): (R + 1) * 24 bytes.
 */
BS_FN void bs_speedy_round_keys(const uint8_t key[BS_SPEEDY_BLOCK], unsigned rounds, uint8_t *rk)
{
    uint8_t k[BS_SPEEDY_BLOCK];
    memcpy(k, key, BS_SPEEDY_BLOCK);
    for (unsigned r = 0; r <= rounds; r++) {
        for (unsigned i = 0; i < BS_SPEEDY_BLOCK; i++)
            rk[r * BS_SPEEDY_BLOCK + i] =
                (uint8_t)(k[i] ^ (r >= 1 && r < rounds ? bs_speedy_rc[r - 1][i] : 0));
        bs_speedy_key_next(k);
    }
    for (unsigned i = 0; i < BS_SPEEDY_BLOCK; i++)
        k[i] = 0;
}

/*
 * BS_SPEEDY_SUBBOX6(W, y0..y5, x0..x5): the SubBox on six bit-parallel words, x0 the most
 * significant input bit, y0 the most significant output bit; the y must be other variables than
 * the x. 54 operations
 * where and-not and or-not are single instructions (Thumb-2 BIC/ORN). Derived from the minimal
 * four-term sums of products of each output (the designers' two-level form), factored by hand
 * into multiplexers; the known-answer and reference tests check it against the table.
 *   y0 = x0 x1 ~x3 | x2 x3 x4 | x1 x4 x5 | x3 ~x5
 *   y1 = ~x2 x3 x5 | x0 x2 x5 | x3 ~x4 ~x5 | ~x0 x1 ~x3
 *   y2 = x2 ~x3 ~x4 | ~x0 ~x2 ~x5 | x0 ~x3 x4 | x0 x1 x3
 *   y3 = ~x0 x1 x3 | x0 ~x2 x5 | ~x0 x2 ~x3 | x0 x2 x4
 *   y4 = x0 ~x2 ~x4 | x0 ~x3 | ~x0 x4 x5 | x1 ~x2 ~x4
 *   y5 = x0 ~x1 x3 | x0 x1 x2 | x2 x5 | ~x1 ~x2 x4
 */
#define BS_SPEEDY_SUBBOX6(W, y0, y1, y2, y3, y4, y5, x0, x1, x2, x3, x4, x5)                       \
    do {                                                                                           \
        W t_, u_;                                                                                  \
        /* y0 = x3 (~x5 | x2 x4) | x1 (x0 ~x3 | x4 x5) */                                          \
        t_ = ((x3) & (~(x5) | ((x2) & (x4))));                                                     \
        u_ = (x1) & (((x0) & ~(x3)) | ((x4) & (x5)));                                              \
        (y0) = t_ | u_;                                                                            \
        /* y1 = x5 mux(x2: x0, x3) | x3 ~(x4 | x5) | x1 ~(x0 | x3) */                              \
        t_ = (x5) & ((x3) ^ (((x0) ^ (x3)) & (x2)));                                               \
        u_ = ((x3) & ~((x4) | (x5))) | ((x1) & ~((x0) | (x3)));                                    \
        (y1) = t_ | u_;                                                                            \
        /* y2 = x0 mux(x3: x1, x4) | x2 ~(x3 | x4) | ~(x0 | x2 | x5) */                            \
        t_ = (x0) & ((x4) ^ (((x1) ^ (x4)) & (x3)));                                               \
        u_ = (x2) & ~((x3) | (x4));                                                                \
        (y2) = (t_ | u_) | ~((x0) | (x2) | (x5));                                                  \
        /* y3 = mux(x0: mux(x2: x4, x5), mux(x3: x1, x2)) */                                       \
        t_ = (x2) ^ (((x1) ^ (x2)) & (x3));                                                        \
        u_ = (x5) ^ (((x4) ^ (x5)) & (x2));                                                        \
        (y3) = t_ ^ ((t_ ^ u_) & (x0));                                                            \
        /* y4 = (x0 | x1) ~(x2 | x4) | x0 ~x3 | x4 x5 ~x0 */                                       \
        t_ = (((x0) | (x1)) & ~((x2) | (x4))) | ((x0) & ~(x3));                                    \
        u_ = ((x4) & (x5)) & ~(x0);                                                                \
        (y4) = t_ | u_;                                                                            \
        /* y5 = x0 mux(x1: x2, x3) | x2 x5 | x4 ~(x1 | x2) */                                      \
        t_ = (x0) & ((x3) ^ (((x2) ^ (x3)) & (x1)));                                               \
        u_ = ((x2) & (x5)) | ((x4) & ~((x1) | (x2)));                                              \
        (y5) = t_ | u_;                                                                            \
    } while (0)

/* The same on arrays: y[0..5] from x[0..5]. */
#define BS_SPEEDY_SUBBOX(W, y, x)                                                                  \
    do {                                                                                           \
        const W x0_ = (x)[0], x1_ = (x)[1], x2_ = (x)[2], x3_ = (x)[3], x4_ = (x)[4],              \
                x5_ = (x)[5];                                                                      \
        BS_SPEEDY_SUBBOX6(W, (y)[0], (y)[1], (y)[2], (y)[3], (y)[4], (y)[5], x0_, x1_, x2_, x3_,   \
                          x4_, x5_);                                                               \
    } while (0)

BS_FN uint32_t bs_speedy_rol32(uint32_t x, unsigned n)
{
    return (x << (n & 31)) | (x >> ((32 - n) & 31));
}

/*
 * MixColumns on one column word of the 6x32 layout, without ShiftColumns' rotation:
 * XOR of x <<< a, a in {0, 1, 5, 9, 15, 21, 26}, as (1 + z^5)(1 + z^21) + z + z^9 + z^15 in
 * GF(2)[z]/(z^32 + 1) (z = rotate left by one): five rotate-and-XORs instead of six.
 */
BS_FN uint32_t bs_speedy_mix32(uint32_t x)
{
    uint32_t t = x ^ bs_speedy_rol32(x, 5);
    t ^= bs_speedy_rol32(t, 21);
    return t ^ bs_speedy_rol32(x, 1) ^ bs_speedy_rol32(x, 9) ^ bs_speedy_rol32(x, 15);
}

/*
 * 24 bytes <-> the 6x32 layout. Derivation. Bytes 3q .. 3q+2 hold rows 4q .. 4q+3 (four 6-bit
 * fields). Spread each 24-bit group v into a word whose byte p is the field of row 4q + 3 - p
 * (two masked shifts). Word 7 - q receives group q. Index the 256 bits of these eight words by
 * (w2 w1 w0 | b4 .. b0) (word, bit): then w = ~q, (b4 b3) = p, (b2 b1 b0) = k, where bit k of a
 * field is column 5 - k. The target index is (word of column 5 - k | 31 - i) with i = 4q + 3 - p,
 * i.e. bits (~q2 ~q1 ~q0 p1 p0) = (w2 w1 w0 b4 b3). Five SWAPMOVE stages, each exchanging a word
 * bit with a bit index, move them there: w2<->b4, w1<->b3, w0<->b2, w2<->b1, w1<->b0. The
 * words end as (k1 k0 k2): column 5 - k is word 4 k1 + 2 k0 + k2; words 5 and 7 (k = 6, 7) are
 * empty. Every stage is an involution, so unpacking runs them backwards.
 */
BS_FN uint32_t bs_speedy_spread24(uint32_t v)
{
    uint32_t t = v & 0x00fff000u;
    v = (v ^ t) | (t << 4);
    t = v & 0x0fc00fc0u;
    return (v ^ t) | (t << 2);
}

BS_FN uint32_t bs_speedy_unspread24(uint32_t v)
{
    uint32_t t = v & 0x3f003f00u;
    v = (v ^ t) | (t >> 2);
    t = v & 0x0fff0000u;
    return (v ^ t) | (t >> 4);
}

/* One stage: pairs (hi, lo) of words that differ in word bit d, exchanging bit index n. */
BS_FN void bs_speedy_stage32(uint32_t w[8], unsigned d, uint32_t m, unsigned n)
{
    for (unsigned lo = 0; lo < 8; lo++)
        if ((lo & d) == 0)
            bs_swapmove32(&w[lo | d], &w[lo], m, n);
}

#define BS_SPEEDY_M16 0x0000ffffu
#define BS_SPEEDY_M8 0x00ff00ffu
#define BS_SPEEDY_M4 0x0f0f0f0fu
#define BS_SPEEDY_M2 0x33333333u
#define BS_SPEEDY_M1 0x55555555u

/* Word of column j after the stages: k = 5 - j, word 4 k1 + 2 k0 + k2. */
#define BS_SPEEDY_COLWORD(j) (4 * (((5 - (j)) >> 1) & 1) + 2 * ((5 - (j)) & 1) + ((5 - (j)) >> 2))

BS_FN void bs_speedy_pack32(uint32_t s[6], const uint8_t *in)
{
    uint32_t w[8];
    for (unsigned q = 0; q < 8; q++) {
        const uint8_t *p = in + 3 * q;
        w[7 - q] =
            bs_speedy_spread24(((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | (uint32_t)p[2]);
    }
    bs_speedy_stage32(w, 4, BS_SPEEDY_M16, 16);
    bs_speedy_stage32(w, 2, BS_SPEEDY_M8, 8);
    bs_speedy_stage32(w, 1, BS_SPEEDY_M4, 4);
    bs_speedy_stage32(w, 4, BS_SPEEDY_M2, 2);
    bs_speedy_stage32(w, 2, BS_SPEEDY_M1, 1);
    for (unsigned j = 0; j < 6; j++)
        s[j] = w[BS_SPEEDY_COLWORD(j)];
}

BS_FN void bs_speedy_unpack32(uint8_t *out, const uint32_t s[6])
{
    uint32_t w[8] = {0};
    for (unsigned j = 0; j < 6; j++)
        w[BS_SPEEDY_COLWORD(j)] = s[j];
    bs_speedy_stage32(w, 2, BS_SPEEDY_M1, 1);
    bs_speedy_stage32(w, 4, BS_SPEEDY_M2, 2);
    bs_speedy_stage32(w, 1, BS_SPEEDY_M4, 4);
    bs_speedy_stage32(w, 2, BS_SPEEDY_M8, 8);
    bs_speedy_stage32(w, 4, BS_SPEEDY_M16, 16);
    for (unsigned q = 0; q < 8; q++) {
        uint32_t v = bs_speedy_unspread24(w[7 - q]);
        out[3 * q] = (uint8_t)(v >> 16);
        out[3 * q + 1] = (uint8_t)(v >> 8);
        out[3 * q + 2] = (uint8_t)v;
    }
}

/*
 * The 6x32 variant's entry points (speedy_bs32.c): one block with rk from its key schedule
 * (6 words per round key, rk_0 .. rk_R), and its components for the benchmark.
 */
void bs_speedy_bs32_block(const uint32_t *rk, unsigned rounds, uint8_t *out, const uint8_t *in);
void bs_speedy_bs32_pack(uint32_t s[6], const uint8_t *in);
void bs_speedy_bs32_unpack(uint8_t *out, const uint32_t s[6]);
void bs_speedy_bs32_subbox(uint32_t s[6]);
void bs_speedy_bs32_shiftcolumns(uint32_t s[6]);
void bs_speedy_bs32_mixcolumns(uint32_t s[6]);
void bs_speedy_bs32_addroundkey(uint32_t s[6], const uint32_t rk[6]);
/* The 64-lane variant's key schedule (speedy_bs64.c): lane masks, 192 words per round key. */
void bs_speedy_bs64_set_key(uint64_t *m, const uint8_t *key, unsigned rounds);

/*
 * The SPEEDY-r-192 implementations, and the folder's lists of them for bs_registry.c, best first:
 * BS_SPEEDY_IMPLS the host's, BS_SPEEDY_MCU_IMPLS the 32-bit MCU variants (empty where not built).
 */
#ifdef __cplusplus
extern "C" {
#endif
/* The wide x86 cores, bs_<variant>_<level> for each level of BS_X86_WIDE_LEVELS. */
#define BS_SPEEDY_X86_DECLARE(level)                                                               \
    extern const bs_block_cipher bs_speedy7_##level, bs_speedy6_##level, bs_speedy5_##level;
BS_X86_WIDE_LEVELS(BS_SPEEDY_X86_DECLARE)
extern const bs_block_cipher bs_speedy7_bs64;
extern const bs_block_cipher bs_speedy6_bs64;
extern const bs_block_cipher bs_speedy5_bs64;
extern const bs_block_cipher bs_speedy7_bs32;
extern const bs_block_cipher bs_speedy6_bs32;
extern const bs_block_cipher bs_speedy5_bs32;
#ifdef __cplusplus
}
#endif
#if defined(BS_HAVE_SPEEDY) && defined(BS_HAVE_X86)
#define BS_SPEEDY_X86_IMPL(level) &bs_speedy7_##level, &bs_speedy6_##level, &bs_speedy5_##level,
#define BS_SPEEDY_X86_IMPLS BS_X86_WIDE_LEVELS(BS_SPEEDY_X86_IMPL)
#else
#define BS_SPEEDY_X86_IMPLS
#endif
#ifdef BS_HAVE_SPEEDY
#define BS_SPEEDY_IMPLS BS_SPEEDY_X86_IMPLS &bs_speedy7_bs64, &bs_speedy6_bs64, &bs_speedy5_bs64,
#else
#define BS_SPEEDY_IMPLS
#endif
#if defined(BS_HAVE_SPEEDY) || defined(BS_HAVE_MCU_SPEEDY)
#define BS_SPEEDY_MCU_IMPLS &bs_speedy7_bs32, &bs_speedy6_bs32, &bs_speedy5_bs32,
#else
#define BS_SPEEDY_MCU_IMPLS
#endif

#endif
