/*
 * Every fast core against its byte-wise reference on random keys and blocks: every lane count
 * from 1 to lanes + 1, longer runs, unaligned buffers, in place and out of place.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bitslice.h"
#include "ref/ref.h"
#include "testcpu.h"
#include "testutil.h"

/* Past two passes of the widest cores (512 lanes), for the fixed sizes below. */
#define MAX_BLOCKS 1100
#define RANDOM_MAX (3 * BS_LANES_MAX + 5)

static void check_one(const bs_block_cipher *c, size_t nblocks, int in_place)
{
    bs_ref_encrypt_fn ref = bs_ref_by_name(c->name);
    uint8_t key[BS_KEY_MAX];
    static uint8_t inbuf[MAX_BLOCKS * BS_BLOCK_MAX + 16], outbuf[MAX_BLOCKS * BS_BLOCK_MAX + 16];
    uint8_t expect[BS_BLOCK_MAX];
    bs_key_schedule ks;
    size_t bl = c->block_len;
    size_t ioff = bs_test_below(8), ooff = bs_test_below(8);
    uint8_t *in = inbuf + ioff, *out = in_place ? in : outbuf + ooff;

    bs_test_fill(key, c->key_len);
    bs_test_fill(in, nblocks * bl);
    uint8_t *orig = malloc(nblocks * bl + 1);
    assert_non_null(orig);
    memcpy(orig, in, nblocks * bl);
    c->set_key(&ks, key);
    c->encrypt(&ks, out, in, nblocks);
    for (size_t i = 0; i < nblocks; i++) {
        ref(key, orig + i * bl, expect);
        if (memcmp(out + i * bl, expect, bl) != 0) {
            bs_test_hexdump("key", key, c->key_len);
            bs_test_hexdump("plaintext", orig + i * bl, bl);
            bs_test_hexdump("reference", expect, bl);
            bs_test_hexdump("fast", out + i * bl, bl);
            fail_msg("%s/%s: block %zu of %zu differs (%s)", c->name, c->impl, i, nblocks,
                     in_place ? "in place" : "out of place");
        }
    }
    free(orig);
}

static void test_random_vs_reference(void **state)
{
    (void)state;
    int ciphers = 0;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        /*
         * Every descriptor, whether or not this CPU runs it: a batch (bitslice.h) is whole passes
         * of lanes, fits CTR's read-ahead, and batch_from lies inside it.
         */
        assert_true(c->lanes >= 1 && c->lanes <= BS_LANES_MAX);
        if (c->batch != 0 &&
            (c->batch <= c->lanes || c->batch > BS_BATCH_MAX || c->batch % c->lanes != 0 ||
             c->batch_from < 1 || c->batch_from > c->batch))
            fail_msg("%s/%s: batch %u, batch_from %u, lanes %u", c->name, c->impl, c->batch,
                     c->batch_from, c->lanes);
        if (!bs_test_impl_usable(c))
            continue;
        assert_non_null(bs_ref_by_name(c->name));
        /* every lane count, both ways */
        for (size_t n = 1; n <= c->lanes + 1; n++) {
            check_one(c, n, 0);
            check_one(c, n, 1);
        }
        /* at least 1000 random (key, length) cases, long runs included */
        for (int i = 0; i < 1000; i++)
            check_one(c, 1 + bs_test_below(RANDOM_MAX), (int)bs_test_below(2));
        /* around the wide cores' pass and narrow-path edges (SPEEDY's: 2, 128, 256 lanes) */
        static const size_t edges[] = {79,  80,  81,  127, 128, 129, 159, 160, 161,      255,
                                       256, 257, 511, 512, 513, 514, 640, 672, 1024 + 75};
        for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
            check_one(c, edges[e], (int)(e & 1));
        ciphers++;
    }
    assert_true(ciphers >= 5);
}

static void test_zero_blocks(void **state)
{
    (void)state;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_test_impl_usable(c))
            continue;
        uint8_t key[BS_KEY_MAX] = {0}, buf[BS_BLOCK_MAX], copy[BS_BLOCK_MAX];
        bs_key_schedule ks;
        bs_test_fill(buf, sizeof buf);
        memcpy(copy, buf, sizeof buf);
        c->set_key(&ks, key);
        c->encrypt(&ks, buf, buf, 0);
        assert_memory_equal(buf, copy, sizeof buf);
    }
}

/*
 * set_key_encrypt (where a core has it) is set_key then encrypt: the same schedule, byte for byte
 * over the whole bs_key_schedule (the words it does not write left as they were), and the same
 * blocks, for 0..9 blocks (its fused path and past it), in place and out, unaligned.
 */
static void test_set_key_encrypt(void **state)
{
    (void)state;
    int cores = 0;
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (c->set_key_encrypt == NULL || !bs_test_impl_usable(c))
            continue;
        cores++;
        static bs_key_schedule a, b;
        static uint8_t in[10 * BS_BLOCK_MAX + 8], outa[sizeof in], outb[sizeof in];
        for (int t = 0; t < 300; t++) {
            uint8_t key[BS_KEY_MAX];
            const size_t n = (size_t)t % 10, off = bs_test_below(8);
            const int in_place = (int)bs_test_below(2);
            bs_test_fill(key, c->key_len);
            bs_test_fill(in, sizeof in);
            bs_test_fill((uint8_t *)&a, sizeof a);
            memcpy(&b, &a, sizeof a);
            memcpy(outa, in, sizeof in);
            memcpy(outb, in, sizeof in);
            c->set_key(&a, key);
            c->encrypt(&a, outa + off, (in_place ? outa : in) + off, n);
            c->set_key_encrypt(&b, key, outb + off, (in_place ? outb : in) + off, n);
            if (memcmp(&a, &b, sizeof a) != 0)
                fail_msg("%s/%s: set_key_encrypt's schedule differs (%zu blocks)", c->name, c->impl,
                         n);
            if (memcmp(outa, outb, sizeof outa) != 0)
                fail_msg("%s/%s: set_key_encrypt's blocks differ (%zu blocks, %s)", c->name,
                         c->impl, n, in_place ? "in place" : "out of place");
        }
    }
    printf("set_key_encrypt checked on %d cores\n", cores);
}

int main(void)
{
    bs_test_cpu_banner();
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_blocks),
        cmocka_unit_test(test_random_vs_reference),
        cmocka_unit_test(test_set_key_encrypt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
