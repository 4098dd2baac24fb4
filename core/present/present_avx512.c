/*
 * PRESENT-80 and PRESENT-128, 512 blocks per pass on zmm registers (x86-64 with AVX-512): the
 * rounds, passes and drivers of present_wide.inc.h on bs_v512.h's words.
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "present.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl"))),                 \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl")
#endif

#include "../bs_v512.h"

#define BS_W bs_v8
#define BS_SFX v8
#include "present_wide.inc.h"
#undef BS_W
#undef BS_SFX

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* The key schedule is bs64's (it is what the narrow path runs on). */
static void p80_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_present80_bs64.set_key(ks, key);
}

static void p128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_present128_bs64.set_key(ks, key);
}

/* The schedules are the bs64 cores', so are their compact keys. */
static int p80_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_present80_bs64.export_round_keys(ks, out, nwords);
}

static int p128_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_present128_bs64.export_round_keys(ks, out, nwords);
}

const bs_block_cipher bs_present80_avx512 = {
    .name = "PRESENT-80",
    .impl = "avx512",
    .level = BS_CPU_AVX512,
    .key_len = 10,
    .block_len = 8,
    .lanes = 64,
    .set_key = p80_set_key,
    .encrypt = p80_encrypt,
    .export_round_keys = p80_export,
    .ctr32 = p80_ctr32,
};
const bs_block_cipher bs_present128_avx512 = {
    .name = "PRESENT-128",
    .impl = "avx512",
    .level = BS_CPU_AVX512,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .set_key = p128_set_key,
    .encrypt = p128_encrypt,
    .export_round_keys = p128_export,
    .ctr32 = p128_ctr32,
};

#endif
