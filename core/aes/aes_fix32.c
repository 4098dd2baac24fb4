/*
 * AES-128 and AES-256 fully fixsliced, two blocks in eight 32-bit words (layout and
 * representations in aes.h): round i ends in representation i mod 4, so MixColumns cycles
 * through its four variants and no ShiftRows is ever computed; 10 and 14 rounds both end in
 * representation 2, which one SR^2 turns back into the standard state before unpacking.
 */
#include "aes.h"

/* Cortex-M3/M4: the whole two-block encryption, packing included, in generated Thumb-2
 * (embedded/gen/aes_thumb2.py, run by meson.build on the builds for Arm); defined here, used
 * here and by aes_ctr_face.c. RV32I: the same from embedded/gen/aes_rv32.py, for word-aligned
 * blocks. Straight-line code of about 40 KB (Thumb-2) or 55 KB (RV32I) with FACE's entries:
 * -Daes_unrolled=false (BS_AES_NO_UNROLLED) leaves it out where flash is short, and the C below
 * runs instead. */
#if !defined(BS_AES_NO_UNROLLED) && defined(__thumb2__)
#define BS_AES_T2_DEFINE
#include "aes/aes_fix32_t2.h"
#elif !defined(BS_AES_NO_UNROLLED) && defined(__riscv) && __riscv_xlen == 32
#define BS_AES_RV_DEFINE
#include "aes/aes_fix32_rv32.h"
#endif

_Static_assert(sizeof(uint32_t[BS_AES256_RK_WORDS]) <= BS_KS_MAX,
               "AES fix32 round keys exceed BS_KS_MAX");

/* ngroups passes of four rounds (MixColumns 1, 2, 3, 0), one more round with MixColumns 1,
 * then the last round (no MixColumns): 2 * 4 + 2 = 10 rounds, 3 * 4 + 2 = 14. */
static inline __attribute__((always_inline)) void fix_encrypt(const uint32_t *rk, uint8_t *out,
                                                              const uint8_t *in, unsigned ngroups)
{
#ifdef BS_AES_FIX_T2
    if (ngroups == 2)
        bs_aes128_fix_t2(out, rk, in, 1);
    else
        bs_aes256_fix_t2(out, rk, in, 1);
    return;
#endif
#ifdef BS_AES_FIX_RV32
    /* RV32I cannot load unaligned words: unaligned blocks go through an aligned copy (the
     * test is on addresses only) */
    uint32_t buf[8];
    const int aligned = ((uintptr_t)in | (uintptr_t)out) % 4 == 0;
    uint8_t *o = aligned ? out : (uint8_t *)buf;
    if (!aligned)
        memcpy(buf, in, 32);
    if (ngroups == 2)
        bs_aes128_fix_rv32(o, rk, aligned ? in : (const uint8_t *)buf);
    else
        bs_aes256_fix_rv32(o, rk, aligned ? in : (const uint8_t *)buf);
    if (!aligned) {
        memcpy(out, buf, 32);
        bs_wipe(buf, sizeof buf);
    }
    return;
#endif
    uint32_t q[8];
    bs_aes_pack(q, in, in + 16);
    bs_aes_addroundkey(q, rk);
    rk += 8;
    for (unsigned g = 0; g < ngroups; g++, rk += 32)
        BS_AES_FIX_4ROUNDS(q, rk);
    BS_AES_LAST_2ROUNDS(out, q, rk);
}

void bs_aes128_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    fix_encrypt(rk, out, in, 2);
}

void bs_aes256_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    fix_encrypt(rk, out, in, 3);
}

static void aes128_fix_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes_key_schedule((uint32_t *)ks->w, key, 4, 4);
}

static void aes256_fix_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes_key_schedule((uint32_t *)ks->w, key, 8, 4);
}

/* An odd last block, padded to a pair; out of line so that the main path needs no buffer. */
static __attribute__((noinline)) void
last_block(void (*fn)(const uint32_t *, uint8_t *, const uint8_t *), const uint32_t *rk,
           uint8_t *out, const uint8_t *in)
{
    uint8_t buf[32] = {0};
    memcpy(buf, in, 16);
    fn(rk, buf, buf);
    memcpy(out, buf, 16);
    bs_wipe(buf, sizeof buf);
}

static __attribute__((noinline)) void aes128_fix_blocks(const uint32_t *rk, uint8_t *out,
                                                        const uint8_t *in, size_t nblocks)
{
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        bs_aes128_fix_2blocks(rk, out, in);
    if (nblocks)
        last_block(bs_aes128_fix_2blocks, rk, out, in);
}

static void aes128_fix_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                               size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
#ifdef BS_AES_FIX_T2
    /* Cortex-M3/M4: all the pairs in one call of the assembly (it loops); both ways out are
     * tail calls, so this function saves no registers */
    if (nblocks % 2 == 0 && nblocks > 0) {
        bs_aes128_fix_t2(out, rk, in, nblocks / 2);
        return;
    }
#endif
    aes128_fix_blocks(rk, out, in, nblocks);
}

static __attribute__((noinline)) void aes256_fix_blocks(const uint32_t *rk, uint8_t *out,
                                                        const uint8_t *in, size_t nblocks)
{
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        bs_aes256_fix_2blocks(rk, out, in);
    if (nblocks)
        last_block(bs_aes256_fix_2blocks, rk, out, in);
}

static void aes256_fix_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                               size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
#ifdef BS_AES_FIX_T2
    /* Cortex-M3/M4: all the pairs in one call of the assembly (it loops); both ways out are
     * tail calls, so this function saves no registers */
    if (nblocks % 2 == 0 && nblocks > 0) {
        bs_aes256_fix_t2(out, rk, in, nblocks / 2);
        return;
    }
#endif
    aes256_fix_blocks(rk, out, in, nblocks);
}

const bs_block_cipher bs_aes128_fix32 = {
    .name = "AES-128",
    .impl = "fix32",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 16,
    .lanes = 2,
    .set_key = aes128_fix_set_key,
    .encrypt = aes128_fix_encrypt,
};

const bs_block_cipher bs_aes256_fix32 = {
    .name = "AES-256",
    .impl = "fix32",
    .level = BS_CPU_PORTABLE,
    .key_len = 32,
    .block_len = 16,
    .lanes = 2,
    .set_key = aes256_fix_set_key,
    .encrypt = aes256_fix_encrypt,
};

/* The round's components, one call each, for the per-component benchmark (embedded/bench). */
void bs_aes_part_pack(uint32_t q[8], const uint8_t *in)
{
    bs_aes_pack(q, in, in + 16);
}

void bs_aes_part_unpack(uint8_t *out, const uint32_t q[8])
{
    bs_aes_unpack(out, out + 16, q);
}

void bs_aes_part_subbytes(uint32_t q[8])
{
    bs_aes_sbox_nonot(q);
}

void bs_aes_part_mixcolumns0(uint32_t q[8])
{
    bs_aes_mixcolumns0(q);
}

void bs_aes_part_mixcolumns1(uint32_t q[8])
{
    bs_aes_mixcolumns1(q);
}

void bs_aes_part_mixcolumns2(uint32_t q[8])
{
    bs_aes_mixcolumns2(q);
}

void bs_aes_part_mixcolumns3(uint32_t q[8])
{
    bs_aes_mixcolumns3(q);
}

void bs_aes_part_sr2(uint32_t q[8])
{
    bs_aes_sr2_all(q);
}

void bs_aes_part_addroundkey(uint32_t q[8], const uint32_t rk[8])
{
    bs_aes_addroundkey(q, rk);
}
