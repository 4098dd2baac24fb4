/*
 * bs_v512.h: 512-bit words for the wide bitsliced cores (x86-64 with AVX-512), as GCC vector
 * extensions: v8 = eight uint64_t elements. Include it inside a region compiled for
 * avx512f/avx512bw (a target pragma), where these functions are then compiled for it too.
 *
 * A wide pass is eight 64-lane passes side by side: element g of every word is the 64-lane
 * state of group g. Loading 64 bytes of 8-byte blocks into word l puts block 8 l + g in row l of
 * group g's 64 x 64 bit matrix, so one transpose of all eight matrices at once packs 512 blocks
 * with no gather: afterwards element g, bit l of word i is bit i of block 8 l + g.
 */
#ifndef BS_V512_H
#define BS_V512_H

#include <immintrin.h>

#include "bs_common.h"

typedef uint64_t bs_v8 __attribute__((vector_size(64)));

/*
 * One stage of the 64 x 64 transpose of present.h (bs_present_transpose64_stage) on eight
 * matrices: rows k and k + 32 trade the columns of weight s, and go to rows 2k and 2k + 1.
 */
static inline void bs_v8_tstage(bs_v8 *w, const bs_v8 *v, unsigned s, uint64_t m)
{
    for (unsigned k = 0; k < 32; k++) {
        bs_v8 hi = v[k + 32], lo = v[k];
        bs_v8 t = ((lo >> s) ^ hi) & m;
        w[2 * k] = lo ^ (t << s);
        w[2 * k + 1] = hi ^ t;
    }
}

/* In place (w: 64 words of scratch): v[l] = rows <-> v[i] = bit i of every row. */
static inline void bs_v8_transpose64(bs_v8 *v, bs_v8 *w)
{
    bs_v8_tstage(w, v, 32, 0x00000000ffffffffULL);
    bs_v8_tstage(v, w, 16, 0x0000ffff0000ffffULL);
    bs_v8_tstage(w, v, 8, 0x00ff00ff00ff00ffULL);
    bs_v8_tstage(v, w, 4, 0x0f0f0f0f0f0f0f0fULL);
    bs_v8_tstage(w, v, 2, 0x3333333333333333ULL);
    bs_v8_tstage(v, w, 1, 0x5555555555555555ULL);
}

/*
 * What bs_v8_transpose64 makes of 512 counter blocks, word l element g = top | (lo + 8 l + g)
 * mod 2^32 (top: bits 63..32, the same in every block), made without the transpose: bits
 * 63..32 are all-zero or all-one words, bits 31..0 a bitsliced ripple-carry sum of lo (the same
 * in every block: words of all zeros or all ones) and the block number 8 l + g, whose bits 0..2
 * are those of the element number g and bits 3..8 those of the bit position l. The counter is
 * public; nothing branches on it anyway.
 */
static inline void bs_v8_counter_words(bs_v8 *x, uint64_t top, uint32_t lo)
{
    static const uint64_t pos[6] = {0xaaaaaaaaaaaaaaaaULL, 0xccccccccccccccccULL,
                                    0xf0f0f0f0f0f0f0f0ULL, 0xff00ff00ff00ff00ULL,
                                    0xffff0000ffff0000ULL, 0xffffffff00000000ULL};
    const bs_v8 g = {0, 1, 2, 3, 4, 5, 6, 7}, zero = {0};
    bs_v8 c = zero;
    for (unsigned i = 0; i < 32; i++) {
        const bs_v8 a = i < 3 ? zero - ((g >> i) & 1) : i < 9 ? zero + pos[i - 3] : zero;
        const bs_v8 b = zero - (uint64_t)((lo >> i) & 1);
        x[i] = a ^ b ^ c;
        c = (a & b) | (c & (a ^ b));
    }
    for (unsigned i = 32; i < 64; i++)
        x[i] = zero - ((top >> i) & 1);
}

/* Big-endian 64-bit elements <-> integers (one VPSHUFB). */
static inline bs_v8 bs_v8_bswap64(bs_v8 v)
{
    const __m512i idx =
        _mm512_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                        14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4,
                        5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    return (bs_v8)_mm512_shuffle_epi8((__m512i)v, idx);
}

static inline bs_v8 bs_v8_load(const uint8_t *p)
{
    return (bs_v8)_mm512_loadu_si512((const void *)p);
}

static inline void bs_v8_store(uint8_t *p, bs_v8 v)
{
    _mm512_storeu_si512((void *)p, (__m512i)v);
}

/* Clears a buffer in a way the compiler keeps (a cheap bs_wipe for the wide states). */
static inline void bs_v8_wipe(void *p, size_t n)
{
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
