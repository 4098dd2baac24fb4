/*
 * SKINNY-128-128/-256/-384, cell by cell from the specification (Beierle et al., CRYPTO 2016,
 * section 2.3) with the conventions of docs/spec/skinny-speedy.md. Test oracle only: it branches on
 * data and shares nothing with core/skinny/ but the specification.
 */
#include <string.h>

#include "ref.h"

/* S8 from its definition: four NOR/XOR steps, each followed by a bit permutation. */
static uint8_t sbox8(uint8_t v)
{
    unsigned x[8];
    for (unsigned i = 0; i < 8; i++)
        x[i] = (v >> i) & 1;
    for (unsigned step = 0; step < 4; step++) {
        x[4] ^= !(x[7] | x[6]);
        x[0] ^= !(x[3] | x[2]);
        unsigned y[8];
        if (step < 3) {
            /* (x7, x6, x5, x4, x3, x2, x1, x0) -> (x2, x1, x7, x6, x4, x0, x3, x5) */
            y[7] = x[2], y[6] = x[1], y[5] = x[7], y[4] = x[6];
            y[3] = x[4], y[2] = x[0], y[1] = x[3], y[0] = x[5];
        } else {
            /* the last step only swaps x1 and x2 */
            memcpy(y, x, sizeof y);
            y[1] = x[2], y[2] = x[1];
        }
        memcpy(x, y, sizeof x);
    }
    uint8_t r = 0;
    for (unsigned i = 0; i < 8; i++)
        r |= (uint8_t)(x[i] << i);
    return r;
}

static void skinny128_encrypt(unsigned z, const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    static const unsigned perm[16] = {9, 15, 8, 13, 10, 14, 12, 11, 0, 1, 2, 3, 4, 5, 6, 7};
    unsigned rounds = z == 1 ? 40 : z == 2 ? 48 : 56, rc = 0;
    uint8_t s[4][4], tk[3][16];
    for (unsigned i = 0; i < 16; i++)
        s[i / 4][i % 4] = in[i];
    memcpy(tk, key, 16 * z);
    for (unsigned round = 0; round < rounds; round++) {
        for (unsigned r = 0; r < 4; r++)
            for (unsigned c = 0; c < 4; c++)
                s[r][c] = sbox8(s[r][c]);
        rc = ((rc << 1) & 0x3f) | (((rc >> 5) ^ (rc >> 4) ^ 1) & 1);
        s[0][0] ^= rc & 0xf;
        s[1][0] ^= rc >> 4;
        s[2][0] ^= 0x2;
        for (unsigned i = 0; i < 8; i++)
            for (unsigned p = 0; p < z; p++)
                s[i / 4][i % 4] ^= tk[p][i];
        for (unsigned p = 0; p < z; p++) {
            uint8_t t[16];
            for (unsigned i = 0; i < 16; i++)
                t[i] = tk[p][perm[i]];
            memcpy(tk[p], t, 16);
        }
        for (unsigned i = 0; i < 8; i++) {
            if (z >= 2) {
                uint8_t x = tk[1][i];
                tk[1][i] = (uint8_t)((x << 1) | (((x >> 7) ^ (x >> 5)) & 1));
            }
            if (z >= 3) {
                uint8_t x = tk[2][i];
                tk[2][i] = (uint8_t)((x >> 1) | (((x ^ (x >> 6)) & 1) << 7));
            }
        }
        uint8_t t[4][4];
        for (unsigned r = 0; r < 4; r++)
            for (unsigned c = 0; c < 4; c++)
                t[r][c] = s[r][(c + 4 - r) % 4];
        for (unsigned c = 0; c < 4; c++) {
            s[0][c] = t[0][c] ^ t[2][c] ^ t[3][c];
            s[1][c] = t[0][c];
            s[2][c] = t[1][c] ^ t[2][c];
            s[3][c] = t[0][c] ^ t[2][c];
        }
    }
    for (unsigned i = 0; i < 16; i++)
        out[i] = s[i / 4][i % 4];
}

void bs_ref_skinny128_128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    skinny128_encrypt(1, key, in, out);
}

void bs_ref_skinny128_256_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    skinny128_encrypt(2, key, in, out);
}

void bs_ref_skinny128_384_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    skinny128_encrypt(3, key, in, out);
}
