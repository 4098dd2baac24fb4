/*
 * ghash256_vpclmul.h: the GHASH-256 kernel over VPCLMULQDQ on zmm, shared by
 * ghash256_vpclmul.c (GHASH alone) and gcm256_vaes.c (GHASH stitched into the CTR loop).
 * Include only where BS_GHASH256_HAVE_VPCLMUL is defined; call only at CPU level avx512.
 *
 * Layout. A block is the 256-bit integer of ghash256_rev.h (words a3..a0 = bytes 0..31 read
 * big-endian, a3 first). Two blocks A, B sit in one register as the 128-bit lanes
 * [A23 | A01 | B23 | B01] (lane 0 first; A23 = (a2, a3), low word first): exactly what one VPSHUFB
 * that reverses each 16-byte lane makes of the 64 bytes of A then B. A power G of the key sits
 * beside them twice, as K1 = [G23 | G01 | G'23 | G'01] and K2 = [G01 | G23 | G'01 | G'23] (G for
 * A, G' for B): the lanes of A*K1 are the 128 x 128 products at word offsets 4 and 0, those of
 * A*K2 both at offset 2. Each lane's 64 x 64 products (Karatsuba, below) are summed unreduced
 * over up to 16 blocks (Y' = (Y ^ X1) H^n ^ X2 H^(n-1) ^ ... ^ Xn H) and combined and reduced
 * once, in registers.
 *
 * No shift by one. The carry-less product of A and G, read as a 512-bit reversed polynomial, is
 * x * A * G; so the key form holds G_k = H^k * x^-1 (mod P) instead of H^k, and the product reads
 * directly as A * H^k: its high 256 bits are the terms x^0..x^255 and its low 256 bits those of
 * x^256..x^511, which x^256 = x^10 + x^5 + x^2 + 1 folds back. G_a * G_b (the product of two
 * such forms) reads as G_(a+b): the powers are made from G_1 by products and squares of G forms
 * (bs_vpclmul_powers).
 *
 * Karatsuba per 128 x 128 lane product: the low (00) and high (11) 64 x 64 products, and the
 * product of the XORs of each side's two words, summed apart over the blocks and made into the
 * middle term once, at the reduction. Three VPCLMULQDQ per register and K instead of
 * schoolbook's four; the data's XOR costs one VPUNPCKHQDQ and one VPXORQ a register.
 *
 * Key form (hkey): for p = 1..16, the pair (G_p, G_(p-1)) as K1 and KM (16 words; G_0 is zero):
 * 256 words. KM's lane i is (K1 lane i low ^ high, K2 lane i low ^ high); K2, K1 with each
 * power's two lanes swapped, is made from K1 where a product needs it (bs_vpclmul_k2: one
 * shuffle, against a third more key form to write, and to wipe at a re-key). Register r of an
 * n-block chunk holds blocks 2r and 2r+1, whose powers are n - 2r and n - 2r - 1: the pair
 * p = n - 2r. After them, made with the 16th power, the middle form of a whole chunk (64 words,
 * bs_vpclmul_make_mid), which a 16-block chunk's two-level Karatsuba reads: 320 words in all.
 * Carry-less multiplies, shuffles and shifts take constant time; nothing branches on or indexes
 * by data (the chunk length is public).
 */
#ifndef BS_GHASH256_VPCLMUL_H
#define BS_GHASH256_VPCLMUL_H

#include <immintrin.h>

#include "gcm256.h"
#include "ghash256_rev.h"

#define BS_VPCLMUL_TARGET                                                                          \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,vpclmulqdq,vaes")))
#define BS_VPCLMUL_CHUNK 16 /* blocks per reduction */
#define BS_VPCLMUL_PAIR_WORDS 16
/* The middle form of a whole chunk: per group of four blocks its KS and KMS (16 words). */
#define BS_VPCLMUL_MID (BS_VPCLMUL_CHUNK * BS_VPCLMUL_PAIR_WORDS)
#define BS_VPCLMUL_FORM_WORDS (BS_VPCLMUL_MID + BS_VPCLMUL_CHUNK / 4 * 16)

_Static_assert(BS_VPCLMUL_FORM_WORDS <= BS_GHASH256_HKEY_WORDS, "key form too large");

/* The pair of key powers of register r (0-based) of an n-block chunk. */
static inline const uint64_t *bs_vpclmul_pair(const uint64_t *hkey, size_t n, size_t r)
{
    return hkey + BS_VPCLMUL_PAIR_WORDS * (n - 2 * r - 1);
}

/* K2 from K1: the two 128-bit lanes of each power swapped (the key form keeps K1 and KM only). */
BS_VPCLMUL_TARGET static inline __m512i bs_vpclmul_k2(__m512i k1)
{
    return _mm512_shuffle_i64x2(k1, k1, 0xb1);
}

/* The unreduced sums: low, high and Karatsuba products of the K1 and the K2 multiplies. */
typedef struct {
    __m512i lo1, hi1, m1, lo2, hi2, m2;
} bs_vpclmul_acc;

BS_VPCLMUL_TARGET static inline void bs_vpclmul_acc_zero(bs_vpclmul_acc *t)
{
    t->lo1 = t->hi1 = t->m1 = t->lo2 = t->hi2 = t->m2 = _mm512_setzero_si512();
}

/* Reverses each 16-byte lane: bytes in memory order <-> the register layout above. */
BS_VPCLMUL_TARGET static inline __m512i bs_vpclmul_rev(void)
{
    return _mm512_set_epi64(0x0001020304050607, 0x08090a0b0c0d0e0f, 0x0001020304050607,
                            0x08090a0b0c0d0e0f, 0x0001020304050607, 0x08090a0b0c0d0e0f,
                            0x0001020304050607, 0x08090a0b0c0d0e0f);
}

/* Each lane's low word ^ high word, in its low word (the high word is left as it is). */
BS_VPCLMUL_TARGET static inline __m512i bs_vpclmul_halves(__m512i x)
{
    return _mm512_xor_si512(x, _mm512_unpackhi_epi64(x, x));
}

/* The products of x (register layout, with xm = bs_vpclmul_halves(x)) by K1, K2, KM, unreduced. */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_mul_k(bs_vpclmul_acc *t, __m512i x, __m512i xm,
                                                      __m512i k1, __m512i k2, __m512i km)
{
    t->lo1 = _mm512_xor_si512(t->lo1, _mm512_clmulepi64_epi128(x, k1, 0x00));
    t->hi1 = _mm512_xor_si512(t->hi1, _mm512_clmulepi64_epi128(x, k1, 0x11));
    t->m1 = _mm512_xor_si512(t->m1, _mm512_clmulepi64_epi128(xm, km, 0x00));
    t->lo2 = _mm512_xor_si512(t->lo2, _mm512_clmulepi64_epi128(x, k2, 0x00));
    t->hi2 = _mm512_xor_si512(t->hi2, _mm512_clmulepi64_epi128(x, k2, 0x11));
    t->m2 = _mm512_xor_si512(t->m2, _mm512_clmulepi64_epi128(xm, km, 0x10));
}

/* The products of x (register layout, with xm = bs_vpclmul_halves(x)) by pair, unreduced. */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_mul_p(bs_vpclmul_acc *t, __m512i x, __m512i xm,
                                                      const uint64_t *pair)
{
    const __m512i k1 = _mm512_loadu_si512((const void *)pair);
    bs_vpclmul_mul_k(t, x, xm, k1, bs_vpclmul_k2(k1), _mm512_loadu_si512((const void *)(pair + 8)));
}

/* t += x * pair (x in the register layout, pair from bs_vpclmul_pair). */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_mul(bs_vpclmul_acc *t, __m512i x,
                                                    const uint64_t *pair)
{
    bs_vpclmul_mul_p(t, x, bs_vpclmul_halves(x), pair);
}

/* Lanes 0 and 1 plus lanes 2 and 3. */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_fold(__m512i v)
{
    return _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}

/*
 * The reduction: the 256-bit result as words (y0, y1, y2, y3), low word first, of a 512-bit
 * product given as a = its 128-bit parts at word offsets [4 | 0], b those at [6 | 2], and the
 * middle term (the products at word offset 2) as its low (words 2, 3) and high (words 4, 5) 128
 * bits ml, mh. L = words 0..3 of the product (terms x^256..x^511), U = words 4..7 (x^0..x^255):
 * y = U ^ L ^ (L >> 2) ^ (L >> 5) ^ (L >> 10) (256-bit shifts), and the bits those shifts push
 * out below word 0 (terms x^256..x^265) folded once more into the top word.
 */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_reduce_mid(__m256i a, __m256i b, __m128i ml,
                                                              __m128i mh)
{
    const __m256i u = _mm256_xor_si256(_mm256_permute2x128_si256(a, b, 0x20),
                                       _mm256_zextsi128_si256(mh)); /* words 4..7 */
    const __m256i l = _mm256_xor_si256(_mm256_permute2x128_si256(a, b, 0x31),
                                       _mm256_inserti128_si256(_mm256_setzero_si256(), ml, 1));
    /* Bits crossing into the word below (words 0..2) and, in word 3, those pushed out of word 0. */
    const __m256i w = _mm256_alignr_epi64(l, l, 1);
    const __m256i z = _mm256_ternarylogic_epi64(_mm256_slli_epi64(w, 62), _mm256_slli_epi64(w, 59),
                                                _mm256_slli_epi64(w, 54), 0x96);
    const __m256i q = _mm256_mask_xor_epi64(l, 0x8, l, z);
    const __m256i zl = _mm256_maskz_mov_epi64(0x7, z);
    __m256i y = _mm256_ternarylogic_epi64(u, zl, q, 0x96);
    y = _mm256_ternarylogic_epi64(y, _mm256_srli_epi64(q, 2), _mm256_srli_epi64(q, 5), 0x96);
    return _mm256_xor_si256(y, _mm256_srli_epi64(q, 10));
}

/*
 * The same from the block-summed lane products: a = the K1 products' low 128 bits (lanes [word
 * offset 4 | 0]), b their high ones ([6 | 2]), c2 and d2 the same of the K2 products (both at
 * offset 2, summed here into the middle term).
 */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_reduce_lanes(__m256i a, __m256i b, __m256i c2,
                                                                __m256i d2)
{
    return bs_vpclmul_reduce_mid(
        a, b, _mm_xor_si128(_mm256_castsi256_si128(c2), _mm256_extracti128_si256(c2, 1)),
        _mm_xor_si128(_mm256_castsi256_si128(d2), _mm256_extracti128_si256(d2, 1)));
}

/*
 * A lane's 256-bit product from its Karatsuba sums: the middle term m ^ lo ^ hi joins the low
 * half's high word and the high half's low word (by unpacks).
 */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_lanes(__m512i lo, __m512i hi, __m512i m,
                                                      __m512i *low, __m512i *high)
{
    const __m512i mid = _mm512_ternarylogic_epi64(m, lo, hi, 0x96);
    *low = _mm512_xor_si512(lo, _mm512_unpacklo_epi64(_mm512_setzero_si512(), mid));
    *high = _mm512_xor_si512(hi, _mm512_unpackhi_epi64(mid, _mm512_setzero_si512()));
}

BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_reduce(const bs_vpclmul_acc *t)
{
    /* Each lane's 256-bit product as its low and high 128 bits, the two blocks summed. */
    __m512i a, b, c, d;
    bs_vpclmul_lanes(t->lo1, t->hi1, t->m1, &a, &b);
    bs_vpclmul_lanes(t->lo2, t->hi2, t->m2, &c, &d);
    return bs_vpclmul_reduce_lanes(bs_vpclmul_fold(a), bs_vpclmul_fold(b), bs_vpclmul_fold(c),
                                   bs_vpclmul_fold(d));
}

/* KM's half from K1's and K2's halves: lane i = (k1 lane i low ^ high, k2 lane i low ^ high). */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_km(__m256i k1, __m256i k2)
{
    return _mm256_unpacklo_epi64(_mm256_xor_si256(k1, _mm256_unpackhi_epi64(k1, k1)),
                                 _mm256_xor_si256(k2, _mm256_unpackhi_epi64(k2, k2)));
}

/* Words (y0..y3) -> the register layout of block A, [Y23 | Y01], and back. */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_swap(__m256i y)
{
    return _mm256_permute4x64_epi64(y, 0x4e);
}

/* The accumulator bytes (GCM order) in the register layout of block A, and back. */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_load_y(const uint8_t y[32])
{
    return _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)y),
                               _mm512_castsi512_si256(bs_vpclmul_rev()));
}

BS_VPCLMUL_TARGET static inline void bs_vpclmul_store_y(uint8_t y[32], __m256i yr)
{
    _mm256_storeu_si256((__m256i *)y,
                        _mm256_shuffle_epi8(yr, _mm512_castsi512_si256(bs_vpclmul_rev())));
}

/*
 * Entry 0 of the key form from H (its 32 bytes, as in memory): the pair (G_1, G_0 = 0). G_1 = H *
 * x^-1 mod P, x^-1 = x^255 + x^9 + x^4 + x: the reversed words (w0..w3) of H shifted left by one as
 * one 256-bit integer, the top bit (H's term x^0) rotating into bit 0 (x^255), and where that bit
 * is set the terms x^9, x^4, x^1 (bits 246, 251, 254) XORed in under a mask: no branch on the key.
 */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_first(uint64_t *hkey, __m256i h)
{
    const __m256i w = bs_vpclmul_swap(
        _mm256_shuffle_epi8(h, _mm512_castsi512_si256(bs_vpclmul_rev()))); /* (w0, w1, w2, w3) */
    const __m256i prev = _mm256_alignr_epi64(w, w, 3);                     /* (w3, w0, w1, w2) */
    const __m256i m = _mm256_srai_epi64(_mm256_permute4x64_epi64(w, 0xff), 63);
    const __m256i c = _mm256_set_epi64x(
        (long long)(((uint64_t)1 << 62) | ((uint64_t)1 << 59) | ((uint64_t)1 << 54)), 0, 0, 0);
    const __m256i g1 = _mm256_ternarylogic_epi64(
        _mm256_or_si256(_mm256_slli_epi64(w, 1), _mm256_srli_epi64(prev, 63)), m, c,
        0x78); /* a ^ (m & c) */
    /* K1 = (g2, g3, g0, g1 | 0), K2 = (g0, g1, g2, g3 | 0), KM: pair_form(G_1, 0). */
    const __m256i z = _mm256_setzero_si256();
    _mm256_storeu_si256((__m256i *)hkey, bs_vpclmul_swap(g1));
    _mm256_storeu_si256((__m256i *)(hkey + 4), z);
    _mm256_storeu_si256((__m256i *)(hkey + 8), bs_vpclmul_km(bs_vpclmul_swap(g1), g1));
    _mm256_storeu_si256((__m256i *)(hkey + 12), z);
}

/*
 * One block (ymm only: the zmm form's second block would be zeros): yr' = (yr ^ X) * H, from
 * entry 0 of the key form, the pair (G_1, 0); the block's 32 bytes as in memory.
 */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_one_x(const uint64_t *hkey, __m256i yr,
                                                         __m256i block)
{
    const __m256i x =
        _mm256_xor_si256(_mm256_shuffle_epi8(block, _mm512_castsi512_si256(bs_vpclmul_rev())), yr);
    const __m256i k1 = _mm256_loadu_si256((const __m256i *)hkey);
    const __m256i k2 = bs_vpclmul_swap(k1);
    const __m256i mid1 = _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k1, 0x01),
                                          _mm256_clmulepi64_epi128(x, k1, 0x10));
    const __m256i mid2 = _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k2, 0x01),
                                          _mm256_clmulepi64_epi128(x, k2, 0x10));
    return bs_vpclmul_swap(bs_vpclmul_reduce_lanes(
        _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k1, 0x00), _mm256_bslli_epi128(mid1, 8)),
        _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k1, 0x11), _mm256_bsrli_epi128(mid1, 8)),
        _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k2, 0x00), _mm256_bslli_epi128(mid2, 8)),
        _mm256_xor_si256(_mm256_clmulepi64_epi128(x, k2, 0x11), _mm256_bsrli_epi128(mid2, 8))));
}

BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_one(const uint64_t *hkey, __m256i yr,
                                                       const uint8_t *block)
{
    return bs_vpclmul_one_x(hkey, yr, _mm256_loadu_si256((const __m256i *)block));
}

/*
 * Two-level Karatsuba over a whole chunk: 36 VPCLMULQDQ for 16 blocks where the lane-wise form
 * takes 48. A block A = A23 * x^128 + A01 (as 128-bit halves); A * G = A23 G23 (offset 4) ^ A01
 * G01 (offset 0) ^ M (offset 2), M = (A23 ^ A01)(G23 ^ G01) ^ A23 G23 ^ A01 G01: three 128 x 128
 * products, each Karatsuba again (bs_vpclmul_mul_k's three multiplies a lane). Blocks go four at
 * a time: x = [A23 | A01 | B23 | B01] and y = [C.. | D..] by their pairs' K1 and KM (lane by
 * lane, the same products as the lane-wise form's K1 half), and s = [A23 ^ A01 | B.. | C.. | D..]
 * by the group's middle form, KS = the same sums of the four powers, KMS its halves' XOR
 * (bs_vpclmul_make_mid). Over the chunk, lanes 0 and 2 of the x, y products sum to the offset-4
 * parts, lanes 1 and 3 to the offset-0 ones, and all four lanes of the x, y and s products to M.
 */
/* A group of four blocks of a whole chunk, ready for its products (bs_vpclmul_group_part). */
typedef struct {
    __m512i x, y, s;              /* [A23 | A01 | B23 | B01], [C.. | D..], the half sums */
    const uint64_t *pa, *pb, *ms; /* the pairs of x and y, the group's middle form */
} bs_vpclmul_group;

/* Group g (0..3) of the 16 blocks at blocks; yr (register layout) joins block 0 where g is 0. */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_group_load(bs_vpclmul_group *q,
                                                           const uint64_t *hkey, __m256i yr,
                                                           const uint8_t *blocks, size_t g)
{
    const __m512i rev = bs_vpclmul_rev();
    q->x = _mm512_shuffle_epi8(_mm512_loadu_si512(blocks + 128 * g), rev);
    q->y = _mm512_shuffle_epi8(_mm512_loadu_si512(blocks + 128 * g + 64), rev);
    if (g == 0)
        q->x = _mm512_xor_si512(q->x, _mm512_zextsi256_si512(yr));
    q->s = _mm512_xor_si512(_mm512_shuffle_i64x2(q->x, q->y, 0x88),  /* lanes 0, 2 */
                            _mm512_shuffle_i64x2(q->x, q->y, 0xdd)); /* lanes 1, 3 */
    q->pa = bs_vpclmul_pair(hkey, BS_VPCLMUL_CHUNK, 2 * g);
    q->pb = bs_vpclmul_pair(hkey, BS_VPCLMUL_CHUNK, 2 * g + 1);
    q->ms = hkey + BS_VPCLMUL_MID + 16 * g;
}

/*
 * One of a group's four parts, into t (lo1, hi1, m1: the x and y products; lo2, hi2, m2: the s
 * products): 0, 1, 2 the low, high and Karatsuba products of x and y by K1 and KM, joined in one
 * VPTERNLOGQ; 3 the three products of s by KS and KMS. A constant part leaves one case.
 */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_group_part(bs_vpclmul_acc *t,
                                                           const bs_vpclmul_group *q, int part)
{
    if (part == 3) {
        const __m512i ks = _mm512_loadu_si512((const void *)q->ms);
        const __m512i kms = _mm512_loadu_si512((const void *)(q->ms + 8));
        t->lo2 = _mm512_xor_si512(t->lo2, _mm512_clmulepi64_epi128(q->s, ks, 0x00));
        t->hi2 = _mm512_xor_si512(t->hi2, _mm512_clmulepi64_epi128(q->s, ks, 0x11));
        t->m2 =
            _mm512_xor_si512(t->m2, _mm512_clmulepi64_epi128(bs_vpclmul_halves(q->s), kms, 0x00));
        return;
    }
    const int off = part == 2 ? 8 : 0;
    const __m512i ka = _mm512_loadu_si512((const void *)(q->pa + off));
    const __m512i kb = _mm512_loadu_si512((const void *)(q->pb + off));
    const __m512i a = part == 2 ? bs_vpclmul_halves(q->x) : q->x;
    const __m512i b = part == 2 ? bs_vpclmul_halves(q->y) : q->y;
#define BS_VPCLMUL_PART(acc, imm)                                                                  \
    t->acc = _mm512_ternarylogic_epi64(t->acc, _mm512_clmulepi64_epi128(a, ka, imm),               \
                                       _mm512_clmulepi64_epi128(b, kb, imm), 0x96)
    if (part == 0)
        BS_VPCLMUL_PART(lo1, 0x00);
    else if (part == 1)
        BS_VPCLMUL_PART(hi1, 0x11);
    else
        BS_VPCLMUL_PART(m1, 0x00);
#undef BS_VPCLMUL_PART
}

/*
 * The chunk's sums reduced (register layout): lanes 0 and 2 of the x, y products sum to the
 * offset-4 parts, lanes 1 and 3 to the offset-0 ones, all four lanes of the x, y and s products
 * to the middle term.
 */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_reduce16(const bs_vpclmul_acc *t)
{
    __m512i low, high, ml, mh;
    bs_vpclmul_lanes(t->lo1, t->hi1, t->m1, &low, &high);
    bs_vpclmul_lanes(_mm512_xor_si512(t->lo1, t->lo2), _mm512_xor_si512(t->hi1, t->hi2),
                     _mm512_xor_si512(t->m1, t->m2), &ml, &mh);
    const __m256i fl = bs_vpclmul_fold(ml), fh = bs_vpclmul_fold(mh);
    return bs_vpclmul_swap(bs_vpclmul_reduce_mid(
        bs_vpclmul_fold(low), bs_vpclmul_fold(high),
        _mm_xor_si128(_mm256_castsi256_si128(fl), _mm256_extracti128_si256(fl, 1)),
        _mm_xor_si128(_mm256_castsi256_si128(fh), _mm256_extracti128_si256(fh, 1))));
}

/*
 * bs_vpclmul_reduce16 on the integer units, in two steps: _store writes the sums (five XORs and
 * six stores on the vector side), _words finishes from memory with XORs and shifts of general
 * registers, which the CTR loop leaves idle (there every vector instruction competes with the
 * rounds, and the reduction's lane moves take the units VPERMB and VAESENC use). Call _words a
 * few hundred instructions after _store: a load the stores cannot forward waits for them to reach
 * the cache. buf: 48 words (64-byte aligned), wiped by the caller with its other secrets.
 */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_reduce16_store(const bs_vpclmul_acc *t,
                                                               uint64_t *buf)
{
    /* mid = m ^ lo ^ hi of the x, y sums, and of all sums together (the middle term's). */
    const __m512i lo = _mm512_xor_si512(t->lo1, t->lo2), hi = _mm512_xor_si512(t->hi1, t->hi2);
    _mm512_store_si512((void *)buf, t->lo1);
    _mm512_store_si512((void *)(buf + 8), t->hi1);
    _mm512_store_si512((void *)(buf + 16), _mm512_ternarylogic_epi64(t->m1, t->lo1, t->hi1, 0x96));
    _mm512_store_si512((void *)(buf + 24), lo);
    _mm512_store_si512((void *)(buf + 32), hi);
    _mm512_store_si512((void *)(buf + 40),
                       _mm512_ternarylogic_epi64(_mm512_xor_si512(t->m1, t->m2), lo, hi, 0x96));
}

BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_reduce16_words(uint64_t *buf)
{
    /* Read back from memory, not from the registers (the compiler would move them by lane). */
    __asm__ volatile("" : : "r"(buf) : "memory");
    const uint64_t *L1 = buf, *H1 = buf + 8, *M1 = buf + 16;
    const uint64_t *L = buf + 24, *H = buf + 32, *M = buf + 40;
    /* low/high of the x, y sums folded (lanes 0 ^ 2, 1 ^ 3): a = fold(low), b = fold(high). */
    const uint64_t a0 = L1[0] ^ L1[4], a1 = L1[1] ^ M1[0] ^ L1[5] ^ M1[4];
    const uint64_t a2 = L1[2] ^ L1[6], a3 = L1[3] ^ M1[2] ^ L1[7] ^ M1[6];
    const uint64_t b0 = H1[0] ^ M1[1] ^ H1[4] ^ M1[5], b1 = H1[1] ^ H1[5];
    const uint64_t b2 = H1[2] ^ M1[3] ^ H1[6] ^ M1[7], b3 = H1[3] ^ H1[7];
    /* The middle term: all four lanes of all sums' low and high halves. */
    const uint64_t ml0 = L[0] ^ L[2] ^ L[4] ^ L[6];
    const uint64_t ml1 = L[1] ^ L[3] ^ L[5] ^ L[7] ^ M[0] ^ M[2] ^ M[4] ^ M[6];
    const uint64_t mh0 = H[0] ^ H[2] ^ H[4] ^ H[6] ^ M[1] ^ M[3] ^ M[5] ^ M[7];
    const uint64_t mh1 = H[1] ^ H[3] ^ H[5] ^ H[7];
    /* bs_vpclmul_reduce_mid: u = words 4..7, l = words 0..3. */
    const uint64_t u0 = a0 ^ mh0, u1 = a1 ^ mh1, u2 = b0, u3 = b1;
    const uint64_t l0 = a2, l1 = a3, l2 = b2 ^ ml0, l3 = b3 ^ ml1;
    const uint64_t q3 = l3 ^ bs_ghash256_rev_out(l0);
    const uint64_t y0 = u0 ^ bs_ghash256_rev_out(l1) ^ bs_ghash256_rev_in(l0);
    const uint64_t y1 = u1 ^ bs_ghash256_rev_out(l2) ^ bs_ghash256_rev_in(l1);
    const uint64_t y2 = u2 ^ bs_ghash256_rev_out(l3) ^ bs_ghash256_rev_in(l2);
    const uint64_t y3 = u3 ^ bs_ghash256_rev_in(q3);
    /* bs_vpclmul_swap's order: (y2, y3, y0, y1). */
    return _mm256_set_epi64x((long long)y1, (long long)y0, (long long)y3, (long long)y2);
}

BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_chunk16(const uint64_t *hkey, __m256i yr,
                                                           const uint8_t *blocks)
{
    bs_vpclmul_acc t;
    bs_vpclmul_acc_zero(&t);
#pragma GCC unroll 4
    for (size_t g = 0; g < BS_VPCLMUL_CHUNK / 4; g++) {
        bs_vpclmul_group q;
        bs_vpclmul_group_load(&q, hkey, yr, blocks, g);
#pragma GCC unroll 4
        for (int part = 0; part < 4; part++)
            bs_vpclmul_group_part(&t, &q, part);
    }
    return bs_vpclmul_reduce16(&t);
}

/*
 * Absorbs n (1..16) blocks into yr (register layout of block A): the XOR into the first block,
 * the products by H^n .. H^1, one reduction.
 */
BS_VPCLMUL_TARGET static inline __m256i bs_vpclmul_chunk(const uint64_t *hkey, __m256i yr,
                                                         const uint8_t *blocks, size_t n)
{
    const __m512i rev = bs_vpclmul_rev();
    bs_vpclmul_acc t;
    bs_vpclmul_acc_zero(&t);
    if (n == BS_VPCLMUL_CHUNK)
        return bs_vpclmul_chunk16(hkey, yr, blocks);
    for (size_t r = 0; 2 * r < n; r++) {
        const __mmask64 m = 2 * r + 1 < n ? ~(__mmask64)0 : (__mmask64)0xffffffffu;
        __m512i x = _mm512_shuffle_epi8(_mm512_maskz_loadu_epi8(m, blocks + 64 * r), rev);
        if (r == 0)
            x = _mm512_xor_si512(x, _mm512_zextsi256_si512(yr));
        bs_vpclmul_mul(&t, x, bs_vpclmul_pair(hkey, n, r));
    }
    return bs_vpclmul_swap(bs_vpclmul_reduce(&t));
}

/*
 * The key powers are made four at a time, one to a 128-bit lane, in a transposed form: a power G
 * (words g0..g3) as the lane (g2, g3) of a register h and the lane (g0, g1) of a register l
 * (low word first, as in the register layout). Then a product, its reduction and a square keep
 * every step inside its lane: no lane moves (each about as slow as a carry-less multiply) on the
 * path from one level of powers to the next.
 */
typedef struct {
    __m512i h, l;
} bs_vpclmul_t4;

/*
 * The reduction of bs_vpclmul_reduce_mid, lane by lane: p01, p23, p45, p67 the words 0..7 of
 * each lane's 512-bit product, two a register. L = words 0..3, U = words 4..7; the words a shift
 * of L moves bits from (bs_vpclmul_reduce_mid's w) by VPALIGNR of the two registers of L.
 */
BS_VPCLMUL_TARGET static inline bs_vpclmul_t4 bs_vpclmul_reduce4(__m512i p01, __m512i p23,
                                                                 __m512i p45, __m512i p67)
{
    const __m512i w01 = _mm512_alignr_epi8(p23, p01, 8), w23 = _mm512_alignr_epi8(p01, p23, 8);
#define BS_VPCLMUL_OUT(w)                                                                          \
    _mm512_ternarylogic_epi64(_mm512_slli_epi64(w, 62), _mm512_slli_epi64(w, 59),                  \
                              _mm512_slli_epi64(w, 54), 0x96)
    const __m512i z01 = BS_VPCLMUL_OUT(w01), z23 = BS_VPCLMUL_OUT(w23);
#undef BS_VPCLMUL_OUT
    const __m512i q23 = _mm512_mask_xor_epi64(p23, 0xaa, p23, z23); /* word 3 */
#define BS_VPCLMUL_IN(u, zl, q)                                                                    \
    _mm512_xor_si512(_mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(u, zl, q, 0x96),          \
                                               _mm512_srli_epi64(q, 2), _mm512_srli_epi64(q, 5),   \
                                               0x96),                                              \
                     _mm512_srli_epi64(q, 10))
    bs_vpclmul_t4 y;
    y.l = BS_VPCLMUL_IN(p45, z01, p01);
    y.h = BS_VPCLMUL_IN(p67, _mm512_maskz_mov_epi64(0x55, z23), q23); /* z word 2 */
#undef BS_VPCLMUL_IN
    return y;
}

/* Both words of each lane: the lane's low word ^ high word (bs_vpclmul_halves in both words). */
BS_VPCLMUL_TARGET static inline __m512i bs_vpclmul_halves2(__m512i x)
{
    return _mm512_xor_si512(x, _mm512_shuffle_epi32(x, _MM_PERM_BADC));
}

/*
 * x * y lane by lane, reduced: schoolbook, the 16 products of a word of x by a word of y (four a
 * 128 x 128 lane product, by VPCLMULQDQ's four selectors), summed by word offset: the even
 * offsets in place, the odd ones (1, 3, 5) moved half a lane by unpacks. Karatsuba takes nine
 * multiplies for four products where this takes 16, but puts the halves' XORs before them and two
 * more levels of XORs after: a product of [G_5 .. G_8] by G_8 waits on two others, and this form
 * made 16 powers about 5 % sooner.
 */
BS_VPCLMUL_TARGET static inline bs_vpclmul_t4 bs_vpclmul_mul4(bs_vpclmul_t4 x, bs_vpclmul_t4 y)
{
#define C(a, b, i) _mm512_clmulepi64_epi128(a, b, i) /* word (i & 1) of a, (i >> 4) of b */
    const __m512i z = _mm512_setzero_si512();
    const __m512i o1 = _mm512_xor_si512(C(x.l, y.l, 0x01), C(x.l, y.l, 0x10));
    const __m512i o5 = _mm512_xor_si512(C(x.h, y.h, 0x01), C(x.h, y.h, 0x10));
    const __m512i o3 =
        _mm512_xor_si512(/* offset 3: x1 y2, x0 y3, x3 y0, x2 y1 */
                         _mm512_ternarylogic_epi64(C(x.l, y.h, 0x01), C(x.l, y.h, 0x10),
                                                   C(x.h, y.l, 0x01), 0x96),
                         C(x.h, y.l, 0x10));
    const __m512i e2 =
        _mm512_ternarylogic_epi64(C(x.l, y.l, 0x11), C(x.l, y.h, 0x00), C(x.h, y.l, 0x00), 0x96);
    const __m512i e4 =
        _mm512_ternarylogic_epi64(C(x.l, y.h, 0x11), C(x.h, y.l, 0x11), C(x.h, y.h, 0x00), 0x96);
    const __m512i p01 = _mm512_xor_si512(C(x.l, y.l, 0x00), _mm512_unpacklo_epi64(z, o1));
    const __m512i p23 = _mm512_ternarylogic_epi64(e2, _mm512_unpackhi_epi64(o1, z),
                                                  _mm512_unpacklo_epi64(z, o3), 0x96);
    const __m512i p45 = _mm512_ternarylogic_epi64(e4, _mm512_unpackhi_epi64(o3, z),
                                                  _mm512_unpacklo_epi64(z, o5), 0x96);
    const __m512i p67 = _mm512_xor_si512(C(x.h, y.h, 0x11), _mm512_unpackhi_epi64(o5, z));
#undef C
    return bs_vpclmul_reduce4(p01, p23, p45, p67);
}

/*
 * Each lane squared, reduced. Squaring is linear over GF(2): a 256-bit A times itself has no
 * cross terms (a_i a_j + a_j a_i = 0), only each word's carry-less square at word offset 2i: four
 * VPCLMULQDQ for four squares, and no middle term.
 */
BS_VPCLMUL_TARGET static inline bs_vpclmul_t4 bs_vpclmul_sq4(bs_vpclmul_t4 x)
{
    return bs_vpclmul_reduce4(
        _mm512_clmulepi64_epi128(x.l, x.l, 0x00), _mm512_clmulepi64_epi128(x.l, x.l, 0x11),
        _mm512_clmulepi64_epi128(x.h, x.h, 0x00), _mm512_clmulepi64_epi128(x.h, x.h, 0x11));
}

/* Lanes k and k - 1 (k odd) of x as the K1 form of a pair: [G_k+1 | G_k] in the register layout. */
BS_VPCLMUL_TARGET static inline __m512i bs_vpclmul_untr(bs_vpclmul_t4 x, int k)
{
    return k == 1
               ? _mm512_permutex2var_epi64(x.h, _mm512_set_epi64(9, 8, 1, 0, 11, 10, 3, 2), x.l)
               : _mm512_permutex2var_epi64(x.h, _mm512_set_epi64(13, 12, 5, 4, 15, 14, 7, 6), x.l);
}

/*
 * The middle form of a whole chunk (bs_vpclmul_chunk16) for group g (blocks 4g..4g+3, powers p =
 * 16 - 4g down to p - 3): KS = [G_p23 ^ G_p01 | .. | G_(p-3)23 ^ G_(p-3)01] from ka and kb, the K1
 * forms of pairs p and p - 2, and KMS = its lanes' low ^ high words.
 */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_make_mid(uint64_t *hkey, size_t g, __m512i ka,
                                                         __m512i kb)
{
    const __m512i ks =
        _mm512_xor_si512(_mm512_shuffle_i64x2(ka, kb, 0x88), _mm512_shuffle_i64x2(ka, kb, 0xdd));
    _mm512_storeu_si512((void *)(hkey + BS_VPCLMUL_MID + 16 * g), ks);
    _mm512_storeu_si512((void *)(hkey + BS_VPCLMUL_MID + 16 * g + 8), bs_vpclmul_halves(ks));
}

/* What bs_vpclmul_powers_step keeps from one step to the next. */
typedef struct {
    bs_vpclmul_t4 x, p, b; /* [G_1 .. G_4]; G_2, G_4, G_8 in every lane; [G_5 .. G_8] */
    __m512i last, lastkm;  /* the last pair made ([G_2j | G_(2j-1)]) and its KM */
} bs_vpclmul_pw;

/*
 * The pairs of the four powers in q (the lowest 4j + 1) as K1 forms, [G_(4j+2) | G_(4j+1)] and
 * [G_(4j+4) | G_(4j+3)] (one VPERMT2Q each), and KM (VPSHUFD, VPXORQ, VPERMQ: per power (g2 ^ g3,
 * g0 ^ g1, g0 ^ g1, g2 ^ g3)); entries 4j .. 4j + 3 as far as want (entry 4j + 2k - 2 is
 * [G_(4j+2k-1) | G_(4j+2k-2)]: the halves of two pairs by one VSHUFI64X2, its KM the same of
 * theirs; entry 0 is bs_vpclmul_first's), and with want 16 group 3 - j of the middle form.
 */
BS_VPCLMUL_TARGET static inline void bs_vpclmul_pairs(uint64_t *hkey, unsigned want,
                                                      bs_vpclmul_pw *s, bs_vpclmul_t4 q, unsigned j)
{
    const __m512i lo = bs_vpclmul_untr(q, 1), hi = bs_vpclmul_untr(q, 3);
    const __m512i kml = _mm512_permutex_epi64(bs_vpclmul_halves2(lo), 0x28);
    const __m512i kmh = _mm512_permutex_epi64(bs_vpclmul_halves2(hi), 0x28);
    uint64_t *e = hkey + BS_VPCLMUL_PAIR_WORDS * 4 * j;
    if (j > 0 && 4 * j + 1 <= want) {
        _mm512_storeu_si512((void *)e, _mm512_shuffle_i64x2(lo, s->last, 0x4e));
        _mm512_storeu_si512((void *)(e + 8), _mm512_shuffle_i64x2(kml, s->lastkm, 0x4e));
    }
    if (4 * j + 2 <= want) {
        _mm512_storeu_si512((void *)(e + 16), lo);
        _mm512_storeu_si512((void *)(e + 24), kml);
    }
    if (4 * j + 3 <= want) {
        _mm512_storeu_si512((void *)(e + 32), _mm512_shuffle_i64x2(hi, lo, 0x4e));
        _mm512_storeu_si512((void *)(e + 40), _mm512_shuffle_i64x2(kmh, kml, 0x4e));
    }
    if (4 * j + 4 <= want) {
        _mm512_storeu_si512((void *)(e + 48), hi);
        _mm512_storeu_si512((void *)(e + 56), kmh);
    }
    s->last = hi;
    s->lastkm = kmh;
    if (want == BS_VPCLMUL_CHUNK)
        bs_vpclmul_make_mid(hkey, 3 - j, hi, lo);
}

/*
 * Entries 1..want - 1 (2 <= want <= 16) from entry 0, and with want 16 the middle form, four
 * powers at a time in registers (bs_vpclmul_t4), independent products in each level (the
 * carry-less multiplier pipelines them), so that 16 powers take four levels of latency instead of
 * fifteen, in steps 0..4 (bs_vpclmul_powers runs them in a row; a caller may spread them over
 * other work, s kept between them): 0, G_2 in every lane by a square of G_1; 1, x = [G_1 .. G_4]
 * (lanes 2 and 3 the product of [G_1, G_2, G_1, G_2] by G_2) and G_4 in every lane by a square;
 * 2, [G_5 .. G_8] = x G_4 and G_8 by a square; 3 and 4, x G_8 and [G_5 .. G_8] G_8. Each step
 * stores the entries of the powers it made (bs_vpclmul_pairs). Entries below have are written
 * again with the same values (a re-key makes them from 1; growing a form from more than one is
 * rare), those from want on not at all.
 */
BS_VPCLMUL_TARGET static inline __attribute__((always_inline)) void
bs_vpclmul_powers_step(uint64_t *hkey, unsigned want, bs_vpclmul_pw *s, int step)
{
    if (step == 0) {
        bs_vpclmul_t4 g1;
        g1.h = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)hkey));
        g1.l = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(hkey + 2)));
        s->p = bs_vpclmul_sq4(g1);
        s->x.h = _mm512_mask_blend_epi64(0xcc, g1.h, s->p.h); /* [G_1, G_2, G_1, G_2] */
        s->x.l = _mm512_mask_blend_epi64(0xcc, g1.l, s->p.l);
    } else if (step == 1) {
        if (want > 2) {
            const bs_vpclmul_t4 y = bs_vpclmul_mul4(s->x, s->p);
            s->x.h = _mm512_mask_blend_epi64(0xf0, s->x.h, y.h); /* [G_1 .. G_4] */
            s->x.l = _mm512_mask_blend_epi64(0xf0, s->x.l, y.l);
        }
        if (want > 4)
            s->p = bs_vpclmul_sq4(s->p);
        bs_vpclmul_pairs(hkey, want, s, s->x, 0);
    } else if (step == 2) {
        if (want > 4) {
            s->b = bs_vpclmul_mul4(s->x, s->p); /* [G_5 .. G_8] */
            if (want > 8)
                s->p = bs_vpclmul_sq4(s->p);
            bs_vpclmul_pairs(hkey, want, s, s->b, 1);
        }
    } else if (want > 8) {
        bs_vpclmul_pairs(hkey, want, s, bs_vpclmul_mul4(step == 3 ? s->x : s->b, s->p),
                         (unsigned)step - 1);
    }
}

BS_VPCLMUL_TARGET static inline void bs_vpclmul_powers(uint64_t *hkey, unsigned want)
{
    bs_vpclmul_pw s;
#pragma GCC unroll 5
    for (int step = 0; step < 5; step++)
        bs_vpclmul_powers_step(hkey, want, &s, step);
}

#endif
