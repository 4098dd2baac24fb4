/*
 * bs_v512.h: 512-bit words for the wide bitsliced cores (x86-64 with AVX-512), as GCC vector
 * extensions: bs_v8 = eight uint64_t elements. Include it inside a region compiled for
 * avx512f/avx512bw/avx512vl (a target pragma), where these functions are then compiled for it
 * too. The transposes, bitsliced counters and drivers are bs_wide.inc.h's, here as the
 * bs_wide_*_v8 functions (the layout is said there: block 8 l + g is element g, bit l).
 */
#ifndef BS_V512_H
#define BS_V512_H

#include <immintrin.h>

#include "bitslice.h"
#include "bs_common.h"

typedef uint64_t bs_v8 __attribute__((vector_size(64)));

/* Loops over registers unrolled, so that the words stay in registers. */
#ifndef BS_WIDE_UNROLL
#define BS_WIDE_UNROLL _Pragma("GCC unroll 8")
#endif

static inline bs_v8 bs_wide_load_v8(const uint8_t *p)
{
    return (bs_v8)_mm512_loadu_si512((const void *)p);
}

static inline void bs_wide_store_v8(uint8_t *p, bs_v8 v)
{
    _mm512_storeu_si512((void *)p, (__m512i)v);
}

/* Big-endian 64-bit elements <-> integers (one VPSHUFB). */
static inline bs_v8 bs_wide_bswap64_v8(bs_v8 v)
{
    const __m512i idx = _mm512_set4_epi32(0x08090a0b, 0x0c0d0e0f, 0x00010203, 0x04050607);
    return (bs_v8)_mm512_shuffle_epi8((__m512i)v, idx);
}

/* The 64-bit mask *k in every element (a broadcast, folded into the instruction using it). */
static inline bs_v8 bs_wide_set1_v8(const uint64_t *k)
{
    return (bs_v8)_mm512_set1_epi64((long long)*k);
}

/*
 * The three-input function imm of a, b, c (one VPTERNLOGQ; bit (a << 2 | b << 1 | c) of imm,
 * bitwise): the wide templates use it, where defined, for S-box networks of 3-input gates. A
 * macro, because imm must be an integer constant expression (at -O0 too).
 */
#define BS_WIDE_TERN(a, b, c, imm)                                                                 \
    ((bs_v8)_mm512_ternarylogic_epi64((__m512i)(a), (__m512i)(b), (__m512i)(c), (imm)))

/*
 * a, b, c, d are in registers from here on: GCC may no longer read their memory copies as
 * operands (it read each state word of the GIFT rounds up to three times, and loads of 512 bits
 * are what these rounds run short of). A register constraint, no instruction; GCC only (for
 * clang it does nothing).
 */
#if defined(__clang__)
#define BS_WIDE_KEEP4(a, b, c, d) ((void)0)
#else
#define BS_WIDE_KEEP4(a, b, c, d) __asm__("" : "+v"(a), "+v"(b), "+v"(c), "+v"(d))
#endif

/* Transpose stage s (32, 16 or 8) on rows lo (bit s clear) and hi: two masked shuffles. */
static inline void bs_wide_tbytes_v8(bs_v8 *lo, bs_v8 *hi, unsigned s)
{
    const __m512i a = (__m512i)*lo, b = (__m512i)*hi;
    if (s == 32) {
        *lo = (bs_v8)_mm512_mask_shuffle_epi32(a, 0xaaaa, b, _MM_PERM_CDAB);
        *hi = (bs_v8)_mm512_mask_shuffle_epi32(b, 0x5555, a, _MM_PERM_CDAB);
    } else {
        /* Swap the adjacent 16-bit (s = 16) or 8-bit units inside each 32 or 16 bits. */
        const __m512i sw16 = _mm512_set4_epi32(0x0d0c0f0e, 0x09080b0a, 0x05040706, 0x01000302);
        const __m512i sw8 = _mm512_set4_epi32(0x0e0f0c0d, 0x0a0b0809, 0x06070405, 0x02030001);
        const __m512i sw = s == 16 ? sw16 : sw8;
        const __mmask64 up = s == 16 ? 0xccccccccccccccccULL : 0xaaaaaaaaaaaaaaaaULL;
        *lo = (bs_v8)_mm512_mask_shuffle_epi8(a, up, b, sw);
        *hi = (bs_v8)_mm512_mask_shuffle_epi8(b, ~up, a, sw);
    }
}

/*
 * 16-byte blocks: a row of eight (128 bytes at p) -> lo / hi = their bytes 8..15 / 0..7 as
 * big-endian elements (one VPERMT2Q per half); join128 is the inverse, ^ in (NULL: none).
 */
static inline void bs_wide_split128_v8(const uint8_t *p, bs_v8 *lo, bs_v8 *hi)
{
    const __m512i pick_lo = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    const __m512i pick_hi = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i a = _mm512_loadu_si512((const void *)p);
    const __m512i b = _mm512_loadu_si512((const void *)(p + 64));
    *lo = bs_wide_bswap64_v8((bs_v8)_mm512_permutex2var_epi64(a, pick_lo, b));
    *hi = bs_wide_bswap64_v8((bs_v8)_mm512_permutex2var_epi64(a, pick_hi, b));
}

static inline void bs_wide_join128_v8(uint8_t *out, const uint8_t *in, bs_v8 lo, bs_v8 hi)
{
    const __m512i join_lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i join_hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    const __m512i h = (__m512i)bs_wide_bswap64_v8(hi), w = (__m512i)bs_wide_bswap64_v8(lo);
    bs_v8 c0 = (bs_v8)_mm512_permutex2var_epi64(h, join_lo, w);
    bs_v8 c1 = (bs_v8)_mm512_permutex2var_epi64(h, join_hi, w);
    if (in != NULL) {
        c0 ^= bs_wide_load_v8(in);
        c1 ^= bs_wide_load_v8(in + 64);
    }
    bs_wide_store_v8(out, c0);
    bs_wide_store_v8(out + 64, c1);
}

#define BS_W bs_v8
#define BS_SFX v8
#define BS_WIDE_NG 8
#include "bs_wide.inc.h"
#undef BS_W
#undef BS_SFX
#undef BS_WIDE_NG

/* The names these helpers had before the template (kept for the cores that use them). */
#define BS_V8_WIDE_MIN 160
typedef bs_wide_pass_fn_v8 bs_v8_pass_fn;

static inline bs_v8 bs_v8_load(const uint8_t *p)
{
    return bs_wide_load_v8(p);
}

static inline void bs_v8_store(uint8_t *p, bs_v8 v)
{
    bs_wide_store_v8(p, v);
}

static inline bs_v8 bs_v8_bswap64(bs_v8 v)
{
    return bs_wide_bswap64_v8(v);
}

static inline void bs_v8_wipe(void *p, size_t n)
{
    bs_wide_wipe_v8(p, n);
}

static inline void bs_v8_counter_words(bs_v8 *x, uint64_t top, uint32_t lo)
{
    bs_wide_counter_words_v8(x, top, lo);
}

/* In place: v[l] = rows <-> v[i] = bit i of every row. */
static inline void bs_v8_transpose64(bs_v8 *v)
{
    bs_wide_transpose64_v8(v);
}

#endif
