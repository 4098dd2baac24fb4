/*
 * SKINNY-128-128/-256/-384, 512 blocks per pass on zmm registers (x86-64 with AVX-512).
 *
 * The rounds, packing and counter words are skinny_wide.inc.h's on eight 64-lane groups (each
 * element of a word is one bs64 state, skinny.h), so the round tweakeys are skinny_bs64.c's
 * lane masks (broadcast as they are used) and the key schedule is bs64's. Calls and tails of
 * fewer blocks run the same template on ymm words or the bs64 core (the narrow paths, below).
 * GCC's vector extensions give the words; the state stays uncomplemented, so that each S-box
 * step and MixColumns' row 2 is one VPTERNLOGQ and the rest of MixColumns two-input XORs, and
 * two of the 16 cells stay in registers through the rounds (skinny_wide.inc.h: the stores
 * bound a round). CTR makes the counter words in bitsliced form, so only the output is
 * transposed. Logic, shifts and permutes only: constant time.
 */
#include "skinny.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#define BS_TARGET_AVX512
#include "../bs_target_begin.inc.h"

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

/*
 * The narrow paths. A pass costs about what its instructions do, whatever their width, so
 * 256 blocks on ymm words (AVX-512VL's VPTERNLOGQ) cost about what 512 on zmm do, and 64 in
 * bs64's uint64_t words (measured: 1 to 64 blocks cost the same in an xmm pass of this
 * template as in bs64). So a call runs 512-block passes while more than 256 blocks are left,
 * then ymm passes while more than 64 are, then bs64 (the ymm split and join: skinny_ymm.inc.h).
 */
typedef uint64_t bs_v4 __attribute__((vector_size(32)));

#define BS_W bs_v4
#define BS_G 4
#define BS_SFX avx512y
#include "skinny_ymm.inc.h"
#define SKW_TERNLOG 1
#define SKW_NRES 2
#define SKW_MIN 65
#include "skinny_wide.inc.h"

#define BS_W bs_v8
#define BS_G 8
#define BS_SFX avx512
#define SKW_TERNLOG 1
#define SKW_NRES 2
#define SKW_MIN 257
#define SKW_NEXT avx512y
#include "skinny_wide.inc.h"

#include "../bs_target_end.inc.h"

/*
 * CTR's batch (bitslice.h): a zmm pass, on a stream's first call from 257 blocks on. Measured
 * (keystream of n blocks, rdtsc, Zen 5): 512 blocks 7020 TSC, 257 to 511 about 12,000 (a zmm
 * pass and a narrow one), but 65 to 256 one ymm pass (5226 to 6188) and 1 to 64 bs64's (6447).
 */
const bs_block_cipher bs_skinny128_128_avx512 = {
    .name = "SKINNY-128-128",
    .impl = "avx512",
    .level = BS_CPU_AVX512,
    .key_len = 16,
    .block_len = 16,
    .lanes = 64,
    .set_key = skinny128_128_set_key_avx512,
    .encrypt = skinny128_128_encrypt_avx512,
    .ctr32 = skinny128_128_ctr_avx512,
    .batch = 512,
    .batch_from = 257,
};
const bs_block_cipher bs_skinny128_256_avx512 = {
    .name = "SKINNY-128-256",
    .impl = "avx512",
    .level = BS_CPU_AVX512,
    .key_len = 32,
    .block_len = 16,
    .lanes = 64,
    .set_key = skinny128_256_set_key_avx512,
    .encrypt = skinny128_256_encrypt_avx512,
    .ctr32 = skinny128_256_ctr_avx512,
    .batch = 512,
    .batch_from = 257,
};
const bs_block_cipher bs_skinny128_384_avx512 = {
    .name = "SKINNY-128-384",
    .impl = "avx512",
    .level = BS_CPU_AVX512,
    .key_len = 48,
    .block_len = 16,
    .lanes = 64,
    .set_key = skinny128_384_set_key_avx512,
    .encrypt = skinny128_384_encrypt_avx512,
    .ctr32 = skinny128_384_ctr_avx512,
    .batch = 512,
    .batch_from = 257,
};

#endif
