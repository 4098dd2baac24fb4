/*
 * Rijndael-256 with VAES on zmm: two blocks per register (rijndael256_vaes.h). Sixteen blocks
 * (eight registers) are in flight per loop; the round keys stay in registers. CTR counters are
 * made in registers: the counter word is kept little-endian, one VPADDD and one VPSHUFB per
 * register. Every instruction here takes constant time and indexes nothing by data.
 *
 * Key schedule: that of rijndael256_aesni.c (the 15 round keys as bytes).
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "rijndael256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include "rijndael256_vaes.h"

#define VAES_TARGET BS_R256_VAES_TARGET

static void vaes_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_r256_key_expand((uint8_t *)ks->w, key);
}

#define NREG 8

/* Rounds 1..14 of n registers already XORed with round key 0. */
#define VROUNDS(x, n)                                                                              \
    do {                                                                                           \
        for (int i = 1; i < BS_R256_ROUNDS; i++)                                                   \
            for (int j = 0; j < (n); j++)                                                          \
                x[j] = bs_r256_vaes_round(&K, x[j], i);                                            \
        for (int j = 0; j < (n); j++)                                                              \
            x[j] = bs_r256_vaes_last(&K, x[j]);                                                    \
    } while (0)

/* Byte mask of the first m blocks (m = 1 or 2) of a register. */
static inline __mmask64 blocks_mask(size_t m)
{
    return m >= 2 ? ~(__mmask64)0 : (__mmask64)0xffffffffu;
}

VAES_TARGET static void vaes_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                     size_t nblocks)
{
    bs_r256_vaes_keys K;
    __m512i x[NREG];
    bs_r256_vaes_load_keys(&K, ks);
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
    bs_wipe(&K, sizeof K); /* the broadcast round keys, wherever the compiler kept them */
}

/* bs_ctr32_fn (bitslice.h). */
VAES_TARGET static void vaes_ctr32(const bs_key_schedule *ks, const uint8_t *counter,
                                   const uint8_t *in, uint8_t *out, size_t nblocks)
{
    bs_r256_vaes_keys K;
    __m512i x[NREG];
    bs_r256_vaes_load_keys(&K, ks);
    const __m512i bswap = bs_r256_vaes_bswap();
    __m512i cb = bs_r256_vaes_counter(counter);
    const __m512i two = bs_r256_vaes_two();
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
    bs_wipe(&K, sizeof K);
}

static int vaes_export_round_keys(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_r256_export_byte_keys((const uint8_t *)ks->w, out, nwords);
}

const bs_block_cipher bs_rijndael256_vaes = {
    "RIJNDAEL-256",         "vaes", 32, BS_R256_BLOCK, 16, vaes_set_key, vaes_encrypt,
    vaes_export_round_keys,
};
const bs_ctr32_fn bs_rijndael256_vaes_ctr32 = vaes_ctr32;

#endif
