/*
 * The AES key schedule (FIPS-197 5.2) for the 32-bit cores: the standard expansion, with
 * SubWord through the bitsliced S-box circuit, then every round key permuted into its
 * representation and packed (layout in aes.h). Constant-time: shifts and masks by public
 * amounts, no table.
 */
#include "aes.h"
#include "bs_wipe32.h"

/* SubWord: byte j of w at bit j of each slice, through the circuit, and back with the 0x63. */
static uint32_t subword(uint32_t w)
{
    uint32_t q[8];
    for (unsigned b = 0; b < 8; b++) {
        q[b] = 0;
        for (unsigned j = 0; j < 4; j++)
            q[b] |= ((w >> (8 * j + b)) & 1u) << j;
    }
    bs_aes_sbox_nonot(q);
    uint32_t r = 0;
    for (unsigned b = 0; b < 8; b++)
        for (unsigned j = 0; j < 4; j++)
            r |= ((q[b] >> j) & 1u) << (8 * j + b);
    bs_wipe32(q, BS_WORDS(q));
    return r ^ 0x63636363u;
}

void bs_aes_key_schedule(uint32_t *rk, const uint8_t *key, unsigned nk, unsigned rep_mod)
{
    const unsigned nr = nk + 6;
    uint32_t w[4 * 15];
    uint32_t rcon = 1;
    for (unsigned i = 0; i < nk; i++)
        w[i] = bs_load_le32(key + 4 * i);
    for (unsigned i = nk; i < 4 * (nr + 1); i++) {
        uint32_t t = w[i - 1];
        if (i % nk == 0) {
            t = subword(bs_aes_ror(t, 8)) ^ rcon;
            rcon = (rcon << 1) ^ (0x11bu & (0u - (rcon >> 7)));
        } else if (nk > 6 && i % nk == 4) {
            t = subword(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    for (unsigned i = 0; i <= nr; i++) {
        /* representation k: K[r][c] = RK[r][c - kr], so that SR^k(K) is the round key */
        unsigned k = i % rep_mod;
        uint8_t std[16], blk[16];
        for (unsigned c = 0; c < 4; c++)
            bs_store_le32(std + 4 * c, w[4 * i + c]);
        for (unsigned r = 0; r < 4; r++)
            for (unsigned c = 0; c < 4; c++)
                blk[r + 4 * c] = (uint8_t)(std[r + 4 * ((c + 4 * 4 - k * r) % 4)] ^ (i ? 0x63 : 0));
        bs_aes_pack(rk + 8 * i, blk, blk);
        bs_wipe(std, sizeof std);
        bs_wipe(blk, sizeof blk);
    }
    bs_wipe32(w, BS_WORDS(w));
}
