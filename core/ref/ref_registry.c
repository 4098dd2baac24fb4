#include <string.h>
#include <strings.h>

#include "ref.h"

bs_ref_encrypt_fn bs_ref_by_name(const char *name)
{
    static const struct {
        const char *name;
        bs_ref_encrypt_fn fn;
    } refs[] = {
#ifdef BS_HAVE_PRESENT
        {"PRESENT-80", bs_ref_present80_encrypt},
        {"PRESENT-128", bs_ref_present128_encrypt},
#endif
#ifdef BS_HAVE_GIFT
        {"GIFT-64", bs_ref_gift64_encrypt},
        {"GIFT-128", bs_ref_gift128_encrypt},
#endif
        {"RIJNDAEL-256", bs_ref_rijndael256_encrypt},
#ifdef BS_HAVE_SKINNY
        {"SKINNY-128-128", bs_ref_skinny128_128_encrypt},
        {"SKINNY-128-256", bs_ref_skinny128_256_encrypt},
        {"SKINNY-128-384", bs_ref_skinny128_384_encrypt},
#endif
#ifdef BS_HAVE_AES
        {"AES-128", bs_ref_aes128_encrypt},
        {"AES-256", bs_ref_aes256_encrypt},
#endif
#ifdef BS_HAVE_SPEEDY
        {"SPEEDY-5-192", bs_ref_speedy5_encrypt},
        {"SPEEDY-6-192", bs_ref_speedy6_encrypt},
        {"SPEEDY-7-192", bs_ref_speedy7_encrypt},
#endif
    };
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        if (strcasecmp(refs[i].name, name) == 0)
            return refs[i].fn;
    return NULL;
}

static size_t block_len_of(const char *cipher)
{
    if (strncasecmp(cipher, "RIJNDAEL-256", 12) == 0)
        return 32;
    if (strncasecmp(cipher, "GIFT-128", 8) == 0 || strncasecmp(cipher, "AES-", 4) == 0)
        return 16;
    if (strncasecmp(cipher, "SKINNY-128", 10) == 0)
        return 16;
    if (strncasecmp(cipher, "SPEEDY-", 7) == 0)
        return 24;
    return 8;
}

void bs_ref_ctr(const char *cipher, const uint8_t *key, const uint8_t *iv, const uint8_t *in,
                uint8_t *out, size_t len)
{
    bs_ref_encrypt_fn enc = bs_ref_by_name(cipher);
    size_t bl = block_len_of(cipher);
    uint8_t ctr[32] = {0}, ks[32];
    memcpy(ctr, iv, bl > 16 ? 16 : bl); /* IV || 0^(bl - 16) past 128 bits */
    for (size_t off = 0; off < len; off += bl) {
        enc(key, ctr, ks);
        for (size_t i = 0; i < bl && off + i < len; i++)
            out[off + i] = in[off + i] ^ ks[i];
        for (size_t i = bl; i-- > 0;)
            if (++ctr[i] != 0)
                break;
    }
}
