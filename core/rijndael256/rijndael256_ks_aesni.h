/*
 * rijndael256_ks_aesni.h: one step of the Rijndael-256 key schedule on AES-NI, shared by
 * bs_r256_key_expand_aesni (rijndael256_aesni.c) and the VAES core's key setup fused with its
 * first blocks (rijndael256_vaes.c). The schedule is AES-256's (FIPS-197 5.2, Nk = 8) run to 120
 * words: step n (1..14) makes round key n, words 8n..8n+7, from round key n - 1.
 *
 * Word 8n takes SubWord(RotWord(w[8n-1])) ^ rcon, word 8n+4 SubWord(w[8n+3]). Both come from
 * AESENCLAST on a register whose four columns are one word (the first rotated by one byte, as
 * ROTBC does): ShiftRows then moves nothing, SubBytes is SubWord in every column, and the round
 * key XORs rcon and the chained words in. One AESENCLAST is shorter than AESKEYGENASSIST on the
 * schedule's dependency chain. AESENCLAST and PSHUFB take constant time and index nothing by data.
 * Include only in a file compiled with x86-64 intrinsics; call from a function whose target has
 * "aes,ssse3".
 */
#ifndef BS_RIJNDAEL256_KS_AESNI_H
#define BS_RIJNDAEL256_KS_AESNI_H

#include <immintrin.h>

/* rcon of steps 1..14: x^(n-1) in GF(2^8) (the AES polynomial), past 0x36 as far as 14. */
static const uint8_t bs_r256_rcon[14] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40,
                                         0x80, 0x1b, 0x36, 0x6c, 0xd8, 0xab, 0x4d};

/* Words 0..3 of k as w0, w0 ^ w1, w0 ^ w1 ^ w2, w0 ^ w1 ^ w2 ^ w3 (the schedule's chained XOR). */
__attribute__((target("aes,ssse3"))) static inline __m128i bs_r256_prefix_xor(__m128i k)
{
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    return _mm_xor_si128(k, _mm_slli_si128(k, 8));
}

/* Round key n (words 8n..8n+7) into *k0, *k1 from round key n - 1 there (n = 1..14). */
__attribute__((target("aes,ssse3"))) static inline void bs_r256_key_step(__m128i *k0, __m128i *k1,
                                                                         int n)
{
    /* Word 3 rotated (bytes 13, 14, 15, 12) in every column. */
    const __m128i rotbc =
        _mm_set_epi8(12, 15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13);
    /* AESENCLAST's own round-key XOR adds the chained words (and rcon): they are known early,
     * so the schedule's dependency chain is a shuffle and an AESENCLAST per half step. */
    const __m128i p0 = _mm_xor_si128(bs_r256_prefix_xor(*k0), _mm_set1_epi32(bs_r256_rcon[n - 1]));
    const __m128i p1 = bs_r256_prefix_xor(*k1);
    *k0 = _mm_aesenclast_si128(_mm_shuffle_epi8(*k1, rotbc), p0);
    *k1 = _mm_aesenclast_si128(_mm_shuffle_epi32(*k0, 0xff), p1);
}

#endif
