/*
 * GIFT-64 and GIFT-128 fixsliced for 32-bit registers (Adomnicai, Najm, Peyrin, TCHES 2020/3),
 * in the bit order of spec/algorithms.md (the designers' vectors, not GIFT-COFB's order).
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
 * GIFT-64 {V -> s0, U -> s1, constant -> s3}, with U and V as in the specification.
 *
 * Packing: the block's big-endian words hold nibble n's bit j at bit 4m + j of word n / 8
 * (m = n % 8). SWAPMOVE within each word moves it to bit 8j + m, then a 4x4 byte transpose
 * across the words (SWAPMOVE between words) gives slice j, bit 8w + m.
 *
 * Constant time: no branch or index depends on the key or the data; key set-up moves key bits
 * with shifts by public amounts.
 */
#include "mcu.h"

static inline uint32_t ror32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}

#if defined(__thumb2__)
/* One-register SWAPMOVE: exchanges bits i and i + n of x for the bits i set in m. */
static inline uint32_t gift_swapmove1(uint32_t x, uint32_t m, unsigned n)
{
    bs_swapmove32(&x, &x, m, n);
    return x;
}
#endif

#include "gift_fix_gen.h"

/*
 * In-word bit index (m2 m1 m0 j1 j0) -> (j1 j0 m2 m1 m0) as four swaps of index bits (a, b):
 * (0, 2), (2, 3), (1, 4), (1, 2); each is a SWAPMOVE with shift 2^b - 2^a over the positions
 * whose index has bit a set and bit b clear.
 */
static inline uint32_t pack_word(uint32_t x)
{
    bs_swapmove32(&x, &x, 0x0a0a0a0au, 3);
    bs_swapmove32(&x, &x, 0x00f000f0u, 4);
    bs_swapmove32(&x, &x, 0x0000ccccu, 14);
    bs_swapmove32(&x, &x, 0x0c0c0c0cu, 2);
    return x;
}

static inline uint32_t unpack_word(uint32_t x)
{
    bs_swapmove32(&x, &x, 0x0c0c0c0cu, 2);
    bs_swapmove32(&x, &x, 0x0000ccccu, 14);
    bs_swapmove32(&x, &x, 0x00f000f0u, 4);
    bs_swapmove32(&x, &x, 0x0a0a0a0au, 3);
    return x;
}

/* x[w] bit 8j + m <-> slice j bit 8w + m: word index bits swap with index bits 3 and 4. */
static inline void transpose_bytes(uint32_t x[4])
{
    bs_swapmove32(&x[1], &x[0], 0x00ff00ffu, 8);
    bs_swapmove32(&x[3], &x[2], 0x00ff00ffu, 8);
    bs_swapmove32(&x[2], &x[0], 0x0000ffffu, 16);
    bs_swapmove32(&x[3], &x[1], 0x0000ffffu, 16);
}

void bs_mcu_nibble_pack(uint32_t s[4], const uint32_t w[4])
{
    for (int i = 0; i < 4; i++)
        s[i] = pack_word(w[i]);
    transpose_bytes(s);
}

void bs_mcu_nibble_unpack(uint32_t w[4], const uint32_t s[4])
{
    for (int i = 0; i < 4; i++)
        w[i] = s[i];
    transpose_bytes(w);
    for (int i = 0; i < 4; i++)
        w[i] = unpack_word(w[i]);
}

/* The GIFT S-box on four slices (the designers' bitsliced form; outputs in place). */
#define GIFT_SBOX(s0, s1, s2, s3)                                                                  \
    do {                                                                                           \
        uint32_t t_;                                                                               \
        (s1) ^= (s0) & (s2);                                                                       \
        (s0) ^= (s1) & (s3);                                                                       \
        (s2) ^= (s0) | (s1);                                                                       \
        (s3) ^= (s2);                                                                              \
        (s1) ^= (s3);                                                                              \
        (s3) = ~(s3);                                                                              \
        (s2) ^= (s0) & (s1);                                                                       \
        t_ = (s0);                                                                                 \
        (s0) = (s3);                                                                               \
        (s3) = t_;                                                                                 \
    } while (0)

/* Round constant sequence of the specification: (c5..c0) <- (c4..c0, c5 ^ c4 ^ 1). */
static unsigned next_const(unsigned c)
{
    return ((c << 1) & 0x3e) | (((c >> 5) ^ (c >> 4) ^ 1) & 1);
}

/* Spreads the low `n` bits of v to the positions pos[0..n-1] (public), also at +16 if dup. */
static uint32_t place(uint32_t v, const uint8_t *pos, unsigned n, int dup)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t b = (v >> i) & 1u;
        r |= b << pos[i];
        if (dup)
            r |= b << (pos[i] + 16);
    }
    return r;
}

static void key_words(uint16_t k[8], const uint8_t *key)
{
    for (unsigned j = 0; j < 8; j++)
        k[7 - j] = (uint16_t)((key[2 * j] << 8) | key[2 * j + 1]);
}

static void key_update(uint16_t k[8])
{
    uint16_t k0 = k[0], k1 = k[1];
    for (unsigned j = 0; j < 6; j++)
        k[j] = k[j + 2];
    k[6] = (uint16_t)((k0 >> 12) | (k0 << 4));
    k[7] = (uint16_t)((k1 >> 2) | (k1 << 14));
}

/* ---- GIFT-128: one block, 40 rounds ---- */

static void gift128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    uint16_t k[8];
    unsigned c = 0;
    key_words(k, key);
    for (unsigned r = 0; r < 40; r++) {
        const uint8_t *pos = gift128_POS[r % GIFT128_PERIOD];
        uint32_t u = ((uint32_t)k[5] << 16) | k[4], v = ((uint32_t)k[1] << 16) | k[0];
        c = next_const(c);
        rk[3 * r] = place(v, pos, 32, 0);
        rk[3 * r + 1] = place(u, pos, 32, 0);
        rk[3 * r + 2] = place(c | 0x80000000u, pos, 32, 0);
        key_update(k);
    }
    bs_wipe(k, sizeof k);
}

#define GIFT128_ROUND(k, rk)                                                                       \
    do {                                                                                           \
        GIFT_SBOX(s0, s1, s2, s3);                                                                 \
        s0 = GIFT128_L##k##_0(s0);                                                                 \
        s1 = GIFT128_L##k##_1(s1) ^ (rk)[0];                                                       \
        s2 = GIFT128_L##k##_2(s2) ^ (rk)[1];                                                       \
        s3 ^= (rk)[2];                                                                             \
    } while (0)

void bs_gift128_fix_block(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint32_t w[4], s[4];
    for (int i = 0; i < 4; i++)
        w[i] = bs_load_be32(in + 12 - 4 * i);
    bs_mcu_nibble_pack(s, w);
    uint32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    for (unsigned r = 0; r < 40; r += 5, rk += 15) {
        GIFT128_ROUND(0, rk);
        GIFT128_ROUND(1, rk + 3);
        GIFT128_ROUND(2, rk + 6);
        GIFT128_ROUND(3, rk + 9);
        GIFT128_ROUND(4, rk + 12);
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    bs_mcu_nibble_unpack(w, s);
    for (int i = 0; i < 4; i++)
        bs_store_be32(out + 12 - 4 * i, w[i]);
}

static void gift128_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                            size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++)
        bs_gift128_fix_block((const uint32_t *)ks->w, out + 16 * i, in + 16 * i);
}

const bs_block_cipher bs_gift128_fix32 = {
    "GIFT-128", "fix32", 16, 16, 1, gift128_set_key, gift128_encrypt,
};

/* ---- GIFT-64: two blocks side by side, 28 rounds ---- */

static void gift64_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    uint16_t k[8];
    unsigned c = 0;
    key_words(k, key);
    for (unsigned r = 0; r < 28; r++) {
        const uint8_t *pos = gift64_POS[r % GIFT64_PERIOD];
        c = next_const(c);
        rk[3 * r] = place(k[0], pos, 16, 1);
        rk[3 * r + 1] = place(k[1], pos, 16, 1);
        rk[3 * r + 2] = place(c | 0x8000u, pos, 16, 1);
        key_update(k);
    }
    bs_wipe(k, sizeof k);
}

#define GIFT64_ROUND(k, rk)                                                                        \
    do {                                                                                           \
        GIFT_SBOX(s0, s1, s2, s3);                                                                 \
        s0 = GIFT64_L##k##_0(s0) ^ (rk)[0];                                                        \
        s1 = GIFT64_L##k##_1(s1) ^ (rk)[1];                                                        \
        s2 = GIFT64_L##k##_2(s2);                                                                  \
        s3 ^= (rk)[2];                                                                             \
    } while (0)

/* Two blocks (in, in + 8) -> (out, out + 8). */
void bs_gift64_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint32_t w[4], s[4];
    /* word index (block, half): block b's low word in w[2b], high word in w[2b + 1] */
    for (int b = 0; b < 2; b++) {
        w[2 * b] = bs_load_be32(in + 8 * b + 4);
        w[2 * b + 1] = bs_load_be32(in + 8 * b);
    }
    bs_mcu_nibble_pack(s, w);
    uint32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    for (unsigned r = 0; r < 28; r += 4, rk += 12) {
        GIFT64_ROUND(0, rk);
        GIFT64_ROUND(1, rk + 3);
        GIFT64_ROUND(2, rk + 6);
        GIFT64_ROUND(3, rk + 9);
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
    bs_mcu_nibble_unpack(w, s);
    for (int b = 0; b < 2; b++) {
        bs_store_be32(out + 8 * b + 4, w[2 * b]);
        bs_store_be32(out + 8 * b, w[2 * b + 1]);
    }
}

static void gift64_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                           size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
    for (; nblocks >= 2; nblocks -= 2, in += 16, out += 16)
        bs_gift64_fix_2blocks(rk, out, in);
    if (nblocks) {
        uint8_t buf[16] = {0};
        memcpy(buf, in, 8);
        bs_gift64_fix_2blocks(rk, buf, buf);
        memcpy(out, buf, 8);
        bs_wipe(buf, sizeof buf);
    }
}

const bs_block_cipher bs_gift64_fix32 = {
    "GIFT-64", "fix32", 16, 8, 2, gift64_set_key, gift64_encrypt,
};
