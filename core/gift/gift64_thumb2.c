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
#include "bs_wipe32.h"
#include "gift.h"

#include "gift64_thumb2_gen.h"

_Static_assert(sizeof(uint32_t[BS_GIFT64_FIX32_RK_WORDS]) <= BS_KS_MAX,
               "GIFT-64 thumb2 round keys exceed BS_KS_MAX");

/*
 * The 16 bits of v placed in a key word, both blocks at once: v | v << 16 through the nine
 * delta swaps (shifts 16 8 4 2 1 2 4 8 16) of gift64_t2_NET, a Benes network per key word and
 * round of the cycle from the generator: about 45 instructions in place of two shifts per bit.
 * Public shifts and masks.
 */
static uint32_t place(uint32_t v, const uint32_t net[9])
{
    return bs_gift_benes32(v | (v << 16), net);
}

static void gift64_t2_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t *rk = (uint32_t *)ks->w;
    uint32_t uv[BS_GIFT64_ROUNDS]; /* U = k1 in the high half, V = k0 in the low */
    uint8_t rc[BS_GIFT64_ROUNDS];
    bs_gift64_key_schedule(key, uv, rc);
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r++) {
        const uint32_t(*net)[9] = gift64_t2_NET[r % 4];
        rk[3 * r] = ~place(uv[r] & 0xffffu, net[0]);
        rk[3 * r + 1] = place(uv[r] >> 16, net[1]);
        rk[3 * r + 2] = place(rc[r] | 0x8000u, net[2]);
    }
    bs_wipe32(uv, BS_WORDS(uv));
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
