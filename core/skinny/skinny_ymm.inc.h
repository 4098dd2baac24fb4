/*
 * skinny_ymm.inc.h: the ymm words' split and join of skinny_wide.inc.h, for its instances on
 * bs_v4 (skinny_avx2.c, and skinny_avx512.c's narrow path): included inside an x86 target
 * region with BS_SFX defined, before the template.
 */
/*
 * Four blocks <-> their halves (skinny_wide.inc.h). VPUNPCKL/HQDQ work inside 128-bit lanes,
 * so they leave the blocks in the order 0, 2, 1, 3; one VPERMQ puts them back.
 */
static inline void BS_TPL(skw_split)(const uint8_t *p, bs_v4 *h0, bs_v4 *h1)
{
    const __m256i a = _mm256_loadu_si256((const __m256i *)p);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(p + 32));
    *h0 = (bs_v4)_mm256_permute4x64_epi64(_mm256_unpacklo_epi64(a, b), 0xd8);
    *h1 = (bs_v4)_mm256_permute4x64_epi64(_mm256_unpackhi_epi64(a, b), 0xd8);
}

static inline void BS_TPL(skw_join)(uint8_t *p, bs_v4 h0, bs_v4 h1, const uint8_t *in)
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
