/*
 * Rijndael-256 (Nb = 8, Nk = 8), 64 blocks per pass, one block per bit of a uint64_t (layout in
 * rijndael256.h). A call's last 32 blocks or fewer run as one pass on uint32_t lanes instead: a
 * smaller pass for short messages, and the instance of the generic code that 32-bit targets use.
 * Round keys are kept widened to 64-bit lane masks; the 32-lane pass uses their low halves.
 * The last R256_CT2_MAX blocks or fewer run two at a time through rijndael256_ct2.h, whose
 * round keys follow the masks in the key schedule: below that count a bitsliced pass costs more
 * than the blocks' share of it.
 */
#include "../bitslice.h"
#include "rijndael256.h"
#include "rijndael256_ct2.h"

#define R256_RK_WORDS ((BS_R256_ROUNDS + 1) * BS_R256_WORDS)

#ifndef R256_CT2_MAX
#define R256_CT2_MAX 16
#endif

_Static_assert((R256_RK_WORDS + BS_R256_CT2_RK_WORDS) * sizeof(uint64_t) <= BS_KS_MAX,
               "Rijndael-256 round keys exceed BS_KS_MAX");

static void r256_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint8_t w[(BS_R256_ROUNDS + 1) * BS_R256_BLOCK];
    bs_r256_key_expand(w, key);
    bs_r256_key_masks64(ks->w, w);
    bs_r256_ct2_key(ks->w + R256_RK_WORDS, w);
    bs_wipe(w, sizeof w);
}

/* nblocks (1 .. R256_CT2_MAX) blocks, two at a time; an odd last block pairs with itself. */
static void r256_encrypt_ct2(const uint64_t *rk, uint8_t *out, const uint8_t *in, size_t nblocks)
{
    uint64_t q[8];
#ifdef BS_R256_CT4
    if (nblocks >= 4) {
        bs_r256_v2 v[8];
        for (; nblocks >= 4; nblocks -= 4) {
            bs_r256_ct4_pack(v, in);
            bs_r256_ct4_encrypt(v, rk);
            bs_r256_ct4_unpack(out, v);
            in += 4 * BS_R256_BLOCK;
            out += 4 * BS_R256_BLOCK;
        }
        bs_wipe(v, sizeof v);
    }
#endif
    for (; nblocks >= 2; nblocks -= 2) {
        bs_r256_ct2_pack(q, in, in + BS_R256_BLOCK);
        bs_r256_ct2_encrypt(q, rk);
        bs_r256_ct2_unpack(out, out + BS_R256_BLOCK, q);
        in += 2 * BS_R256_BLOCK;
        out += 2 * BS_R256_BLOCK;
    }
    if (nblocks) {
        bs_r256_ct2_pack(q, in, in);
        bs_r256_ct2_encrypt(q, rk);
        bs_r256_ct2_unpack(out, NULL, q);
    }
    bs_wipe(q, sizeof q);
}

static void r256_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
    if (nblocks > 32) {
        BS_ALIGN(64) uint64_t q[BS_R256_WORDS];
        do {
            const size_t n = nblocks < 64 ? nblocks : 64;
            bs_r256_pack64(q, in, n);
            bs_r256_encrypt64(q, ks->w);
            bs_r256_unpack64(out, q, n);
            in += n * BS_R256_BLOCK;
            out += n * BS_R256_BLOCK;
            nblocks -= n;
        } while (nblocks > 32);
        bs_wipe(q, sizeof q);
    }
    if (nblocks > R256_CT2_MAX) {
        BS_ALIGN(64) uint32_t q[BS_R256_WORDS];
        bs_r256_pack32(q, in, nblocks);
        bs_r256_encrypt32k64(q, ks->w);
        bs_r256_unpack32(out, q, nblocks);
        bs_wipe(q, sizeof q);
    } else if (nblocks > 0) {
        r256_encrypt_ct2(ks->w + R256_RK_WORDS, out, in, nblocks);
    }
}

const bs_block_cipher bs_rijndael256_bs64 = {
    "RIJNDAEL-256", "bs64", 32, BS_R256_BLOCK, 64, r256_set_key, r256_encrypt,
};
