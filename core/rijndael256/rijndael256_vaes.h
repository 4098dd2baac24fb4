/*
 * rijndael256_vaes.h: the pieces of the VAES Rijndael-256 core (rijndael256_vaes.c) that the
 * stitched GCM loop (core/modes/gcm256_vaes.c) runs too: round keys in registers, the rounds,
 * and counter blocks made in registers. Two blocks per zmm register, each block the halves A and
 * B of rijndael256_aesni.c. The byte move before each VAESENC, which makes AES's ShiftRows into
 * Rijndael-256's (formula in rijndael256_aesni.c), crosses the halves of a block, so it is one
 * VPERMB over the whole register (R256_VPERM: byte 32k + 16H + p of the result is byte
 * 32k + source(H, p)). Every instruction here takes constant time and indexes nothing by data.
 * Include only where BS_HAVE_X86 is defined, and call only at CPU level avx512.
 */
#ifndef BS_RIJNDAEL256_VAES_H
#define BS_RIJNDAEL256_VAES_H

#include <immintrin.h>

#include "rijndael256.h"
#include "rijndael256_ks_aesni.h"

#define BS_R256_VAES_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,vaes")))

static const uint8_t bs_r256_vperm[64] = {
    0,  17, 22, 23, 4,  5,  26, 27, 8,  9,  14, 31, 12, 13, 18, 19, 16, 1,  6,  7,  20, 21,
    10, 11, 24, 25, 30, 15, 28, 29, 2,  3,  32, 49, 54, 55, 36, 37, 58, 59, 40, 41, 46, 63,
    44, 45, 50, 51, 48, 33, 38, 39, 52, 53, 42, 43, 56, 57, 62, 47, 60, 61, 34, 35,
};

/*
 * Counter blocks in registers: the counter word (bytes 28..31 of each block, big-endian) is
 * kept little-endian so that one VPADDD counts (modulo 2^32: GCM's inc32); bs_r256_vaes_bswap
 * turns either form into the other.
 */
BS_R256_VAES_TARGET static inline __m512i bs_r256_vaes_bswap(void)
{
    return _mm512_set_epi8(60, 61, 62, 63, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46,
                           45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 28, 29, 30, 31,
                           27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10,
                           9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}

/*
 * The 15 round keys, each 32-byte key broadcast to both blocks of a register, the VPERMB, and
 * for counter blocks (bs_r256_vaes_start) the VPERMB composed with bs_r256_vaes_bswap and round
 * key 0 moved by the VPERMB.
 */
typedef struct {
    __m512i k[BS_R256_ROUNDS + 1];
    __m512i perm, perm_bswap, pk0;
} bs_r256_vaes_keys;

BS_R256_VAES_TARGET static inline void bs_r256_vaes_load_keys(bs_r256_vaes_keys *K,
                                                              const bs_key_schedule *ks)
{
    const uint8_t *rk = (const uint8_t *)ks->w;
    for (int i = 0; i <= BS_R256_ROUNDS; i++)
        K->k[i] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(rk + 32 * i)));
    K->perm = _mm512_loadu_si512((const void *)bs_r256_vperm);
    K->perm_bswap = _mm512_permutexvar_epi8(K->perm, bs_r256_vaes_bswap());
    K->pk0 = _mm512_permutexvar_epi8(K->perm, K->k[0]);
}

/* Round i (1..13) of a register. */
BS_R256_VAES_TARGET static inline __m512i bs_r256_vaes_round(const bs_r256_vaes_keys *K, __m512i x,
                                                             int i)
{
    return _mm512_aesenc_epi128(_mm512_permutexvar_epi8(K->perm, x), K->k[i]);
}

/*
 * Rounds 0 and 1 of the counter register cb (bs_r256_vaes_counter's form): the VPERMB before
 * round 1 also undoes the counter word's byte order (P(bswap(cb) ^ k0) = PB(cb) ^ P(k0)), so a
 * counter register costs no VPSHUFB.
 */
BS_R256_VAES_TARGET static inline __m512i bs_r256_vaes_start(const bs_r256_vaes_keys *K, __m512i cb)
{
    return _mm512_aesenc_epi128(
        _mm512_xor_si512(_mm512_permutexvar_epi8(K->perm_bswap, cb), K->pk0), K->k[1]);
}

/* The last round (14) of a register. */
BS_R256_VAES_TARGET static inline __m512i bs_r256_vaes_last(const bs_r256_vaes_keys *K, __m512i x)
{
    return _mm512_aesenclast_epi128(_mm512_permutexvar_epi8(K->perm, x), K->k[BS_R256_ROUNDS]);
}

/* The counter register of the blocks counter + 0 and counter + 1 (counter word little-endian). */
BS_R256_VAES_TARGET static inline __m512i bs_r256_vaes_counter(const uint8_t counter[32])
{
    const __m512i blk = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)counter));
    return _mm512_add_epi32(_mm512_shuffle_epi8(blk, bs_r256_vaes_bswap()),
                            _mm512_set_epi32(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
}

/* What a counter register advances by per register: two blocks. */
BS_R256_VAES_TARGET static inline __m512i bs_r256_vaes_two(void)
{
    return _mm512_set_epi32(2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0);
}

/*
 * Fewer blocks than a batch (a short message, the tail of a long one): the n registers (1..8)
 * side by side, each round key broadcast from the schedule as the round needs it, so that a call
 * of a block or two neither fills nor wipes the sixteen registers of bs_r256_vaes_keys. The
 * registers hold their blocks XORed with round key 0 on entry.
 */
BS_R256_VAES_TARGET static inline __attribute__((always_inline)) void
bs_r256_vaes_small_rounds(const uint8_t *rk, __m512i *x, size_t n)
{
    const __m512i perm = _mm512_loadu_si512((const void *)bs_r256_vperm);
#pragma GCC unroll 14
    for (int i = 1; i <= BS_R256_ROUNDS; i++) {
        const __m512i k =
            _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(rk + 32 * i)));
#pragma GCC unroll 8
        for (size_t j = 0; j < n; j++) {
            const __m512i t = _mm512_permutexvar_epi8(perm, x[j]);
            x[j] = i < BS_R256_ROUNDS ? _mm512_aesenc_epi128(t, k) : _mm512_aesenclast_epi128(t, k);
        }
    }
}

/*
 * The key schedule (rijndael256_ks_aesni.h) stored at w as the core stores it (the 15 round keys,
 * 32 bytes each), with the rounds of the n (1 or 2) registers x, round key 0 XORed in here,
 * side by side: round i as soon as step i has made its key. The registers' VPERMB and VAESENC
 * chain is shorter than the schedule's two AESENCLAST a step, so the blocks cost about nothing
 * beside the key setup.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,vaes,aes,ssse3"))) static inline
    __attribute__((always_inline)) void
    bs_r256_vaes_set_key_rounds(uint8_t *w, const uint8_t *key, __m512i *x, int n)
{
    const __m512i perm = _mm512_loadu_si512((const void *)bs_r256_vperm);
    __m128i k0 = _mm_loadu_si128((const __m128i *)key);
    __m128i k1 = _mm_loadu_si128((const __m128i *)(key + 16));
    _mm_storeu_si128((__m128i *)w, k0);
    _mm_storeu_si128((__m128i *)(w + 16), k1);
    __m512i rk = _mm512_broadcast_i64x4(_mm256_set_m128i(k1, k0));
    for (int j = 0; j < n; j++)
        x[j] = _mm512_xor_si512(x[j], rk);
#pragma GCC unroll 14
    for (int i = 1; i <= BS_R256_ROUNDS; i++) {
        bs_r256_key_step(&k0, &k1, i);
        _mm_storeu_si128((__m128i *)(w + 32 * i), k0);
        _mm_storeu_si128((__m128i *)(w + 32 * i + 16), k1);
        rk = _mm512_broadcast_i64x4(_mm256_set_m128i(k1, k0));
#pragma GCC unroll 2
        for (int j = 0; j < n; j++) {
            const __m512i t = _mm512_permutexvar_epi8(perm, x[j]);
            x[j] =
                i < BS_R256_ROUNDS ? _mm512_aesenc_epi128(t, rk) : _mm512_aesenclast_epi128(t, rk);
        }
    }
}

#endif
