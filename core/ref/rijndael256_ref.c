/*
 * Rijndael with Nb = 8, Nk = 8, Nr = 14, byte by byte from "The Design of Rijndael" and
 * FIPS-197: state[r][c] = in[r + 4c], ShiftRows offsets (0, 1, 3, 4). The S-box is computed
 * from its definition (inverse in GF(2^8), then the affine map), not copied from a table.
 */
#include <string.h>

#include "ref.h"

static uint8_t xtime(uint8_t a)
{
    return (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
}

static uint8_t gmul(uint8_t a, uint8_t b)
{
    uint8_t p = 0;
    while (b) {
        if (b & 1)
            p ^= a;
        a = xtime(a);
        b >>= 1;
    }
    return p;
}

static uint8_t sbox_from_definition(uint8_t x)
{
    uint8_t inv = 0;
    for (int c = 1; c < 256 && x != 0; c++)
        if (gmul(x, (uint8_t)c) == 1)
            inv = (uint8_t)c;
    uint8_t s = 0x63;
    for (int i = 0; i < 8; i++) {
        int bit = ((inv >> i) ^ (inv >> ((i + 4) % 8)) ^ (inv >> ((i + 5) % 8)) ^
                   (inv >> ((i + 6) % 8)) ^ (inv >> ((i + 7) % 8))) & 1;
        s ^= (uint8_t)(bit << i);
    }
    return s;
}

/* The S-box as a table, filled once from its definition (test oracle only: not constant-time). */
static uint8_t sbox(uint8_t x)
{
    static uint8_t table[256];
    static int ready;
    if (!ready) {
        for (int i = 0; i < 256; i++)
            table[i] = sbox_from_definition((uint8_t)i);
        ready = 1;
    }
    return table[x];
}

#define NB 8
#define NK 8
#define NR 14

static void key_expand(const uint8_t *key, uint8_t w[NB * (NR + 1)][4])
{
    uint8_t rcon = 1;
    for (int i = 0; i < NK; i++)
        memcpy(w[i], key + 4 * i, 4);
    for (int i = NK; i < NB * (NR + 1); i++) {
        uint8_t t[4];
        memcpy(t, w[i - 1], 4);
        if (i % NK == 0) {
            uint8_t t0 = t[0];
            t[0] = (uint8_t)(sbox(t[1]) ^ rcon);
            t[1] = sbox(t[2]);
            t[2] = sbox(t[3]);
            t[3] = sbox(t0);
            rcon = xtime(rcon);
        } else if (i % NK == 4) {
            for (int j = 0; j < 4; j++)
                t[j] = sbox(t[j]);
        }
        for (int j = 0; j < 4; j++)
            w[i][j] = w[i - NK][j] ^ t[j];
    }
}

void bs_ref_rijndael256_round_keys(const uint8_t key[32], uint8_t out[(NR + 1) * 4 * NB])
{
    uint8_t w[NB * (NR + 1)][4];
    key_expand(key, w);
    memcpy(out, w, sizeof w);
}

static void add_round_key(uint8_t s[4][NB], uint8_t w[][4], int round)
{
    for (int c = 0; c < NB; c++)
        for (int r = 0; r < 4; r++)
            s[r][c] ^= w[round * NB + c][r];
}

void bs_ref_rijndael256_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out)
{
    static const int shift[4] = {0, 1, 3, 4};
    uint8_t w[NB * (NR + 1)][4], s[4][NB], t[NB];
    key_expand(key, w);
    for (int c = 0; c < NB; c++)
        for (int r = 0; r < 4; r++)
            s[r][c] = in[r + 4 * c];
    add_round_key(s, w, 0);
    for (int round = 1; round <= NR; round++) {
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < NB; c++)
                s[r][c] = sbox(s[r][c]);
        for (int r = 1; r < 4; r++) {
            for (int c = 0; c < NB; c++)
                t[c] = s[r][(c + shift[r]) % NB];
            memcpy(s[r], t, NB);
        }
        if (round != NR) {
            for (int c = 0; c < NB; c++) {
                uint8_t a0 = s[0][c], a1 = s[1][c], a2 = s[2][c], a3 = s[3][c];
                s[0][c] = (uint8_t)(gmul(a0, 2) ^ gmul(a1, 3) ^ a2 ^ a3);
                s[1][c] = (uint8_t)(a0 ^ gmul(a1, 2) ^ gmul(a2, 3) ^ a3);
                s[2][c] = (uint8_t)(a0 ^ a1 ^ gmul(a2, 2) ^ gmul(a3, 3));
                s[3][c] = (uint8_t)(gmul(a0, 3) ^ a1 ^ a2 ^ gmul(a3, 2));
            }
        }
        add_round_key(s, w, round);
    }
    for (int c = 0; c < NB; c++)
        for (int r = 0; r < 4; r++)
            out[r + 4 * c] = s[r][c];
}
