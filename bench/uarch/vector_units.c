/*
 * vector_units: what this x86 core's vector units allow RIJNDAEL-256-GCM and AES-256-GCM, from
 * their instruction mixes alone (no loads, no stores, no data: registers only, so the figures
 * are bounds of the instruction mix and not of any implementation).
 *
 * A VAES round of AES-256 is one VAESENC a register of 64 bytes. A round of Rijndael-256 is a
 * VPERMB (its ShiftRows crosses the 128-bit lanes that VAESENC works in) and then the VAESENC.
 * The GCM loops of both absorb a KiB with about 72 VPCLMULQDQ on zmm (GHASH-256 by two-level
 * Karatsuba: 36 a 16-block chunk; OpenSSL's GHASH: 4 a register of four blocks and its
 * reductions). So per KiB: AES-256 = 16 registers x 14 VAESENC (+ 72 VPCLMULQDQ with GHASH);
 * Rijndael-256 = 16 x 14 (VPERMB, VAESENC) (+ 72 VPCLMULQDQ). Each mix runs as 16 independent
 * chains (the loops' 16 registers), best of many runs, in TSC ticks (`rdtsc`; the TSC runs at
 * a fixed rate, not the core clock). The single-instruction rows say which units the
 * instructions share.
 *
 * The other way to move Rijndael-256's bytes before AESENC keeps a block's two halves in two
 * registers (X: columns 0..3, Y: columns 4..7, of four blocks each) and moves them with in-lane
 * dword shuffles and byte blends only: with RX, RY the halves' dwords rotated by one (VPSHUFD),
 * X' takes row 0 from X, row 1 from X and Y, row 2 from RX and RY, row 3 from RY (and Y' the
 * same with X and Y swapped), so that AESENC's own ShiftRows then completes Rijndael-256's: two
 * VPSHUFD and six VPBLENDMB a pair of registers a round, where the VPERMB way takes two VPERMB.
 * The rows below say which units each way's instructions share with VAESENC.
 *
 * Run it pinned to one CPU of an otherwise idle core: `taskset -c 1
 * <build>/bench/uarch/vector_units`. A busy SMT sibling shares these units and makes every row
 * slower.
 */
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#if !defined(__x86_64__)
int main(void)
{
    puts("vector_units: x86-64 only");
    return 77;
}
#else
#include <cpuid.h>

#define RUNS 40
#define ITERS 2000

#define S(x) #x
/* The 16 chains: zmm0..zmm15; zmm16..zmm27 the outputs of independent instructions (12 of them
 * hide any one's latency); zmm28 their input, zmm30 a round key, zmm31 a permutation, zmm29 a
 * multiplier. */
#define REP16(X)                                                                                   \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define REP12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define REP12H(X) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27)

#define AES(j) "vaesenc %%zmm30, %%zmm" S(j) ", %%zmm" S(j) "\n\t"
#define PERM(j) "vpermb %%zmm" S(j) ", %%zmm31, %%zmm" S(j) "\n\t"
#define PAIR(j) PERM(j) AES(j)
#define IAES(j) "vaesenc %%zmm30, %%zmm28, %%zmm" S(j) "\n\t"
#define IPERM(j) "vpermb %%zmm28, %%zmm31, %%zmm" S(j) "\n\t"
#define ICLMUL(j) "vpclmulqdq $0x00, %%zmm29, %%zmm28, %%zmm" S(j) "\n\t"
/* 72 VPCLMULQDQ a KiB: 4.5 a round of the 16 registers' 14, as 9 every two rounds. */
#define CL9                                                                                        \
    ICLMUL(16)                                                                                     \
    ICLMUL(17) ICLMUL(18) ICLMUL(19) ICLMUL(20) ICLMUL(21) ICLMUL(22) ICLMUL(23) ICLMUL(24)

#define ISHUFD(j) "vpshufd $0x39, %%zmm28, %%zmm" S(j) "\n\t"
#define IBLEND(j) "vpblendmb %%zmm29, %%zmm28, %%zmm" S(j) "%{%%k1%}\n\t"
/* One round of a register pair (x, y) by dword shuffles and byte blends (see above); k1..k3 the
 * row masks (their values do not change the timing), t0..t5 temporaries. */
#define SPLIT(x, y, t0, t1, t2, t3, t4, t5)                                                                             \
    "vpshufd $0x39, %%zmm" S(x) ", %%zmm" S(                                                                            \
        t0) "\n\t"                                                                                                      \
            "vpshufd $0x39, %%zmm" S(y) ", %%zmm" S(                                                                    \
                t1) "\n\t"                                                                                              \
                    "vpblendmb %%zmm" S(y) ", %%zmm" S(x) ", %%zmm" S(                                                  \
                        t2) "%{%%k1%}\n\t"                                                                              \
                            "vpblendmb %%zmm" S(x) ", %%zmm" S(y) ", %%zmm" S(                                          \
                                t3) "%{%%k1%}\n\t"                                                                      \
                                    "vpblendmb %%zmm" S(t0) ", %%zmm" S(t1) ", %%zmm" S(                                \
                                        t4) "%{%%k2%}\n\t"                                                              \
                                            "vpblendmb %%zmm" S(t1) ", %%zmm" S(t0) ", %%zmm" S(                        \
                                                t5) "%{%%k2%}\n\t"                                                      \
                                                    "vpblendmb %%zmm" S(t4) ", %%zmm" S(                                \
                                                        t2) ", %%zmm" S(x) "%{%%k3%}\n\t"                               \
                                                                           "vpblendmb %%zmm" S(t5) ", %%zmm" S(         \
                                                                               t3) ", %%zmm" S(y) "%{%%k3%}\n\t" AES(x) \
                                                                               AES(y)
#define SPLIT8                                                                                     \
    SPLIT(0, 1, 16, 17, 18, 19, 20, 21)                                                            \
    SPLIT(2, 3, 22, 23, 24, 25, 26, 27)                                                            \
    SPLIT(4, 5, 16, 17, 18, 19, 20, 21)                                                            \
    SPLIT(6, 7, 22, 23, 24, 25, 26, 27)                                                            \
    SPLIT(8, 9, 16, 17, 18, 19, 20, 21)                                                            \
    SPLIT(10, 11, 22, 23, 24, 25, 26, 27)                                                          \
    SPLIT(12, 13, 16, 17, 18, 19, 20, 21)                                                          \
    SPLIT(14, 15, 22, 23, 24, 25, 26, 27)

#define CLOBBER                                                                                    \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",       \
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",  \
        "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "k1", "k2", "k3"

#define TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi,vaes,vpclmulqdq"), noinline))

/* Best of RUNS runs of ITERS executions of body: TSC ticks an execution. */
#define MEASURE(name, body)                                                                        \
    TARGET static double name(void)                                                                \
    {                                                                                              \
        double best = 1e300;                                                                       \
        for (int r = 0; r < RUNS; r++) {                                                           \
            const unsigned long long t0 = __rdtsc();                                               \
            for (int i = 0; i < ITERS; i++)                                                        \
                __asm__ volatile(body::: CLOBBER);                                                 \
            const double t = (double)(__rdtsc() - t0) / ITERS;                                     \
            if (t < best)                                                                          \
                best = t;                                                                          \
        }                                                                                          \
        return best;                                                                               \
    }

MEASURE(m_aes, REP16(IAES))
MEASURE(m_perm, REP12H(IPERM))
MEASURE(m_clmul, REP12H(ICLMUL))
MEASURE(m_aes_perm, REP12(IAES) REP12H(IPERM))
MEASURE(m_aes_clmul, REP12(IAES) REP12H(ICLMUL))
MEASURE(m_shufd, REP12H(ISHUFD))
MEASURE(m_blend, REP12H(IBLEND))
MEASURE(m_aes_shufd, REP12(IAES) REP12H(ISHUFD))
MEASURE(m_aes_blend, REP12(IAES) REP12H(IBLEND))
MEASURE(m_aes_blend2, REP12(IAES) REP12H(IBLEND) REP12H(IBLEND))
/* Two rounds of the 16 registers a body: 1/7 of a KiB's 14 rounds. */
MEASURE(m_aes256, REP16(AES) REP16(AES))
MEASURE(m_r256, REP16(PAIR) REP16(PAIR))
MEASURE(m_aes256_gh, REP16(AES) CL9 REP16(AES))
MEASURE(m_r256_gh, REP16(PAIR) CL9 REP16(PAIR))
MEASURE(m_r256_split, SPLIT8 SPLIT8)

static int have_units(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    const int avx512 = (b >> 16) & 1, bw = (b >> 30) & 1, vbmi = (c >> 1) & 1;
    const int vaes = (c >> 9) & 1, vpclmul = (c >> 10) & 1;
    return avx512 && bw && vbmi && vaes && vpclmul; /* OS support: AVX-512 state, checked below */
}

static int os_saves_zmm(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1))
        return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6) == 0xe6;
}

int main(void)
{
    if (!have_units() || !os_saves_zmm()) {
        puts("vector_units: needs AVX-512 (F, BW, VBMI), VAES and VPCLMULQDQ");
        return 77;
    }
    char brand[49] = {0};
    unsigned *w = (unsigned *)brand;
    for (unsigned i = 0; i < 3; i++)
        __get_cpuid(0x80000002 + i, &w[4 * i], &w[4 * i + 1], &w[4 * i + 2], &w[4 * i + 3]);
    printf("vector_units: %s; TSC ticks, best of %d runs of %d\n\n", brand, RUNS, ITERS);

    const double aes = m_aes() / 16, perm = m_perm() / 12, clmul = m_clmul() / 12;
    const double aes_perm = m_aes_perm() / 24, aes_clmul = m_aes_clmul() / 24;
    printf("| independent zmm instructions | TSC each |\n|---|---|\n");
    printf("| VAESENC | %.3f |\n| VPERMB | %.3f |\n| VPCLMULQDQ | %.3f |\n", aes, perm, clmul);
    printf("| VAESENC and VPERMB, mixed 1:1 | %.3f |\n", aes_perm);
    printf("| VAESENC and VPCLMULQDQ, mixed 1:1 | %.3f |\n", aes_clmul);
    printf("| VPSHUFD | %.3f |\n| VPBLENDMB | %.3f |\n", m_shufd() / 12, m_blend() / 12);
    printf("| VAESENC and VPSHUFD, mixed 1:1 | %.3f |\n", m_aes_shufd() / 24);
    printf("| VAESENC and VPBLENDMB, mixed 1:1 | %.3f |\n", m_aes_blend() / 24);
    printf("| VAESENC and VPBLENDMB, mixed 1:2 | %.3f |\n\n", m_aes_blend2() / 36);

    const double a256 = 7 * m_aes256(), r256 = 7 * m_r256();
    const double a256g = 7 * m_aes256_gh(), r256g = 7 * m_r256_gh();
    printf("| a KiB, 16 chains x 14 rounds | TSC | AES-256 / Rijndael-256 |\n|---|---|---|\n");
    printf("| AES-256 rounds (VAESENC) | %.1f | |\n", a256);
    printf("| Rijndael-256 rounds (VPERMB, VAESENC) | %.1f | %.3f |\n", r256, a256 / r256);
    printf("| AES-256 rounds + 72 VPCLMULQDQ | %.1f | |\n", a256g);
    printf("| Rijndael-256 rounds + 72 VPCLMULQDQ | %.1f | %.3f |\n", r256g, a256g / r256g);
    const double split = 7 * m_r256_split();
    printf("| Rijndael-256 rounds, halves apart (VPSHUFD, VPBLENDMB, VAESENC) | %.1f | %.3f |\n",
           split, a256 / split);
    return 0;
}
#endif
