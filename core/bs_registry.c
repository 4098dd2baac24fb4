/*
 * The cipher registry (bitslice.h: bs_block_ciphers, bs_block_cipher_by_name): every
 * implementation compiled in, the preferred one for the build first. Apart from bitslice.c
 * because it includes every cipher's header, which all include bs_common.h.
 */
#include "bitslice.h"
#include "bs_cpu.h"

/*
 * The 32-bit MCU variants, listed with their cipher's folder, whose reference the tests need:
 * BS_HAVE_<NAME> when the folder builds its 64-lane core too, BS_HAVE_MCU_<NAME> when it leaves
 * it out (-Dhost_cores=disabled). A bare-metal build (BS_PREFER_MCU) lists them first.
 */
#if defined(BS_HAVE_PRESENT) || defined(BS_HAVE_MCU_PRESENT)
#define BS_MCU_LIST_PRESENT &bs_present80_bs32, &bs_present128_bs32,
#else
#define BS_MCU_LIST_PRESENT
#endif
#if defined(BS_GIFT64_THUMB2) && (defined(BS_HAVE_GIFT) || defined(BS_HAVE_MCU_GIFT))
/* core/gift/gift.h: GIFT-64 in Thumb-2 assembly (Cortex-M3/M4 builds), first: the fastest. */
#include "gift/gift.h"
#define BS_MCU_LIST_GIFT &bs_gift64_thumb2, &bs_gift64_fix32, &bs_gift128_fix32,
#elif defined(BS_HAVE_GIFT) || defined(BS_HAVE_MCU_GIFT)
#define BS_MCU_LIST_GIFT &bs_gift64_fix32, &bs_gift128_fix32,
#else
#define BS_MCU_LIST_GIFT
#endif
#if defined(BS_HAVE_RIJNDAEL256) || defined(BS_HAVE_MCU_RIJNDAEL256)
#define BS_MCU_LIST_R256 &bs_rijndael256_ct32,
#else
#define BS_MCU_LIST_R256
#endif
#if defined(BS_HAVE_SKINNY) || defined(BS_HAVE_MCU_SKINNY)
/* core/skinny/skinny.h: the 64-lane and the fixsliced 32-bit SKINNY-128 cores. */
#include "skinny/skinny.h"
#define BS_MCU_LIST_SKINNY                                                                         \
    &bs_skinny128_128_fix32, &bs_skinny128_256_fix32, &bs_skinny128_384_fix32,
#else
#define BS_MCU_LIST_SKINNY
#endif
/* core/speedy/speedy_bs32.c: SPEEDY-r-192 in the 6x32 bitsliced layout. */
#if defined(BS_HAVE_SPEEDY) || defined(BS_HAVE_MCU_SPEEDY)
#define BS_MCU_LIST_SPEEDY &bs_speedy7_bs32, &bs_speedy6_bs32, &bs_speedy5_bs32,
#else
#define BS_MCU_LIST_SPEEDY
#endif
#define BS_MCU_CIPHER_LIST                                                                         \
    BS_MCU_LIST_PRESENT BS_MCU_LIST_GIFT BS_MCU_LIST_R256 BS_MCU_LIST_SKINNY BS_MCU_LIST_SPEEDY

#ifdef BS_HAVE_AES
/* core/aes/aes.h: the 32-bit AES cores, the only AES there is (no 64-lane core). */
#include "aes/aes.h"
#endif

/* One entry per line; clang-format would indent the entries after a list macro. */
/* clang-format off */
const bs_block_cipher *const bs_block_ciphers[] = {
#if defined(BS_PREFER_MCU)
    BS_MCU_CIPHER_LIST
#endif
#ifdef BS_HAVE_PRESENT
#ifdef BS_HAVE_X86
    &bs_present80_avx512,
    &bs_present128_avx512,
    &bs_present80_avx2,
    &bs_present128_avx2,
#endif
    &bs_present80_bs64,
    &bs_present128_bs64,
#endif
#ifdef BS_HAVE_GIFT
#ifdef BS_HAVE_X86
    &bs_gift64_avx512,
    &bs_gift128_avx512,
    &bs_gift64_avx2,
    &bs_gift128_avx2,
#endif
    &bs_gift64_bs64,
    &bs_gift128_bs64,
#endif
#ifdef BS_HAVE_RIJNDAEL256
#ifdef BS_HAVE_X86
    /* Best first: bs_block_cipher_by_name takes the first one the CPU level allows. */
    &bs_rijndael256_vaes,
    &bs_rijndael256_aesni,
#endif
    &bs_rijndael256_bs64,
#endif
#ifdef BS_HAVE_SKINNY
#ifdef BS_HAVE_X86
    &bs_skinny128_128_avx512,
    &bs_skinny128_256_avx512,
    &bs_skinny128_384_avx512,
    &bs_skinny128_128_avx2,
    &bs_skinny128_256_avx2,
    &bs_skinny128_384_avx2,
#endif
    &bs_skinny128_128_bs64,
    &bs_skinny128_256_bs64,
    &bs_skinny128_384_bs64,
#endif
#ifdef BS_HAVE_SPEEDY
#ifdef BS_HAVE_X86
    &bs_speedy7_avx512,
    &bs_speedy6_avx512,
    &bs_speedy5_avx512,
    &bs_speedy7_avx2,
    &bs_speedy6_avx2,
    &bs_speedy5_avx2,
#endif
    &bs_speedy7_bs64,
    &bs_speedy6_bs64,
    &bs_speedy5_bs64,
#endif
#if !defined(BS_PREFER_MCU)
    BS_MCU_CIPHER_LIST
#endif
#ifdef BS_HAVE_AES
        &bs_aes128_fix32,
    &bs_aes256_fix32,
    &bs_aes128_semifix32,
    &bs_aes256_semifix32,
#endif
    NULL,
};
/* clang-format on */

static int ascii_tolower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

const bs_block_cipher *bs_block_cipher_by_name(const char *name)
{
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const char *a = bs_block_ciphers[i]->name, *b = name;
        while (*a && ascii_tolower(*a) == ascii_tolower(*b)) {
            a++;
            b++;
        }
        if (*a == 0 && *b == 0 && bs_impl_usable(bs_block_ciphers[i]))
            return bs_block_ciphers[i];
    }
    return NULL;
}

/* Provider names: a mode suffix, an optional hyphen between family and size, family aliases. */
const bs_block_cipher *bs_block_cipher_by_any_name(const char *name)
{
    static const char *const family_default[][2] = {
        {"PRESENT", "PRESENT-128"},
        {"GIFT", "GIFT-128"},
        {"SKINNY", "SKINNY-128-384"},
        {"SPEEDY", "SPEEDY-7-192"},
    };
    const bs_block_cipher *c = bs_block_cipher_by_name(name);
    char buf[40];
    size_t n = strlen(name);
    if (c != NULL || n + 2 > sizeof buf)
        return c;
    for (size_t i = 0; i <= n; i++)
        buf[i] = name[i] >= 'a' && name[i] <= 'z' ? (char)(name[i] - 'a' + 'A') : name[i];
    if (n > 4 && (strcmp(buf + n - 4, "-CTR") == 0 || strcmp(buf + n - 4, "-GCM") == 0))
        buf[n -= 4] = 0;
    if ((c = bs_block_cipher_by_name(buf)) != NULL)
        return c;
    /* "PRESENT128" -> "PRESENT-128", "SPEEDY7-192" -> "SPEEDY-7-192". */
    size_t k = 0;
    while (buf[k] >= 'A' && buf[k] <= 'Z')
        k++;
    if (k > 0 && buf[k] >= '0' && buf[k] <= '9') {
        memmove(buf + k + 1, buf + k, n - k + 1);
        buf[k] = '-';
        return bs_block_cipher_by_name(buf);
    }
    for (size_t i = 0; i < sizeof family_default / sizeof family_default[0]; i++)
        if (strcmp(buf, family_default[i][0]) == 0)
            return bs_block_cipher_by_name(family_default[i][1]);
    return NULL;
}
