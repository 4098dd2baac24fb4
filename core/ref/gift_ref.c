/*
 * GIFT-64 and GIFT-128, bit by bit from the specification (Banik, Pandey, Peyrin, Sasaki, Sim,
 * Todo: "GIFT: A Small Present", CHES 2017, section 2). Test oracle only.
 *
 * Bit order of docs/spec/algorithms.md: the block is a big-endian integer and bit 0 is its least
 * significant bit; the key is k7 || ... || k0 as 16-bit words, k7 in the first two bytes.
 */
#include <string.h>

#include "ref.h"

static const uint8_t gift_sbox[16] = {0x1, 0xa, 0x4, 0xc, 0x6, 0xf, 0x3, 0x9,
                                      0x2, 0xd, 0xb, 0x7, 0x5, 0x0, 0x8, 0xe};

/* n-bit block bytes -> bits[0..n-1], bit 0 the least significant bit of the last byte. */
static void to_bits(const uint8_t *bytes, unsigned nbits, uint8_t *bits)
{
    for (unsigned i = 0; i < nbits; i++)
        bits[i] = (bytes[nbits / 8 - 1 - i / 8] >> (i % 8)) & 1;
}

static void from_bits(const uint8_t *bits, unsigned nbits, uint8_t *bytes)
{
    memset(bytes, 0, nbits / 8);
    for (unsigned i = 0; i < nbits; i++)
        bytes[nbits / 8 - 1 - i / 8] |= (uint8_t)(bits[i] << (i % 8));
}

static uint16_t ror16(uint16_t x, unsigned r)
{
    return (uint16_t)((x >> r) | (x << (16 - r)));
}

/* nbits = 64 or 128; rounds = 28 or 40. */
static void gift_encrypt(unsigned nbits, unsigned rounds, const uint8_t *key, const uint8_t *in,
                         uint8_t *out)
{
    uint8_t b[128], t[128];
    uint16_t k[8]; /* k[j] is k_j of the specification */
    unsigned c = 0, s = nbits / 4;

    for (unsigned j = 0; j < 8; j++)
        k[7 - j] = (uint16_t)((key[2 * j] << 8) | key[2 * j + 1]);
    to_bits(in, nbits, b);

    for (unsigned r = 0; r < rounds; r++) {
        /* SubCells: nibble i is b[4i+3] b[4i+2] b[4i+1] b[4i] */
        for (unsigned i = 0; i < s; i++) {
            unsigned x = b[4 * i] | (b[4 * i + 1] << 1) | (b[4 * i + 2] << 2) | (b[4 * i + 3] << 3);
            unsigned y = gift_sbox[x];
            for (unsigned j = 0; j < 4; j++)
                b[4 * i + j] = (y >> j) & 1;
        }
        /* PermBits: b[P(i)] <- b[i] */
        for (unsigned i = 0; i < nbits; i++) {
            unsigned p = 4 * (i / 16) + s * ((3 * ((i % 16) / 4) + (i % 4)) % 4) + (i % 4);
            t[p] = b[i];
        }
        memcpy(b, t, nbits);
        /* AddRoundKey */
        if (nbits == 64) {
            /* U = k1, V = k0: b[4i+1] ^= u_i, b[4i] ^= v_i */
            for (unsigned i = 0; i < 16; i++) {
                b[4 * i + 1] ^= (k[1] >> i) & 1;
                b[4 * i] ^= (k[0] >> i) & 1;
            }
        } else {
            /* U = k5 || k4, V = k1 || k0: b[4i+2] ^= u_i, b[4i+1] ^= v_i */
            uint32_t u = ((uint32_t)k[5] << 16) | k[4], v = ((uint32_t)k[1] << 16) | k[0];
            for (unsigned i = 0; i < 32; i++) {
                b[4 * i + 2] ^= (u >> i) & 1;
                b[4 * i + 1] ^= (v >> i) & 1;
            }
        }
        /* round constant: (c5..c0) <- (c4..c0, c5 ^ c4 ^ 1), from 0; then b[4i+3] ^= c_i */
        c = ((c << 1) & 0x3e) | (((c >> 5) ^ (c >> 4) ^ 1) & 1);
        for (unsigned i = 0; i < 6; i++)
            b[4 * i + 3] ^= (c >> i) & 1;
        b[nbits - 1] ^= 1;
        /* key state: k7 || ... || k0 <- k1 >>> 2 || k0 >>> 12 || k7 || ... || k2 */
        uint16_t k0 = k[0], k1 = k[1];
        for (unsigned j = 0; j < 6; j++)
            k[j] = k[j + 2];
        k[6] = ror16(k0, 12);
        k[7] = ror16(k1, 2);
    }
    from_bits(b, nbits, out);
}

void bs_ref_gift64_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    gift_encrypt(64, 28, key, in, out);
}

void bs_ref_gift128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    gift_encrypt(128, 40, key, in, out);
}
