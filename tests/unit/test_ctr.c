/*
 * CTR over every core: one-shot output equals the reference, any split of the stream gives the
 * same bytes, and limits and counter wrap are errors that change nothing.
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
#include "ref/ref.h"
#include "testcpu.h"
#include "testutil.h"

#define MAXLEN 5000

static void keyed(bs_ctr_ctx *ctx, const bs_block_cipher *c, uint8_t *key, uint8_t *iv)
{
    memset(ctx, 0, sizeof *ctx);
    bs_test_fill(key, c->key_len);
    bs_test_fill(iv, bs_ctr_iv_len(c));
    assert_int_equal(bs_ctr_set_key(ctx, c, key, c->key_len), BS_OK);
    assert_int_equal(bs_ctr_set_iv(ctx, iv, bs_ctr_iv_len(c)), BS_OK);
}

static void test_oneshot_and_split(void **state)
{
    (void)state;
    static uint8_t in[MAXLEN], one[MAXLEN], split[MAXLEN], ref[MAXLEN];
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        for (int iter = 0; iter < 60; iter++) {
            uint8_t key[BS_KEY_MAX], iv[32];
            bs_ctr_ctx ctx;
            size_t len = iter < 20 ? (size_t)iter : bs_test_below(MAXLEN);
            keyed(&ctx, c, key, iv);
            bs_test_fill(in, len);
            assert_int_equal(bs_ctr_crypt(&ctx, one, in, len), BS_OK);
            bs_ref_ctr(c->name, key, iv, in, ref, len);
            if (memcmp(one, ref, len) != 0)
                fail_msg("%s CTR one-shot differs from the reference at length %zu", c->name, len);

            /* the same stream in random pieces, including empty ones */
            assert_int_equal(bs_ctr_set_iv(&ctx, iv, bs_ctr_iv_len(c)), BS_OK);
            size_t off = 0;
            while (off < len) {
                size_t piece = bs_test_below(4) == 0 ? bs_test_below(3 * c->block_len + 1)
                                                     : bs_test_below((uint32_t)(len - off + 1));
                if (piece > len - off)
                    piece = len - off;
                assert_int_equal(bs_ctr_crypt(&ctx, split + off, in + off, piece), BS_OK);
                off += piece;
            }
            if (memcmp(one, split, len) != 0)
                fail_msg("%s CTR split stream differs at length %zu", c->name, len);

            /* skipping a prefix (crypted into scratch) then crypting the rest: the same tail */
            size_t cut = bs_test_below((uint32_t)len + 1), cut2 = bs_test_below((uint32_t)len + 1);
            if (cut > cut2) {
                size_t t = cut;
                cut = cut2;
                cut2 = t;
            }
            assert_int_equal(bs_ctr_set_iv(&ctx, iv, bs_ctr_iv_len(c)), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, split, in, cut), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, split + cut, in + cut, cut2 - cut), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, split + cut2, in + cut2, len - cut2), BS_OK);
            assert_memory_equal(one + cut, split + cut, cut2 - cut);

            /* in place */
            memcpy(split, in, len);
            assert_int_equal(bs_ctr_set_iv(&ctx, iv, bs_ctr_iv_len(c)), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, split, split, len), BS_OK);
            assert_memory_equal(one, split, len);
            bs_ctr_clear(&ctx);
        }
    }
}

/* Counters whose low 32 or 64 bits carry inside one bitsliced batch. */
static void test_carries(void **state)
{
    (void)state;
    static uint8_t in[MAXLEN], out[MAXLEN], ref[MAXLEN];
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        size_t il = bs_ctr_iv_len(c), bl = c->block_len;
        for (int carry_bytes = 4; carry_bytes <= 8; carry_bytes += 4) {
            if (bl == 8 && carry_bytes == 8)
                continue; /* a 64-bit block cannot carry past its top: that is the wrap */
            uint8_t key[BS_KEY_MAX], iv[32];
            bs_ctr_ctx ctx;
            keyed(&ctx, c, key, iv);
            /* Rijndael-256 and SPEEDY count in the bytes past the IV, which start at zero. */
            if (bl > 16)
                continue;
            memset(iv + il - carry_bytes, 0xff, (size_t)carry_bytes);
            iv[il - 1] = (uint8_t)(0x100 - 5 - bs_test_below(40));
            size_t len = 100 * bl + 3;
            bs_test_fill(in, len);
            assert_int_equal(bs_ctr_set_iv(&ctx, iv, il), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, out, in, len), BS_OK);
            bs_ref_ctr(c->name, key, iv, in, ref, len);
            if (memcmp(out, ref, len) != 0)
                fail_msg("%s (%s): CTR differs across a %d-bit carry", c->name, c->impl,
                         carry_bytes * 8);
            bs_ctr_clear(&ctx);
        }
    }
}

/*
 * A core's own counter mode (bs_block_cipher.ctr32) against encrypt() of the counter blocks written
 * out: random counters whose last 4 bytes wrap modulo 2^32 inside the call, every block count up to
 * 3 passes of the widest core, keystream only, out of place and in place, unaligned; and the 64
 * bytes after the last block are left as they were (partial passes store under a mask).
 */
static void test_core_ctr32(void **state)
{
    (void)state;
    enum { MAXB = 3 * 512 + 7 };
    enum { GUARD = 64 };
    static uint8_t cb[MAXB * BS_BLOCK_MAX], in[MAXB * BS_BLOCK_MAX + 8 + GUARD],
        out[MAXB * BS_BLOCK_MAX + 8 + GUARD];
    int tested = 0;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        bs_ctr32_fn f = c->ctr32;
        if (f == NULL)
            continue;
        const size_t bl = c->block_len;
        for (int iter = 0; iter < 300; iter++) {
            uint8_t key[BS_KEY_MAX], ctr[BS_BLOCK_MAX];
            bs_key_schedule ks;
            size_t n = iter < 70 ? (size_t)iter + 1 : 1 + bs_test_below(MAXB);
            bs_test_fill(key, c->key_len);
            bs_test_fill(ctr, bl);
            if (iter % 2)
                bs_store_be32(ctr + bl - 4, (uint32_t)0 - 1 - bs_test_below((uint32_t)n));
            c->set_key(&ks, key);
            uint32_t low = bs_load_be32(ctr + bl - 4);
            for (size_t i = 0; i < n; i++) {
                memcpy(cb + i * bl, ctr, bl);
                bs_store_be32(cb + i * bl + bl - 4, low + (uint32_t)i);
            }
            c->encrypt(&ks, cb, cb, n);
            size_t ioff = bs_test_below(8), ooff = bs_test_below(8);
            int mode = (int)bs_test_below(3); /* 0: keystream, 1: out of place, 2: in place */
            uint8_t *src = in + ioff, *dst = mode == 2 ? src : out + ooff;
            bs_test_fill(src, n * bl);
            for (size_t i = 0; mode != 0 && i < n * bl; i++)
                cb[i] ^= src[i];
            uint8_t after[GUARD];
            bs_test_fill(dst + n * bl, GUARD);
            memcpy(after, dst + n * bl, GUARD);
            f(&ks, ctr, mode == 0 ? NULL : src, dst, n);
            if (memcmp(dst + n * bl, after, GUARD) != 0)
                fail_msg("%s/%s: ctr32 wrote past its %zu blocks (mode %d)", c->name, c->impl, n,
                         mode);
            if (memcmp(dst, cb, n * bl) != 0)
                fail_msg("%s/%s: ctr32 differs from encrypt() of the counters (%zu blocks, mode "
                         "%d, counter word %08x)",
                         c->name, c->impl, n, mode, low);
        }
        printf("%s/%s: ctr32 matches encrypt()\n", c->name, c->impl);
        tested++;
    }
    printf("%d implementations with their own counter mode tested\n", tested);
}

/*
 * The wide cores' counter mode (bs_block_cipher.ctr32) inside whole passes: streams of up to three
 * 512-block passes plus odd bytes, cut into random pieces, whose counter carries out of its
 * low 8, 24, 32 or 64 bits somewhere inside, against the reference.
 */
static void test_wide_stream_carries(void **state)
{
    (void)state;
    enum { WMAX = 3 * 512 * 16 + 77 };
    static uint8_t in[WMAX], out[WMAX], ref[WMAX];
    int tested = 0;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c) || c->ctr32 == NULL)
            continue;
        const size_t il = bs_ctr_iv_len(c), bl = c->block_len;
        if (bl > 16 || il != bl)
            continue; /* the whole block is the counter: the reference counts it from the IV */
        for (int iter = 0; iter < 8; iter++) {
            /*
             * A random IV carries out of its low byte anyway; else out of 3 bytes (inside the
             * core's 32-bit counter), 4 or 8 (where the mode splits the call).
             */
            static const size_t carries[4] = {1, 3, 4, 8};
            const size_t carry_bytes = carries[iter % 4];
            if (carry_bytes == bl)
                continue; /* a 64-bit block cannot carry past its top: that is the wrap */
            uint8_t key[BS_KEY_MAX], iv[32];
            bs_ctr_ctx ctx;
            keyed(&ctx, c, key, iv);
            const size_t len = WMAX / 16 * bl - bs_test_below(600 * (uint32_t)bl);
            if (carry_bytes > 1) {
                /* the carry falls somewhere in the first two passes */
                const uint32_t low = 0xffffu - bs_test_below(1024);
                memset(iv + il - carry_bytes, 0xff, carry_bytes);
                iv[il - 2] = (uint8_t)(low >> 8);
                iv[il - 1] = (uint8_t)low;
            }
            bs_test_fill(in, len);
            assert_int_equal(bs_ctr_set_iv(&ctx, iv, il), BS_OK);
            size_t off = 0;
            while (off < len) {
                size_t piece = bs_test_below(3) == 0 ? bs_test_below(40 * (uint32_t)bl)
                                                     : bs_test_below((uint32_t)(len - off + 1));
                if (piece > len - off)
                    piece = len - off;
                assert_int_equal(bs_ctr_crypt(&ctx, out + off, in + off, piece), BS_OK);
                off += piece;
            }
            bs_ref_ctr(c->name, key, iv, in, ref, len);
            if (memcmp(out, ref, len) != 0)
                fail_msg("%s/%s: wide CTR differs across a %zu-bit carry (%zu bytes)", c->name,
                         c->impl, 8 * carry_bytes, len);
            bs_ctr_clear(&ctx);
        }
        tested++;
    }
    printf("%d implementations with their own counter mode tested over carries\n", tested);
}

/* bs_ctr_keystream over a carry out of the last 4 bytes: the core's ctr32 is split there. */
static void test_keystream_carry(void **state)
{
    (void)state;
    static uint8_t ks_out[300 * BS_BLOCK_MAX], expect[300 * BS_BLOCK_MAX];
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        const size_t bl = c->block_len;
        uint8_t key[BS_KEY_MAX], ctr[BS_BLOCK_MAX], cur[BS_BLOCK_MAX];
        bs_key_schedule ks;
        bs_test_fill(key, c->key_len);
        bs_test_fill(ctr, bl);
        ctr[0] &= 0x7f; /* no wrap of the whole block */
        bs_store_be32(ctr + bl - 4, (uint32_t)0 - 1 - bs_test_below(200));
        c->set_key(&ks, key);
        memcpy(cur, ctr, bl);
        for (size_t i = 0; i < 300; i++) {
            memcpy(expect + i * bl, cur, bl);
            bs_ctr_add(cur, bl, 1);
        }
        c->encrypt(&ks, expect, expect, 300);
        bs_ctr_keystream(c, &ks, ctr, 300, ks_out);
        if (memcmp(ks_out, expect, 300 * bl) != 0)
            fail_msg("%s/%s: keystream differs across a 32-bit carry", c->name, c->impl);
    }
}

static void test_bad_lengths(void **state)
{
    (void)state;
    uint8_t key[BS_KEY_MAX + 1] = {0}, iv[40] = {0};
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        bs_ctr_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len + 1), BS_ERR_KEY_LENGTH);
        assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len - 1), BS_ERR_KEY_LENGTH);
        uint8_t b[4] = {0};
        assert_int_equal(bs_ctr_crypt(&ctx, b, b, 4), BS_ERR_STATE);
        assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len), BS_OK);
        assert_int_equal(bs_ctr_set_iv(&ctx, iv, bs_ctr_iv_len(c) + 1), BS_ERR_IV_LENGTH);
        assert_int_equal(bs_ctr_set_iv(&ctx, iv, bs_ctr_iv_len(c) - 1), BS_ERR_IV_LENGTH);
    }
}

static void test_counter_wrap(void **state)
{
    (void)state;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        uint8_t key[BS_KEY_MAX] = {0}, iv[32], buf[4 * BS_BLOCK_MAX] = {0}, ref[4 * BS_BLOCK_MAX];
        size_t bl = c->block_len, il = bs_ctr_iv_len(c);
        bs_ctr_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        memset(iv, 0xff, sizeof iv);
        assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len), BS_OK);
        if (bl > 16) {
            /* IV || 0^16 (0^8) counts 2^128 (2^64) blocks before it wraps: out of reach. */
            assert_int_equal(bs_ctr_set_iv(&ctx, iv, il), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, sizeof buf), BS_OK);
            continue;
        }
        /* two blocks before the wrap: 2 blocks pass, the third fails and changes nothing */
        iv[il - 1] = 0xfe;
        assert_int_equal(bs_ctr_set_iv(&ctx, iv, il), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, bl + 3), BS_OK);
        uint8_t zeros[4 * BS_BLOCK_MAX] = {0};
        bs_ref_ctr(c->name, key, iv, zeros, ref, 2 * bl);
        assert_memory_equal(buf, ref, bl + 3);
        uint8_t before[4 * BS_BLOCK_MAX];
        memcpy(before, buf, sizeof buf);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, bl), BS_ERR_COUNTER_WRAP);
        assert_memory_equal(buf, before, sizeof buf);
        /* what is left of the second block is still served */
        assert_int_equal(bs_ctr_crypt(&ctx, buf + bl + 3, buf + bl + 3, bl - 3), BS_OK);
        assert_memory_equal(buf, ref, 2 * bl);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 1), BS_ERR_COUNTER_WRAP);
        /* a key, the same or another, does not unwrap the counter (EVP's key-only re-init) */
        assert_int_equal(bs_ctr_rekey(&ctx, c, key, c->key_len), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 1), BS_ERR_COUNTER_WRAP);
        assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 1), BS_ERR_COUNTER_WRAP);
        /* a new IV starts over */
        assert_int_equal(bs_ctr_set_iv(&ctx, key, il), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 1), BS_OK);
    }
}

static void test_data_limit(void **state)
{
    (void)state;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        uint8_t key[BS_KEY_MAX] = {0}, iv[32] = {0}, buf[10 * BS_BLOCK_MAX] = {0};
        size_t bl = c->block_len;
        bs_ctr_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len), BS_OK);
        assert_int_equal(bs_ctr_set_iv(&ctx, iv, bs_ctr_iv_len(c)), BS_OK);
        if (bl == 8)
            assert_int_equal(ctx.block_limit, (uint64_t)1 << 32);
        bs_ctr_set_block_limit(&ctx, 5);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 4 * bl + 1), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, bl), BS_ERR_DATA_LIMIT);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, bl - 1), BS_OK);
        /* the limit is per key: a new IV does not reset it, a new key does */
        assert_int_equal(bs_ctr_set_iv(&ctx, iv, bs_ctr_iv_len(c)), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 1), BS_ERR_DATA_LIMIT);
        assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 1), BS_OK);
        /* a limit set below what was already used stops the stream, and does not wrap */
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 3 * bl), BS_OK);
        assert_true(bs_ctr_blocks_left(&ctx) > 2);
        bs_ctr_set_block_limit(&ctx, 2);
        assert_true(bs_ctr_blocks_left(&ctx) == 0);
        /* 1 + 3 bl bytes were used: bl - 1 bytes of keystream are pending, no more */
        assert_true(bs_ctr_blocks_used(&ctx) == 4);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, bl), BS_ERR_DATA_LIMIT);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, bl - 1), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 1), BS_ERR_DATA_LIMIT);
        /* a limit cannot be raised above the absolute one */
        bs_ctr_set_block_limit(&ctx, UINT64_MAX);
        assert_int_equal(ctx.block_limit, bl == 8 ? (uint64_t)1 << 32 : UINT64_MAX);
    }
}

/*
 * A new key, of the same cipher or another one with the same block length, goes on at the next
 * counter block past a partly used one, however far the old key's pass read ahead.
 */
static void test_rekey_other_cipher(void **state)
{
    (void)state;
    int pairs = 0;
    for (size_t a = 0; bs_block_ciphers[a] != NULL; a++) {
        for (size_t b = 0; bs_block_ciphers[b] != NULL; b++) {
            const bs_block_cipher *c1 = bs_block_ciphers[a], *c2 = bs_block_ciphers[b];
            /* the reference starts at IV + 1: ciphers whose IV is the whole counter block */
            if (c1->block_len != c2->block_len || bs_ctr_iv_len(c1) != c1->block_len ||
                bs_ctr_iv_len(c2) != c2->block_len || !bs_test_impl_usable(c1) ||
                !bs_test_impl_usable(c2))
                continue;
            const size_t bl = c1->block_len, n = 3 * bl;
            uint8_t k1[BS_KEY_MAX], k2[BS_KEY_MAX], iv[32], iv1[32], buf[96], want[96];
            bs_ctr_ctx ctx, ref;
            keyed(&ctx, c1, k1, iv);
            memset(buf, 0, sizeof buf);
            assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 5), BS_OK);
            bs_test_fill(k2, c2->key_len);
            k2[0] ^= 0x5a;
            assert_int_equal(bs_ctr_set_key(&ctx, c2, k2, c2->key_len), BS_OK);
            memset(buf, 0, sizeof buf);
            assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, n), BS_OK);
            memcpy(iv1, iv, bl);
            bs_ctr_add(iv1, bl, 1);
            memset(&ref, 0, sizeof ref);
            assert_int_equal(bs_ctr_set_key(&ref, c2, k2, c2->key_len), BS_OK);
            assert_int_equal(bs_ctr_set_iv(&ref, iv1, bl), BS_OK);
            memset(want, 0, sizeof want);
            assert_int_equal(bs_ctr_crypt(&ref, want, want, n), BS_OK);
            if (memcmp(buf, want, n) != 0)
                fail_msg("%s then %s: the new key did not start at the next block", c1->name,
                         c2->name);
            bs_ctr_clear(&ctx);
            bs_ctr_clear(&ref);
            pairs++;
        }
    }
    assert_true(pairs > 0);
}

/*
 * New key, keep the count (bs_ctr_rekey): the stream goes on at the next block under the new
 * key, the blocks of the old key stay counted against the kept limit, and a refused rekey
 * changes nothing.
 */
static void test_rekey_keeps_count(void **state)
{
    (void)state;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        const size_t bl = c->block_len, ivl = bs_ctr_iv_len(c);
        uint8_t k1[BS_KEY_MAX], k2[BS_KEY_MAX], iv[32] = {0}, ctr3[BS_BLOCK_MAX] = {0};
        uint8_t buf[4 * BS_BLOCK_MAX], want[4 * BS_BLOCK_MAX];
        bs_ctr_ctx ctx, ref;
        keyed(&ctx, c, k1, iv);
        bs_ctr_set_block_limit(&ctx, 5);
        memset(buf, 0, sizeof buf);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 2 * bl + 1), BS_OK);
        bs_test_fill(k2, c->key_len);
        k2[0] ^= 0xa5;
        /* refused: nothing changes, the old key's stream goes on mid-block */
        assert_int_equal(bs_ctr_rekey(&ctx, c, k2, c->key_len + 1), BS_ERR_KEY_LENGTH);
        assert_int_equal(bs_ctr_rekey(&ctx, c, NULL, c->key_len), BS_ERR_ARG);
        assert_true(bs_ctr_blocks_used(&ctx) == 3);
        assert_true(bs_ctr_blocks_left(&ctx) == 2);
        assert_int_equal(bs_ctr_rekey(&ctx, c, k2, c->key_len), BS_OK);
        /* three blocks were started under the old key: two of the limit's five are left */
        assert_true(bs_ctr_blocks_used(&ctx) == 3);
        assert_true(bs_ctr_blocks_left(&ctx) == 2);
        memset(buf, 0, sizeof buf);
        assert_int_equal(bs_ctr_crypt(&ctx, buf, buf, 2 * bl), BS_OK);
        assert_int_equal(bs_ctr_crypt(&ctx, buf + 2 * bl, buf + 2 * bl, 1), BS_ERR_DATA_LIMIT);
        /* the new key's keystream from counter IV + 3 */
        memcpy(ctr3, iv, ivl);
        bs_ctr_add(ctr3, bl, 3);
        memset(want, 0, sizeof want);
        bs_ctr_keystream(c, &ctx.ks, ctr3, 2, want);
        if (memcmp(buf, want, 2 * bl) != 0)
            fail_msg("%s/%s: rekey did not go on at the next block", c->name, c->impl);
        /* a key set afresh resets the count; rekey on a context without a key is set_key */
        assert_int_equal(bs_ctr_set_key(&ctx, c, k2, c->key_len), BS_OK);
        assert_true(bs_ctr_blocks_used(&ctx) == 0);
        memset(&ref, 0, sizeof ref);
        assert_int_equal(bs_ctr_rekey(&ref, c, k2, c->key_len), BS_OK);
        assert_int_equal(bs_ctr_set_iv(&ref, iv, ivl), BS_OK);
        assert_true(bs_ctr_blocks_used(&ref) == 0);
        assert_true(bs_ctr_blocks_left(&ref) == (bl == 8 ? (uint64_t)1 << 32 : UINT64_MAX));
        bs_ctr_clear(&ctx);
        bs_ctr_clear(&ref);
    }
}

/*
 * The read-ahead of the cores with a batch (bitslice.h; ctr.h keeps the unused keystream of a
 * whole batch for the next call), and of every other core: streams cut into pieces of 1 .. N
 * bytes (runs of one size, 1 KiB calls as `openssl speed` makes, random sizes up to two batches)
 * that fall on both sides of batch boundaries, over counters whose low bytes carry inside a
 * batch, with a new IV or a new key (bs_ctr_rekey: the next block) in the middle, against the
 * reference.
 */
static void test_batch_streams(void **state)
{
    (void)state;
    enum { SMAX = 3 * BS_BATCH_MAX * 24 + 99 };
    static uint8_t in[SMAX], out[SMAX], ks1[SMAX], ks2[SMAX + BS_BLOCK_MAX], zero[SMAX];
    int batched = 0;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        const size_t bl = c->block_len, il = bs_ctr_iv_len(c);
        const size_t batch = c->batch > c->lanes ? c->batch : c->lanes;
        const size_t max = c->batch != 0 ? SMAX / 24 * bl : 3 * BS_LANES_MAX * bl + 99;
        batched += c->batch != 0;
        for (int iter = 0; iter < 6; iter++) {
            uint8_t key[BS_KEY_MAX], key2[BS_KEY_MAX], iv[32], iv2[32];
            bs_ctr_ctx ctx;
            keyed(&ctx, c, key, iv);
            if (iter % 2 == 1 && il == bl) {
                /* the low 3 or 5 bytes carry somewhere in the first batch */
                const size_t carry = iter % 4 == 1 ? 3 : 5;
                memset(iv + il - carry, 0xff, carry - 1);
                iv[il - 1] = (uint8_t)(0x100 - 1 - bs_test_below((uint32_t)batch));
                assert_int_equal(bs_ctr_set_iv(&ctx, iv, il), BS_OK);
            }
            const size_t len = max - bs_test_below((uint32_t)(batch * bl));
            const size_t cut = 1 + bs_test_below((uint32_t)len - 1);
            const int change = iter % 3; /* 0: none, 1: a new IV at cut, 2: a new key at cut */
            bs_test_fill(in, len);
            bs_test_fill(key2, c->key_len);
            bs_test_fill(iv2, il);
            size_t off = 0, run = 1 + bs_test_below(3 * (uint32_t)bl);
            while (off < len) {
                size_t piece;
                switch ((iter + off / 7) % 4) {
                case 0: /* short pieces, one size for a while */
                    if (bs_test_below(64) == 0)
                        run = 1 + bs_test_below(3 * (uint32_t)bl);
                    piece = run;
                    break;
                case 1:
                    piece = 1024;
                    break;
                case 2: /* up to a batch boundary, and one byte either side */
                    piece = batch * bl - off % (batch * bl) + bs_test_below(3) - 1;
                    break;
                default:
                    piece = bs_test_below(2 * (uint32_t)(batch * bl));
                    break;
                }
                if (off < cut && off + piece > cut)
                    piece = cut - off;
                if (piece > len - off)
                    piece = len - off;
                if (off == cut && change == 1)
                    assert_int_equal(bs_ctr_set_iv(&ctx, iv2, il), BS_OK);
                if (off == cut && change == 2)
                    assert_int_equal(bs_ctr_rekey(&ctx, c, key2, c->key_len), BS_OK);
                assert_int_equal(bs_ctr_crypt(&ctx, out + off, in + off, piece), BS_OK);
                off += piece;
            }
            bs_ref_ctr(c->name, key, iv, zero, ks1, len);
            for (size_t i = 0; i < len; i++)
                in[i] ^= ks1[i]; /* what the stream wants, where no change came */
            if (change == 1) {
                bs_ref_ctr(c->name, key, iv2, zero, ks2, len - cut);
                for (size_t i = cut; i < len; i++)
                    in[i] ^= ks1[i] ^ ks2[i - cut];
            } else if (change == 2) {
                /* the new key from the next block on: its keystream at that block's counter */
                const size_t skip = (cut + bl - 1) / bl * bl;
                bs_ref_ctr(c->name, key2, iv, zero, ks2, skip + len - cut);
                for (size_t i = cut; i < len; i++)
                    in[i] ^= ks1[i] ^ ks2[skip + i - cut];
            }
            if (memcmp(out, in, len) != 0) {
                size_t at = 0;
                while (out[at] == in[at])
                    at++;
                fail_msg("%s/%s: split stream differs at byte %zu of %zu (change %d at %zu)",
                         c->name, c->impl, at, len, change, cut);
            }
            bs_ctr_clear(&ctx);
        }
    }
    printf("%d implementations with a batch tested over split streams\n", batched);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether any 8-byte piece of ks[0..n) (at a multiple of 8) is in the n2 bytes at p. */
static int holds_keystream(const void *p, size_t n2, const uint8_t *ks, size_t n)
{
    static uint64_t pieces[2 * BS_BATCH_MAX * BS_BLOCK_MAX / 8];
    size_t np = 0;
    for (size_t j = 0; j + 8 <= n && np < sizeof pieces / sizeof pieces[0]; j += 8) {
        memcpy(&pieces[np], ks + j, 8);
        np += pieces[np] != 0;
    }
    qsort(pieces, np, sizeof pieces[0], cmp_u64);
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i + 8 <= n2; i++) {
        uint64_t v;
        memcpy(&v, b + i, 8);
        if (v != 0 && bsearch(&v, pieces, np, sizeof v, cmp_u64) != NULL)
            return 1;
    }
    return 0;
}

/*
 * The keystream a context computed ahead and did not use is wiped wherever it leaves: a new
 * IV, a new key, a copy (bs_ctr_copy keeps the partly used block only), a new limit, a move
 * of num, and the clear (every byte of the context). Each step is checked by looking for 8-byte
 * pieces of that keystream (from the reference) anywhere in the context.
 */
/*
 * A read-ahead shorter than the one before (a block limit ends the stream inside a batch): the
 * bytes of ahead[] past ahead_len are zero after every call (ctr.h), and the stream is the
 * reference's up to the limit.
 */
static void test_shorter_read_ahead(void **state)
{
    (void)state;
    enum { KMAX = 4 * BS_BATCH_MAX * BS_BLOCK_MAX };
    static uint8_t ks[KMAX], zero[KMAX], buf[KMAX];
    static bs_ctr_ctx ctx;
    int shorter = 0, batched = 0;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c) || c->batch == 0)
            continue;
        batched++;
        const size_t bl = c->block_len;
        for (int round = 0; round < 4; round++) {
            uint8_t key[BS_KEY_MAX], iv[32];
            keyed(&ctx, c, key, iv);
            const uint64_t limit = 2 * (uint64_t)c->batch + 1 + bs_test_below(c->batch - 1);
            bs_ctr_set_block_limit(&ctx, limit);
            bs_ref_ctr(c->name, key, iv, zero, ks, (size_t)limit * bl);
            size_t at = 0;
            unsigned longest = 0;
            for (;;) {
                const size_t len = 1 + bs_test_below(3 * (uint32_t)bl * c->lanes);
                const int rc = bs_ctr_crypt(&ctx, buf, zero, len);
                if (rc != BS_OK) {
                    assert_int_equal(rc, BS_ERR_DATA_LIMIT);
                    break;
                }
                assert_memory_equal(buf, ks + at, len);
                at += len;
                if (ctx.ahead_len > longest)
                    longest = ctx.ahead_len;
                else if (ctx.ahead_len > 0 && ctx.ahead_len < longest)
                    shorter++;
                for (size_t i = ctx.ahead_len; i < sizeof ctx.ahead; i++)
                    if (ctx.ahead[i] != 0)
                        fail_msg("%s/%s: ahead[%zu] past ahead_len %u not zero", c->name, c->impl,
                                 i, ctx.ahead_len);
            }
            bs_ctr_clear(&ctx);
        }
    }
    /* where a core reads batches ahead (none at some CPU levels), the limit made a read-ahead
     * shorter than an earlier one: the case under test ran */
    printf("%d cores with a batch, %d calls read ahead less than before\n", batched, shorter);
    assert_true(batched == 0 || shorter > 0);
}

static void test_read_ahead_wiped(void **state)
{
    (void)state;
    enum { KMAX = 2 * BS_BATCH_MAX * BS_BLOCK_MAX };
    static uint8_t ks[KMAX], zero[KMAX], buf[KMAX];
    static bs_ctr_ctx ctx, copy;
    int seen = 0;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        const size_t bl = c->block_len, il = bs_ctr_iv_len(c);
        for (int step = 0; step < 6; step++) {
            uint8_t key[BS_KEY_MAX], iv[32];
            keyed(&ctx, c, key, iv);
            /* a call mid-block, then one that leaves a batch (or a pass) read ahead */
            const size_t first = 5 + bs_test_below(3 * (uint32_t)bl), used = first + 1000;
            assert_int_equal(bs_ctr_crypt(&ctx, buf, zero, first), BS_OK);
            assert_int_equal(bs_ctr_crypt(&ctx, buf, zero, 1000), BS_OK);
            /* as far as any read-ahead reaches, and the 64 bytes a copy crypts */
            const size_t kn = used + 64 + (c->batch > c->lanes ? c->batch : c->lanes) * bl;
            bs_ref_ctr(c->name, key, iv, zero, ks, kn);
            /* the blocks after the partly used one: computed ahead or not, never kept */
            const size_t from = (used / bl + 1) * bl;
            if (holds_keystream(ctx.ahead, sizeof ctx.ahead, ks + from, kn - from))
                seen++; /* read ahead: what the steps below must wipe */
            const char *what;
            switch (step) {
            case 0:
                what = "a new IV";
                assert_int_equal(bs_ctr_set_iv(&ctx, iv, il), BS_OK);
                break;
            case 1:
                what = "a new key";
                assert_int_equal(bs_ctr_set_key(&ctx, c, key, c->key_len), BS_OK);
                break;
            case 2:
                what = "a limit";
                bs_ctr_set_block_limit(&ctx, UINT64_MAX);
                break;
            case 3:
                what = "a move of num";
                assert_int_equal(bs_ctr_set_num(&ctx, 0), BS_OK);
                break;
            case 4: {
                what = "a copy";
                memset(&copy, 0x5a, sizeof copy);
                bs_ctr_copy(&copy, &ctx);
                if (holds_keystream(&copy, sizeof copy, ks + from, kn - from))
                    fail_msg("%s/%s: a copy holds keystream read ahead", c->name, c->impl);
                /* the copy goes on with the stream, as the original does */
                uint8_t a[64], b[64];
                assert_int_equal(bs_ctr_crypt(&copy, a, zero, sizeof a), BS_OK);
                assert_int_equal(bs_ctr_crypt(&ctx, b, zero, sizeof b), BS_OK);
                assert_memory_equal(a, ks + used, sizeof a);
                assert_memory_equal(b, ks + used, sizeof b);
                bs_ctr_clear(&copy);
                break;
            }
            default:
                what = "the clear";
                bs_ctr_clear(&ctx);
                for (size_t i = 0; i < sizeof ctx; i++)
                    if (((const uint8_t *)&ctx)[i] != 0)
                        fail_msg("%s/%s: byte %zu of the context not wiped", c->name, c->impl, i);
                break;
            }
            if (step < 4 && holds_keystream(&ctx, sizeof ctx, ks + from, kn - from))
                fail_msg("%s/%s: keystream read ahead kept after %s", c->name, c->impl, what);
            if (step == 0 || step == 1) {
                /* afresh at the IV: bytes past what is held are zero (ctr.h) */
                assert_true(holds_keystream(&ctx, sizeof ctx, ks, kn) == 0);
            }
            bs_ctr_clear(&ctx);
        }
    }
    /* the cores with a batch read ahead at 1000-byte calls: the test saw something to wipe */
    printf("%d contexts held keystream read ahead before the step\n", seen);
    assert_true(seen > 0);
}

static void test_counter_arithmetic(void **state)
{
    (void)state;
    uint8_t c[16];
    memset(c, 0, 16);
    c[7] = 0xff;
    c[15] = 0xff;
    bs_ctr_add(c, 16, 1);
    assert_int_equal(c[15], 0);
    assert_int_equal(c[14], 1);
    assert_int_equal(c[7], 0xff);
    memset(c, 0xff, 16);
    assert_true(bs_ctr_blocks_before_wrap(c, 16) == 1);
    bs_ctr_add(c, 16, 1);
    for (int i = 0; i < 16; i++)
        assert_int_equal(c[i], 0);
    assert_true(bs_ctr_blocks_before_wrap(c, 16) == UINT64_MAX);
    memset(c, 0xff, 8);
    assert_true(bs_ctr_blocks_before_wrap(c, 8) == 1);
    memset(c, 0, 8);
    c[0] = 0xff;
    c[1] = 0xff;
    c[2] = 0xff;
    c[3] = 0xff;
    assert_true(bs_ctr_blocks_before_wrap(c, 8) == (uint64_t)1 << 32);
    bs_ctr_add(c, 8, 0x123456789abull);
    /* ff ff ff ff 00 00 00 00 + 0x123456789ab wraps modulo 2^64 */
    assert_int_equal(c[7], 0xab);
    assert_int_equal(c[4], 0x45);
    assert_int_equal(c[3], 0x22);
    assert_int_equal(c[2], 0x01);
    assert_int_equal(c[0], 0x00);
    /*
     * Against a byte-by-byte sum, every length to 32 bytes, counters with runs of 0xff around
     * the low word's top (where bs_ctr_add carries from its word into the bytes above).
     */
    for (size_t len = 1; len <= 32; len++)
        for (int t = 0; t < 200; t++) {
            uint8_t got[32], want[32];
            for (size_t i = 0; i < len; i++)
                got[i] = (uint8_t)(bs_test_below(3) == 0 ? 0xff : bs_test_below(256));
            uint64_t n = bs_test_rand64();
            if (t % 4 == 1)
                n &= 0xffff;
            if (t % 4 == 2)
                n = ~(uint64_t)0;
            memcpy(want, got, len);
            unsigned carry = 0;
            for (size_t i = len, k = 0; i-- > 0; k++) {
                unsigned sum = want[i] + carry + (k < 8 ? (unsigned)(n >> (8 * k)) & 0xff : 0);
                want[i] = (uint8_t)sum;
                carry = sum >> 8;
            }
            bs_ctr_add(got, len, n);
            assert_memory_equal(got, want, len);
        }
}

int main(void)
{
    bs_test_cpu_banner();
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_arithmetic),
        cmocka_unit_test(test_oneshot_and_split),
        cmocka_unit_test(test_carries),
        cmocka_unit_test(test_core_ctr32),
        cmocka_unit_test(test_keystream_carry),
        cmocka_unit_test(test_wide_stream_carries),
        cmocka_unit_test(test_bad_lengths),
        cmocka_unit_test(test_counter_wrap),
        cmocka_unit_test(test_shorter_read_ahead),
        cmocka_unit_test(test_data_limit),
        cmocka_unit_test(test_rekey_other_cipher),
        cmocka_unit_test(test_rekey_keeps_count),
        cmocka_unit_test(test_batch_streams),
        cmocka_unit_test(test_read_ahead_wiped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
