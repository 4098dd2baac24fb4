/*
 * Rijndael-256 (Nb = 8, Nk = 8), 64 blocks per pass, one block per bit of a uint64_t (layout in
 * rijndael256.h), with round keys widened to 64-bit lane masks. A pass costs the same for 1 or
 * 64 blocks, so a call's last R256_CT_MAX blocks or fewer go instead through the narrow core of
 * rijndael256_ct2.h (2 or 4 blocks at a time, round keys stored after the masks), and on 32-bit
 * targets a tail between that and 32 blocks runs as one pass on uint32_t lanes (the 64-bit
 * masks' low halves), the instance of the generic code that 32-bit targets use.
 */
#include "../bitslice.h"
#include "rijndael256.h"
#include "rijndael256_ct2.h"

#define R256_RK_WORDS ((BS_R256_ROUNDS + 1) * BS_R256_WORDS)

/*
 * 64-bit hosts: measured on x86-64 (rdtsc, gcc -O3), a 64-lane pass costs about as much as
 * 40 blocks through the 4-block narrow core, and a 32-lane pass more than 32 of them. 32-bit
 * targets (64-bit words in register pairs): an estimate, not measured.
 */
#ifndef R256_CT_MAX
#if UINTPTR_MAX > 0xFFFFFFFFu
#define R256_CT_MAX 40
#else
#define R256_CT_MAX 8
#endif
#endif
#define R256_PASS64_MIN (R256_CT_MAX > 32 ? R256_CT_MAX : 32)

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

/* rijndael256.h's compact keys: bit 0 of each mask (every mask is 0 or all ones). */
static int r256_export_round_keys(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    if (nwords < BS_R256_COMPACT_WORDS)
        return -1;
    memset(out, 0, BS_R256_COMPACT_WORDS * sizeof *out);
    for (unsigned n = 0; n <= BS_R256_ROUNDS; n++)
        for (unsigned p = 0; p < 32; p++)
            for (unsigned j = 0; j < 8; j++)
                out[8 * n + p / 4] |=
                    (uint32_t)(ks->w[BS_R256_WORDS * n + bs_r256_index((int)p, (int)j)] & 1)
                    << (8 * (p % 4) + j);
    return 0;
}

/*
 * nblocks blocks, four at a time where vectors allow (three padded to four), then two at a
 * time; an odd last block pairs with itself.
 */
static void r256_encrypt_ct2(const uint64_t *rk, uint8_t *out, const uint8_t *in, size_t nblocks)
{
    uint64_t q[8];
#ifdef BS_R256_CT4
    if (nblocks >= 3) {
        bs_r256_v2 v[8];
        for (; nblocks >= 4; nblocks -= 4) {
            bs_r256_ct4_pack(v, in);
            bs_r256_ct4_encrypt(v, rk);
            bs_r256_ct4_unpack(out, v);
            in += 4 * BS_R256_BLOCK;
            out += 4 * BS_R256_BLOCK;
        }
        if (nblocks == 3) {
            uint8_t buf[4 * BS_R256_BLOCK] = {0};
            memcpy(buf, in, 3 * BS_R256_BLOCK);
            bs_r256_ct4_pack(v, buf);
            bs_r256_ct4_encrypt(v, rk);
            bs_r256_ct4_unpack(buf, v);
            memcpy(out, buf, 3 * BS_R256_BLOCK);
            bs_wipe(buf, sizeof buf);
            nblocks = 0;
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
    if (nblocks > R256_PASS64_MIN) {
        BS_ALIGN(64) uint64_t q[BS_R256_WORDS];
        do {
            const size_t n = nblocks < 64 ? nblocks : 64;
            bs_r256_pack64(q, in, n);
            bs_r256_encrypt64(q, ks->w);
            bs_r256_unpack64(out, q, n);
            in += n * BS_R256_BLOCK;
            out += n * BS_R256_BLOCK;
            nblocks -= n;
        } while (nblocks > R256_PASS64_MIN);
        bs_wipe(q, sizeof q);
    }
    if (nblocks > R256_CT_MAX) {
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
    .name = "RIJNDAEL-256",
    .impl = "bs64",
    .level = BS_CPU_PORTABLE,
    .key_len = 32,
    .block_len = BS_R256_BLOCK,
    .lanes = 64,
    .set_key = r256_set_key,
    .encrypt = r256_encrypt,
    .export_round_keys = r256_export_round_keys,
};
