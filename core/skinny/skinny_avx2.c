/*
 * SKINNY-128-128/-256/-384, 256 blocks per pass on ymm registers (x86-64 with AVX2): the
 * rounds, packing and counter words of skinny_wide.inc.h on four 64-lane groups per word, the
 * same code as skinny_avx512.c with half the lanes, for CPUs without AVX-512 and for valgrind
 * (which executes AVX2, so the ct suite covers this core). The key schedule and the narrow path
 * are skinny_bs64.c's. AVX2 has no three-input logic: the S-box's AND-XORs are two operations
 * each. Logic, shifts and permutes only: constant time.
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "skinny.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#include "../bs_v256.h"

/* Below this many blocks a call (or a call's tail) runs through the 64-lane core. */
#define WIDE_MIN 128

/*
 * Four blocks <-> their halves (skinny_wide.inc.h). VPUNPCKL/HQDQ work inside 128-bit lanes,
 * so they leave the blocks in the order 0, 2, 1, 3; one VPERMQ puts them back.
 */
static inline void skw_split_avx2(const uint8_t *p, bs_v4 *h0, bs_v4 *h1)
{
    const __m256i a = _mm256_loadu_si256((const __m256i *)p);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(p + 32));
    *h0 = (bs_v4)_mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), 0xd8);
    *h1 = (bs_v4)_mm256_permute4x64_epi64(_mm256_unpackhi_epi64(a, b), 0xd8);
}

static inline void skw_join_avx2(uint8_t *p, bs_v4 h0, bs_v4 h1, const uint8_t *in)
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
#define BS_SFX avx2
#include "skinny_wide.inc.h"
#undef BS_W
#undef BS_G
#undef BS_SFX

#define PASS 256

static void skinny_wide_encrypt(const bs_block_cipher *narrow, const bs_key_schedule *ks,
                                uint8_t *out, const uint8_t *in, size_t nblocks)
{
    const unsigned rounds = bs_skinny_rounds(narrow->key_len);
    BS_ALIGN(32) bs_v4 s[128];
    while (nblocks >= WIDE_MIN) {
        uint8_t buf[PASS * 16];
        const size_t n = nblocks < PASS ? nblocks : PASS;
        const uint8_t *src = in;
        uint8_t *dst = out;
        if (n < PASS) {
            memcpy(buf, in, n * 16);
            memset(buf + n * 16, 0, (PASS - n) * 16);
            src = dst = buf;
        }
        skw_load_avx2(s, src);
        skw_rounds_avx2(s, ks->w, rounds);
        skw_store_avx2(dst, s, NULL);
        if (n < PASS) {
            memcpy(out, buf, n * 16);
            bs_wide_wipe_v4(buf, sizeof buf);
        }
        in += n * 16;
        out += n * 16;
        nblocks -= n;
    }
    bs_wide_wipe_v4(s, sizeof s);
    if (nblocks > 0)
        narrow->encrypt(ks, out, in, nblocks);
}

/* bs_ctr32_fn over a pass's counters made in registers; the tail through encrypt. */
static void skinny_wide_ctr32(const bs_block_cipher *narrow, const bs_key_schedule *ks,
                              const uint8_t *counter, const uint8_t *in, uint8_t *out,
                              size_t nblocks)
{
    const unsigned rounds = bs_skinny_rounds(narrow->key_len);
    BS_ALIGN(32) bs_v4 s[128];
    uint32_t lo = bs_load_be32(counter + 12);
    while (nblocks >= PASS) {
        skw_counter_avx2(s, counter, lo);
        skw_rounds_avx2(s, ks->w, rounds);
        skw_store_avx2(out, s, in);
        lo += PASS;
        if (in != NULL)
            in += PASS * 16;
        out += PASS * 16;
        nblocks -= PASS;
    }
    bs_wide_wipe_v4(s, sizeof s);
    if (nblocks > 0) {
        /* The tail: counters written out, through encrypt (wide or narrow), then XORed. */
        uint8_t buf[PASS * 16];
        for (size_t i = 0; i < nblocks; i++) {
            memcpy(buf + 16 * i, counter, 12);
            bs_store_be32(buf + 16 * i + 12, lo + (uint32_t)i);
        }
        skinny_wide_encrypt(narrow, ks, buf, buf, nblocks);
        for (size_t i = 0; i < nblocks * 16; i++)
            out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
        bs_wide_wipe_v4(buf, sizeof buf);
    }
}

#define SKINNY_AVX2_VARIANT(tag)                                                                   \
    static void tag##_avx2_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,     \
                                   size_t n)                                                       \
    {                                                                                              \
        skinny_wide_encrypt(&bs_##tag##_bs64, ks, out, in, n);                                     \
    }                                                                                              \
    static void tag##_avx2_ctr(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,   \
                               uint8_t *out, size_t n)                                             \
    {                                                                                              \
        skinny_wide_ctr32(&bs_##tag##_bs64, ks, ctr, in, out, n);                                  \
    }
SKINNY_AVX2_VARIANT(skinny128_128)
SKINNY_AVX2_VARIANT(skinny128_256)
SKINNY_AVX2_VARIANT(skinny128_384)

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* The key schedule is bs64's (it is what the narrow path runs on); bs64 exports none. */
static void skinny128_128_avx2_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_128_bs64.set_key(ks, key);
}

static void skinny128_256_avx2_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_256_bs64.set_key(ks, key);
}

static void skinny128_384_avx2_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_384_bs64.set_key(ks, key);
}

const bs_block_cipher bs_skinny128_128_avx2 = {
    "SKINNY-128-128",           "avx2", 16, 16, 64, skinny128_128_avx2_set_key,
    skinny128_128_avx2_encrypt, NULL,
};
const bs_block_cipher bs_skinny128_256_avx2 = {
    "SKINNY-128-256",           "avx2", 32, 16, 64, skinny128_256_avx2_set_key,
    skinny128_256_avx2_encrypt, NULL,
};
const bs_block_cipher bs_skinny128_384_avx2 = {
    "SKINNY-128-384",           "avx2", 48, 16, 64, skinny128_384_avx2_set_key,
    skinny128_384_avx2_encrypt, NULL,
};
const bs_ctr32_fn bs_skinny128_128_avx2_ctr32 = skinny128_128_avx2_ctr;
const bs_ctr32_fn bs_skinny128_256_avx2_ctr32 = skinny128_256_avx2_ctr;
const bs_ctr32_fn bs_skinny128_384_avx2_ctr32 = skinny128_384_avx2_ctr;

#endif
