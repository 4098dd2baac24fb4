/*
 * RIJNDAEL-256-GCM by the book (docs/spec/rijndael256-gcm.md): SP 800-38D with n = 256,
 * Algorithm 1 bit by bit, R = A4 20 || 0^240.
 */
#include <string.h>

#include "ref.h"

void bs_ref_gf256_mul(const uint8_t x[32], const uint8_t y[32], uint8_t out[32])
{
    uint8_t z[32] = {0}, v[32];
    memcpy(v, y, 32);
    for (int i = 0; i < 256; i++) {
        if ((x[i / 8] >> (7 - i % 8)) & 1)
            for (int j = 0; j < 32; j++)
                z[j] ^= v[j];
        int lsb = v[31] & 1;
        for (int j = 31; j > 0; j--)
            v[j] = (uint8_t)((v[j] >> 1) | (v[j - 1] << 7));
        v[0] >>= 1;
        if (lsb) {
            v[0] ^= 0xA4;
            v[1] ^= 0x20;
        }
    }
    memcpy(out, z, 32);
}

static void ghash_update(const uint8_t h[32], uint8_t y[32], const uint8_t *data, size_t len)
{
    for (size_t off = 0; off < len; off += 32) {
        uint8_t block[32] = {0};
        memcpy(block, data + off, len - off < 32 ? len - off : 32);
        for (int i = 0; i < 32; i++)
            y[i] ^= block[i];
        bs_ref_gf256_mul(y, h, y);
    }
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

void bs_ref_gcm256_encrypt(const uint8_t key[32], const uint8_t *iv, size_t iv_len,
                           const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
                           uint8_t *ct, uint8_t tag[32])
{
    uint8_t zero[32] = {0}, h[32], j0[32] = {0}, y[32] = {0}, lens[32] = {0}, ek[32];
    bs_ref_rijndael256_encrypt(key, zero, h);
    if (iv_len == 28) {
        memcpy(j0, iv, 28);
        j0[31] = 1;
    } else {
        ghash_update(h, j0, iv, iv_len);
        put_be64(lens + 24, (uint64_t)iv_len * 8);
        ghash_update(h, j0, lens, 32);
    }
    uint8_t cb[32];
    memcpy(cb, j0, 32);
    for (size_t off = 0; off < len; off += 32) {
        /* inc32: the last four bytes, modulo 2^32 */
        for (int i = 31; i >= 28; i--)
            if (++cb[i] != 0)
                break;
        bs_ref_rijndael256_encrypt(key, cb, ek);
        for (size_t i = 0; i < 32 && off + i < len; i++)
            ct[off + i] = pt[off + i] ^ ek[i];
    }
    ghash_update(h, y, aad, aad_len);
    ghash_update(h, y, ct, len);
    memset(lens, 0, sizeof lens);
    put_be64(lens + 8, (uint64_t)aad_len * 8);
    put_be64(lens + 24, (uint64_t)len * 8);
    ghash_update(h, y, lens, 32);
    bs_ref_rijndael256_encrypt(key, j0, ek);
    for (int i = 0; i < 32; i++)
        tag[i] = ek[i] ^ y[i];
}
