/*
 * SKINNY-128-128/-256/-384, 256 blocks per pass on ymm registers (x86-64 with AVX2): the
 * rounds, packing, counter words and drivers of skinny_wide.inc.h on four 64-lane groups per
 * word, the template of skinny_avx512.c with half the lanes, for CPUs without AVX-512 and for
 * valgrind (which executes AVX2, so the ct suite covers this core). The key schedule and the
 * narrow path are skinny_bs64.c's. AVX2 has no three-input logic: the state stays complemented
 * as in bs64, so the S-box's steps are AND-XORs of two operations each, and with 16 ymm
 * registers no cell stays in registers across rounds. Logic, shifts and permutes only:
 * constant time.
 */
#include "skinny.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#define BS_TARGET_AVX2
#include "../bs_target_begin.inc.h"

/* Calls of fewer blocks (and a tail under that) run through the 64-lane core. */
#define BS_W bs_v4
#define BS_G 4
#define BS_SFX avx2
#include "skinny_ymm.inc.h"
#define SKW_TERNLOG 0
#define SKW_NRES 0
#define SKW_MIN 128
#include "skinny_wide.inc.h"

#include "../bs_target_end.inc.h"

/*
 * CTR's batch (bitslice.h): a ymm pass, on a stream's first call from 65 blocks on. Measured
 * (keystream of n blocks, rdtsc, Zen 5): 256 blocks 6682 TSC, 65 to 255 more (7514 to 12428),
 * 1 to 64 bs64's (6369).
 */
const bs_block_cipher bs_skinny128_128_avx2 = {
    .name = "SKINNY-128-128",
    .impl = "avx2",
    .level = BS_CPU_AVX2,
    .key_len = 16,
    .block_len = 16,
    .lanes = 64,
    .set_key = skinny128_128_set_key_avx2,
    .encrypt = skinny128_128_encrypt_avx2,
    .ctr32 = skinny128_128_ctr_avx2,
    .batch = 256,
    .batch_from = 65,
};
const bs_block_cipher bs_skinny128_256_avx2 = {
    .name = "SKINNY-128-256",
    .impl = "avx2",
    .level = BS_CPU_AVX2,
    .key_len = 32,
    .block_len = 16,
    .lanes = 64,
    .set_key = skinny128_256_set_key_avx2,
    .encrypt = skinny128_256_encrypt_avx2,
    .ctr32 = skinny128_256_ctr_avx2,
    .batch = 256,
    .batch_from = 65,
};
const bs_block_cipher bs_skinny128_384_avx2 = {
    .name = "SKINNY-128-384",
    .impl = "avx2",
    .level = BS_CPU_AVX2,
    .key_len = 48,
    .block_len = 16,
    .lanes = 64,
    .set_key = skinny128_384_set_key_avx2,
    .encrypt = skinny128_384_encrypt_avx2,
    .ctr32 = skinny128_384_ctr_avx2,
    .batch = 256,
    .batch_from = 65,
};

#endif
