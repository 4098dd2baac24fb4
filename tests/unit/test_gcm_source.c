/*
 * RIJNDAEL-256-GCM pulling its data keystream from a source (bs_gcm256_set_source,
 * core/modes/keystream.h): the known answers of tests/kat/rijndael256-gcm.kat with 28-byte IVs,
 * the source serving whole-block CTR from IV || 00000002 (what the daemon serves); random
 * messages against in-process GCM with a source that does a random prefix of each request (the
 * rest in-process), at random split points, in place or not, for 28-byte IVs and others
 * (keystream by inc32 from J0); E_K(J0) is never asked of the source; refusals change nothing.
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
#include "modes/gcm256.h"
#include "testcpu.h"
#include "testutil.h"

static bs_gcm256_ctx ctx_a, ctx_b, ctx_saved;

/* Serves message keystream from a buffer (block i: that of J0 + 1 + i), a prefix per request. */
typedef struct buf_src {
    bs_keystream_source base;
    uint8_t j0[32];
    const uint8_t *ks;
    uint64_t nblocks;
    int random_prefix;
    uint64_t served;
} buf_src;

static uint64_t buf_fill(bs_keystream_source *src, const bs_block_cipher *c,
                         const bs_key_schedule *ks, const uint8_t *counter, uint64_t n, int step,
                         const uint8_t *in, uint8_t *out)
{
    (void)c;
    (void)ks;
    buf_src *b = (buf_src *)src;
    assert_int_equal(step, BS_KS_STEP_INC32);
    assert_memory_equal(counter, b->j0, 28);
    uint32_t d = bs_load_be32(counter + 28) - bs_load_be32(b->j0 + 28);
    assert_true(d != 0); /* E_K(J0), the tag's mask, is never asked for */
    uint64_t first = d - 1;
    assert_true(first + n <= b->nblocks);
    uint64_t done = b->random_prefix ? bs_test_below((uint32_t)n + 1) : n;
    const uint8_t *from = b->ks + first * 32;
    for (size_t i = 0; i < done * 32; i++)
        out[i] = (in != NULL ? in[i] : 0) ^ from[i];
    b->served += done;
    return done;
}

static bs_keystream_source *buf_copy(const bs_keystream_source *src)
{
    (void)src;
    return NULL;
}

static void buf_free(bs_keystream_source *src)
{
    (void)src;
}

static const bs_keystream_ops buf_ops = {"buffer", NULL, buf_fill, buf_copy, buf_free};

static void buf_src_init(buf_src *b, const uint8_t j0[32], const uint8_t *ks, size_t len,
                         int random_prefix)
{
    memset(b, 0, sizeof *b);
    b->base.ops = &buf_ops;
    memcpy(b->j0, j0, 32);
    b->ks = ks;
    b->nblocks = len / 32 + 1;
    b->random_prefix = random_prefix;
}

static const bs_block_cipher *r256(void)
{
    const bs_block_cipher *c = bs_block_cipher_by_name("RIJNDAEL-256");
    assert_non_null(c);
    return c;
}

/* Keystream of message bytes [0, len): E_K(inc32^k(J0)), k >= 1, computed block by block. */
static uint8_t *keystream_inc32(const uint8_t *key, const uint8_t j0[32], size_t len)
{
    const bs_block_cipher *c = r256();
    bs_key_schedule ks;
    size_t nb = len / 32 + 1;
    uint8_t *out = (uint8_t *)malloc(nb * 32);
    uint8_t cb[32];
    assert_non_null(out);
    c->set_key(&ks, key);
    memcpy(cb, j0, 32);
    for (size_t i = 0; i < nb; i++) {
        bs_store_be32(cb + 28, bs_load_be32(cb + 28) + 1);
        c->encrypt(&ks, out + 32 * i, cb, 1);
    }
    return out;
}

/* For a 28-byte IV: whole-block CTR from IV || 00000002, as bitsliced produces it. */
static uint8_t *keystream_ctr(const uint8_t *key, const uint8_t *iv28, size_t len)
{
    const bs_block_cipher *c = r256();
    bs_key_schedule ks;
    size_t nb = len / 32 + 1;
    uint8_t *out = (uint8_t *)malloc(nb * 32);
    uint8_t cb[32];
    assert_non_null(out);
    c->set_key(&ks, key);
    memcpy(cb, iv28, 28);
    bs_store_be32(cb + 28, 2);
    bs_ctr_keystream(c, &ks, cb, nb, out);
    return out;
}

static void test_kat(void **state)
{
    (void)state;
    bs_kat_reader r;
    bs_kat k;
    int n = 0, rc;
    assert_int_equal(bs_kat_open(&r, bs_kat_path("rijndael256-gcm.kat")), 0);
    while ((rc = bs_kat_next(&r, &k)) == 1) {
        size_t kl, ivl, al, pl, cl, tl;
        const char *name = bs_kat_text(&k, "Cipher");
        const uint8_t *key = bs_kat_bytes(&k, "Key", &kl), *iv = bs_kat_bytes(&k, "IV", &ivl);
        const uint8_t *aad = bs_kat_bytes(&k, "AAD", &al), *pt = bs_kat_bytes(&k, "Plaintext", &pl);
        const uint8_t *ct = bs_kat_bytes(&k, "Ciphertext", &cl),
                      *tag = bs_kat_bytes(&k, "Tag", &tl);
        if (name == NULL || strcmp(name, "RIJNDAEL-256-GCM") != 0 || ivl != 28 ||
            bs_kat_text(&k, "Result") != NULL) {
            bs_kat_free(&k);
            continue;
        }
        assert_true(key && iv && tag && pl == cl);
        uint8_t *ks = keystream_ctr(key, iv, pl);
        uint8_t *out = (uint8_t *)malloc(pl + 1), got[32], j0[32];
        assert_non_null(out);
        memcpy(j0, iv, 28);
        bs_store_be32(j0 + 28, 1);
        for (int dec = 0; dec < 2; dec++) {
            buf_src b;
            buf_src_init(&b, j0, ks, pl, 0);
            bs_gcm256_set_source(&ctx_a, &b.base);
            assert_int_equal(
                bs_gcm256_set_key(&ctx_a, bs_block_cipher_by_name("RIJNDAEL-256"), key, kl), BS_OK);
            assert_int_equal(bs_gcm256_set_iv(&ctx_a, iv, ivl), BS_OK);
            assert_int_equal(bs_gcm256_aad(&ctx_a, aad, al), BS_OK);
            if (dec) {
                assert_int_equal(bs_gcm256_decrypt(&ctx_a, out, ct, cl), BS_OK);
                assert_int_equal(bs_gcm256_verify(&ctx_a, tag, tl), BS_OK);
                if (pl > 0)
                    assert_memory_equal(out, pt, pl);
            } else {
                assert_int_equal(bs_gcm256_encrypt(&ctx_a, out, pt, pl), BS_OK);
                assert_int_equal(bs_gcm256_tag(&ctx_a, got, tl), BS_OK);
                if (pl > 0)
                    assert_memory_equal(out, ct, pl);
                assert_memory_equal(got, tag, tl);
            }
            /* every data block came from the source */
            assert_true(b.served == (pl + 31) / 32);
            bs_gcm256_clear(&ctx_a);
        }
        free(ks);
        free(out);
        bs_kat_free(&k);
        n++;
    }
    assert_int_equal(rc, 0);
    bs_kat_close(&r);
    assert_true(n >= 3);
}

/* One random message: in-process on ctx_a, from a source doing random prefixes on ctx_b. */
static void one_case(size_t iv_len, size_t len, int dec)
{
    uint8_t key[32], iv[64], aad[40], tag_a[32], tag_b[32];
    bs_test_fill(key, sizeof key);
    bs_test_fill(iv, iv_len);
    size_t al = bs_test_below(sizeof aad + 1);
    bs_test_fill(aad, al);
    uint8_t *in = (uint8_t *)malloc(len + 1), *out_a = (uint8_t *)malloc(len + 1);
    uint8_t *out_b = (uint8_t *)malloc(len + 1);
    assert_true(in && out_a && out_b);
    bs_test_fill(in, len);

    assert_int_equal(bs_gcm256_set_key(&ctx_a, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    assert_int_equal(bs_gcm256_set_key(&ctx_b, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    assert_int_equal(bs_gcm256_set_iv(&ctx_a, iv, iv_len), BS_OK);
    assert_int_equal(bs_gcm256_set_iv(&ctx_b, iv, iv_len), BS_OK);
    uint8_t *ks = iv_len == 28 ? keystream_ctr(key, iv, len) : keystream_inc32(key, ctx_b.j0, len);
    buf_src b;
    buf_src_init(&b, ctx_b.j0, ks, len, 1);
    bs_gcm256_set_source(&ctx_b, &b.base);
    assert_int_equal(bs_gcm256_aad(&ctx_a, aad, al), BS_OK);
    assert_int_equal(bs_gcm256_aad(&ctx_b, aad, al), BS_OK);
    int (*crypt)(bs_gcm256_ctx *, uint8_t *, const uint8_t *, size_t) =
        dec ? bs_gcm256_decrypt : bs_gcm256_encrypt;
    assert_int_equal(crypt(&ctx_a, out_a, in, len), BS_OK);

    /* Random pieces; in place half the time. */
    int in_place = bs_test_below(2) != 0;
    if (in_place)
        memcpy(out_b, in, len);
    size_t off = 0;
    while (off < len) {
        size_t n = 1 + bs_test_below((uint32_t)(len - off < 200 ? len - off : 200));
        const uint8_t *src = in_place ? out_b + off : in + off;
        assert_int_equal(crypt(&ctx_b, out_b + off, src, n), BS_OK);
        off += n;
    }
    if (len > 0)
        assert_memory_equal(out_a, out_b, len);
    assert_int_equal(bs_gcm256_tag(&ctx_a, tag_a, 32), BS_OK);
    assert_int_equal(bs_gcm256_tag(&ctx_b, tag_b, 32), BS_OK);
    assert_memory_equal(tag_a, tag_b, 32);
    bs_gcm256_set_source(&ctx_b, NULL);
    free(ks);
    free(in);
    free(out_a);
    free(out_b);
}

static void test_mixed(void **state)
{
    (void)state;
    bs_test_seed();
    const size_t lens[] = {0, 1, 31, 32, 33, 64, 65, 255, 1000, 4096, 5000};
    const size_t iv_lens[] = {28, 28, 12, 1, 60};
    for (size_t round = 0; round < 6; round++)
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
            for (size_t v = 0; v < sizeof iv_lens / sizeof iv_lens[0]; v++)
                one_case(iv_lens[v], lens[i] + bs_test_below(3), (int)(round & 1));
}

/* A refused call changes nothing, with a source set: state, direction, data limit. */
static void test_refusals(void **state)
{
    (void)state;
    uint8_t key[32] = {1}, iv[28] = {2}, buf[64] = {0}, j0[32] = {2};
    static uint8_t ks[64 * 32];
    buf_src b;
    j0[31] = 1;
    buf_src_init(&b, j0, ks, sizeof ks - 32, 0);
    bs_gcm256_set_source(&ctx_a, &b.base);
    assert_int_equal(bs_gcm256_encrypt(&ctx_a, buf, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_set_key(&ctx_a, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    assert_int_equal(bs_gcm256_encrypt(&ctx_a, buf, buf, 1), BS_ERR_STATE); /* no IV */
    assert_int_equal(bs_gcm256_set_iv(&ctx_a, iv, 28), BS_OK);
    assert_int_equal(bs_gcm256_encrypt(&ctx_a, buf, buf, 5), BS_OK);

    memcpy(&ctx_saved, &ctx_a, sizeof ctx_a);
    assert_int_equal(bs_gcm256_decrypt(&ctx_a, buf, buf, 5), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_encrypt(&ctx_a, NULL, buf, 5), BS_ERR_ARG);
    assert_int_equal(bs_gcm256_aad(&ctx_a, buf, 1), BS_ERR_STATE);
    assert_memory_equal(&ctx_a, &ctx_saved, sizeof ctx_a);

    /* Near the data limit (2^32 - 2 blocks per IV): one byte too many is refused as a whole. */
    const uint64_t max = (((uint64_t)1 << 32) - 2) * 32;
    bs_gcm256_set_source(&ctx_a, NULL); /* the counter jumps: in-process from here */
    ctx_a.data_len = max - 40;
    memcpy(&ctx_saved, &ctx_a, sizeof ctx_a);
    assert_int_equal(bs_gcm256_encrypt(&ctx_a, buf, buf, 41), BS_ERR_DATA_LIMIT);
    assert_memory_equal(&ctx_a, &ctx_saved, sizeof ctx_a);
    assert_int_equal(bs_gcm256_encrypt(&ctx_a, buf, buf, 40), BS_OK);
    assert_int_equal(bs_gcm256_encrypt(&ctx_a, buf, buf, 1), BS_ERR_DATA_LIMIT);
    bs_gcm256_clear(&ctx_a);
}

/* A source that forwards to the in-process one (the daemon's stand-in; it serves every block). */
static uint64_t fwd_fill(bs_keystream_source *src, const bs_block_cipher *c,
                         const bs_key_schedule *ks, const uint8_t *counter, uint64_t n, int step,
                         const uint8_t *in, uint8_t *out)
{
    (void)src;
    return bs_keystream_inproc.ops->fill(&bs_keystream_inproc, c, ks, counter, n, step, in, out);
}

static const bs_keystream_ops fwd_ops = {"forward", NULL, fwd_fill, buf_copy, buf_free};

/*
 * The source set to NULL in the middle of a message whose E_K(J0) is still due (data so far
 * from the source): the rest comes in-process from the counter where the source stopped, never
 * from J0 + 1 again (that would reuse keystream), and the tag is the one-source message's.
 * Every IV length class (28: direct, 12 and 60: by GHASH), several first lengths.
 */
static void test_source_dropped_mid_message(void **state)
{
    (void)state;
    bs_test_seed();
    bs_keystream_source fwd = {&fwd_ops};
    const size_t iv_lens[] = {28, 12, 60};
    const size_t firsts[] = {1, 31, 32, 64, 100, 448};
    uint8_t key[32], iv[60], pt[1024], ca[1024], cb[1024], ta[32], tb[32];
    for (size_t v = 0; v < sizeof iv_lens / sizeof iv_lens[0]; v++)
        for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++) {
            bs_test_fill(key, sizeof key);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(pt, sizeof pt);
            const size_t len = firsts[f] + 64 + bs_test_below(200);
            assert_int_equal(bs_gcm256_set_key(&ctx_a, r256(), key, 32), BS_OK);
            assert_int_equal(bs_gcm256_set_iv(&ctx_a, iv, iv_lens[v]), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&ctx_a, ca, pt, len), BS_OK);
            assert_int_equal(bs_gcm256_tag(&ctx_a, ta, 32), BS_OK);
            bs_gcm256_set_source(&ctx_b, &fwd);
            assert_int_equal(bs_gcm256_set_key(&ctx_b, r256(), key, 32), BS_OK);
            assert_int_equal(bs_gcm256_set_iv(&ctx_b, iv, iv_lens[v]), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&ctx_b, cb, pt, firsts[f]), BS_OK);
            bs_gcm256_set_source(&ctx_b, NULL); /* in-process from here */
            assert_int_equal(
                bs_gcm256_encrypt(&ctx_b, cb + firsts[f], pt + firsts[f], len - firsts[f]), BS_OK);
            assert_int_equal(bs_gcm256_tag(&ctx_b, tb, 32), BS_OK);
            assert_memory_equal(ca, cb, len);
            assert_memory_equal(ta, tb, 32);
        }
    bs_gcm256_clear(&ctx_a);
    bs_gcm256_clear(&ctx_b);
}

int main(void)
{
    bs_test_cpu_banner();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kat),
        cmocka_unit_test(test_mixed),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_source_dropped_mid_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
