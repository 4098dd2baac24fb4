/*
 * gcm256_vaes.c: the whole-block loop of RIJNDAEL-256-GCM with VAES and VPCLMULQDQ on zmm
 * (CPU level avx512), CTR and GHASH stitched: while the AES units run the 14 rounds of 16 counter
 * blocks, the carry-less multiplier absorbs 16 blocks of ciphertext (the previous 16 when
 * encrypting, whose ciphertext is only now written; the same 16 when decrypting, whose input is
 * the ciphertext), with one reduction per 16 blocks (ghash256_vpclmul.h). Bit-exact with CTR
 * over any Rijndael-256 core followed by any GHASH-256; the unit suite checks it against the
 * reference at every split, in place and unaligned.
 *
 * Every instruction takes constant time; nothing branches on or indexes by secret data (the
 * block count and the direction are public).
 */
#include "../bs_cpu.h"
#include "gcm256.h"
#include "gcm256_bulk.h"

#if defined(BS_GHASH256_HAVE_VPCLMUL) && defined(BS_HAVE_RIJNDAEL256)
#define HAVE_STITCHED 1

#include "../rijndael256/rijndael256_vaes.h"
#include "ghash256_vpclmul.h"

#define TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,vaes,vpclmulqdq")))
#define NREG 8 /* registers of two blocks per batch: 16 blocks, one GHASH chunk */

_Static_assert(2 * NREG == BS_VPCLMUL_CHUNK, "one GHASH reduction per batch");

/*
 * One batch: 16 counter blocks from *cb through the rounds, XORed with in into out, and, when
 * hsrc is not NULL, its 16 blocks absorbed into *yr meanwhile: block register r during round
 * r + 2, the reduction during round 11. Rounds 0 and 1 take no VPSHUFB for the counters
 * (bs_r256_vaes_start).
 */
TARGET static inline __attribute__((always_inline)) void batch(const bs_r256_vaes_keys *K,
                                                               const uint64_t *hkey, __m512i *cb,
                                                               __m256i *yr, const uint8_t *in,
                                                               uint8_t *out, const uint8_t *hsrc)
{
    const __m512i two = bs_r256_vaes_two(), rev = bs_vpclmul_rev();
    __m512i x[NREG];
    bs_vpclmul_acc t;
    bs_vpclmul_acc_zero(&t);
#pragma GCC unroll 8
    for (int j = 0; j < NREG; j++) {
        x[j] = bs_r256_vaes_start(K, *cb);
        *cb = _mm512_add_epi32(*cb, two);
    }
#pragma GCC unroll 12
    for (int i = 2; i < BS_R256_ROUNDS; i++) {
#pragma GCC unroll 8
        for (int j = 0; j < NREG; j++)
            x[j] = bs_r256_vaes_round(K, x[j], i);
        if (hsrc != NULL && i - 2 < NREG) {
            const int r = i - 2;
            __m512i h = _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)(hsrc + 64 * r)), rev);
            if (r == 0)
                h = _mm512_xor_si512(h, _mm512_zextsi256_si512(*yr));
            bs_vpclmul_mul(&t, h, bs_vpclmul_pair(hkey, BS_VPCLMUL_CHUNK, (size_t)r));
        }
        if (hsrc != NULL && i == NREG + 3)
            *yr = bs_vpclmul_swap(bs_vpclmul_reduce(&t));
    }
#pragma GCC unroll 8
    for (int j = 0; j < NREG; j++) {
        x[j] = bs_r256_vaes_last(K, x[j]);
        x[j] = _mm512_xor_si512(x[j], _mm512_loadu_si512((const void *)(in + 64 * j)));
        _mm512_storeu_si512((void *)(out + 64 * j), x[j]);
    }
}

TARGET static size_t vaes_vpclmul_bulk(const bs_key_schedule *ks, const uint64_t *hkey,
                                       uint8_t counter[32], uint8_t y[32], const uint8_t *in,
                                       uint8_t *out, size_t nblocks, int decrypt)
{
    const size_t batches = nblocks / (2 * NREG), bb = 64 * NREG;
    if (batches == 0)
        return 0;
    bs_r256_vaes_keys K;
    bs_r256_vaes_load_keys(&K, ks);
    __m512i cb = bs_r256_vaes_counter(counter);
    __m256i yr = bs_vpclmul_load_y(y);
    if (decrypt) {
        for (size_t b = 0; b < batches; b++)
            batch(&K, hkey, &cb, &yr, in + bb * b, out + bb * b, in + bb * b);
    } else {
        /* GHASH runs one batch behind: the ciphertext of batch b - 1 while CTR makes batch b. */
        batch(&K, hkey, &cb, &yr, in, out, NULL);
        for (size_t b = 1; b < batches; b++)
            batch(&K, hkey, &cb, &yr, in + bb * b, out + bb * b, out + bb * (b - 1));
        yr = bs_vpclmul_chunk(hkey, yr, out + bb * (batches - 1), BS_VPCLMUL_CHUNK);
    }
    bs_vpclmul_store_y(y, yr);
    const size_t done = batches * 2 * NREG;
    bs_store_be32(counter + 28, bs_load_be32(counter + 28) + (uint32_t)done);
    bs_wipe(&K, sizeof K);
    return done;
}

#endif

bs_gcm256_bulk_fn bs_gcm256_bulk_for(const bs_block_cipher *cipher, const bs_ghash256_impl *ghash)
{
#ifdef HAVE_STITCHED
    /* Either is set only where the CPU has AVX-512, VAES and VPCLMULQDQ (bs_cpu.c, ghash256.c). */
    if (cipher == &bs_rijndael256_vaes && ghash == &bs_ghash256_vpclmul_impl)
        return vaes_vpclmul_bulk;
#else
    (void)cipher;
    (void)ghash;
#endif
    return NULL;
}
