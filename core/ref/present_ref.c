/*
 * PRESENT-80 and PRESENT-128, nibble by nibble and bit by bit from Bogdanov et al., "PRESENT: An
 * Ultra-Lightweight Block Cipher", CHES 2007 (section 3 and appendix II for the 128-bit key).
 * Blocks and keys are big-endian byte strings; bit 0 is the least significant bit of the integer
 * (docs/spec/algorithms.md). The key register is kept as a bit array kbit[0..n-1], kbit[i] = k_i.
 */
#include <string.h>

#include "ref.h"

static const uint8_t present_sbox[16] = {0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd,
                                         0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2};

static uint64_t load_block(const uint8_t *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | in[i];
    return v;
}

static void store_block(uint8_t *out, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t)v;
        v >>= 8;
    }
}

/* kbit[i] = bit i of the big-endian key of nbytes bytes. */
static void key_to_bits(uint8_t *kbit, const uint8_t *key, int nbytes)
{
    for (int i = 0; i < 8 * nbytes; i++)
        kbit[i] = (uint8_t)((key[nbytes - 1 - i / 8] >> (i % 8)) & 1);
}

/* The round key is the leftmost 64 bits of the register: k_{n-1} .. k_{n-64}. */
static uint64_t round_key(const uint8_t *kbit, int nbits)
{
    uint64_t k = 0;
    for (int i = nbits - 1; i >= nbits - 64; i--)
        k = (k << 1) | kbit[i];
    return k;
}

static void rotate_left_61(uint8_t *kbit, int nbits)
{
    uint8_t tmp[128];
    for (int i = 0; i < nbits; i++)
        tmp[(i + 61) % nbits] = kbit[i];
    memcpy(kbit, tmp, (size_t)nbits);
}

/* Replaces the nibble k_{lo+3} .. k_lo by its S-box image. */
static void sbox_nibble(uint8_t *kbit, int lo)
{
    int v = kbit[lo] | (kbit[lo + 1] << 1) | (kbit[lo + 2] << 2) | (kbit[lo + 3] << 3);
    int s = present_sbox[v];
    for (int b = 0; b < 4; b++)
        kbit[lo + b] = (uint8_t)((s >> b) & 1);
}

/* k_{lo+4} .. k_lo ^= round_counter (5 bits). */
static void xor_counter(uint8_t *kbit, int lo, int counter)
{
    for (int b = 0; b < 5; b++)
        kbit[lo + b] ^= (uint8_t)((counter >> b) & 1);
}

static uint64_t sbox_layer(uint64_t s)
{
    uint64_t r = 0;
    for (int j = 0; j < 16; j++)
        r |= (uint64_t)present_sbox[(s >> (4 * j)) & 0xf] << (4 * j);
    return r;
}

/* P(i) = 16 i mod 63 for i < 63, P(63) = 63. */
static uint64_t p_layer(uint64_t s)
{
    uint64_t r = 0;
    for (int i = 0; i < 64; i++) {
        int p = i == 63 ? 63 : (16 * i) % 63;
        r |= ((s >> i) & 1) << p;
    }
    return r;
}

static void present_encrypt(const uint8_t *key, int key_bytes, const uint8_t *in, uint8_t *out)
{
    const int nbits = 8 * key_bytes;
    uint8_t kbit[128];
    uint64_t state = load_block(in);

    key_to_bits(kbit, key, key_bytes);
    for (int i = 1; i <= 31; i++) {
        state ^= round_key(kbit, nbits);
        state = p_layer(sbox_layer(state));
        rotate_left_61(kbit, nbits);
        if (nbits == 80) {
            sbox_nibble(kbit, 76);
            xor_counter(kbit, 15, i);
        } else {
            sbox_nibble(kbit, 124);
            sbox_nibble(kbit, 120);
            xor_counter(kbit, 62, i);
        }
    }
    state ^= round_key(kbit, nbits);
    store_block(out, state);
}

void bs_ref_present80_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    present_encrypt(key, 10, in, out);
}

void bs_ref_present128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    present_encrypt(key, 16, in, out);
}
