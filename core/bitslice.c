/* bitslice.h's common functions: error strings, wipe, constant-time comparison. */
#include "bitslice.h"

const char *bs_strerror(int err)
{
    switch (err) {
    case BS_OK:
        return "success";
    case BS_ERR_KEY_LENGTH:
        return "wrong key length";
    case BS_ERR_IV_LENGTH:
        return "IV length not allowed";
    case BS_ERR_TAG_LENGTH:
        return "tag length not allowed (RIJNDAEL-256-GCM: 16..32 bytes, step 4; AES-GCM: 12..16)";
    case BS_ERR_DATA_LIMIT:
        return "data limit for this key and IV reached";
    case BS_ERR_COUNTER_WRAP:
        return "counter would wrap";
    case BS_ERR_STATE:
        return "operation not allowed in this state";
    case BS_ERR_AUTH:
        return "authentication failed: tag mismatch";
    case BS_ERR_ARG:
        return "invalid argument";
    default:
        return "unknown error";
    }
}

void bs_wipe(void *p, size_t n)
{
#if defined(__GNUC__) || defined(__clang__)
    /* The empty asm that reads p and clobbers memory keeps the memset from being elided. */
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--)
        *v++ = 0;
#endif
}

int bs_ct_memcmp(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = (const volatile uint8_t *)a;
    const volatile uint8_t *y = (const volatile uint8_t *)b;
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (uint32_t)(x[i] ^ y[i]);
    /* d in 0..255: (d - 1) >> 31 is 1 exactly when d == 0. */
    return (int)((d - 1) >> 31) - 1;
}
