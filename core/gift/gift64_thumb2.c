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
 * U -> slice 1, constant -> slice 3}, each key bit where the generator's model puts it (where
 * the delta swaps of gift64_t2_NET put it; the S-box's final NOT rides on the slice-0 word, as in
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

#include "gift/gift64_thumb2_gen.h"

_Static_assert(sizeof(uint32_t[BS_GIFT64_FIX32_RK_WORDS]) <= BS_KS_MAX,
               "GIFT-64 thumb2 round keys exceed BS_KS_MAX");

#define GIFT_KS_WANT_T2
#include "gift/gift_ks_gen.h"

/*
 * Rounds 0..3's key words placed without the networks. gift64_t2_NET[k][s] takes v | v << 16
 * (both blocks) to key word s of round k; each of the eight turns out to be a few whole-word
 * steps (the firmware's known answers and reference cross-checks run them;
 * embedded/gen/gift_keysched.py checks these forms against the networks on every input bit): nibble
 * n of v to bits 8n..8n+3 with its copy at 8n+4..8n+7 (dupspread), after the bits of each nibble
 * are reversed (revbits4, round 0) or the 4x4 bit matrix of nibbles is transposed (tr4, rounds 1
 * and 3), then a byte permutation (REV, REV16) and a rotation. Two 16-bit key words share a
 * register for the first steps (the big-endian word at key + 12 - 4k is k_2k+1 || k_2k). Public
 * shifts and masks.
 */
static inline uint32_t dupspread(uint32_t x)
{
    x = (x | (x << 8)) & 0x00ff00ffu;
    x = (x | (x << 4)) & 0x0f0f0f0fu;
    return x | (x << 4);
}

static inline uint32_t revbits4(uint32_t w)
{
    w = ((w >> 1) & 0x55555555u) | ((w & 0x55555555u) << 1);
    return ((w >> 2) & 0x33333333u) | ((w & 0x33333333u) << 2);
}

static inline uint32_t tr4(uint32_t x)
{
    uint32_t t = ((x >> 3) ^ x) & 0x0a0a0a0au;
    x ^= t ^ (t << 3);
    t = ((x >> 6) ^ x) & 0x00cc00ccu;
    return x ^ t ^ (t << 6);
}

static inline uint32_t ror32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}

static inline uint32_t rev16x2(uint32_t x)
{
    return ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
}

/*
 * Rounds 0..3 from the key words (V = k_2k, U = k_2k+1 in round k, placed as above); every
 * later round's words from the same slot four rounds before by the generator's advance maps
 * (the key state only rotates its 16-bit words, gift_ks_gen.h), the constants from its table.
 */
static void gift64_t2_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    const uint32_t w01 = revbits4(bs_load_be32(key + 12)), w23 = tr4(bs_load_be32(key + 8));
    const uint32_t w45 = bs_load_be32(key + 4), w67 = revbits4(tr4(bs_load_be32(key)));
    uint32_t v0 = ~ror32(__builtin_bswap32(dupspread(w01 & 0xffffu)), 8);
    uint32_t u0 = __builtin_bswap32(dupspread(w01 >> 16));
    uint32_t v1 = ~ror32(rev16x2(dupspread(w23 & 0xffffu)), 1);
    uint32_t u1 = ror32(__builtin_bswap32(dupspread(w23 >> 16)), 2);
    uint32_t v2 = ~ror32(dupspread(w45 & 0xffffu), 16);
    uint32_t u2 = ror32(dupspread(w45 >> 16), 18);
    uint32_t v3 = ~ror32(dupspread(w67 & 0xffffu), 16);
    uint32_t u3 = ror32(dupspread(w67 >> 16), 16);
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
    .name = "GIFT-64",
    .impl = "thumb2",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 8,
    .lanes = 2,
    .set_key = gift64_t2_set_key,
    .encrypt = bs_gift64_thumb2_encrypt,
};
