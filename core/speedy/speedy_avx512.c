/*
 * SPEEDY-5/6/7-192, 512 blocks per pass on zmm registers (x86-64 with AVX-512).
 *
 * Layout: speedy.h's 192x64 one with 512-bit words (bs_v512.h): s[32 j + i] holds x[6 i + j],
 * element g, bit l of it being block 8 l + g of the pass. A block is three big-endian 64-bit
 * chunks; the eight blocks of 192 bytes are split into their chunks by two permutes per chunk
 * (no gather), and each chunk's 64 x 64 bit matrices are transposed at once (bs_v8_transpose64),
 * after which word 64 c + b is integer bit b of chunk c (SPEEDY_TWORD: x[n] is bit 63 - n % 64
 * of chunk n / 64). ShiftColumns and MixColumns are constant indices (rows mod 32) in fully
 * unrolled loops: no bit moves. The round-key masks are speedy_bs64.c's (lane masks, 192
 * uint64_t per round key), broadcast to the elements as they are used (a memory operand), so
 * the key schedule is bs64's, followed by the 6x32 core's round keys (speedy_bs32.c).
 *
 * Short calls and the tail of a call: up to NARROW_MAX blocks one by one in the 6x32 core, up
 * to 64 in bs64, more as a zmm pass with padding. In counter mode a tail of 65 to 256 blocks goes
 * through one ymm pass of the same rounds (speedy_wide.inc.h, AVX-512VL VPTERNLOGQ; a ymm
 * operation costs about what a zmm one does on Zen 4, but a ymm pass has half the blocks to
 * carry), a longer one through a zmm pass; both make their counters in registers and write
 * only the blocks asked for, XORed as they are stored (masked stores), with no buffer between.
 *
 * In counter mode only the last 32 bits of a 192-bit counter differ between the blocks of a
 * pass: the other 160 bitsliced words are all-zero or all-one masks (the rows they make are the
 * same in every lane), the low 32 a bitsliced sum (bs_v8_counter_words); only the output is
 * transposed. Logic, shifts and permutes with constant indices only: constant time.
 */
#include "speedy.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#define BS_TARGET_AVX512
#include "../bs_target_begin.inc.h"
#include "../bs_v256.h"

typedef bs_v8 v8;

/* Up to this many blocks a call (or a call's tail) runs block by block in the 6x32 core. */
#define NARROW_MAX 20

/* Word of the transposed state that holds x[n] (speedy_bs64.c's SPEEDY_TWORD). */
#define TWORD(n) (64 * ((n) / 64) + 63 - (n) % 64)

/*
 * The SubBox as 26 VPTERNLOGQ (speedy.h's BS_SPEEDY_SUBBOX6 takes 54 two-input operations):
 * each output is a function of one input x_k and of its two cofactors in x_k, and each cofactor
 * is one ternary function of three inputs or a ternary function of one such and two inputs
 * (found by exhaustive search over those forms; the complement of a node is absorbed by the
 * immediate of the next). The unit and known-answer tests check it against the reference.
 */
#define SUBBOX_TL(y0, y1, y2, y3, y4, y5, x0, x1, x2, x3, x4, x5)                                  \
    do {                                                                                           \
        const SW_V ga0 = SW_TL(x2, x4, x5, 0x2a);                                                  \
        const SW_V a0 = SW_TL(ga0, x1, x3, 0x42);                                                  \
        const SW_V gb0 = SW_TL(x0, x3, x5, 0x21);                                                  \
        const SW_V b0 = SW_TL(gb0, x4, x5, 0x52);                                                  \
        (y0) = SW_TL(x1, b0, a0, 0x32);                                                            \
        const SW_V ga1 = SW_TL(x2, x4, x5, 0x1b);                                                  \
        const SW_V a1 = SW_TL(ga1, x1, x3, 0x1b);                                                  \
        const SW_V gb1 = SW_TL(x2, x3, x4, 0x47);                                                  \
        const SW_V b1 = SW_TL(gb1, x3, x5, 0x35);                                                  \
        (y1) = SW_TL(x0, b1, a1, 0x35);                                                            \
        const SW_V ga2 = SW_TL(x0, x3, x4, 0x0e);                                                  \
        const SW_V a2 = SW_TL(ga2, x2, x5, 0x1d);                                                  \
        const SW_V gb2 = SW_TL(x0, x2, x4, 0x19);                                                  \
        const SW_V b2 = SW_TL(gb2, x1, x3, 0x72);                                                  \
        (y2) = SW_TL(x0, b2, a2, 0x3a);                                                            \
        const SW_V a3 = SW_TL(x1, x2, x3, 0x1b);                                                   \
        const SW_V b3 = SW_TL(x2, x4, x5, 0x35);                                                   \
        (y3) = SW_TL(x0, b3, a3, 0x35);                                                            \
        const SW_V ga4 = SW_TL(x0, x1, x2, 0x0b);                                                  \
        const SW_V a4 = SW_TL(ga4, x4, x5, 0x74);                                                  \
        const SW_V b4 = SW_TL(x2, x3, x4, 0x37);                                                   \
        (y4) = SW_TL(x0, b4, a4, 0xc5);                                                            \
        const SW_V ga5 = SW_TL(x2, x4, x5, 0x53);                                                  \
        const SW_V a5 = SW_TL(ga5, x0, x3, 0x70);                                                  \
        const SW_V b5 = SW_TL(x0, x2, x5, 0x37);                                                   \
        (y5) = SW_TL(x1, b5, a5, 0x35);                                                            \
    } while (0)

typedef uint64_t v4 __attribute__((vector_size(32)));

/* The rounds on zmm (512 blocks) and ymm (256, the tails of counter mode). */
#define SW_V v8
#define SW_G 8
#define SW_FN(f) f##_v8
#define SW_XOR3(a, b, c) SW_TL(a, b, c, 0x96)
#define SW_SUBBOX SUBBOX_TL
#define SW_TL(a, b, c, imm)                                                                        \
    ((v8)_mm512_ternarylogic_epi64((__m512i)(a), (__m512i)(b), (__m512i)(c), imm))
#include "speedy_wide.inc.h"
#undef SW_TL
#define SW_V v4
#define SW_G 4
#define SW_FN(f) f##_v4
#define SW_XOR3(a, b, c) SW_TL(a, b, c, 0x96)
#define SW_SUBBOX SUBBOX_TL
#define SW_TL(a, b, c, imm)                                                                        \
    ((v4)_mm256_ternarylogic_epi64((__m256i)(a), (__m256i)(b), (__m256i)(c), imm))
#include "speedy_wide.inc.h"
#undef SW_TL
/*
 * 192 bytes (eight blocks) <-> their three chunks: c[q] element g = qword 3 g + q. Output word
 * k of the bytes holds qwords 8 k .. 8 k + 7, i.e. chunk (8 k + e) % 3 of block (8 k + e) / 3.
 */
static inline void split3(v8 c[3], const uint8_t *p)
{
    const __m512i a = _mm512_loadu_si512((const void *)p),
                  b = _mm512_loadu_si512((const void *)(p + 64)),
                  d = _mm512_loadu_si512((const void *)(p + 128));
    /* qwords 3 g + q below 16 from a:b, the others (16..23: d's 0..7) from d. */
    __m512i q0 = _mm512_permutex2var_epi64(a, _mm512_set_epi64(0, 0, 15, 12, 9, 6, 3, 0), b);
    __m512i q1 = _mm512_permutex2var_epi64(a, _mm512_set_epi64(0, 0, 0, 13, 10, 7, 4, 1), b);
    __m512i q2 = _mm512_permutex2var_epi64(a, _mm512_set_epi64(0, 0, 0, 14, 11, 8, 5, 2), b);
    q0 = _mm512_mask_permutexvar_epi64(q0, 0xc0, _mm512_set_epi64(5, 2, 0, 0, 0, 0, 0, 0), d);
    q1 = _mm512_mask_permutexvar_epi64(q1, 0xe0, _mm512_set_epi64(6, 3, 0, 0, 0, 0, 0, 0), d);
    q2 = _mm512_mask_permutexvar_epi64(q2, 0xe0, _mm512_set_epi64(7, 4, 1, 0, 0, 0, 0, 0), d);
    c[0] = (v8)q0;
    c[1] = (v8)q1;
    c[2] = (v8)q2;
}

static inline void join3(uint8_t *p, const v8 c[3], const uint8_t *in)
{
    const __m512i c0 = (__m512i)c[0], c1 = (__m512i)c[1], c2 = (__m512i)c[2];
    /* qword e of word k is qword 8 k + e: chunk (8 k + e) % 3 of block (8 k + e) / 3. */
    __m512i o0 = _mm512_permutex2var_epi64(c0, _mm512_set_epi64(10, 2, 0, 9, 1, 0, 8, 0), c1);
    o0 = _mm512_mask_permutexvar_epi64(o0, 0x24, _mm512_set_epi64(0, 0, 1, 0, 0, 0, 0, 0), c2);
    __m512i o1 = _mm512_permutex2var_epi64(c0, _mm512_set_epi64(5, 0, 12, 4, 0, 11, 3, 0), c1);
    o1 = _mm512_mask_permutexvar_epi64(o1, 0x49, _mm512_set_epi64(0, 4, 0, 0, 3, 0, 0, 2), c2);
    __m512i o2 = _mm512_permutex2var_epi64(c0, _mm512_set_epi64(0, 15, 7, 0, 14, 6, 0, 13), c1);
    o2 = _mm512_mask_permutexvar_epi64(o2, 0x92, _mm512_set_epi64(7, 0, 0, 6, 0, 0, 5, 0), c2);
    if (in != NULL) {
        o0 = _mm512_xor_si512(o0, _mm512_loadu_si512((const void *)in));
        o1 = _mm512_xor_si512(o1, _mm512_loadu_si512((const void *)(in + 64)));
        o2 = _mm512_xor_si512(o2, _mm512_loadu_si512((const void *)(in + 128)));
    }
    _mm512_storeu_si512((void *)p, o0);
    _mm512_storeu_si512((void *)(p + 64), o1);
    _mm512_storeu_si512((void *)(p + 128), o2);
}

/*
 * Zeroes a pass's state (n bytes, a multiple of 256, 64-byte aligned) with aligned zmm stores,
 * four a step, each step kept by an empty asm: the libc memset that bs_v8_wipe calls took 1.6x
 * as long for these sizes (rdtsc, best of 2000, Zen 5: 546 against 338 TSC for 36 KiB in L1).
 */
static inline void state_wipe(void *p, size_t n)
{
    const __m512i z = _mm512_setzero_si512();
    uint8_t *q = (uint8_t *)p;
    for (size_t i = 0; i < n; i += 256) {
        _mm512_store_si512((void *)(q + i), z);
        _mm512_store_si512((void *)(q + i + 64), z);
        _mm512_store_si512((void *)(q + i + 128), z);
        _mm512_store_si512((void *)(q + i + 192), z);
        __asm__ __volatile__("" : : "r"(q + i) : "memory");
    }
}

/* The qwords of a row of blocks, below nq, as a store mask for its word w of g qwords. */
static inline unsigned row_mask(unsigned nq, unsigned w, unsigned g)
{
    const unsigned v = nq > g * w ? nq - g * w : 0;
    return v >= g ? (1u << g) - 1 : (1u << v) - 1;
}

/* join3 for the first nq < 24 qwords only (masked loads and stores): the last row of a pass. */
static inline void join3_part(uint8_t *p, const v8 c[3], const uint8_t *in, unsigned nq)
{
    BS_ALIGN(64) uint8_t row[192];
    join3(row, c, NULL);
    for (unsigned w = 0; w < 3; w++) {
        const __mmask8 k = (__mmask8)row_mask(nq, w, 8);
        __m512i o = _mm512_load_si512((const void *)(row + 64 * w));
        if (in != NULL)
            o = _mm512_xor_si512(o, _mm512_maskz_loadu_epi64(k, in + 64 * w));
        _mm512_mask_storeu_epi64(p + 64 * w, k, o);
    }
    bs_v8_wipe(row, sizeof row);
}

/*
 * t (transposed, TWORD order) -> E(t): its first n blocks (n <= 512) to out, ^ in unless NULL.
 * a: the rounds' scratch. Both hold state after: the caller wipes them, once a call.
 */
static void pass_out(const uint64_t *m, unsigned nr, v8 *t, v8 *a, const uint8_t *in, uint8_t *out,
                     size_t n)
{
    v8 *o = rounds_v8(t, a, m, nr);
    for (unsigned c = 0; c < 3; c++)
        bs_v8_transpose64(o + 64 * c);
    for (unsigned l = 0; 8 * l < n; l++) {
        v8 ch[3] = {bs_v8_bswap64(o[l]), bs_v8_bswap64(o[64 + l]), bs_v8_bswap64(o[128 + l])};
        if (8 * l + 8 <= n)
            join3(out + 192 * l, ch, in != NULL ? in + 192 * l : NULL);
        else
            join3_part(out + 192 * l, ch, in != NULL ? in + 192 * l : NULL,
                       (unsigned)(3 * (n - 8 * l)));
    }
}

/*
 * Four blocks (one row of a ymm pass: c[q] element g = chunk q of block g) -> their first nq
 * qwords at p (nq <= 12: masked loads and stores), ^ in unless NULL. Output qword e is chunk
 * e % 3 of block e / 3.
 */
static inline void join3_v4(uint8_t *p, const v4 c[3], const uint8_t *in, unsigned nq)
{
    const __m256i c0 = (__m256i)c[0], c1 = (__m256i)c[1], c2 = (__m256i)c[2];
    __m256i o[3];
    o[0] = _mm256_permutex2var_epi64(c0, _mm256_set_epi64x(1, 0, 4, 0), c1);
    o[0] = _mm256_mask_permutexvar_epi64(o[0], 0x4, _mm256_set_epi64x(0, 0, 0, 0), c2);
    o[1] = _mm256_permutex2var_epi64(c1, _mm256_set_epi64x(2, 6, 0, 1), c0);
    o[1] = _mm256_mask_permutexvar_epi64(o[1], 0x2, _mm256_set_epi64x(0, 0, 1, 0), c2);
    o[2] = _mm256_permutex2var_epi64(c2, _mm256_set_epi64x(3, 0, 7, 2), c0);
    o[2] = _mm256_mask_permutexvar_epi64(o[2], 0x4, _mm256_set_epi64x(0, 3, 0, 0), c1);
    for (unsigned w = 0; w < 3; w++) {
        const __mmask8 k = (__mmask8)row_mask(nq, w, 4);
        if (in != NULL)
            o[w] = _mm256_xor_si256(o[w], _mm256_maskz_loadu_epi64(k, in + 32 * w));
        _mm256_mask_storeu_epi64(p + 32 * w, k, o[w]);
    }
}

/*
 * The tail of counter mode, 64 < n <= 256 blocks from the counter c0 | c1 | top | lo: one ymm
 * pass, its first n blocks to out (^ in unless NULL).
 */
__attribute__((noinline)) static void tail_ctr_v4(const uint64_t *m, unsigned nr, uint64_t c0,
                                                  uint64_t c1, uint64_t top, uint32_t lo,
                                                  const uint8_t *in, uint8_t *out, size_t n)
{
    BS_ALIGN(64) v4 t[192], a[192];
    const v4 zero = {0};
    for (unsigned i = 0; i < 64; i++) {
        t[i] = zero - ((c0 >> i) & 1);
        t[64 + i] = zero - ((c1 >> i) & 1);
    }
    counter_words_v4(t + 128, top, lo);
    v4 *o = rounds_v4(t, a, m, nr);
    for (unsigned c = 0; c < 3; c++)
        bs_wide_transpose64_v4(o + 64 * c);
    for (unsigned l = 0; 4 * l < n; l++) {
        const v4 ch[3] = {bs_wide_bswap64_v4(o[l]), bs_wide_bswap64_v4(o[64 + l]),
                          bs_wide_bswap64_v4(o[128 + l])};
        const size_t left = n - 4 * l;
        join3_v4(out + 96 * l, ch, in != NULL ? in + 96 * l : NULL,
                 left >= 4 ? 12 : (unsigned)(3 * left));
    }
    state_wipe(t, sizeof t);
    state_wipe(a, sizeof a);
}

/* The 6x32 core's round keys, kept after bs64's lane masks (set_key below). */
static inline const uint32_t *rk32(const bs_key_schedule *ks)
{
    return (const uint32_t *)(ks->w + BS_SPEEDY_BS64_RK_WORDS);
}

/* 512 blocks through one zmm pass; out may equal in. */
static void full_encrypt(const bs_key_schedule *ks, unsigned nr, uint8_t *out, const uint8_t *in)
{
    BS_ALIGN(64) v8 t[192];
    for (unsigned l = 0; l < 64; l++) {
        v8 ch[3];
        split3(ch, in + 192 * l);
        for (unsigned c = 0; c < 3; c++)
            t[64 * c + l] = bs_v8_bswap64(ch[c]);
    }
    for (unsigned c = 0; c < 3; c++)
        bs_v8_transpose64(t + 64 * c);
    BS_ALIGN(64) v8 a[192];
    pass_out(ks->w, nr, t, a, NULL, out, 512);
    state_wipe(t, sizeof t);
    state_wipe(a, sizeof a);
}

/*
 * n < 512 blocks, the cheapest way (measured with rdtsc, minimum of 300 calls): up to
 * NARROW_MAX one by one in the 6x32 core (about 400 cycles a block), up to 64 in the 64-lane
 * bs64 core (its key schedule is this one's), more as a zmm pass with padding. (A ymm pass whose
 * blocks are read in element by element was no cheaper than the zmm pass; counter mode, whose
 * input is made in registers, does use one: wide_ctr32.)
 */
static void tail_encrypt(const bs_key_schedule *ks, unsigned nr, uint8_t *out, const uint8_t *in,
                         size_t n)
{
    if (n <= NARROW_MAX) {
        for (size_t i = 0; i < n; i++)
            bs_speedy_bs32_block(rk32(ks), nr, out + BS_SPEEDY_BLOCK * i, in + BS_SPEEDY_BLOCK * i);
    } else if (n <= 64) {
        const bs_block_cipher *bs64 = nr == 5   ? &bs_speedy5_bs64
                                      : nr == 6 ? &bs_speedy6_bs64
                                                : &bs_speedy7_bs64;
        bs64->encrypt(ks, out, in, n);
    } else {
        uint8_t buf[512 * BS_SPEEDY_BLOCK];
        memcpy(buf, in, n * BS_SPEEDY_BLOCK);
        memset(buf + n * BS_SPEEDY_BLOCK, 0, (512 - n) * BS_SPEEDY_BLOCK);
        full_encrypt(ks, nr, buf, buf);
        memcpy(out, buf, n * BS_SPEEDY_BLOCK);
        bs_v8_wipe(buf, sizeof buf);
    }
}

static void wide_encrypt(const bs_key_schedule *ks, unsigned nr, uint8_t *out, const uint8_t *in,
                         size_t nblocks)
{
    for (; nblocks >= 512; nblocks -= 512) {
        full_encrypt(ks, nr, out, in);
        in += 512 * BS_SPEEDY_BLOCK;
        out += 512 * BS_SPEEDY_BLOCK;
    }
    if (nblocks > 0)
        tail_encrypt(ks, nr, out, in, nblocks);
}

/* 512 counter blocks of a pass in bitsliced form: c0 | c1 | top | (lo + block) mod 2^32. */
static inline void ctr_words(v8 *t, uint64_t c0, uint64_t c1, uint64_t top, uint32_t lo)
{
    const v8 zero = {0};
    for (unsigned b = 0; b < 64; b++) {
        t[b] = zero - ((c0 >> b) & 1);
        t[64 + b] = zero - ((c1 >> b) & 1);
    }
    bs_v8_counter_words(t + 128, top, lo);
}

/*
 * Whole zmm passes, then the tail: over 256 blocks a zmm pass, over 64 a ymm pass (each writing
 * only its blocks), else counters written out for tail_encrypt. The counter is public: the
 * choices depend on nblocks only.
 */
static void wide_ctr32(const bs_key_schedule *ks, unsigned nr, const uint8_t *counter,
                       const uint8_t *in, uint8_t *out, size_t nblocks)
{
    const uint64_t c0 = bs_load_be64(counter), c1 = bs_load_be64(counter + 8),
                   c2 = bs_load_be64(counter + 16);
    const uint64_t hi = c2 & 0xffffffff00000000ULL;
    uint32_t lo = (uint32_t)c2;
    if (nblocks > 256) {
        BS_ALIGN(64) v8 t[192], a[192];
        while (nblocks > 256) {
            const size_t n = nblocks < 512 ? nblocks : 512;
            ctr_words(t, c0, c1, hi, lo);
            pass_out(ks->w, nr, t, a, in, out, n);
            lo += (uint32_t)n;
            if (in != NULL)
                in += n * BS_SPEEDY_BLOCK;
            out += n * BS_SPEEDY_BLOCK;
            nblocks -= n;
        }
        state_wipe(t, sizeof t);
        state_wipe(a, sizeof a);
    }
    if (nblocks > 64) {
        tail_ctr_v4(ks->w, nr, c0, c1, hi, lo, in, out, nblocks);
    } else if (nblocks > 0) {
        /* Counters written out, through the 6x32 or bs64 core, then XORed. */
        uint8_t buf[64 * BS_SPEEDY_BLOCK];
        for (size_t i = 0; i < nblocks; i++) {
            memcpy(buf + BS_SPEEDY_BLOCK * i, counter, 20);
            bs_store_be32(buf + BS_SPEEDY_BLOCK * i + 20, (uint32_t)(lo + i));
        }
        tail_encrypt(ks, nr, buf, buf, nblocks);
        for (size_t i = 0; i < nblocks * BS_SPEEDY_BLOCK; i++)
            out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
        bs_v8_wipe(buf, nblocks * BS_SPEEDY_BLOCK);
    }
}

#include "../bs_target_end.inc.h"

/* The registry entries (speedy_variants.inc.h). */
#define BS_SFX BS_TARGET_NAME
#define SPV_ENCRYPT wide_encrypt
#define SPV_CTR32 wide_ctr32
/*
 * CTR's batch: a zmm pass, on a stream's first call from 257 blocks on. Measured (SPEEDY-7,
 * keystream of n blocks, rdtsc, Zen 5): 512 blocks 9438 TSC; 257 to 511 about a zmm pass too
 * (9282 to 9438); 65 to 256 one ymm pass (8710 to 9048); fewer far less (64: 5538, 1: 286).
 */
#define SPV_BATCH 512
#define SPV_BATCH_FROM 257
#include "speedy_variants.inc.h"
#undef BS_SFX
#undef SPV_ENCRYPT
#undef SPV_CTR32
#undef SPV_BATCH
#undef SPV_BATCH_FROM

#endif
