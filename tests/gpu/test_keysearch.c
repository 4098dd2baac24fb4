/*
 * The key-search engine's CPU path, and its bitsliced key schedules in both word widths (the
 * 32-lane one is the CUDA kernel's code): every lane's ciphertext against the core's encryption
 * under that lane's candidate key; planted keys found; a key outside the search space not found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bsks.h"
#include "testutil.h"

static const char *const names[4] = {"PRESENT-80", "PRESENT-128", "GIFT-64", "GIFT-128"};

/* A mask of n unknown bits at random positions of a kl-byte key. */
static void random_mask(uint8_t *mask, size_t kl, unsigned n)
{
    memset(mask, 0, kl);
    for (unsigned set = 0; set < n;) {
        unsigned i = bs_test_below((uint32_t)(8 * kl));
        if (!(mask[i / 8] & (1u << (i % 8)))) {
            mask[i / 8] |= (uint8_t)(1u << (i % 8));
            set++;
        }
    }
}

static void planted(bsks_search *s, int c, unsigned n, unsigned npairs, uint8_t *key)
{
    const bs_block_cipher *core = bs_block_cipher_by_name(names[c]);
    assert_non_null(core);
    uint8_t mask[16], pt[BSKS_MAX_PAIRS][16], ct[BSKS_MAX_PAIRS][16];
    bs_key_schedule ks;
    char err[128];
    bs_test_fill(key, core->key_len);
    random_mask(mask, core->key_len, n);
    core->set_key(&ks, key);
    for (unsigned p = 0; p < npairs; p++) {
        bs_test_fill(pt[p], core->block_len);
        core->encrypt(&ks, ct[p], pt[p], 1);
    }
    /* The known part as the caller would give it: the unknown bits scrambled. */
    uint8_t given[16];
    for (size_t i = 0; i < core->key_len; i++)
        given[i] = key[i] ^ (mask[i] & (uint8_t)bs_test_rand64());
    assert_int_equal(bsks_prepare(s, names[c], given, mask, (const uint8_t(*)[16])pt,
                                  (const uint8_t(*)[16])ct, npairs, err, sizeof err),
                     0);
}

/* Lane l of chunk q encrypts like the core under candidate q * lanes + l. */
static void test_lanes_match_core(void **state)
{
    (void)state;
    for (int c = 0; c < 4; c++)
        for (int iter = 0; iter < 6; iter++) {
            bsks_search s;
            uint8_t key[16];
            planted(&s, c, 8 + bs_test_below(30), 1, key);
            const bs_block_cipher *core = s.core;
            const uint64_t q = bs_test_rand64() & ((bsks_chunks(&s, 6) - 1));
            uint64_t kw64[128], y64[128];
            uint32_t kw32[128], y32[128], kw32s[3 * 128];
            bsks_key_words_u64(kw64, &s.pb, q);
            bsks_key_words_u32(kw32, &s.pb, 2 * q + 1);
            /* The device keeps GIFT key words in shared memory at a stride: emulate one. */
            for (unsigned i = 0; i < 128; i++)
                kw32s[3 * i] = kw32[i];
            if (s.pb.cipher == BSGPU_GIFT64) {
                bsks_gift64_u64(y64, kw64, 1, &s.pb);
                bsks_gift64_u32(y32, kw32s, 3, &s.pb);
            } else if (s.pb.cipher == BSGPU_GIFT128) {
                bsks_gift128_u64(y64, kw64, 1, &s.pb);
                bsks_gift128_u32(y32, kw32s, 3, &s.pb);
            } else if (s.pb.key_bits == 128) {
                bsks_present_u64(y64, kw64, &s.pb);
                bsks_present128_ring_u32(y32, kw32s, 3, &s.pb);
            } else {
                bsks_present_u64(y64, kw64, &s.pb);
                bsks_present_u32(y32, kw32, &s.pb);
            }
            for (unsigned l = 0; l < 64; l++) {
                uint8_t k[16], ct[16];
                bs_key_schedule ks;
                /* 64-lane chunk q, lane l; 32-lane chunk 2q + 1, lane l - 32: the same key. */
                bsks_candidate_key(&s, q * 64 + l, k);
                core->set_key(&ks, k);
                core->encrypt(&ks, ct, s.pt[0], 1);
                for (unsigned i = 0; i < s.pb.block_bits; i++) {
                    const unsigned bit = (ct[core->block_len - 1 - i / 8] >> (i % 8)) & 1u;
                    assert_int_equal((y64[i] >> l) & 1, bit);
                    if (l >= 32)
                        assert_int_equal((y32[i] >> (l - 32)) & 1, bit);
                }
            }
        }
}

static void test_find_planted(void **state)
{
    (void)state;
    for (int c = 0; c < 4; c++)
        for (unsigned n = 0; n <= 16; n += (n < 7 ? 1 : 9)) {
            bsks_search s;
            uint8_t key[16], found[16];
            uint64_t tried;
            planted(&s, c, n, 2, key);
            const int hit = bsks_search_cpu(&s, 2, 0, bsks_chunks(&s, 6), found, &tried);
            if (hit != 1)
                printf("%s, %u unknown bits: not found\n", names[c], n);
            assert_int_equal(hit, 1);
            assert_memory_equal(found, key, s.core->key_len);
        }
}

/* The case: PRESENT-80 with 20 unknown bits. */
static void test_present80_20_bits(void **state)
{
    (void)state;
    bsks_search s;
    uint8_t key[16], found[16];
    uint64_t tried;
    planted(&s, 0, 20, 2, key);
    assert_int_equal(bsks_search_cpu(&s, 2, 0, bsks_chunks(&s, 6), found, &tried), 1);
    assert_memory_equal(found, key, 10);
    assert_true(tried <= (uint64_t)1 << 20);
}

/* A pair made under a key outside the space (a known bit flipped): nothing is found. */
static void test_not_found(void **state)
{
    (void)state;
    for (int c = 0; c < 4; c++) {
        bsks_search s;
        uint8_t key[16], found[16];
        uint64_t tried;
        planted(&s, c, 12, 2, key);
        unsigned i;
        do
            i = bs_test_below(s.pb.key_bits);
        while (s.pb.unknown_index[i] >= 0);
        s.pb.key_bit[i] ^= 1;
        const size_t kl = s.pb.key_bits / 8;
        s.key[kl - 1 - i / 8] ^= (uint8_t)(1u << (i % 8));
        assert_int_equal(bsks_search_cpu(&s, 2, 0, bsks_chunks(&s, 6), found, &tried), 0);
        assert_int_equal(tried, (uint64_t)1 << 12);
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    bsks_search s;
    uint8_t k[16] = {0}, m[16], pt[1][16] = {{0}}, ct[1][16] = {{0}};
    char err[128];
    memset(m, 0xff, sizeof m);
    assert_int_equal(bsks_prepare(&s, "AES-128", k, m, (const uint8_t(*)[16])pt,
                                  (const uint8_t(*)[16])ct, 1, err, sizeof err),
                     -1);
    assert_int_equal(bsks_prepare(&s, "GIFT-64", k, m, (const uint8_t(*)[16])pt,
                                  (const uint8_t(*)[16])ct, 1, err, sizeof err),
                     -1); /* 128 unknown bits */
    assert_int_equal(bsks_prepare(&s, "GIFT-64", k, k, (const uint8_t(*)[16])pt,
                                  (const uint8_t(*)[16])ct, 0, err, sizeof err),
                     -1);
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lanes_match_core),  cmocka_unit_test(test_find_planted),
        cmocka_unit_test(test_present80_20_bits), cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
