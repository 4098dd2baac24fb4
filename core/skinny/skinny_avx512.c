/*
 * SKINNY-128-128/-256/-384, 512 blocks per pass on zmm registers (x86-64 with AVX-512).
 *
 * The rounds, packing and counter words are skinny_wide.inc.h's on eight 64-lane groups (each
 * element of a word is one bs64 state, skinny.h), so the round tweakeys are skinny_bs64.c's
 * lane masks (broadcast as they are used) and the key schedule is bs64's. Calls and tails of
 * fewer blocks run the same template on ymm words or the bs64 core (the narrow paths, below).
 * GCC's vector extensions give the words; the compiler emits VPTERNLOGQ for the S-box's
 * AND-XORs and MixColumns' three-input XORs. CTR makes the counter words in bitsliced form, so only
 * the output is transposed. Logic, shifts and permutes only: constant time.
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "skinny.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))),                 \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif

#include "../bs_v512.h"

/* Eight blocks <-> their halves (skinny_wide.inc.h): VPERMT2Q picks even / odd qwords. */
static inline void skw_split_avx512(const uint8_t *p, bs_v8 *h0, bs_v8 *h1)
{
    const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    __m512i a = _mm512_loadu_si512((const void *)p), b = _mm512_loadu_si512((const void *)(p + 64));
    *h0 = (bs_v8)_mm512_permutex2var_epi64(a, even, b);
    *h1 = (bs_v8)_mm512_permutex2var_epi64(a, odd, b);
}

static inline void skw_join_avx512(uint8_t *p, bs_v8 h0, bs_v8 h1, const uint8_t *in)
{
    const __m512i lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
    const __m512i hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
    bs_v8 a = (bs_v8)_mm512_permutex2var_epi64((__m512i)h0, lo, (__m512i)h1);
    bs_v8 b = (bs_v8)_mm512_permutex2var_epi64((__m512i)h0, hi, (__m512i)h1);
    if (in != NULL) {
        a ^= bs_v8_load(in);
        b ^= bs_v8_load(in + 64);
    }
    bs_v8_store(p, a);
    bs_v8_store(p + 64, b);
}

#define BS_W bs_v8
#define BS_G 8
#define BS_SFX avx512
#include "skinny_wide.inc.h"
#undef BS_W
#undef BS_G
#undef BS_SFX

/*
 * The narrow paths. A pass costs about what its instructions do, whatever their width, so
 * 256 blocks on ymm words (AVX-512VL's VPTERNLOGQ) cost about what 512 on zmm do, and 64 in
 * bs64's uint64_t words (measured: 1 to 64 blocks cost the same in an xmm pass of this
 * template as in bs64). VPUNPCKL/HQDQ pair the blocks' halves inside 128-bit lanes, leaving
 * the blocks in the order 0, 2, 1, 3; one VPERMQ puts them back.
 */
typedef uint64_t bs_v4 __attribute__((vector_size(32)));

static inline void skw_split_avx512y(const uint8_t *p, bs_v4 *h0, bs_v4 *h1)
{
    const __m256i a = _mm256_loadu_si256((const __m256i *)p);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(p + 32));
    *h0 = (bs_v4)_mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), 0xd8);
    *h1 = (bs_v4)_mm256_permute4x64_epi64(_mm256_unpackhi_epi64(a, b), 0xd8);
}

static inline void skw_join_avx512y(uint8_t *p, bs_v4 h0, bs_v4 h1, const uint8_t *in)
{
    const __m256i x = _mm256_permute4x64_epi64((__m256i)h0, 0xd8);
    const __m256i y = _mm256_permute4x64_epi64((__m256i)h1, 0xd8);
    __m256i a = _mm256_unpacklo_epi64(x, y), b = _mm256_unpackhi_epi64(x, y);
    if (in != NULL) {
        a = _mm256_xor_si256(a, _mm256_loadu_si256((const __m256i *)in));
        b = _mm256_xor_si256(b, _mm256_loadu_si256((const __m256i *)(in + 32)));
    }
    _mm256_storeu_si256((__m256i *)p, a);
    _mm256_storeu_si256((__m256i *)(p + 32), b);
}

#define BS_W bs_v4
#define BS_G 4
#define BS_SFX avx512y
#include "skinny_wide.inc.h"
#undef BS_W
#undef BS_G
#undef BS_SFX

#define PASS 512

/* Below this many blocks a call (or its tail) runs through bs64, up to 256 on ymm words. */
#define NARROW_MAX 64
#define YMM_MAX 256

/* One pass of 512 or 256 blocks from src (NULL: the counter blocks from ctr, lo). */
static void skinny_pass(const bs_key_schedule *ks, unsigned rounds, size_t lanes, bs_v8 *s,
                        const uint8_t *src, const uint8_t *ctr, uint32_t lo, const uint8_t *in,
                        uint8_t *out)
{
    if (lanes == 512) {
        if (src != NULL)
            skw_load_avx512(s, src);
        else
            skw_counter_avx512(s, ctr, lo);
        skw_rounds_avx512(s, ks->w, rounds);
        skw_store_avx512(out, s, in);
    } else {
        bs_v4 *y = (bs_v4 *)(void *)s;
        if (src != NULL)
            skw_load_avx512y(y, src);
        else
            skw_counter_avx512y(y, ctr, lo);
        skw_rounds_avx512y(y, ks->w, rounds);
        skw_store_avx512y(out, y, in);
    }
}

/* Passes of 512 or 256 blocks (a short one through a zero-padded copy), then bs64. */
static void skinny_wide_encrypt(const bs_block_cipher *narrow, const bs_key_schedule *ks,
                                uint8_t *out, const uint8_t *in, size_t nblocks)
{
    const unsigned rounds = bs_skinny_rounds(narrow->key_len);
    BS_ALIGN(64) bs_v8 s[128];
    while (nblocks > NARROW_MAX) {
        BS_ALIGN(64) uint8_t buf[PASS * 16];
        const size_t lanes = nblocks > YMM_MAX ? 512 : 256;
        const size_t n = nblocks < lanes ? nblocks : lanes;
        if (n < lanes) {
            memcpy(buf, in, n * 16);
            memset(buf + n * 16, 0, (lanes - n) * 16);
            skinny_pass(ks, rounds, lanes, s, buf, NULL, 0, NULL, buf);
            memcpy(out, buf, n * 16);
            bs_v8_wipe(buf, lanes * 16);
        } else {
            skinny_pass(ks, rounds, lanes, s, in, NULL, 0, NULL, out);
        }
        in += n * 16;
        out += n * 16;
        nblocks -= n;
    }
    bs_v8_wipe(s, sizeof s);
    if (nblocks > 0)
        narrow->encrypt(ks, out, in, nblocks);
}

/* bs_ctr32_fn: whole passes on counters made in registers; the tail through encrypt. */
static void skinny_wide_ctr32(const bs_block_cipher *narrow, const bs_key_schedule *ks,
                              const uint8_t *counter, const uint8_t *in, uint8_t *out,
                              size_t nblocks)
{
    const unsigned rounds = bs_skinny_rounds(narrow->key_len);
    BS_ALIGN(64) bs_v8 s[128];
    uint32_t lo = bs_load_be32(counter + 12);
    while (nblocks >= 256) {
        const size_t lanes = nblocks >= 512 ? 512 : 256;
        skinny_pass(ks, rounds, lanes, s, NULL, counter, lo, in, out);
        lo += (uint32_t)lanes;
        if (in != NULL)
            in += lanes * 16;
        out += lanes * 16;
        nblocks -= lanes;
    }
    bs_v8_wipe(s, sizeof s);
    if (nblocks > 0) {
        /* The tail: counters written out, through encrypt (ymm or bs64), then XORed. */
        uint8_t buf[256 * 16];
        for (size_t i = 0; i < nblocks; i++) {
            memcpy(buf + 16 * i, counter, 12);
            bs_store_be32(buf + 16 * i + 12, lo + (uint32_t)i);
        }
        skinny_wide_encrypt(narrow, ks, buf, buf, nblocks);
        for (size_t i = 0; i < nblocks * 16; i++)
            out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
        bs_v8_wipe(buf, sizeof buf);
    }
}

#define SKINNY_AVX512_VARIANT(tag)                                                                 \
    static void tag##_avx512_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,   \
                                     size_t n)                                                     \
    {                                                                                              \
        skinny_wide_encrypt(&bs_##tag##_bs64, ks, out, in, n);                                     \
    }                                                                                              \
    static void tag##_avx512_ctr(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in, \
                                 uint8_t *out, size_t n)                                           \
    {                                                                                              \
        skinny_wide_ctr32(&bs_##tag##_bs64, ks, ctr, in, out, n);                                  \
    }
SKINNY_AVX512_VARIANT(skinny128_128)
SKINNY_AVX512_VARIANT(skinny128_256)
SKINNY_AVX512_VARIANT(skinny128_384)

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* The key schedule is bs64's (its lane masks are what every width here broadcasts); bs64 exports
 * none. */
static void skinny128_128_avx512_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_128_bs64.set_key(ks, key);
}

static void skinny128_256_avx512_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_256_bs64.set_key(ks, key);
}

static void skinny128_384_avx512_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_384_bs64.set_key(ks, key);
}

const bs_block_cipher bs_skinny128_128_avx512 = {
    "SKINNY-128-128",
    "avx512",
    16,
    16,
    64,
    skinny128_128_avx512_set_key,
    skinny128_128_avx512_encrypt,
    NULL,
};
const bs_block_cipher bs_skinny128_256_avx512 = {
    "SKINNY-128-256",
    "avx512",
    32,
    16,
    64,
    skinny128_256_avx512_set_key,
    skinny128_256_avx512_encrypt,
    NULL,
};
const bs_block_cipher bs_skinny128_384_avx512 = {
    "SKINNY-128-384",
    "avx512",
    48,
    16,
    64,
    skinny128_384_avx512_set_key,
    skinny128_384_avx512_encrypt,
    NULL,
};
const bs_ctr32_fn bs_skinny128_128_avx512_ctr32 = skinny128_128_avx512_ctr;
const bs_ctr32_fn bs_skinny128_256_avx512_ctr32 = skinny128_256_avx512_ctr;
const bs_ctr32_fn bs_skinny128_384_avx512_ctr32 = skinny128_384_avx512_ctr;

#endif
