/*
 * bs_target_begin.inc.h: the start of an x86-64 SIMD region (a template include, no guard).
 * A file whose code needs AVX2 or AVX-512 defines BS_TARGET_AVX2 or BS_TARGET_AVX512, includes
 * this, its templates and descriptors, and bs_target_end.inc.h: every function between is
 * compiled for that target while the rest of the build runs on any x86-64, and each descriptor
 * names BS_TARGET_LEVEL, so bs_block_cipher_by_name only chooses it where the CPU has it
 * (bs_cpu.h). The target strings are written here only. One region per file.
 *
 * Defines, for the templates (bs_common.h: BS_TPL):
 *   BS_TARGET_LEVEL  BS_CPU_AVX2 or BS_CPU_AVX512, the descriptors' level;
 *   BS_TARGET_NAME   avx2 or avx512: descriptor names (bs_present80_avx2) and the impl string
 *                    (BS_TARGET_IMPL);
 *   BS_TARGET_W, BS_TARGET_SFX   the widest vector word (bs_v256.h's bs_v4, bs_v512.h's bs_v8)
 *                    and the suffix of its bs_wide_* functions (v4, v8).
 */
#if defined(BS_TARGET_AVX512)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))),                 \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif
#define BS_TARGET_LEVEL BS_CPU_AVX512
#define BS_TARGET_NAME avx512
#define BS_TARGET_IMPL "avx512"
#define BS_TARGET_W bs_v8
#define BS_TARGET_SFX v8
#include "bs_v512.h"
#elif defined(BS_TARGET_AVX2)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define BS_TARGET_LEVEL BS_CPU_AVX2
#define BS_TARGET_NAME avx2
#define BS_TARGET_IMPL "avx2"
#define BS_TARGET_W bs_v4
#define BS_TARGET_SFX v4
#include "bs_v256.h"
#else
#error "define BS_TARGET_AVX2 or BS_TARGET_AVX512 before including bs_target_begin.inc.h"
#endif
