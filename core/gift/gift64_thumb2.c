/*
 * GIFT-64 fixsliced on two blocks in hand-scheduled Thumb-2 (Cortex-M3/M4): the key set-up and
 * the bs_block_cipher face of gift64_thumb2.S, which embedded/gen/gift64_thumb2.py generates
 * and checks against a bit-level model of the specification and its vectors.
 *
 * Against gift_fix32.c (the C variant, whose 4-round loop GCC cannot unroll without spilling):
 * the same fixslicing, but the slices' bits are in the index order (n2 n3 b n0 n1) instead of
 * (n0 n1 n2 n3 b), so that the linear layers of rounds 0 and 2 of each 4-round cycle, which add
 * a constant to the nibble-index field (n0 n1), are rotations of whole words and cost nothing
 * (the rotation rides on the next instruction's second operand); every register carries a
 * rotation offset that the generator tracks and the round keys are stored at. Rounds 1 and 3
 * rotate nibbles (three instructions a slice). All 28 rounds are unrolled, with no spill: 4
 * slices, a scratch register, and the 6 key words of two rounds loaded by one LDM.
 *
 * Round keys: BS_GIFT64_FIX32_RK_WORDS words, three a round in load order {~V -> slice 0,
 * U -> slice 1, constant -> slice 3}, each key bit where the generator's model puts it, placed
 * by the delta swaps of gift64_t2_NET (the S-box's final NOT rides on the slice-0 word, as in
 * gift_fix32.c).
 *
 * Constant time: the assembly is straight-line apart from its loop over pairs of blocks (a
 * public count), loads and stores only at public offsets from the round-key, input and output
 * pointers, and uses logic, shift, rotate and BFI instructions only (no multiply, no division,
 * no table). The key set-up moves key bits by public shift amounts. valgrind cannot run
 * Thumb-2 code on the host, so the ct suite does not cover it; the firmware checks it bit for
 * bit against the known answers, the C variant and the reference under QEMU.
 */
#include "bitslice.h"
#include "gift.h"

#include "gift64_thumb2_gen.h"

_Static_assert(sizeof(uint32_t[BS_GIFT64_FIX32_RK_WORDS]) <= BS_KS_MAX,
               "GIFT-64 thumb2 round keys exceed BS_KS_MAX");

#define GIFT_KS_WANT_T2
#include "gift_ks_gen.h"

/*
 * The 16 bits of v placed in key word s of round k of the cycle, both blocks at once:
 * v | v << 16 through the delta swaps (shifts 16 8 4 2 1 2 4 8 16) of gift64_t2_NET[k][s], a
 * Benes network from the generator. Always inlined with constant k and s, so that the masks are
 * immediates and the swaps whose mask is zero vanish. Public shifts and masks.
 */
#define GIFT_DSWAP(x, m, s)                                                                        \
    do {                                                                                           \
        if ((m) != 0) {                                                                            \
            uint32_t t_ = (((x) >> (s)) ^ (x)) & (m);                                              \
            (x) ^= t_ ^ (t_ << (s));                                                               \
        }                                                                                          \
    } while (0)

static inline __attribute__((always_inline)) uint32_t place(uint32_t v, const uint32_t n[9])
{
    uint32_t x = v | (v << 16);
    GIFT_DSWAP(x, n[0], 16);
    GIFT_DSWAP(x, n[1], 8);
    GIFT_DSWAP(x, n[2], 4);
    GIFT_DSWAP(x, n[3], 2);
    GIFT_DSWAP(x, n[4], 1);
    GIFT_DSWAP(x, n[5], 2);
    GIFT_DSWAP(x, n[6], 4);
    GIFT_DSWAP(x, n[7], 8);
    GIFT_DSWAP(x, n[8], 16);
    return x;
}

/* k_j of the specification (bs_gift_key_load): key bytes k7 first, big-endian 16-bit words. */
#define GIFT_KW(key, j) (((uint32_t)(key)[14 - 2 * (j)] << 8) | (key)[15 - 2 * (j)])

/*
 * Rounds 0..3 from the key words through the networks (V = k_2k, U = k_2k+1 in round k); every
 * later round's words from the same slot four rounds before by the generator's advance maps
 * (the key state only rotates its 16-bit words, gift_ks_gen.h), the constants from its table.
 */
static void gift64_t2_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    uint32_t v0 = ~place(GIFT_KW(key, 0), gift64_t2_NET[0][0]);
    uint32_t u0 = place(GIFT_KW(key, 1), gift64_t2_NET[0][1]);
    uint32_t v1 = ~place(GIFT_KW(key, 2), gift64_t2_NET[1][0]);
    uint32_t u1 = place(GIFT_KW(key, 3), gift64_t2_NET[1][1]);
    uint32_t v2 = ~place(GIFT_KW(key, 4), gift64_t2_NET[2][0]);
    uint32_t u2 = place(GIFT_KW(key, 5), gift64_t2_NET[2][1]);
    uint32_t v3 = ~place(GIFT_KW(key, 6), gift64_t2_NET[3][0]);
    uint32_t u3 = place(GIFT_KW(key, 7), gift64_t2_NET[3][1]);
    for (unsigned r = 0;; r += 4, rk += 12) {
        rk[0] = v0, rk[1] = u0, rk[2] = gift64_t2_RC[r];
        rk[3] = v1, rk[4] = u1, rk[5] = gift64_t2_RC[r + 1];
        rk[6] = v2, rk[7] = u2, rk[8] = gift64_t2_RC[r + 2];
        rk[9] = v3, rk[10] = u3, rk[11] = gift64_t2_RC[r + 3];
        if (r + 4 == BS_GIFT64_ROUNDS)
            break;
        v0 = GIFT64_T2_ADV_0_0(v0), u0 = GIFT64_T2_ADV_0_1(u0);
        v1 = GIFT64_T2_ADV_1_0(v1), u1 = GIFT64_T2_ADV_1_1(u1);
        v2 = GIFT64_T2_ADV_2_0(v2), u2 = GIFT64_T2_ADV_2_1(u2);
        v3 = GIFT64_T2_ADV_3_0(v3), u3 = GIFT64_T2_ADV_3_1(u3);
    }
}

/* An odd last block, padded to a pair (the assembly's tail call), so that pairs need no buffer. */
void bs_gift64_thumb2_last(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint8_t buf[16] = {0};
    memcpy(buf, in, 8);
    bs_gift64_thumb2_encrypt((const bs_key_schedule *)(const void *)rk, buf, buf, 2);
    memcpy(out, buf, 8);
    bs_wipe(buf, sizeof buf);
}

const bs_block_cipher bs_gift64_thumb2 = {
    "GIFT-64", "thumb2", 16, 8, 2, gift64_t2_set_key, bs_gift64_thumb2_encrypt, NULL,
};
