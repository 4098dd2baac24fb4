/*
 * Rijndael-256 (Nb = 8, Nk = 8, Nr = 14) with AES-NI: a 32-byte block is two xmm halves,
 * A = state columns 0..3 (bytes 0..15) and B = columns 4..7 (bytes 16..31), in the byte order
 * of rijndael256.h (state[r][c] = byte r + 4c). AESENC on each half does the AES round: its
 * ShiftRows (row r by r within the half), SubBytes, MixColumns (per column) and AddRoundKey.
 * SubBytes and MixColumns are the same for Rijndael-256; only ShiftRows (offsets 0, 1, 3, 4 over
 * eight columns) differs, so each round first moves the bytes such that AESENC's own ShiftRows
 * then leaves them where Rijndael-256's would:
 *
 *   u_H[r + 4c] = x[r + 4 ((4H + ((c - r) mod 4) + s_r) mod 8)],  s = (0, 1, 3, 4), H = 0 (A), 1
 * (B).
 *
 * Each source byte keeps its position within the half, up to one byte shuffle that is the same
 * for both halves (bs_r256_aesni_shuf), and the bytes that cross halves sit at the same positions
 * in both (bs_r256_aesni_cross): u_A = shuffle(blend(A, B)), u_B = shuffle(blend(B, A)); the round
 * is rijndael256_aesni.h's. AESENC, PBLENDVB and PSHUFB take constant time and index nothing by
 * data (Intel's AES-NI white paper, and the same construction for Rijndael-256 there). Six blocks
 * are in flight per loop so that a round's latency hides.
 *
 * Key schedule: the 15 round keys as bytes, nothing else: bs_r256_key_expand_aesni, the AES-256
 * schedule (FIPS-197 5.2, Nk = 8) on AESENCLAST run to 120 words (rijndael256_ks_aesni.h),
 * bit-exact with the portable bs_r256_key_expand (the unit suite compares them for random keys).
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "rijndael256.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include "rijndael256_aesni.h"
#include "rijndael256_ks_aesni.h"

#define AESNI_TARGET __attribute__((target("aes,sse4.1,ssse3")))

_Static_assert((BS_R256_ROUNDS + 1) * BS_R256_BLOCK <= BS_KS_MAX, "round keys exceed BS_KS_MAX");

/* Round key n from round key n - 1 (rijndael256_ks_aesni.h), stored. */
#define KEY_STEP(n)                                                                                \
    do {                                                                                           \
        bs_r256_key_step(&k0, &k1, (n));                                                           \
        _mm_storeu_si128((__m128i *)(w + 32 * (n)), k0);                                           \
        _mm_storeu_si128((__m128i *)(w + 32 * (n) + 16), k1);                                      \
    } while (0)

/*
 * bs_r256_key_expand on AES-NI (rijndael256.h): w 16-byte aligned. AESENCLAST and PSHUFB take
 * constant time and index nothing by data.
 */
AESNI_TARGET void bs_r256_key_expand_aesni(uint8_t *w, const uint8_t *key)
{
    __m128i k0 = _mm_loadu_si128((const __m128i *)key);
    __m128i k1 = _mm_loadu_si128((const __m128i *)(key + 16));
    _mm_storeu_si128((__m128i *)w, k0);
    _mm_storeu_si128((__m128i *)(w + 16), k1);
#pragma GCC unroll 14
    for (int n = 1; n <= BS_R256_ROUNDS; n++)
        KEY_STEP(n);
}

static void aesni_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_r256_key_expand_aesni((uint8_t *)ks->w, key);
}

#define RK(i, h) BS_R256_AESNI_RK(rk, i, h)

/*
 * Rounds 1..14 on the n blocks (a[j], b[j]) already XORed with round key 0 (rijndael256_aesni.h's
 * round: the round keys stay in memory, operands of AESENC).
 */
#define ROUNDS(n)                                                                                  \
    do {                                                                                           \
        _Pragma("GCC unroll 14") for (int i = 1; i <= BS_R256_ROUNDS; i++)                         \
        {                                                                                          \
            __asm__ volatile("" : : : "memory");                                                   \
            _Pragma("GCC unroll 8") for (int j = 0; j < (n); j++)                                  \
                bs_r256_aesni_round(&a[j], &b[j], cross, shuf, BS_R256_AESNI_RKP(rk, i, 0),        \
                                    BS_R256_AESNI_RKP(rk, i, 1), i == BS_R256_ROUNDS, 1);          \
        }                                                                                          \
    } while (0)

/* Blocks in flight: a round's chain (PBLENDVB, PSHUFB, AESENC) is about 8 cycles on Zen 5. */
#define NB 6

AESNI_TARGET static void aesni_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                       size_t nblocks)
{
    const uint8_t *rk = (const uint8_t *)ks->w;
    const __m128i cross = _mm_loadu_si128((const __m128i *)bs_r256_aesni_cross);
    const __m128i shuf = _mm_loadu_si128((const __m128i *)bs_r256_aesni_shuf);
    __m128i a[NB], b[NB];
    for (; nblocks >= NB; nblocks -= NB, in += 32 * NB, out += 32 * NB) {
        for (int j = 0; j < NB; j++) {
            a[j] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(in + 32 * j)), RK(0, 0));
            b[j] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(in + 32 * j + 16)), RK(0, 1));
        }
        ROUNDS(NB);
        for (int j = 0; j < NB; j++) {
            _mm_storeu_si128((__m128i *)(out + 32 * j), a[j]);
            _mm_storeu_si128((__m128i *)(out + 32 * j + 16), b[j]);
        }
    }
    for (; nblocks > 0; nblocks--, in += 32, out += 32) {
        a[0] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), RK(0, 0));
        b[0] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(in + 16)), RK(0, 1));
        ROUNDS(1);
        _mm_storeu_si128((__m128i *)out, a[0]);
        _mm_storeu_si128((__m128i *)(out + 16), b[0]);
    }
}

/*
 * CTR over whole blocks: block i is E(counter with its last 4 bytes + i mod 2^32, big-endian)
 * XOR in[i] (in NULL: the keystream alone). Half A of every counter block is the same, so its
 * AddRoundKey is done once; half B's counter is kept little-endian and byte-swapped per block.
 */
AESNI_TARGET static void aesni_ctr32(const bs_key_schedule *ks, const uint8_t *counter,
                                     const uint8_t *in, uint8_t *out, size_t nblocks)
{
    const uint8_t *rk = (const uint8_t *)ks->w;
    const __m128i cross = _mm_loadu_si128((const __m128i *)bs_r256_aesni_cross);
    const __m128i shuf = _mm_loadu_si128((const __m128i *)bs_r256_aesni_shuf);
    const __m128i bswap = _mm_loadu_si128((const __m128i *)bs_r256_aesni_ctr_bswap);
    const __m128i a0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)counter), RK(0, 0));
    __m128i cb = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(counter + 16)), bswap);
    const __m128i one = _mm_set_epi32(1, 0, 0, 0);
    __m128i a[NB], b[NB];
/* n counter blocks through the rounds, XORed with in (NULL: the keystream) into out. */
#define CTR_BLOCKS(n)                                                                              \
    do {                                                                                           \
        for (int j = 0; j < (n); j++) {                                                            \
            a[j] = a0;                                                                             \
            b[j] = _mm_xor_si128(_mm_shuffle_epi8(cb, bswap), RK(0, 1));                           \
            cb = _mm_add_epi32(cb, one);                                                           \
        }                                                                                          \
        ROUNDS(n);                                                                                 \
        for (int j = 0; j < (n); j++) {                                                            \
            if (in != NULL) {                                                                      \
                a[j] = _mm_xor_si128(a[j], _mm_loadu_si128((const __m128i *)(in + 32 * j)));       \
                b[j] = _mm_xor_si128(b[j], _mm_loadu_si128((const __m128i *)(in + 32 * j + 16)));  \
            }                                                                                      \
            _mm_storeu_si128((__m128i *)(out + 32 * j), a[j]);                                     \
            _mm_storeu_si128((__m128i *)(out + 32 * j + 16), b[j]);                                \
        }                                                                                          \
        if (in != NULL)                                                                            \
            in += 32 * (n);                                                                        \
        out += 32 * (n);                                                                           \
    } while (0)
    for (; nblocks >= NB; nblocks -= NB)
        CTR_BLOCKS(NB);
    for (; nblocks > 0; nblocks--)
        CTR_BLOCKS(1);
#undef CTR_BLOCKS
}

static int aesni_export_round_keys(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_r256_export_byte_keys((const uint8_t *)ks->w, out, nwords);
}

const bs_block_cipher bs_rijndael256_aesni = {
    .name = "RIJNDAEL-256",
    .impl = "aesni",
    .level = BS_CPU_AESNI,
    .key_len = 32,
    .block_len = BS_R256_BLOCK,
    .lanes = NB,
    .set_key = aesni_set_key,
    .encrypt = aesni_encrypt,
    .export_round_keys = aesni_export_round_keys,
    .ctr32 = aesni_ctr32,
};

#endif
