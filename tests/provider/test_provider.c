/*
 * Suite 'provider': the EVP API through an OSSL_LIB_CTX that loads only bitslice.so from the
 * build directory. Known answers from tests/kat/, round trips, split streams, dup mid-stream,
 * params, negative cases, and agreement with the core's one-shot output on random inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "bitslice.h"
#include "kat.h"
#include "modes/ctr.h"
#include "modes/gcm256.h"
#include "testutil.h"

#ifndef BSPROV_DIR
#error "BSPROV_DIR: the build directory of bitslice.so"
#endif

typedef struct alg {
    const char *name;
    const char *aliases[3];
    const char *core;
    int key_len, iv_len, gcm;
} alg;

static const alg algs[] = {
    {"RIJNDAEL-256-GCM", {"RIJNDAEL256-GCM"}, "RIJNDAEL-256", 32, 28, 1},
    {"RIJNDAEL-256-CTR", {"RIJNDAEL256-CTR"}, "RIJNDAEL-256", 32, 16, 0},
    {"GIFT-128-CTR", {"GIFT-CTR", "GIFT128-CTR"}, "GIFT-128", 16, 16, 0},
    {"GIFT-64-CTR", {"GIFT64-CTR"}, "GIFT-64", 16, 8, 0},
    {"PRESENT-128-CTR", {"PRESENT-CTR", "PRESENT128-CTR"}, "PRESENT-128", 16, 8, 0},
    {"PRESENT-80-CTR", {"PRESENT80-CTR"}, "PRESENT-80", 10, 8, 0},
    {"SKINNY-128-384-CTR", {"SKINNY-CTR", "SKINNY128-384-CTR"}, "SKINNY-128-384", 48, 16, 0},
    {"SKINNY-128-256-CTR", {"SKINNY128-256-CTR"}, "SKINNY-128-256", 32, 16, 0},
    {"SKINNY-128-128-CTR", {"SKINNY128-128-CTR"}, "SKINNY-128-128", 16, 16, 0},
    {"SPEEDY-7-192-CTR", {"SPEEDY-CTR", "SPEEDY7-192-CTR"}, "SPEEDY-7-192", 24, 16, 0},
    {"SPEEDY-6-192-CTR", {"SPEEDY6-192-CTR"}, "SPEEDY-6-192", 24, 16, 0},
    {"SPEEDY-5-192-CTR", {"SPEEDY5-192-CTR"}, "SPEEDY-5-192", 24, 16, 0},
};
#define NALGS (sizeof algs / sizeof algs[0])

/* Set by the 'valgrind' test setup: every 7th length only in the round trips. */
static size_t length_step = 1;
static OSSL_LIB_CTX *libctx;
static OSSL_PROVIDER *prov;
static EVP_CIPHER *ciphers[NALGS];
static int navailable;

/* ---- helpers ---- */

static int group_setup(void **state)
{
    (void)state;
    bs_test_seed();
    if (getenv("BS_VALGRIND_QUICK") != NULL)
        length_step = 7;
    libctx = OSSL_LIB_CTX_new();
    if (libctx == NULL || !OSSL_PROVIDER_set_default_search_path(libctx, BSPROV_DIR))
        return -1;
    prov = OSSL_PROVIDER_load(libctx, "bitslice");
    if (prov == NULL) {
        ERR_print_errors_fp(stderr);
        return -1;
    }
    for (size_t i = 0; i < NALGS; i++) {
        /* A cipher is offered exactly when its core (and, for GCM, the mode) is compiled in. */
        int have = bs_block_cipher_by_name(algs[i].core) != NULL;
        ciphers[i] = EVP_CIPHER_fetch(libctx, algs[i].name, "provider=bitslice");
        ERR_clear_error();
        if (have != (ciphers[i] != NULL)) {
            fprintf(stderr, "%s: core present %d, cipher fetched %d\n", algs[i].name, have,
                    ciphers[i] != NULL);
            return -1;
        }
        if (ciphers[i] == NULL)
            printf("# %s: not built (core %s absent)\n", algs[i].name, algs[i].core);
        else
            navailable++;
    }
    return navailable > 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < NALGS; i++)
        EVP_CIPHER_free(ciphers[i]);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    return 0;
}

static const bs_block_cipher *core_of(size_t i)
{
    return bs_block_cipher_by_name(algs[i].core);
}

static size_t index_of(const char *name)
{
    for (size_t i = 0; i < NALGS; i++)
        if (strcmp(algs[i].name, name) == 0)
            return i;
    return NALGS;
}

/* Drains the error queue; fails unless one of its messages contains the text. */
static void expect_error(const char *contains)
{
    const char *data = NULL;
    int flags = 0, found = 0;
    char seen[1024] = "";
    while (ERR_get_error_all(NULL, NULL, NULL, &data, &flags) != 0) {
        if (data == NULL || !(flags & ERR_TXT_STRING))
            continue;
        if (strstr(data, contains) != NULL)
            found = 1;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s\"%s\"", n ? ", " : "", data);
    }
    if (!found)
        fail_msg("expected an error containing \"%s\", got [%s]", contains, seen);
}

/* CTR encryption through EVP in pieces: sizes from piece(), or one call when piece is NULL. */
static void evp_ctr(size_t i, int enc, const uint8_t *key, const uint8_t *iv, const uint8_t *in,
                    uint8_t *out, size_t len, size_t (*piece)(size_t left))
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;
    assert_non_null(ctx);
    assert_int_equal(EVP_CipherInit_ex2(ctx, ciphers[i], key, iv, enc, NULL), 1);
    size_t off = 0;
    do {
        size_t n = piece ? piece(len - off) : len - off;
        assert_int_equal(EVP_CipherUpdate(ctx, out + off, &outl, in + off, (int)n), 1);
        assert_int_equal((size_t)outl, n);
        off += n;
    } while (off < len);
    assert_int_equal(EVP_CipherFinal_ex(ctx, out + off, &outl), 1);
    assert_int_equal(outl, 0);
    EVP_CIPHER_CTX_free(ctx);
}

/* GCM through EVP; returns 1 when final succeeded. tag is read (enc) or checked (dec). */
static int evp_gcm(size_t i, int enc, const uint8_t *key, const uint8_t *iv, size_t iv_len,
                   const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out, size_t len,
                   uint8_t *tag, size_t tag_len, size_t (*piece)(size_t left))
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl, ok;
    assert_non_null(ctx);
    assert_int_equal(EVP_CipherInit_ex2(ctx, ciphers[i], NULL, NULL, enc, NULL), 1);
    assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)iv_len, NULL), 1);
    assert_int_equal(EVP_CipherInit_ex2(ctx, NULL, key, iv, enc, NULL), 1);
    size_t off = 0;
    while (off < aad_len) {
        size_t n = piece ? piece(aad_len - off) : aad_len - off;
        assert_int_equal(EVP_CipherUpdate(ctx, NULL, &outl, aad + off, (int)n), 1);
        off += n;
    }
    off = 0;
    while (off < len) {
        size_t n = piece ? piece(len - off) : len - off;
        assert_int_equal(EVP_CipherUpdate(ctx, out + off, &outl, in + off, (int)n), 1);
        assert_int_equal((size_t)outl, n);
        off += n;
    }
    if (!enc)
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_len, tag), 1);
    ok = EVP_CipherFinal_ex(ctx, out + len, &outl);
    if (ok && enc)
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)tag_len, tag), 1);
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* The core's one-shot output: the oracle for the provider's glue. */
static void core_ctr(size_t i, const uint8_t *key, const uint8_t *iv, const uint8_t *in,
                     uint8_t *out, size_t len)
{
    static bs_ctr_ctx c;
    const bs_block_cipher *bc = core_of(i);
    assert_int_equal(bs_ctr_set_key(&c, bc, key, bc->key_len), BS_OK);
    assert_int_equal(bs_ctr_set_iv(&c, iv, bs_ctr_iv_len(bc)), BS_OK);
    assert_int_equal(bs_ctr_crypt(&c, out, in, len), BS_OK);
    bs_ctr_clear(&c);
}

static void core_gcm(const uint8_t *key, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                     size_t aad_len, const uint8_t *in, uint8_t *out, size_t len, uint8_t *tag,
                     size_t tag_len)
{
    static bs_gcm256_ctx c;
    assert_int_equal(bs_gcm256_set_key(&c, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    assert_int_equal(bs_gcm256_set_iv(&c, iv, iv_len), BS_OK);
    assert_int_equal(bs_gcm256_aad(&c, aad, aad_len), BS_OK);
    assert_int_equal(bs_gcm256_encrypt(&c, out, in, len), BS_OK);
    assert_int_equal(bs_gcm256_tag(&c, tag, tag_len), BS_OK);
    bs_gcm256_clear(&c);
}

static size_t piece_one(size_t left)
{
    (void)left;
    return 1;
}

static size_t piece_random(size_t left)
{
    size_t n = bs_test_below(4) == 0 ? bs_test_below(100) : bs_test_below((uint32_t)left + 1);
    return n > left ? left : n;
}

static size_t random_iv_len(void)
{
    static const size_t classes[] = {12, 28, 1, 32, 33, 64, 256};
    size_t r = bs_test_below(10);
    return r < 7 ? classes[r] : 1 + bs_test_below(256);
}

static size_t random_tag_len(void)
{
    return 16 + 4 * bs_test_below(5);
}

/* ---- tests ---- */

static void test_provider_params(void **state)
{
    (void)state;
    const char *name = NULL, *version = NULL, *buildinfo = NULL;
    int status = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, &name, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, &version, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, &buildinfo, 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &status),
        OSSL_PARAM_END,
    };
    assert_int_equal(OSSL_PROVIDER_get_params(prov, params), 1);
    assert_non_null(name);
    assert_non_null(strstr(name, "bitslice"));
    assert_non_null(version);
    assert_string_equal(version, BSPROV_VERSION);
    assert_non_null(buildinfo);
    assert_non_null(strstr(buildinfo, version));
    assert_int_equal(status, 1);
    /* Only this provider is loaded: OpenSSL's AES is not reachable here. */
    EVP_CIPHER *aes = EVP_CIPHER_fetch(libctx, "AES-256-CTR", NULL);
    assert_null(aes);
    ERR_clear_error();
}

static void test_names_and_sizes(void **state)
{
    (void)state;
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL)
            continue;
        const alg *a = &algs[i];
        for (size_t k = 0; k < 3 && a->aliases[k] != NULL; k++) {
            EVP_CIPHER *c = EVP_CIPHER_fetch(libctx, a->aliases[k], NULL);
            if (c == NULL)
                fail_msg("alias %s of %s not found", a->aliases[k], a->name);
            assert_true(EVP_CIPHER_is_a(c, a->name));
            EVP_CIPHER_free(c);
        }
        const EVP_CIPHER *c = ciphers[i];
        assert_string_equal(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), "bitslice");
        assert_int_equal(EVP_CIPHER_get_key_length(c), a->key_len);
        assert_int_equal(EVP_CIPHER_get_iv_length(c), a->iv_len);
        assert_int_equal(EVP_CIPHER_get_block_size(c), 1);
        assert_int_equal(EVP_CIPHER_get_mode(c), a->gcm ? EVP_CIPH_GCM_MODE : EVP_CIPH_CTR_MODE);
        assert_int_equal((EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0, a->gcm);
    }
}

/* One KAT stanza; returns 1 when it ran, 0 when its cipher is not built or not ours. */
static int run_kat(const bs_kat *k)
{
    const char *cname = bs_kat_text(k, "Cipher");
    const char *result = bs_kat_text(k, "Result");
    size_t klen, ivlen, plen, clen, alen = 0, tlen = 0;
    const uint8_t *key = bs_kat_bytes(k, "Key", &klen);
    const uint8_t *iv = bs_kat_bytes(k, "IV", &ivlen);
    const uint8_t *pt = bs_kat_bytes(k, "Plaintext", &plen);
    const uint8_t *ct = bs_kat_bytes(k, "Ciphertext", &clen);
    static uint8_t out[4096], zero[64];
    size_t i;

    if (cname == NULL)
        return 0;
    /* A stanza that starts from a whole counter block (no IV) has no EVP equivalent. */
    if (bs_kat_bytes(k, "Counter", NULL) != NULL)
        return 0;
    if ((i = index_of(cname)) < NALGS) {
        if (ciphers[i] == NULL)
            return 0;
        assert_non_null(key);
        assert_non_null(iv);
        assert_non_null(pt);
        assert_non_null(ct);
        assert_int_equal(plen, clen);
        assert_true(plen <= sizeof out);
        if (!algs[i].gcm) {
            evp_ctr(i, 1, key, iv, pt, out, plen, NULL);
            if (memcmp(out, ct, clen) != 0)
                fail_msg("%s KAT at %s:%d: ciphertext differs", cname, k->file, k->line);
            evp_ctr(i, 0, key, iv, ct, out, clen, piece_one);
            assert_memory_equal(out, pt, plen);
            return 1;
        }
        const uint8_t *aad = bs_kat_bytes(k, "AAD", &alen);
        const uint8_t *tag = bs_kat_bytes(k, "Tag", &tlen);
        uint8_t t[32];
        assert_non_null(aad);
        assert_non_null(tag);
        memcpy(t, tag, tlen);
        int mismatch = result != NULL && strcmp(result, "TAG_MISMATCH") == 0;
        if (!mismatch) {
            assert_int_equal(evp_gcm(i, 1, key, iv, ivlen, aad, alen, pt, out, plen, t, tlen, NULL),
                             1);
            if (memcmp(out, ct, clen) != 0 || memcmp(t, tag, tlen) != 0)
                fail_msg("%s KAT at %s:%d differs", cname, k->file, k->line);
        }
        int ok = evp_gcm(i, 0, key, iv, ivlen, aad, alen, ct, out, clen, t, tlen, piece_random);
        assert_int_equal(ok, !mismatch);
        if (mismatch)
            expect_error("tag mismatch");
        else
            assert_memory_equal(out, pt, plen);
        return 1;
    }
    /*
     * A block-cipher stanza is a CTR known answer too: with the counter block set to P and a
     * zero plaintext, the first keystream block is E_K(P). Rijndael-256 counts from IV || 0^16.
     */
    const bs_block_cipher *bc = bs_block_cipher_by_name(cname);
    if (bc == NULL || bs_kat_text(k, "Iterations") != NULL) /* iterated ECB is not CTR */
        return 0;
    char ctrname[64];
    snprintf(ctrname, sizeof ctrname, "%s-CTR", cname);
    if ((i = index_of(ctrname)) >= NALGS || ciphers[i] == NULL)
        return 0;
    assert_int_equal(plen, bc->block_len);
    size_t ivl = bs_ctr_iv_len(bc);
    for (size_t j = ivl; j < plen; j++)
        if (pt[j] != 0)
            return 0;
    evp_ctr(i, 1, key, pt, zero, out, bc->block_len, piece_one);
    if (memcmp(out, ct, clen) != 0)
        fail_msg("%s block KAT at %s:%d via CTR differs", cname, k->file, k->line);
    return 1;
}

static void test_kat_files(void **state)
{
    (void)state;
    static const char *files[] = {"ctr.kat", "rijndael256-gcm.kat", "block.kat"};
    int ran[NALGS] = {0};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        bs_kat_reader r;
        bs_kat k;
        int rc, n = 0, skipped = 0;
        assert_int_equal(bs_kat_open(&r, bs_kat_path(files[f])), 0);
        while ((rc = bs_kat_next(&r, &k)) == 1) {
            const char *cname = bs_kat_text(&k, "Cipher");
            if (run_kat(&k)) {
                n++;
                char ctrname[64];
                snprintf(ctrname, sizeof ctrname, "%s-CTR", cname);
                size_t i = index_of(cname) < NALGS ? index_of(cname) : index_of(ctrname);
                if (i < NALGS)
                    ran[i]++;
            } else {
                skipped++;
            }
            bs_kat_free(&k);
        }
        assert_int_equal(rc, 0);
        bs_kat_close(&r);
        printf("# %s: %d stanzas through EVP, %d not applicable or not built\n", files[f], n,
               skipped);
    }
    for (size_t i = 0; i < NALGS; i++)
        if (ciphers[i] != NULL && ran[i] == 0)
            fail_msg("%s is built but no known answer exercised it", algs[i].name);
}

/* Every length 0..1000: EVP one-shot equals the core, and decrypts back. */
static void test_roundtrip_lengths(void **state)
{
    (void)state;
    enum { MAX = 1000 };
    static uint8_t in[MAX + 32], out[MAX + 32], back[MAX + 32], ref[MAX + 32];
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL)
            continue;
        for (size_t len = 0; len <= MAX; len += length_step) {
            uint8_t key[BS_KEY_MAX], iv[256], aad[64], tag[32], rtag[32];
            bs_test_fill(key, sizeof key);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(in, len);
            if (!algs[i].gcm) {
                evp_ctr(i, 1, key, iv, in, out, len, NULL);
                core_ctr(i, key, iv, in, ref, len);
                if (memcmp(out, ref, len) != 0)
                    fail_msg("%s: EVP and core differ at length %zu", algs[i].name, len);
                evp_ctr(i, 0, key, iv, out, back, len, NULL);
                assert_memory_equal(back, in, len);
                continue;
            }
            size_t ivl = random_iv_len(), aadl = bs_test_below(65), tl = random_tag_len();
            bs_test_fill(aad, aadl);
            assert_int_equal(evp_gcm(i, 1, key, iv, ivl, aad, aadl, in, out, len, tag, tl, NULL),
                             1);
            core_gcm(key, iv, ivl, aad, aadl, in, ref, len, rtag, tl);
            if (memcmp(out, ref, len) != 0 || memcmp(tag, rtag, tl) != 0)
                fail_msg("%s: EVP and core differ at length %zu (IV %zu, AAD %zu, tag %zu)",
                         algs[i].name, len, ivl, aadl, tl);
            assert_int_equal(evp_gcm(i, 0, key, iv, ivl, aad, aadl, out, back, len, tag, tl, NULL),
                             1);
            assert_memory_equal(back, in, len);
        }
    }
}

/* 1-byte and random-size updates give the one-shot bytes. */
static void test_split_streams(void **state)
{
    (void)state;
    enum { MAX = 3000 };
    static uint8_t in[MAX], one[MAX], split[MAX], aad[300];
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL)
            continue;
        for (int iter = 0; iter < (length_step > 1 ? 10 : 40); iter++) {
            uint8_t key[BS_KEY_MAX], iv[256], t1[32], t2[32];
            size_t len = bs_test_below(MAX), ivl = algs[i].gcm ? random_iv_len() : 0;
            size_t aadl = bs_test_below(sizeof aad);
            size_t (*piece)(size_t) = iter % 2 ? piece_one : piece_random;
            if (piece == piece_one && len > 600)
                len = 600;
            bs_test_fill(key, sizeof key);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(in, len);
            bs_test_fill(aad, aadl);
            if (!algs[i].gcm) {
                evp_ctr(i, 1, key, iv, in, one, len, NULL);
                evp_ctr(i, 1, key, iv, in, split, len, piece);
            } else {
                assert_int_equal(evp_gcm(i, 1, key, iv, ivl, aad, aadl, in, one, len, t1, 32, NULL),
                                 1);
                assert_int_equal(
                    evp_gcm(i, 1, key, iv, ivl, aad, aadl, in, split, len, t2, 32, piece), 1);
                assert_memory_equal(t1, t2, 32);
            }
            if (memcmp(one, split, len) != 0)
                fail_msg("%s: split stream differs (length %zu, iteration %d)", algs[i].name, len,
                         iter);
        }
    }
}

/* EVP_CIPHER_CTX_copy in the middle of a stream: both contexts continue identically. */
static void test_dup_midstream(void **state)
{
    (void)state;
    enum { LEN = 777 };
    static uint8_t in[LEN], one[LEN], a[LEN], b[LEN], aad[40];
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL)
            continue;
        for (size_t cut = 0; cut < LEN; cut += 1 + bs_test_below(97)) {
            uint8_t key[BS_KEY_MAX], iv[32], t1[32], t2[32], t3[32];
            int outl;
            bs_test_fill(key, sizeof key);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(in, LEN);
            bs_test_fill(aad, sizeof aad);
            EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new(), *y = EVP_CIPHER_CTX_new();
            assert_int_equal(EVP_EncryptInit_ex2(x, ciphers[i], key, iv, NULL), 1);
            if (algs[i].gcm)
                assert_int_equal(EVP_EncryptUpdate(x, NULL, &outl, aad, sizeof aad), 1);
            assert_int_equal(EVP_EncryptUpdate(x, a, &outl, in, (int)cut), 1);
            assert_int_equal(EVP_CIPHER_CTX_copy(y, x), 1);
            memcpy(b, a, cut);
            /* the copy must not share state: finish and free the original first */
            assert_int_equal(EVP_EncryptUpdate(x, a + cut, &outl, in + cut, LEN - (int)cut), 1);
            assert_int_equal(EVP_EncryptFinal_ex(x, a + LEN, &outl), 1);
            if (algs[i].gcm)
                assert_int_equal(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 32, t1), 1);
            EVP_CIPHER_CTX_free(x);
            assert_int_equal(EVP_EncryptUpdate(y, b + cut, &outl, in + cut, LEN - (int)cut), 1);
            assert_int_equal(EVP_EncryptFinal_ex(y, b + LEN, &outl), 1);
            if (algs[i].gcm)
                assert_int_equal(EVP_CIPHER_CTX_ctrl(y, EVP_CTRL_AEAD_GET_TAG, 32, t2), 1);
            EVP_CIPHER_CTX_free(y);
            if (algs[i].gcm) {
                assert_int_equal(
                    evp_gcm(i, 1, key, iv, 28, aad, sizeof aad, in, one, LEN, t3, 32, NULL), 1);
                assert_memory_equal(t1, t3, 32);
                assert_memory_equal(t2, t3, 32);
            } else {
                evp_ctr(i, 1, key, iv, in, one, LEN, NULL);
            }
            if (memcmp(a, one, LEN) != 0 || memcmp(b, one, LEN) != 0)
                fail_msg("%s: stream differs after a copy at %zu", algs[i].name, cut);
        }
    }
}

/*
 * Long CTR streams through EVP, past the batches the provider computes ahead (ctr.h: up to 512
 * blocks kept for the next call): calls of 1 KiB (as `openssl speed` makes), of 1 .. 3 blocks and
 * of random sizes up to 20 KiB, a copy (EVP_CIPHER_CTX_copy) and a re-init with a new IV in the
 * middle; each context's bytes against the core's one-shot output.
 */
static void test_ctr_long_streams(void **state)
{
    (void)state;
    enum { LEN = 40000 };
    static uint8_t in[LEN], one[LEN], a[LEN], b[LEN], two[LEN];
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL || algs[i].gcm)
            continue;
        const size_t bl = core_of(i)->block_len;
        for (int iter = 0; iter < (length_step > 1 ? 1 : 3); iter++) {
            uint8_t key[BS_KEY_MAX], iv[32], iv2[32];
            int outl;
            bs_test_fill(key, sizeof key);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(iv2, sizeof iv2);
            bs_test_fill(in, LEN);
            core_ctr(i, key, iv, in, one, LEN);
            const size_t cut = 1 + bs_test_below(LEN / 2), reinit = cut + bs_test_below(LEN / 4);
            core_ctr(i, key, iv2, in + reinit, two + reinit, LEN - reinit);
            EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new(), *y = EVP_CIPHER_CTX_new();
            assert_int_equal(EVP_EncryptInit_ex2(x, ciphers[i], key, iv, NULL), 1);
            size_t off = 0;
            while (off < LEN) {
                size_t n = iter == 0   ? 1024
                           : iter == 1 ? 1 + bs_test_below(3 * (uint32_t)bl)
                                       : bs_test_below(20000);
                if (off < cut && off + n > cut)
                    n = cut - off;
                if (n > LEN - off)
                    n = LEN - off;
                if (off == cut) {
                    assert_int_equal(EVP_CIPHER_CTX_copy(y, x), 1);
                    memcpy(b, a, cut);
                }
                assert_int_equal(EVP_EncryptUpdate(x, a + off, &outl, in + off, (int)n), 1);
                off += n;
            }
            EVP_CIPHER_CTX_free(x);
            /* the copy: on with the stream, then a new IV under the same key */
            for (off = cut; off < LEN;) {
                size_t n = off < reinit ? reinit - off : 1 + bs_test_below(5000);
                if (n > LEN - off)
                    n = LEN - off;
                if (off == reinit)
                    assert_int_equal(EVP_EncryptInit_ex2(y, NULL, NULL, iv2, NULL), 1);
                assert_int_equal(EVP_EncryptUpdate(y, b + off, &outl, in + off, (int)n), 1);
                off += n;
            }
            EVP_CIPHER_CTX_free(y);
            if (memcmp(a, one, LEN) != 0)
                fail_msg("%s: long stream differs (calls of kind %d)", algs[i].name, iter);
            if (memcmp(b, one, reinit) != 0 || memcmp(b + reinit, two + reinit, LEN - reinit) != 0)
                fail_msg("%s: the copy at %zu differs (new IV at %zu)", algs[i].name, cut, reinit);
        }
    }
}

/* num and updated-iv report the position as OpenSSL's CTR does; num can be set. */
static void test_ctr_position_params(void **state)
{
    (void)state;
    static uint8_t zero[200], ks[232], out[200];
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL || algs[i].gcm)
            continue;
        const bs_block_cipher *bc = core_of(i);
        const size_t bl = bc->block_len;
        uint8_t key[BS_KEY_MAX], iv[16];
        bs_test_fill(key, sizeof key);
        bs_test_fill(iv, sizeof iv);
        evp_ctr(i, 1, key, iv, zero, ks, 200, NULL); /* the keystream itself */
        for (size_t done = 0; done < 3 * bl + 2; done++) {
            EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
            int outl;
            assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, iv, NULL), 1);
            assert_int_equal(EVP_EncryptUpdate(ctx, out, &outl, zero, (int)done), 1);
            assert_int_equal(EVP_CIPHER_CTX_get_num(ctx), (int)(done % bl));

            uint8_t expect[BS_BLOCK_MAX] = {0}, upd[BS_BLOCK_MAX];
            memcpy(expect, iv, bs_ctr_iv_len(bc));
            bs_ctr_add(expect, bl, (done + bl - 1) / bl);
            OSSL_PARAM p[] = {
                OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, upd, sizeof upd),
                OSSL_PARAM_END,
            };
            assert_int_equal(EVP_CIPHER_CTX_get_params(ctx, p), 1);
            assert_int_equal(p[0].return_size, bl);
            assert_memory_equal(upd, expect, bl);

            /* Setting num moves within the block that holds the position. */
            size_t j = bs_test_below((uint32_t)bl);
            size_t block_start = done % bl ? done - done % bl : done;
            if (j == 0 && done % bl != 0)
                block_start += bl;
            assert_int_equal(EVP_CIPHER_CTX_set_num(ctx, (int)j), 1);
            assert_int_equal(EVP_CIPHER_CTX_get_num(ctx), (int)j);
            assert_int_equal(EVP_EncryptUpdate(ctx, out, &outl, zero, 20), 1);
            if (memcmp(out, ks + block_start + j, 20) != 0)
                fail_msg("%s: set_num(%zu) after %zu bytes", algs[i].name, j, done);
            EVP_CIPHER_CTX_free(ctx);
        }
    }
}

static void test_gcm_params(void **state)
{
    (void)state;
    size_t i = index_of("RIJNDAEL-256-GCM");
    if (ciphers[i] == NULL)
        skip();
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    uint8_t key[BS_KEY_MAX] = {1}, iv[256] = {2}, got[256];
    size_t taglen = 0;
    assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], NULL, NULL, NULL), 1);
    assert_int_equal(EVP_CIPHER_CTX_get_iv_length(ctx), 28);
    OSSL_PARAM tp[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, &taglen), OSSL_PARAM_END};
    assert_int_equal(EVP_CIPHER_CTX_get_params(ctx, tp), 1);
    assert_int_equal(taglen, 32);
    for (size_t ivl = 1; ivl <= 256; ivl += 17) {
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)ivl, NULL), 1);
        assert_int_equal(EVP_CIPHER_CTX_get_iv_length(ctx), (int)ivl);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, iv, NULL), 1);
        assert_int_equal(EVP_CIPHER_CTX_get_original_iv(ctx, got, ivl), 1);
        assert_memory_equal(got, iv, ivl);
        assert_int_equal(EVP_CIPHER_CTX_get_updated_iv(ctx, got, ivl), 1);
        assert_memory_equal(got, iv, ivl);
    }
    EVP_CIPHER_CTX_free(ctx);
}

static void test_negative(void **state)
{
    (void)state;
    uint8_t key[BS_KEY_MAX] = {0}, iv[256] = {0}, buf[64] = {0}, tag[33] = {0};
    int outl;
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL)
            continue;
        const char *name = algs[i].name;
        char msg[128];
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

        /* wrong key length */
        assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], NULL, NULL, NULL), 1);
        assert_int_equal(EVP_CIPHER_CTX_set_key_length(ctx, algs[i].key_len + 1), 0);
        snprintf(msg, sizeof msg, "%s: key length %d not allowed (%d)", name, algs[i].key_len + 1,
                 algs[i].key_len);
        expect_error(msg);

        if (!algs[i].gcm) {
            /* wrong IV length */
            assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) > 0, 0);
            snprintf(msg, sizeof msg, "%s: IV length 12 not allowed (%d)", name, algs[i].iv_len);
            expect_error(msg);
            /* no IV */
            assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL), 1);
            assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 5), 0);
            snprintf(msg, sizeof msg, "%s: no IV set", name);
            expect_error(msg);
            /* counter wrap: the last counter value, then one byte more */
            const bs_block_cipher *bc = core_of(i);
            uint8_t top[16];
            memset(top, 0xff, sizeof top);
            if (bc->block_len <= 16) { /* wider blocks count from IV || 0: no wrap in reach */
                assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, top, NULL), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)bc->block_len), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 1), 0);
                expect_error("counter would wrap");
            }
            /* data limit of 64-bit blocks, from a context param */
            if (bc->block_len == 8) {
                uint64_t lim = 3;
                OSSL_PARAM p[] = {OSSL_PARAM_uint64("limit64-blocks", &lim), OSSL_PARAM_END};
                assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, iv, p), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 20), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 4), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 1), 0);
                snprintf(msg, sizeof msg, "%s: data limit reached", name);
                expect_error(msg);
                /*
                 * The limit counts per key: a new IV does not reset it; a key-only re-init
                 * continues the stream and so its count; a key with an IV starts afresh.
                 */
                assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 1), 0);
                expect_error("data limit reached");
                assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 1), 0);
                expect_error("data limit reached");
                assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, iv, NULL), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 24), 1);
                lim = 0;
                assert_int_equal(EVP_CIPHER_CTX_set_params(ctx, p), 0);
                expect_error("limit64-blocks must be 1..");
                /*
                 * Lowered mid-stream after a small update: the limit counts the blocks the
                 * stream used (2 here), not keystream the provider may have computed ahead.
                 */
                assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, iv, NULL), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 5), 1);
                lim = 2;
                assert_int_equal(EVP_CIPHER_CTX_set_params(ctx, p), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 11), 1);
                assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 1), 0);
                expect_error("data limit reached: at most 2 blocks");
            }
            EVP_CIPHER_CTX_free(ctx);
            continue;
        }

        /* GCM: IV lengths */
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 257, NULL) > 0, 0);
        expect_error("RIJNDAEL-256-GCM: IV length 257 not allowed (1..256)");
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 0, NULL) > 0, 0);
        expect_error("IV length 0 not allowed");
        /* tag lengths */
        assert_int_equal(EVP_DecryptInit_ex2(ctx, ciphers[i], key, iv, NULL), 1);
        for (int t = 0; t <= 33; t++) {
            int ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, t, tag) > 0;
            assert_int_equal(ok, t >= 16 && t <= 32 && t % 4 == 0);
            if (!ok && t > 0) {
                snprintf(msg, sizeof msg,
                         "RIJNDAEL-256-GCM: tag length %d not allowed (16..32, step 4)", t);
                expect_error(msg);
            }
            ERR_clear_error();
        }
        /* AAD after data */
        assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, iv, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, NULL, &outl, buf, 3), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 5), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, NULL, &outl, buf, 3), 0);
        expect_error("RIJNDAEL-256-GCM: AAD after data");
        /* tag before final, then after; then the IV is spent */
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0, 0);
        expect_error("RIJNDAEL-256-GCM: tag requested before final");
        assert_int_equal(EVP_EncryptFinal_ex(ctx, buf, &outl), 1);
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 17, tag) > 0, 0);
        expect_error("tag length 17 not allowed (16..32, step 4)");
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0, 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 5), 0);
        expect_error("IV is spent");
        /* bad tag: every bit of a 32-byte tag and of a 16-byte truncation counts */
        static uint8_t pt[100], ct[100];
        uint8_t good[32];
        assert_int_equal(evp_gcm(i, 1, key, iv, 28, NULL, 0, pt, ct, sizeof pt, good, 32, NULL), 1);
        for (int bit = 0; bit < 256; bit += 37) {
            uint8_t bad[32];
            memcpy(bad, good, 32);
            bad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            size_t tl = bit < 128 ? 16 : 32;
            assert_int_equal(evp_gcm(i, 0, key, iv, 28, NULL, 0, ct, buf, 50, bad, tl, NULL), 0);
            expect_error("RIJNDAEL-256-GCM: tag mismatch");
        }
        ct[3] ^= 1;
        assert_int_equal(evp_gcm(i, 0, key, iv, 28, NULL, 0, ct, pt, sizeof ct, good, 32, NULL), 0);
        expect_error("tag mismatch");
        /* decryption without a tag */
        assert_int_equal(EVP_DecryptInit_ex2(ctx, ciphers[i], key, iv, NULL), 1);
        assert_int_equal(EVP_DecryptFinal_ex(ctx, buf, &outl), 0);
        expect_error("no tag set");
        /* wrong key length at init through params is refused before the key is used */
        EVP_CIPHER_CTX_free(ctx);
    }
}

/*
 * The per-key block limit through EVP under odd-sized updates, new IVs and key-only re-inits,
 * against a model: an update of n bytes starts ceil((n - rest of the started block) / 8)
 * blocks; a new IV or a key-only re-init moves to a block boundary; the count goes on across
 * both (the key is the same) and only an init with a key and an IV starts it afresh; a refused
 * update changes nothing.
 */
static void test_limit_odd_updates(void **state)
{
    (void)state;
    bs_test_seed();
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL || algs[i].gcm || core_of(i)->block_len != 8)
            continue;
        const size_t bl = 8, kl = (size_t)EVP_CIPHER_get_key_length(ciphers[i]);
        uint8_t key[32] = {1}, iv[8] = {2}, buf[64];
        uint64_t lim = 40;
        OSSL_PARAM p[] = {OSSL_PARAM_uint64("limit64-blocks", &lim), OSSL_PARAM_END};
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        assert_true(kl <= sizeof key);
        int refused = 0;
        for (int round = 0; round < 20; round++) {
            assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, iv, p), 1);
            uint64_t used = 0; /* blocks started under this key */
            size_t pos = 0;    /* bytes used of the last started block (0: at a boundary) */
            for (int op = 0; op < 60; op++) {
                unsigned what = (unsigned)bs_test_below(10);
                if (what == 0) { /* a new IV: counts on */
                    iv[0] ^= 1;
                    assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL), 1);
                    pos = 0;
                    continue;
                }
                if (what == 1) { /* the key again, no IV: the stream and its count go on */
                    assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL), 1);
                    pos = 0;
                    continue;
                }
                size_t n = 1 + bs_test_below(2 * bl + 5);
                size_t take = pos == 0 ? 0 : (bl - pos < n ? bl - pos : n);
                uint64_t more = (n - take + bl - 1) / bl;
                int outl = -1;
                int ok = EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)n);
                if (used + more > lim) {
                    if (ok)
                        fail_msg("%s: round %d op %d: %zu bytes past the limit (%llu + %llu "
                                 "blocks) accepted",
                                 algs[i].name, round, op, n, (unsigned long long)used,
                                 (unsigned long long)more);
                    ERR_clear_error();
                    refused++;
                    continue;
                }
                if (!ok)
                    fail_msg("%s: round %d op %d: %zu bytes refused at %llu + %llu blocks",
                             algs[i].name, round, op, n, (unsigned long long)used,
                             (unsigned long long)more);
                assert_int_equal(outl, (int)n);
                used += more;
                pos = (pos + n) % bl;
            }
        }
        assert_true(refused > 0); /* the limit was reached, so the model was tested there */
        EVP_CIPHER_CTX_free(ctx);
    }
}

/* The data limit from the provider's config key, and a refused config value. */
static void write_conf(const char *path, const char *limit, const char *threshold)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "openssl_conf = init\n[init]\nproviders = provs\n[provs]\nbitslice = bs\n"
            "[bs]\nmodule = %s/bitslice.so\nactivate = 1\nlimit64-blocks = %s\n"
            "daemon-socket = /nonexistent/bitsliced.sock\noffload-threshold = %s\n",
            BSPROV_DIR, limit, threshold);
    fclose(f);
}

/* The provider's status param in a library context. */
static int provider_status(OSSL_LIB_CTX *lc)
{
    OSSL_PROVIDER *p = OSSL_PROVIDER_load(lc, "bitslice");
    int status = -1;
    OSSL_PARAM params[] = {OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &status), OSSL_PARAM_END};
    assert_non_null(p);
    assert_int_equal(OSSL_PROVIDER_get_params(p, params), 1);
    OSSL_PROVIDER_unload(p);
    return status;
}

static void test_config_limit(void **state)
{
    (void)state;
    size_t i = index_of("PRESENT-80-CTR");
    if (ciphers[i] == NULL)
        i = index_of("GIFT-64-CTR");
    if (i >= NALGS || ciphers[i] == NULL)
        skip();
    char path[] = "/tmp/bsprov-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);

    write_conf(path, "2", "65536");
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    assert_int_equal(OSSL_LIB_CTX_load_config(lc, path), 1);
    assert_int_equal(provider_status(lc), 1);
    EVP_CIPHER *c = EVP_CIPHER_fetch(lc, algs[i].name, NULL);
    assert_non_null(c);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    uint8_t key[16] = {0}, iv[8] = {0}, buf[32] = {0};
    uint64_t lim = 0;
    int outl;
    assert_int_equal(EVP_EncryptInit_ex2(ctx, c, key, iv, NULL), 1);
    OSSL_PARAM p[] = {OSSL_PARAM_uint64("limit64-blocks", &lim), OSSL_PARAM_END};
    assert_int_equal(EVP_CIPHER_CTX_get_params(ctx, p), 1);
    assert_int_equal(lim, 2);
    assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 16), 1);
    assert_int_equal(EVP_EncryptUpdate(ctx, buf, &outl, buf, 1), 0);
    expect_error("data limit reached: at most 2 blocks");
    lim = 3; /* a context may lower the limit, never raise it */
    assert_int_equal(EVP_CIPHER_CTX_set_params(ctx, p), 0);
    expect_error("limit64-blocks must be 1..2");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    OSSL_LIB_CTX_free(lc);

    /*
     * A refused value disables the provider (status 0) and every new context says why:
     * OpenSSL 3.0 drops errors raised while a provider starts.
     */
    write_conf(path, "lots", "65536");
    lc = OSSL_LIB_CTX_new();
    assert_int_equal(OSSL_LIB_CTX_load_config(lc, path), 1);
    assert_int_equal(provider_status(lc), 0);
    c = EVP_CIPHER_fetch(lc, algs[i].name, NULL);
    assert_non_null(c);
    ctx = EVP_CIPHER_CTX_new();
    assert_int_equal(EVP_EncryptInit_ex2(ctx, c, key, iv, NULL), 0);
    expect_error("bitslice: config limit64-blocks = 'lots' not allowed (1..4294967296 blocks)");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    OSSL_LIB_CTX_free(lc);

    write_conf(path, "4294967296", "lots");
    lc = OSSL_LIB_CTX_new();
    assert_int_equal(OSSL_LIB_CTX_load_config(lc, path), 1);
    assert_int_equal(provider_status(lc), 0);
    c = EVP_CIPHER_fetch(lc, algs[i].name, NULL);
    assert_non_null(c);
    ctx = EVP_CIPHER_CTX_new();
    assert_int_equal(EVP_EncryptInit_ex2(ctx, c, key, iv, NULL), 0);
    expect_error("bitslice: config offload-threshold = 'lots' is not a byte count");
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    OSSL_LIB_CTX_free(lc);
    remove(path);
}

/* A CTR context after key, IV and `used` bytes of zeros; out gets them. */
static EVP_CIPHER_CTX *ctr_started(size_t i, const uint8_t *key, const uint8_t *iv, uint8_t *out,
                                   size_t used)
{
    static const uint8_t zeros[256];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl;
    assert_non_null(ctx);
    assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, iv, NULL), 1);
    assert_int_equal(EVP_EncryptUpdate(ctx, out, &outl, zeros, (int)used), 1);
    return ctx;
}

/*
 * A re-init without an IV never restarts the keystream: as OpenSSL's CTR, the counter goes on
 * from the next block boundary, under the new key if one is given (review H1).
 */
static void test_ctr_reinit_keeps_counter(void **state)
{
    (void)state;
    static const uint8_t zeros[256];
    uint8_t key[BS_KEY_MAX], key2[BS_KEY_MAX], iv[16], one[256], ref[256], got[256];
    int outl;
    for (size_t k = 0; k < sizeof key; k++) {
        key[k] = (uint8_t)(k * 7 + 1);
        key2[k] = (uint8_t)(k * 11 + 5);
    }
    for (size_t k = 0; k < sizeof iv; k++)
        iv[k] = (uint8_t)(0x40 + k);
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL || algs[i].gcm)
            continue;
        const size_t bl = core_of(i)->block_len;
        core_ctr(i, key, iv, zeros, one, sizeof one);

        /* init(NULL, NULL, NULL, NULL) after 5 bytes: the next block, not the IV again */
        EVP_CIPHER_CTX *ctx = ctr_started(i, key, iv, got, 5);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, NULL, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, got, &outl, zeros, 64), 1);
        assert_memory_equal(got, one + bl, 64);
        assert_memory_not_equal(got, one, 64);
        EVP_CIPHER_CTX_free(ctx);

        /* the same at a block boundary: no block is skipped */
        ctx = ctr_started(i, key, iv, got, 2 * bl);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, NULL, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, got, &outl, zeros, 64), 1);
        assert_memory_equal(got, one + 2 * bl, 64);
        EVP_CIPHER_CTX_free(ctx);

        /* a key-only re-init (same key or a new one) goes on at the next counter block */
        ctx = ctr_started(i, key, iv, got, 5);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, got, &outl, zeros, 64), 1);
        assert_memory_equal(got, one + bl, 64);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key2, NULL, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, got, &outl, zeros, 64), 1);
        core_ctr(i, key2, iv, zeros, ref, sizeof ref);
        /* bl + 64 bytes were used: the next block boundary (64 is no multiple of 24) */
        assert_memory_equal(got, ref + (bl + 64 + bl - 1) / bl * bl, 64);
        EVP_CIPHER_CTX_free(ctx);

        /* a new IV still restarts there */
        ctx = ctr_started(i, key, iv, got, 5);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, got, &outl, zeros, 64), 1);
        assert_memory_equal(got, one, 64);
        EVP_CIPHER_CTX_free(ctx);
    }
}

/* The legacy accessors ask for the IVs as octet pointers (review L1). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static void test_ctr_legacy_iv_accessors(void **state)
{
    (void)state;
    uint8_t key[BS_KEY_MAX] = {3}, iv[16], out[64], counter[32];
    for (size_t k = 0; k < sizeof iv; k++)
        iv[k] = (uint8_t)(0xf0 + k);
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL || algs[i].gcm)
            continue;
        const size_t bl = core_of(i)->block_len;
        EVP_CIPHER_CTX *ctx = ctr_started(i, key, iv, out, 40);
        /* updated-iv: the next counter block, IV || 0^16 for Rijndael-256, plus the blocks used */
        memset(counter, 0, sizeof counter);
        memcpy(counter, iv, (size_t)algs[i].iv_len);
        bs_ctr_add(counter, bl, (40 + bl - 1) / bl);
        const unsigned char *p = EVP_CIPHER_CTX_iv(ctx);
        assert_non_null(p);
        assert_memory_equal(p, counter, bl);
        p = EVP_CIPHER_CTX_iv_noconst(ctx);
        assert_non_null(p);
        assert_memory_equal(p, counter, bl);
        p = EVP_CIPHER_CTX_original_iv(ctx);
        assert_non_null(p);
        assert_memory_equal(p, iv, (size_t)algs[i].iv_len);
        /* the octet-string form gives the same bytes */
        uint8_t upd[32];
        assert_int_equal(EVP_CIPHER_CTX_get_updated_iv(ctx, upd, bl), 1);
        assert_memory_equal(upd, counter, bl);
        EVP_CIPHER_CTX_free(ctx);
    }
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* A failed init changes nothing: the old stream goes on as if it had not happened (review L2). */
static void test_failed_init_changes_nothing(void **state)
{
    (void)state;
    static const uint8_t zeros[256];
    uint8_t key[BS_KEY_MAX] = {9}, key2[BS_KEY_MAX] = {10}, iv[256] = {1}, iv2[256] = {2}, one[256],
            got[256];
    int outl;
    size_t bad = 7;
    for (size_t i = 0; i < NALGS; i++) {
        if (ciphers[i] == NULL)
            continue;
        OSSL_PARAM badkey[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &bad), OSSL_PARAM_END};
        if (!algs[i].gcm) {
            OSSL_PARAM badiv[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &bad), OSSL_PARAM_END};
            unsigned num = 99;
            OSSL_PARAM badnum[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num), OSSL_PARAM_END};
            core_ctr(i, key, iv, zeros, one, sizeof one);
            EVP_CIPHER_CTX *ctx = ctr_started(i, key, iv, got, 5);
            assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key2, iv2, badiv), 0);
            expect_error("IV length 7 not allowed");
            assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key2, iv2, badkey), 0);
            expect_error("key length 7 not allowed");
            assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key2, NULL, badnum), 0);
            expect_error("num must be below");
            assert_int_equal(EVP_EncryptUpdate(ctx, got + 5, &outl, zeros, 100), 1);
            assert_memory_equal(got, one, 105);
            EVP_CIPHER_CTX_free(ctx);
            continue;
        }
        /* GCM: a failed init with a new IV and key leaves the message going, same tag */
        uint8_t ct[64], tag[32], got_tag[32];
        assert_int_equal(evp_gcm(i, 1, key, iv, 28, NULL, 0, zeros, ct, 64, tag, 32, NULL), 1);
        EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
        assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, iv, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, got, &outl, zeros, 20), 1);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key2, iv2, badkey), 0);
        expect_error("key length 7 not allowed");
        size_t t = 5;
        OSSL_PARAM badtag[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, &t),
                               OSSL_PARAM_END};
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, badtag), 0);
        expect_error("tag length 5 not allowed");
        assert_int_equal(EVP_EncryptUpdate(ctx, got + 20, &outl, zeros, 44), 1);
        assert_int_equal(EVP_EncryptFinal_ex(ctx, got + 64, &outl), 1);
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 32, got_tag), 1);
        assert_memory_equal(got, ct, 64);
        assert_memory_equal(got_tag, tag, 32);
        EVP_CIPHER_CTX_free(ctx);
    }
}

/*
 * GCM encryption never starts a second message under a used IV: a re-init without an IV (key
 * only, or nothing) mid-message or after final leaves the context refusing to encrypt until a
 * new IV is given. Decryption may re-arm its IV under a new key (review H2).
 */
static void test_gcm_reinit_needs_new_iv(void **state)
{
    (void)state;
    static const uint8_t zeros[64];
    uint8_t key[BS_KEY_MAX] = {1}, iv[28] = {2}, iv2[28] = {3}, a[64], b[64], tag[32], ref[64],
            ref_tag[32];
    int outl;
    size_t i = index_of("RIJNDAEL-256-GCM");
    if (i == NALGS || ciphers[i] == NULL)
        skip();
    EVP_CIPHER_CTX *ctx;
    for (int how = 0; how < 4; how++) {
        ctx = EVP_CIPHER_CTX_new();
        assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, iv, NULL), 1);
        /* how 3: AAD only */
        assert_int_equal(EVP_EncryptUpdate(ctx, how == 3 ? NULL : a, &outl, zeros, 32), 1);
        if (how == 2)
            assert_int_equal(EVP_EncryptFinal_ex(ctx, a + 32, &outl), 1);
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, how == 1 ? NULL : key, NULL, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, b, &outl, zeros, 32), 0);
        expect_error("RIJNDAEL-256-GCM: a new IV is needed before encrypting again");
        assert_int_equal(EVP_EncryptUpdate(ctx, NULL, &outl, zeros, 3), 0);
        expect_error("a new IV is needed");
        assert_int_equal(EVP_EncryptFinal_ex(ctx, b, &outl), 0);
        expect_error("a new IV is needed");
        /* the IV is gone: the legacy accessor does not give the used one back */
        uint8_t got_iv[28];
        assert_int_equal(EVP_CIPHER_CTX_get_original_iv(ctx, got_iv, sizeof got_iv), 1);
        assert_memory_not_equal(got_iv, iv, sizeof iv);
        /* a new IV works, and gives the one-shot output */
        assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, NULL), 1);
        assert_int_equal(EVP_EncryptUpdate(ctx, b, &outl, zeros, 64), 1);
        assert_int_equal(EVP_EncryptFinal_ex(ctx, b, &outl), 1);
        assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 32, tag), 1);
        assert_int_equal(evp_gcm(i, 1, key, iv2, 28, NULL, 0, zeros, ref, 64, ref_tag, 32, NULL),
                         1);
        assert_memory_equal(b, ref, 64);
        assert_memory_equal(tag, ref_tag, 32);
        EVP_CIPHER_CTX_free(ctx);
    }

    /* nothing given yet: a re-init without an IV goes on with (or restarts) the message */
    ctx = EVP_CIPHER_CTX_new();
    assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, iv2, NULL), 1);
    assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, NULL, NULL), 1);
    assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, key, NULL, NULL), 1);
    assert_int_equal(EVP_EncryptUpdate(ctx, b, &outl, zeros, 64), 1);
    assert_int_equal(EVP_EncryptFinal_ex(ctx, b, &outl), 1);
    assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 32, tag), 1);
    assert_memory_equal(b, ref, 64);
    assert_memory_equal(tag, ref_tag, 32);
    EVP_CIPHER_CTX_free(ctx);

    /* key, then IV, in separate inits still starts one message */
    ctx = EVP_CIPHER_CTX_new();
    assert_int_equal(EVP_EncryptInit_ex2(ctx, ciphers[i], key, NULL, NULL), 1);
    assert_int_equal(EVP_EncryptInit_ex2(ctx, NULL, NULL, iv2, NULL), 1);
    assert_int_equal(EVP_EncryptUpdate(ctx, b, &outl, zeros, 64), 1);
    assert_memory_equal(b, ref, 64);
    EVP_CIPHER_CTX_free(ctx);

    /* decryption: a key-only re-init mid-message starts the message again under its IV */
    ctx = EVP_CIPHER_CTX_new();
    assert_int_equal(EVP_DecryptInit_ex2(ctx, ciphers[i], key, iv2, NULL), 1);
    assert_int_equal(EVP_DecryptUpdate(ctx, a, &outl, ref, 20), 1);
    assert_int_equal(EVP_DecryptInit_ex2(ctx, NULL, key, NULL, NULL), 1);
    assert_int_equal(EVP_DecryptUpdate(ctx, a, &outl, ref, 64), 1);
    assert_memory_equal(a, zeros, 64);
    assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 32, ref_tag), 1);
    assert_int_equal(EVP_DecryptFinal_ex(ctx, a, &outl), 1);
    EVP_CIPHER_CTX_free(ctx);
}

/*
 * Every re-init sequence, as a table: every sequence of up to four steps, and of five steps that
 * start with a key and an IV, over inits in both directions (with and without a key, with and
 * without a fresh IV), AAD, data and final, each from a new context. Two properties:
 * - no keystream block and no tag is released twice: every IV an init passes is new, and the
 *   plaintext and AAD are fixed, so a repeated output is a repeated (key, IV);
 * - once an encryption released anything under an IV (AAD, data or a tag), an encryption after
 *   any later init that passed no IV is refused (review F1: a decryption re-init re-armed the IV).
 * Under valgrind (BS_VALGRIND_QUICK) a fixed sample of the five-step sequences.
 */
enum { REINIT_INITS = 12, REINIT_STEPS = REINIT_INITS + 3, REINIT_MAX = 5 };

typedef struct reinit_run {
    uint8_t seen[REINIT_MAX * 2][32]; /* released keystream blocks and tags */
    size_t nseen;
    int spent;       /* an encryption released something since the last IV the caller passed */
    int init_since;  /* an init passed no IV since that release */
    unsigned iv_ctr; /* fresh IVs */
} reinit_run;

/* A sequence as "8,13,3,0,13", for failure messages. */
static const char *reinit_text(const int *seq, int len, char *out, size_t size)
{
    out[0] = 0;
    for (int j = 0; j < len; j++)
        snprintf(out + strlen(out), size - strlen(out), "%s%d", j ? "," : "", seq[j]);
    return out;
}

static void reinit_release(reinit_run *r, const uint8_t *v, size_t n, const char *what,
                           const int *seq, int len)
{
    uint8_t x[32] = {0};
    memcpy(x, v, n);
    for (size_t k = 0; k < r->nseen; k++) {
        if (memcmp(r->seen[k], x, 32) == 0) {
            char s[64];
            fail_msg("re-init sequence [%s]: a %s repeats an earlier output",
                     reinit_text(seq, len, s, sizeof s), what);
        }
    }
    memcpy(r->seen[r->nseen++], x, 32);
}

/* step < 12: init (bit 0: decrypt, bits 1-2: no key / K1 / K2, bit 3: fresh IV);
 * 12: 32 bytes of AAD, 13: 32 bytes of data, 14: final (decryption: with a wrong tag). */
static void reinit_sequence(size_t i, const int *seq, int len)
{
    static const uint8_t zeros[32], k1[32] = {1, 1}, k2[32] = {2, 2};
    reinit_run r;
    memset(&r, 0, sizeof r);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    assert_non_null(ctx);
    assert_int_equal(EVP_CipherInit_ex2(ctx, ciphers[i], NULL, NULL, 1, NULL), 1);
    int enc = 1;
    for (int j = 0; j < len; j++) {
        int s = seq[j], outl;
        uint8_t out[32], tag[16];
        if (s < REINIT_INITS) {
            int dir = !(s & 1), kk = (s >> 1) % 3, fresh = s >= 6;
            uint8_t iv[28] = {0};
            if (fresh) {
                r.iv_ctr++;
                memcpy(iv, &r.iv_ctr, sizeof r.iv_ctr);
            }
            const uint8_t *key = kk == 0 ? NULL : kk == 1 ? k1 : k2;
            if (EVP_CipherInit_ex2(ctx, NULL, key, fresh ? iv : NULL, dir, NULL) != 1)
                fail_msg("init %d refused", s);
            enc = dir;
            if (fresh)
                r.spent = r.init_since = 0;
            else if (r.spent)
                r.init_since = 1;
            continue;
        }
        int ok;
        if (s == 14) {
            if (!enc)
                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, (void *)zeros);
            ok = EVP_CipherFinal_ex(ctx, out, &outl);
            if (ok && enc) {
                assert_int_equal(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag), 1);
                reinit_release(&r, tag, 16, "tag", seq, len);
            }
        } else {
            ok = EVP_CipherUpdate(ctx, s == 12 ? NULL : out, &outl, zeros, 32);
            if (ok && enc && s == 13)
                reinit_release(&r, out, 32, "keystream block", seq, len);
        }
        ERR_clear_error();
        if (ok && enc) {
            if (r.init_since) {
                char t[64];
                fail_msg("re-init sequence [%s]: step %d encrypted under a spent IV",
                         reinit_text(seq, len, t, sizeof t), j);
            }
            r.spent = 1;
        }
    }
    EVP_CIPHER_CTX_free(ctx);
}

static void test_gcm_reinit_table(void **state)
{
    (void)state;
    size_t i = index_of("RIJNDAEL-256-GCM");
    if (i == NALGS || ciphers[i] == NULL)
        skip();
    /* The review's three sequences first, by name: they encrypted under a spent IV. */
    static const int known[][REINIT_MAX] = {
        {6 + 2, 13, 2 + 1, 0, 13}, /* E(K1, IV) data, D(K1), E(), data */
        {6 + 2, 13, 4 + 1, 2, 13}, /* E(K1, IV) data, D(K2), E(K1), data */
        {6 + 2, 13, 2 + 1, 2, 13}, /* E(K1, IV) data, D(K1), E(K1), data */
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        reinit_sequence(i, known[k], REINIT_MAX);
    size_t total = 0;
    int seq[REINIT_MAX];
    if (getenv("BS_VALGRIND_QUICK") != NULL) {
        for (int n = 0; n < 3000; n++) {
            for (int j = 0; j < REINIT_MAX; j++)
                seq[j] = (int)bs_test_below(REINIT_STEPS);
            reinit_sequence(i, seq, REINIT_MAX);
            total++;
        }
    } else {
        /* every sequence of up to four steps, and every five-step one that starts with an init
         * giving a key and an IV (8..11) */
        for (int len = 1; len <= REINIT_MAX; len++) {
            int first = len == REINIT_MAX ? 8 : 0, rest = len == REINIT_MAX ? len - 1 : len;
            size_t count = 1;
            for (int j = 0; j < rest; j++)
                count *= REINIT_STEPS;
            for (int f = first; f < (len == REINIT_MAX ? REINIT_INITS : 1); f++) {
                for (size_t c = 0; c < count; c++) {
                    size_t v = c;
                    int *s = seq;
                    if (len == REINIT_MAX)
                        *s++ = f;
                    for (int j = 0; j < rest; j++, v /= REINIT_STEPS)
                        s[j] = (int)(v % REINIT_STEPS);
                    reinit_sequence(i, seq, len);
                    total++;
                }
            }
        }
    }
    printf("# RIJNDAEL-256-GCM: %zu re-init sequences, no IV reused\n", total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_provider_params),
        cmocka_unit_test(test_names_and_sizes),
        cmocka_unit_test(test_kat_files),
        cmocka_unit_test(test_roundtrip_lengths),
        cmocka_unit_test(test_split_streams),
        cmocka_unit_test(test_dup_midstream),
        cmocka_unit_test(test_ctr_long_streams),
        cmocka_unit_test(test_ctr_position_params),
        cmocka_unit_test(test_gcm_params),
        cmocka_unit_test(test_negative),
        cmocka_unit_test(test_ctr_reinit_keeps_counter),
        cmocka_unit_test(test_ctr_legacy_iv_accessors),
        cmocka_unit_test(test_failed_init_changes_nothing),
        cmocka_unit_test(test_gcm_reinit_needs_new_iv),
        cmocka_unit_test(test_gcm_reinit_table),
        cmocka_unit_test(test_limit_odd_updates),
        cmocka_unit_test(test_config_limit),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
