/*
 * Published known answers (tests/kat/block.kat, ctr.kat) through every fast core, the CTR
 * mode and the byte-wise references.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bitslice.h"
#include "kat.h"
#include "modes/ctr.h"
#include "ref/ref.h"
#include "testcpu.h"
#include "testutil.h"

static const char *const expected[] = {
    "PRESENT-80",   "PRESENT-128",  "GIFT-64",        "GIFT-128",       "RIJNDAEL-256",
    "AES-128",      "AES-256",      "SKINNY-128-128", "SKINNY-128-256", "SKINNY-128-384",
    "SPEEDY-5-192", "SPEEDY-6-192", "SPEEDY-7-192",
};

static void test_all_ciphers_present(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        if (bs_block_cipher_by_name(expected[i]) == NULL)
            fail_msg("cipher %s is not compiled in", expected[i]);
        assert_non_null(bs_ref_by_name(expected[i]));
    }
}

static void check_block_kat(const bs_kat *k, const bs_block_cipher *c, const uint8_t *key,
                            const uint8_t *pt, const uint8_t *ct, long n)
{
    size_t bl = c->block_len;
    uint8_t fast[BS_BLOCK_MAX];
    bs_key_schedule ks;
    c->set_key(&ks, key);
    memcpy(fast, pt, bl);
    for (long i = 0; i < n; i++)
        c->encrypt(&ks, fast, fast, 1);
    if (memcmp(fast, ct, bl) != 0) {
        bs_test_hexdump("expected", ct, bl);
        bs_test_hexdump("fast core", fast, bl);
        fail_msg("%s:%d: %s (%s) differs from the known answer", k->file, k->line, c->name,
                 c->impl);
    }
    /* The same block in every lane of a full pass must give the same answer. */
    if (n == 1) {
        uint8_t many[BS_LANES_MAX * BS_BLOCK_MAX];
        for (unsigned i = 0; i < c->lanes; i++)
            memcpy(many + i * bl, pt, bl);
        c->encrypt(&ks, many, many, c->lanes);
        for (unsigned i = 0; i < c->lanes; i++)
            if (memcmp(many + i * bl, ct, bl) != 0)
                fail_msg("%s:%d: lane %u of %s (%s) differs", k->file, k->line, i, c->name,
                         c->impl);
    }
}

static void test_block_kat(void **state)
{
    (void)state;
    bs_kat_reader r;
    bs_kat k;
    int rc, count = 0;
    assert_int_equal(bs_kat_open(&r, bs_kat_path("block.kat")), 0);
    while ((rc = bs_kat_next(&r, &k)) == 1) {
        const char *name = bs_kat_text(&k, "Cipher");
        const char *iters = bs_kat_text(&k, "Iterations");
        size_t kl, pl, cl;
        const uint8_t *key = bs_kat_bytes(&k, "Key", &kl);
        const uint8_t *pt = bs_kat_bytes(&k, "Plaintext", &pl);
        const uint8_t *ct = bs_kat_bytes(&k, "Ciphertext", &cl);
        assert_non_null(name);
        assert_non_null(key);
        assert_non_null(pt);
        assert_non_null(ct);
        bs_ref_encrypt_fn ref = bs_ref_by_name(name);
        if (bs_block_cipher_by_name(name) == NULL || ref == NULL)
            fail_msg("%s:%d: no core for %s", k.file, k.line, name);
        long n = iters ? strtol(iters, NULL, 10) : 1;
        uint8_t slow[BS_BLOCK_MAX];
        memcpy(slow, pt, pl);
        for (long i = 0; i < n; i++)
            ref(key, slow, slow);
        if (memcmp(slow, ct, cl) != 0)
            fail_msg("%s:%d: reference %s differs from the known answer", k.file, k.line, name);
        for (size_t ci = 0; bs_block_ciphers[ci] != NULL; ci++) {
            const bs_block_cipher *c = bs_block_ciphers[ci];
            if (!bs_test_impl_usable(c))
                continue;
            if (strcmp(c->name, name) != 0)
                continue;
            assert_int_equal(kl, c->key_len);
            assert_int_equal(pl, c->block_len);
            assert_int_equal(cl, c->block_len);
            check_block_kat(&k, c, key, pt, ct, n);
        }
        bs_kat_free(&k);
        count++;
    }
    assert_int_equal(rc, 0);
    bs_kat_close(&r);
    assert_true(count >= 21);
}
/*
 * A stanza with "Counter" (the whole first counter block) instead of "IV": counters no IV can
 * start from (a carry out of the low 64 bits of a 192-bit block), through the stateless
 * keystream every backend serves, and through the reference one block at a time.
 */
static void check_counter_kat(const bs_block_cipher *c, const char *name, const uint8_t *key,
                              size_t kl, const uint8_t *counter, size_t nl, const uint8_t *pt,
                              const uint8_t *ct, size_t len)
{
    size_t bl = c->block_len, nblocks = (len + bl - 1) / bl;
    uint8_t ks_bytes[256 + BS_BLOCK_MAX], ctr[BS_BLOCK_MAX], blk[BS_BLOCK_MAX];
    bs_key_schedule ks;
    assert_int_equal(kl, c->key_len);
    assert_int_equal(nl, bl);
    assert_true(len <= 256);
    c->set_key(&ks, key);
    bs_ctr_keystream(c, &ks, counter, nblocks, ks_bytes);
    for (size_t i = 0; i < len; i++)
        if ((pt[i] ^ ks_bytes[i]) != ct[i])
            fail_msg("%s (%s): keystream from a whole counter block differs at byte %zu", name,
                     c->impl, i);
    bs_ref_encrypt_fn ref = bs_ref_by_name(name);
    memcpy(ctr, counter, bl);
    for (size_t off = 0; off < len; off += bl) {
        ref(key, ctr, blk);
        for (size_t i = 0; i < bl && off + i < len; i++)
            assert_int_equal(pt[off + i] ^ blk[i], ct[off + i]);
        bs_ctr_add(ctr, bl, 1);
    }
}

static void test_ctr_kat(void **state)
{
    (void)state;
    bs_kat_reader r;
    bs_kat k;
    int rc, count = 0;
    assert_int_equal(bs_kat_open(&r, bs_kat_path("ctr.kat")), 0);
    while ((rc = bs_kat_next(&r, &k)) == 1) {
        char name[64];
        const char *full = bs_kat_text(&k, "Cipher");
        size_t kl, il, pl, cl;
        const uint8_t *key = bs_kat_bytes(&k, "Key", &kl);
        const uint8_t *iv = bs_kat_bytes(&k, "IV", &il);
        const uint8_t *pt = bs_kat_bytes(&k, "Plaintext", &pl);
        const uint8_t *ct = bs_kat_bytes(&k, "Ciphertext", &cl);
        size_t nl;
        const uint8_t *counter = bs_kat_bytes(&k, "Counter", &nl);
        assert_non_null(full);
        assert_true(strlen(full) > 4 && strlen(full) < sizeof name);
        strcpy(name, full);
        assert_string_equal(name + strlen(name) - 4, "-CTR");
        name[strlen(name) - 4] = 0;
        if (bs_block_cipher_by_name(name) == NULL)
            fail_msg("%s:%d: no core for %s", k.file, k.line, name);
        assert_int_equal(pl, cl);

        /* every implementation of the cipher, not only the preferred one */
        static uint8_t out[2048], ref_out[2048];
        assert_true(pl <= sizeof out);
        for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
            const bs_block_cipher *c = bs_block_ciphers[i];
            if (strcmp(c->name, name) != 0)
                continue;
            if (counter != NULL) {
                check_counter_kat(c, name, key, kl, counter, nl, pt, ct, pl);
                continue;
            }
            bs_ctr_ctx ctx;
            memset(&ctx, 0, sizeof ctx);
            assert_int_equal(bs_ctr_set_key(&ctx, c, key, kl), BS_OK);
            assert_int_equal(bs_ctr_set_iv(&ctx, iv, il), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, out, pt, pl), BS_OK);
            if (memcmp(out, ct, cl) != 0)
                fail_msg("%s:%d: %s (%s) differs", k.file, k.line, name, c->impl);
            bs_ctr_clear(&ctx);
        }
        if (counter == NULL) { /* check_counter_kat ran the reference itself */
            bs_ref_ctr(name, key, iv, pt, ref_out, pl);
            assert_memory_equal(ref_out, ct, cl);
        }
        bs_kat_free(&k);
        count++;
    }
    assert_int_equal(rc, 0);
    bs_kat_close(&r);
    assert_true(count >= 16);
}

int main(void)
{
    bs_test_cpu_banner();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_ciphers_present),
        cmocka_unit_test(test_block_kat),
        cmocka_unit_test(test_ctr_kat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
