/*
 * gcm256_vaes.c: the whole-block loop of RIJNDAEL-256-GCM with VAES and VPCLMULQDQ on zmm
 * (CPU level avx512), CTR and GHASH stitched: while the AES units run the 14 rounds of 32 counter
 * blocks (wide_batch; a 16-block batch for a remainder), the carry-less multiplier absorbs 32
 * blocks of ciphertext (the previous batch's when encrypting, whose ciphertext is only now
 * written; the same batch's when decrypting, whose input is the ciphertext), with one reduction
 * per 16 blocks (ghash256_vpclmul.h). Bit-exact with CTR over any Rijndael-256 core followed by
 * any GHASH-256; the unit suite checks it against the reference at every split, in place and
 * unaligned.
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

/*
 * The round keys as short_bulk's batches read them: each broadcast from the schedule when its
 * round needs it (one load a round for all the registers), VPERMB's index vectors and round key
 * 0 moved by it (bs_r256_vaes_start) in registers. bs_r256_vaes_keys is a copy of all of them on
 * the stack, 1 KiB stored and wiped a call: a KiB's message took about 10 TSC ticks longer. (The
 * long loop keeps it: there the broadcasts cost more than the copy.)
 */
typedef struct {
    const uint8_t *rk;
    __m512i perm, perm_bswap, pk0;
} short_keys;

TARGET static inline __m512i sk_key(const short_keys *K, int i)
{
    return _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(K->rk + 32 * i)));
}

TARGET static inline __m512i sk_round(const short_keys *K, __m512i x, int i)
{
    return _mm512_aesenc_epi128(_mm512_permutexvar_epi8(K->perm, x), sk_key(K, i));
}

TARGET static inline __m512i sk_start(const short_keys *K, __m512i cb)
{
    return _mm512_aesenc_epi128(
        _mm512_xor_si512(_mm512_permutexvar_epi8(K->perm_bswap, cb), K->pk0), sk_key(K, 1));
}

TARGET static inline __m512i sk_last(const short_keys *K, __m512i x)
{
    return _mm512_aesenclast_epi128(_mm512_permutexvar_epi8(K->perm, x), sk_key(K, BS_R256_ROUNDS));
}

/*
 * batch() with the 16 blocks of hsrc absorbed as two 8-block chunks (powers H^8..H^1, a
 * reduction after register 3 and after register 7), for a key form of 8 powers (short_bulk);
 * xj not NULL: a ninth counter register (bs_r256_vaes_counter's form) through the rounds too.
 */
TARGET static inline __attribute__((always_inline)) void
batch8(const short_keys *K, const uint64_t *hkey, __m512i *cb, __m256i *yr, const uint8_t *in,
       uint8_t *out, const uint8_t *hsrc, __m512i *xj)
{
    const __m512i two = bs_r256_vaes_two(), rev = bs_vpclmul_rev();
    __m512i x[NREG];
    if (xj != NULL)
        *xj = sk_start(K, *xj);
    bs_vpclmul_acc t;
    bs_vpclmul_acc_zero(&t);
#pragma GCC unroll 8
    for (int j = 0; j < NREG; j++) {
        x[j] = sk_start(K, *cb);
        *cb = _mm512_add_epi32(*cb, two);
    }
#pragma GCC unroll 12
    for (int i = 2; i < BS_R256_ROUNDS; i++) {
#pragma GCC unroll 8
        for (int j = 0; j < NREG; j++)
            x[j] = sk_round(K, x[j], i);
        if (xj != NULL)
            *xj = sk_round(K, *xj, i);
        if (hsrc != NULL && i - 2 < NREG) {
            const int r = i - 2;
            __m512i h = _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)(hsrc + 64 * r)), rev);
            if (r % 4 == 0)
                h = _mm512_xor_si512(h, _mm512_zextsi256_si512(*yr));
            bs_vpclmul_mul(&t, h, bs_vpclmul_pair(hkey, BS_VPCLMUL_CHUNK / 2, (size_t)(r % 4)));
            if (r % 4 == 3) {
                *yr = bs_vpclmul_swap(bs_vpclmul_reduce(&t));
                bs_vpclmul_acc_zero(&t);
            }
        }
    }
    if (xj != NULL)
        *xj = sk_last(K, *xj);
#pragma GCC unroll 8
    for (int j = 0; j < NREG; j++) {
        x[j] = sk_last(K, x[j]);
        x[j] = _mm512_xor_si512(x[j], _mm512_loadu_si512((const void *)(in + 64 * j)));
        _mm512_storeu_si512((void *)(out + 64 * j), x[j]);
    }
}

/*
 * Counter blocks after round 1's VPERMB (bs_r256_vaes_start's PB): the counter's low byte sits
 * at bytes 11 and 43 of a register (its two blocks). Register j of a wide batch adds 2j there,
 * which is the whole increment while that byte does not carry within the batch.
 */
static const BS_ALIGN(64) uint8_t WIDE_STEPS[2 * NREG][64] = {
#define S(j)                                                                                       \
    {                                                                                              \
        [11] = 2 * (j), [43] = 2 * (j)                                                             \
    }
    S(0), S(1), S(2),  S(3),  S(4),  S(5),  S(6),  S(7),
    S(8), S(9), S(10), S(11), S(12), S(13), S(14), S(15),
#undef S
};

/*
 * The wide batch: 32 counter blocks (16 registers: enough that the VPERMB-then-VAESENC chain of
 * a round no longer leaves the AES units idle) and, when hsrc is not NULL, its 32 blocks absorbed
 * into *yr as two GHASH chunks of 16 (powers H^16..H^1 each, one reduction each), by the
 * two-level Karatsuba of bs_vpclmul_chunk16: eight groups of four blocks, each in four parts (the
 * x and y products by K1, K1, KM and the s products: nine carry-less multiplies a group, 72 a
 * batch where the lane-wise form took 96). Every vector instruction competes with the rounds for
 * the same units, and the 32 parts are dealt out three to each of rounds 2..12 (measured: no
 * faster than the lane-wise form's 96, nor than four parts a round; the loop is bound by all its
 * vector instructions together).
 *
 * The reductions go to the integer units (bs_vpclmul_reduce16_store, then _words: a 1 MiB
 * message 11 % faster, 16 KiB 4 %, in 4889882's A/B): chunk A's sums are stored before group 4 and
 * reduced two groups later; chunk B's are stored after round 13 and reduced in the next batch
 * (*pending: rbuf
 * + 48 holds them) or by the caller. Each chunk takes the group that needs *yr (its first) last:
 * groups run 1, 2, 3, 0, then 5, 6, 7, 4, so that no group waits for a reduction.
 */
TARGET static inline __attribute__((always_inline)) void
wide_batch(const bs_r256_vaes_keys *K, uint64_t *hkey, __m512i *cb, uint32_t *ctr, int ctr_secret,
           __m256i *yr, const uint8_t *in, uint8_t *out, const uint8_t *hsrc, bs_vpclmul_pw *pw,
           uint64_t *rbuf, int *pending)
{
    const __m512i two = bs_r256_vaes_two();
    __m512i x[2 * NREG];
    bs_vpclmul_group q = {0};
    bs_vpclmul_acc t;
    bs_vpclmul_acc_zero(&t);
    /*
     * *ctr is the first block's counter word. Where it is public (a direct IV's) and its low byte
     * does not carry within these 32 blocks, one VPERMB for the batch and a VPADDB a register;
     * else the VPADDD and the VPERMB of each register. A J0 that came by GHASH depends on H: a
     * branch on its counter would leak bits of the key (dudect's rekey-iv12 targets caught it).
     */
    if (!ctr_secret && (*ctr & 0xff) <= 0x100 - 4 * NREG) {
        const __m512i base = _mm512_permutexvar_epi8(K->perm_bswap, *cb);
#pragma GCC unroll 16
        for (int j = 0; j < 2 * NREG; j++)
            x[j] = _mm512_aesenc_epi128(
                _mm512_xor_si512(
                    _mm512_add_epi8(base, _mm512_load_si512((const void *)WIDE_STEPS[j])), K->pk0),
                K->k[1]);
        *cb = _mm512_add_epi32(*cb, _mm512_slli_epi32(two, 4));
    } else {
#pragma GCC unroll 16
        for (int j = 0; j < 2 * NREG; j++) {
            x[j] = bs_r256_vaes_start(K, *cb);
            *cb = _mm512_add_epi32(*cb, two);
        }
    }
    *ctr += 4 * NREG;
#pragma GCC unroll 12
    for (int i = 2; i < BS_R256_ROUNDS; i++) {
        /* The round keys stay in memory, one load a round: the registers go to the 16 states. */
        __asm__ volatile("" : : : "memory");
#pragma GCC unroll 16
        for (int j = 0; j < 2 * NREG; j++)
            x[j] = bs_r256_vaes_round(K, x[j], i);
        /*
         * pw (with hsrc NULL): the key powers' steps, each after the rounds that cover the one
         * before (a square, then a product of about two rounds' latency): 0 in round 2, 1 in
         * round 4, 2 in round 7, 3 and 4 in round 10.
         */
        if (pw != NULL && (i == 2 || i == 4 || i == 7 || i == 10)) {
            bs_vpclmul_powers_step(hkey, BS_VPCLMUL_CHUNK, pw, (i - 1) / 3);
            if (i == 10)
                bs_vpclmul_powers_step(hkey, BS_VPCLMUL_CHUNK, pw, 4);
        }
        if (hsrc == NULL)
            continue;
#pragma GCC unroll 3
        for (int p = 3 * (i - 2); p < 3 * (i - 1); p++) {
            const int k = p / 4, part = p % 4; /* the k-th group to run: group g */
            if (k >= 8)
                break;
            const int g = (k / 4) * 4 + (k % 4 + 1) % 4;
            if (part == 0) {
                if (k == 2 && *pending) { /* the previous batch's chunk B */
                    *yr = bs_vpclmul_reduce16_words(rbuf + 48);
                    *pending = 0;
                }
                if (k == 4) { /* chunk A done: its sums out, then chunk B */
                    bs_vpclmul_reduce16_store(&t, rbuf);
                    bs_vpclmul_acc_zero(&t);
                }
                if (k == 6)
                    *yr = bs_vpclmul_reduce16_words(rbuf);
                bs_vpclmul_group_load(&q, hkey, *yr, hsrc + 512 * (g / 4), (size_t)(g % 4));
            }
            bs_vpclmul_group_part(&t, &q, part);
        }
    }
    if (hsrc != NULL) {
        bs_vpclmul_reduce16_store(&t, rbuf + 48);
        *pending = 1;
    }
#pragma GCC unroll 16
    for (int j = 0; j < 2 * NREG; j++) {
        x[j] = bs_r256_vaes_last(K, x[j]);
        x[j] = _mm512_xor_si512(x[j], _mm512_loadu_si512((const void *)(in + 64 * j)));
        _mm512_storeu_si512((void *)(out + 64 * j), x[j]);
    }
}

/*
 * An encryption of 16 to 63 blocks (a KiB) under a key form short of 16 powers (a re-keyed
 * message): batches of 16 blocks, each absorbing the one before as two 8-block chunks beside its
 * rounds (batch8), the last one's absorbed after. 8 powers, a level fewer, made first. long_bulk
 * makes 16 powers and the middle form, and a KiB's GHASH could only follow a wide batch's CTR: 1
 * KiB messages took longer (the lane-wise 8-block chunks' extra multiplies and reductions cost
 * less), and a re-key wiped 3.5 KiB of key form instead of 1.5. Returns the blocks done (16, 32 or
 * 48).
 */
TARGET __attribute__((noinline)) static size_t short_bulk(const bs_key_schedule *ks, uint64_t *hkey,
                                                          unsigned *hpow, uint8_t counter[32],
                                                          uint8_t y[32], const uint8_t *in,
                                                          uint8_t *out, size_t nblocks,
                                                          const uint8_t *j0, uint8_t *ekj0)
{
    const unsigned half = BS_VPCLMUL_CHUNK / 2;
    const size_t wide = nblocks >= 4 * NREG, narrow = nblocks - 4 * NREG * wide >= 2 * NREG;
    const size_t done = 4 * NREG * wide + 2 * NREG * narrow;
    if (*hpow < half) {
        bs_vpclmul_powers(hkey, half);
        *hpow = half;
    }
    short_keys K;
    K.rk = (const uint8_t *)ks->w;
    K.perm = _mm512_loadu_si512((const void *)bs_r256_vperm);
    K.perm_bswap = _mm512_permutexvar_epi8(K.perm, bs_r256_vaes_bswap());
    K.pk0 = _mm512_permutexvar_epi8(K.perm, sk_key(&K, 0));
    __m512i cb = bs_r256_vaes_counter(counter);
    __m256i yr = bs_vpclmul_load_y(y);
    const size_t bb = 64 * NREG;
    if (j0 != NULL) { /* E_K(J0) beside the first batch (J0 + 1 in the register's other half) */
        __m512i xj = bs_r256_vaes_counter(j0);
        batch8(&K, hkey, &cb, &yr, in, out, NULL, &xj);
        _mm256_storeu_si256((__m256i *)ekj0, _mm512_castsi512_si256(xj));
    } else {
        batch8(&K, hkey, &cb, &yr, in, out, NULL, NULL);
    }
    for (size_t b = 1; b < done / (2 * NREG); b++)
        batch8(&K, hkey, &cb, &yr, in + bb * b, out + bb * b, out + bb * (b - 1), NULL);
    yr = bs_vpclmul_chunk(hkey, yr, out + done * 32 - bb, half);
    yr = bs_vpclmul_chunk(hkey, yr, out + done * 32 - bb / 2, half);
    bs_vpclmul_store_y(y, yr);
    bs_store_be32(counter + 28, bs_load_be32(counter + 28) + (uint32_t)done);
    return done;
}

TARGET __attribute__((noinline)) static size_t long_bulk(const bs_key_schedule *ks, uint64_t *hkey,
                                                         unsigned *hpow, uint8_t counter[32],
                                                         int ctr_secret, uint8_t y[32],
                                                         const uint8_t *in, uint8_t *out,
                                                         size_t nblocks, int decrypt)
{
    const size_t wide = nblocks / (4 * NREG), wb = 128 * NREG, bb = 64 * NREG;
    const size_t narrow = (nblocks - wide * 4 * NREG) / (2 * NREG);
    if (wide == 0 && narrow == 0)
        return 0;
    bs_r256_vaes_keys K;
    BS_ALIGN(64) uint64_t rbuf[96]; /* the sums of a chunk A and a chunk B (wide_batch) */
    int pending = 0;
    bs_r256_vaes_load_keys(&K, ks);
    __m512i cb = bs_r256_vaes_counter(counter);
    uint32_t ctr = bs_load_be32(counter + 28);
    __m256i yr = bs_vpclmul_load_y(y);
    /*
     * The key powers: encrypting, the first wide batch absorbs nothing, so they are made beside
     * its rounds, in steps (bs_vpclmul_powers_step, inlined: a call there spilled the batch's 16
     * states); else now. Made beside the rounds, a re-keyed 16 KiB message took 3-4 % less time
     * than with them made first, 2 KiB 5 % (all 16 powers in one call after round 2: no faster
     * than first, and neither was the earlier form's level in each of rounds 2, 5, 8 and 11).
     */
    bs_vpclmul_pw pw;
    const int ext = !decrypt && wide > 0 && *hpow < BS_VPCLMUL_CHUNK;
    if (!ext && *hpow < BS_VPCLMUL_CHUNK)
        bs_vpclmul_powers(hkey, BS_VPCLMUL_CHUNK);
    if (*hpow < BS_VPCLMUL_CHUNK)
        *hpow = BS_VPCLMUL_CHUNK;
    if (decrypt) {
        for (size_t b = 0; b < wide; b++)
            wide_batch(&K, hkey, &cb, &ctr, ctr_secret, &yr, in + wb * b, out + wb * b, in + wb * b,
                       NULL, rbuf, &pending);
        if (pending)
            yr = bs_vpclmul_reduce16_words(rbuf + 48);
        if (narrow)
            batch(&K, hkey, &cb, &yr, in + wb * wide, out + wb * wide, in + wb * wide);
    } else if (wide > 0) {
        /* GHASH runs one batch behind: the ciphertext of batch b - 1 while CTR makes batch b. */
        wide_batch(&K, hkey, &cb, &ctr, ctr_secret, &yr, in, out, NULL, ext ? &pw : NULL, rbuf,
                   &pending);
        for (size_t b = 1; b < wide; b++)
            wide_batch(&K, hkey, &cb, &ctr, ctr_secret, &yr, in + wb * b, out + wb * b,
                       out + wb * (b - 1), NULL, rbuf, &pending);
        if (pending)
            yr = bs_vpclmul_reduce16_words(rbuf + 48);
        const uint8_t *last = out + wb * (wide - 1);
        if (narrow) {
            /* The last wide batch's first chunk beside the narrow batch's CTR, its second after. */
            batch(&K, hkey, &cb, &yr, in + wb * wide, out + wb * wide, last);
            yr = bs_vpclmul_chunk(hkey, yr, last + bb, BS_VPCLMUL_CHUNK);
            yr = bs_vpclmul_chunk(hkey, yr, out + wb * wide, BS_VPCLMUL_CHUNK);
        } else {
            yr = bs_vpclmul_chunk(hkey, yr, last, BS_VPCLMUL_CHUNK);
            yr = bs_vpclmul_chunk(hkey, yr, last + bb, BS_VPCLMUL_CHUNK);
        }
    } else {
        batch(&K, hkey, &cb, &yr, in, out, NULL);
        yr = bs_vpclmul_chunk(hkey, yr, out, BS_VPCLMUL_CHUNK);
    }
    bs_vpclmul_store_y(y, yr);
    const size_t done = wide * 4 * NREG + narrow * 2 * NREG;
    bs_store_be32(counter + 28, bs_load_be32(counter + 28) + (uint32_t)done);
    bs_wipe(&K, sizeof K);
    bs_wipe(rbuf, sizeof rbuf);
    bs_wipe(&pw, sizeof pw); /* key powers (the key form has them too, but not the stack) */
    return done;
}

/*
 * bs_gcm256_bulk_fn: short_bulk or long_bulk, each a function of its own. Called from a body that
 * realigns its frame for zmm spills, short_bulk's arguments on the stack cost long_bulk's loops a
 * register (the compiler's pointer to its arguments): 16 KiB messages ran about 2 % slower.
 */
static size_t vaes_vpclmul_bulk(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                                uint8_t counter[32], int ctr_secret, uint8_t y[32],
                                const uint8_t *in, uint8_t *out, size_t nblocks, int decrypt)
{
    if (!decrypt && nblocks >= 2 * NREG && nblocks < 8 * NREG && *hpow < BS_VPCLMUL_CHUNK)
        return short_bulk(ks, hkey, hpow, counter, y, in, out, nblocks, NULL, NULL);
    return long_bulk(ks, hkey, hpow, counter, ctr_secret, y, in, out, nblocks, decrypt);
}

/* E_K(J0) alone: J0 through the rounds, one register. */
TARGET __attribute__((noinline)) static void mask_alone(const bs_key_schedule *ks,
                                                        const uint8_t j0[32], uint8_t ekj0[32])
{
    const uint8_t *rk = (const uint8_t *)ks->w;
    __m512i x = _mm512_zextsi256_si512(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)j0),
                                                        _mm256_loadu_si256((const __m256i *)rk)));
    bs_r256_vaes_small_rounds(rk, &x, 1);
    _mm256_storeu_si256((__m256i *)ekj0, _mm512_castsi512_si256(x));
}

/*
 * bs_gcm256_bulk_mask_fn: short_bulk makes E_K(J0) in its first batch; elsewhere E_K(J0) alone,
 * its rounds running beside the loop's.
 */
static size_t vaes_vpclmul_bulk_mask(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                                     uint8_t counter[32], int ctr_secret, uint8_t y[32],
                                     const uint8_t *in, uint8_t *out, size_t nblocks, int decrypt,
                                     const uint8_t j0[32], uint8_t ekj0[32])
{
    if (!decrypt && nblocks >= 2 * NREG && nblocks < 8 * NREG && *hpow < BS_VPCLMUL_CHUNK)
        return short_bulk(ks, hkey, hpow, counter, y, in, out, nblocks, j0, ekj0);
    mask_alone(ks, j0, ekj0);
    return long_bulk(ks, hkey, hpow, counter, ctr_secret, y, in, out, nblocks, decrypt);
}

/*
 * bs_gcm256_start_fn. J0 by one-block products in registers (an IV of a block or two is the
 * common case: a 12-byte IV is one block and the lengths), the IV's last partial block by a
 * masked load, the lengths block made in a register.
 */
__attribute__((
    target("avx512f,avx512bw,avx512vl,avx512vbmi,vaes,vpclmulqdq,aes,ssse3"))) static void
vaes_vpclmul_start(bs_key_schedule *ks, const uint8_t *key, uint64_t *hkey, const uint8_t *iv,
                   size_t iv_len, uint8_t j0[32])
{
    uint8_t *w = (uint8_t *)ks->w;
    if (key != NULL) {
        __m512i h = _mm512_setzero_si512();
        bs_r256_vaes_set_key_rounds(w, key, &h, 1);
        bs_vpclmul_first(hkey, _mm512_castsi512_si256(h));
    }
    __m256i yr = _mm256_setzero_si256();
    size_t n = iv_len;
    for (; n >= 32; n -= 32, iv += 32)
        yr = bs_vpclmul_one(hkey, yr, iv);
    if (n > 0)
        yr = bs_vpclmul_one_x(hkey, yr, _mm256_maskz_loadu_epi8(((__mmask32)1 << n) - 1, iv));
    /* The lengths block: 0 and the IV's bit length, each 64-bit big-endian ending its half. */
    const uint64_t bits = (uint64_t)iv_len << 3;
    yr = bs_vpclmul_one_x(hkey, yr, _mm256_set_epi64x((long long)__builtin_bswap64(bits), 0, 0, 0));
    _mm256_storeu_si256((__m256i *)j0,
                        _mm256_shuffle_epi8(yr, _mm512_castsi512_si256(bs_vpclmul_rev())));
}

#endif

bs_gcm256_start_fn bs_gcm256_start_for(const bs_block_cipher *cipher, const bs_ghash256_impl *ghash)
{
#ifdef HAVE_STITCHED
    if (cipher == &bs_rijndael256_vaes && ghash == &bs_ghash256_vpclmul_impl)
        return vaes_vpclmul_start;
#else
    (void)cipher;
    (void)ghash;
#endif
    return NULL;
}

bs_gcm256_bulk_mask_fn bs_gcm256_bulk_mask_for(const bs_block_cipher *cipher,
                                               const bs_ghash256_impl *ghash)
{
#ifdef HAVE_STITCHED
    if (cipher == &bs_rijndael256_vaes && ghash == &bs_ghash256_vpclmul_impl)
        return vaes_vpclmul_bulk_mask;
#else
    (void)cipher;
    (void)ghash;
#endif
    return NULL;
}

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
