/*
 * The window digest's sum (bs_digest.h) on x86-64 vectors, bit-exact with the portable lanes of
 * bs_digest.c: the same terms fmix64(w_j ^ (seed + j * G)) added mod 2^64, only in another
 * order. Each function is compiled for its own target by attribute and chosen at run time
 * (bs_digest.c, by the bs_cpu level), so the build runs on any x86-64.
 *
 * The key stream of a word, seed + j * G, is carried in a vector and stepped by a multiple of G,
 * so a word costs fmix64's two multiplies and no third. Only xor, shift, multiply, add and
 * compare-to-mask: no branch or index on the data (the ct suite runs the AVX2 one).
 */
#include "bs_digest.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#include <immintrin.h>
#include <string.h>

#include "bs_digest_mix.h"

/* fmix64's two multipliers. */
#define M1 0xff51afd7ed558ccdull
#define M2 0xc4ceb9fe1a85ec53ull

static inline uint64_t scalar_tail(uint64_t seed, uint64_t j0, const uint8_t *p, size_t n,
                                   uint64_t poison, uint64_t *hits)
{
    uint64_t a = 0, h = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t w;
        memcpy(&w, p + 8 * j, 8);
        a += bs_digest_word(seed, j0 + j, w);
        h += (uint64_t)(w == poison);
    }
    *hits += h;
    return a;
}

/*
 * AVX2 has no 64-bit multiply: x * m mod 2^64 = lo(x) lo(m) + ((hi(x) lo(m) + lo(x) hi(m)) << 32),
 * three VPMULUDQ. Four vectors of four words per step keep the multiplier ports busy.
 */
__attribute__((target("avx2"))) static inline __m256i mul64_avx2(__m256i x, __m256i mlo,
                                                                 __m256i mhi)
{
    __m256i lo = _mm256_mul_epu32(x, mlo);
    __m256i cross =
        _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), mlo), _mm256_mul_epu32(x, mhi));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

__attribute__((target("avx2"))) static inline __m256i
fmix_avx2(__m256i x, __m256i m1lo, __m256i m1hi, __m256i m2lo, __m256i m2hi)
{
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 33));
    x = mul64_avx2(x, m1lo, m1hi);
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 33));
    x = mul64_avx2(x, m2lo, m2hi);
    return _mm256_xor_si256(x, _mm256_srli_epi64(x, 33));
}

/* count: whether to count poison words (the daemon) or not (the client, hits NULL). */
__attribute__((target("avx2"), always_inline)) static inline uint64_t
sum_avx2(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords, uint64_t poison,
         uint64_t *hits, const int count)
{
    const __m256i m1lo = _mm256_set1_epi64x((long long)(M1 & 0xffffffffu));
    const __m256i m1hi = _mm256_set1_epi64x((long long)(M1 >> 32));
    const __m256i m2lo = _mm256_set1_epi64x((long long)(M2 & 0xffffffffu));
    const __m256i m2hi = _mm256_set1_epi64x((long long)(M2 >> 32));
    const __m256i pv = _mm256_set1_epi64x((long long)poison);
    const __m256i step = _mm256_set1_epi64x((long long)(16 * BS_DIGEST_G));
    const uint64_t k0 = seed + word0 * BS_DIGEST_G;
    __m256i k[4], acc[4], hit[4];
    for (int v = 0; v < 4; v++) {
        const uint64_t b = k0 + (uint64_t)(4 * v) * BS_DIGEST_G;
        k[v] = _mm256_set_epi64x((long long)(b + 3 * BS_DIGEST_G), (long long)(b + 2 * BS_DIGEST_G),
                                 (long long)(b + BS_DIGEST_G), (long long)b);
        acc[v] = hit[v] = _mm256_setzero_si256();
    }
    size_t j = 0;
    for (; j + 16 <= nwords; j += 16)
        for (int v = 0; v < 4; v++) {
            __m256i w =
                _mm256_loadu_si256((const __m256i *)(const void *)(p + 8 * (j + 4 * (size_t)v)));
            acc[v] = _mm256_add_epi64(acc[v],
                                      fmix_avx2(_mm256_xor_si256(w, k[v]), m1lo, m1hi, m2lo, m2hi));
            /* A match is all ones (-1): subtracting it counts it. */
            if (count)
                hit[v] = _mm256_sub_epi64(hit[v], _mm256_cmpeq_epi64(w, pv));
            k[v] = _mm256_add_epi64(k[v], step);
        }
    __m256i a =
        _mm256_add_epi64(_mm256_add_epi64(acc[0], acc[1]), _mm256_add_epi64(acc[2], acc[3]));
    __m256i h =
        _mm256_add_epi64(_mm256_add_epi64(hit[0], hit[1]), _mm256_add_epi64(hit[2], hit[3]));
    uint64_t al[4], hl[4];
    _mm256_storeu_si256((__m256i *)(void *)al, a);
    _mm256_storeu_si256((__m256i *)(void *)hl, h);
    uint64_t sum = al[0] + al[1] + al[2] + al[3], hc = hl[0] + hl[1] + hl[2] + hl[3];
    sum += scalar_tail(seed, word0 + j, p + 8 * j, nwords - j, poison, &hc);
    if (count)
        *hits = hc;
    return sum;
}

__attribute__((target("avx2"))) uint64_t bs_digest_sum_avx2(uint64_t seed, uint64_t word0,
                                                            const uint8_t *p, size_t nwords,
                                                            uint64_t poison, uint64_t *hits)
{
    return hits != NULL ? sum_avx2(seed, word0, p, nwords, poison, hits, 1)
                        : sum_avx2(seed, word0, p, nwords, poison, hits, 0);
}

/*
 * The sum of the eight 64-bit lanes modulo 2^64. Not _mm512_reduce_add_epi64: GCC builds it from
 * signed additions, whose wrap is undefined behaviour (UBSan stops the daemon on it).
 */
__attribute__((target("avx512f"))) static inline uint64_t hsum512(__m512i v)
{
    uint64_t t[8];
    _mm512_storeu_si512((void *)t, v);
    return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

/* AVX-512 F and DQ (VPMULLQ): eight words a vector, four vectors a step. */
__attribute__((target("avx512f,avx512dq"))) static inline __m512i fmix_avx512(__m512i x, __m512i m1,
                                                                              __m512i m2)
{
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
    x = _mm512_mullo_epi64(x, m1);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
    x = _mm512_mullo_epi64(x, m2);
    return _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
}

__attribute__((target("avx512f,avx512dq"), always_inline)) static inline uint64_t
sum_avx512(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords, uint64_t poison,
           uint64_t *hits, const int count)
{
    const __m512i m1 = _mm512_set1_epi64((long long)M1);
    const __m512i m2 = _mm512_set1_epi64((long long)M2);
    const __m512i pv = _mm512_set1_epi64((long long)poison);
    const __m512i one = _mm512_set1_epi64(1);
    const __m512i step = _mm512_set1_epi64((long long)(32 * BS_DIGEST_G));
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const uint64_t k0 = seed + word0 * BS_DIGEST_G;
    __m512i k[4], acc[4], hit[4];
    for (int v = 0; v < 4; v++) {
        const __m512i idx = _mm512_add_epi64(lane, _mm512_set1_epi64((long long)(8 * v)));
        k[v] = _mm512_add_epi64(_mm512_set1_epi64((long long)k0),
                                _mm512_mullo_epi64(idx, _mm512_set1_epi64((long long)BS_DIGEST_G)));
        acc[v] = hit[v] = _mm512_setzero_si512();
    }
    size_t j = 0;
    for (; j + 32 <= nwords; j += 32)
        for (int v = 0; v < 4; v++) {
            __m512i w = _mm512_loadu_si512((const void *)(p + 8 * (j + 8 * (size_t)v)));
            acc[v] = _mm512_add_epi64(acc[v], fmix_avx512(_mm512_xor_si512(w, k[v]), m1, m2));
            if (count)
                hit[v] = _mm512_mask_add_epi64(hit[v], _mm512_cmpeq_epi64_mask(w, pv), hit[v], one);
            k[v] = _mm512_add_epi64(k[v], step);
        }
    /* Whole vectors of the rest, then single words. */
    for (; j + 8 <= nwords; j += 8) {
        __m512i w = _mm512_loadu_si512((const void *)(p + 8 * j));
        acc[0] = _mm512_add_epi64(acc[0], fmix_avx512(_mm512_xor_si512(w, k[0]), m1, m2));
        if (count)
            hit[0] = _mm512_mask_add_epi64(hit[0], _mm512_cmpeq_epi64_mask(w, pv), hit[0], one);
        k[0] = _mm512_add_epi64(k[0], _mm512_set1_epi64((long long)(8 * BS_DIGEST_G)));
    }
    __m512i a =
        _mm512_add_epi64(_mm512_add_epi64(acc[0], acc[1]), _mm512_add_epi64(acc[2], acc[3]));
    __m512i h =
        _mm512_add_epi64(_mm512_add_epi64(hit[0], hit[1]), _mm512_add_epi64(hit[2], hit[3]));
    uint64_t sum = hsum512(a), hc = hsum512(h);
    sum += scalar_tail(seed, word0 + j, p + 8 * j, nwords - j, poison, &hc);
    if (count)
        *hits = hc;
    return sum;
}

__attribute__((target("avx512f,avx512dq"))) uint64_t
bs_digest_sum_avx512(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                     uint64_t poison, uint64_t *hits)
{
    return hits != NULL ? sum_avx512(seed, word0, p, nwords, poison, hits, 1)
                        : sum_avx512(seed, word0, p, nwords, poison, hits, 0);
}

/* The words from j on, one by one (bs_digest.c's loop); *zero_words gets z and theirs. */
static inline uint64_t tail(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in,
                            uint8_t *keep, uint8_t *src, size_t j, size_t nwords, uint64_t z,
                            uint64_t *zero_words)
{
    uint64_t zt, sum = bs_digest_xor_move_sum_portable(
                     seed, word0 + j, out + 8 * j, in != NULL ? in + 8 * j : NULL,
                     keep != NULL ? keep + 8 * j : NULL, src + 8 * j, nwords - j, &zt);
    *zero_words = z + zt;
    return sum;
}

/*
 * The client's fused pass (bs_digest_xor_move_sum): one load of each shared vector, opaque to
 * the compiler, then the zero store, the output (XORed with the input), the optional keep copy
 * and the sum, all from that register. has_in and has_keep are compile-time constants.
 */
__attribute__((target("avx2"), always_inline)) static inline uint64_t
xor_move_avx2(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in, uint8_t *keep,
              uint8_t *src, size_t nwords, uint64_t *zero_words, const int has_in,
              const int has_keep)
{
    const __m256i m1lo = _mm256_set1_epi64x((long long)(M1 & 0xffffffffu));
    const __m256i m1hi = _mm256_set1_epi64x((long long)(M1 >> 32));
    const __m256i m2lo = _mm256_set1_epi64x((long long)(M2 & 0xffffffffu));
    const __m256i m2hi = _mm256_set1_epi64x((long long)(M2 >> 32));
    const __m256i step = _mm256_set1_epi64x((long long)(16 * BS_DIGEST_G));
    const __m256i zero = _mm256_setzero_si256();
    const uint64_t k0 = seed + word0 * BS_DIGEST_G;
    __m256i k[4], acc[4], zer[4];
    for (int v = 0; v < 4; v++) {
        const uint64_t b = k0 + (uint64_t)(4 * v) * BS_DIGEST_G;
        k[v] = _mm256_set_epi64x((long long)(b + 3 * BS_DIGEST_G), (long long)(b + 2 * BS_DIGEST_G),
                                 (long long)(b + BS_DIGEST_G), (long long)b);
        acc[v] = zer[v] = _mm256_setzero_si256();
    }
    size_t j = 0;
    for (; j + 16 <= nwords; j += 16)
        for (int v = 0; v < 4; v++) {
            const size_t o = 8 * (j + 4 * (size_t)v);
            __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(src + o));
            __asm__("" : "+x"(w));
            _mm256_storeu_si256((__m256i *)(void *)(src + o), zero);
            if (has_keep)
                _mm256_storeu_si256((__m256i *)(void *)(keep + o), w);
            __m256i x = w;
            if (has_in)
                x = _mm256_xor_si256(x,
                                     _mm256_loadu_si256((const __m256i *)(const void *)(in + o)));
            _mm256_storeu_si256((__m256i *)(void *)(out + o), x);
            acc[v] = _mm256_add_epi64(acc[v],
                                      fmix_avx2(_mm256_xor_si256(w, k[v]), m1lo, m1hi, m2lo, m2hi));
            zer[v] = _mm256_sub_epi64(zer[v], _mm256_cmpeq_epi64(w, zero));
            k[v] = _mm256_add_epi64(k[v], step);
        }
    __m256i a =
        _mm256_add_epi64(_mm256_add_epi64(acc[0], acc[1]), _mm256_add_epi64(acc[2], acc[3]));
    __m256i zs =
        _mm256_add_epi64(_mm256_add_epi64(zer[0], zer[1]), _mm256_add_epi64(zer[2], zer[3]));
    uint64_t al[4], zl[4];
    _mm256_storeu_si256((__m256i *)(void *)al, a);
    _mm256_storeu_si256((__m256i *)(void *)zl, zs);
    uint64_t sum = al[0] + al[1] + al[2] + al[3], z = zl[0] + zl[1] + zl[2] + zl[3];
    return sum + tail(seed, word0, out, in, keep, src, j, nwords, z, zero_words);
}

__attribute__((target("avx2"))) uint64_t
bs_digest_xor_move_sum_avx2(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in,
                            uint8_t *keep, uint8_t *src, size_t nwords, uint64_t *zero_words)
{
    if (in != NULL)
        return keep != NULL
                   ? xor_move_avx2(seed, word0, out, in, keep, src, nwords, zero_words, 1, 1)
                   : xor_move_avx2(seed, word0, out, in, keep, src, nwords, zero_words, 1, 0);
    return keep != NULL ? xor_move_avx2(seed, word0, out, in, keep, src, nwords, zero_words, 0, 1)
                        : xor_move_avx2(seed, word0, out, in, keep, src, nwords, zero_words, 0, 0);
}

/* One vector of xor_move_avx512 at byte offset o, keyed by kv. */
__attribute__((target("avx512f,avx512dq"), always_inline)) static inline void
xor_move_vec512(uint8_t *out, const uint8_t *in, uint8_t *keep, uint8_t *src, size_t o,
                __m512i *acc, __m512i *zer, __m512i kv, __m512i m1, __m512i m2, const int has_in,
                const int has_keep)
{
    __m512i w = _mm512_loadu_si512((const void *)(src + o));
    __asm__("" : "+v"(w));
    _mm512_storeu_si512((void *)(src + o), _mm512_setzero_si512());
    if (has_keep)
        _mm512_storeu_si512((void *)(keep + o), w);
    __m512i x = w;
    if (has_in)
        x = _mm512_xor_si512(x, _mm512_loadu_si512((const void *)(in + o)));
    _mm512_storeu_si512((void *)(out + o), x);
    *acc = _mm512_add_epi64(*acc, fmix_avx512(_mm512_xor_si512(w, kv), m1, m2));
    *zer = _mm512_mask_add_epi64(*zer, _mm512_testn_epi64_mask(w, w), *zer, _mm512_set1_epi64(1));
}

__attribute__((target("avx512f,avx512dq"), always_inline)) static inline uint64_t
xor_move_avx512(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in, uint8_t *keep,
                uint8_t *src, size_t nwords, uint64_t *zero_words, const int has_in,
                const int has_keep)
{
    const __m512i m1 = _mm512_set1_epi64((long long)M1);
    const __m512i m2 = _mm512_set1_epi64((long long)M2);
    const __m512i step = _mm512_set1_epi64((long long)(32 * BS_DIGEST_G));
    const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const uint64_t k0 = seed + word0 * BS_DIGEST_G;
    __m512i k[4], acc[4], zer[4];
    for (int v = 0; v < 4; v++) {
        const __m512i idx = _mm512_add_epi64(lane, _mm512_set1_epi64((long long)(8 * v)));
        k[v] = _mm512_add_epi64(_mm512_set1_epi64((long long)k0),
                                _mm512_mullo_epi64(idx, _mm512_set1_epi64((long long)BS_DIGEST_G)));
        acc[v] = zer[v] = _mm512_setzero_si512();
    }
    size_t j = 0;
    for (; j + 32 <= nwords; j += 32)
        for (int v = 0; v < 4; v++) {
            xor_move_vec512(out, in, keep, src, 8 * (j + 8 * (size_t)v), &acc[v], &zer[v], k[v], m1,
                            m2, has_in, has_keep);
            k[v] = _mm512_add_epi64(k[v], step);
        }
    for (; j + 8 <= nwords; j += 8) {
        xor_move_vec512(out, in, keep, src, 8 * j, &acc[0], &zer[0], k[0], m1, m2, has_in,
                        has_keep);
        k[0] = _mm512_add_epi64(k[0], _mm512_set1_epi64((long long)(8 * BS_DIGEST_G)));
    }
    __m512i a =
        _mm512_add_epi64(_mm512_add_epi64(acc[0], acc[1]), _mm512_add_epi64(acc[2], acc[3]));
    __m512i zs =
        _mm512_add_epi64(_mm512_add_epi64(zer[0], zer[1]), _mm512_add_epi64(zer[2], zer[3]));
    uint64_t sum = hsum512(a), z = hsum512(zs);
    return sum + tail(seed, word0, out, in, keep, src, j, nwords, z, zero_words);
}

__attribute__((target("avx512f,avx512dq"))) uint64_t
bs_digest_xor_move_sum_avx512(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in,
                              uint8_t *keep, uint8_t *src, size_t nwords, uint64_t *zero_words)
{
    if (in != NULL)
        return keep != NULL
                   ? xor_move_avx512(seed, word0, out, in, keep, src, nwords, zero_words, 1, 1)
                   : xor_move_avx512(seed, word0, out, in, keep, src, nwords, zero_words, 1, 0);
    return keep != NULL
               ? xor_move_avx512(seed, word0, out, in, keep, src, nwords, zero_words, 0, 1)
               : xor_move_avx512(seed, word0, out, in, keep, src, nwords, zero_words, 0, 0);
}

/* The move without the sum: the same loads and stores. */
/*
 * The client's move (bs_digest_move_sum) is the fused pass with no input and no keep copy: each
 * vector loaded from the shared window once, stored to the private copy and zeroed at the source.
 */
__attribute__((target("avx2"))) uint64_t bs_digest_move_sum_avx2(uint64_t seed, uint64_t word0,
                                                                 uint8_t *dst, uint8_t *src,
                                                                 size_t nwords,
                                                                 uint64_t *zero_words)
{
    return xor_move_avx2(seed, word0, dst, NULL, NULL, src, nwords, zero_words, 0, 0);
}

__attribute__((target("avx512f,avx512dq"))) uint64_t
bs_digest_move_sum_avx512(uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src, size_t nwords,
                          uint64_t *zero_words)
{
    return xor_move_avx512(seed, word0, dst, NULL, NULL, src, nwords, zero_words, 0, 0);
}

__attribute__((target("avx2"))) void bs_digest_move_plain_avx2(uint8_t *dst, uint8_t *src,
                                                               size_t nwords)
{
    const __m256i zero = _mm256_setzero_si256();
    size_t j = 0;
    for (; j + 4 <= nwords; j += 4) {
        __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(src + 8 * j));
        _mm256_storeu_si256((__m256i *)(void *)(dst + 8 * j), w);
        _mm256_storeu_si256((__m256i *)(void *)(src + 8 * j), zero);
    }
    for (; j < nwords; j++) {
        memcpy(dst + 8 * j, src + 8 * j, 8);
        memset(src + 8 * j, 0, 8);
    }
}

__attribute__((target("avx512f"))) void bs_digest_move_plain_avx512(uint8_t *dst, uint8_t *src,
                                                                    size_t nwords)
{
    const __m512i zero = _mm512_setzero_si512();
    size_t j = 0;
    for (; j + 8 <= nwords; j += 8) {
        __m512i w = _mm512_loadu_si512((const void *)(src + 8 * j));
        _mm512_storeu_si512((void *)(dst + 8 * j), w);
        _mm512_storeu_si512((void *)(src + 8 * j), zero);
    }
    for (; j < nwords; j++) {
        memcpy(dst + 8 * j, src + 8 * j, 8);
        memset(src + 8 * j, 0, 8);
    }
}

/* The poison fill (bs_digest_poison_fill) in whole vectors: stores as wide as the CPU has. */
__attribute__((target("avx2"))) void bs_digest_poison_fill_avx2(uint8_t *p, size_t nwords,
                                                                uint64_t poison)
{
    const __m256i v = _mm256_set1_epi64x((long long)poison);
    size_t j = 0;
    for (; j + 4 <= nwords; j += 4)
        _mm256_storeu_si256((__m256i *)(void *)(p + 8 * j), v);
    for (; j < nwords; j++)
        memcpy(p + 8 * j, &poison, 8);
}

__attribute__((target("avx512f"))) void bs_digest_poison_fill_avx512(uint8_t *p, size_t nwords,
                                                                     uint64_t poison)
{
    const __m512i v = _mm512_set1_epi64((long long)poison);
    size_t j = 0;
    for (; j + 8 <= nwords; j += 8)
        _mm512_storeu_si512((void *)(p + 8 * j), v);
    for (; j < nwords; j++)
        memcpy(p + 8 * j, &poison, 8);
}

#endif
