/*
 * A user's program: the public OpenSSL API and no header of the library. Loads the bitslice
 * provider from the directory given as argv[1] and runs every GCM stanza of the project's
 * known-answer files (tests/kat/rijndael256-gcm.kat, gcm128.kat; read with the tests' one KAT
 * reader, tests/common/kat.c) through EVP, so the provider answers to the same vectors as the
 * core: encryption gives Ciphertext and the Tag's length of tag; decryption gives Plaintext and
 * accepts the tag, and refuses it with one bit changed (near its start, at its end); a "Result =
 * TAG_MISMATCH" stanza must be refused. Each runs with the message and AAD whole and split at odd
 * points (1 byte, 33 bytes). Stanzas of a cipher the provider does not offer are counted as
 * skipped; RIJNDAEL-256-GCM must be offered and checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "kat.h"

typedef struct vec {
    const uint8_t *key, *iv, *aad, *pt, *ct, *tag;
    size_t key_len, iv_len, aad_len, pt_len, ct_len, tag_len;
    int must_fail; /* Result = TAG_MISMATCH */
} vec;

/* Feeds n bytes in pieces of at most split bytes (0: whole); out may be NULL (AAD). */
static int feed(EVP_CIPHER_CTX *ctx, unsigned char *out, const uint8_t *in, size_t n, size_t split)
{
    size_t done = 0;
    while (done < n) {
        size_t k = split == 0 || n - done < split ? n - done : split;
        int outl = 0;
        if (!EVP_CipherUpdate(ctx, out != NULL ? out + done : NULL, &outl, in + done, (int)k))
            return 0;
        if (out != NULL && (size_t)outl != k)
            return 0;
        done += k;
    }
    return 1;
}

/*
 * One GCM operation: enc 1 encrypts v->pt into out and writes tag (v->tag_len bytes); enc 0
 * decrypts v->ct into out against tag. Returns 1 when EVP says it succeeded.
 */
static int gcm(EVP_CIPHER *cipher, int enc, const vec *v, size_t split, unsigned char *out,
               unsigned char *tag)
{
    const uint8_t *in = enc ? v->pt : v->ct;
    size_t inlen = enc ? v->pt_len : v->ct_len;
    int outl, ok = 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (ctx == NULL || !EVP_CipherInit_ex(ctx, cipher, NULL, NULL, NULL, enc) ||
        !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)v->iv_len, NULL) ||
        (int)v->key_len != EVP_CIPHER_CTX_get_key_length(ctx) ||
        !EVP_CipherInit_ex(ctx, NULL, NULL, v->key, v->iv, enc))
        goto done;
    if (!feed(ctx, NULL, v->aad, v->aad_len, split) || !feed(ctx, out, in, inlen, split))
        goto done;
    if (!enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)v->tag_len, tag))
        goto done;
    if (!EVP_CipherFinal_ex(ctx, out + inlen, &outl) || outl != 0)
        goto done;
    if (enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)v->tag_len, tag))
        goto done;
    ok = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

static int get(const bs_kat *k, const char *name, const uint8_t **p, size_t *len)
{
    *p = bs_kat_bytes(k, name, len);
    return *p != NULL;
}

/* 1: passed, 0: failed (printed). */
static int check(EVP_CIPHER *cipher, const bs_kat *k, const vec *v)
{
    static const size_t splits[] = {0, 1, 33};
    int ok = 1;
    size_t n = v->pt_len > v->ct_len ? v->pt_len : v->ct_len;
    unsigned char *out = (unsigned char *)malloc(n + 1), tag[64];
    if (out == NULL || v->tag_len > sizeof tag)
        ok = 0;
    for (size_t s = 0; ok && s < sizeof splits / sizeof splits[0]; s++) {
        const char *what = "";
        if (!v->must_fail) {
            if (!gcm(cipher, 1, v, splits[s], out, tag))
                what = "encryption refused";
            else if (memcmp(out, v->ct, v->ct_len) != 0)
                what = "wrong ciphertext";
            else if (memcmp(tag, v->tag, v->tag_len) != 0)
                what = "wrong tag";
            else if (!gcm(cipher, 0, v, splits[s], out, (unsigned char *)v->tag))
                what = "decryption refused the right tag";
            else if (memcmp(out, v->pt, v->pt_len) != 0)
                what = "wrong plaintext";
            else {
                /* One bit changed near the start, then at the end of the tag. */
                const size_t at[2] = {s, v->tag_len - 1 - s};
                for (int i = 0; i < 2 && what[0] == 0; i++) {
                    memcpy(tag, v->tag, v->tag_len);
                    tag[at[i]] ^= (unsigned char)(0x01 << (s + 4 * i));
                    if (gcm(cipher, 0, v, splits[s], out, tag))
                        what = "decryption accepted a changed tag";
                }
            }
        } else if (gcm(cipher, 0, v, splits[s], out, (unsigned char *)v->tag)) {
            what = "decryption accepted a wrong tag (Result = TAG_MISMATCH)";
        }
        if (what[0] != 0) {
            printf("FAIL %s:%d: %s, %zu-byte IV, %zu-byte tag, pieces of %zu: %s\n", k->file,
                   k->line, bs_kat_text(k, "Cipher"), v->iv_len, v->tag_len, splits[s], what);
            ok = 0;
        }
    }
    free(out);
    return ok;
}

int main(int argc, char **argv)
{
    static const char *files[] = {"rijndael256-gcm.kat", "gcm128.kat"};
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov;
    int failures = 0, checked = 0, skipped = 0, r256 = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s <directory of bitslice.so>\n", argv[0]);
        return 2;
    }
    if (libctx == NULL || !OSSL_PROVIDER_set_default_search_path(libctx, argv[1]) ||
        (prov = OSSL_PROVIDER_load(libctx, "bitslice")) == NULL) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        bs_kat_reader rd;
        bs_kat k;
        int rc;
        if (bs_kat_open(&rd, bs_kat_path(files[f])) != 0) {
            fprintf(stderr, "cannot open %s\n", bs_kat_path(files[f]));
            return 1;
        }
        while ((rc = bs_kat_next(&rd, &k)) == 1) {
            const char *name = bs_kat_text(&k, "Cipher");
            size_t nl = name != NULL ? strlen(name) : 0;
            if (nl < 4 || strcmp(name + nl - 4, "-GCM") != 0) {
                bs_kat_free(&k); /* block-cipher and field stanzas: not a GCM operation */
                continue;
            }
            vec v;
            memset(&v, 0, sizeof v);
            const char *res = bs_kat_text(&k, "Result");
            v.must_fail = res != NULL && strcmp(res, "TAG_MISMATCH") == 0;
            if (!get(&k, "Key", &v.key, &v.key_len) || !get(&k, "IV", &v.iv, &v.iv_len) ||
                !get(&k, "AAD", &v.aad, &v.aad_len) || !get(&k, "Plaintext", &v.pt, &v.pt_len) ||
                !get(&k, "Ciphertext", &v.ct, &v.ct_len) || !get(&k, "Tag", &v.tag, &v.tag_len) ||
                v.pt_len != v.ct_len || (res != NULL && !v.must_fail)) {
                printf("FAIL %s:%d: stanza without the GCM fields\n", k.file, k.line);
                failures++;
                bs_kat_free(&k);
                continue;
            }
            EVP_CIPHER *cipher = EVP_CIPHER_fetch(libctx, name, NULL);
            ERR_clear_error();
            if (cipher == NULL) {
                skipped++; /* not a cipher this provider offers */
            } else {
                int ok = check(cipher, &k, &v);
                failures += !ok;
                checked++;
                r256 += strcmp(name, "RIJNDAEL-256-GCM") == 0;
                EVP_CIPHER_free(cipher);
            }
            bs_kat_free(&k);
        }
        bs_kat_close(&rd);
        if (rc < 0) {
            printf("FAIL %s: unreadable\n", files[f]);
            failures++;
        }
    }
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    if (r256 == 0) {
        printf("FAIL no RIJNDAEL-256-GCM stanza was checked\n");
        failures++;
    }
    printf("%d of %d stanzas passed (%d RIJNDAEL-256-GCM); %d skipped (cipher not offered)\n",
           checked - failures, checked, r256, skipped);
    return failures != 0;
}
