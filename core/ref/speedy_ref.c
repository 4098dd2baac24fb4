/*
 * SPEEDY-r-192, bit by bit from the specification (Leander, Moos, Moradi, Rasoolzadeh, TCHES
 * 2021(4)) in the conventions of docs/spec/skinny-speedy.md. Test oracle only: it uses the S-box
 * table and indexes by data.
 */
#include <string.h>

#include "ref.h"

static const uint8_t speedy_sbox[64] = {
    0x08, 0x00, 0x09, 0x03, 0x38, 0x10, 0x29, 0x13, 0x0c, 0x0d, 0x04, 0x07, 0x30, 0x01, 0x20, 0x23,
    0x1a, 0x12, 0x18, 0x32, 0x3e, 0x16, 0x2c, 0x36, 0x1c, 0x1d, 0x14, 0x37, 0x34, 0x05, 0x24, 0x27,
    0x02, 0x06, 0x0b, 0x0f, 0x33, 0x17, 0x21, 0x15, 0x0a, 0x1b, 0x0e, 0x1f, 0x31, 0x11, 0x25, 0x35,
    0x22, 0x26, 0x2a, 0x2e, 0x3a, 0x1e, 0x28, 0x3c, 0x2b, 0x3b, 0x2f, 0x3f, 0x39, 0x19, 0x2d, 0x3d,
};

/* The fractional part of pi, 6 * 192 bits: c_r is hex digits 48r .. 48r + 47. */
static const char speedy_pi_hex[] = "243f6a8885a308d313198a2e03707344a4093822299f31d0"
                                    "082efa98ec4e6c89452821e638d01377be5466cf34e90c6c"
                                    "c0ac29b7c97c50dd3f84d5b5b54709179216d5d98979fb1b"
                                    "d1310ba698dfb5ac2ffd72dbd01adfb7b8e1afed6a267e96"
                                    "ba7c9045f12c7f9924a19947b3916cf70801f2e2858efc16"
                                    "636920d871574e69a458fea3f4933d7e0d95748f728eb658";

static const unsigned speedy_alpha[7] = {0, 1, 5, 9, 15, 21, 26};

/* x[n], n = 0..191, one bit per byte; x[0] the most significant bit of byte 0. */
static void to_bits(const uint8_t *bytes, uint8_t *x)
{
    for (unsigned n = 0; n < 192; n++)
        x[n] = (bytes[n / 8] >> (7 - n % 8)) & 1;
}

static void from_bits(const uint8_t *x, uint8_t *bytes)
{
    memset(bytes, 0, 24);
    for (unsigned n = 0; n < 192; n++)
        bytes[n / 8] |= (uint8_t)(x[n] << (7 - n % 8));
}

static unsigned hexval(char c)
{
    return (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
}

static void add_constant(uint8_t *x, unsigned r)
{
    for (unsigned n = 0; n < 192; n++)
        x[n] ^= (hexval(speedy_pi_hex[48 * r + n / 4]) >> (3 - n % 4)) & 1;
}

static void sub_box(uint8_t *x)
{
    for (unsigned i = 0; i < 32; i++) {
        unsigned v = 0;
        for (unsigned j = 0; j < 6; j++)
            v = (v << 1) | x[6 * i + j];
        unsigned s = speedy_sbox[v];
        for (unsigned j = 0; j < 6; j++)
            x[6 * i + j] = (s >> (5 - j)) & 1;
    }
}

static void shift_columns(uint8_t *x)
{
    uint8_t y[192];
    for (unsigned i = 0; i < 32; i++)
        for (unsigned j = 0; j < 6; j++)
            y[6 * i + j] = x[6 * ((i + j) % 32) + j];
    memcpy(x, y, sizeof y);
}

static void mix_columns(uint8_t *x)
{
    uint8_t y[192];
    for (unsigned i = 0; i < 32; i++)
        for (unsigned j = 0; j < 6; j++) {
            uint8_t b = 0;
            for (unsigned a = 0; a < 7; a++)
                b ^= x[6 * ((i + speedy_alpha[a]) % 32) + j];
            y[6 * i + j] = b;
        }
    memcpy(x, y, sizeof y);
}

static void add_key(uint8_t *x, const uint8_t *k)
{
    for (unsigned n = 0; n < 192; n++)
        x[n] ^= k[n];
}

static void next_key(uint8_t *k)
{
    uint8_t t[192];
    for (unsigned n = 0; n < 192; n++)
        t[n] = k[(7 * n + 1) % 192];
    memcpy(k, t, sizeof t);
}

static void speedy_encrypt(unsigned rounds, const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    uint8_t x[192], k[192];
    to_bits(key, k);
    to_bits(in, x);
    for (unsigned r = 0; r + 1 < rounds; r++) {
        add_key(x, k);
        sub_box(x);
        shift_columns(x);
        sub_box(x);
        shift_columns(x);
        mix_columns(x);
        add_constant(x, r);
        next_key(k);
    }
    add_key(x, k);
    sub_box(x);
    shift_columns(x);
    sub_box(x);
    next_key(k);
    add_key(x, k);
    from_bits(x, out);
}

void bs_ref_speedy5_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    speedy_encrypt(5, key, in, out);
}

void bs_ref_speedy6_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    speedy_encrypt(6, key, in, out);
}

void bs_ref_speedy7_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    speedy_encrypt(7, key, in, out);
}
