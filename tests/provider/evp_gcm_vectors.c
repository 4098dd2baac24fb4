/*
 * A user's program: public OpenSSL API only, no project header. Loads the bitslice provider
 * from the directory given as argv[1], fetches RIJNDAEL-256-GCM and reproduces the vectors of
 * docs/spec/rijndael256-gcm.md with 16- and 32-byte tags, with the default 28-byte IV and a
 * 12-byte IV, then decrypts them and checks that a modified tag is refused.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

struct vector {
    const char *what, *key, *iv, *aad, *pt, *ct, *tag;
};

#define SEQ00_32 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define SEQ40_20 "404142434445464748494a4b4c4d4e4f50515253"
#define SEQ60_61                                                                                   \
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d" \
    "8e8f909192939495969798999a9b9c"
#define ZERO32 "0000000000000000000000000000000000000000000000000000000000000000"
#define ZERO28 "00000000000000000000000000000000000000000000000000000000"

static const struct vector vectors[] = {
    {"spec #1", ZERO32, ZERO28, "", "", "",
     "4e76ca69967125a9636f3554229556f6e2b2351cb4fd10b4e052afd85bebdfa8"},
    {"spec #2", ZERO32, ZERO28, "", ZERO32,
     "ef42ba65727897318a81b564e150f752f165d2721df262b0d9e3f8a0dc8aadfb",
     "5fec7bc0ace6e5e20f41ca46c2c125ba06fce1697f84fee160ceb52ec8d47737"},
    {"spec #3", SEQ00_32, "202122232425262728292a2b2c2d2e2f303132333435363738393a3b", SEQ40_20,
     SEQ60_61,
     "ab258d48d1ad5b758b2284850e640c24101c5bad746d7df2374792fdb6afea8e284235d0b30196ccff4bd50768"
     "5ae5cf50ed27678b02611014e6432601",
     "0bf46e3651608d4416c0a460035da19c74a2325cfecca7e0cdc14dde88f026fd"},
    /*
     * Vector #3's inputs with a 12-byte IV (J0 through GHASH, spec step 4). The spec has no
     * 12-byte vector yet; these outputs come from core/ref/gcm256_ref.c, the byte-wise model
     * of the spec text, which reproduces #1..#3.
     */
    {"12-byte IV", SEQ00_32, "202122232425262728292a2b", SEQ40_20, SEQ60_61,
     "e16abcde4558d520ca3377624a3b2dadb9115f18b2f1d9877e97fea753670aebf0c0fa3da46f1612bb6f621c7f"
     "edfa62908b212073509d946241188a69",
     "89c2afba0480980e60a4c0ed16c793db7429df3b06528f23c4cef26a4d627c8a"},
};

static size_t unhex(const char *hex, unsigned char *out)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
    return n;
}

static int gcm(EVP_CIPHER *cipher, int enc, const struct vector *v, size_t taglen,
               unsigned char *out, unsigned char *tag)
{
    unsigned char key[32], iv[64], aad[64], in[128];
    size_t ivlen = unhex(v->iv, iv), aadlen = unhex(v->aad, aad);
    size_t inlen = unhex(enc ? v->pt : v->ct, in);
    int outl, ok = 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    unhex(v->key, key);
    if (ctx == NULL || !EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc) ||
        !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)ivlen, NULL) ||
        !EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc))
        goto done;
    if (aadlen > 0 && !EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aadlen))
        goto done;
    if (!EVP_CipherUpdate(ctx, out, &outl, in, (int)inlen) || (size_t)outl != inlen)
        goto done;
    if (!enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)taglen, tag))
        goto done;
    if (!EVP_CipherFinal_ex(ctx, out + outl, &outl))
        goto done;
    if (enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)taglen, tag))
        goto done;
    ok = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

int main(int argc, char **argv)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov;
    EVP_CIPHER *cipher;
    int failures = 0, checks = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s <directory of bitslice.so>\n", argv[0]);
        return 2;
    }
    if (libctx == NULL || !OSSL_PROVIDER_set_default_search_path(libctx, argv[1]) ||
        (prov = OSSL_PROVIDER_load(libctx, "bitslice")) == NULL ||
        (cipher = EVP_CIPHER_fetch(libctx, "RIJNDAEL-256-GCM", NULL)) == NULL) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const struct vector *v = &vectors[i];
        unsigned char ct[128], pt[128], want_ct[128], want_pt[128], tag[32], want_tag[32];
        size_t ctlen = unhex(v->ct, want_ct);
        unhex(v->pt, want_pt);
        unhex(v->tag, want_tag);
        for (size_t taglen = 16; taglen <= 32; taglen += 16) {
            int ok = gcm(cipher, 1, v, taglen, ct, tag) && memcmp(ct, want_ct, ctlen) == 0 &&
                     memcmp(tag, want_tag, taglen) == 0;
            ok = ok && gcm(cipher, 0, v, taglen, pt, tag) && memcmp(pt, want_pt, ctlen) == 0;
            tag[taglen - 1] ^= 0x80;
            ok = ok && !gcm(cipher, 0, v, taglen, pt, tag);
            ERR_clear_error();
            printf("%s %s, %zu-byte IV, %zu-byte tag\n", ok ? "ok  " : "FAIL", v->what,
                   strlen(v->iv) / 2, taglen);
            failures += !ok;
            checks++;
        }
    }
    EVP_CIPHER_free(cipher);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    printf("%d of %d checks passed\n", checks - failures, checks);
    return failures != 0;
}
