/*
 * GIFT-64 and GIFT-128 fixsliced for 32-bit registers (Adomnicai, Najm, Peyrin, TCHES 2020/3),
 * in the bit order of docs/spec/algorithms.md (the designers' vectors, not GIFT-COFB's order).
 *
 * State: four slices s[j] (j = 0..3), slice j holding bit j of every nibble, nibble n at bit n
 * (GIFT-128: 32 nibbles of one block; GIFT-64: 16 nibbles of block 0 in bits 0..15 and of
 * block 1 in bits 16..31). Slice 3 is never permuted; the others take the cheap rotations
 * L_kj derived in embedded/gen/gift_fixslice.py (gift_fix_gen.h), so after k rounds of a
 * cycle the state is the standard one permuted by P_3^-k, and round keys and constants are
 * stored in that representation. The cycle is 5 rounds (GIFT-128) or 4 (GIFT-64): 40 and 28
 * rounds end in the standard representation.
 *
 * Key schedule (words per round): GIFT-128 {V -> s1, U -> s2, constant -> s3};
 * GIFT-64 {V -> s0, U -> s1, constant -> s3}, with U and V as in the specification. GIFT-64
 * stores its s0 word complemented: slice 0 is keyed right after the S-box, whose final NOT
 * (of the new slice 0) the key word then carries.
 *
 * Packing: the block's big-endian words w[0..3] hold nibble n's bit j at bit 4m + j of word n / 8
 * (m = n % 8), the target is slice j, bit 8w + m: a permutation of the 7 index bits (j0 j1 m0 m1
 * m2 | w0 w1) -> (m0 m1 m2 w0 w1 | j0 j1). It is one 7-cycle, written as 6 exchanges that all
 * involve the word-index bit w0: one is a renaming of words, the other 5 exchange an in-word
 * index bit with w0, a SWAPMOVE on each of the two word pairs (10 in all, 3 or 4 instructions
 * each on Thumb-2). The block functions read the words little-endian instead (see
 * nibble_pack4_le), which removes the byte reversals.
 *
 * Thumb-2 (Cortex-M3/M4): whole rounds from gift_fix_gen.h, with each slot's last rotation
 * carried by the next instruction that reads it (the round-key XOR, or the next S-box through
 * GIFT_ROR_OP), and the S-box's NOT folded away: GIFT-128 keeps slot 0 complemented between
 * rounds (BIC and ORN in the S-box) and stores its constant word complemented. A round's three
 * key words are loaded back to back (GIFT_LOAD3), so that the loads pipeline.
 *
 * Constant time: no branch or index depends on the key or the data; key set-up moves key bits
 * with delta swaps of public shifts and masks. The inline assembly (Thumb-2 only) is single
 * instructions with fixed operands: a logic operation with a fixed rotation (GIFT_ROR_OP), BFI with
 * a fixed field, and LDR of round-key words at public offsets (GIFT_LOAD3).
 */
#include "bitslice.h"
#include "gift.h"

_Static_assert(sizeof(uint32_t[BS_GIFT128_FIX32_RK_WORDS]) <= BS_KS_MAX,
               "GIFT-128 fix32 round keys exceed BS_KS_MAX");
_Static_assert(sizeof(uint32_t[BS_GIFT64_FIX32_RK_WORDS]) <= BS_KS_MAX,
               "GIFT-64 fix32 round keys exceed BS_KS_MAX");

static inline uint32_t ror32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}

#if defined(__thumb2__)
/* d = n OP (m ror r), one instruction: the compiler would share one rotation between uses. */
#define GIFT_ROR_OP(op, d, n, m, r) __asm__(#op " %0, %1, %2, ror #" #r : "=r"(d) : "r"(n), "r"(m))
/* A round's three key words, loaded back to back so that the loads pipeline. */
#define GIFT_LOAD3(k0, k1, k2, rk)                                                                 \
    __asm__("ldr %0, %3\n\tldr %1, %4\n\tldr %2, %5"                                               \
            : "=&r"(k0), "=&r"(k1), "=&r"(k2)                                                      \
            : "m"((rk)[0]), "m"((rk)[1]), "m"((rk)[2]))
#endif

#include "gift/gift_fix_gen.h"

#if defined(__GNUC__)
#define GIFT_NOINLINE __attribute__((noinline))
#else
#define GIFT_NOINLINE
#endif

/*
 * The exchange m2 <-> w0 of two words, hi taking lo's upper half and lo hi's lower half: the
 * same as bs_swapmove32(hi, lo, 0x0000ffff, 16), in three instructions on Thumb-2 (LSR and two
 * BFI with fixed fields; GCC 12 does not find BFI here by itself).
 */
static inline void swap_halves(uint32_t *hi, uint32_t *lo)
{
#if defined(__thumb2__)
    uint32_t h = *hi, l = *lo, t = l >> 16;
    __asm__("bfi %0, %1, #16, #16" : "+r"(l) : "r"(h));
    __asm__("bfi %0, %1, #0, #16" : "+r"(h) : "r"(t));
    *hi = h;
    *lo = l;
#else
    bs_swapmove32(hi, lo, 0x0000ffffu, 16);
#endif
}

/* Words x0..x3 (w[0..3]) in, slices s0..s3 out as (x0, x2, x1, x3): see the header comment. */
static inline void nibble_pack4(uint32_t *s0, uint32_t *s1, uint32_t *s2, uint32_t *s3)
{
    uint32_t x0 = *s0, x1 = *s1, x2 = *s2, x3 = *s3;
    bs_swapmove32(&x1, &x0, 0x00ff00ffu, 8); /* m1 <-> w0 */
    bs_swapmove32(&x3, &x2, 0x00ff00ffu, 8);
    bs_swapmove32(&x1, &x0, 0x33333333u, 2); /* j1 <-> w0 */
    bs_swapmove32(&x3, &x2, 0x33333333u, 2);
    /* w1 <-> w0: x1 and x2 trade names, the w0 pairs become (x0, x2) and (x1, x3) */
    swap_halves(&x2, &x0); /* m2 <-> w0 */
    swap_halves(&x3, &x1);
    bs_swapmove32(&x2, &x0, 0x0f0f0f0fu, 4); /* m0 <-> w0 */
    bs_swapmove32(&x3, &x1, 0x0f0f0f0fu, 4);
    bs_swapmove32(&x2, &x0, 0x55555555u, 1); /* j0 <-> w0 */
    bs_swapmove32(&x3, &x1, 0x55555555u, 1);
    *s0 = x0;
    *s1 = x2;
    *s2 = x1;
    *s3 = x3;
}

static inline void nibble_unpack4(uint32_t *s0, uint32_t *s1, uint32_t *s2, uint32_t *s3)
{
    uint32_t x0 = *s0, x2 = *s1, x1 = *s2, x3 = *s3;
    bs_swapmove32(&x2, &x0, 0x55555555u, 1);
    bs_swapmove32(&x3, &x1, 0x55555555u, 1);
    bs_swapmove32(&x2, &x0, 0x0f0f0f0fu, 4);
    bs_swapmove32(&x3, &x1, 0x0f0f0f0fu, 4);
    swap_halves(&x2, &x0);
    swap_halves(&x3, &x1);
    bs_swapmove32(&x1, &x0, 0x33333333u, 2);
    bs_swapmove32(&x3, &x2, 0x33333333u, 2);
    bs_swapmove32(&x1, &x0, 0x00ff00ffu, 8);
    bs_swapmove32(&x3, &x2, 0x00ff00ffu, 8);
    *s0 = x0;
    *s1 = x1;
    *s2 = x2;
    *s3 = x3;
}

/*
 * The same from little-endian words (the block's words read without byte reversal, which
 * complements in-word index bits m1 and m2). Exchanging a slot with w0 "complemented" (the
 * pairs (0, 0) <-> (1, 1) of the two index bits, a SWAPMOVE with the words' roles reversed)
 * also toggles both slots' complements; choosing plain or complemented per step leaves the
 * complements on the word index only (w0 and w1 both), so slice j is word j ^ 3: the byte
 * reversal costs nothing.
 */
static inline void nibble_pack4_le(uint32_t *s0, uint32_t *s1, uint32_t *s2, uint32_t *s3)
{
    uint32_t x0 = *s0, x1 = *s1, x2 = *s2, x3 = *s3;
    bs_swapmove32(&x1, &x0, 0x00ff00ffu, 8); /* m1 <-> w0, plain */
    bs_swapmove32(&x3, &x2, 0x00ff00ffu, 8);
    bs_swapmove32(&x0, &x1, 0x33333333u, 2); /* j1 <-> w0, complemented */
    bs_swapmove32(&x2, &x3, 0x33333333u, 2);
    swap_halves(&x2, &x0); /* m2 <-> w0, plain (after renaming x1 <-> x2) */
    swap_halves(&x3, &x1);
    bs_swapmove32(&x0, &x2, 0x0f0f0f0fu, 4); /* m0 <-> w0, complemented */
    bs_swapmove32(&x1, &x3, 0x0f0f0f0fu, 4);
    bs_swapmove32(&x0, &x2, 0x55555555u, 1); /* j0 <-> w0, complemented */
    bs_swapmove32(&x1, &x3, 0x55555555u, 1);
    *s0 = x3;
    *s1 = x1;
    *s2 = x2;
    *s3 = x0;
}

static inline void nibble_unpack4_le(uint32_t *s0, uint32_t *s1, uint32_t *s2, uint32_t *s3)
{
    uint32_t x3 = *s0, x1 = *s1, x2 = *s2, x0 = *s3;
    bs_swapmove32(&x0, &x2, 0x55555555u, 1);
    bs_swapmove32(&x1, &x3, 0x55555555u, 1);
    bs_swapmove32(&x0, &x2, 0x0f0f0f0fu, 4);
    bs_swapmove32(&x1, &x3, 0x0f0f0f0fu, 4);
    swap_halves(&x2, &x0);
    swap_halves(&x3, &x1);
    bs_swapmove32(&x0, &x1, 0x33333333u, 2);
    bs_swapmove32(&x2, &x3, 0x33333333u, 2);
    bs_swapmove32(&x1, &x0, 0x00ff00ffu, 8);
    bs_swapmove32(&x3, &x2, 0x00ff00ffu, 8);
    *s0 = x0;
    *s1 = x1;
    *s2 = x2;
    *s3 = x3;
}

void bs_mcu_nibble_pack(uint32_t s[4], const uint32_t w[4])
{
    uint32_t s0 = w[0], s1 = w[1], s2 = w[2], s3 = w[3];
    nibble_pack4(&s0, &s1, &s2, &s3);
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}

void bs_mcu_nibble_unpack(uint32_t w[4], const uint32_t s[4])
{
    uint32_t w0 = s[0], w1 = s[1], w2 = s[2], w3 = s[3];
    nibble_unpack4(&w0, &w1, &w2, &w3);
    w[0] = w0;
    w[1] = w1;
    w[2] = w2;
    w[3] = w3;
}

/*
 * The GIFT S-box on four slices (the designers' bitsliced form; outputs in place), without its
 * final NOT of the new slice 0: GIFT_SBOX adds it, GIFT-64 leaves it to its round keys.
 */
#define GIFT_SBOX_NN(s0, s1, s2, s3)                                                               \
    do {                                                                                           \
        uint32_t t_;                                                                               \
        (s1) ^= (s0) & (s2);                                                                       \
        (s0) ^= (s1) & (s3);                                                                       \
        (s2) ^= (s0) | (s1);                                                                       \
        (s3) ^= (s2);                                                                              \
        (s1) ^= (s3);                                                                              \
        (s2) ^= (s0) & (s1);                                                                       \
        t_ = (s0);                                                                                 \
        (s0) = (s3);                                                                               \
        (s3) = t_;                                                                                 \
    } while (0)

#define GIFT_SBOX(s0, s1, s2, s3)                                                                  \
    do {                                                                                           \
        GIFT_SBOX_NN(s0, s1, s2, s3);                                                              \
        (s0) = ~(s0);                                                                              \
    } while (0)

/*
 * A key word moved into a round's representation: the nine in-word delta swaps (shifts 16 8 4 2
 * 1 2 4 8 16) of a gift_fix_gen.h network, which gift_fixslice.py derives from the
 * representation and checks bit by bit. Always inlined with a constant network, so that the masks
 * are immediates and the swaps whose mask is zero vanish. Public shifts and masks.
 */
#define GIFT_DSWAP(x, m, s)                                                                        \
    do {                                                                                           \
        if ((m) != 0) {                                                                            \
            uint32_t t_ = (((x) >> (s)) ^ (x)) & (m);                                              \
            (x) ^= t_ ^ (t_ << (s));                                                               \
        }                                                                                          \
    } while (0)

#if defined(__GNUC__)
#define GIFT_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define GIFT_ALWAYS_INLINE static inline
#endif

GIFT_ALWAYS_INLINE uint32_t place(uint32_t x, const uint32_t n[9])
{
    GIFT_DSWAP(x, n[0], 16);
    GIFT_DSWAP(x, n[1], 8);
    GIFT_DSWAP(x, n[2], 4);
    GIFT_DSWAP(x, n[3], 2);
    GIFT_DSWAP(x, n[4], 1);
    GIFT_DSWAP(x, n[5], 2);
    GIFT_DSWAP(x, n[6], 4);
    GIFT_DSWAP(x, n[7], 8);
    GIFT_DSWAP(x, n[8], 16);
    return x;
}

/* The placed constant words and the advance maps (embedded/gen/gift_keysched.py). */
#define GIFT_KS_WANT_FIX
#include "gift/gift_ks_gen.h"

/* k_j of the specification (bs_gift_key_load): key bytes k7 first, big-endian 16-bit words. */
#define GIFT_KW(key, j) (((uint32_t)(key)[14 - 2 * (j)] << 8) | (key)[15 - 2 * (j)])

/* ---- GIFT-128: one block, 40 rounds ---- */

#if defined(__thumb2__)
#define GIFT128_RC_WORD(r) (~gift128_RC[r]) /* slot 3 arrives complemented (header comment) */
#else
#define GIFT128_RC_WORD(r) (gift128_RC[r])
#endif

/*
 * Round j (0..4) of a cycle from the key words: V = K0 (k1 || k0) and U = K2 (k5 || k4) placed
 * in representation j (GIFT128_PLACE_j: network j in a few delta swaps, gift_ks_gen.h), then
 * one step of the key state K0..K3 (16-bit words k1 || k0 ... k7 || k6): the words move down
 * and K0 comes back in K3 with k0 turned by 12 and k1 by 2.
 */
#define GIFT128_KS_ROUND(j, r)                                                                     \
    do {                                                                                           \
        uint32_t v_ = K0, u_ = K2;                                                                 \
        GIFT128_PLACE_##j(v_);                                                                     \
        GIFT128_PLACE_##j(u_);                                                                     \
        rk[3 * (j)] = v_;                                                                          \
        rk[3 * (j) + 1] = u_;                                                                      \
        rk[3 * (j) + 2] = GIFT128_RC_WORD((r) + (j));                                              \
        uint32_t lo_ = K0 & 0xffffu, hi_ = K0 >> 16;                                               \
        K0 = K1, K1 = K2, K2 = K3;                                                                 \
        K3 = (((lo_ >> 12) | (lo_ << 4)) & 0xffffu) | (((hi_ >> 2) | (hi_ << 14)) << 16);          \
    } while (0)

/*
 * The first 10 rounds through the networks; every word of rounds 10..39 is one of the key words
 * rotated, so a fixed bit permutation of an earlier placed word of the same key word: the
 * generator's plan (GIFT128_KS_LATER, gift_ks_gen.h) takes each from the one whose map is
 * cheapest, with the constants from its table. Public shifts and masks only.
 */
static void gift128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    uint32_t K0 = (GIFT_KW(key, 1) << 16) | GIFT_KW(key, 0);
    uint32_t K1 = (GIFT_KW(key, 3) << 16) | GIFT_KW(key, 2);
    uint32_t K2 = (GIFT_KW(key, 5) << 16) | GIFT_KW(key, 4);
    uint32_t K3 = (GIFT_KW(key, 7) << 16) | GIFT_KW(key, 6);
    for (unsigned r = 0; r < 10; r += 5, rk += 15) {
        GIFT128_KS_ROUND(0, r);
        GIFT128_KS_ROUND(1, r);
        GIFT128_KS_ROUND(2, r);
        GIFT128_KS_ROUND(3, r);
        GIFT128_KS_ROUND(4, r);
    }
    rk = (uint32_t *)ks->w;
    GIFT128_KS_LATER(rk);
}

#if !defined(__thumb2__)
#define GIFT128_ROUND(k, rk)                                                                       \
    do {                                                                                           \
        GIFT_SBOX(s0, s1, s2, s3);                                                                 \
        s0 = GIFT128_L##k##_0(s0);                                                                 \
        s1 = GIFT128_L##k##_1(s1) ^ (rk)[0];                                                       \
        s2 = GIFT128_L##k##_2(s2) ^ (rk)[1];                                                       \
        s3 ^= (rk)[2];                                                                             \
    } while (0)
#endif

void bs_gift128_fix_block(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint32_t s0 = bs_load_le32(in + 12), s1 = bs_load_le32(in + 8);
    uint32_t s2 = bs_load_le32(in + 4), s3 = bs_load_le32(in);
    nibble_pack4_le(&s0, &s1, &s2, &s3);
#if defined(__thumb2__)
    /* slot 0: complemented, and still to be rotated by GIFT128_PEND */
    uint32_t a = ~ror32(s0, (32 - GIFT128_PEND) & 31), b = s1, c = s2, d = s3;
    for (unsigned r = 0; r < 40; r += 10, rk += 30) {
        GIFT128_ROUND_T0(a, b, c, d, rk);
        GIFT128_ROUND_T1(d, b, c, a, rk + 3);
        GIFT128_ROUND_T2(a, b, c, d, rk + 6);
        GIFT128_ROUND_T3(d, b, c, a, rk + 9);
        GIFT128_ROUND_T4(a, b, c, d, rk + 12);
        GIFT128_ROUND_T0(d, b, c, a, rk + 15);
        GIFT128_ROUND_T1(a, b, c, d, rk + 18);
        GIFT128_ROUND_T2(d, b, c, a, rk + 21);
        GIFT128_ROUND_T3(a, b, c, d, rk + 24);
        GIFT128_ROUND_T4(d, b, c, a, rk + 27);
    }
    s0 = ~ror32(a, GIFT128_PEND);
    s1 = b;
    s2 = c;
    s3 = d;
#else
    /* two cycles per pass: an even number of the S-box's slice exchanges */
    for (unsigned r = 0; r < 40; r += 10, rk += 30) {
        GIFT128_ROUND(0, rk);
        GIFT128_ROUND(1, rk + 3);
        GIFT128_ROUND(2, rk + 6);
        GIFT128_ROUND(3, rk + 9);
        GIFT128_ROUND(4, rk + 12);
        GIFT128_ROUND(0, rk + 15);
        GIFT128_ROUND(1, rk + 18);
        GIFT128_ROUND(2, rk + 21);
        GIFT128_ROUND(3, rk + 24);
        GIFT128_ROUND(4, rk + 27);
    }
#endif
    nibble_unpack4_le(&s0, &s1, &s2, &s3);
    bs_store_le32(out + 12, s0);
    bs_store_le32(out + 8, s1);
    bs_store_le32(out + 4, s2);
    bs_store_le32(out, s3);
}

static void gift128_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                            size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++)
        bs_gift128_fix_block((const uint32_t *)ks->w, out + 16 * i, in + 16 * i);
}

const bs_block_cipher bs_gift128_fix32 = {
    .name = "GIFT-128",
    .impl = "fix32",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 16,
    .lanes = 1,
    .set_key = gift128_set_key,
    .encrypt = gift128_encrypt,
};

/* ---- GIFT-64: two blocks side by side, 28 rounds ---- */

/*
 * Rounds 0..3 from the key words through the networks (V = k_2k, U = k_2k+1 in round k); every
 * later round's words from the same slot four rounds before by the generator's advance maps
 * (the key state only rotates its 16-bit words, gift_ks_gen.h), the constants from its table.
 * Both blocks at once (v | v << 16); slot 0's word complemented, for the S-box's NOT.
 */
static void gift64_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    uint32_t v0 = ~place(GIFT_KW(key, 0) * 0x10001u, gift64_NET[0]);
    uint32_t u0 = place(GIFT_KW(key, 1) * 0x10001u, gift64_NET[0]);
    uint32_t v1 = ~place(GIFT_KW(key, 2) * 0x10001u, gift64_NET[1]);
    uint32_t u1 = place(GIFT_KW(key, 3) * 0x10001u, gift64_NET[1]);
    uint32_t v2 = ~place(GIFT_KW(key, 4) * 0x10001u, gift64_NET[2]);
    uint32_t u2 = place(GIFT_KW(key, 5) * 0x10001u, gift64_NET[2]);
    uint32_t v3 = ~place(GIFT_KW(key, 6) * 0x10001u, gift64_NET[3]);
    uint32_t u3 = place(GIFT_KW(key, 7) * 0x10001u, gift64_NET[3]);
    for (unsigned r = 0;; r += 4, rk += 12) {
        rk[0] = v0, rk[1] = u0, rk[2] = gift64_RC[r];
        rk[3] = v1, rk[4] = u1, rk[5] = gift64_RC[r + 1];
        rk[6] = v2, rk[7] = u2, rk[8] = gift64_RC[r + 2];
        rk[9] = v3, rk[10] = u3, rk[11] = gift64_RC[r + 3];
        if (r + 4 == BS_GIFT64_ROUNDS)
            break;
        v0 = GIFT64_ADV_0_0(v0), u0 = GIFT64_ADV_0_1(u0);
        v1 = GIFT64_ADV_1_0(v1), u1 = GIFT64_ADV_1_1(u1);
        v2 = GIFT64_ADV_2_0(v2), u2 = GIFT64_ADV_2_1(u2);
        v3 = GIFT64_ADV_3_0(v3), u3 = GIFT64_ADV_3_1(u3);
    }
}

#if !defined(__thumb2__)
#define GIFT64_ROUND(k, rk)                                                                        \
    do {                                                                                           \
        GIFT_SBOX_NN(s0, s1, s2, s3);                                                              \
        s0 = GIFT64_L##k##_0(s0) ^ (rk)[0];                                                        \
        s1 = GIFT64_L##k##_1(s1) ^ (rk)[1];                                                        \
        s2 = GIFT64_L##k##_2(s2);                                                                  \
        s3 ^= (rk)[2];                                                                             \
    } while (0)
#endif

/* Two blocks (in, in + 8) -> (out, out + 8); block b's low word is w[2b], its high word w[2b+1]. */
void bs_gift64_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint32_t s0 = bs_load_le32(in + 4), s1 = bs_load_le32(in);
    uint32_t s2 = bs_load_le32(in + 12), s3 = bs_load_le32(in + 8);
    nibble_pack4_le(&s0, &s1, &s2, &s3);
#if defined(__thumb2__)
    /* slot 2 still to be rotated by GIFT64_PEND */
    uint32_t a = s0, b = s1, c = ror32(s2, (32 - GIFT64_PEND) & 31), d = s3;
    for (unsigned r = 0; r < 28; r += 4, rk += 12) {
        GIFT64_ROUND_T0(a, b, c, d, rk);
        GIFT64_ROUND_T1(d, b, c, a, rk + 3);
        GIFT64_ROUND_T2(a, b, c, d, rk + 6);
        GIFT64_ROUND_T3(d, b, c, a, rk + 9);
    }
    s0 = a;
    s1 = b;
    s2 = ror32(c, GIFT64_PEND);
    s3 = d;
#else
    for (unsigned r = 0; r < 28; r += 4, rk += 12) {
        GIFT64_ROUND(0, rk);
        GIFT64_ROUND(1, rk + 3);
        GIFT64_ROUND(2, rk + 6);
        GIFT64_ROUND(3, rk + 9);
    }
#endif
    nibble_unpack4_le(&s0, &s1, &s2, &s3);
    bs_store_le32(out + 4, s0);
    bs_store_le32(out, s1);
    bs_store_le32(out + 12, s2);
    bs_store_le32(out + 8, s3);
}

/* An odd last block, padded to a pair; out of line so that the main path needs no buffer. */
static GIFT_NOINLINE void gift64_last(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint8_t buf[16] = {0};
    memcpy(buf, in, 8);
    bs_gift64_fix_2blocks(rk, buf, buf);
    memcpy(out, buf, 8);
    bs_wipe(buf, sizeof buf);
}

static void gift64_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                           size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
    for (; nblocks >= 2; nblocks -= 2, in += 16, out += 16)
        bs_gift64_fix_2blocks(rk, out, in);
    if (nblocks)
        gift64_last(rk, out, in);
}

const bs_block_cipher bs_gift64_fix32 = {
    .name = "GIFT-64",
    .impl = "fix32",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 8,
    .lanes = 2,
    .set_key = gift64_set_key,
    .encrypt = gift64_encrypt,
};
