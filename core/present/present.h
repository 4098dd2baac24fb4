/*
 * present.h: bitsliced PRESENT (Bogdanov et al., CHES 2007), shared by the host cores, the CUDA
 * kernels and the MCU builds. C/C++ common subset; every function is BS_FN.
 *
 * Bitsliced state: 64 words x[0..63] of a word type T (uint64_t on the host: 64 lanes; uint32_t
 * on the GPU and on 32-bit MCUs: 32 lanes). Lane l (bit l of every word) is block l of the batch.
 * A block is the big-endian integer of its 8 bytes and bit i is 2^i (docs/spec/algorithms.md),
 * so after packing, bit l of x[i] is bit i of block l: x[0] holds the least significant bits,
 * x[63] the most significant ones. Packing is a 64x64 (host) or two 32x32 (32-lane) bit-matrix
 * transposes.
 *
 * pLayer as renaming. Write a bit index as three base-4 digits, i = 16 d2 + 4 d1 + d0. The
 * pLayer P(i) = 16 i mod 63 (P(63) = 63) is then the digit rotation (d2, d1, d0) -> (d0, d2, d1),
 * a left rotation of the 6-bit index by 4, and P^3 = id. The words never move: after r rounds,
 * logical bit i lives in word BS_PRESENT_POS(r mod 3, i) = rotl6(i, 2 (r mod 3)). S-box j of a
 * round reads and writes the words holding logical bits 4j+3 .. 4j, so only the word indices of
 * the S-box layer and of the round keys depend on r mod 3. S-box j = 4 jh + jl, input bit b:
 *   phase 0: word 4 j + b            (stride 4: scalar code)
 *   phase 1: word 16 jl + 4 b + jh   (runs of 4 S-boxes with contiguous words: SIMD-friendly)
 *   phase 2: word 16 b + j           (one run of 16 S-boxes: SIMD-friendly)
 * After the 31 rounds (31 mod 3 = 1), logical bit i of the ciphertext is in word
 * BS_PRESENT_POS(1, i).
 *
 * Round keys: 32 round keys K1..K32 (64-bit integers, from the constant-time schedules below)
 * are expanded to lane masks, rk[64 r + BS_PRESENT_POS(r mod 3, i)] = all ones if bit i of K(r+1)
 * is set. The S-box used in the rounds (bs_present_sbox_n_*) returns output bits 3 and 2
 * complemented; after the pLayer these land exactly on bits 63..32, so the expansion complements
 * bits 63..32 of K2..K32 to cancel them (a free NOT, one gate less where AND-NOT exists).
 */
#ifndef BS_PRESENT_H
#define BS_PRESENT_H

#include "../bitslice.h"

#define BS_PRESENT_ROUNDS 31
/* Round keys, including the final whitening key K32. */
#define BS_PRESENT_ROUND_KEYS 32

/* Word holding logical state bit i (0..63) after r rounds, phase = r mod 3. */
#define BS_PRESENT_POS(phase, i) ((((i) << (2 * (phase))) | ((i) >> (6 - 2 * (phase)))) & 63)

/* Bits 63..32 of K2..K32 that cancel the two complemented S-box outputs of the previous round. */
#define BS_PRESENT_KEY_NOT 0xffffffff00000000ULL
/*
 * Compact round keys (export_round_keys; the CUDA kernels' key): 64-bit key r (r = 0..31) in
 * words 2r (bits 31..0) and 2r + 1 (bits 63..32), exactly as expanded: K(r+1), with bits 63..32
 * complemented (BS_PRESENT_KEY_NOT) for r > 0.
 */
#define BS_PRESENT_COMPACT_WORDS (2 * BS_PRESENT_ROUND_KEYS)

/*
 * The PRESENT S-box S = C56B90AD3EF84712 as a known 14-gate circuit from the literature on
 * small S-box circuits (Courtois et al.), checked through the cores against the table
 * reference. x3 is the most significant input bit, y3 the most significant output bit. Each line
 * below and in the two S-box functions is a function of at most three earlier values, so the
 * complemented-output form is 9 LOP3 instructions on a GPU.
 */
#define BS_PRESENT_SBOX_BODY(T)                                                                    \
    T t1 = x1 ^ x2;                                                                                \
    T t3 = x3 ^ (x2 & t1);                                                                         \
    T y0 = x0 ^ t3;                                                                                \
    T t5 = t1 ^ y0;                                                                                \
    T t6 = (t1 & t3) ^ x2;                                                                         \
    T y1 = t5 ^ (x0 | t6);                                                                         \
    T u = t6 ^ x0

/* S-box j of a round in phase ph, on the words of logical bits 4j+3 .. 4j. */
#define BS_PRESENT_SB(SFX, x, k, ph, j)                                                            \
    bs_present_sbox_key_##SFX(x, k, BS_PRESENT_POS(ph, 4 * (j) + 3),                               \
                              BS_PRESENT_POS(ph, 4 * (j) + 2), BS_PRESENT_POS(ph, 4 * (j) + 1),    \
                              BS_PRESENT_POS(ph, 4 * (j)))

/* The 16 S-boxes of a round, unrolled so that every word index is a constant. */
#define BS_PRESENT_SBOX_LAYER(SFX, x, k, ph)                                                       \
    BS_PRESENT_SB(SFX, x, k, ph, 0);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 1);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 2);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 3);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 4);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 5);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 6);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 7);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 8);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 9);                                                               \
    BS_PRESENT_SB(SFX, x, k, ph, 10);                                                              \
    BS_PRESENT_SB(SFX, x, k, ph, 11);                                                              \
    BS_PRESENT_SB(SFX, x, k, ph, 12);                                                              \
    BS_PRESENT_SB(SFX, x, k, ph, 13);                                                              \
    BS_PRESENT_SB(SFX, x, k, ph, 14);                                                              \
    BS_PRESENT_SB(SFX, x, k, ph, 15)

/*
 * present_rounds.inc.h (below) defines, for word type BS_W and name suffix BS_SFX:
 *   bs_present_sbox_SFX(&x3, &x2, &x1, &x0)     the exact S-box, in place;
 *   bs_present_sbox_n_SFX(&x3, &x2, &x1, &x0)   the same with outputs 3 and 2 complemented (13
 *                                               gates when AND-NOT is one instruction);
 *   bs_present_roundP_SFX(x, rk), P = 0, 1, 2   AddRoundKey + sBoxLayer in phase P (the pLayer
 *                                               is the move to phase P + 1 mod 3);
 *   bs_present_rounds_SFX(x, rk)                all 31 rounds and the final key;
 *   bs_present_expand_keys_SFX(rk, K)           K[0..31] -> 32 * 64 lane masks of type BS_W.
 */
#define BS_W uint64_t
#define BS_SFX u64
#include "present_rounds.inc.h"
#undef BS_W
#undef BS_SFX
#define BS_W uint32_t
#define BS_SFX u32
#include "present_rounds.inc.h"
#undef BS_W
#undef BS_SFX

/* The S-box on the low nibble of v, constant-time (the circuit on single bits). */
BS_FN uint64_t bs_present_sbox_nibble(uint64_t v)
{
    uint64_t x3 = v >> 3, x2 = v >> 2, x1 = v >> 1, x0 = v;
    bs_present_sbox_u64(&x3, &x2, &x1, &x0);
    return ((x3 & 1) << 3) | ((x2 & 1) << 2) | ((x1 & 1) << 1) | (x0 & 1);
}

/*
 * The key registers, one round key at a time: load, then K(i) = bs_present_key_get before
 * update i. The 32-bit core slices each key as it comes (no table of 32 keys to wipe); the
 * round_keys functions below fill the table. In both registers hi is the round key itself.
 *
 * PRESENT-80 (paper, section 3): the 80-bit register k79..k0 is hi (k79..k16) and lo (k15..k0,
 * 16 bits). K(i) = k79..k16; then rotate left by 61, S-box on k79..k76, k19..k15 ^= i. key: 10
 * bytes, k79 first.
 */
typedef struct bs_present_key_reg {
    uint64_t hi, lo;
} bs_present_key_reg;

BS_FN uint64_t bs_present_key_get(const bs_present_key_reg *r)
{
    return r->hi;
}

BS_FN void bs_present80_key_load(bs_present_key_reg *r, const uint8_t *key)
{
    r->hi = bs_load_be64(key);
    r->lo = ((uint64_t)key[8] << 8) | key[9];
}

BS_FN void bs_present80_key_update(bs_present_key_reg *r, unsigned i)
{
    const uint64_t hi = r->hi, lo = r->lo;
    /* rotate left by 61 = right by 19 over 80 bits: k18..k0 (hi's low 3 bits, lo) go on top */
    uint64_t nhi = (hi >> 19) | (lo << 45) | ((hi & 7) << 61);
    nhi = (nhi & 0x0fffffffffffffffULL) | (bs_present_sbox_nibble(nhi >> 60) << 60);
    /* k19..k16 are hi's low 4 bits, k15 is lo's top bit */
    r->hi = nhi ^ (i >> 1);
    r->lo = ((hi >> 3) & 0xffff) ^ ((uint64_t)(i & 1) << 15);
}

/*
 * PRESENT-128 (paper, appendix II): register k127..k0 = hi, lo. K(i) = hi; then rotate left by
 * 61, S-box on k127..k124 and k123..k120, k66..k62 ^= i. key: 16 bytes, k127 first.
 */
BS_FN void bs_present128_key_load(bs_present_key_reg *r, const uint8_t *key)
{
    r->hi = bs_load_be64(key);
    r->lo = bs_load_be64(key + 8);
}

BS_FN void bs_present128_key_update(bs_present_key_reg *r, unsigned i)
{
    const uint64_t hi = r->hi, lo = r->lo;
    uint64_t nhi = (hi << 61) | (lo >> 3);
    r->lo = ((lo << 61) | (hi >> 3)) ^ ((uint64_t)(i & 3) << 62);
    nhi = (nhi & 0x00ffffffffffffffULL) | (bs_present_sbox_nibble(nhi >> 60) << 60) |
          (bs_present_sbox_nibble(nhi >> 56) << 56);
    r->hi = nhi ^ ((uint64_t)i >> 2);
}

/* All 32 round keys K(1..32) into K. */
BS_FN void bs_present80_round_keys(uint64_t *K, const uint8_t *key)
{
    bs_present_key_reg r;
    bs_present80_key_load(&r, key);
    for (unsigned i = 1; i <= BS_PRESENT_ROUND_KEYS; i++) {
        K[i - 1] = bs_present_key_get(&r);
        bs_present80_key_update(&r, i);
    }
}

BS_FN void bs_present128_round_keys(uint64_t *K, const uint8_t *key)
{
    bs_present_key_reg r;
    bs_present128_key_load(&r, key);
    for (unsigned i = 1; i <= BS_PRESENT_ROUND_KEYS; i++) {
        K[i - 1] = bs_present_key_get(&r);
        bs_present128_key_update(&r, i);
    }
}

/*
 * Transpose of a 64x64 bit matrix (word = row, bit = column): bit l of v[i] and bit i of v[l]
 * trade places. Each stage pairs rows k and k + 32 (k < 32), swaps their columns across the
 * column-index bit of weight s with SWAPMOVE, and writes the two rows to 2k and 2k + 1: the row
 * index rotates left by one bit per stage, so stage t pairs original row-index bit 5 - t with
 * column bit 5 - t (s = 32, 16, ..., 1), and after six stages the rows are back in order. Every
 * stage is one loop over contiguous words, which compilers vectorize.
 */
BS_FN void bs_present_transpose64_stage(uint64_t *w, const uint64_t *v, unsigned s, uint64_t m)
{
    for (unsigned k = 0; k < 32; k++) {
        uint64_t hi = v[k + 32], lo = v[k];
        uint64_t t = ((lo >> s) ^ hi) & m;
        w[2 * k] = lo ^ (t << s);
        w[2 * k + 1] = hi ^ t;
    }
}

/* In place; w is scratch space of 64 words. */
BS_FN void bs_present_transpose64(uint64_t *v, uint64_t *w)
{
    bs_present_transpose64_stage(w, v, 32, 0x00000000ffffffffULL);
    bs_present_transpose64_stage(v, w, 16, 0x0000ffff0000ffffULL);
    bs_present_transpose64_stage(w, v, 8, 0x00ff00ff00ff00ffULL);
    bs_present_transpose64_stage(v, w, 4, 0x0f0f0f0f0f0f0f0fULL);
    bs_present_transpose64_stage(w, v, 2, 0x3333333333333333ULL);
    bs_present_transpose64_stage(v, w, 1, 0x5555555555555555ULL);
}

/*
 * In-place transpose of a 32x32 matrix of 32-bit words. Stage j swaps index bit j between row
 * and column: rows k with bit j clear trade their columns with bit j set against the columns
 * with it clear of row k + j.
 */
BS_FN void bs_present_transpose32_stage(uint32_t *v, unsigned j, uint32_t m)
{
    for (unsigned k0 = 0; k0 < 32; k0 += 2 * j)
        for (unsigned k = k0; k < k0 + j; k++)
            bs_swapmove32(&v[k + j], &v[k], m, j);
}

BS_FN void bs_present_transpose32(uint32_t *v)
{
    bs_present_transpose32_stage(v, 16, 0x0000ffffu);
    bs_present_transpose32_stage(v, 8, 0x00ff00ffu);
    bs_present_transpose32_stage(v, 4, 0x0f0f0f0fu);
    bs_present_transpose32_stage(v, 2, 0x33333333u);
    bs_present_transpose32_stage(v, 1, 0x55555555u);
}

/*
 * 32-lane packing: x[i] bit l = bit i of blk[l] (l < 32), blk[] being blocks as integers.
 * Unpacking takes x after the rounds (logical bit i in word BS_PRESENT_POS(1, i)).
 */
BS_FN void bs_present_pack_u32(uint32_t *x, const uint64_t *blk)
{
    for (unsigned l = 0; l < 32; l++) {
        x[l] = (uint32_t)blk[l];
        x[32 + l] = (uint32_t)(blk[l] >> 32);
    }
    bs_present_transpose32(x);
    bs_present_transpose32(x + 32);
}

BS_FN void bs_present_unpack_u32(uint64_t *blk, const uint32_t *x)
{
    uint32_t lo[32], hi[32];
    for (unsigned i = 0; i < 32; i++) {
        lo[i] = x[BS_PRESENT_POS(1, i)];
        hi[i] = x[BS_PRESENT_POS(1, 32 + i)];
    }
    bs_present_transpose32(lo);
    bs_present_transpose32(hi);
    for (unsigned l = 0; l < 32; l++)
        blk[l] = ((uint64_t)hi[l] << 32) | lo[l];
}

/*
 * The 32-bit MCU variant (present_bs32.c): two blocks, rk 4 words per round key, 32 round
 * keys, kept at the start of its bs_key_schedule (core/meson.build sizes BS_KS_MAX from it in
 * a build without the 64-lane cores).
 */
#define BS_PRESENT_BS32_RK_WORDS (4 * 32)
void bs_present_bs32_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);

/*
 * The PRESENT implementations, and the folder's lists of them for bs_registry.c, best first:
 * BS_PRESENT_IMPLS the host's, BS_PRESENT_MCU_IMPLS the 32-bit MCU variants (empty where not
 * built).
 */
#ifdef __cplusplus
extern "C" {
#endif
/* The wide x86 cores, bs_<variant>_<level> for each level of BS_X86_WIDE_LEVELS. */
#define BS_PRESENT_X86_DECLARE(level)                                                              \
    extern const bs_block_cipher bs_present80_##level, bs_present128_##level;
BS_X86_WIDE_LEVELS(BS_PRESENT_X86_DECLARE)
extern const bs_block_cipher bs_present80_bs64;
extern const bs_block_cipher bs_present128_bs64;
extern const bs_block_cipher bs_present80_bs32;
extern const bs_block_cipher bs_present128_bs32;
#ifdef __cplusplus
}
#endif
#if defined(BS_HAVE_PRESENT) && defined(BS_HAVE_X86)
#define BS_PRESENT_X86_IMPL(level) &bs_present80_##level, &bs_present128_##level,
#define BS_PRESENT_X86_IMPLS BS_X86_WIDE_LEVELS(BS_PRESENT_X86_IMPL)
#else
#define BS_PRESENT_X86_IMPLS
#endif
#ifdef BS_HAVE_PRESENT
#define BS_PRESENT_IMPLS BS_PRESENT_X86_IMPLS &bs_present80_bs64, &bs_present128_bs64,
#else
#define BS_PRESENT_IMPLS
#endif
#if defined(BS_HAVE_PRESENT) || defined(BS_HAVE_MCU_PRESENT)
#define BS_PRESENT_MCU_IMPLS &bs_present80_bs32, &bs_present128_bs32,
#else
#define BS_PRESENT_MCU_IMPLS
#endif

#endif
