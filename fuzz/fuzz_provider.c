/*
 * libFuzzer target for the bitslice provider, after OpenSSL's fuzz/provider.c: every algorithm
 * the provider offers (enumerated, not listed), every settable and gettable parameter of the
 * algorithm, of the context and of the provider itself, with values, types and sizes from the
 * input (the declared type mostly, sometimes another one, odd sizes, unknown keys), across every
 * state of a context (fresh, keyed, IV set, mid-stream, finished) and both directions: the input
 * drives a sequence of EVP calls (inits with and without key or IV and direction flips, params,
 * AAD, updates of any size, final, tag get/set, copies, EVP_Cipher). Then, on the same fuzzed
 * context, a message is encrypted under a fresh key and IV and decrypted back. The provider is
 * linked in and registered as a built-in, so its code is instrumented with the target.
 *
 * Besides the sanitizers, three properties are checked: a successful update returns as many
 * bytes as it got, a context copy continues exactly like the original, and whatever the fuzzed
 * history, an encryption that succeeds decrypts back to its plaintext (and its tag verifies).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#define MAX_CIPHERS 64

static OSSL_LIB_CTX *libctx;
static OSSL_PROVIDER *prov;
static EVP_CIPHER *ciphers[MAX_CIPHERS];
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

static void add_cipher(EVP_CIPHER *c, void *arg)
{
    (void)arg;
    const OSSL_PROVIDER *p = EVP_CIPHER_get0_provider(c);
    if (nciphers < MAX_CIPHERS && p != NULL &&
        strcmp(OSSL_PROVIDER_get0_name(p), "bitslice") == 0 && EVP_CIPHER_up_ref(c))
        ciphers[nciphers++] = c;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL || !OSSL_PROVIDER_add_builtin(libctx, "bitslice", OSSL_provider_init) ||
        (prov = OSSL_PROVIDER_load(libctx, "bitslice")) == NULL)
        abort();
    EVP_CIPHER_do_all_provided(libctx, add_cipher, NULL);
    ERR_clear_error();
    if (nciphers < 12) /* every algorithm of docs/provider.md */
        abort();
    return 0;
}

/*
 * Params for a settable list: mostly of the declared type, sometimes another type, an odd size
 * or an unknown key. Never NULL data for a number (OpenSSL 3.0's own helpers crash on that, in
 * its default provider too: a caller bug, not the provider's).
 */
static size_t fuzz_set_params(const OSSL_PARAM *defs, reader *r, OSSL_PARAM *params,
                              uint64_t ints[16], unsigned uints[16], uint8_t octets[16][64],
                              char strs[16][32], double reals[16])
{
    size_t n = 0;
    for (const OSSL_PARAM *d = defs; d != NULL && d->key != NULL && n < 14; d++) {
        if (next8(r) & 1)
            continue;
        uint8_t kind = next8(r);
        unsigned type = kind < 224 ? d->data_type : (unsigned)(kind % 6) + 1;
        switch (type) {
        case OSSL_PARAM_INTEGER:
        case OSSL_PARAM_UNSIGNED_INTEGER: {
            /* small values mostly, sometimes anything, sometimes of another width */
            uint8_t v = next8(r);
            ints[n] = v < 200 ? next8(r) : (uint64_t)next16(r) << 48 | next16(r) << 16 | next16(r);
            params[n] = type == OSSL_PARAM_INTEGER
                            ? OSSL_PARAM_construct_int64(d->key, (int64_t *)&ints[n])
                            : OSSL_PARAM_construct_uint64(d->key, &ints[n]);
            if (v & 1) {
                uints[n] = (unsigned)ints[n];
                params[n] = OSSL_PARAM_construct_uint(d->key, &uints[n]);
            } else if ((v & 6) == 6) {
                params[n].data_size = 1 + next8(r) % 8; /* odd widths: 1..8 bytes */
            }
            break;
        }
        case OSSL_PARAM_REAL:
            reals[n] = (double)(int8_t)next8(r) / 3;
            params[n] = OSSL_PARAM_construct_double(d->key, &reals[n]);
            break;
        case OSSL_PARAM_UTF8_STRING: {
            size_t len = next8(r) % 31;
            take(r, (uint8_t *)strs[n], len);
            strs[n][len] = 0;
            params[n] = OSSL_PARAM_construct_utf8_string(d->key, strs[n], 0);
            break;
        }
        case OSSL_PARAM_OCTET_PTR:
        case OSSL_PARAM_UTF8_PTR:
        case OSSL_PARAM_OCTET_STRING:
        default: {
            size_t len = next8(r) % 65;
            take(r, octets[n], len);
            params[n] =
                OSSL_PARAM_construct_octet_string(d->key, (next8(r) & 7) ? octets[n] : NULL, len);
            break;
        }
        }
        n++;
    }
    if (next8(r) == 0xff) { /* a key nobody declared */
        ints[n] = next8(r);
        params[n] = OSSL_PARAM_construct_uint64("bitslice-no-such-param", &ints[n]);
        n++;
    }
    params[n] = OSSL_PARAM_construct_end();
    return n;
}

static void set_params(EVP_CIPHER_CTX *ctx, reader *r)
{
    OSSL_PARAM params[16];
    uint64_t ints[16];
    unsigned uints[16];
    uint8_t octets[16][64];
    char strs[16][32];
    double reals[16];
    fuzz_set_params(EVP_CIPHER_CTX_settable_params(ctx), r, params, ints, uints, octets, strs,
                    reals);
    EVP_CIPHER_CTX_set_params(ctx, params);
}

/*
 * Reads every param of a gettable list into buffers of fuzzed sizes (and sometimes of another
 * type); never a REAL with no data (a caller bug that crashes OpenSSL 3.0's own helpers).
 */
static void fuzz_get_params(const OSSL_PARAM *defs, reader *r, OSSL_PARAM *params,
                            uint64_t ints[16], uint8_t octets[16][300], char strs[16][300],
                            const void *ptrs[16])
{
    size_t n = 0;
    for (const OSSL_PARAM *d = defs; d != NULL && d->key != NULL && n < 15; d++) {
        uint8_t kind = next8(r);
        unsigned type = kind < 224 ? d->data_type : (unsigned)(kind % 7) + 1;
        switch (type) {
        case OSSL_PARAM_INTEGER:
        case OSSL_PARAM_UNSIGNED_INTEGER:
            params[n] = OSSL_PARAM_construct_uint64(d->key, &ints[n]);
            if (kind & 1)
                params[n].data_size = 1 + next8(r) % 8;
            break;
        case OSSL_PARAM_UTF8_STRING:
            params[n] =
                OSSL_PARAM_construct_utf8_string(d->key, strs[n], next8(r) % (sizeof strs[n] + 1));
            break;
        case OSSL_PARAM_OCTET_PTR:
            params[n] = OSSL_PARAM_construct_octet_ptr(d->key, (void **)&ptrs[n], 0);
            break;
        case OSSL_PARAM_UTF8_PTR:
            params[n] = OSSL_PARAM_construct_utf8_ptr(d->key, (char **)&ptrs[n], 0);
            break;
        case OSSL_PARAM_OCTET_STRING:
        default:
            params[n] = OSSL_PARAM_construct_octet_string(d->key, octets[n],
                                                          next8(r) % (sizeof octets[n] + 1));
            break;
        }
        n++;
    }
    params[n] = OSSL_PARAM_construct_end();
}

static void get_params(EVP_CIPHER_CTX *ctx, reader *r)
{
    OSSL_PARAM params[16];
    uint64_t ints[16];
    static uint8_t octets[16][300];
    static char strs[16][300];
    const void *ptrs[16];
    fuzz_get_params(EVP_CIPHER_CTX_gettable_params(ctx), r, params, ints, octets, strs, ptrs);
    EVP_CIPHER_CTX_get_params(ctx, params);
}

/* The algorithm's own params and the provider's, read the same way. */
static void get_algorithm_and_provider_params(EVP_CIPHER *c, reader *r)
{
    OSSL_PARAM params[16];
    uint64_t ints[16];
    static uint8_t octets[16][300];
    static char strs[16][300];
    const void *ptrs[16];
    fuzz_get_params(EVP_CIPHER_gettable_params(c), r, params, ints, octets, strs, ptrs);
    EVP_CIPHER_get_params(c, params);
    fuzz_get_params(OSSL_PROVIDER_gettable_params(prov), r, params, ints, octets, strs, ptrs);
    OSSL_PROVIDER_get_params(prov, params);
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

/*
 * Whatever the fuzzed history of ctx (its params, lengths and state), an encryption under a
 * fresh key and IV that succeeds decrypts back on the same context, and its tag verifies.
 */
static void die(const EVP_CIPHER *cipher, const char *what)
{
    fprintf(stderr, "%s: %s\n", EVP_CIPHER_get0_name(cipher), what);
    ERR_print_errors_fp(stderr);
    abort();
}

static void round_trip(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, reader *r)
{
    static uint8_t key[64], iv[300], aad[64], msg[1024], ct[1024 + 64], back[1024 + 64], tag[32];
    int gcm = EVP_CIPHER_get_mode(cipher) == EVP_CIPH_GCM_MODE, outl, n;
    size_t len = next16(r) % sizeof msg, alen = gcm ? next8(r) % sizeof aad : 0;
    take(r, key, sizeof key);
    take(r, iv, sizeof iv);
    take(r, aad, alen);
    take(r, msg, len);
    if (!gcm) { /* a counter block far from a wrap, which CTR refuses for 64-bit blocks */
        int ivl = EVP_CIPHER_get_iv_length(cipher);
        if (ivl >= 4)
            memset(iv + ivl - 4, 0, 4);
    }
    if (EVP_CIPHER_get_block_size(cipher) == 1 && EVP_CIPHER_get_iv_length(cipher) == 8) {
        /* the fuzzed per-context limit back at its default, which a caller may do */
        uint64_t blocks = (uint64_t)1 << 32;
        OSSL_PARAM lim[2] = {OSSL_PARAM_construct_uint64("limit64-blocks", &blocks),
                             OSSL_PARAM_construct_end()};
        if (!EVP_CIPHER_CTX_set_params(ctx, lim))
            die(cipher, "limit64-blocks could not be set back to 2^32");
    }
    ERR_clear_error();
    if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, 1, NULL))
        return; /* e.g. a fuzzed key length that the context keeps refusing */
    int tag_len = gcm ? EVP_CIPHER_CTX_get_tag_length(ctx) : 0;
    if (tag_len < 0 || tag_len > (int)sizeof tag)
        die(cipher, "tag length out of range");
    if ((alen && !EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)alen)) ||
        !EVP_CipherUpdate(ctx, ct, &outl, msg, (int)len) || (size_t)outl != len ||
        !EVP_CipherFinal_ex(ctx, ct + len, &n) || n != 0 ||
        (gcm && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, tag_len, tag) != 1))
        die(cipher, "a keyed context with a fresh IV did not encrypt");
    if (!EVP_CipherInit_ex2(ctx, NULL, key, iv, 0, NULL) ||
        (alen && !EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)alen)) ||
        !EVP_CipherUpdate(ctx, back, &outl, ct, (int)len) || (size_t)outl != len ||
        (gcm && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, tag_len, tag) != 1) ||
        !EVP_CipherFinal_ex(ctx, back + len, &n) || memcmp(back, msg, len) != 0)
        die(cipher, "the encryption did not decrypt back");
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
        switch (next8(&r) % 13) {
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
        case 11: { /* the other direction, with a key, an IV, both or neither */
            uint8_t how = next8(&r);
            enc = !enc;
            take(&r, key, sizeof key);
            take(&r, iv, sizeof iv);
            EVP_CipherInit_ex2(ctx, NULL, (how & 1) ? key : NULL, (how & 2) ? iv : NULL, enc, NULL);
            break;
        }
        case 12:
            get_algorithm_and_provider_params(cipher, &r);
            break;
        }
    }
    round_trip(ctx, cipher, &r);
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return 0;
}
