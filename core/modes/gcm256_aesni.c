/*
 * gcm256_aesni.c: the whole-block loop of RIJNDAEL-256-GCM with AES-NI and PCLMULQDQ on xmm (CPU
 * levels aesni and avx2: what a CPU without VAES runs), CTR and GHASH stitched: while AESENC runs
 * the rounds of six counter blocks, PCLMULQDQ absorbs six ciphertext blocks (the previous batch's
 * when encrypting, whose ciphertext is only then written; the same batch's when decrypting, whose
 * input is the ciphertext), their 54 carry-less multiplies dealt out one after each of three
 * block-rounds in four (rounds 2..13), with one reduction per batch (powers H^6..H^1,
 * ghash256_pclmul.h) on the integer units, in the next batch's rounds (batch). A round of a block
 * is two PBLENDVB, two PSHUFB and two AESENC (rijndael256_aesni.h). Bit-exact with CTR over any
 * Rijndael-256 core followed by any GHASH-256: the unit suite (test_gcm's long messages at every
 * split, in place, unaligned, counters wrapping at 2^32) runs it at CPU levels aesni and avx2,
 * and the ct suite's gcm256 target under memcheck.
 *
 * Every instruction takes constant time; nothing branches on or indexes by secret data: the block
 * count and the direction are public, and the counter is branched on (whether its low byte
 * carries within a batch) only where it came from a direct IV (ctr_secret 0).
 */
#include <string.h>

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
 * GHASH therefore gets one register: its products go through memory (ghash_step).
 */
#define NB 6
#define PRODUCTS (9 * NB) /* carry-less multiplies a batch (two-level Karatsuba) */

_Static_assert(NB <= BS_PCLMUL_POWERS, "a batch's GHASH needs more key powers than are made");
_Static_assert(PRODUCTS <= 12 * NB * 3 / 4, "more products than rounds 2..13 have slots");

/* What every batch uses. */
typedef struct {
    const uint8_t *rk;    /* the byte round keys (ks->w: 64-byte aligned) */
    const uint64_t *hkey; /* the key form, at least NB powers */
    uint64_t *sums;       /* two sets of the nine unreduced sums (SUM_WORDS each), alternating */
    uint64_t *pre;        /* a batch's GHASH blocks prepared for the products (PRE_WORDS) */
    __m128i a0;           /* half A of every counter block, XORed with round key 0 */
    __m128i cb;           /* half B of the next counter block, its counter word little-endian */
    __m128i ka1;          /* round 1's move of round key 0, half A (see batch) */
    uint64_t y[4];        /* the GHASH accumulator, words y0..y3 (ghash256_pclmul.h) */
    int cur;              /* the set of sums the next batch writes */
    int pending;          /* the other set holds sums not yet reduced into y */
    uint32_t ctr;         /* the next block's counter word where it is public, else 0 */
    int ctr_public;       /* the counter came from a direct IV: it may be branched on */
} loop_state;

#define SUM_WORDS 18        /* bs_pclmul_acc's nine registers as words, each low word first */
#define PRE_WORDS (12 * NB) /* six registers a block (ghash_prep) */

/* Byte 11 = j: block j's counter low byte after round 1's move, half A (see batch). */
static const BS_ALIGN(16) uint8_t STEPS[NB][16] = {
#define S(j)                                                                                       \
    {                                                                                              \
        [11] = (j)                                                                                 \
    }
    S(0), S(1), S(2), S(3), S(4), S(5),
#undef S
};
_Static_assert(NB == 6, "STEPS lists six blocks");

/*
 * Block j of a batch's GHASH blocks (at src + 32 j) prepared for the products at pre + 12 j:
 * a01, a23, their XOR ac, each followed by its low word ^ high word (Karatsuba's middle factor).
 */
TARGET INLINE void ghash_prep(uint64_t *pre, const uint8_t *src, int j)
{
    const __m128i rv = bs_pclmul_rev();
    __m128i *p = (__m128i *)(pre + 12 * j);
    const __m128i a23 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + 32 * j)), rv);
    const __m128i a01 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + 32 * j + 16)), rv);
    const __m128i ac = _mm_xor_si128(a23, a01);
    _mm_store_si128(p, a01);
    _mm_store_si128(p + 1, bs_pclmul_halves(a01));
    _mm_store_si128(p + 2, a23);
    _mm_store_si128(p + 3, bs_pclmul_halves(a23));
    _mm_store_si128(p + 4, ac);
    _mm_store_si128(p + 5, bs_pclmul_halves(ac));
}

/*
 * The same for block 0 on the integer units, with the accumulator y folded in (its products wait
 * for the previous batch's reduction: batch). The middle factors' high words are not read (the
 * products take their low word), and not written: defined once by bulk.
 */
static inline __attribute__((always_inline)) void
ghash_prep_words(uint64_t *pre, const uint8_t *src, const uint64_t y[4])
{
    const uint64_t a0 = bs_load_be64(src + 24) ^ y[0], a1 = bs_load_be64(src + 16) ^ y[1];
    const uint64_t a2 = bs_load_be64(src + 8) ^ y[2], a3 = bs_load_be64(src) ^ y[3];
    const uint64_t c0 = a0 ^ a2, c1 = a1 ^ a3;
    pre[0] = a0;
    pre[1] = a1;
    pre[2] = a0 ^ a1;
    pre[4] = a2;
    pre[5] = a3;
    pre[6] = a2 ^ a3;
    pre[8] = c0;
    pre[9] = c1;
    pre[10] = c0 ^ c1;
}

/*
 * Product n (0..PRODUCTS - 1) of a batch into its sum: the n / 9-th block in the order 1, 2, ..,
 * NB - 1, 0 (block 0 waits for the reduction); part
 * n % 9. The factor from pre, the key power's register a memory operand (the context's key form
 * is 32-byte aligned, a power 80 bytes), the sum read and written in memory, one register in
 * between; the first block's products write their sums. cross is an operand that the template
 * does not use: it keeps PBLENDVB's mask in xmm0 (else the compiler takes xmm0 for the product
 * and moves the mask back, and a block goes to the stack for the register that costs).
 */
#define STEP_ASM(imm)                                                                              \
    "movdqa %[x], %[p]\n\t"                                                                        \
    "pclmulqdq $" imm ", %[g], %[p]\n\t"                                                           \
    "pxor %[acc], %[p]\n\t"                                                                        \
    "movdqa %[p], %[acc]"
#define FIRST_ASM(imm)                                                                             \
    "movdqa %[x], %[p]\n\t"                                                                        \
    "pclmulqdq $" imm ", %[g], %[p]\n\t"                                                           \
    "movdqa %[p], %[acc]"
#define STEP_OPS : [p] "=&x"(p), [acc] "+m"(*acc) : [x] "m"(*x), [g] "m"(*g), [m] "Yz"(cross)
#define FIRST_OPS : [p] "=&x"(p), [acc] "=m"(*acc) : [x] "m"(*x), [g] "m"(*g), [m] "Yz"(cross)
/* The template with part k's immediate (an asm string needs it as a literal). */
#define BY_IMM(TEMPLATE, OPS)                                                                      \
    do {                                                                                           \
        if (I[k] == 0x00)                                                                          \
            __asm__(TEMPLATE("0x00") OPS);                                                         \
        else if (I[k] == 0x11)                                                                     \
            __asm__(TEMPLATE("0x11") OPS);                                                         \
        else                                                                                       \
            __asm__(TEMPLATE("0x10") OPS);                                                         \
    } while (0)
TARGET INLINE void ghash_step(const uint64_t *hkey, uint64_t *sums, const uint64_t *pre, int n,
                              __m128i cross)
{
    static const unsigned char X[9] = {0, 0, 1, 2, 2, 3, 4, 4, 5}; /* pre's entry */
    static const unsigned char G[9] = {1, 1, 3, 0, 0, 3, 2, 2, 4}; /* the power's register */
    static const unsigned char I[9] = {0x00, 0x11, 0x00, 0x00, 0x11, 0x10, 0x00, 0x11, 0x00};
    const int o = n / 9, k = n % 9, j = (o + 1) % NB;
    __m128i *acc = (__m128i *)(sums + 2 * k);
    const __m128i *x = (const __m128i *)(pre + 12 * j + 2 * X[k]);
    const __m128i *g = (const __m128i *)(hkey + BS_PCLMUL_POW_WORDS * (NB - 1 - j)) + G[k];
    __m128i p;
    if (o == 0)
        BY_IMM(FIRST_ASM, FIRST_OPS);
    else
        BY_IMM(STEP_ASM, STEP_OPS);
}

/*
 * The pending sums reduced into s->y on the integer units, which the loop leaves idle (every
 * vector instruction there competes with the rounds). Called a few hundred instructions after
 * the sums' last stores: a word load that a 16-byte store cannot forward waits for it to reach
 * the cache.
 */
INLINE void reduce_pending(loop_state *s)
{
    if (s->pending) {
        bs_pclmul_reduce_words(s->sums + SUM_WORDS * (s->cur ^ 1), s->y);
        s->pending = 0;
    }
}

/* The round before which the previous batch's sums are reduced and block 0 is prepared. */
#define ROUND_REDUCE 6

/*
 * One batch: NB counter blocks through the rounds, XORed with in into out; where absorb is set
 * (a constant), hsrc's NB blocks absorbed meanwhile: blocks 1..NB - 1 prepared first (hsrc's
 * reads all come before out's writes, so hsrc may be in), and their products dealt out one after
 * each of three block-rounds in four; before round ROUND_REDUCE the previous batch's sums are
 * reduced into s->y and block 0 is prepared with it, on the integer units, and block 0's products
 * come last. The batch's sums stay unreduced (s->pending) until the next batch or the caller.
 */
TARGET INLINE void batch(loop_state *s, const uint8_t *in, uint8_t *out, const uint8_t *hsrc,
                         int absorb)
{
    const uint8_t *rk = s->rk;
    const uint64_t *hkey = s->hkey;
    uint64_t *sums = s->sums + SUM_WORDS * s->cur, *pre = s->pre;
    if (absorb) {
#pragma GCC unroll 8
        for (int j = 1; j < NB; j++)
            ghash_prep(pre, hsrc, j);
    }
    const __m128i cross = _mm_loadu_si128((const __m128i *)bs_r256_aesni_cross);
    const __m128i shuf = _mm_loadu_si128((const __m128i *)bs_r256_aesni_shuf);
    const __m128i bswap = _mm_loadu_si128((const __m128i *)bs_r256_aesni_ctr_bswap);
    const __m128i one = _mm_set_epi32(1, 0, 0, 0);
    __m128i a[NB], b[NB];
    const __m128i b0 = _mm_xor_si128(_mm_shuffle_epi8(s->cb, bswap), BS_R256_AESNI_RK(rk, 0, 1));
    if (s->ctr_public && (s->ctr & 0xff) <= 0x100 - NB) {
        /*
         * A public counter whose low byte does not carry in this batch: the blocks differ in
         * that byte alone, which round 1's move takes to byte 11 of half A. So half B's round 1
         * is the same for all (done once), and half A's input is block 0's, that byte added to
         * (PADDB) before round key 0 is XORed in: no per-block byte swap, blend or shuffle.
         */
        const __m128i ua = _mm_shuffle_epi8(_mm_blendv_epi8(s->a0, b0, cross), shuf);
        const __m128i ub = _mm_shuffle_epi8(_mm_blendv_epi8(b0, s->a0, cross), shuf);
        const __m128i pa = _mm_xor_si128(ua, s->ka1);
        const __m128i xb = _mm_aesenc_si128(ub, BS_R256_AESNI_RK(rk, 1, 1));
#pragma GCC unroll 8
        for (int j = 0; j < NB; j++) {
            const __m128i u = _mm_add_epi8(pa, _mm_load_si128((const __m128i *)STEPS[j]));
            a[j] = _mm_aesenc_si128(_mm_xor_si128(u, s->ka1), BS_R256_AESNI_RK(rk, 1, 0));
            b[j] = xb;
        }
        s->cb = _mm_add_epi32(s->cb, _mm_set_epi32(NB, 0, 0, 0));
    } else {
#pragma GCC unroll 8
        for (int j = 0; j < NB; j++) {
            a[j] = s->a0;
            b[j] = j == 0
                       ? b0
                       : _mm_xor_si128(_mm_shuffle_epi8(s->cb, bswap), BS_R256_AESNI_RK(rk, 0, 1));
            s->cb = _mm_add_epi32(s->cb, one);
            bs_r256_aesni_round(&a[j], &b[j], cross, shuf, BS_R256_AESNI_RKP(rk, 1, 0),
                                BS_R256_AESNI_RKP(rk, 1, 1), 0, 0);
        }
    }
    s->ctr += NB; /* used only where ctr_public is set */
#pragma GCC unroll 13
    for (int i = 2; i <= BS_R256_ROUNDS; i++) {
        /*
         * The round keys stay in memory, operands of AESENC: the registers go to the blocks.
         * The pointers pass through a register each round, so that every operand is a pointer
         * plus a constant: else the compiler keeps each round key's and power's address in a
         * register of its own, and with sixty of them moves them through the stack.
         */
        __asm__ volatile("" : "+r"(rk), "+r"(hkey), "+r"(sums), "+r"(pre) : : "memory");
        if (absorb && i == ROUND_REDUCE) {
            reduce_pending(s);
            ghash_prep_words(pre, hsrc, s->y);
        }
#pragma GCC unroll 8
        for (int j = 0; j < NB; j++) {
            bs_r256_aesni_round(&a[j], &b[j], cross, shuf, BS_R256_AESNI_RKP(rk, i, 0),
                                BS_R256_AESNI_RKP(rk, i, 1), i == BS_R256_ROUNDS, 0);
            const int slot = (i - 2) * NB + j;
            if (absorb && slot % 4 != 3 && slot / 4 * 3 + slot % 4 < PRODUCTS)
                ghash_step(hkey, sums, pre, slot / 4 * 3 + slot % 4, cross);
        }
    }
    if (absorb) {
        s->cur ^= 1;
        s->pending = 1;
    }
#pragma GCC unroll 8
    for (int j = 0; j < NB; j++) {
        a[j] = _mm_xor_si128(a[j], _mm_loadu_si128((const __m128i *)(in + 32 * j)));
        b[j] = _mm_xor_si128(b[j], _mm_loadu_si128((const __m128i *)(in + 32 * j + 16)));
        _mm_storeu_si128((__m128i *)(out + 32 * j), a[j]);
        _mm_storeu_si128((__m128i *)(out + 32 * j + 16), b[j]);
    }
}

/*
 * After the loop, y with vector instructions: nothing competes with them there, and the pending
 * sums, just stored 16 bytes at a time, load back as they were stored (a word load would wait
 * for them to reach the cache; measured: 1 KiB messages 4 % slower). *y01, *y23 = words (y0, y1),
 * (y2, y3).
 */
TARGET INLINE void final_y(loop_state *s, __m128i *y01, __m128i *y23)
{
    if (s->pending) {
        const __m128i *p = (const __m128i *)(s->sums + SUM_WORDS * (s->cur ^ 1));
        const bs_pclmul_acc t = {.ll0 = _mm_load_si128(p),
                                 .ll1 = _mm_load_si128(p + 1),
                                 .llm = _mm_load_si128(p + 2),
                                 .hh0 = _mm_load_si128(p + 3),
                                 .hh1 = _mm_load_si128(p + 4),
                                 .hhm = _mm_load_si128(p + 5),
                                 .c0 = _mm_load_si128(p + 6),
                                 .c1 = _mm_load_si128(p + 7),
                                 .cm = _mm_load_si128(p + 8)};
        bs_pclmul_reduce(&t, y01, y23);
        s->pending = 0;
    } else {
        *y01 = _mm_loadu_si128((const __m128i *)s->y);
        *y23 = _mm_loadu_si128((const __m128i *)(s->y + 2));
    }
}

/* bs_gcm256_bulk_fn (gcm256_bulk.h): whole batches of NB blocks. */
TARGET INLINE size_t bulk(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                          uint8_t counter[32], int ctr_secret, uint8_t y[32], const uint8_t *in,
                          uint8_t *out, size_t nblocks, int decrypt)
{
    const size_t batches = nblocks / NB, bb = 32 * NB;
    if (batches == 0)
        return 0;
    if (*hpow < NB) {
        bs_ghash256_pclmul_impl.extend(hkey, *hpow, NB);
        *hpow = NB;
    }
    /* The sums and the prepared blocks (block 0's with y folded in): secrets, wiped at the end. */
    BS_ALIGN(16) uint64_t sums[2 * SUM_WORDS], pre[PRE_WORDS];
    memset(pre, 0, 12 * sizeof *pre); /* block 0's unwritten words (ghash_prep_words) */
    loop_state s;
    s.rk = (const uint8_t *)ks->w;
    s.hkey = hkey;
    s.sums = sums;
    s.pre = pre;
    s.cur = 0;
    s.pending = 0;
    s.a0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)counter), BS_R256_AESNI_RK(s.rk, 0, 0));
    s.cb = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(counter + 16)),
                            _mm_loadu_si128((const __m128i *)bs_r256_aesni_ctr_bswap));
    /* y as ghash256_pclmul.h's words: the PSHUFB that reverses 16 bytes, on the integer units. */
    s.y[0] = bs_load_be64(y + 24);
    s.y[1] = bs_load_be64(y + 16);
    s.y[2] = bs_load_be64(y + 8);
    s.y[3] = bs_load_be64(y);
    s.ka1 =
        _mm_shuffle_epi8(_mm_blendv_epi8(BS_R256_AESNI_RK(s.rk, 0, 0), BS_R256_AESNI_RK(s.rk, 0, 1),
                                         _mm_loadu_si128((const __m128i *)bs_r256_aesni_cross)),
                         _mm_loadu_si128((const __m128i *)bs_r256_aesni_shuf));
    /* A counter that came by GHASH depends on the key: never read, never branched on. */
    s.ctr_public = !ctr_secret;
    s.ctr = ctr_secret ? 0 : bs_load_be32(counter + 28);
    if (decrypt) {
        for (size_t k = 0; k < batches; k++)
            batch(&s, in + bb * k, out + bb * k, in + bb * k, 1);
    } else {
        /* GHASH runs one batch behind: the ciphertext of batch k - 1 while CTR makes batch k. */
        batch(&s, in, out, NULL, 0);
        for (size_t k = 1; k < batches; k++)
            batch(&s, in + bb * k, out + bb * k, out + bb * (k - 1), 1);
    }
    __m128i y01, y23;
    final_y(&s, &y01, &y23);
    const __m128i rv = bs_pclmul_rev();
    _mm_storeu_si128((__m128i *)y, _mm_shuffle_epi8(y23, rv));
    _mm_storeu_si128((__m128i *)(y + 16), _mm_shuffle_epi8(y01, rv));
    if (!decrypt) /* the last batch's ciphertext, by the GHASH alone */
        bs_ghash256_pclmul_impl.mul_blocks(hkey, y, out + bb * (batches - 1), NB);
    const size_t done = batches * NB;
    bs_store_be32(counter + 28, bs_load_be32(counter + 28) + (uint32_t)done);
    bs_wipe(sums, sizeof sums);
    bs_wipe(pre, sizeof pre);
    bs_wipe(s.y, sizeof s.y);
    return done;
}

/* The loop as it is: SSE encodings, for CPUs with AES-NI but not AVX (and level aesni). */
TARGET static size_t aesni_pclmul_bulk(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                                       uint8_t counter[32], int ctr_secret, uint8_t y[32],
                                       const uint8_t *in, uint8_t *out, size_t nblocks, int decrypt)
{
    return bulk(ks, hkey, hpow, counter, ctr_secret, y, in, out, nblocks, decrypt);
}

/*
 * The same at level avx2 (Haswell .. Skylake, Zen 2: AVX2 without VAES): the compiler's part
 * (the GHASH blocks' preparation, the reduction, the counters) in VEX encodings, whose three
 * operands spare the register copies that the twelve registers of blocks leave no room for;
 * the rounds and the products stay the SSE assembly (on Zen 5 the four-operand VPBLENDVB made
 * the rounds slower: RIJNDAEL-256-CTR 0.64 -> 0.79 TSC c/B). Measured 3-4 % faster than the SSE
 * loop (16 KiB, bsbench --cheapest alternating, load 3-4).
 */
__attribute__((target("aes,pclmul,sse4.1,ssse3,avx"))) static size_t
aesni_pclmul_bulk_avx(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                      uint8_t counter[32], int ctr_secret, uint8_t y[32], const uint8_t *in,
                      uint8_t *out, size_t nblocks, int decrypt)
{
    return bulk(ks, hkey, hpow, counter, ctr_secret, y, in, out, nblocks, decrypt);
}

#endif

bs_gcm256_bulk_fn bs_gcm256_aesni_bulk_for(const bs_block_cipher *cipher,
                                           const bs_ghash256_impl *ghash)
{
#ifdef HAVE_STITCHED
    /* Either is set only where the CPU has AES-NI, PCLMULQDQ and SSE4.1 (bs_cpu.c, ghash256.c). */
    if (cipher == &bs_rijndael256_aesni && ghash == &bs_ghash256_pclmul_impl)
        return bs_cpu_level() >= BS_CPU_AVX2 ? aesni_pclmul_bulk_avx : aesni_pclmul_bulk;
#else
    (void)cipher;
    (void)ghash;
#endif
    return NULL;
}
