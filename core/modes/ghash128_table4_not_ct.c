/*
 * ghash128_table4_not_ct.c: GHASH-128 with Shoup's 4-bit tables (16 multiples of H, and the
 * reduction of the 4 bits shifted out), one nibble at a time from the last byte.
 *
 * NOT CONSTANT-TIME. Every table index is a nibble of (accumulator ^ input) and of the partial
 * product, all of which depend on H = E_K(0), a secret: a cache-timing observer learns about H,
 * and with it can forge tags. It is here to be measured against the table-free ctmul32 and
 * ctshift32 (about twice as fast on a Cortex-M4 in the literature) and as the ct suite's leaky
 * control. GCM-128 uses it only when asked to (bs_gcm128_set_ghash) or in a build configured
 * with -Dghash128_table4_not_ct=true.
 *
 * Key form: hkey[2 i], hkey[2 i + 1] = the high and low 64 bits of i * H (i = 0..15, nibble
 * bit 3 = x^0), GCM's bit order: the most significant bit of the high word is x^0.
 */
#include "gcm128.h"

/* (x^4 times the 4 bits shifted out) reduced: the top 16 bits of the high word. */
static const uint16_t last4[16] = {0x0000, 0x1c20, 0x3840, 0x2460, 0x7080, 0x6ca0, 0x48c0, 0x54e0,
                                   0xe100, 0xfd20, 0xd940, 0xc560, 0x9180, 0x8da0, 0xa9c0, 0xb5e0};

static void table4_init(uint64_t hkey[BS_GHASH128_HKEY_WORDS], const uint8_t h[16])
{
    uint64_t vh = bs_load_be64(h), vl = bs_load_be64(h + 8);
    memset(hkey, 0, BS_GHASH128_HKEY_WORDS * sizeof(uint64_t));
    /* 8 * H = H (index 8 is x^0), then 4, 2, 1 by successive halving (multiplying by x) */
    hkey[16] = vh;
    hkey[17] = vl;
    for (int i = 4; i > 0; i >>= 1) {
        uint64_t t = (vl & 1) * 0xe1000000u;
        vl = (vh << 63) | (vl >> 1);
        vh = (vh >> 1) ^ (t << 32);
        hkey[2 * i] = vh;
        hkey[2 * i + 1] = vl;
    }
    for (int i = 2; i <= 8; i *= 2)
        for (int j = 1; j < i; j++) {
            hkey[2 * (i + j)] = hkey[2 * i] ^ hkey[2 * j];
            hkey[2 * (i + j) + 1] = hkey[2 * i + 1] ^ hkey[2 * j + 1];
        }
}

/* y = y * H through the tables. */
static void table4_mul(const uint64_t *hkey, uint8_t y[16])
{
    unsigned lo = y[15] & 0xf;
    uint64_t zh = hkey[2 * lo], zl = hkey[2 * lo + 1];
    for (int i = 15; i >= 0; i--) {
        unsigned hi = y[i] >> 4;
        if (i != 15) {
            lo = y[i] & 0xf;
            unsigned rem = (unsigned)(zl & 0xf);
            zl = (zh << 60) | (zl >> 4);
            zh = (zh >> 4) ^ ((uint64_t)last4[rem] << 48);
            zh ^= hkey[2 * lo];
            zl ^= hkey[2 * lo + 1];
        }
        unsigned rem = (unsigned)(zl & 0xf);
        zl = (zh << 60) | (zl >> 4);
        zh = (zh >> 4) ^ ((uint64_t)last4[rem] << 48);
        zh ^= hkey[2 * hi];
        zl ^= hkey[2 * hi + 1];
    }
    bs_store_be64(y, zh);
    bs_store_be64(y + 8, zl);
}

static void table4_mul_blocks(const uint64_t hkey[BS_GHASH128_HKEY_WORDS], uint8_t y[16],
                              const uint8_t *blocks, size_t nblocks)
{
    for (size_t b = 0; b < nblocks; b++, blocks += 16) {
        for (int i = 0; i < 16; i++)
            y[i] ^= blocks[i];
        table4_mul(hkey, y);
    }
}

const bs_ghash128_impl bs_ghash128_table4_not_ct = {
    .name = "table4_not_ct",
    .constant_time = 0,
    .init = table4_init,
    .mul_blocks = table4_mul_blocks,
    .level = BS_CPU_PORTABLE,
};
