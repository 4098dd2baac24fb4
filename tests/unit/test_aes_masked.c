/*
 * First-order masked AES-128 and AES-256 (core/aes/aes_masked32.c) against the byte-wise
 * reference on
 * random keys and blocks, with the randomness from getrandom(), from a zero source (masking
 * must not change the function) and from a counting source that checks the number of words
 * each call draws against the stated cost; the value-model variant (bs_aes*_maskedv_2blocks, the
 * masked32v descriptors) likewise. The round-key shares must recombine to the
 * unmasked key schedule and must not be that schedule themselves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <cmocka.h>

#include "aes/aes.h"
#include "aes/aes_masked.h"
#include "modes/ctr.h"
#include "modes/gcm128.h"
#include "ref/ref.h"
#include "testutil.h"

static void rng_getrandom(void *ctx, uint32_t *out, size_t n)
{
    (void)ctx;
    uint8_t *p = (uint8_t *)out;
    size_t len = n * sizeof *out;
    while (len) {
        ssize_t got = getrandom(p, len, 0);
        if (got <= 0)
            abort(); /* a masked core without randomness must not run */
        p += got;
        len -= (size_t)got;
    }
}

static void rng_zero(void *ctx, uint32_t *out, size_t n)
{
    (void)ctx;
    memset(out, 0, n * sizeof *out);
}

typedef struct {
    size_t words, calls;
} counting;

static void rng_counting(void *ctx, uint32_t *out, size_t n)
{
    counting *c = ctx;
    c->words += n;
    c->calls++;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint32_t)bs_test_rand64();
}

static bs_aes128_masked_key mk;
static bs_aes256_masked_key mk256;

static void check_random(bs_aes_rng_fn rng, void *ctx, unsigned cases)
{
    uint8_t key[16], in[32], out[32], ref[32];
    for (unsigned n = 0; n < cases; n++) {
        bs_test_fill(key, 16);
        bs_test_fill(in, 32);
        bs_aes128_masked_set_key(&mk, key, rng, ctx);
        bs_ref_aes128_encrypt(key, in, ref);
        bs_ref_aes128_encrypt(key, in + 16, ref + 16);
        bs_aes128_masked_2blocks(&mk, out, in, rng, ctx);
        if (memcmp(out, ref, 32) != 0) {
            bs_test_hexdump("key", key, 16);
            bs_test_hexdump("in", in, 32);
            bs_test_hexdump("masked", out, 32);
            bs_test_hexdump("reference", ref, 32);
            fail_msg("masked AES-128 differs from the reference (case %u)", n);
        }
        /* in place, and a second call on the same key shares */
        memcpy(out, in, 32);
        bs_aes128_masked_2blocks(&mk, out, out, rng, ctx);
        assert_memory_equal(out, ref, 32);
        /* AES-256 on the same blocks */
        uint8_t key256[32];
        bs_test_fill(key256, 32);
        bs_aes256_masked_set_key(&mk256, key256, rng, ctx);
        bs_ref_aes256_encrypt(key256, in, ref);
        bs_ref_aes256_encrypt(key256, in + 16, ref + 16);
        bs_aes256_masked_2blocks(&mk256, out, in, rng, ctx);
        if (memcmp(out, ref, 32) != 0)
            fail_msg("masked AES-256 differs from the reference (case %u)", n);
        /* the value-model variant, on the same keys and on its own key setup's: AES-256,
         * then AES-128 in place */
        bs_aes256_maskedv_2blocks(&mk256, out, in, rng, ctx);
        if (memcmp(out, ref, 32) != 0)
            fail_msg("masked AES-256 (value model) differs from the reference (case %u)", n);
        bs_aes256_maskedv_set_key(&mk256, key256, rng, ctx);
        bs_aes256_maskedv_2blocks(&mk256, out, in, rng, ctx);
        if (memcmp(out, ref, 32) != 0)
            fail_msg("masked AES-256 (value model) differs from the reference (case %u)", n);
        bs_ref_aes128_encrypt(key, in, ref);
        bs_ref_aes128_encrypt(key, in + 16, ref + 16);
        memcpy(out, in, 32);
        bs_aes128_maskedv_2blocks(&mk, out, out, rng, ctx);
        if (memcmp(out, ref, 32) != 0)
            fail_msg("masked AES-128 (value model) differs from the reference (case %u)", n);
        bs_aes128_maskedv_set_key(&mk, key, rng, ctx);
        bs_aes128_maskedv_2blocks(&mk, out, in, rng, ctx);
        if (memcmp(out, ref, 32) != 0)
            fail_msg("masked AES-128 (value-model key setup) differs from the reference (case %u)",
                     n);
        /* the DOM key setups */
        bs_aes128_masked_set_key_dom(&mk, key, rng, ctx);
        bs_aes128_masked_2blocks(&mk, out, in, rng, ctx);
        if (memcmp(out, ref, 32) != 0)
            fail_msg("masked AES-128 (DOM key setup) differs from the reference (case %u)", n);
        bs_aes256_masked_set_key_dom(&mk256, key256, rng, ctx);
        bs_ref_aes256_encrypt(key256, in, ref);
        bs_ref_aes256_encrypt(key256, in + 16, ref + 16);
        bs_aes256_masked_2blocks(&mk256, out, in, rng, ctx);
        if (memcmp(out, ref, 32) != 0)
            fail_msg("masked AES-256 (DOM key setup) differs from the reference (case %u)", n);
    }
}

static void test_reference_getrandom(void **state)
{
    (void)state;
    check_random(rng_getrandom, NULL, 3000);
}

static void test_reference_zero_rng(void **state)
{
    (void)state;
    check_random(rng_zero, NULL, 300);
}

static void test_randomness_cost(void **state)
{
    (void)state;
    uint8_t key[16], in[32], out[32];
    counting c = {0, 0};
    bs_test_fill(key, 16);
    bs_test_fill(in, 32);
    bs_aes128_masked_set_key(&mk, key, rng_counting, &c);
    assert_int_equal(c.words, BS_AES128_MASKED_RAND_KEY);
    c.words = 0;
    c.calls = 0;
    bs_aes128_masked_2blocks(&mk, out, in, rng_counting, &c);
    assert_int_equal(c.words, BS_AES128_MASKED_RAND_ENC);
    assert_int_equal(c.calls, 1); /* m0, m1 and r in one draw */
    assert_int_equal(BS_AES128_MASKED_RAND_ENC, 10);
    uint8_t key256[32];
    bs_test_fill(key256, 32);
    c.words = 0;
    bs_aes256_masked_set_key(&mk256, key256, rng_counting, &c);
    assert_int_equal(c.words, BS_AES256_MASKED_RAND_KEY);
    c.words = 0;
    c.calls = 0;
    bs_aes256_masked_2blocks(&mk256, out, in, rng_counting, &c);
    assert_int_equal(c.words, BS_AES256_MASKED_RAND_ENC);
    assert_int_equal(c.calls, 1);
    /* the value-model variant: one word a call, whatever the key length */
    assert_int_equal(BS_AES_MASKEDV_RAND_ENC, 1);
    c.words = 0;
    c.calls = 0;
    bs_aes128_maskedv_2blocks(&mk, out, in, rng_counting, &c);
    bs_aes256_maskedv_2blocks(&mk256, out, in, rng_counting, &c);
    assert_int_equal(c.words, 2 * BS_AES_MASKEDV_RAND_ENC);
    assert_int_equal(c.calls, 2);
    c.words = 0;
    bs_aes128_maskedv_set_key(&mk, key, rng_counting, &c);
    assert_int_equal(c.words, BS_AES128_MASKEDV_RAND_KEY);
    assert_int_equal(BS_AES128_MASKEDV_RAND_KEY, 24);
    c.words = 0;
    bs_aes256_maskedv_set_key(&mk256, key256, rng_counting, &c);
    assert_int_equal(c.words, BS_AES256_MASKEDV_RAND_KEY);
    /* the default key setup draws what the value-model one does (the encryption's S-box on
     * SubWord, 2 words each), the DOM one 5 a SubWord */
    assert_int_equal(BS_AES128_MASKED_RAND_KEY, 24);
    assert_int_equal(BS_AES256_MASKED_RAND_KEY, 34);
    c.words = 0;
    bs_aes128_masked_set_key_dom(&mk, key, rng_counting, &c);
    assert_int_equal(c.words, BS_AES128_MASKED_DOM_RAND_KEY);
    assert_int_equal(BS_AES128_MASKED_DOM_RAND_KEY, 54);
    c.words = 0;
    bs_aes256_masked_set_key_dom(&mk256, key256, rng_counting, &c);
    assert_int_equal(c.words, BS_AES256_MASKED_DOM_RAND_KEY);
    assert_int_equal(BS_AES256_MASKED_DOM_RAND_KEY, 73);
}

/* AES-256's round-key shares recombine to the unmasked schedule and are not that schedule. */
static void test_key_shares_256(void **state)
{
    (void)state;
    uint32_t rk[BS_AES256_RK_WORDS];
    uint8_t key[32];
    for (unsigned n = 0; n < 50; n++) {
        bs_test_fill(key, 32);
        bs_aes_key_schedule(rk, key, 8, 4);
        if (n & 1)
            bs_aes256_maskedv_set_key(&mk256, key, rng_getrandom, NULL);
        else
            bs_aes256_masked_set_key(&mk256, key, rng_getrandom, NULL);
        unsigned same0 = 0;
        for (unsigned i = 0; i < BS_AES256_RK_WORDS; i++) {
            assert_int_equal(mk256.rk[0][i] ^ mk256.rk[1][i], rk[i]);
            same0 += mk256.rk[0][i] == rk[i];
        }
        assert_true(same0 < 8);
    }
    bs_aes256_masked_clear(&mk256);
    for (unsigned i = 0; i < BS_AES256_RK_WORDS; i++)
        assert_int_equal(mk256.rk[0][i] | mk256.rk[1][i], 0);
}

static void test_key_shares(void **state)
{
    (void)state;
    uint32_t rk[BS_AES128_RK_WORDS];
    uint8_t key[16];
    for (unsigned n = 0; n < 50; n++) {
        bs_test_fill(key, 16);
        bs_aes_key_schedule(rk, key, 4, 4);
        if (n & 1) /* the value-model variant's key setup: the same shares' contract */
            bs_aes128_maskedv_set_key(&mk, key, rng_getrandom, NULL);
        else
            bs_aes128_masked_set_key(&mk, key, rng_getrandom, NULL);
        unsigned same0 = 0, same1 = 0;
        for (unsigned i = 0; i < BS_AES128_RK_WORDS; i++) {
            assert_int_equal(mk.rk[0][i] ^ mk.rk[1][i], rk[i]);
            same0 += mk.rk[0][i] == rk[i];
            same1 += mk.rk[1][i] == 0;
        }
        /* 88 random words: a few may collide by chance, not most */
        assert_true(same0 < 8);
        assert_true(same1 < 8);
    }
    bs_aes128_masked_clear(&mk);
    for (unsigned i = 0; i < BS_AES128_RK_WORDS; i++)
        assert_int_equal(mk.rk[0][i] | mk.rk[1][i], 0);
}

/* Masked AES-CTR: bs_ctr over the masked descriptors equals bs_ctr over fix32, on random
 * keys, IVs (counter carries included) and lengths split into random pieces. */
static void test_masked_ctr(void **state)
{
    (void)state;
    static bs_ctr_ctx a, b;
    static uint8_t msg[1000], ref[1000], out[1000];
    const bs_block_cipher *masked[4] = {&bs_aes128_masked32, &bs_aes256_masked32,
                                        &bs_aes128_masked32v, &bs_aes256_masked32v};
    const bs_block_cipher *plain[2] = {&bs_aes128_fix32, &bs_aes256_fix32};
    counting c = {0, 0};
    bs_aes_masked_set_rng(rng_counting, &c);
    for (unsigned n = 0; n < 60; n++) {
        const unsigned which = n & 1, v = n % 4 >= 2;
        const size_t kl = which ? 32 : 16;
        uint8_t key[32], iv[16];
        bs_test_fill(key, kl);
        bs_test_fill(iv, 16);
        if (n % 3 == 0)
            memset(iv + 12, 0xff, 4); /* the counter carries past its low 32 bits */
        const size_t len = (size_t)(bs_test_rand64() % sizeof msg);
        bs_test_fill(msg, len);
        assert_int_equal(bs_ctr_set_key(&a, masked[2 * v + which], key, kl), BS_OK);
        assert_int_equal(bs_ctr_set_iv(&a, iv, 16), BS_OK);
        assert_int_equal(bs_ctr_set_key(&b, plain[which], key, kl), BS_OK);
        assert_int_equal(bs_ctr_set_iv(&b, iv, 16), BS_OK);
        assert_int_equal(bs_ctr_crypt(&b, ref, msg, len), BS_OK);
        for (size_t done = 0; done < len;) {
            size_t piece = 1 + (size_t)(bs_test_rand64() % 80);
            if (piece > len - done)
                piece = len - done;
            assert_int_equal(bs_ctr_crypt(&a, out + done, msg + done, piece), BS_OK);
            done += piece;
        }
        if (memcmp(out, ref, len) != 0)
            fail_msg("masked %s-CTR (%s) differs from fix32 (case %u, %zu bytes)",
                     plain[which]->name, masked[2 * v + which]->impl, n, len);
    }
    /* the descriptors drew from the callback: per two blocks 10 words, the value model's 1 */
    assert_true(c.words >= 30 * 10 + 30);
    bs_ctr_clear(&a);
    bs_ctr_clear(&b);
    bs_aes_masked_set_rng(NULL, NULL);
}

/* AES-GCM over the masked descriptors (the block cipher masked; GHASH is not) equals AES-GCM
 * over fix32: the tag and the data. */
static void test_masked_gcm(void **state)
{
    (void)state;
    static bs_gcm128_ctx a, b;
    static uint8_t msg[300], ref[300], out[300];
    const bs_block_cipher *masked[4] = {&bs_aes128_masked32, &bs_aes256_masked32,
                                        &bs_aes128_masked32v, &bs_aes256_masked32v};
    const bs_block_cipher *plain[2] = {&bs_aes128_fix32, &bs_aes256_fix32};
    bs_aes_masked_set_rng(rng_getrandom, NULL);
    for (unsigned n = 0; n < 20; n++) {
        const unsigned which = n & 1, v = n % 4 >= 2;
        const size_t kl = which ? 32 : 16, len = (size_t)(bs_test_rand64() % sizeof msg);
        uint8_t key[32], iv[12], aad[20], ta[16], tb[16];
        bs_test_fill(key, kl);
        bs_test_fill(iv, 12);
        bs_test_fill(aad, 20);
        bs_test_fill(msg, len);
        assert_int_equal(bs_gcm128_set_key(&a, masked[2 * v + which], key, kl), BS_OK);
        assert_int_equal(bs_gcm128_set_key(&b, plain[which], key, kl), BS_OK);
        assert_int_equal(bs_gcm128_set_iv(&a, iv, 12), BS_OK);
        assert_int_equal(bs_gcm128_set_iv(&b, iv, 12), BS_OK);
        assert_int_equal(bs_gcm128_aad(&a, aad, 20), BS_OK);
        assert_int_equal(bs_gcm128_aad(&b, aad, 20), BS_OK);
        assert_int_equal(bs_gcm128_encrypt(&a, out, msg, len), BS_OK);
        assert_int_equal(bs_gcm128_encrypt(&b, ref, msg, len), BS_OK);
        assert_int_equal(bs_gcm128_tag(&a, ta, 16), BS_OK);
        assert_int_equal(bs_gcm128_tag(&b, tb, 16), BS_OK);
        assert_memory_equal(out, ref, len);
        assert_memory_equal(ta, tb, 16);
    }
    bs_gcm128_clear(&a);
    bs_gcm128_clear(&b);
    bs_aes_masked_set_rng(NULL, NULL);
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_getrandom), cmocka_unit_test(test_reference_zero_rng),
        cmocka_unit_test(test_randomness_cost),     cmocka_unit_test(test_key_shares),
        cmocka_unit_test(test_key_shares_256),      cmocka_unit_test(test_masked_ctr),
        cmocka_unit_test(test_masked_gcm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
