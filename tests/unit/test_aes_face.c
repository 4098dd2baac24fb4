/*
 * AES-CTR with FACE caching (core/aes/aes_ctr_face.c) against plain CTR over the same core and
 * the byte-wise reference: every counter byte position receives a carry inside the stream
 * (bytes 0..14 are the cached ones), byte 15 starts odd and even, streams span several epochs
 * and are cut into random pieces; the cached path must actually run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aes/aes.h"
#include "aes/aes_ctr_face.h"
#include "modes/ctr.h"
#include "ref/ref.h"
#include "testutil.h"

#define MAXLEN (16 * 1100 + 15)

static bs_aes_face_ctx face;
static bs_ctr_ctx plain;
static uint8_t in[MAXLEN], out_face[MAXLEN], out_plain[MAXLEN], out_ref[MAXLEN];

/* One stream: FACE in random pieces against plain CTR in one call (and the reference). */
static void check_stream(size_t key_len, const uint8_t *iv, size_t len, int with_ref)
{
    uint8_t key[32];
    const bs_block_cipher *c = key_len == 16 ? &bs_aes128_fix32 : &bs_aes256_fix32;
    bs_test_fill(key, key_len);
    bs_test_fill(in, len);
    assert_int_equal(bs_aes_face_set_key(&face, key, key_len), BS_OK);
    assert_int_equal(bs_aes_face_set_iv(&face, iv, 16), BS_OK);
    assert_int_equal(bs_ctr_set_key(&plain, c, key, key_len), BS_OK);
    assert_int_equal(bs_ctr_set_iv(&plain, iv, 16), BS_OK);
    assert_int_equal(bs_ctr_crypt(&plain, out_plain, in, len), BS_OK);
    for (size_t off = 0; off < len;) {
        /* mostly long pieces (the cached path), some short and odd ones */
        size_t piece = bs_test_below(4) == 0 ? bs_test_below(40) : bs_test_below(len + 1);
        if (piece > len - off)
            piece = len - off;
        assert_int_equal(bs_aes_face_crypt(&face, out_face + off, in + off, piece), BS_OK);
        off += piece;
    }
    if (memcmp(out_face, out_plain, len) != 0) {
        size_t i = 0;
        while (out_face[i] == out_plain[i])
            i++;
        bs_test_hexdump("iv", iv, 16);
        fail_msg("AES-%zu FACE differs from plain CTR at byte %zu of %zu (block %zu)", 8 * key_len,
                 i, len, i / 16);
    }
    if (with_ref) {
        bs_ref_ctr(key_len == 16 ? "AES-128" : "AES-256", key, iv, in, out_ref, len);
        assert_memory_equal(out_plain, out_ref, len);
    }
    /* both contexts moved to the same place */
    uint8_t cf[16], cp[16];
    unsigned nf, np;
    bs_ctr_position(&face.ctr, cf, &nf);
    bs_ctr_position(&plain, cp, &np);
    assert_memory_equal(cf, cp, 16);
    assert_int_equal(nf, np);
    assert_true(bs_ctr_blocks_used(&face.ctr) == bs_ctr_blocks_used(&plain));
}

static void test_carry_into_every_cached_byte(void **state)
{
    (void)state;
    for (size_t key_len = 16; key_len <= 32; key_len += 16) {
        unsigned long refreshes = 0;
        for (unsigned p = 0; p < 15; p++) {
            for (unsigned start = 0; start < 2; start++) {
                uint8_t iv[16];
                bs_test_fill(iv, 16);
                /* bytes p+1..14 all ones and byte 15 near the top: within a few blocks the
                 * carry runs into byte p (and byte p itself is not 0xff, so it stops there) */
                for (unsigned i = p + 1; i < 15; i++)
                    iv[i] = 0xff;
                if (iv[p] == 0xff)
                    iv[p] = 0x7e;
                iv[15] = (uint8_t)(0xf0 + 2 * bs_test_below(7) + start);
                size_t len = 16 * (300 + bs_test_below(500)) + bs_test_below(16);
                check_stream(key_len, iv, len, p % 5 == 0);
                refreshes += face.refreshes;
            }
        }
        /* the tests above are worth something only if the cache ran */
        assert_true(refreshes >= 30);
    }
}

static void test_random_streams(void **state)
{
    (void)state;
    for (int i = 0; i < 40; i++) {
        uint8_t iv[16];
        bs_test_fill(iv, 16);
        size_t len = bs_test_below(MAXLEN + 1);
        check_stream(i & 1 ? 32 : 16, iv, len, i < 6);
    }
}

/*
 * A long stream from byte 15 = 0 refreshes once per 256 blocks; short requests never pay for a
 * refresh, but use an epoch that is already cached.
 */
static void test_refresh_count(void **state)
{
    (void)state;
    uint8_t iv[16] = {0}, key[16] = {1};
    assert_int_equal(bs_aes_face_set_key(&face, key, 16), BS_OK);
    assert_int_equal(bs_aes_face_set_iv(&face, iv, 16), BS_OK);
    assert_int_equal(bs_ctr_set_key(&plain, &bs_aes128_fix32, key, 16), BS_OK);
    assert_int_equal(bs_ctr_set_iv(&plain, iv, 16), BS_OK);
    bs_test_fill(in, 16 * 1024);
    assert_int_equal(bs_aes_face_crypt(&face, out_face, in, 16 * 1024), BS_OK);
    assert_int_equal(face.refreshes, 4);
    for (int i = 0; i < 10; i++)
        assert_int_equal(bs_aes_face_crypt(&face, out_face, in, 37), BS_OK);
    assert_int_equal(face.refreshes, 4);
    /* back to epoch 0: 100 blocks refresh it, then short calls run from the cache */
    assert_int_equal(bs_aes_face_set_iv(&face, iv, 16), BS_OK);
    size_t off = 0;
    assert_int_equal(bs_aes_face_crypt(&face, out_face, in, 1600), BS_OK);
    off += 1600;
    assert_int_equal(face.refreshes, 5);
    for (int i = 0; i < 20; i++, off += 37)
        assert_int_equal(bs_aes_face_crypt(&face, out_face + off, in + off, 37), BS_OK);
    assert_int_equal(face.refreshes, 5);
    assert_int_equal(bs_ctr_crypt(&plain, out_plain, in, off), BS_OK);
    assert_memory_equal(out_face, out_plain, off);
}

/*
 * A context copied by value mid-stream (partial block pending, cache filled) goes on by itself:
 * the original is then re-keyed and run over other data, which would change the copy's output
 * if the copy still pulled keystream through the original (ctr.src pointing into it).
 */
static bs_aes_face_ctx face_copy;

static void test_copy_by_value(void **state)
{
    (void)state;
    uint8_t key[32], other[32], iv[16];
    for (size_t key_len = 16; key_len <= 32; key_len += 16) {
        const bs_block_cipher *c = key_len == 16 ? &bs_aes128_fix32 : &bs_aes256_fix32;
        bs_test_fill(key, key_len);
        bs_test_fill(iv, 16);
        iv[15] = 0x10;
        size_t len = 16 * 600 + 7, cut = 16 * 100 + 5;
        bs_test_fill(in, len);
        assert_int_equal(bs_aes_face_set_key(&face, key, key_len), BS_OK);
        assert_int_equal(bs_aes_face_set_iv(&face, iv, 16), BS_OK);
        assert_int_equal(bs_aes_face_crypt(&face, out_face, in, cut), BS_OK);
        assert_true(face.refreshes >= 1); /* the copy takes a filled cache */
        face_copy = face;
        memcpy(other, key, sizeof other);
        other[15] ^= 1;
        other[0] ^= 0x80;
        assert_int_equal(bs_aes_face_set_key(&face, other, key_len), BS_OK);
        assert_int_equal(bs_aes_face_set_iv(&face, iv, 16), BS_OK);
        assert_int_equal(bs_aes_face_crypt(&face, out_plain, in, len), BS_OK);
        assert_int_equal(bs_aes_face_crypt(&face_copy, out_face + cut, in + cut, len - cut), BS_OK);
        assert_int_equal(bs_ctr_set_key(&plain, c, key, key_len), BS_OK);
        assert_int_equal(bs_ctr_set_iv(&plain, iv, 16), BS_OK);
        assert_int_equal(bs_ctr_crypt(&plain, out_plain, in, len), BS_OK);
        assert_memory_equal(out_face, out_plain, len);
        /* and the original, re-keyed, is unaffected by the copy's run */
        assert_int_equal(bs_aes_face_crypt(&face, out_face, in, 16 * 300), BS_OK);
        assert_int_equal(bs_ctr_set_key(&plain, c, other, key_len), BS_OK);
        assert_int_equal(bs_ctr_set_iv(&plain, iv, 16), BS_OK);
        assert_int_equal(bs_ctr_crypt(&plain, out_plain, in, len), BS_OK);
        assert_int_equal(bs_ctr_crypt(&plain, out_plain, in, 16 * 300), BS_OK);
        assert_memory_equal(out_face, out_plain, 16 * 300);
        bs_aes_face_clear(&face_copy);
    }
}

/* Refusals are those of plain CTR, and change nothing. */
static void test_refusals(void **state)
{
    (void)state;
    uint8_t key[32] = {0}, iv[16];
    memset(iv, 0xff, sizeof iv);
    assert_int_equal(bs_aes_face_set_key(&face, key, 24), BS_ERR_KEY_LENGTH);
    assert_int_equal(bs_aes_face_set_key(&face, key, 16), BS_OK);
    assert_int_equal(bs_aes_face_set_iv(&face, iv, 12), BS_ERR_IV_LENGTH);
    assert_int_equal(bs_aes_face_set_iv(&face, iv, 16), BS_OK);
    assert_int_equal(bs_aes_face_crypt(&face, out_face, in, 17), BS_ERR_COUNTER_WRAP);
    assert_int_equal(bs_aes_face_crypt(&face, out_face, in, 16), BS_OK);
    bs_aes_face_clear(&face);
    assert_int_equal(bs_aes_face_crypt(&face, out_face, in, 1), BS_ERR_STATE);
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_carry_into_every_cached_byte),
        cmocka_unit_test(test_random_streams),
        cmocka_unit_test(test_refresh_count),
        cmocka_unit_test(test_copy_by_value),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
