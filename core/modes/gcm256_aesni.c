/*
 * gcm256_aesni.c: the whole-block loop of RIJNDAEL-256-GCM with AES-NI and PCLMULQDQ on xmm (CPU
 * level aesni: what a CPU without VAES runs), CTR and GHASH stitched: while AESENC runs the 14
 * rounds of a group of counter blocks, PCLMULQDQ absorbs a group of ciphertext blocks (the
 * previous batch's when encrypting, whose ciphertext is only then written; the same batch's when
 * decrypting, whose input is the ciphertext), one block every second round, with one reduction
 * per batch of six blocks (powers H^6..H^1, ghash256_pclmul.h). A round of a block is two PBLENDVB,
 * two PSHUFB and two AESENC (rijndael256_aesni.h); GHASH's carry-less multiplies, XORs and shifts
 * fill the issue slots and the multiplier that the rounds leave idle. Bit-exact with CTR over any
 * Rijndael-256 core followed by any GHASH-256: the unit suite (test_gcm's long messages at every
 * split, in place, unaligned, counters wrapping at 2^32) runs it at CPU level aesni and above.
 *
 * Every instruction takes constant time; nothing branches on or indexes by secret data (the
 * block count and the direction are public; the counter is used only in registers).
 */
#include "../bs_cpu.h"
#include "gcm256.h"
#include "gcm256_bulk.h"

#if defined(BS_GHASH256_HAVE_PCLMUL) && defined(BS_HAVE_RIJNDAEL256)
#define HAVE_STITCHED 1

#include "../rijndael256/rijndael256.h"
#include "../rijndael256/rijndael256_aesni.h"
#include "ghash256_pclmul.h"

#define TARGET __attribute__((target("aes,pclmul,sse4.1,ssse3")))
#define INLINE static inline __attribute__((always_inline))
/*
 * Six blocks in flight (twelve registers, with xmm0 for PBLENDVB's mask and the shuffle: all
 * sixteen): a round's chain (PBLENDVB, PSHUFB, AESENC) is about 8 cycles on Zen 5, and four
 * blocks left the units idle (measured: 0.97 TSC cycles a byte at six or eight, 1.03 at four).
 * Their GHASH block is absorbed after every second round (1, 3, .., 11), the batch's reduction
 * after round 13.
 */
#define NB 6
#define GSTEP 2

_Static_assert(NB <= BS_PCLMUL_POWERS, "a batch's GHASH needs more key powers than are made");
_Static_assert(GSTEP *(NB - 1) + 1 < BS_R256_ROUNDS, "a GHASH block after the last round");

/* What every batch uses. */
typedef struct {
    const uint8_t *rk;    /* the byte round keys (ks->w: 64-byte aligned) */
    const uint64_t *hkey; /* the key form, at least NB powers */
    __m128i a0;           /* half A of every counter block, XORed with round key 0 */
    __m128i cb;           /* half B of the next counter block, its counter word little-endian */
    __m128i y01, y23;     /* the GHASH accumulator (ghash256_pclmul.h's words) */
} loop_state;

/* Block j (0..NB - 1) of a batch at src into t: Y ^ X_0 by H^NB, X_j by H^(NB - j). */
TARGET INLINE void ghash_absorb(const loop_state *s, bs_pclmul_acc *t, const uint8_t *src, int j)
{
    const __m128i rv = bs_pclmul_rev();
    __m128i a23 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)src), rv);
    __m128i a01 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + 16)), rv);
    if (j == 0) {
        a23 = _mm_xor_si128(a23, s->y23);
        a01 = _mm_xor_si128(a01, s->y01);
    }
    bs_pclmul_mul_acc(t, a23, a01, s->hkey + BS_PCLMUL_POW_WORDS * (NB - 1 - j));
}

/*
 * One batch: NB counter blocks through the rounds, XORed with in into out; when hsrc is not
 * NULL, its NB blocks absorbed into s->y meanwhile (hsrc's reads all come before out's writes,
 * so hsrc may be in).
 */
TARGET INLINE void batch(loop_state *s, const uint8_t *in, uint8_t *out, const uint8_t *hsrc)
{
    const uint8_t *rk = s->rk;
    const __m128i cross = _mm_loadu_si128((const __m128i *)bs_r256_aesni_cross);
    const __m128i shuf = _mm_loadu_si128((const __m128i *)bs_r256_aesni_shuf);
    const __m128i bswap = _mm_loadu_si128((const __m128i *)bs_r256_aesni_ctr_bswap);
    const __m128i one = _mm_set_epi32(1, 0, 0, 0);
    bs_pclmul_acc t;
    bs_pclmul_acc_zero(&t);
    __m128i a[NB], b[NB];
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++) {
        a[j] = s->a0;
        b[j] = _mm_xor_si128(_mm_shuffle_epi8(s->cb, bswap), BS_R256_AESNI_RK(rk, 0, 1));
        s->cb = _mm_add_epi32(s->cb, one);
    }
#pragma GCC unroll 14
    for (int i = 1; i <= BS_R256_ROUNDS; i++) {
        /* The round keys stay in memory, operands of AESENC: the registers go to the blocks. */
        __asm__ volatile("" : : : "memory");
#pragma GCC unroll 8
        for (int j = 0; j < NB; j++)
            bs_r256_aesni_round(&a[j], &b[j], cross, shuf, BS_R256_AESNI_RKP(rk, i, 0),
                                BS_R256_AESNI_RKP(rk, i, 1), i == BS_R256_ROUNDS);
        if (hsrc != NULL && (i - 1) % GSTEP == 0 && (i - 1) / GSTEP < NB)
            ghash_absorb(s, &t, hsrc + 32 * ((i - 1) / GSTEP), (i - 1) / GSTEP);
        if (hsrc != NULL && i == BS_R256_ROUNDS - 1)
            bs_pclmul_reduce(&t, &s->y01, &s->y23);
    }
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++) {
        a[j] = _mm_xor_si128(a[j], _mm_loadu_si128((const __m128i *)(in + 32 * j)));
        b[j] = _mm_xor_si128(b[j], _mm_loadu_si128((const __m128i *)(in + 32 * j + 16)));
        _mm_storeu_si128((__m128i *)(out + 32 * j), a[j]);
        _mm_storeu_si128((__m128i *)(out + 32 * j + 16), b[j]);
    }
}

/* NB blocks of src into s->y alone (the last batch's ciphertext, encrypting). */
TARGET static void ghash_batch(loop_state *s, const uint8_t *src)
{
    bs_pclmul_acc t;
    bs_pclmul_acc_zero(&t);
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++)
        ghash_absorb(s, &t, src + 32 * j, j);
    bs_pclmul_reduce(&t, &s->y01, &s->y23);
}

/* bs_gcm256_bulk_fn (gcm256_bulk.h): whole batches of NB blocks. */
TARGET static size_t aesni_pclmul_bulk(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                                       uint8_t counter[32], int ctr_secret, uint8_t y[32],
                                       const uint8_t *in, uint8_t *out, size_t nblocks, int decrypt)
{
    (void)ctr_secret; /* nothing here branches on the counter */
    const size_t batches = nblocks / NB, bb = 32 * NB;
    if (batches == 0)
        return 0;
    if (*hpow < NB) {
        bs_ghash256_pclmul_impl.extend(hkey, *hpow, NB);
        *hpow = NB;
    }
    const __m128i rv = bs_pclmul_rev();
    loop_state s;
    s.rk = (const uint8_t *)ks->w;
    s.hkey = hkey;
    s.a0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)counter), BS_R256_AESNI_RK(s.rk, 0, 0));
    s.cb = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(counter + 16)),
                            _mm_loadu_si128((const __m128i *)bs_r256_aesni_ctr_bswap));
    s.y23 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)y), rv);
    s.y01 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(y + 16)), rv);
    if (decrypt) {
        for (size_t k = 0; k < batches; k++)
            batch(&s, in + bb * k, out + bb * k, in + bb * k);
    } else {
        /* GHASH runs one batch behind: the ciphertext of batch k - 1 while CTR makes batch k. */
        batch(&s, in, out, NULL);
        for (size_t k = 1; k < batches; k++)
            batch(&s, in + bb * k, out + bb * k, out + bb * (k - 1));
        ghash_batch(&s, out + bb * (batches - 1));
    }
    _mm_storeu_si128((__m128i *)y, _mm_shuffle_epi8(s.y23, rv));
    _mm_storeu_si128((__m128i *)(y + 16), _mm_shuffle_epi8(s.y01, rv));
    const size_t done = batches * NB;
    bs_store_be32(counter + 28, bs_load_be32(counter + 28) + (uint32_t)done);
    return done;
}

#endif

bs_gcm256_bulk_fn bs_gcm256_aesni_bulk_for(const bs_block_cipher *cipher,
                                           const bs_ghash256_impl *ghash)
{
#ifdef HAVE_STITCHED
    /* Either is set only where the CPU has AES-NI, PCLMULQDQ and SSE4.1 (bs_cpu.c, ghash256.c). */
    if (cipher == &bs_rijndael256_aesni && ghash == &bs_ghash256_pclmul_impl)
        return aesni_pclmul_bulk;
#else
    (void)cipher;
    (void)ghash;
#endif
    return NULL;
}
