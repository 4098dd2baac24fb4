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

#include "bitslice.h"
#include "bs_common.h"

typedef uint64_t bs_v8 __attribute__((vector_size(64)));

/*
 * The 64 x 64 bit transpose of eight matrices at once (element g of 64 words is matrix g, word
 * = row, bit = column): afterwards bit l of word i is what bit i of word l was. It is six
 * classic stages, stage s trading the columns with bit s set of row j (bit s clear) for the
 * columns with bit s clear of row j + s. The stages commute, and those of s = 32, 16, 8 touch
 * only the rows i + 8 k (fixed i) while those of s = 4, 2, 1 touch only the rows 8 k .. 8 k + 7:
 * so the transpose is two passes over groups of eight words held in registers (the state is
 * loaded and stored twice, not six times), and the second pass can hand its eight words to the
 * caller instead of storing them (bs_v8_transpose64_bits). The byte-granular stages are one
 * masked shuffle per word, the bit-granular ones shift, mask and XOR. All public data flow.
 */

/* Loops over registers unrolled, so that the eight words stay in registers. */
#define BS_V8_UNROLL _Pragma("GCC unroll 8")

/* Stage s (32, 16 or 8) on rows lo (bit s clear) and hi: two masked shuffles. */
static inline void bs_v8_tbytes(bs_v8 *lo, bs_v8 *hi, unsigned s)
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

/* Stage s (4, 2 or 1) on rows lo and hi; m: the low s bits of every 2 s. */
static inline void bs_v8_tbits(bs_v8 *lo, bs_v8 *hi, unsigned s, uint64_t m)
{
    const bs_v8 t = ((*lo >> s) ^ *hi) & m;
    *lo ^= t << s;
    *hi ^= t;
}

/* The first pass: stages 32, 16, 8 on rows i, i + 8, .., i + 56 for each i, in place. */
static inline void bs_v8_transpose64_bytes(bs_v8 *v)
{
    for (unsigned i = 0; i < 8; i++) {
        bs_v8 r[8];
        BS_V8_UNROLL
        for (unsigned k = 0; k < 8; k++)
            r[k] = v[i + 8 * k];
        BS_V8_UNROLL
        for (unsigned k = 0; k < 4; k++)
            bs_v8_tbytes(&r[k], &r[k + 4], 32);
        BS_V8_UNROLL
        for (unsigned k = 0; k < 4; k++)
            bs_v8_tbytes(&r[k + (k & 2)], &r[k + (k & 2) + 2], 16);
        BS_V8_UNROLL
        for (unsigned k = 0; k < 4; k++)
            bs_v8_tbytes(&r[2 * k], &r[2 * k + 1], 8);
        BS_V8_UNROLL
        for (unsigned k = 0; k < 8; k++)
            v[i + 8 * k] = r[k];
    }
}

/* The second pass on rows 8 k .. 8 k + 7 of v (after the first), into r[0..7]. */
static inline void bs_v8_transpose64_bits(bs_v8 *r, const bs_v8 *v, unsigned k)
{
    BS_V8_UNROLL
    for (unsigned j = 0; j < 8; j++)
        r[j] = v[8 * k + j];
    BS_V8_UNROLL
    for (unsigned j = 0; j < 4; j++)
        bs_v8_tbits(&r[j], &r[j + 4], 4, 0x0f0f0f0f0f0f0f0fULL);
    BS_V8_UNROLL
    for (unsigned j = 0; j < 4; j++)
        bs_v8_tbits(&r[j + (j & 2)], &r[j + (j & 2) + 2], 2, 0x3333333333333333ULL);
    BS_V8_UNROLL
    for (unsigned j = 0; j < 4; j++)
        bs_v8_tbits(&r[2 * j], &r[2 * j + 1], 1, 0x5555555555555555ULL);
}

/* In place: v[l] = rows <-> v[i] = bit i of every row. */
static inline void bs_v8_transpose64(bs_v8 *v)
{
    bs_v8_transpose64_bytes(v);
    for (unsigned k = 0; k < 8; k++) {
        bs_v8 r[8];
        bs_v8_transpose64_bits(r, v, k);
        BS_V8_UNROLL
        for (unsigned j = 0; j < 8; j++)
            v[8 * k + j] = r[j];
    }
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

/*
 * 8-byte blocks out of a pass: y holds the 64 state words after bs_v8_transpose64_bytes;
 * out = the blocks (big-endian) ^ in (in NULL: the blocks), 512 of them.
 */
static inline void bs_v8_out64(const bs_v8 *y, const uint8_t *in, uint8_t *out)
{
    for (unsigned k = 0; k < 8; k++) {
        bs_v8 r[8];
        bs_v8_transpose64_bits(r, y, k);
        BS_V8_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            bs_v8 c = bs_v8_bswap64(r[j]);
            if (in != NULL)
                c ^= bs_v8_load(in + 64 * (8 * k + j));
            bs_v8_store(out + 64 * (8 * k + j), c);
        }
    }
}

/*
 * The drivers every 512-lane core shares (ECB-style encrypt and 32-bit counter mode), over one
 * pass function: pass(ks, st, src, in, out) encrypts 512 blocks with st (256 words) as its
 * state and scratch, reading the blocks from src, or (src NULL) taking them already in
 * bitsliced form in st[0..63] (the low 64 bits of each block) and st[64..127] (a 16-byte
 * block's high 64 bits), and writes out = E ^ in (in NULL: E). Calls of fewer than
 * BS_V8_WIDE_MIN blocks, and the tail under that, run through the narrow (64-lane) core, whose
 * key schedule the wide core shares.
 */
typedef void (*bs_v8_pass_fn)(const bs_key_schedule *ks, bs_v8 *st, const uint8_t *src,
                              const uint8_t *in, uint8_t *out);

#define BS_V8_WIDE_MIN 160

static inline void bs_v8_wide_encrypt(bs_v8_pass_fn pass, const bs_block_cipher *narrow,
                                      const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                      size_t nblocks)
{
    const size_t bl = narrow->block_len;
    BS_ALIGN(64) bs_v8 st[256];
    while (nblocks >= BS_V8_WIDE_MIN) {
        BS_ALIGN(64) uint8_t buf[512 * 16];
        const size_t n = nblocks < 512 ? nblocks : 512;
        if (n < 512) {
            memcpy(buf, in, n * bl);
            memset(buf + n * bl, 0, (512 - n) * bl);
            pass(ks, st, buf, NULL, buf);
            memcpy(out, buf, n * bl);
            bs_v8_wipe(buf, sizeof buf);
        } else {
            pass(ks, st, in, NULL, out);
        }
        in += n * bl;
        out += n * bl;
        nblocks -= n;
    }
    bs_v8_wipe(st, sizeof st);
    if (nblocks > 0)
        narrow->encrypt(ks, out, in, nblocks);
}

/* bs_ctr32_fn for 8- or 16-byte blocks: whole passes on counters made in registers. */
static inline void bs_v8_wide_ctr32(bs_v8_pass_fn pass, const bs_block_cipher *narrow,
                                    const bs_key_schedule *ks, const uint8_t *counter,
                                    const uint8_t *in, uint8_t *out, size_t nblocks)
{
    const size_t bl = narrow->block_len;
    BS_ALIGN(64) bs_v8 st[256];
    const uint64_t c0 = bs_load_be64(counter + bl - 8);
    const uint64_t top = c0 & 0xffffffff00000000ULL;
    const uint64_t high = bl == 16 ? bs_load_be64(counter) : 0;
    uint32_t lo = (uint32_t)c0;
    while (nblocks >= 512) {
        bs_v8_counter_words(st, top, lo);
        if (bl == 16)
            for (unsigned i = 0; i < 64; i++)
                st[64 + i] = (bs_v8){0} - ((high >> i) & 1);
        pass(ks, st, NULL, in, out);
        lo += 512;
        if (in != NULL)
            in += 512 * bl;
        out += 512 * bl;
        nblocks -= 512;
    }
    bs_v8_wipe(st, sizeof st);
    if (nblocks > 0) {
        /* The tail: counters written out, through encrypt (wide or narrow), then XORed. */
        uint8_t buf[512 * 16];
        for (size_t i = 0; i < nblocks; i++) {
            if (bl == 16)
                bs_store_be64(buf + 16 * i, high);
            bs_store_be64(buf + bl * i + bl - 8, top | (uint32_t)(lo + i));
        }
        bs_v8_wide_encrypt(pass, narrow, ks, buf, buf, nblocks);
        for (size_t i = 0; i < nblocks * bl; i++)
            out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
        bs_v8_wipe(buf, sizeof buf);
    }
}

#endif
