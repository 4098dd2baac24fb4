/*
 * GIFT-64 and GIFT-128, 512 blocks per pass on zmm registers (x86-64 with AVX-512): the rounds,
 * passes and drivers of gift_wide.inc.h on bs_v512.h's words.
 */
#include "../bitslice.h"
#include "../bs_cpu.h"
#include "gift.h"

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
#include "gift_wide.inc.h"
#undef BS_W
#undef BS_SFX

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* The key schedule is bs64's (it is what the narrow path runs on). */
static void g64_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_gift64_bs64.set_key(ks, key);
}

static void g128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_gift128_bs64.set_key(ks, key);
}

/* The schedules are the bs64 cores', so are their compact keys. */
static int g64_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_gift64_bs64.export_round_keys(ks, out, nwords);
}

static int g128_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_gift128_bs64.export_round_keys(ks, out, nwords);
}

const bs_block_cipher bs_gift64_avx512 = {
    .name = "GIFT-64",
    .impl = "avx512",
    .level = BS_CPU_AVX512,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .set_key = g64_set_key,
    .encrypt = g64_encrypt,
    .export_round_keys = g64_export,
    .ctr32 = g64_ctr32,
};
const bs_block_cipher bs_gift128_avx512 = {
    .name = "GIFT-128",
    .impl = "avx512",
    .level = BS_CPU_AVX512,
    .key_len = 16,
    .block_len = 16,
    .lanes = 64,
    .set_key = g128_set_key,
    .encrypt = g128_encrypt,
    .export_round_keys = g128_export,
    .ctr32 = g128_ctr32,
};

#endif
