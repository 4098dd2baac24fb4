/*
 * AES-128 and AES-256 semi-fixsliced, two blocks in eight 32-bit words (layout in aes.h): odd
 * rounds skip ShiftRows and end in representation 1 (MixColumns variant 1), even rounds apply
 * SR^2 and return to the standard representation. Two MixColumns variants instead of four
 * (smaller code), for one SR^2 every other round. The last round (even) adds its round key in
 * representation 2 (the key schedule stores it so) and does its SR^2 on the unpacked words
 * (bs_aes_unpack_sr2, 12 instructions where 8 slices take 32), as the fully fixsliced core.
 */
#include "aes.h"

/* Cortex-M3/M4 and RV32I: the whole two-block encryption in generated assembly (embedded/gen/
 * aes_semifix_thumb2.py, aes_semifix_rv32.py, run by meson.build), one loop over the rounds
 * shared by AES-128 and AES-256: the small-flash AES (under 2 KB of Thumb-2), built whatever
 * -Daes_unrolled says. Elsewhere the C below. */
#if defined(__thumb2__)
#define BS_AES_SEMIFIX_T2_DEFINE
#include "aes/aes_semifix32_t2.h"
#elif defined(__riscv) && __riscv_xlen == 32
#define BS_AES_SEMIFIX_RV32_DEFINE
#include "aes/aes_semifix32_rv32.h"
#endif

_Static_assert(sizeof(uint32_t[BS_AES256_RK_WORDS]) <= BS_KS_MAX,
               "AES semifix32 round keys exceed BS_KS_MAX");

/* npairs pairs of rounds (MixColumns 1, then SR^2 and MixColumns 0), one more odd round, and
 * the last round: 4 * 2 + 2 = 10 rounds, 6 * 2 + 2 = 14. */
static inline __attribute__((always_inline)) void
semifix_encrypt(const uint32_t *rk, uint8_t *out, const uint8_t *in, unsigned npairs)
{
    uint32_t q[8];
    bs_aes_pack(q, in, in + 16);
    bs_aes_addroundkey(q, rk);
    rk += 8;
    for (unsigned p = 0; p < npairs; p++, rk += 16) {
        bs_aes_sbox_nonot(q);
        bs_aes_mixcolumns1(q);
        bs_aes_addroundkey(q, rk);
        bs_aes_sbox_nonot(q);
        bs_aes_sr2_all(q);
        bs_aes_mixcolumns0(q);
        bs_aes_addroundkey(q, rk + 8);
    }
    BS_AES_LAST_2ROUNDS(out, q, rk);
}

#ifdef BS_AES_SEMIFIX_RV32
/* RV32I cannot load unaligned words: unaligned blocks go through an aligned copy (the test is
 * on addresses only; the copy out of line, so that the aligned way is a tail call) */
static __attribute__((noinline)) void semifix_rv32_copy(const uint32_t *rk, uint8_t *out,
                                                        const uint8_t *in, uint32_t rounds)
{
    uint32_t buf[8];
    memcpy(buf, in, 32);
    bs_aes_semifix_rv32((uint8_t *)buf, rk, (const uint8_t *)buf, rounds);
    memcpy(out, buf, 32);
    bs_wipe(buf, sizeof buf);
}

static inline void semifix_rv32(const uint32_t *rk, uint8_t *out, const uint8_t *in,
                                uint32_t rounds)
{
    if (((uintptr_t)in | (uintptr_t)out) % 4 == 0)
        bs_aes_semifix_rv32(out, rk, in, rounds);
    else
        semifix_rv32_copy(rk, out, in, rounds);
}
#endif

void bs_aes128_semifix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
#if defined(BS_AES_SEMIFIX_T2)
    bs_aes_semifix_t2(out, rk, in, BS_AES_SEMIFIX_T2_R128);
#elif defined(BS_AES_SEMIFIX_RV32)
    semifix_rv32(rk, out, in, BS_AES_SEMIFIX_RV32_R128);
#else
    semifix_encrypt(rk, out, in, 4);
#endif
}

void bs_aes256_semifix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
#if defined(BS_AES_SEMIFIX_T2)
    bs_aes_semifix_t2(out, rk, in, BS_AES_SEMIFIX_T2_R256);
#elif defined(BS_AES_SEMIFIX_RV32)
    semifix_rv32(rk, out, in, BS_AES_SEMIFIX_RV32_R256);
#else
    semifix_encrypt(rk, out, in, 6);
#endif
}

static void aes128_semifix_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes_key_schedule((uint32_t *)ks->w, key, 4, 2);
}

static void aes256_semifix_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes_key_schedule((uint32_t *)ks->w, key, 8, 2);
}

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

static __attribute__((noinline)) void aes128_semifix_blocks(const uint32_t *rk, uint8_t *out,
                                                            const uint8_t *in, size_t nblocks)
{
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        bs_aes128_semifix_2blocks(rk, out, in);
    if (nblocks)
        last_block(bs_aes128_semifix_2blocks, rk, out, in);
}

static __attribute__((noinline)) void aes256_semifix_blocks(const uint32_t *rk, uint8_t *out,
                                                            const uint8_t *in, size_t nblocks)
{
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        bs_aes256_semifix_2blocks(rk, out, in);
    if (nblocks)
        last_block(bs_aes256_semifix_2blocks, rk, out, in);
}

/* One pass (two blocks, the common call) goes straight to the block function: both ways out
 * are tail calls, so this function saves no registers (the loop does, once a call). */
static void aes128_semifix_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                   size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
    if (nblocks == 2) {
        bs_aes128_semifix_2blocks(rk, out, in);
        return;
    }
    aes128_semifix_blocks(rk, out, in, nblocks);
}

static void aes256_semifix_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                   size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
    if (nblocks == 2) {
        bs_aes256_semifix_2blocks(rk, out, in);
        return;
    }
    aes256_semifix_blocks(rk, out, in, nblocks);
}

const bs_block_cipher bs_aes128_semifix32 = {
    .name = "AES-128",
    .impl = "semifix32",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 16,
    .lanes = 2,
    .set_key = aes128_semifix_set_key,
    .encrypt = aes128_semifix_encrypt,
};

const bs_block_cipher bs_aes256_semifix32 = {
    .name = "AES-256",
    .impl = "semifix32",
    .level = BS_CPU_PORTABLE,
    .key_len = 32,
    .block_len = 16,
    .lanes = 2,
    .set_key = aes256_semifix_set_key,
    .encrypt = aes256_semifix_encrypt,
};
