/*
 * mcu.h: the cores shaped for 32-bit microcontrollers (one or two blocks in flight, 32-bit
 * registers), beside the portable 64-lane cores. Plain C everywhere, with inline assembly only
 * where a Thumb-2 instruction says it better (and a C equivalent elsewhere), so the host tests
 * and the valgrind taint suite run the same code.
 *
 * An application normally goes through the registry (bs_block_cipher_by_name in bitslice.h),
 * which on a bare-metal build returns these variants first (BS_PREFER_MCU).
 */
#ifndef BS_MCU_H
#define BS_MCU_H

#include "../bitslice.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const bs_block_cipher bs_rijndael256_m4;
extern const bs_block_cipher bs_gift64_fix32;
extern const bs_block_cipher bs_gift128_fix32;
extern const bs_block_cipher bs_present80_bs32;
extern const bs_block_cipher bs_present128_bs32;

/*
 * Nibble slicing with SWAPMOVE (gift_fix32.c): w[i] bit 4m + j -> s[j] bit 8i + m, for the
 * GIFT and PRESENT cores (w: a 128-bit block, or two 64-bit blocks, as little-endian words).
 */
void bs_mcu_nibble_pack(uint32_t s[4], const uint32_t w[4]);
void bs_mcu_nibble_unpack(uint32_t w[4], const uint32_t s[4]);

/* GIFT fixsliced (gift_fix32.c): rk from the key schedule, 3 words per round. */
void bs_gift128_fix_block(const uint32_t *rk, uint8_t *out, const uint8_t *in);
void bs_gift64_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);

/* PRESENT bitsliced (present_bs32.c): two blocks, rk 4 words per round key, 32 round keys. */
void bs_present_bs32_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);

/*
 * Rijndael-256's components on one packed block (q: eight 32-bit slices, layout in
 * rijndael256_m4.c), exported for the per-component benchmark. rk: 8 * 15 words, from the
 * key schedule.
 */
void bs_r256m4_pack(uint32_t q[8], const uint8_t *in);
void bs_r256m4_unpack(uint8_t *out, uint32_t q[8]);
void bs_r256m4_subbytes(uint32_t q[8]);
void bs_r256m4_shiftrows(uint32_t q[8]);
void bs_r256m4_mixcolumns(uint32_t q[8]);
void bs_r256m4_addroundkey(uint32_t q[8], const uint32_t rk[8]);
void bs_r256m4_encrypt_block(const uint32_t *rk, uint8_t *out, const uint8_t *in);

/*
 * Round-key words each variant keeps at the start of its bs_key_schedule (each file asserts
 * they fit in BS_KS_MAX). A build without the 64-lane cores sizes BS_KS_MAX from
 * BS_MCU_KS_BYTES, the largest (core/meson.build).
 */
#define BS_PRESENT_BS32_RK_WORDS (4 * 32)  /* 32 round keys, 4 slices */
#define BS_GIFT64_FIX32_RK_WORDS (3 * 28)  /* 28 rounds, 3 words */
#define BS_GIFT128_FIX32_RK_WORDS (3 * 40) /* 40 rounds, 3 words */
#define BS_R256_M4_RK_WORDS (8 * 15)       /* 15 round keys, 8 slices */
#define BS_MCU_MAX_(a, b) ((a) > (b) ? (a) : (b))
#define BS_MCU_KS_BYTES                                                                            \
    (4 * BS_MCU_MAX_(BS_MCU_MAX_(BS_PRESENT_BS32_RK_WORDS, BS_GIFT64_FIX32_RK_WORDS),              \
                     BS_MCU_MAX_(BS_GIFT128_FIX32_RK_WORDS, BS_R256_M4_RK_WORDS)))

/*
 * Registry entries (bs_common.c splices this list into bs_block_ciphers). A variant is listed
 * only with its cipher's folder, whose reference the tests need: BS_HAVE_<NAME> when the
 * folder builds its 64-lane core too, BS_HAVE_MCU_<NAME> when it leaves it out.
 */
#if defined(BS_HAVE_RIJNDAEL256) || defined(BS_HAVE_MCU_RIJNDAEL256)
#define BS_MCU_LIST_R256 &bs_rijndael256_m4,
#else
#define BS_MCU_LIST_R256
#endif

#if defined(BS_HAVE_GIFT) || defined(BS_HAVE_MCU_GIFT)
#define BS_MCU_LIST_GIFT &bs_gift64_fix32, &bs_gift128_fix32,
#else
#define BS_MCU_LIST_GIFT
#endif

#if defined(BS_HAVE_PRESENT) || defined(BS_HAVE_MCU_PRESENT)
#define BS_MCU_LIST_PRESENT &bs_present80_bs32, &bs_present128_bs32,
#else
#define BS_MCU_LIST_PRESENT
#endif

#define BS_MCU_CIPHER_LIST BS_MCU_LIST_PRESENT BS_MCU_LIST_GIFT BS_MCU_LIST_R256

#ifdef __cplusplus
}
#endif

#endif
