/*
 * skinny.h: bitsliced SKINNY-128-128, -256 and -384 (Beierle, Jean, Kölbl, Leander, Moradi,
 * Peyrin, Sasaki, Sasdrich, Sim, "The SKINNY Family of Block Ciphers and Its Low-Latency Variant
 * MANTIS", CRYPTO 2016), with the conventions of docs/spec/skinny-speedy.md: byte i of the block is
 * cell i of the 4x4 state, row by row (row r = bytes 4r..4r+3, column c = byte 4r+c); x7 is the
 * most significant bit of a cell. The key is the whole tweakey TK1 || TK2 || TK3 (16, 32 or 48
 * bytes: 40, 48 or 56 rounds).
 *
 * Both cores keep the state COMPLEMENTED between rounds (w = ~v). The S-box's four NOR steps
 * x ^= ~(a | b) then become x ^= a & b on complemented bits (~(v ^ ~(a | b)) = ~v ^ (~a & ~b)),
 * 16 logic operations per S-box, and its output comes out complemented too. MixColumns keeps
 * that polarity if row 1 enters it uncomplemented: the round tweakey words of row 1 are stored
 * complemented, so the key addition flips it for free, and row 3's output (a0 ^ a2 of two
 * complemented rows) takes one NOT (bs64) or a BIC in place of an AND (fix32).
 *
 * bs64 layout (skinny_bs64.c, 64 blocks per pass): s[16 b + i] is a uint64_t whose bit L is bit b
 * (0 = least significant) of cell i of the block in lane L. The 16 cells of one bit plane are
 * contiguous, so the S-box and key addition loops run over cells. ShiftRows is index renaming
 * inside the MixColumns pass. Round tweakeys: BS_SKINNY_BS64_RK_WORDS = 64 lane masks per round,
 * m[8 b + i] = bit b of rtk cell i (i < 8, rows 0 and 1), all-zero or all-one, row 1's
 * complemented.
 *
 * fix32 layout (skinny_fix32.c, two blocks per call, Adomnicai-Peyrin fixslicing): eight words
 * w[b], b = bit of the cell; bit 8p + 2s + k of w[b] holds bit b of block k's cell in physical
 * column p and slot s. In the standard representation slot s is row s and column p is column p.
 * ShiftRows is never computed: after round t, logical row i sits in slot SIGMA_t(i) and its
 * column j in physical column (j + O_t(i)) mod 4, and MixColumns' three row XORs are each one
 * rotation by a constant plus a mask (AND/BIC with a rotated operand on Thumb-2). The mapping
 * repeats its rotation amounts every 4 rounds (four round variants) and is the identity again
 * after 8 rounds, so 40, 48 and 56 rounds end in the standard representation. The round
 * tweakeys are stored in the representation of their round (8 words per round). Derivation:
 * with d = 8 (O(a) - O(b)) + 2 (SIGMA(a) - SIGMA(b)), "row a ^= row b" is
 * w ^= rotl(w, d) & slotmask(SIGMA(a)); see skinny_fix32.c.
 *
 * Tweakey schedule (both): bs_skinny_tweakey_schedule computes, per round, the 8 bytes that
 * rows 0 and 1 take (TK1 ^ TK2 ^ TK3, with the round constant folded into cells 0 and 4); the
 * constant 0x2 of cell 8 is added by the cores. Byte permutations by fixed indices and LFSRs by
 * shifts: constant time.
 *
 * x86 SIMD seam: a wider implementation of the bs64 layout (AVX2 or AVX-512 words, more lanes
 * per word: skinny_wide.inc.h, used by skinny_avx512.c and skinny_avx2.c) shares
 * BS_SKINNY_SBOX_STEPS (any word type), bs_skinny_tweakey_schedule and the lane-mask round
 * tweakeys, names its CPU level (bs_block_cipher.level) and goes before the bs64 entries in
 * bs_block_ciphers, so bs_block_cipher_by_name picks it where the CPU level allows and every
 * generic test runs it against the same references.
 *
 * Everything here is constant time: no table, no branch or index that depends on key or data.
 */
#ifndef BS_SKINNY_H
#define BS_SKINNY_H

#include "../bitslice.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BS_SKINNY_MAX_ROUNDS 56
#define BS_SKINNY_BS64_RK_WORDS 64 /* uint64_t lane masks per round */
#define BS_SKINNY_FIX32_RK_WORDS 8 /* uint32_t words per round */

/* Rounds for a tweakey of key_len bytes (16, 32, 48): public. */
BS_FN unsigned bs_skinny_rounds(unsigned key_len)
{
    return key_len <= 16 ? 40 : key_len <= 32 ? 48 : 56;
}

/* The round-constant LFSR: (c5..c0) <- (c4..c0, c5 ^ c4 ^ 1), from 0; round 1 uses 0x01. */
BS_FN unsigned bs_skinny_rc_next(unsigned c)
{
    return ((c << 1) & 0x3e) | (((c >> 5) ^ (c >> 4) ^ 1) & 1);
}

/*
 * rtk[8 r + i], r < bs_skinny_rounds(key_len), i < 8: what cell i of round r's state takes in
 * AddConstants and AddRoundTweakey, except cell 8's constant 0x2 (added by the cores).
 */
BS_FN void bs_skinny_tweakey_schedule(const uint8_t *key, unsigned key_len, uint8_t *rtk)
{
    static const uint8_t pt[16] = {9, 15, 8, 13, 10, 14, 12, 11, 0, 1, 2, 3, 4, 5, 6, 7};
    uint8_t tk[3][16], t[16];
    unsigned z = key_len / 16, rounds = bs_skinny_rounds(key_len), c = 0;
    memset(tk, 0, sizeof tk);
    memcpy(tk, key, 16 * z);
    for (unsigned r = 0; r < rounds; r++) {
        c = bs_skinny_rc_next(c);
        for (unsigned i = 0; i < 8; i++)
            rtk[8 * r + i] = (uint8_t)(tk[0][i] ^ tk[1][i] ^ tk[2][i]);
        rtk[8 * r] ^= (uint8_t)(c & 0xf);
        rtk[8 * r + 4] ^= (uint8_t)(c >> 4);
        for (unsigned p = 0; p < z; p++) {
            for (unsigned i = 0; i < 16; i++)
                t[i] = tk[p][pt[i]];
            memcpy(tk[p], t, 16);
        }
        for (unsigned i = 0; i < 8; i++) {
            uint8_t x2 = tk[1][i], x3 = tk[2][i];
            tk[1][i] = (uint8_t)((x2 << 1) | (((x2 >> 7) ^ (x2 >> 5)) & 1));
            tk[2][i] = (uint8_t)((x3 >> 1) | ((((x3 >> 0) ^ (x3 >> 6)) & 1) << 7));
        }
    }
    /* a 16- or 32-byte key leaves tk[1] or tk[2] zero; their LFSRs keep zero at zero */
    bs_wipe(tk, sizeof tk);
    bs_wipe(t, sizeof t);
}

/*
 * The S-box on complemented bits (layout comment above): x[b] is bit b of a cell, complemented,
 * in any word type. Four steps of two AND-XORs, then the output bits come out renamed:
 * y = (x2, x7, x6, x1, x3, x0, x4, x5) for bits 0..7, still complemented. Checked against the
 * published vectors and the byte-wise reference (tests/unit).
 *
 * BS_SKINNY_SBOX_STEPS_BY(F, ...) is the list of steps with F(x, a, b) for "x ^= NOR(a, b)" in
 * whatever polarity the caller keeps: F = BS_SKINNY_ANDX is the complemented form above; a core
 * with three-input logic keeps the bits uncomplemented and makes each step one VPTERNLOGQ
 * (skinny_wide.inc.h). Same output renaming.
 */
#define BS_SKINNY_ANDX(x, a, b) ((x) ^= (a) & (b))
#define BS_SKINNY_SBOX_STEPS_BY(F, x0, x1, x2, x3, x4, x5, x6, x7)                                 \
    do {                                                                                           \
        F(x4, x7, x6);                                                                             \
        F(x0, x3, x2);                                                                             \
        F(x6, x2, x1);                                                                             \
        F(x5, x4, x0);                                                                             \
        F(x1, x0, x3);                                                                             \
        F(x7, x6, x5);                                                                             \
        F(x3, x5, x4);                                                                             \
        F(x2, x1, x7);                                                                             \
    } while (0)
#define BS_SKINNY_SBOX_STEPS(x0, x1, x2, x3, x4, x5, x6, x7)                                       \
    BS_SKINNY_SBOX_STEPS_BY(BS_SKINNY_ANDX, x0, x1, x2, x3, x4, x5, x6, x7)

/*
 * The 32-bit MCU variant (skinny_fix32.c); rtk from its key schedule, 8 words per round;
 * rounds a multiple of 8 (the SKINNY-128 counts 40, 48, 56: the Cortex-M3/M4 code runs eight
 * rounds a loop pass, the C four). One block per call is the same function with in1 = in0 (the
 * registry's encrypt does that for an odd last block): it costs what two blocks cost.
 */
void bs_skinny_fix32_2blocks(const uint32_t *rtk, unsigned rounds, uint8_t *out0, uint8_t *out1,
                             const uint8_t *in0, const uint8_t *in1);
/* Its components on a packed pair (per-component benchmark). */
void bs_skinny_fix32_pack(uint32_t w[8], const uint8_t *in0, const uint8_t *in1);
void bs_skinny_fix32_unpack(uint8_t *out0, uint8_t *out1, uint32_t w[8]);
void bs_skinny_fix32_sbox(uint32_t w[8]);
void bs_skinny_fix32_mixcolumns(uint32_t w[8]);
void bs_skinny_fix32_addkey(uint32_t w[8], const uint32_t rtk[8]);

#define BS_SKINNY_FIX32_KS_WORDS (BS_SKINNY_FIX32_RK_WORDS * BS_SKINNY_MAX_ROUNDS + 1)

/*
 * The SKINNY-128 implementations, and the folder's lists of them for bs_registry.c, best first:
 * BS_SKINNY_IMPLS the host's, BS_SKINNY_MCU_IMPLS the 32-bit MCU variants (empty where not built).
 */
/* The wide x86 cores, bs_<variant>_<level> for each level of BS_X86_WIDE_LEVELS. */
#define BS_SKINNY_X86_DECLARE(level)                                                               \
    extern const bs_block_cipher bs_skinny128_128_##level, bs_skinny128_256_##level,               \
        bs_skinny128_384_##level;
BS_X86_WIDE_LEVELS(BS_SKINNY_X86_DECLARE)
extern const bs_block_cipher bs_skinny128_128_bs64;
extern const bs_block_cipher bs_skinny128_256_bs64;
extern const bs_block_cipher bs_skinny128_384_bs64;
extern const bs_block_cipher bs_skinny128_128_fix32;
extern const bs_block_cipher bs_skinny128_256_fix32;
extern const bs_block_cipher bs_skinny128_384_fix32;
#if defined(BS_HAVE_SKINNY) && defined(BS_HAVE_X86)
#define BS_SKINNY_X86_IMPL(level)                                                                  \
    &bs_skinny128_128_##level, &bs_skinny128_256_##level, &bs_skinny128_384_##level,
#define BS_SKINNY_X86_IMPLS BS_X86_WIDE_LEVELS(BS_SKINNY_X86_IMPL)
#else
#define BS_SKINNY_X86_IMPLS
#endif
#ifdef BS_HAVE_SKINNY
#define BS_SKINNY_IMPLS                                                                            \
    BS_SKINNY_X86_IMPLS &bs_skinny128_128_bs64, &bs_skinny128_256_bs64, &bs_skinny128_384_bs64,
#else
#define BS_SKINNY_IMPLS
#endif
#if defined(BS_HAVE_SKINNY) || defined(BS_HAVE_MCU_SKINNY)
#define BS_SKINNY_MCU_IMPLS                                                                        \
    &bs_skinny128_128_fix32, &bs_skinny128_256_fix32, &bs_skinny128_384_fix32,
#else
#define BS_SKINNY_MCU_IMPLS
#endif

#ifdef __cplusplus
}
#endif

#endif
