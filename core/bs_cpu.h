/*
 * bs_cpu.h: which implementation of a cipher or of GHASH-256 runs, chosen once at key setup
 * (OpenSSL's PROV_CIPHER_HW pattern): the best one the CPU supports, at most the level that
 * $BITSLICE_CPU or bs_cpu_limit() allows.
 *
 * Levels, each including the one before (x86-64; every other target is portable only):
 *   portable  the 64-lane bitsliced C cores, ctmul64 GHASH;
 *   aesni     + AES-NI, PCLMULQDQ, SSSE3, SSE4.1 (Rijndael-256 by AESENC, GHASH by PCLMULQDQ);
 *   avx2      + AVX2 (valgrind 3.19 executes everything up to here);
 *   avx512    + AVX-512 F/DQ/BW/VL/VBMI, VAES, VPCLMULQDQ, GFNI (zmm cores, 512-lane
 *             bitslicing), with the opmask and all 32 zmm registers saved by the OS.
 * The levels are bitslice.h's bs_level: each implementation names its own (bs_block_cipher's
 * and bs_ghash256_impl's level). Every implementation is bit-exact with the portable one; the
 * level only changes speed.
 */
#ifndef BS_CPU_H
#define BS_CPU_H

#include "bitslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The environment variable that caps the level: one of BS_CPU_LEVEL_NAMES. */
#define BS_CPU_ENV "BITSLICE_CPU"
/*
 * The levels' names (bs_cpu_level_name) from lowest to highest, for messages (test_cpu checks);
 * the unit suite runs each test at each of them (tests/unit/meson.build reads this).
 */
#define BS_CPU_LEVEL_NAMES "portable, aesni, avx2, avx512"

/* CPUID bits (Intel SDM vol. 2A, CPUID): leaf 1 ECX, leaf 7 sub-leaf 0 EBX and ECX. */
#define BS_CPUID1_ECX_PCLMUL (1u << 1)
#define BS_CPUID1_ECX_SSSE3 (1u << 9)
#define BS_CPUID1_ECX_SSE41 (1u << 19)
#define BS_CPUID1_ECX_AES (1u << 25)
#define BS_CPUID1_ECX_OSXSAVE (1u << 27)
#define BS_CPUID1_ECX_AVX (1u << 28)
#define BS_CPUID7_EBX_AVX2 (1u << 5)
#define BS_CPUID7_EBX_AVX512F (1u << 16)
#define BS_CPUID7_EBX_AVX512DQ (1u << 17)
#define BS_CPUID7_EBX_AVX512BW (1u << 30)
#define BS_CPUID7_EBX_AVX512VL (1u << 31)
#define BS_CPUID7_ECX_VBMI (1u << 1)
#define BS_CPUID7_ECX_GFNI (1u << 8)
#define BS_CPUID7_ECX_VAES (1u << 9)
#define BS_CPUID7_ECX_VPCLMUL (1u << 10)
/* XCR0 (XGETBV 0): SSE and AVX state; opmask, upper halves of zmm0-15, zmm16-31. */
#define BS_XCR0_AVX 0x6u
#define BS_XCR0_AVX512 0xe6u

/*
 * The level that CPUID leaf 1 ECX, leaf 7 EBX and ECX and XCR0 (0 where OSXSAVE is clear)
 * allow: a pure function, so tests can feed it any CPU.
 */
int bs_cpu_level_from(unsigned ecx1, unsigned ebx7, unsigned ecx7, unsigned xcr0);
/* The highest level this CPU (and OS: saved vector state) supports. */
int bs_cpu_detected(void);
/*
 * The level in force: the detected one, capped by $BITSLICE_CPU and by bs_cpu_limit().
 * $BITSLICE_CPU is read once per process, at the first call (as OpenSSL reads OPENSSL_ia32cap):
 * a key setup does not scan the environment.
 */
int bs_cpu_level(void);
/* Reads $BITSLICE_CPU again, for a program that changes its own environment after the start. */
void bs_cpu_reread_env(void);
/*
 * Caps the level for the whole process (the provider's "cpu" config key); a cap above the
 * detected level changes nothing. Call before keys are set: existing contexts keep theirs.
 */
void bs_cpu_limit(int level);
/* "portable", "aesni", "avx2", "avx512"; NULL for anything else (BS_CPU_NONE among them). */
const char *bs_cpu_level_name(int level);
/* The level of a name above (case-insensitive), or -1. */
int bs_cpu_level_by_name(const char *name);
/* 1 if c may run here and now: it names a level, and that level is at most bs_cpu_level(). */
int bs_impl_usable(const bs_block_cipher *c);

#ifdef __cplusplus
}
#endif

#endif
