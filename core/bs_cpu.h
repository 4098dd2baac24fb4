/*
 * bs_cpu.h: which implementation of a cipher or of GHASH-256 runs, chosen once at key setup
 * (OpenSSL's PROV_CIPHER_HW pattern): the best one the CPU supports, at most the level that
 * $BITSLICE_CPU or bs_cpu_limit() allows.
 *
 * Levels, each including the one before (x86-64; every other target is portable only):
 *   portable  the 64-lane bitsliced C cores, ctmul64 GHASH;
 *   aesni     + AES-NI, PCLMULQDQ, SSSE3, SSE4.1 (Rijndael-256 by AESENC, GHASH by PCLMULQDQ);
 *   avx2      + AVX2 (valgrind 3.19 executes everything up to here);
 *   avx512    + AVX-512 F/BW/VL/VBMI, VAES, VPCLMULQDQ, GFNI (zmm cores, 512-lane bitslicing).
 * An implementation's level follows from its impl name (bs_impl_level). Every implementation
 * is bit-exact with the portable one; the level only changes speed.
 */
#ifndef BS_CPU_H
#define BS_CPU_H

#include "bitslice.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    BS_CPU_PORTABLE = 0,
    BS_CPU_AESNI = 1,
    BS_CPU_AVX2 = 2,
    BS_CPU_AVX512 = 3,
};
#define BS_CPU_LEVELS 4

/* The environment variable that caps the level: portable, aesni, avx2 or avx512. */
#define BS_CPU_ENV "BITSLICE_CPU"

/* The highest level this CPU (and OS: saved vector state) supports. */
int bs_cpu_detected(void);
/* The level in force: the detected one, capped by $BITSLICE_CPU and by bs_cpu_limit(). */
int bs_cpu_level(void);
/*
 * Caps the level for the whole process (the provider's "cpu" config key); a cap above the
 * detected level changes nothing. Call before keys are set: existing contexts keep theirs.
 */
void bs_cpu_limit(int level);
/* "portable", "aesni", "avx2", "avx512"; NULL for anything else. */
const char *bs_cpu_level_name(int level);
/* The level of a name above (case-insensitive), or -1. */
int bs_cpu_level_by_name(const char *name);
/* The level an implementation needs, from its impl name ("bs64": portable, "vaes": avx512). */
int bs_impl_level(const char *impl);
/* 1 if c may run here and now: bs_impl_level(c->impl) <= bs_cpu_level(). */
int bs_impl_usable(const bs_block_cipher *c);

/* The x86-64 implementations (compiled in where BS_HAVE_X86 is defined). */
extern const bs_block_cipher bs_rijndael256_aesni;
extern const bs_block_cipher bs_rijndael256_vaes;
extern const bs_ctr32_fn bs_rijndael256_aesni_ctr32;
extern const bs_ctr32_fn bs_rijndael256_vaes_ctr32;
extern const bs_block_cipher bs_present80_avx512;
extern const bs_block_cipher bs_present128_avx512;
extern const bs_ctr32_fn bs_present80_avx512_ctr32;
extern const bs_ctr32_fn bs_present128_avx512_ctr32;
extern const bs_block_cipher bs_gift64_avx512;
extern const bs_block_cipher bs_gift128_avx512;
extern const bs_ctr32_fn bs_gift64_avx512_ctr32;
extern const bs_ctr32_fn bs_gift128_avx512_ctr32;
extern const bs_block_cipher bs_skinny128_128_avx512;
extern const bs_block_cipher bs_skinny128_256_avx512;
extern const bs_block_cipher bs_skinny128_384_avx512;
extern const bs_ctr32_fn bs_skinny128_128_avx512_ctr32;
extern const bs_ctr32_fn bs_skinny128_256_avx512_ctr32;
extern const bs_ctr32_fn bs_skinny128_384_avx512_ctr32;

#ifdef __cplusplus
}
#endif

#endif
