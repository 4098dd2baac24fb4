/*
 * AES-128 and AES-256 (FIPS-197) byte by byte, straight from the standard: the S-box is
 * computed from its definition (inverse in GF(2^8), then the affine map) rather than typed in,
 * state bytes are s[r + 4c] = in[r + 4c]. A test oracle only: it indexes and branches on data.
 */
#include <string.h>

#include "ref.h"

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
    uint8_t p = 0;
    while (b) {
        if (b & 1)
            p ^= a;
        a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
        b >>= 1;
    }
    return p;
}

static uint8_t sbox(uint8_t x)
{
    uint8_t inv = 0;
    for (unsigned y = 1; y < 256 && x != 0; y++)
        if (gf_mul(x, (uint8_t)y) == 1)
            inv = (uint8_t)y;
    uint8_t s = 0x63;
    for (unsigned i = 0; i < 8; i++) {
        unsigned bit = ((inv >> i) ^ (inv >> ((i + 4) % 8)) ^ (inv >> ((i + 5) % 8)) ^
                        (inv >> ((i + 6) % 8)) ^ (inv >> ((i + 7) % 8))) &
                       1;
        s ^= (uint8_t)(bit << i);
    }
    return s;
}

static const uint8_t *sbox_table(void)
{
    static uint8_t t[256];
    static int ready;
    if (!ready) {
        for (unsigned i = 0; i < 256; i++)
            t[i] = sbox((uint8_t)i);
        ready = 1;
    }
    return t;
}

/* FIPS-197 5.2: nk key words, 4 * (nr + 1) round-key words as bytes w[4 i + j]. */
static void expand_key(const uint8_t *key, unsigned nk, unsigned nr, uint8_t *w)
{
    const uint8_t *s = sbox_table();
    uint8_t rcon = 1;
    memcpy(w, key, 4 * nk);
    for (unsigned i = nk; i < 4 * (nr + 1); i++) {
        uint8_t t[4];
        memcpy(t, w + 4 * (i - 1), 4);
        if (i % nk == 0) {
            uint8_t t0 = t[0];
            t[0] = (uint8_t)(s[t[1]] ^ rcon);
            t[1] = s[t[2]];
            t[2] = s[t[3]];
            t[3] = s[t0];
            rcon = gf_mul(rcon, 2);
        } else if (nk > 6 && i % nk == 4) {
            for (unsigned j = 0; j < 4; j++)
                t[j] = s[t[j]];
        }
        for (unsigned j = 0; j < 4; j++)
            w[4 * i + j] = w[4 * (i - nk) + j] ^ t[j];
    }
}

static void encrypt(const uint8_t *key, unsigned nk, unsigned nr, const uint8_t *in, uint8_t *out)
{
    const uint8_t *sb = sbox_table();
    uint8_t w[16 * 15], s[16], t[16];
    expand_key(key, nk, nr, w);
    for (unsigned i = 0; i < 16; i++)
        s[i] = in[i] ^ w[i];
    for (unsigned round = 1; round <= nr; round++) {
        for (unsigned i = 0; i < 16; i++)
            s[i] = sb[s[i]];
        /* ShiftRows: s'[r][c] = s[r][c + r] */
        for (unsigned r = 0; r < 4; r++)
            for (unsigned c = 0; c < 4; c++)
                t[r + 4 * c] = s[r + 4 * ((c + r) % 4)];
        if (round < nr) {
            for (unsigned c = 0; c < 4; c++) {
                const uint8_t *a = t + 4 * c;
                for (unsigned r = 0; r < 4; r++)
                    s[r + 4 * c] = gf_mul(a[r], 2) ^ gf_mul(a[(r + 1) % 4], 3) ^ a[(r + 2) % 4] ^
                                   a[(r + 3) % 4];
            }
        } else {
            memcpy(s, t, 16);
        }
        for (unsigned i = 0; i < 16; i++)
            s[i] ^= w[16 * round + i];
    }
    memcpy(out, s, 16);
}

void bs_ref_aes128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    encrypt(key, 4, 10, in, out);
}

void bs_ref_aes256_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    encrypt(key, 8, 14, in, out);
}
