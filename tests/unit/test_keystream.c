/*
 * The keystream-source contract (core/modes/keystream.h) over every core: a source may do any
 * prefix of a request, and CTR's output, position and block count are then exactly those of
 * the in-process core and of the slow reference, for split streams, odd lengths, counters that
 * carry out of their low 32 and 64 bits, set_num, and GCM's inc32 rule across its 2^32 wrap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bitslice.h"
#include "modes/ctr.h"
#include "modes/keystream.h"
#include "ref/ref.h"
#include "testcpu.h"
#include "testutil.h"

#define MAXLEN 4000

/*
 * A source that does a random prefix of each request (0 to all of it), honestly, and records
 * what it was asked: the daemon's behaviour when windows fail, without a daemon.
 */
typedef struct flaky {
    bs_keystream_source base;
    int mode;         /* 0: random prefix, 1: nothing, 2: everything */
    uint64_t served;  /* blocks it did */
    uint64_t asked;   /* blocks it was asked for */
    uint8_t next[32]; /* the counter after the last request */
    int contiguous;   /* every request started where the last one ended */
    int have_next;
    int keys; /* set_key calls */
    uint8_t key[BS_KEY_MAX];
} flaky;

static void flaky_set_key(bs_keystream_source *src, const bs_block_cipher *c, const uint8_t *key,
                          size_t key_len)
{
    flaky *f = (flaky *)src;
    assert_int_equal(key_len, c->key_len);
    memcpy(f->key, key, key_len);
    f->keys++;
    f->have_next = 0;
}

static uint64_t flaky_fill(bs_keystream_source *src, const bs_block_cipher *c,
                           const bs_key_schedule *ks, const uint8_t *counter, uint64_t n, int step,
                           const uint8_t *in, uint8_t *out)
{
    flaky *f = (flaky *)src;
    const size_t bl = c->block_len;
    assert_true(n > 0);
    if (f->have_next && memcmp(f->next, counter, bl) != 0)
        f->contiguous = 0;
    memcpy(f->next, counter, bl);
    bs_keystream_advance(f->next, bl, n, step);
    f->have_next = 1;
    f->asked += n;
    uint64_t done = f->mode == 1 ? 0 : f->mode == 2 ? n : bs_test_below((uint32_t)n + 1);
    bs_keystream_local(c, ks, counter, done, step, in, out);
    f->served += done;
    return done;
}

static bs_keystream_source *flaky_copy(const bs_keystream_source *src)
{
    (void)src;
    return NULL;
}

static void flaky_free(bs_keystream_source *src)
{
    (void)src;
}

static const bs_keystream_ops flaky_ops = {"flaky", flaky_set_key, flaky_fill, flaky_copy,
                                           flaky_free};

static void flaky_init(flaky *f, int mode)
{
    memset(f, 0, sizeof *f);
    f->base.ops = &flaky_ops;
    f->mode = mode;
    f->contiguous = 1;
}

static bs_ctr_ctx *ctx_new(void)
{
    bs_ctr_ctx *c = (bs_ctr_ctx *)aligned_alloc(64, (sizeof(bs_ctr_ctx) + 63) / 64 * 64);
    assert_non_null(c);
    memset(c, 0, sizeof *c);
    return c;
}

/* An IV whose counter carries out of its low 32 (carry 4) or 64 (carry 8) bits within reach. */
static void carry_iv(const bs_block_cipher *c, uint8_t *iv, int carry)
{
    size_t il = bs_ctr_iv_len(c), bl = c->block_len;
    bs_test_fill(iv, il);
    if (carry == 0 || bl > il)
        return; /* IV || 0: the low bytes start at zero, no carry in reach */
    memset(iv + bl - carry, 0xff, (size_t)carry);
    iv[bl - 1] = (uint8_t)(0xff - bs_test_below(40));
    if (carry == 8 && bl == 8)
        iv[0] = 0x7f; /* a 64-bit block would wrap: carry inside it instead */
}

static void same_position(const bs_ctr_ctx *a, const bs_ctr_ctx *b, size_t bl)
{
    uint8_t ca[32], cb[32];
    unsigned na, nb;
    bs_ctr_position(a, ca, &na);
    bs_ctr_position(b, cb, &nb);
    assert_memory_equal(ca, cb, bl);
    assert_int_equal(na, nb);
    assert_true(bs_ctr_blocks_used(a) == bs_ctr_blocks_used(b));
}

/* Split streams with a source that does random prefixes: reference bytes, same positions. */
static void test_prefix_fallback_is_exact(void **state)
{
    (void)state;
    static uint8_t in[MAXLEN], a[MAXLEN], b[MAXLEN], ref[MAXLEN];
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        const size_t bl = c->block_len;
        for (int iter = 0; iter < 24; iter++) {
            int carry = iter % 3 == 0 ? 0 : iter % 3 == 1 ? 4 : 8;
            uint8_t key[BS_KEY_MAX], iv[32];
            bs_test_fill(key, c->key_len);
            carry_iv(c, iv, carry);
            flaky f;
            flaky_init(&f, iter < 3 ? iter : 0);
            bs_ctr_ctx *x = ctx_new(), *y = ctx_new();
            bs_ctr_set_source(x, &f.base);
            assert_int_equal(bs_ctr_set_key(x, c, key, c->key_len), BS_OK);
            assert_int_equal(f.keys, 1);
            assert_memory_equal(f.key, key, c->key_len);
            assert_int_equal(bs_ctr_set_key(y, c, key, c->key_len), BS_OK);
            assert_int_equal(bs_ctr_set_iv(x, iv, bs_ctr_iv_len(c)), BS_OK);
            assert_int_equal(bs_ctr_set_iv(y, iv, bs_ctr_iv_len(c)), BS_OK);
            size_t len = 1 + bs_test_below(MAXLEN);
            bs_test_fill(in, len);
            bs_ref_ctr(c->name, key, iv, in, ref, len);
            for (size_t off = 0; off < len;) {
                size_t piece = bs_test_below(2) ? 1 + bs_test_below(3 * (uint32_t)bl)
                                                : 1 + bs_test_below((uint32_t)(len - off));
                if (piece > len - off)
                    piece = len - off;
                memcpy(a + off, in + off, piece); /* in place for the source's context */
                assert_int_equal(bs_ctr_crypt(x, a + off, a + off, piece), BS_OK);
                assert_int_equal(bs_ctr_crypt(y, b + off, in + off, piece), BS_OK);
                same_position(x, y, bl);
                if (bs_test_below(8) == 0) {
                    unsigned num = bs_test_below((uint32_t)bl);
                    assert_int_equal(bs_ctr_set_num(x, num), bs_ctr_set_num(y, num));
                    same_position(x, y, bl);
                    break; /* the stream left the reference's: stop comparing bytes */
                }
                off += piece;
                if (off == len) {
                    assert_memory_equal(a, ref, len);
                    assert_memory_equal(b, ref, len);
                }
            }
            assert_true(f.asked >= f.served);
            if (f.mode == 1)
                assert_true(f.served == 0);
            bs_ctr_clear(x);
            bs_ctr_clear(y);
            free(x);
            free(y);
        }
    }
}

/* A stream read in pieces asks the source for consecutive counters (it can prefetch). */
static void test_requests_are_contiguous(void **state)
{
    (void)state;
    static uint8_t buf[MAXLEN];
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        uint8_t key[BS_KEY_MAX], iv[32];
        bs_test_fill(key, c->key_len);
        carry_iv(c, iv, 4);
        flaky f;
        flaky_init(&f, 2);
        bs_ctr_ctx *x = ctx_new();
        bs_ctr_set_source(x, &f.base);
        assert_int_equal(bs_ctr_set_key(x, c, key, c->key_len), BS_OK);
        assert_int_equal(bs_ctr_set_iv(x, iv, bs_ctr_iv_len(c)), BS_OK);
        size_t total = 0;
        for (int i = 0; i < 60; i++) {
            size_t piece = 1 + bs_test_below(i % 2 ? 7 : MAXLEN);
            assert_int_equal(bs_ctr_crypt(x, buf, buf, piece), BS_OK);
            total += piece;
        }
        assert_true(f.contiguous);
        /* Whole blocks, and never more than one read-ahead pass beyond the bytes used. */
        assert_true(f.asked * c->block_len >= total);
        assert_true(f.asked * c->block_len <= total + BS_CTR_AHEAD_BYTES);
        bs_ctr_clear(x);
        free(x);
    }
}

/* GCM's inc32: the last 4 bytes wrap on their own; the source and the fallback agree on it. */
static void test_inc32_step(void **state)
{
    (void)state;
    static uint8_t got[200 * 32], want[200 * 32], ctrs[200 * 32];
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c) || c->block_len < 16)
            continue;
        const size_t bl = c->block_len;
        bs_ref_encrypt_fn ref = bs_ref_by_name(c->name);
        assert_non_null(ref);
        static bs_key_schedule ks;
        uint8_t key[BS_KEY_MAX], ctr[32], cb[32];
        bs_test_fill(key, c->key_len);
        c->set_key(&ks, key);
        for (int iter = 0; iter < 8; iter++) {
            bs_test_fill(ctr, bl);
            memset(ctr + bl - 4, 0xff, 4);
            ctr[bl - 1] = (uint8_t)(0xff - bs_test_below(100));
            uint64_t n = 1 + bs_test_below(200);
            memcpy(cb, ctr, bl);
            for (uint64_t i = 0; i < n; i++) {
                memcpy(ctrs + i * bl, cb, bl);
                ref(key, cb, want + i * bl);
                bs_store_be32(cb + bl - 4, bs_load_be32(cb + bl - 4) + 1);
            }
            assert_memory_equal(cb, ctr, bl - 4); /* the carry did not leave the last 4 bytes */
            flaky f;
            flaky_init(&f, iter % 3);
            memset(got, 0, sizeof got);
            bs_keystream_fill(&f.base, c, &ks, ctr, n, BS_KS_STEP_INC32, NULL, got);
            assert_memory_equal(got, want, n * bl);
            /* XOR form, in place */
            memcpy(got, ctrs, n * bl);
            bs_keystream_fill(&f.base, c, &ks, ctr, n, BS_KS_STEP_INC32, got, got);
            for (size_t i = 0; i < n * bl; i++)
                assert_int_equal(got[i], (uint8_t)(ctrs[i] ^ want[i]));
        }
    }
}

/* The in-process source: always everything; copy is itself, free does nothing. */
static void test_inproc_source(void **state)
{
    (void)state;
    bs_keystream_source *s = &bs_keystream_inproc;
    assert_ptr_equal(s->ops->copy(s), s);
    s->ops->free(s);
    const bs_block_cipher *c = bs_block_ciphers[0];
    static bs_key_schedule ks;
    uint8_t key[BS_KEY_MAX] = {0}, ctr[32] = {0}, a[64 * 32], b[64 * 32];
    c->set_key(&ks, key);
    assert_true(s->ops->fill(s, c, &ks, ctr, 64, BS_KS_STEP_BLOCK, NULL, a) == 64);
    bs_ctr_keystream(c, &ks, ctr, 64, b);
    assert_memory_equal(a, b, 64 * c->block_len);
}

int main(void)
{
    bs_test_cpu_banner();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inproc_source),
        cmocka_unit_test(test_prefix_fallback_is_exact),
        cmocka_unit_test(test_requests_are_contiguous),
        cmocka_unit_test(test_inc32_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
