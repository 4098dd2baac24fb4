/*
 * Rijndael-256 with VAES on zmm: two blocks per register (each block is two 128-bit lanes,
 * the halves A and B of rijndael256_aesni.c). The byte move before each VAESENC, which makes
 * AES's ShiftRows into Rijndael-256's (formula in rijndael256_aesni.c), crosses the halves of a
 * block, so it is one VPERMB over the whole register (R256_VPERM: byte 32k + 16H + p of the
 * result is byte 32k + source(H, p)). Sixteen blocks (eight registers) are in flight per loop;
 * the round keys stay in registers, each 32-byte key broadcast to both blocks. CTR counters are
 * made in registers: the counter word is kept little-endian, one VPADDD and one VPSHUFB per
 * register. Every instruction here takes constant time and indexes nothing by data.
 *
 * Key schedule: that of rijndael256_aesni.c (the 15 round keys as bytes).
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "rijndael256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define VAES_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,vaes")))

static const uint8_t R256_VPERM[64] = {
    0,  17, 22, 23, 4,  5,  26, 27, 8,  9,  14, 31, 12, 13, 18, 19, 16, 1,  6,  7,  20, 21,
    10, 11, 24, 25, 30, 15, 28, 29, 2,  3,  32, 49, 54, 55, 36, 37, 58, 59, 40, 41, 46, 63,
    44, 45, 50, 51, 48, 33, 38, 39, 52, 53, 42, 43, 56, 57, 62, 47, 60, 61, 34, 35,
};

static void vaes_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_r256_key_expand((uint8_t *)ks->w, key);
}

#define NREG 8

typedef struct {
    __m512i k[BS_R256_ROUNDS + 1];
    __m512i perm;
} vaes_keys;

VAES_TARGET static inline void load_keys(vaes_keys *K, const bs_key_schedule *ks)
{
    const uint8_t *rk = (const uint8_t *)ks->w;
    for (int i = 0; i <= BS_R256_ROUNDS; i++)
        K->k[i] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(rk + 32 * i)));
    K->perm = _mm512_loadu_si512((const void *)R256_VPERM);
}

/* Rounds 1..14 of n registers already XORed with round key 0. */
#define VROUNDS(x, n)                                                                              \
    do {                                                                                           \
        for (int i = 1; i < BS_R256_ROUNDS; i++)                                                   \
            for (int j = 0; j < (n); j++)                                                          \
                x[j] = _mm512_aesenc_epi128(_mm512_permutexvar_epi8(K.perm, x[j]), K.k[i]);        \
        for (int j = 0; j < (n); j++)                                                              \
            x[j] = _mm512_aesenclast_epi128(_mm512_permutexvar_epi8(K.perm, x[j]),                 \
                                            K.k[BS_R256_ROUNDS]);                                  \
    } while (0)

/* Byte mask of the first m blocks (m = 1 or 2) of a register. */
static inline __mmask64 blocks_mask(size_t m)
{
    return m >= 2 ? ~(__mmask64)0 : (__mmask64)0xffffffffu;
}

VAES_TARGET static void vaes_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                     size_t nblocks)
{
    vaes_keys K;
    __m512i x[NREG];
    load_keys(&K, ks);
    for (; nblocks >= 2 * NREG; nblocks -= 2 * NREG, in += 64 * NREG, out += 64 * NREG) {
        for (int j = 0; j < NREG; j++)
            x[j] = _mm512_xor_si512(_mm512_loadu_si512((const void *)(in + 64 * j)), K.k[0]);
        VROUNDS(x, NREG);
        for (int j = 0; j < NREG; j++)
            _mm512_storeu_si512((void *)(out + 64 * j), x[j]);
    }
    while (nblocks > 0) {
        const size_t m = nblocks >= 2 ? 2 : 1;
        const __mmask64 mk = blocks_mask(m);
        x[0] = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mk, in), K.k[0]);
        VROUNDS(x, 1);
        _mm512_mask_storeu_epi8(out, mk, x[0]);
        in += 32 * m;
        out += 32 * m;
        nblocks -= m;
    }
}

/* bs_ctr32_fn (bitslice.h). */
VAES_TARGET static void vaes_ctr32(const bs_key_schedule *ks, const uint8_t *counter,
                                   const uint8_t *in, uint8_t *out, size_t nblocks)
{
    vaes_keys K;
    __m512i x[NREG];
    load_keys(&K, ks);
    /* Bytes 28..31 of each block reversed (the counter word, big-endian in the block). */
    const __m512i bswap = _mm512_set_epi8(
        60, 61, 62, 63, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
        40, 39, 38, 37, 36, 35, 34, 33, 32, 28, 29, 30, 31, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
        17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i blk = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)counter));
    /* Counter word little-endian, plus 0 for the first block of a register and 1 for the other. */
    __m512i cb = _mm512_add_epi32(_mm512_shuffle_epi8(blk, bswap),
                                  _mm512_set_epi32(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    const __m512i two = _mm512_set_epi32(2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0);
    for (; nblocks >= 2 * NREG; nblocks -= 2 * NREG) {
        for (int j = 0; j < NREG; j++) {
            x[j] = _mm512_xor_si512(_mm512_shuffle_epi8(cb, bswap), K.k[0]);
            cb = _mm512_add_epi32(cb, two);
        }
        VROUNDS(x, NREG);
        for (int j = 0; j < NREG; j++) {
            if (in != NULL)
                x[j] = _mm512_xor_si512(x[j], _mm512_loadu_si512((const void *)(in + 64 * j)));
            _mm512_storeu_si512((void *)(out + 64 * j), x[j]);
        }
        if (in != NULL)
            in += 64 * NREG;
        out += 64 * NREG;
    }
    while (nblocks > 0) {
        const size_t m = nblocks >= 2 ? 2 : 1;
        const __mmask64 mk = blocks_mask(m);
        x[0] = _mm512_xor_si512(_mm512_shuffle_epi8(cb, bswap), K.k[0]);
        cb = _mm512_add_epi32(cb, two);
        VROUNDS(x, 1);
        if (in != NULL) {
            x[0] = _mm512_xor_si512(x[0], _mm512_maskz_loadu_epi8(mk, in));
            in += 32 * m;
        }
        _mm512_mask_storeu_epi8(out, mk, x[0]);
        out += 32 * m;
        nblocks -= m;
    }
}

const bs_block_cipher bs_rijndael256_vaes = {
    "RIJNDAEL-256", "vaes", 32, BS_R256_BLOCK, 16, vaes_set_key, vaes_encrypt,
};
const bs_ctr32_fn bs_rijndael256_vaes_ctr32 = vaes_ctr32;

#endif
