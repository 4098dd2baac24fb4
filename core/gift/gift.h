/*
 * gift.h: bitsliced GIFT-64 and GIFT-128 (Banik, Pandey, Peyrin, Sasaki, Sim, Todo, "GIFT: A Small
 * Present", CHES 2017), in the bit order of docs/spec/algorithms.md (block = big-endian
 * integer, bit 0 its least significant bit; key = k7 || ... || k0 as 16-bit words, k7 first).
 * Not the GIFT-COFB "bitsliced order".
 *
 * Layout. A bitsliced state is an array of words W (uint64_t on the host: 64 lanes; uint32_t on
 * the GPU: 32 lanes per thread). Word s[i] holds bit i of the block in every lane: bit L of s[i]
 * is bit i of the block in lane L. GIFT-64 uses s[0..63], GIFT-128 s[0..127]. Nibble n of the
 * cipher is s[4n] (its least significant bit) .. s[4n+3].
 *
 *   bs_transpose64(x) (bs_common.h): x[L] = the block of lane L as an integer (GIFT-64; or the
 *   low or high 64 bits of a GIFT-128 block) <-> x[i] = bit i of every lane. An involution.
 *
 * Rounds. The permutation never moves a bit within its nibble: bit j of nibble n goes to bit j
 * of nibble BS_GIFT64_PN(n, j) (BS_GIFT128_PN). A round therefore reads nibble n from src and
 * stores the four S-box outputs straight into their permuted words of dst (the permutation is
 * index renaming, at no cost); the round key is XORed on the way. src and dst must not overlap.
 *
 * Round-key masks (one word per keyed bit, all lanes; all-zero/all-one for a shared key, or any
 * lane pattern for per-lane keys):
 *   GIFT-64,  BS_GIFT64_RK_WORDS = 38 per round:  m[n] = ~V bit n (the S-box's final NOT on
 *     output bit 0 is folded in here, since V lands on bit 0), m[16+n] = U bit n (bit 1),
 *     m[32+i] = round-constant bit c_i (bit 3 of nibble i, i < 6).
 *   GIFT-128, BS_GIFT128_RK_WORDS = 70 per round: m[n] = V bit n (bit 1), m[32+n] = U bit n
 *     (bit 2), m[64+i] = c_i (bit 3 of nibble i, i < 6).
 * The constant 1 on bit 63 (127) is a NOT in the round itself.
 *
 * Everything here is constant time: no table, no branch or index that depends on key or data.
 */
#ifndef BS_GIFT_H
#define BS_GIFT_H

#include "../bitslice.h"

#ifndef BS_GIFT_RESTRICT
#if defined(__cplusplus)
#define BS_GIFT_RESTRICT __restrict__
#else
#define BS_GIFT_RESTRICT restrict
#endif
#endif

#define BS_GIFT64_ROUNDS 28
#define BS_GIFT128_ROUNDS 40
#define BS_GIFT64_RK_WORDS 38
#define BS_GIFT128_RK_WORDS 70
/*
 * Compact round keys (export_round_keys; the CUDA kernels' key), one word per round of GIFT-64:
 * bits 15..0 = V (the masks' folded NOT undone), bits 31..16 = U; two per round of GIFT-128:
 * word 2r = U, word 2r + 1 = V. No round constants: they are public.
 */
#define BS_GIFT64_COMPACT_WORDS BS_GIFT64_ROUNDS
#define BS_GIFT128_COMPACT_WORDS (2 * BS_GIFT128_ROUNDS)

/*
 * P64(4n + j) = 4 floor(n / 4) + 16 ((3 (n mod 4) + j) mod 4) + j, so nibble n's bit j goes to
 * nibble floor(n / 4) + 4 ((3 (n mod 4) + j) mod 4); P128 likewise with 8 for 4.
 */
#define BS_GIFT64_PN(n, j) (((n) >> 2) + 4 * ((3 * ((n)&3) + (j)) & 3))
#define BS_GIFT128_PN(n, j) (((n) >> 2) + 8 * ((3 * ((n)&3) + (j)) & 3))

/* Round-constant LFSR: (c5..c0) <- (c4..c0, c5 ^ c4 ^ 1), from 0; the first round uses 0x01. */
BS_FN unsigned bs_gift_rc_next(unsigned c)
{
    return ((c << 1) & 0x3e) | (((c >> 5) ^ (c >> 4) ^ 1) & 1);
}

/* Key state k[j] = k_j of the specification; key bytes are k7 first, big-endian words. */
BS_FN void bs_gift_key_load(uint16_t k[8], const uint8_t key[16])
{
    for (unsigned j = 0; j < 8; j++)
        k[7 - j] = (uint16_t)((key[2 * j] << 8) | key[2 * j + 1]);
}

/* k7 || ... || k0 <- (k1 >>> 2) || (k0 >>> 12) || k7 || ... || k2 */
BS_FN void bs_gift_key_update(uint16_t k[8])
{
    uint16_t k0 = k[0], k1 = k[1];
    for (unsigned j = 0; j < 6; j++)
        k[j] = k[j + 2];
    k[6] = (uint16_t)((k0 >> 12) | (k0 << 4));
    k[7] = (uint16_t)((k1 >> 2) | (k1 << 14));
}

/*
 * Compact key schedules. GIFT-64: rk[r] = U << 16 | V with U = k1, V = k0 of round r.
 * GIFT-128: rk[2r] = U = k5 || k4, rk[2r + 1] = V = k1 || k0. rc[r] = round constant of round r.
 */
BS_FN void bs_gift64_key_schedule(const uint8_t key[16], uint32_t rk[BS_GIFT64_ROUNDS],
                                  uint8_t rc[BS_GIFT64_ROUNDS])
{
    uint16_t k[8];
    unsigned c = 0;
    bs_gift_key_load(k, key);
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r++) {
        rk[r] = ((uint32_t)k[1] << 16) | k[0];
        c = bs_gift_rc_next(c);
        rc[r] = (uint8_t)c;
        bs_gift_key_update(k);
    }
    for (unsigned j = 0; j < 8; j++)
        k[j] = 0;
}

BS_FN void bs_gift128_key_schedule(const uint8_t key[16], uint32_t rk[2 * BS_GIFT128_ROUNDS],
                                   uint8_t rc[BS_GIFT128_ROUNDS])
{
    uint16_t k[8];
    unsigned c = 0;
    bs_gift_key_load(k, key);
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r++) {
        rk[2 * r] = ((uint32_t)k[5] << 16) | k[4];
        rk[2 * r + 1] = ((uint32_t)k[1] << 16) | k[0];
        c = bs_gift_rc_next(c);
        rc[r] = (uint8_t)c;
        bs_gift_key_update(k);
    }
    for (unsigned j = 0; j < 8; j++)
        k[j] = 0;
}

/*
 * A 32-bit word through the nine in-word delta swaps (shifts 16 8 4 2 1 2 4 8 16) of a Benes
 * network net[9], as the generators (embedded/gen/benes.py) derive them: how the MCU key set-ups
 * place a key word into a round's representation. Public shifts and masks only.
 */
BS_FN uint32_t bs_gift_benes32(uint32_t x, const uint32_t net[9])
{
    static const unsigned shift[9] = {16, 8, 4, 2, 1, 2, 4, 8, 16};
    for (unsigned i = 0; i < 9; i++) {
        const uint32_t t = ((x >> shift[i]) ^ x) & net[i];
        x ^= t ^ (t << shift[i]);
    }
    return x;
}
/* One SWAPMOVE stage of a bit-matrix transpose: exchanges the d x d off-diagonal blocks. */
BS_FN void bs_gift_tstage32(uint32_t *x, unsigned n, unsigned d, uint32_t m)
{
    for (unsigned i = 0; i < n; i += 2 * d)
        for (unsigned j = i; j < i + d; j++)
            bs_swapmove32(&x[j + d], &x[j], m, d);
}

BS_FN void bs_gift_tstage64(uint64_t *x, unsigned n, unsigned d, uint64_t m)
{
    for (unsigned i = 0; i < n; i += 2 * d)
        for (unsigned j = i; j < i + d; j++)
            bs_swapmove64(&x[j + d], &x[j], m, d);
}

/* 32x32 transpose for 32-lane words: x[L] bit i <-> x[i] bit L. */
BS_FN void bs_gift_transpose32(uint32_t x[32])
{
    bs_gift_tstage32(x, 32, 16, 0x0000ffffu);
    bs_gift_tstage32(x, 32, 8, 0x00ff00ffu);
    bs_gift_tstage32(x, 32, 4, 0x0f0f0f0fu);
    bs_gift_tstage32(x, 32, 2, 0x33333333u);
    bs_gift_tstage32(x, 32, 1, 0x55555555u);
}

/*
 * gift_rounds.inc.h (a template include, bs_common.h; instantiated below) defines, for word type
 * BS_W (one bit per lane) and name suffix SFX:
 *
 *   bs_gift_sbox_nn_SFX(&y0, &y1, &y2, &y3, x0, x1, x2, x3): the GIFT S-box on bits x0 (LSB)
 *     .. x3, except that y0 comes out complemented: the designers' bitsliced circuit without its
 *     NOT, 10 ops (3 AND, 1 OR, 6 XOR) in six lines of at most three inputs each (one LOP3 each
 *     on the GPU).
 *   bs_gift_sbox_SFX: the complete S-box (11 ops).
 *   bs_gift_sbox_andn_SFX: x0 and x3 enter complemented, y0, y2 and y3 leave complemented;
 *     10 ops (4 AND-NOT, 6 XOR), no NOT. For targets with an and-not instruction.
 *   bs_gift64_expand_SFX(m, rk, rc): the 38 masks of one GIFT-64 round (layout above).
 *   bs_gift128_expand_SFX(m, u, v, rc): the 70 masks of one GIFT-128 round.
 *   bs_gift64_round_SFX(dst, src, m): SubCells, PermBits, AddRoundKey and the constant.
 *   bs_gift128_round_SFX(dst, src, m): likewise.
 *   bs_gift128_round_andn_SFX(dst, src, m): the same round on a state whose bits 0 and 3 of every
 *     nibble are kept complemented (bs_gift128_flip03_SFX before the first round and after the
 *     last), with masks from bs_gift128_expand_andn_SFX (U complemented: it absorbs y2's).
 *
 * The S-box circuits are checked against the table S = 1a4c6f392db7508e through the known-answer
 * and reference tests (tests/unit).
 */
/*
 * The S-box circuits as statements on four variables of any word type (the wide x86 cores use
 * them on 512-bit vectors); outputs y0..y3 are then x3, x1, x2, x0.
 */
#define BS_GIFT_SBOX_NN_STEPS(x0, x1, x2, x3)                                                      \
    x1 ^= x0 & x2;                                                                                 \
    x0 ^= x1 & x3;                                                                                 \
    x2 ^= x0 | x1;                                                                                 \
    x3 ^= x2;                                                                                      \
    x1 ^= x3;                                                                                      \
    x2 ^= x0 & x1
#define BS_GIFT_SBOX_ANDN_STEPS(x0, x1, x2, x3)                                                    \
    x1 ^= ~x0 & x2;                                                                                \
    x0 ^= ~x3 & x1;                                                                                \
    x2 ^= ~x1 & x0;                                                                                \
    x3 ^= x2;                                                                                      \
    x1 ^= x3;                                                                                      \
    x2 ^= ~x0 & x1

/* f(d, s, m, base + 0) ... f(d, s, m, base + 15), written out so every index is a constant. */
#define BS_GIFT_REPEAT4(f, d, s, m, b)                                                             \
    f(d, s, m, (b) + 0);                                                                           \
    f(d, s, m, (b) + 1);                                                                           \
    f(d, s, m, (b) + 2);                                                                           \
    f(d, s, m, (b) + 3)
#define BS_GIFT_REPEAT16(f, d, s, m, b)                                                            \
    BS_GIFT_REPEAT4(f, d, s, m, (b) + 0);                                                          \
    BS_GIFT_REPEAT4(f, d, s, m, (b) + 4);                                                          \
    BS_GIFT_REPEAT4(f, d, s, m, (b) + 8);                                                          \
    BS_GIFT_REPEAT4(f, d, s, m, (b) + 12)

#define BS_W uint64_t
#define BS_SFX u64
#include "gift_rounds.inc.h"
#undef BS_W
#undef BS_SFX
#define BS_W uint32_t
#define BS_SFX u32
#include "gift_rounds.inc.h"
#undef BS_W
#undef BS_SFX

/*
 * The fixsliced 32-bit MCU variants (gift_fix32.c): rk from the key schedule, 3 words per
 * round, kept at the start of its bs_key_schedule.
 */
#define BS_GIFT64_FIX32_RK_WORDS (3 * 28)  /* 28 rounds */
#define BS_GIFT128_FIX32_RK_WORDS (3 * 40) /* 40 rounds */
void bs_gift128_fix_block(const uint32_t *rk, uint8_t *out, const uint8_t *in);
void bs_gift64_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);

/*
 * Cortex-M3/M4 builds: GIFT-64 fixsliced in Thumb-2 assembly (gift64_thumb2.S, generated by
 * embedded/gen/gift64_thumb2.py; gift64_thumb2.c), the same round-key size, its own key layout.
 * The assembly is the encrypt function itself; an odd last block goes through _last.
 */
#if defined(BS_GIFT64_THUMB2)
void bs_gift64_thumb2_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                              size_t nblocks);
void bs_gift64_thumb2_last(const uint32_t *rk, uint8_t *out, const uint8_t *in);
extern const bs_block_cipher bs_gift64_thumb2;
#endif

/*
 * The GIFT implementations, and the folder's lists of them for bs_registry.c, best first:
 * BS_GIFT_IMPLS the host's, BS_GIFT_MCU_IMPLS the 32-bit MCU variants (empty where not built).
 */
#ifdef __cplusplus
extern "C" {
#endif
/* The wide x86 cores, bs_<variant>_<level> for each level of BS_X86_WIDE_LEVELS. */
#define BS_GIFT_X86_DECLARE(level)                                                                 \
    extern const bs_block_cipher bs_gift64_##level, bs_gift128_##level;
BS_X86_WIDE_LEVELS(BS_GIFT_X86_DECLARE)
extern const bs_block_cipher bs_gift64_bs64;
extern const bs_block_cipher bs_gift128_bs64;
extern const bs_block_cipher bs_gift64_fix32;
extern const bs_block_cipher bs_gift128_fix32;
#ifdef __cplusplus
}
#endif
#if defined(BS_HAVE_GIFT) && defined(BS_HAVE_X86)
#define BS_GIFT_X86_IMPL(level) &bs_gift64_##level, &bs_gift128_##level,
#define BS_GIFT_X86_IMPLS BS_X86_WIDE_LEVELS(BS_GIFT_X86_IMPL)
#else
#define BS_GIFT_X86_IMPLS
#endif
#ifdef BS_HAVE_GIFT
#define BS_GIFT_IMPLS BS_GIFT_X86_IMPLS &bs_gift64_bs64, &bs_gift128_bs64,
#else
#define BS_GIFT_IMPLS
#endif
/* GIFT-64 in Thumb-2 assembly first on Cortex-M3/M4: the fastest there. */
#ifdef BS_GIFT64_THUMB2
#define BS_GIFT_THUMB2_IMPLS &bs_gift64_thumb2,
#else
#define BS_GIFT_THUMB2_IMPLS
#endif
#if defined(BS_HAVE_GIFT) || defined(BS_HAVE_MCU_GIFT)
#define BS_GIFT_MCU_IMPLS BS_GIFT_THUMB2_IMPLS &bs_gift64_fix32, &bs_gift128_fix32,
#else
#define BS_GIFT_MCU_IMPLS
#endif

#endif
