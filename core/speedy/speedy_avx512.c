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
 * uint64_t per round key), broadcast to the eight elements as they are used (a memory operand
 * of VPTERNLOGQ), so the key schedule is bs64's and calls of fewer blocks than a wide pass is
 * worth run there (the narrow path).
 *
 * In counter mode only the last 32 bits of a 192-bit counter differ between the blocks of a
 * pass: the other 160 bitsliced words are all-zero or all-one masks (the rows they make are the
 * same in every lane), the low 32 a bitsliced sum (bs_v8_counter_words); only the output is
 * transposed. Logic, shifts and permutes with constant indices only: constant time.
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "speedy.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))),                 \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif

#include "../bs_v512.h"

typedef bs_v8 v8;

/* Below this many blocks a call (or a call's tail) runs through the 64-lane core. */
#define WIDE_MIN 96

/* Word of the transposed state that holds x[n] (speedy_bs64.c's SPEEDY_TWORD). */
#define TWORD(n) (64 * ((n) / 64) + 63 - (n) % 64)

/* v ^ the lane mask *k, broadcast to the eight elements. */
static inline v8 key_xor(v8 v, const uint64_t *k)
{
    return (v8)_mm512_xor_si512((__m512i)v, _mm512_set1_epi64((long long)*k));
}

/*
 * The SubBox as 26 VPTERNLOGQ (speedy.h's BS_SPEEDY_SUBBOX6 takes 54 two-input operations):
 * each output is a function of one input x_k and of its two cofactors in x_k, and each cofactor
 * is one ternary function of three inputs or a ternary function of one such and two inputs
 * (found by exhaustive search over those forms; the complement of a node is absorbed by the
 * immediate of the next). The unit and known-answer tests check it against the reference.
 */
#define TL(a, b, c, imm)                                                                           \
    ((v8)_mm512_ternarylogic_epi64((__m512i)(a), (__m512i)(b), (__m512i)(c), imm))
#define SUBBOX_TL(y0, y1, y2, y3, y4, y5, x0, x1, x2, x3, x4, x5)                                  \
    do {                                                                                           \
        const v8 ga0 = TL(x2, x4, x5, 0x2a);                                                       \
        const v8 a0 = TL(ga0, x1, x3, 0x42);                                                       \
        const v8 gb0 = TL(x0, x3, x5, 0x21);                                                       \
        const v8 b0 = TL(gb0, x4, x5, 0x52);                                                       \
        (y0) = TL(x1, b0, a0, 0x32);                                                               \
        const v8 ga1 = TL(x2, x4, x5, 0x1b);                                                       \
        const v8 a1 = TL(ga1, x1, x3, 0x1b);                                                       \
        const v8 gb1 = TL(x2, x3, x4, 0x47);                                                       \
        const v8 b1 = TL(gb1, x3, x5, 0x35);                                                       \
        (y1) = TL(x0, b1, a1, 0x35);                                                               \
        const v8 ga2 = TL(x0, x3, x4, 0x0e);                                                       \
        const v8 a2 = TL(ga2, x2, x5, 0x1d);                                                       \
        const v8 gb2 = TL(x0, x2, x4, 0x19);                                                       \
        const v8 b2 = TL(gb2, x1, x3, 0x72);                                                       \
        (y2) = TL(x0, b2, a2, 0x3a);                                                               \
        const v8 a3 = TL(x1, x2, x3, 0x1b);                                                        \
        const v8 b3 = TL(x2, x4, x5, 0x35);                                                        \
        (y3) = TL(x0, b3, a3, 0x35);                                                               \
        const v8 ga4 = TL(x0, x1, x2, 0x0b);                                                       \
        const v8 a4 = TL(ga4, x4, x5, 0x74);                                                       \
        const v8 b4 = TL(x2, x3, x4, 0x37);                                                        \
        (y4) = TL(x0, b4, a4, 0xc5);                                                               \
        const v8 ga5 = TL(x2, x4, x5, 0x53);                                                       \
        const v8 a5 = TL(ga5, x0, x3, 0x70);                                                       \
        const v8 b5 = TL(x0, x2, x5, 0x37);                                                        \
        (y5) = TL(x1, b5, a5, 0x35);                                                               \
    } while (0)

/*
 * One SubBox layer: row i of d from rows (i + j * sc) mod 32 of column j of s (sc = 1: the
 * ShiftColumns before it folded into the reads). All indices are constants once unrolled.
 */
static inline __attribute__((always_inline)) void subbox_layer(v8 *restrict d, const v8 *restrict s,
                                                               unsigned sc)
{
#pragma GCC unroll 32
    for (unsigned i = 0; i < 32; i++) {
        const v8 x0 = s[(i + 0 * sc) % 32], x1 = s[32 + (i + 1 * sc) % 32],
                 x2 = s[64 + (i + 2 * sc) % 32], x3 = s[96 + (i + 3 * sc) % 32],
                 x4 = s[128 + (i + 4 * sc) % 32], x5 = s[160 + (i + 5 * sc) % 32];
        v8 y0, y1, y2, y3, y4, y5;
        SUBBOX_TL(y0, y1, y2, y3, y4, y5, x0, x1, x2, x3, x4, x5);
        d[i] = y0;
        d[32 + i] = y1;
        d[64 + i] = y2;
        d[96 + i] = y3;
        d[128 + i] = y4;
        d[160 + i] = y5;
    }
}

__attribute__((noinline)) static void sb_plain(v8 *restrict d, const v8 *restrict s)
{
    subbox_layer(d, s, 0);
}

__attribute__((noinline)) static void sb_shifted(v8 *restrict d, const v8 *restrict s)
{
    subbox_layer(d, s, 1);
}

/*
 * ShiftColumns, MixColumns and the round key: d[i, j] = XOR over a in ALPHA of
 * s[i + a + j, j] ^ k[i, j] (rows mod 32); the eight-input XOR is four VPTERNLOGQ.
 */
__attribute__((noinline)) static void mix_key(v8 *restrict d, const v8 *restrict s,
                                              const uint64_t *k)
{
#pragma GCC unroll 6
    for (unsigned j = 0; j < 6; j++) {
        const v8 *c = s + 32 * j;
#pragma GCC unroll 32
        for (unsigned i = 0; i < 32; i++) {
            const unsigned r = i + j;
            const v8 u = TL(c[r % 32], c[(r + 1) % 32], c[(r + 5) % 32], 0x96);
            const v8 v = TL(c[(r + 9) % 32], c[(r + 15) % 32], c[(r + 21) % 32], 0x96);
            d[32 * j + i] = key_xor(TL(u, v, c[(r + 26) % 32], 0x96), k + 32 * j + i);
        }
    }
}

/*
 * t: the pass in transposed order (t[TWORD(n)] = x[n]) -> the cipher of it, in the same order.
 * a, b: scratch of 192 words each.
 */
static void rounds(v8 *t, v8 *a, v8 *b, const uint64_t *m, unsigned nr)
{
    for (unsigned j = 0; j < 6; j++)
        for (unsigned i = 0; i < 32; i++)
            a[32 * j + i] = key_xor(t[TWORD(6 * i + j)], m + 32 * j + i);
    for (unsigned r = 1; r < nr; r++) {
        m += 192;
        sb_plain(b, a);
        sb_shifted(a, b);
        mix_key(b, a, m);
        v8 *sw = a;
        a = b;
        b = sw;
    }
    m += 192;
    sb_plain(b, a);
    sb_shifted(a, b);
    for (unsigned j = 0; j < 6; j++)
        for (unsigned i = 0; i < 32; i++)
            t[TWORD(6 * i + j)] = key_xor(a[32 * j + i], m + 32 * j + i);
}

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

/* t (transposed, TWORD order) -> E(t), written to out as 512 blocks (^ in unless NULL). */
static void pass_out(const uint64_t *m, unsigned nr, v8 *t, const uint8_t *in, uint8_t *out)
{
    BS_ALIGN(64) v8 a[192], b[192];
    rounds(t, a, b, m, nr);
    for (unsigned c = 0; c < 3; c++)
        bs_v8_transpose64(t + 64 * c);
    for (unsigned l = 0; l < 64; l++) {
        v8 ch[3] = {bs_v8_bswap64(t[l]), bs_v8_bswap64(t[64 + l]), bs_v8_bswap64(t[128 + l])};
        join3(out + 192 * l, ch, in != NULL ? in + 192 * l : NULL);
    }
    bs_v8_wipe(a, sizeof a);
    bs_v8_wipe(b, sizeof b);
}

static void wide_encrypt(const bs_block_cipher *narrow, const bs_key_schedule *ks, unsigned nr,
                         uint8_t *out, const uint8_t *in, size_t nblocks)
{
    BS_ALIGN(64) v8 t[192];
    while (nblocks >= WIDE_MIN) {
        uint8_t buf[512 * BS_SPEEDY_BLOCK];
        const size_t n = nblocks < 512 ? nblocks : 512;
        const uint8_t *src = in;
        if (n < 512) {
            memcpy(buf, in, n * BS_SPEEDY_BLOCK);
            memset(buf + n * BS_SPEEDY_BLOCK, 0, (512 - n) * BS_SPEEDY_BLOCK);
            src = buf;
        }
        for (unsigned l = 0; l < 64; l++) {
            v8 ch[3];
            split3(ch, src + 192 * l);
            for (unsigned c = 0; c < 3; c++)
                t[64 * c + l] = bs_v8_bswap64(ch[c]);
        }
        for (unsigned c = 0; c < 3; c++)
            bs_v8_transpose64(t + 64 * c);
        pass_out(ks->w, nr, t, NULL, n < 512 ? buf : out);
        if (n < 512) {
            memcpy(out, buf, n * BS_SPEEDY_BLOCK);
            bs_v8_wipe(buf, sizeof buf);
        }
        in += n * BS_SPEEDY_BLOCK;
        out += n * BS_SPEEDY_BLOCK;
        nblocks -= n;
    }
    bs_v8_wipe(t, sizeof t);
    if (nblocks > 0)
        narrow->encrypt(ks, out, in, nblocks);
}

static void wide_ctr32(const bs_block_cipher *narrow, const bs_key_schedule *ks, unsigned nr,
                       const uint8_t *counter, const uint8_t *in, uint8_t *out, size_t nblocks)
{
    BS_ALIGN(64) v8 t[192];
    const uint64_t c0 = bs_load_be64(counter), c1 = bs_load_be64(counter + 8),
                   c2 = bs_load_be64(counter + 16);
    const uint64_t hi = c2 & 0xffffffff00000000ULL;
    uint32_t lo = (uint32_t)c2;
    const v8 zero = {0};
    while (nblocks >= 512) {
        for (unsigned b = 0; b < 64; b++) {
            t[b] = zero - ((c0 >> b) & 1);
            t[64 + b] = zero - ((c1 >> b) & 1);
        }
        bs_v8_counter_words(t + 128, hi, lo);
        pass_out(ks->w, nr, t, in, out);
        lo += 512;
        if (in != NULL)
            in += 512 * BS_SPEEDY_BLOCK;
        out += 512 * BS_SPEEDY_BLOCK;
        nblocks -= 512;
    }
    bs_v8_wipe(t, sizeof t);
    if (nblocks > 0) {
        /* The tail: counters written out, through encrypt (wide or narrow), then XORed. */
        uint8_t buf[512 * BS_SPEEDY_BLOCK];
        for (size_t i = 0; i < nblocks; i++) {
            memcpy(buf + BS_SPEEDY_BLOCK * i, counter, 20);
            bs_store_be32(buf + BS_SPEEDY_BLOCK * i + 20, (uint32_t)(lo + i));
        }
        wide_encrypt(narrow, ks, nr, buf, buf, nblocks);
        for (size_t i = 0; i < nblocks * BS_SPEEDY_BLOCK; i++)
            out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
        bs_v8_wipe(buf, sizeof buf);
    }
}

#define SPEEDY_WIDE_FNS(R)                                                                         \
    static void speedy##R##_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,    \
                                    size_t n)                                                      \
    {                                                                                              \
        wide_encrypt(&bs_speedy##R##_bs64, ks, R, out, in, n);                                     \
    }                                                                                              \
    static void speedy##R##_ctr32(const bs_key_schedule *ks, const uint8_t *ctr,                   \
                                  const uint8_t *in, uint8_t *out, size_t n)                       \
    {                                                                                              \
        wide_ctr32(&bs_speedy##R##_bs64, ks, R, ctr, in, out, n);                                  \
    }

SPEEDY_WIDE_FNS(5)
SPEEDY_WIDE_FNS(6)
SPEEDY_WIDE_FNS(7)

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* The key schedule is bs64's (the narrow path runs on it); bs64 exports no compact keys. */
#define SPEEDY_WIDE_DESC(R)                                                                        \
    static void speedy##R##_set_key(bs_key_schedule *ks, const uint8_t *key)                       \
    {                                                                                              \
        bs_speedy##R##_bs64.set_key(ks, key);                                                      \
    }                                                                                              \
    const bs_block_cipher bs_speedy##R##_avx512 = {                                                \
        "SPEEDY-" #R "-192", "avx512", 24, 24, 64, speedy##R##_set_key, speedy##R##_encrypt, NULL, \
    };                                                                                             \
    const bs_ctr32_fn bs_speedy##R##_avx512_ctr32 = speedy##R##_ctr32;

SPEEDY_WIDE_DESC(5)
SPEEDY_WIDE_DESC(6)
SPEEDY_WIDE_DESC(7)

#endif
