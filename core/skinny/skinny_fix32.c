/*
 * SKINNY-128-128/-256/-384 fixsliced for 32-bit registers (Adomnicai, Peyrin, "Fixslicing
 * AES-like Ciphers", TCHES 2021/1): two blocks in eight bit-plane words, ShiftRows never
 * computed, MixColumns as masked rotations (layout and derivation: skinny.h). Plain C; on
 * Thumb-2 every rotation is the shifted operand of the AND/BIC or EOR that uses it.
 *
 * Round variants. Let SIGMA_t and O_t be the mapping at the start of round t (skinny.h), and
 * O' = O_t(i) - i after ShiftRows. MixColumns is "row 1 ^= row 2; row 2 ^= row 0; row 3 ^= row
 * 2", then the rows rename (0, 1, 2, 3) <- (3, 0, 1, 2). "Row a ^= row b" moves row b's bits
 * by d = 8 (O'(a) - O'(b)) + 2 (SIGMA(a) - SIGMA(b)) (mod 32) onto row a's. Here it is written
 * t = rotl(w, d - 2 SIGMA(a)) & 0x03030303 (row b's bits land in slot 0), w ^= t << 2 SIGMA(a),
 * so that one mask constant serves every row. The three (left rotation, shift) pairs of the
 * four variants, t = 0, 1, 2, 3 mod 4 (the code takes 32 - rotation, a right rotation):
 *   t0: (4, 2) (16, 4) (20, 6)    t1: (14, 0) (26, 2) (14, 4)
 *   t2: (24, 6) (12, 0) (8, 2)    t3: (26, 4) (30, 6) (26, 0)
 * The second and third XOR complement what they add (BIC), which keeps every row complemented
 * (skinny.h). SIGMA and O for the key schedule are stepped by the same rules in
 * fix32_set_key; the KATs and the reference tests check both against each other.
 *
 * Packing: block k's row r as a little-endian word is word k + 2r, with bit 8c + b = bit b of
 * column c. The target word is b with bit 8c + 2r + k, so the three word-index bits (k, r0, r1)
 * and the three in-word bits (b0, b1, b2) exchange place: three SWAPMOVE stages of four.
 *
 * Constant time: no branch or index depends on the key or the data; key set-up moves bits with
 * shifts by public amounts.
 */
#include "skinny/skinny.h"
#include "bs_wipe32.h"

_Static_assert(sizeof(uint32_t) * BS_SKINNY_FIX32_KS_WORDS <= BS_KS_MAX,
               "SKINNY-128 fix32 round tweakeys exceed BS_KS_MAX");

#define SLOT0 0x03030303u

#if !defined(__thumb2__) /* Thumb-2 rotates in the instructions' operands */
static inline uint32_t rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}
#endif

/* The three SWAPMOVE stages, written out (a loop with a test stays a loop at -O2). */
static inline void transpose8(uint32_t w[8])
{
    bs_swapmove32(&w[1], &w[0], 0x55555555u, 1);
    bs_swapmove32(&w[3], &w[2], 0x55555555u, 1);
    bs_swapmove32(&w[5], &w[4], 0x55555555u, 1);
    bs_swapmove32(&w[7], &w[6], 0x55555555u, 1);
    bs_swapmove32(&w[2], &w[0], 0x33333333u, 2);
    bs_swapmove32(&w[3], &w[1], 0x33333333u, 2);
    bs_swapmove32(&w[6], &w[4], 0x33333333u, 2);
    bs_swapmove32(&w[7], &w[5], 0x33333333u, 2);
    bs_swapmove32(&w[4], &w[0], 0x0f0f0f0fu, 4);
    bs_swapmove32(&w[5], &w[1], 0x0f0f0f0fu, 4);
    bs_swapmove32(&w[6], &w[2], 0x0f0f0f0fu, 4);
    bs_swapmove32(&w[7], &w[3], 0x0f0f0f0fu, 4);
}

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> ((32 - n) & 31));
}

/* The tweakey permutation P_T on one TKi as row words r0..r3 (little-endian, cell 4r + c at
 * byte c): rows 2, 3 <- rows 0, 1; cells 0..7 <- cells 9, 15, 8, 13, 10, 14, 12, 11. */
#define TK_PERMUTE(r0, r1, r2, r3)                                                                 \
    do {                                                                                           \
        uint32_t a_ = (r2), b_ = (r3);                                                             \
        (r2) = (r0);                                                                               \
        (r3) = (r1);                                                                               \
        (r0) = ((a_ >> 8) & 0xffu) | ((b_ >> 16) & 0xff00u) | ((a_ & 0xffu) << 16) |               \
               ((b_ & 0xff00u) << 16);                                                             \
        (r1) = ((a_ >> 16) & 0xffu) | ((b_ >> 8) & 0xff00u) | ((b_ & 0xffu) << 16) |               \
               (a_ & 0xff000000u);                                                                 \
    } while (0)

/* TK2's and TK3's LFSRs on four cells at once (bs_skinny_tweakey_schedule, byte by byte). */
static inline uint32_t lfsr2x4(uint32_t x)
{
    return ((x << 1) & 0xfefefefeu) | (((x >> 7) ^ (x >> 5)) & 0x01010101u);
}

static inline uint32_t lfsr3x4(uint32_t x)
{
    return ((x >> 1) & 0x7f7f7f7fu) | (((x ^ (x >> 6)) & 0x01010101u) << 7);
}

/*
 * The round tweakeys in each round's representation, word by word. The tweakey state is kept
 * as row words (bs_skinny_tweakey_schedule's steps on four cells at a time; a TKi the key does
 * not have stays zero through them). Rows 0 and 1 of the round tweakey, each rotated by its
 * column offset O(i) (whole bytes), go through the packing's transposition as both blocks' rows
 * 0 and 1, which leaves bit b of their cells in slots 0 and 1 of word b; each slot then shifts
 * to SIGMA(i) within its byte. SIGMA and O depend on the round only (public), so do the
 * rotation and shift amounts.
 */
static void fix32_set_key(bs_key_schedule *ks, const uint8_t *key, unsigned key_len)
{
    uint32_t *w = (uint32_t *)ks->w, x[8];
    unsigned z = key_len / 16, rounds = bs_skinny_rounds(key_len), c = 0;
    /* SIGMA(i) and O(i) of rows 0..3 (skinny.h), as scalars: an array shift becomes a call */
    unsigned g0 = 0, g1 = 1, g2 = 2, g3 = 3, o0 = 0, o1 = 0, o2 = 0, o3 = 0;
    uint32_t k10 = bs_load_le32(key), k11 = bs_load_le32(key + 4), k12 = bs_load_le32(key + 8),
             k13 = bs_load_le32(key + 12);
    uint32_t k20 = 0, k21 = 0, k22 = 0, k23 = 0, k30 = 0, k31 = 0, k32 = 0, k33 = 0;
    if (z >= 2) {
        k20 = bs_load_le32(key + 16), k21 = bs_load_le32(key + 20);
        k22 = bs_load_le32(key + 24), k23 = bs_load_le32(key + 28);
    }
    if (z >= 3) {
        k30 = bs_load_le32(key + 32), k31 = bs_load_le32(key + 36);
        k32 = bs_load_le32(key + 40), k33 = bs_load_le32(key + 44);
    }
    for (unsigned t = 0; t < rounds; t++, w += BS_SKINNY_FIX32_RK_WORDS) {
        c = bs_skinny_rc_next(c);
        /* rows 0 and 1 of TK1 ^ TK2 ^ TK3, the constant in cells 0 and 4 */
        uint32_t row0 = rotl32(k10 ^ k20 ^ k30 ^ (c & 0xfu), 8 * o0);
        uint32_t row1 = rotl32(k11 ^ k21 ^ k31 ^ (c >> 4), 8 * o1);
        x[0] = x[1] = row0;
        x[2] = x[3] = row1;
        x[4] = x[5] = x[6] = x[7] = 0;
        transpose8(x);
        for (unsigned b = 0; b < 8; b++) {
            uint32_t s0 = x[b] & SLOT0, s1 = (x[b] >> 2) & SLOT0;
            /* row 1 enters uncomplemented (skinny.h) */
            w[b] = (s0 << (2 * g0)) | ((s1 ^ SLOT0) << (2 * g1));
        }
        /* AddConstants' 0x2 in cell (2, 0): bit 1, both blocks */
        w[1] ^= 3u << (8 * o2 + 2 * g2);
        TK_PERMUTE(k10, k11, k12, k13);
        TK_PERMUTE(k20, k21, k22, k23);
        TK_PERMUTE(k30, k31, k32, k33);
        k20 = lfsr2x4(k20);
        k21 = lfsr2x4(k21);
        k30 = lfsr3x4(k30);
        k31 = lfsr3x4(k31);
        /* ShiftRows (row i moves by i), then the renaming (0, 1, 2, 3) <- (3, 0, 1, 2) */
        unsigned g = g3, o = (o3 + 1) & 3;
        g3 = g2, o3 = (o2 + 2) & 3;
        g2 = g1, o2 = (o1 + 3) & 3;
        g1 = g0, o1 = o0;
        g0 = g, o0 = o;
    }
    w[0] = 0; /* the word after the last round: nothing reads it, keep it defined */
    bs_wipe32(x, BS_WORDS(x));
}

void bs_skinny_fix32_pack(uint32_t w[8], const uint8_t *in0, const uint8_t *in1)
{
    for (unsigned r = 0; r < 4; r++) {
        w[2 * r] = bs_load_le32(in0 + 4 * r);
        w[2 * r + 1] = bs_load_le32(in1 + 4 * r);
    }
    transpose8(w);
    for (unsigned b = 0; b < 8; b++)
        w[b] = ~w[b];
}

void bs_skinny_fix32_unpack(uint8_t *out0, uint8_t *out1, uint32_t w[8])
{
    for (unsigned b = 0; b < 8; b++)
        w[b] = ~w[b];
    transpose8(w);
    for (unsigned r = 0; r < 4; r++) {
        bs_store_le32(out0 + 4 * r, w[2 * r]);
        bs_store_le32(out1 + 4 * r, w[2 * r + 1]);
    }
}

/* The S-box on all 32 cells, renaming its outputs (skinny.h). */
#define FIX32_SBOX(w0, w1, w2, w3, w4, w5, w6, w7)                                                 \
    do {                                                                                           \
        BS_SKINNY_SBOX_STEPS(w0, w1, w2, w3, w4, w5, w6, w7);                                      \
        uint32_t y0 = w2, y1 = w7, y2 = w6, y3 = w1, y4 = w3, y5 = w0, y6 = w4, y7 = w5;           \
        w0 = y0, w1 = y1, w2 = y2, w3 = y3, w4 = y4, w5 = y5, w6 = y6, w7 = y7;                    \
    } while (0)

/*
 * "Row a ^= row b" on one word: w ^= (rotr(w, r) & SLOT0) << s, or with ~rotr (BIC) for the
 * complementing XORs; r = (32 - rotation of the table above) mod 32, never 0. On Thumb-2 each
 * is AND/BIC with a rotated operand and EOR with a shifted one, written as single instructions
 * (GCC otherwise folds the shift into a per-slot immediate mask and needs three).
 */
#if defined(__thumb2__)
#define FIX32_ROWXOR(op, x, r, s)                                                                  \
    do {                                                                                           \
        uint32_t t_;                                                                               \
        __asm__(#op " %1, %2, %0, ror #" #r "\n\teor %0, %0, %1, lsl #" #s                         \
                : "+r"(x), "=&r"(t_)                                                               \
                : "r"(slot0));                                                                     \
    } while (0)
#else
#define FIX32_ROWXOR(op, x, r, s) (x ^= FIX32_C_##op(rotr32(x, r)) << (s))
#define FIX32_C_and(v) ((v)&slot0)
#define FIX32_C_bic(v) (~(v)&slot0)
#endif

#define FIX32_MC1(x, r1, s1, r2, s2, r3, s3)                                                       \
    do {                                                                                           \
        FIX32_ROWXOR(and, x, r1, s1);                                                              \
        FIX32_ROWXOR(bic, x, r2, s2);                                                              \
        FIX32_ROWXOR(bic, x, r3, s3);                                                              \
    } while (0)

#define FIX32_MC(r1, s1, r2, s2, r3, s3)                                                           \
    do {                                                                                           \
        FIX32_MC1(w0, r1, s1, r2, s2, r3, s3);                                                     \
        FIX32_MC1(w1, r1, s1, r2, s2, r3, s3);                                                     \
        FIX32_MC1(w2, r1, s1, r2, s2, r3, s3);                                                     \
        FIX32_MC1(w3, r1, s1, r2, s2, r3, s3);                                                     \
        FIX32_MC1(w4, r1, s1, r2, s2, r3, s3);                                                     \
        FIX32_MC1(w5, r1, s1, r2, s2, r3, s3);                                                     \
        FIX32_MC1(w6, r1, s1, r2, s2, r3, s3);                                                     \
        FIX32_MC1(w7, r1, s1, r2, s2, r3, s3);                                                     \
    } while (0)

#define FIX32_ADDKEY(k)                                                                            \
    do {                                                                                           \
        w0 ^= (k)[0], w1 ^= (k)[1], w2 ^= (k)[2], w3 ^= (k)[3];                                    \
        w4 ^= (k)[4], w5 ^= (k)[5], w6 ^= (k)[6], w7 ^= (k)[7];                                    \
    } while (0)

#define FIX32_ROUND(k, r1, s1, r2, s2, r3, s3)                                                     \
    do {                                                                                           \
        FIX32_SBOX(w0, w1, w2, w3, w4, w5, w6, w7);                                                \
        FIX32_ADDKEY(k);                                                                           \
        FIX32_MC(r1, s1, r2, s2, r3, s3);                                                          \
    } while (0)

#if defined(__thumb2__)
/* Cortex-M3/M4: the same steps in generated Thumb-2 (embedded/gen/skinny_thumb2.py), the state
 * in registers throughout, the round tweakeys by LDMIA; nothing of the state on the stack. */
#include "skinny/skinny_fix32_t2.h"
#else
void bs_skinny_fix32_2blocks(const uint32_t *rtk, unsigned rounds, uint8_t *out0, uint8_t *out1,
                             const uint8_t *in0, const uint8_t *in1)
{
    uint32_t w[8];
    bs_skinny_fix32_pack(w, in0, in1);
    uint32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7];
    uint32_t slot0 = SLOT0;
    for (unsigned t = 0; t < rounds; t += 4, rtk += 4 * BS_SKINNY_FIX32_RK_WORDS) {
        FIX32_ROUND(rtk, 28, 2, 16, 4, 12, 6);
        FIX32_ROUND(rtk + 8, 18, 0, 6, 2, 18, 4);
        FIX32_ROUND(rtk + 16, 8, 6, 20, 0, 24, 2);
        FIX32_ROUND(rtk + 24, 6, 4, 2, 6, 6, 0);
    }
    w[0] = w0, w[1] = w1, w[2] = w2, w[3] = w3, w[4] = w4, w[5] = w5, w[6] = w6, w[7] = w7;
    bs_skinny_fix32_unpack(out0, out1, w);
    bs_wipe32(w, BS_WORDS(w));
}
#endif

/* Components, for the per-component benchmark (variant t0 for MixColumns). */
void bs_skinny_fix32_sbox(uint32_t w[8])
{
    uint32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7];
    FIX32_SBOX(w0, w1, w2, w3, w4, w5, w6, w7);
    w[0] = w0, w[1] = w1, w[2] = w2, w[3] = w3, w[4] = w4, w[5] = w5, w[6] = w6, w[7] = w7;
}

void bs_skinny_fix32_mixcolumns(uint32_t w[8])
{
    uint32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7];
    uint32_t slot0 = SLOT0;
    FIX32_MC(28, 2, 16, 4, 12, 6);
    w[0] = w0, w[1] = w1, w[2] = w2, w[3] = w3, w[4] = w4, w[5] = w5, w[6] = w6, w[7] = w7;
}

void bs_skinny_fix32_addkey(uint32_t w[8], const uint32_t rtk[8])
{
    for (unsigned b = 0; b < 8; b++)
        w[b] ^= rtk[b];
}

static void fix32_encrypt(unsigned rounds, const bs_key_schedule *ks, uint8_t *out,
                          const uint8_t *in, size_t nblocks)
{
    const uint32_t *rtk = (const uint32_t *)ks->w;
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        bs_skinny_fix32_2blocks(rtk, rounds, out, out + 16, in, in + 16);
    if (nblocks) {
        /* one block: the second lane carries a copy, whose output is dropped */
        uint32_t spare[4];
        bs_skinny_fix32_2blocks(rtk, rounds, (uint8_t *)spare, (uint8_t *)spare, in, in);
        memcpy(out, spare, 16);
        bs_wipe32(spare, BS_WORDS(spare));
    }
}

#define SKINNY_FIX32_VARIANT(tag, cname, klen)                                                     \
    static void tag##_fix32_set_key(bs_key_schedule *ks, const uint8_t *key)                       \
    {                                                                                              \
        fix32_set_key(ks, key, klen);                                                              \
    }                                                                                              \
    static void tag##_fix32_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,    \
                                    size_t nblocks)                                                \
    {                                                                                              \
        fix32_encrypt(bs_skinny_rounds(klen), ks, out, in, nblocks);                               \
    }                                                                                              \
    const bs_block_cipher bs_##tag##_fix32 = {                                                     \
        .name = cname,                                                                             \
        .impl = "fix32",                                                                           \
        .level = BS_CPU_PORTABLE,                                                                  \
        .key_len = klen,                                                                           \
        .block_len = 16,                                                                           \
        .lanes = 2,                                                                                \
        .set_key = tag##_fix32_set_key,                                                            \
        .encrypt = tag##_fix32_encrypt,                                                            \
    };

SKINNY_FIX32_VARIANT(skinny128_128, "SKINNY-128-128", 16)
SKINNY_FIX32_VARIANT(skinny128_256, "SKINNY-128-256", 32)
SKINNY_FIX32_VARIANT(skinny128_384, "SKINNY-128-384", 48)
