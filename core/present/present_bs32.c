/*
 * PRESENT-80 and PRESENT-128 bitsliced for 32-bit registers, two blocks per pass.
 *
 * State: four slices s[j], slice j holding bit j of every nibble; nibble n of block 0 at bit n,
 * of block 1 at bit 16 + n (bs_mcu_nibble_pack, SWAPMOVE). Bit i = 4n + j of a block is the
 * integer bit of docs/spec/algorithms.md (big-endian bytes).
 *
 * pLayer: P(i) = 16 i mod 63 sends bit (slice j, nibble 4q + m) to (slice m, nibble 4j + q):
 * a cycle of three 2-bit coordinates (slice, high, low half of the nibble index). Exchanging the
 * slice index with the low half (two SWAPMOVE layers between slices) gives (slice m, nibble
 * 4q + j): the right slices, with the nibble index's halves exchanged. All slices share that
 * position permutation, so the S-box still lines up, and the next round exchanges the slice
 * index with the *high* half instead, which returns to the standard order. So every round costs
 * 4 SWAPMOVEs, the round keys of even rounds are stored with the halves exchanged, and after
 * the odd 31st round one in-register exchange restores the order (a fixslicing of PRESENT's
 * pLayer with period 2).
 *
 * S-box and key schedule: present.h's (bs_present_sbox_u32, the circuit the 64-lane core and
 * the GPU use; its key registers, bs_present80/128_key_*), so there is one of each.
 */
#include "bitslice.h"
#include "present.h"

_Static_assert(sizeof(uint32_t[BS_PRESENT_BS32_RK_WORDS]) <= BS_KS_MAX,
               "PRESENT bs32 round keys exceed BS_KS_MAX");

/*
 * pLayer with the slice index exchanged for the nibble index's low half (odd rounds) or its
 * high half (even rounds): see the header comment. 4 SWAPMOVEs between slices.
 */
static inline void player_lo(uint32_t *s0, uint32_t *s1, uint32_t *s2, uint32_t *s3)
{
    bs_swapmove32(s1, s0, 0x55555555u, 1);
    bs_swapmove32(s3, s2, 0x55555555u, 1);
    bs_swapmove32(s2, s0, 0x33333333u, 2);
    bs_swapmove32(s3, s1, 0x33333333u, 2);
}

static inline void player_hi(uint32_t *s0, uint32_t *s1, uint32_t *s2, uint32_t *s3)
{
    bs_swapmove32(s1, s0, 0x0f0f0f0fu, 4);
    bs_swapmove32(s3, s2, 0x0f0f0f0fu, 4);
    bs_swapmove32(s2, s0, 0x00ff00ffu, 8);
    bs_swapmove32(s3, s1, 0x00ff00ffu, 8);
}

/* Exchanges the two halves of the nibble index in each 16-bit block: (q1 q0 m1 m0) -> (m q). */
static inline uint32_t swap_halves(uint32_t x)
{
    bs_swapmove32(&x, &x, 0x0a0a0a0au, 3);
    bs_swapmove32(&x, &x, 0x00cc00ccu, 6);
    return x;
}

#define PRESENT_ROUND(rk, PLAYER)                                                                  \
    do {                                                                                           \
        s0 ^= (rk)[0];                                                                             \
        s1 ^= (rk)[1];                                                                             \
        s2 ^= (rk)[2];                                                                             \
        s3 ^= (rk)[3];                                                                             \
        bs_present_sbox_u32(&s3, &s2, &s1, &s0);                                                   \
        PLAYER(&s0, &s1, &s2, &s3);                                                                \
    } while (0)

/*
 * flatten: present.h's S-box and the pLayer helpers take pointers; where they stay calls (-Os
 * would keep them so), the four slices go through memory every round.
 */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((flatten))
#endif
void bs_present_bs32_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint32_t w[4], s[4];
    for (int b = 0; b < 2; b++) {
        w[2 * b] = bs_load_be32(in + 8 * b + 4);
        w[2 * b + 1] = bs_load_be32(in + 8 * b);
    }
    bs_mcu_nibble_pack(s, w);
    uint32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    for (int r = 0; r < 30; r += 2, rk += 8) {
        PRESENT_ROUND(rk, player_lo);
        PRESENT_ROUND(rk + 4, player_hi);
    }
    PRESENT_ROUND(rk, player_lo);
    /* 31 rounds leave the nibble-index halves exchanged: the last key is stored that way */
    s[0] = swap_halves(s0 ^ rk[4]);
    s[1] = swap_halves(s1 ^ rk[5]);
    s[2] = swap_halves(s2 ^ rk[6]);
    s[3] = swap_halves(s3 ^ rk[7]);
    bs_mcu_nibble_unpack(w, s);
    for (int b = 0; b < 2; b++) {
        bs_store_be32(out + 8 * b + 4, w[2 * b]);
        bs_store_be32(out + 8 * b, w[2 * b + 1]);
    }
}

/*
 * Round key r (1..32, 64 bits) -> four slices, the same key for both blocks, in the
 * representation the state has before round r: after an odd number of pLayers the halves of
 * the nibble index are exchanged.
 */
static void slice_key(uint32_t *rk, uint64_t k, uint32_t r)
{
    uint32_t w[4] = {(uint32_t)k, (uint32_t)(k >> 32), (uint32_t)k, (uint32_t)(k >> 32)};
    bs_mcu_nibble_pack(rk, w);
    if ((r - 1) & 1)
        for (int i = 0; i < 4; i++)
            rk[i] = swap_halves(rk[i]);
}

/*
 * present.h's key register, each round key sliced as it comes: no table of 32 keys on the stack
 * (wiping one cost ~1,000 instructions on the Cortex-M4, picolibc's memset being byte-wise), only
 * the register to wipe.
 */
static void present80_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    bs_present_key_reg reg;
    bs_present80_key_load(&reg, key);
    for (uint32_t r = 1; r <= BS_PRESENT_ROUND_KEYS; r++) {
        slice_key(rk + 4 * (r - 1), bs_present_key_get(&reg), r);
        bs_present80_key_update(&reg, r);
    }
    bs_wipe(&reg, sizeof reg);
}

static void present128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    bs_present_key_reg reg;
    bs_present128_key_load(&reg, key);
    for (uint32_t r = 1; r <= BS_PRESENT_ROUND_KEYS; r++) {
        slice_key(rk + 4 * (r - 1), bs_present_key_get(&reg), r);
        bs_present128_key_update(&reg, r);
    }
    bs_wipe(&reg, sizeof reg);
}

static void present_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                            size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
    for (; nblocks >= 2; nblocks -= 2, in += 16, out += 16)
        bs_present_bs32_2blocks(rk, out, in);
    if (nblocks) {
        uint8_t buf[16] = {0};
        memcpy(buf, in, 8);
        bs_present_bs32_2blocks(rk, buf, buf);
        memcpy(out, buf, 8);
        bs_wipe(buf, sizeof buf);
    }
}

const bs_block_cipher bs_present80_bs32 = {
    .name = "PRESENT-80",
    .impl = "bs32",
    .level = BS_CPU_PORTABLE,
    .key_len = 10,
    .block_len = 8,
    .lanes = 2,
    .set_key = present80_set_key,
    .encrypt = present_encrypt,
};

const bs_block_cipher bs_present128_bs32 = {
    .name = "PRESENT-128",
    .impl = "bs32",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 8,
    .lanes = 2,
    .set_key = present128_set_key,
    .encrypt = present_encrypt,
};
