/*
 * rijndael256_aesni.h: one Rijndael-256 round on AES-NI (rijndael256_aesni.c describes the
 * construction), shared by the AES-NI core and the stitched AES-NI + PCLMULQDQ GCM loop
 * (core/modes/gcm256_aesni.c). A block is two xmm halves, A = bytes 0..15 and B = bytes 16..31;
 * a round moves the bytes that cross halves (a blend under R256_CROSS), shuffles each half
 * (R256_SHUF) so that AESENC's own ShiftRows leaves them where Rijndael-256's would, and runs
 * AESENC (AESENCLAST in round 14) on each half. Include only in a file compiled with x86-64
 * intrinsics; call from a function whose target has BS_R256_AESNI_ISA. AESENC, PBLENDVB and
 * PSHUFB take constant time and index nothing by data.
 */
#ifndef BS_RIJNDAEL256_AESNI_H
#define BS_RIJNDAEL256_AESNI_H

#include <immintrin.h>
#include <stdint.h>

#define BS_R256_AESNI_ISA "aes,sse4.1,ssse3"

/* Bytes of a half that come from the other half (0x80), and the in-half shuffle. */
static const uint8_t bs_r256_aesni_cross[16] = {0, 0x80, 0x80, 0x80, 0, 0, 0x80, 0x80,
                                                0, 0,    0x80, 0x80, 0, 0, 0,    0x80};
static const uint8_t bs_r256_aesni_shuf[16] = {0, 1, 6,  7,  4,  5,  10, 11,
                                               8, 9, 14, 15, 12, 13, 2,  3};
/* Reverses bytes 12..15 (the big-endian 32-bit counter of half B), keeps the others. */
static const uint8_t bs_r256_aesni_ctr_bswap[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                    8, 9, 10, 11, 15, 14, 13, 12};

/* Round key i's half h (0: A, 1: B) of the byte round keys rk (16-byte aligned, as ks->w is). */
#define BS_R256_AESNI_RKP(rk, i, h) ((const __m128i *)((rk) + 32 * (i) + 16 * (h)))
#define BS_R256_AESNI_RK(rk, i, h) _mm_load_si128(BS_R256_AESNI_RKP(rk, i, h))

/*
 * A round's instructions on the block (a in A, b in B) with AESENC or AESENCLAST, and mix, the
 * move of half B: a second PBLENDVB, or b ^ a ^ t in two PXOR (t is a with the crossing bytes
 * from b, so b ^ a ^ t is b with them from a), which run beside the units that PBLENDVB, PSHUFB
 * and AESENC share on Zen 5, at one more step of latency.
 */
#define BS_R256_AESNI_ROUND_ASM(aes, mix)                                                          \
    "movdqa %[a], %[t]\n\t"                                                                        \
    "pblendvb %[m], %[b], %[t]\n\t" mix "\n\t"                                                     \
    "pshufb %[s], %[t]\n\t"                                                                        \
    "pshufb %[s], %[b]\n\t" aes " %[ka], %[t]\n\t" aes " %[kb], %[b]"
#define BS_R256_AESNI_BLEND "pblendvb %[m], %[a], %[b]"
#define BS_R256_AESNI_XORS "pxor %[a], %[b]\n\tpxor %[t], %[b]"
#define BS_R256_AESNI_ROUND_OPS                                                                    \
    : [t] "=&x"(t), [b] "+x"(*b)                                                                   \
    : [a] "x"(*a), [m] "Yz"(cross), [s] "x"(shuf), [ka] "m"(*ka), [kb] "m"(*kb)

/*
 * Round i on the block (*a, *b): AESENC (last 0: rounds 1..13) or AESENCLAST (last 1: round 14),
 * the round key's halves at ka and kb (16-byte aligned); xors (a constant): half B's move by
 * PXOR (above). In assembly, so that the compiler keeps the round keys in memory (operands of
 * AESENC) and cross in xmm0 (PBLENDVB's implicit operand) rather than copying registers around
 * them: with six blocks in flight every xmm register holds a block or a constant. Measured on
 * Zen 5 (bsbench --cheapest, 16 KiB, alternating runs): the PXOR move makes CTR about 5 %
 * faster and the stitched GCM loop, whose GHASH wants the same units, about 4 % slower.
 */
__attribute__((target(BS_R256_AESNI_ISA))) static inline __attribute__((always_inline)) void
bs_r256_aesni_round(__m128i *a, __m128i *b, __m128i cross, __m128i shuf, const __m128i *ka,
                    const __m128i *kb, int last, int xors)
{
    __m128i t;
    if (last && xors)
        __asm__(BS_R256_AESNI_ROUND_ASM("aesenclast", BS_R256_AESNI_XORS) BS_R256_AESNI_ROUND_OPS);
    else if (last)
        __asm__(BS_R256_AESNI_ROUND_ASM("aesenclast", BS_R256_AESNI_BLEND) BS_R256_AESNI_ROUND_OPS);
    else if (xors)
        __asm__(BS_R256_AESNI_ROUND_ASM("aesenc", BS_R256_AESNI_XORS) BS_R256_AESNI_ROUND_OPS);
    else
        __asm__(BS_R256_AESNI_ROUND_ASM("aesenc", BS_R256_AESNI_BLEND) BS_R256_AESNI_ROUND_OPS);
    *a = t;
}

#endif
