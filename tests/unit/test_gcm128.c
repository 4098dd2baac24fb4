/*
 * AES-GCM (core/modes/gcm128.c) against OpenSSL's EVP AES-128-GCM / AES-256-GCM on random
 * cases, through every GHASH-128 implementation, with and without FACE caching: IV lengths 1,
 * 12 and 60 (and random ones), AAD alone, 0..5 blocks plus partials and long messages, every
 * tag length, random splits of AAD and data; decryption, verification and the wrong-tag case;
 * the published known answers of tests/kat/gcm128.kat; and Wycheproof's AES-GCM and AES-GMAC
 * vectors ($BS_WYCHEPROOF_GCM128_KAT, made by the build from tests/kat/wycheproof/) through every
 * AES implementation, every GHASH-128, CTR plain and through FACE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "aes/aes_ctr_face.h"
#include "aes/aes_masked.h"
#include "kat.h"
#include "modes/gcm128.h"
#include "testutil.h"

#define MAXLEN (16 * 600 + 15)

static const bs_ghash128_impl *const impls[] = {&bs_ghash128_ctmul32, &bs_ghash128_ctshift32,
                                                &bs_ghash128_table4_not_ct};
#define NIMPL (sizeof impls / sizeof impls[0])

static bs_gcm128_ctx gcm;
static bs_aes_face_ctx face;
static uint8_t pt[MAXLEN], ct[MAXLEN], ct_evp[MAXLEN], back[MAXLEN], aad[200];

static void evp_gcm(const uint8_t *key, size_t kl, const uint8_t *iv, size_t il, const uint8_t *a,
                    size_t al, const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[16])
{
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    int n = 0;
    assert_non_null(e);
    assert_int_equal(
        EVP_EncryptInit_ex(e, kl == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm(), NULL, NULL, NULL),
        1);
    assert_int_equal(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IVLEN, (int)il, NULL), 1);
    assert_int_equal(EVP_EncryptInit_ex(e, NULL, NULL, key, iv), 1);
    if (al > 0)
        assert_int_equal(EVP_EncryptUpdate(e, NULL, &n, a, (int)al), 1);
    if (len > 0)
        assert_int_equal(EVP_EncryptUpdate(e, out, &n, in, (int)len), 1);
    assert_int_equal(EVP_EncryptFinal_ex(e, out + len, &n), 1);
    assert_int_equal(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_GET_TAG, 16, tag), 1);
    EVP_CIPHER_CTX_free(e);
}

/* Feeds p[0..len) to fn in random pieces. */
static int pieces(int (*fn)(bs_gcm128_ctx *, uint8_t *, const uint8_t *, size_t), uint8_t *out,
                  const uint8_t *in, size_t len)
{
    for (size_t off = 0; off < len;) {
        size_t piece = bs_test_below(3) == 0 ? bs_test_below(20) : bs_test_below(len + 1);
        if (piece > len - off)
            piece = len - off;
        int rc = fn(&gcm, out + off, in + off, piece);
        if (rc != BS_OK)
            return rc;
        off += piece;
    }
    return BS_OK;
}

static void set_up(const uint8_t *key, size_t kl, const bs_ghash128_impl *g, int with_face)
{
    assert_int_equal(
        bs_gcm128_set_key(&gcm, bs_block_cipher_by_name(kl == 16 ? "AES-128" : "AES-256"), key, kl),
        BS_OK);
    bs_gcm128_set_ghash(&gcm, g);
    if (with_face) {
        assert_int_equal(bs_aes_face_set_key(&face, key, kl), BS_OK);
        assert_int_equal(bs_gcm128_set_face(&gcm, &face), BS_OK);
    }
}

static void one_case(size_t kl, size_t il, size_t al, size_t len, size_t tl,
                     const bs_ghash128_impl *g, int with_face)
{
    uint8_t key[32], iv[64], tag[16], tag_evp[16];
    bs_test_fill(key, kl);
    bs_test_fill(iv, il);
    bs_test_fill(aad, al);
    bs_test_fill(pt, len);
    evp_gcm(key, kl, iv, il, aad, al, pt, len, ct_evp, tag_evp);

    set_up(key, kl, g, with_face);
    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_OK);
    size_t a1 = al ? bs_test_below((uint32_t)al + 1) : 0;
    assert_int_equal(bs_gcm128_aad(&gcm, aad, a1), BS_OK);
    assert_int_equal(bs_gcm128_aad(&gcm, aad + a1, al - a1), BS_OK);
    assert_int_equal(pieces(bs_gcm128_encrypt, ct, pt, len), BS_OK);
    assert_int_equal(bs_gcm128_tag(&gcm, tag, tl), BS_OK);
    if (memcmp(ct, ct_evp, len) != 0 || memcmp(tag, tag_evp, tl) != 0)
        fail_msg("AES-%zu-GCM (%s%s) differs from EVP: iv %zu, aad %zu, data %zu, tag %zu", 8 * kl,
                 g->name, with_face ? ", FACE" : "", il, al, len, tl);

    /* decryption in pieces verifies; a flipped tag bit does not, and both give the plaintext */
    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_OK);
    assert_int_equal(bs_gcm128_aad(&gcm, aad, al), BS_OK);
    assert_int_equal(pieces(bs_gcm128_decrypt, back, ct, len), BS_OK);
    assert_int_equal(bs_gcm128_verify(&gcm, tag, tl), BS_OK);
    assert_memory_equal(back, pt, len);
    tag[bs_test_below((uint32_t)tl)] ^= (uint8_t)(1u << bs_test_below(8));
    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_OK);
    assert_int_equal(bs_gcm128_aad(&gcm, aad, al), BS_OK);
    assert_int_equal(bs_gcm128_decrypt(&gcm, back, ct, len), BS_OK);
    assert_int_equal(bs_gcm128_verify(&gcm, tag, tl), BS_ERR_AUTH);
}

static void test_against_evp(void **state)
{
    (void)state;
    static const size_t ivs[] = {1, 12, 60};
    for (size_t kl = 16; kl <= 32; kl += 16)
        for (size_t g = 0; g < NIMPL; g++)
            for (int f = 0; f < 2; f++) {
                for (size_t i = 0; i < 3; i++)
                    for (size_t blocks = 0; blocks <= 5; blocks++)
                        for (size_t tl = 12; tl <= 16; tl++) {
                            size_t len = 16 * blocks + (tl & 1 ? bs_test_below(16) : 0);
                            size_t al = (blocks + tl) % 3 == 0 ? 0 : bs_test_below(sizeof aad);
                            one_case(kl, ivs[i], al, len, tl, impls[g], f);
                        }
                /* AAD alone, random IV lengths, long messages (FACE's cached path) */
                one_case(kl, 12, 1 + bs_test_below(sizeof aad - 1), 0, 16, impls[g], f);
                for (int r = 0; r < 6; r++)
                    one_case(kl, 1 + bs_test_below(63), bs_test_below(sizeof aad),
                             bs_test_below(MAXLEN + 1), 12 + bs_test_below(5), impls[g], f);
            }
}

/*
 * GCM's inc32 through the FACE cache: the low 32 bits wrap without a carry into byte 11 (a
 * J0 from GHASH can start anywhere, but searching for one near the wrap is hopeless, so the
 * keystream function is checked directly against block-by-block encryption).
 */
static void test_face_inc32_wrap(void **state)
{
    (void)state;
    for (size_t kl = 16; kl <= 32; kl += 16) {
        const bs_block_cipher *c = bs_block_cipher_by_name(kl == 16 ? "AES-128" : "AES-256");
        uint8_t key[32], cb[16], start[16], blk[16];
        bs_key_schedule ks;
        bs_test_fill(key, kl);
        bs_test_fill(start, 16);
        start[12] = start[13] = 0xff;
        start[14] = (uint8_t)(0xfc + bs_test_below(4));
        assert_int_equal(bs_aes_face_set_key(&face, key, kl), BS_OK);
        c->set_key(&ks, key);
        memcpy(cb, start, 16);
        size_t n = 600;
        bs_aes_face_keystream(&face, cb, n, n, 1, ct);
        assert_true(face.refreshes >= 1);
        uint32_t low = bs_load_be32(start + 12);
        for (size_t i = 0; i < n; i++) {
            memcpy(blk, start, 12);
            bs_store_be32(blk + 12, low + (uint32_t)i);
            c->encrypt(&ks, blk, blk, 1);
            if (memcmp(blk, ct + 16 * i, 16) != 0)
                fail_msg("AES-%zu FACE inc32 keystream differs at block %zu", 8 * kl, i);
        }
        memcpy(blk, start, 12);
        bs_store_be32(blk + 12, low + (uint32_t)n);
        assert_memory_equal(cb, blk, 16);
    }
}

static void test_kat(void **state)
{
    (void)state;
    bs_kat_reader r;
    bs_kat k;
    int rc, count = 0;
    assert_int_equal(bs_kat_open(&r, bs_kat_path("gcm128.kat")), 0);
    while ((rc = bs_kat_next(&r, &k)) == 1) {
        size_t kl, il, al, pl, cl, tl;
        const uint8_t *key = bs_kat_bytes(&k, "Key", &kl), *iv = bs_kat_bytes(&k, "IV", &il);
        const uint8_t *a = bs_kat_bytes(&k, "AAD", &al), *p = bs_kat_bytes(&k, "Plaintext", &pl);
        const uint8_t *c = bs_kat_bytes(&k, "Ciphertext", &cl), *t = bs_kat_bytes(&k, "Tag", &tl);
        const char *result = bs_kat_text(&k, "Result");
        int must_fail = result != NULL && strcmp(result, "TAG_MISMATCH") == 0;
        assert_true(key && iv && a && p && c && t && pl == cl);
        for (size_t g = 0; g < NIMPL; g++)
            for (int f = 0; f < 2; f++) {
                uint8_t tag[16];
                set_up(key, kl, impls[g], f);
                assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_OK);
                assert_int_equal(bs_gcm128_aad(&gcm, a, al), BS_OK);
                assert_int_equal(bs_gcm128_encrypt(&gcm, ct, p, pl), BS_OK);
                assert_int_equal(bs_gcm128_tag(&gcm, tag, tl), BS_OK);
                assert_memory_equal(ct, c, cl);
                if (must_fail)
                    assert_memory_not_equal(tag, t, tl);
                else if (memcmp(tag, t, tl) != 0)
                    fail_msg("%s:%d: tag differs (%s)", k.file, k.line, impls[g]->name);
                assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_OK);
                assert_int_equal(bs_gcm128_aad(&gcm, a, al), BS_OK);
                assert_int_equal(bs_gcm128_decrypt(&gcm, back, c, cl), BS_OK);
                assert_int_equal(bs_gcm128_verify(&gcm, t, tl), must_fail ? BS_ERR_AUTH : BS_OK);
            }
        bs_kat_free(&k);
        count++;
    }
    assert_int_equal(rc, 0);
    bs_kat_close(&r);
    assert_true(count >= 13);
}

static void test_rng(void *ctx, uint32_t *out, size_t nwords)
{
    (void)ctx;
    for (size_t i = 0; i < nwords; i++)
        out[i] = (uint32_t)bs_test_rand64();
}

/* Every AES implementation of the build for a key length: the registry's, and the masked ones. */
static size_t aes_impls(size_t kl, const bs_block_cipher **out, size_t cap)
{
    const char *name = kl == 16 ? "AES-128" : "AES-256";
    size_t n = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL && n < cap; i++)
        if (strcmp(bs_block_ciphers[i]->name, name) == 0) /* all portable C */
            out[n++] = bs_block_ciphers[i];
#if BS_KS_MAX >= BS_AES_MASKED_KS_BYTES
    if (n < cap)
        out[n++] = kl == 16 ? &bs_aes128_masked32 : &bs_aes256_masked32;
    if (n < cap)
        out[n++] = kl == 16 ? &bs_aes128_masked32v : &bs_aes256_masked32v;
#endif
    return n;
}

/*
 * Wycheproof's vectors, each honoured as its result says: valid ones encrypt to the ciphertext
 * and tag and verify; TAG_MISMATCH ones (ModifiedTag) encrypt to the ciphertext but are refused
 * by the tag check; IV_REFUSED ones (ZeroLengthIv) are refused when the IV is set.
 */
static void test_wycheproof(void **state)
{
    (void)state;
    const char *path = getenv("BS_WYCHEPROOF_GCM128_KAT");
    if (path == NULL)
        fail_msg("BS_WYCHEPROOF_GCM128_KAT: the build's wycheproof-gcm128.kat");
    bs_aes_masked_set_rng(test_rng, NULL);
    bs_kat_reader r;
    bs_kat k;
    int rc;
    size_t count = 0, refused = 0, mismatched = 0, runs = 0;
    assert_int_equal(bs_kat_open(&r, path), 0);
    while ((rc = bs_kat_next(&r, &k)) == 1) {
        size_t kl, il, al, pl, cl, tl;
        const uint8_t *key = bs_kat_bytes(&k, "Key", &kl), *iv = bs_kat_bytes(&k, "IV", &il);
        const uint8_t *a = bs_kat_bytes(&k, "AAD", &al), *p = bs_kat_bytes(&k, "Plaintext", &pl);
        const uint8_t *c = bs_kat_bytes(&k, "Ciphertext", &cl), *t = bs_kat_bytes(&k, "Tag", &tl);
        const char *result = bs_kat_text(&k, "Result");
        int must_mismatch = result != NULL && strcmp(result, "TAG_MISMATCH") == 0;
        int iv_refused = result != NULL && strcmp(result, "IV_REFUSED") == 0;
        if (!(key && iv && a && p && c && t && pl == cl && pl <= MAXLEN && tl == 16 &&
              (kl == 16 || kl == 32) && (result == NULL || must_mismatch || iv_refused)))
            fail_msg("%s:%d: malformed stanza", k.file, k.line);
        const bs_block_cipher *aes[12];
        size_t naes = aes_impls(kl, aes, 12);
        assert_true(naes >= 2);
        for (size_t ai = 0; ai < naes; ai++)
            for (size_t g = 0; g < NIMPL; g++)
                for (int f = 0; f < 2; f++) {
                    uint8_t tag[16];
                    int masked = strncmp(aes[ai]->impl, "masked", 6) == 0;
                    if (f && masked)
                        continue; /* FACE is an unmasked keystream: not over the masked core */
                    assert_int_equal(bs_gcm128_set_key(&gcm, aes[ai], key, kl), BS_OK);
                    bs_gcm128_set_ghash(&gcm, impls[g]);
                    if (f) {
                        assert_int_equal(bs_aes_face_set_key(&face, key, kl), BS_OK);
                        assert_int_equal(bs_gcm128_set_face(&gcm, &face), BS_OK);
                    }
                    runs++;
                    if (iv_refused) {
                        assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_ERR_IV_LENGTH);
                        assert_int_equal(bs_gcm128_aad(&gcm, a, al), BS_ERR_STATE);
                        continue;
                    }
                    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_OK);
                    assert_int_equal(bs_gcm128_aad(&gcm, a, al), BS_OK);
                    assert_int_equal(bs_gcm128_encrypt(&gcm, ct, p, pl), BS_OK);
                    assert_int_equal(bs_gcm128_tag(&gcm, tag, tl), BS_OK);
                    if (memcmp(ct, c, cl) != 0 || (memcmp(tag, t, tl) != 0) != must_mismatch)
                        fail_msg("%s:%d: %s/%s, GHASH %s%s: %s differs", k.file, k.line,
                                 aes[ai]->name, aes[ai]->impl, impls[g]->name, f ? ", FACE" : "",
                                 memcmp(ct, c, cl) != 0 ? "ciphertext" : "tag");
                    /* decryption in two pieces, then the vector's tag */
                    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, il), BS_OK);
                    assert_int_equal(bs_gcm128_aad(&gcm, a, al), BS_OK);
                    assert_int_equal(bs_gcm128_decrypt(&gcm, back, c, cl / 2), BS_OK);
                    assert_int_equal(
                        bs_gcm128_decrypt(&gcm, back + cl / 2, c + cl / 2, cl - cl / 2), BS_OK);
                    if (bs_gcm128_verify(&gcm, t, tl) != (must_mismatch ? BS_ERR_AUTH : BS_OK))
                        fail_msg("%s:%d: %s/%s, GHASH %s%s: the vector's tag was %s", k.file,
                                 k.line, aes[ai]->name, aes[ai]->impl, impls[g]->name,
                                 f ? ", FACE" : "", must_mismatch ? "accepted" : "refused");
                    assert_memory_equal(back, p, pl);
                }
        refused += iv_refused;
        mismatched += must_mismatch;
        bs_kat_free(&k);
        count++;
    }
    assert_int_equal(rc, 0);
    bs_kat_close(&r);
    bs_gcm128_clear(&gcm);
    bs_aes_face_clear(&face);
    printf(
        "# Wycheproof AES-GCM/GMAC: %zu vectors (%zu with a modified tag, %zu with an empty IV), "
        "%zu runs over the AES implementations, GHASH-128s and FACE\n",
        count, mismatched, refused, runs);
    assert_true(count >= 480 && mismatched >= 260 && refused >= 4);
}

/* Refusals change nothing; the order of calls is enforced. */
static void test_refusals(void **state)
{
    (void)state;
    uint8_t key[32] = {0}, iv[12] = {0}, buf[32] = {0}, tag[16];
    memset(&gcm, 0, sizeof gcm);
    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, 12), BS_ERR_STATE);
    assert_int_equal(bs_gcm128_set_key(&gcm, bs_block_cipher_by_name("AES-256"), key, 24),
                     BS_ERR_KEY_LENGTH);
    assert_int_equal(bs_gcm128_set_key(&gcm, bs_block_cipher_by_name("AES-128"), key, 16), BS_OK);
    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, 0), BS_ERR_IV_LENGTH);
    assert_int_equal(bs_gcm128_encrypt(&gcm, buf, buf, 16), BS_ERR_STATE);
    assert_int_equal(bs_gcm128_set_iv(&gcm, iv, 12), BS_OK);
    assert_int_equal(bs_gcm128_encrypt(&gcm, buf, buf, 16), BS_OK);
    assert_int_equal(bs_gcm128_aad(&gcm, buf, 4), BS_ERR_STATE);
    assert_int_equal(bs_gcm128_decrypt(&gcm, buf, buf, 16), BS_ERR_STATE);
    assert_int_equal(bs_gcm128_tag(&gcm, tag, 11), BS_ERR_TAG_LENGTH);
    assert_int_equal(bs_gcm128_tag(&gcm, tag, 17), BS_ERR_TAG_LENGTH);
    assert_int_equal(bs_gcm128_tag(&gcm, tag, 16), BS_OK);
    assert_int_equal(bs_gcm128_tag(&gcm, tag, 16), BS_ERR_STATE);
    /* a FACE context keyed for AES-256 does not serve AES-128 */
    assert_int_equal(bs_aes_face_set_key(&face, key, 32), BS_OK);
    assert_int_equal(bs_gcm128_set_face(&gcm, &face), BS_ERR_ARG);
    assert_true(!bs_ghash128_table4_not_ct.constant_time);
    assert_true(bs_ghash128_default()->constant_time ||
                bs_ghash128_default() == &bs_ghash128_table4_not_ct);
}

static void rng_xorshift(void *ctx, uint32_t *out, size_t n)
{
    uint32_t *x = ctx;
    for (size_t i = 0; i < n; i++) {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        out[i] = *x;
    }
}

/*
 * FACE over a masked core is refused (FACE is unmasked AES: the data keystream would leave the
 * masking), and the context goes on with the masked core, still right against EVP; the control,
 * the same key over the unmasked fix32 core, takes the face.
 */
static void test_face_refused_over_masked(void **state)
{
    (void)state;
    static uint32_t seed = 0x2545f491u;
    uint8_t key[32], iv[12], tag[16], tag_evp[16];
    bs_aes_masked_set_rng(rng_xorshift, &seed);
    for (unsigned c = 0; c < 4; c++) {
        /* the default and the value-model variants */
        const size_t kl = c & 1 ? 32 : 16;
        const bs_block_cipher *masked =
            c < 2 ? (kl == 16 ? &bs_aes128_masked32 : &bs_aes256_masked32)
                  : (kl == 16 ? &bs_aes128_masked32v : &bs_aes256_masked32v);
        const bs_block_cipher *plain = bs_block_cipher_by_name(kl == 16 ? "AES-128" : "AES-256");
        bs_test_fill(key, kl);
        bs_test_fill(iv, sizeof iv);
        bs_test_fill(pt, 100);
        evp_gcm(key, kl, iv, sizeof iv, aad, 0, pt, 100, ct_evp, tag_evp);
        assert_int_equal(bs_aes_face_set_key(&face, key, kl), BS_OK);
        assert_int_equal(bs_gcm128_set_key(&gcm, masked, key, kl), BS_OK);
        assert_int_equal(bs_gcm128_set_face(&gcm, &face), BS_ERR_ARG);
        assert_int_equal(bs_gcm128_set_iv(&gcm, iv, sizeof iv), BS_OK);
        assert_int_equal(bs_gcm128_encrypt(&gcm, ct, pt, 100), BS_OK);
        assert_int_equal(bs_gcm128_tag(&gcm, tag, 16), BS_OK);
        assert_memory_equal(ct, ct_evp, 100);
        assert_memory_equal(tag, tag_evp, 16);
        assert_int_equal(bs_gcm128_set_key(&gcm, plain, key, kl), BS_OK);
        assert_int_equal(bs_gcm128_set_face(&gcm, &face), BS_OK);
    }
    bs_gcm128_clear(&gcm);
    bs_aes_face_clear(&face);
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),    cmocka_unit_test(test_kat),
        cmocka_unit_test(test_wycheproof),  cmocka_unit_test(test_face_inc32_wrap),
        cmocka_unit_test(test_against_evp), cmocka_unit_test(test_face_refused_over_masked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
