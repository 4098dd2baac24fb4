/*
 * bs_v256.h: 256-bit words for the wide bitsliced cores' AVX2 forms, as GCC vector extensions:
 * bs_v4 = four uint64_t elements. Include it inside a region compiled for avx2 (a target
 * pragma). The transposes, bitsliced counters and drivers are bs_wide.inc.h's, here as the
 * bs_wide_*_v4 functions (block 4 l + g is element g, bit l). valgrind executes all of it.
 */
#ifndef BS_V256_H
#define BS_V256_H

#include <immintrin.h>

#include "bitslice.h"
#include "bs_common.h"

typedef uint64_t bs_v4 __attribute__((vector_size(32)));

#ifndef BS_WIDE_UNROLL
#define BS_WIDE_UNROLL _Pragma("GCC unroll 8")
#endif

static inline bs_v4 bs_wide_load_v4(const uint8_t *p)
{
    return (bs_v4)_mm256_loadu_si256((const __m256i *)(const void *)p);
}

static inline void bs_wide_store_v4(uint8_t *p, bs_v4 v)
{
    _mm256_storeu_si256((__m256i *)(void *)p, (__m256i)v);
}

static inline bs_v4 bs_wide_bswap64_v4(bs_v4 v)
{
    const __m256i idx = _mm256_set_epi32(0x08090a0b, 0x0c0d0e0f, 0x00010203, 0x04050607, 0x08090a0b,
                                         0x0c0d0e0f, 0x00010203, 0x04050607);
    return (bs_v4)_mm256_shuffle_epi8((__m256i)v, idx);
}

static inline bs_v4 bs_wide_set1_v4(const uint64_t *k)
{
    return (bs_v4)_mm256_set1_epi64x((long long)*k);
}

/* Transpose stage s (32, 16 or 8): a shuffle and a blend per word. */
static inline void bs_wide_tbytes_v4(bs_v4 *lo, bs_v4 *hi, unsigned s)
{
    const __m256i a = (__m256i)*lo, b = (__m256i)*hi;
    if (s == 32) {
        *lo = (bs_v4)_mm256_blend_epi32(a, _mm256_shuffle_epi32(b, 0xb1), 0xaa);
        *hi = (bs_v4)_mm256_blend_epi32(b, _mm256_shuffle_epi32(a, 0xb1), 0x55);
    } else if (s == 16) {
        const __m256i sw = _mm256_set_epi32(0x0d0c0f0e, 0x09080b0a, 0x05040706, 0x01000302,
                                            0x0d0c0f0e, 0x09080b0a, 0x05040706, 0x01000302);
        *lo = (bs_v4)_mm256_blend_epi16(a, _mm256_shuffle_epi8(b, sw), 0xaa);
        *hi = (bs_v4)_mm256_blend_epi16(b, _mm256_shuffle_epi8(a, sw), 0x55);
    } else {
        /* Bytes: shifts within 16 bits, no byte blend needed. */
        const __m256i m = _mm256_set1_epi16(0x00ff);
        *lo = (bs_v4)_mm256_or_si256(_mm256_and_si256(a, m), _mm256_slli_epi16(b, 8));
        *hi = (bs_v4)_mm256_or_si256(_mm256_andnot_si256(m, b), _mm256_srli_epi16(a, 8));
    }
}

/* 16-byte blocks, a row of four (64 bytes): as bs_wide_split128_v8 / join128_v8. */
static inline void bs_wide_split128_v4(const uint8_t *p, bs_v4 *lo, bs_v4 *hi)
{
    const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    /* unpack: (b0 b2 b1 b3) order; the qword permute puts the blocks back in order. */
    *lo = bs_wide_bswap64_v4((bs_v4)_mm256_permute4x64_epi64(_mm256_unpackhi_epi64(a, b), 0xd8));
    *hi = bs_wide_bswap64_v4((bs_v4)_mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), 0xd8));
}

static inline void bs_wide_join128_v4(uint8_t *out, const uint8_t *in, bs_v4 lo, bs_v4 hi)
{
    const __m256i h = _mm256_permute4x64_epi64((__m256i)bs_wide_bswap64_v4(hi), 0xd8);
    const __m256i w = _mm256_permute4x64_epi64((__m256i)bs_wide_bswap64_v4(lo), 0xd8);
    bs_v4 c0 = (bs_v4)_mm256_unpacklo_epi64(h, w);
    bs_v4 c1 = (bs_v4)_mm256_unpackhi_epi64(h, w);
    if (in != NULL) {
        c0 ^= bs_wide_load_v4(in);
        c1 ^= bs_wide_load_v4(in + 32);
    }
    bs_wide_store_v4(out, c0);
    bs_wide_store_v4(out + 32, c1);
}

#define BS_W bs_v4
#define BS_SFX v4
#define BS_WIDE_NG 4
#include "bs_wide.inc.h"
#undef BS_W
#undef BS_SFX
#undef BS_WIDE_NG

#endif
