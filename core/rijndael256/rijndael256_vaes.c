/*
 * Rijndael-256 with VAES on zmm: two blocks per register (rijndael256_vaes.h). Sixteen blocks
 * (eight registers) are in flight per loop of encrypt, 32 (sixteen registers) in CTR's long loop
 * (ctr_batch); the round keys stay in registers. Fewer than sixteen blocks (short messages, tails)
 * take the rounds with keys broadcast from the schedule as needed. CTR counters are made in
 * registers: the counter word is kept little-endian, one VPADDD per register, its byte order
 * undone by round 1's VPERMB (bs_r256_vaes_start). Every instruction here takes constant time and
 * indexes nothing by data.
 *
 * Key schedule: that of rijndael256_aesni.c (the 15 round keys as bytes, on AESENCLAST), also
 * run beside the first blocks by set_key_encrypt.
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "rijndael256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include "rijndael256_vaes.h"

#define VAES_TARGET BS_R256_VAES_TARGET

static void vaes_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_r256_key_expand_aesni((uint8_t *)ks->w, key);
}

#define NREG 8

/* Rounds first..14 of n registers (rounds 1..14: XORed with round key 0 already). */
#define VROUNDS_FROM(x, n, first)                                                                  \
    do {                                                                                           \
        for (int i = (first); i < BS_R256_ROUNDS; i++)                                             \
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

/*
 * Unrolled with the registers named: 1 or 2 registers as they are, 3 or 4 as 4, 5 to 8 as 8
 * (registers past n are zeros, computed and dropped).
 */
VAES_TARGET static inline __attribute__((always_inline)) void small_rounds(const uint8_t *rk,
                                                                           __m512i *x, size_t n)
{
    for (size_t j = n; j < NREG; j++)
        x[j] = _mm512_setzero_si512();
    if (n == 1)
        bs_r256_vaes_small_rounds(rk, x, 1);
    else if (n == 2)
        bs_r256_vaes_small_rounds(rk, x, 2);
    else if (n <= 4)
        bs_r256_vaes_small_rounds(rk, x, 4);
    else
        bs_r256_vaes_small_rounds(rk, x, NREG);
}

/* Round key 0 broadcast to both blocks of a register. */
VAES_TARGET static inline __m512i small_key0(const uint8_t *rk)
{
    return _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)rk));
}

/* bs_block_cipher.encrypt for nblocks < 2 * NREG. */
VAES_TARGET static void vaes_encrypt_small(const uint8_t *rk, uint8_t *out, const uint8_t *in,
                                           size_t nblocks)
{
    __m512i x[NREG];
    const size_t n = (nblocks + 1) / 2;
    const __m512i k0 = small_key0(rk);
    for (size_t j = 0; j < n; j++)
        x[j] = _mm512_xor_si512(_mm512_maskz_loadu_epi8(blocks_mask(nblocks - 2 * j), in + 64 * j),
                                k0);
    small_rounds(rk, x, n);
    for (size_t j = 0; j < n; j++)
        _mm512_mask_storeu_epi8(out + 64 * j, blocks_mask(nblocks - 2 * j), x[j]);
}

/* bs_ctr32_fn for nblocks < 2 * NREG, counters from cb (bs_r256_vaes_counter's form). */
VAES_TARGET static void vaes_ctr32_small(const uint8_t *rk, __m512i cb, const uint8_t *in,
                                         uint8_t *out, size_t nblocks)
{
    __m512i x[NREG];
    const size_t n = (nblocks + 1) / 2;
    const __m512i k0 = small_key0(rk), bswap = bs_r256_vaes_bswap(), two = bs_r256_vaes_two();
    for (size_t j = 0; j < n; j++) {
        x[j] = _mm512_xor_si512(_mm512_shuffle_epi8(cb, bswap), k0);
        cb = _mm512_add_epi32(cb, two);
    }
    small_rounds(rk, x, n);
    for (size_t j = 0; j < n; j++) {
        const __mmask64 mk = blocks_mask(nblocks - 2 * j);
        if (in != NULL)
            x[j] = _mm512_xor_si512(x[j], _mm512_maskz_loadu_epi8(mk, in + 64 * j));
        _mm512_mask_storeu_epi8(out + 64 * j, mk, x[j]);
    }
}

VAES_TARGET static void vaes_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                     size_t nblocks)
{
    if (nblocks < 2 * NREG) {
        vaes_encrypt_small((const uint8_t *)ks->w, out, in, nblocks);
        return;
    }
    bs_r256_vaes_keys K;
    __m512i x[NREG];
    bs_r256_vaes_load_keys(&K, ks);
    for (; nblocks >= 2 * NREG; nblocks -= 2 * NREG, in += 64 * NREG, out += 64 * NREG) {
        for (int j = 0; j < NREG; j++)
            x[j] = _mm512_xor_si512(_mm512_loadu_si512((const void *)(in + 64 * j)), K.k[0]);
        VROUNDS_FROM(x, NREG, 1);
        for (int j = 0; j < NREG; j++)
            _mm512_storeu_si512((void *)(out + 64 * j), x[j]);
    }
    bs_wipe(&K, sizeof K); /* the broadcast round keys, wherever the compiler kept them */
    if (nblocks > 0)
        vaes_encrypt_small((const uint8_t *)ks->w, out, in, nblocks);
}

/*
 * One batch of n registers (2n blocks) of counter mode: the counters from *cb, the rounds, the
 * keystream XORed with in (NULL: written as it is). n = 16 in the long loop: a round of a
 * register is a VPERMB and a VAESENC one after the other (about nine cycles on Zen 5), so eight
 * registers leave the AES units idle part of each round and sixteen keep them busy.
 */
VAES_TARGET static inline __attribute__((always_inline)) void
ctr_batch(const bs_r256_vaes_keys *K, __m512i *cb, const uint8_t *in, uint8_t *out, int n)
{
    const __m512i two = bs_r256_vaes_two();
    __m512i x[2 * NREG];
    for (int j = 0; j < n; j++) {
        x[j] = bs_r256_vaes_start(K, *cb);
        *cb = _mm512_add_epi32(*cb, two);
    }
    for (int i = 2; i < BS_R256_ROUNDS; i++)
        for (int j = 0; j < n; j++)
            x[j] = bs_r256_vaes_round(K, x[j], i);
    for (int j = 0; j < n; j++) {
        x[j] = bs_r256_vaes_last(K, x[j]);
        if (in != NULL)
            x[j] = _mm512_xor_si512(x[j], _mm512_loadu_si512((const void *)(in + 64 * j)));
        _mm512_storeu_si512((void *)(out + 64 * j), x[j]);
    }
}

/* bs_ctr32_fn (bitslice.h). */
VAES_TARGET static void vaes_ctr32(const bs_key_schedule *ks, const uint8_t *counter,
                                   const uint8_t *in, uint8_t *out, size_t nblocks)
{
    __m512i cb = bs_r256_vaes_counter(counter);
    if (nblocks < 2 * NREG) {
        vaes_ctr32_small((const uint8_t *)ks->w, cb, in, out, nblocks);
        return;
    }
    bs_r256_vaes_keys K;
    bs_r256_vaes_load_keys(&K, ks);
    for (; nblocks >= 4 * NREG; nblocks -= 4 * NREG) {
        ctr_batch(&K, &cb, in, out, 2 * NREG);
        if (in != NULL)
            in += 128 * NREG;
        out += 128 * NREG;
    }
    for (; nblocks >= 2 * NREG; nblocks -= 2 * NREG) {
        ctr_batch(&K, &cb, in, out, NREG);
        if (in != NULL)
            in += 64 * NREG;
        out += 64 * NREG;
    }
    bs_wipe(&K, sizeof K);
    if (nblocks > 0)
        vaes_ctr32_small((const uint8_t *)ks->w, cb, in, out, nblocks);
}

/*
 * bs_block_cipher.set_key_encrypt: the key schedule (rijndael256_ks_aesni.h, stored as
 * vaes_set_key stores it) and the rounds of up to four blocks side by side, round n as soon as
 * step n has made its key. The blocks' VPERMB and VAESENC chain is shorter than the schedule's
 * two AESENCLAST per step, so a key setup with its first blocks (GCM's H, E_K(J0) and the first
 * keystream block) costs about what the key setup alone costs. More blocks: set_key, then
 * encrypt.
 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,vaes,aes,ssse3"))) static void
vaes_set_key_encrypt(bs_key_schedule *ks, const uint8_t *key, uint8_t *out, const uint8_t *in,
                     size_t nblocks)
{
    if (nblocks > 4) {
        vaes_set_key(ks, key);
        vaes_encrypt(ks, out, in, nblocks);
        return;
    }
    const __mmask64 m0 = nblocks == 0 ? 0 : blocks_mask(nblocks);
    const __mmask64 m1 = nblocks <= 2 ? 0 : blocks_mask(nblocks - 2);
    __m512i x[2] = {_mm512_maskz_loadu_epi8(m0, in), _mm512_maskz_loadu_epi8(m1, in + 64)};
    bs_r256_vaes_set_key_rounds((uint8_t *)ks->w, key, x, 2);
    _mm512_mask_storeu_epi8(out, m0, x[0]);
    _mm512_mask_storeu_epi8(out + 64, m1, x[1]);
}

static int vaes_export_round_keys(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_r256_export_byte_keys((const uint8_t *)ks->w, out, nwords);
}

const bs_block_cipher bs_rijndael256_vaes = {
    .name = "RIJNDAEL-256",
    .impl = "vaes",
    .level = BS_CPU_AVX512,
    .key_len = 32,
    .block_len = BS_R256_BLOCK,
    .lanes = 16,
    .set_key = vaes_set_key,
    .encrypt = vaes_encrypt,
    .export_round_keys = vaes_export_round_keys,
    .ctr32 = vaes_ctr32,
    .set_key_encrypt = vaes_set_key_encrypt,
};

#endif
