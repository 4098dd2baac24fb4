/*
 * libFuzzer target for the bitslice provider, after OpenSSL's fuzz/provider.c: the input picks
 * an algorithm and then drives a sequence of EVP calls on one context (inits with and without
 * key or IV, settable params built from the cipher's own settable list, AAD, updates of any
 * size, final, tag get/set, gettable params, copies, EVP_Cipher). The provider is linked in and
 * registered as a built-in, so its code is instrumented with the target.
 *
 * Besides the sanitizers, two properties are checked: a successful update returns as many
 * bytes as it got, and a context copy continues exactly like the original.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

static const char *const names[] = {
    "RIJNDAEL-256-GCM", "RIJNDAEL-256-CTR", "GIFT-128-CTR",
    "GIFT-64-CTR",      "PRESENT-128-CTR",  "PRESENT-80-CTR",
};
#define NNAMES (sizeof names / sizeof names[0])

static OSSL_LIB_CTX *libctx;
static EVP_CIPHER *ciphers[NNAMES];
static size_t nciphers;

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static uint8_t next8(reader *r)
{
    if (r->left == 0)
        return 0;
    r->left--;
    return *r->p++;
}

static uint32_t next16(reader *r)
{
    uint32_t v = next8(r);
    return v << 8 | next8(r);
}

/* Up to n bytes of input (fewer when it runs out), zero-padded to n. */
static void take(reader *r, uint8_t *out, size_t n)
{
    size_t k = n < r->left ? n : r->left;
    memcpy(out, r->p, k);
    memset(out + k, 0, n - k);
    r->p += k;
    r->left -= k;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL || !OSSL_PROVIDER_add_builtin(libctx, "bitslice", OSSL_provider_init) ||
        OSSL_PROVIDER_load(libctx, "bitslice") == NULL)
        abort();
    for (size_t i = 0; i < NNAMES; i++)
        if ((ciphers[nciphers] = EVP_CIPHER_fetch(libctx, names[i], NULL)) != NULL)
            nciphers++;
    ERR_clear_error();
    if (nciphers == 0)
        abort();
    return 0;
}

/* Values for the cipher's settable params, shaped by their declared types. */
static void set_params(EVP_CIPHER_CTX *ctx, reader *r)
{
    const OSSL_PARAM *defs = EVP_CIPHER_CTX_settable_params(ctx);
    OSSL_PARAM params[16];
    uint64_t ints[16];
    unsigned uints[16];
    uint8_t octets[16][64];
    size_t n = 0;

    for (const OSSL_PARAM *d = defs; d != NULL && d->key != NULL && n < 15; d++) {
        if (next8(r) & 1)
            continue;
        switch (d->data_type) {
        case OSSL_PARAM_INTEGER:
        case OSSL_PARAM_UNSIGNED_INTEGER: {
            /* small values mostly, sometimes anything */
            uint8_t kind = next8(r);
            ints[n] =
                kind < 200 ? next8(r) : (uint64_t)next16(r) << 48 | next16(r) << 16 | next16(r);
            params[n] = d->data_type == OSSL_PARAM_INTEGER
                            ? OSSL_PARAM_construct_int64(d->key, (int64_t *)&ints[n])
                            : OSSL_PARAM_construct_uint64(d->key, &ints[n]);
            if (d->data_size == sizeof(unsigned) && (kind & 1)) {
                uints[n] = (unsigned)ints[n];
                params[n] = OSSL_PARAM_construct_uint(d->key, &uints[n]);
            }
            break;
        }
        case OSSL_PARAM_OCTET_STRING: {
            size_t len = next8(r) % 65;
            take(r, octets[n], len);
            params[n] =
                OSSL_PARAM_construct_octet_string(d->key, (next8(r) & 7) ? octets[n] : NULL, len);
            break;
        }
        default:
            continue;
        }
        n++;
    }
    params[n] = OSSL_PARAM_construct_end();
    EVP_CIPHER_CTX_set_params(ctx, params);
}

static void get_params(EVP_CIPHER_CTX *ctx, reader *r)
{
    const OSSL_PARAM *defs = EVP_CIPHER_CTX_gettable_params(ctx);
    OSSL_PARAM params[16];
    uint64_t ints[16];
    uint8_t octets[16][300];
    size_t n = 0;

    for (const OSSL_PARAM *d = defs; d != NULL && d->key != NULL && n < 15; d++) {
        switch (d->data_type) {
        case OSSL_PARAM_INTEGER:
        case OSSL_PARAM_UNSIGNED_INTEGER:
            params[n] = OSSL_PARAM_construct_uint64(d->key, &ints[n]);
            break;
        case OSSL_PARAM_OCTET_STRING:
            params[n] = OSSL_PARAM_construct_octet_string(d->key, octets[n],
                                                          next8(r) % (sizeof octets[n] + 1));
            break;
        default:
            continue;
        }
        n++;
    }
    params[n] = OSSL_PARAM_construct_end();
    EVP_CIPHER_CTX_get_params(ctx, params);
}

/* Feeds the same bytes to a context and its copy and compares what comes out. */
static void check_copy(EVP_CIPHER_CTX *ctx, reader *r)
{
    EVP_CIPHER_CTX *copy = EVP_CIPHER_CTX_new();
    static uint8_t in[512], a[512], b[512];
    int la = -1, lb = -1, ra, rb;
    size_t len = next16(r) % sizeof in;

    if (copy == NULL)
        return;
    if (EVP_CIPHER_CTX_copy(copy, ctx)) {
        take(r, in, len);
        ra = EVP_CipherUpdate(ctx, a, &la, in, (int)len);
        rb = EVP_CipherUpdate(copy, b, &lb, in, (int)len);
        if (ra != rb || (ra && (la != lb || memcmp(a, b, (size_t)la) != 0)))
            abort();
    }
    EVP_CIPHER_CTX_free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    static uint8_t key[64], iv[300], in[5000], out[5000 + 64], tag[64];
    EVP_CIPHER *cipher = ciphers[next8(&r) % nciphers];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int enc = next8(&r) & 1, outl;

    if (ctx == NULL || !EVP_CipherInit_ex2(ctx, cipher, NULL, NULL, enc, NULL))
        goto done;
    for (int ops = 0; ops < 64 && r.left > 0; ops++) {
        switch (next8(&r) % 11) {
        case 0:
            set_params(ctx, &r);
            break;
        case 1: /* key, and an IV or not */
            take(&r, key, sizeof key);
            take(&r, iv, sizeof iv);
            EVP_CipherInit_ex2(ctx, NULL, key, (next8(&r) & 1) ? iv : NULL, enc, NULL);
            break;
        case 2:
            take(&r, iv, sizeof iv);
            EVP_CipherInit_ex2(ctx, NULL, NULL, iv, enc, NULL);
            break;
        case 3:
        case 4: {
            size_t len = next16(&r) % sizeof in;
            take(&r, in, len);
            if (EVP_CipherUpdate(ctx, out, &outl, in, (int)len) && (size_t)outl != len)
                abort();
            break;
        }
        case 5: {
            size_t len = next8(&r);
            take(&r, in, len);
            EVP_CipherUpdate(ctx, NULL, &outl, in, (int)len);
            break;
        }
        case 6:
            EVP_CipherFinal_ex(ctx, out, &outl);
            break;
        case 7: {
            int len = next8(&r) % 40;
            take(&r, tag, (size_t)len);
            EVP_CIPHER_CTX_ctrl(
                ctx, (next8(&r) & 1) ? EVP_CTRL_AEAD_SET_TAG : EVP_CTRL_AEAD_GET_TAG, len, tag);
            break;
        }
        case 8:
            get_params(ctx, &r);
            break;
        case 9:
            check_copy(ctx, &r);
            break;
        case 10: { /* EVP_Cipher: NULL input finishes an AEAD message */
            size_t len = next16(&r) % sizeof in;
            take(&r, in, len);
            EVP_Cipher(ctx, out, (next8(&r) & 3) ? in : NULL, (unsigned)len);
            break;
        }
        }
    }
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return 0;
}
