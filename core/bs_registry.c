/*
 * The cipher registry (bitslice.h: bs_block_ciphers, bs_block_cipher_by_name): every
 * implementation compiled in, the preferred one for the build first. It only joins the lists of
 * the cipher folders the build made (bs_cipher_folders.h, from core/meson.build): each folder's
 * header lists its own, best first. Apart from bitslice.c because it includes every cipher's
 * header.
 */
#include "bitslice.h"
#include "bs_cpu.h"

#include "bs_cipher_folders.h"

/*
 * The host's implementations (x86-64 SIMD, then the 64-lane cores) come first, the 32-bit MCU
 * variants after them; a bare-metal build (BS_PREFER_MCU) lists the MCU variants first.
 */
const bs_block_cipher *const bs_block_ciphers[] = {
#if defined(BS_PREFER_MCU)
    BS_FOLDER_MCU_IMPLS BS_FOLDER_IMPLS NULL,
#else
    BS_FOLDER_IMPLS BS_FOLDER_MCU_IMPLS NULL,
#endif
};

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
