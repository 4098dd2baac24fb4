/*
 * On a CUDA device: bsgpu_keystream (the daemon backend's path, several launches per batch,
 * several streams) against bs_ctr_keystream on random keys, counters and sizes with many
 * sessions per batch, into pageable and registered memory, with the call's keys and with keys
 * resident on the device (loaded into table slots that held another cipher's keys before, half
 * the jobs of a batch from the table, half from the call); windows at the ends of two host
 * ranges registered side by side (as the daemon's mappings of two clients lie); and the CUDA key
 * search. Exits 77 when there is no device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bs_digest_mix.h"
#include "bsgpu.h"
#include "bsks.h"
#include "modes/ctr.h"
#include "testutil.h"

static const bs_block_cipher *const cores[BSGPU_NCIPHERS] = {
    &bs_present80_bs64, &bs_present128_bs64,  &bs_gift64_bs64,
    &bs_gift128_bs64,   &bs_rijndael256_bs64,
};

enum { NJOB = 150, NKEY = 40, MAXB = 20000 };

/* BSGPU_TEST_QUICK=1 (device-check.sh's compute-sanitizer pass, 10-100x slower): fewer and
 * smaller jobs, one stream count, a 2^16 key search. */
static int quick;

/* Slots of the resident table: the keys go to slots NKEY + 7 - k, so that slot and key index
 * differ. */
enum { NSLOT = NKEY + 8 };

/*
 * small: many short jobs, so that launches take the staged copy path (bsgpu_copy_out).
 * resident: the keys are loaded into the context's table first, and odd jobs name their slot.
 */
static void run_batch(bsgpu_ctx *ctx, int c, uint8_t *buf, int registered, int small, int resident)
{
    static bsgpu_job jobs[NJOB];
    static bsgpu_key dk[NKEY];
    static bs_key_schedule ks[NKEY];
    static uint8_t want[MAXB * 32];
    const bs_block_cipher *core = cores[c];
    const size_t bl = core->block_len;
    for (int k = 0; k < NKEY; k++) {
        uint8_t key[32];
        bs_test_fill(key, core->key_len);
        core->set_key(&ks[k], key);
        assert_int_equal(bsgpu_key_from_schedule(&dk[k], core, &ks[k]), 0);
    }
    if (resident) {
        static bsgpu_keyop ops[NKEY];
        for (int k = 0; k < NKEY; k++) {
            ops[k].slot = NSLOT - 1 - (uint32_t)k;
            ops[k].cipher = (uint32_t)c;
            ops[k].load = 1;
        }
        assert_int_equal(bsgpu_keys_update(ctx, ops, dk, NKEY), 0);
    }
    size_t off = 0;
    const int njob = quick ? 12 : NJOB;
    for (int j = 0; j < njob; j++) {
        bs_test_fill(jobs[j].counter, bl);
        if (j % 3 == 1) /* carries across 2^32 and 2^64 in the first blocks */
            memset(jobs[j].counter + bl - (j % 2 ? 4 : 8), 0xff, j % 2 ? 4 : 8);
        const uint32_t r = bs_test_below(8);
        jobs[j].nblocks = r == 0           ? 0
                          : r < 3 || small ? bs_test_below(64)
                                           : bs_test_below(quick ? MAXB / 20 : MAXB);
        jobs[j].key_index = bs_test_below(NKEY);
        jobs[j].dst = buf + off;
        off += jobs[j].nblocks * bl + 8;
    }
    memset(buf, 0xc3, off);
    if (resident)
        for (int j = 1; j < njob; j += 2)
            jobs[j].key_index = (NSLOT - 1 - jobs[j].key_index) | BSGPU_KEY_RESIDENT;
    /* The small batches with the self-check (the daemon's call): one digest kernel a launch. */
    static uint64_t seeds[NJOB], word0s[NJOB], sums[NJOB];
    for (int j = 0; j < njob; j++) {
        uint8_t sd[16];
        bs_test_fill(sd, sizeof sd);
        memcpy(&seeds[j], sd, 8);
        memcpy(&word0s[j], sd + 8, 8);
    }
    const int rc = small && bl % 8 == 0
                       ? bsgpu_keystream_checked(ctx, (bsgpu_cipher)c, dk, NKEY, jobs, (size_t)njob,
                                                 seeds, word0s, sums)
                       : bsgpu_keystream(ctx, (bsgpu_cipher)c, dk, NKEY, jobs, (size_t)njob);
    if (resident)
        for (int j = 1; j < njob; j += 2)
            jobs[j].key_index = NSLOT - 1 - (jobs[j].key_index & ~BSGPU_KEY_RESIDENT);
    if (rc != 0)
        printf("bsgpu_keystream: %d %s\n", rc, bsgpu_last_error(ctx));
    assert_int_equal(rc, 0);
    for (int j = 0; j < njob; j++) {
        bs_ctr_keystream(core, &ks[jobs[j].key_index], jobs[j].counter, jobs[j].nblocks, want);
        if (memcmp(jobs[j].dst, want, jobs[j].nblocks * bl) != 0) {
            printf("%s job %d (%llu blocks, %s memory) differs\n", core->name, j,
                   (unsigned long long)jobs[j].nblocks, registered ? "registered" : "pageable");
            fail();
        }
        assert_int_equal(jobs[j].dst[jobs[j].nblocks * bl], 0xc3);
        if (!(small && bl % 8 == 0))
            continue;
        uint64_t sum = 0;
        for (uint64_t w = 0; w < jobs[j].nblocks * bl / 8; w++) {
            uint64_t x;
            memcpy(&x, want + 8 * w, 8);
            sum += bs_digest_word(seeds[j], word0s[j] + w, x);
        }
        if (sum != sums[j]) {
            printf("%s job %d (%llu blocks): the device's digest differs\n", core->name, j,
                   (unsigned long long)jobs[j].nblocks);
            fail();
        }
    }
}

static void test_keystream(void **state)
{
    (void)state;
    const size_t cap = (size_t)NJOB * (MAXB * 32 + 8);
    uint8_t *buf = (uint8_t *)malloc(cap);
    assert_non_null(buf);
    for (int streams = 2; streams <= (quick ? 2 : 4); streams += 2) {
        bsgpu_ctx *ctx;
        /* A small device buffer, so that a batch takes many launches across the streams. */
        assert_int_equal(bsgpu_open(&ctx, 0, (unsigned)streams, (size_t)1 << 20), 0);
        assert_int_equal(bsgpu_keys_reserve(ctx, NSLOT), 0);
        for (int c = 0; c < BSGPU_NCIPHERS; c++)
            for (int small = 0; small < 2; small++)
                run_batch(ctx, c, buf, 0, small, small);
        assert_int_equal(bsgpu_register_host(ctx, buf, cap), 0);
        for (int c = 0; c < BSGPU_NCIPHERS; c++)
            for (int small = 0; small < 2; small++)
                run_batch(ctx, c, buf, 1, small, !small);
        bsgpu_stats st;
        bsgpu_get_stats(ctx, &st);
        printf("%d streams: %llu calls, %llu launches, %llu copy calls, %llu staged, %llu "
               "batched\n",
               streams, (unsigned long long)st.calls, (unsigned long long)st.launches,
               (unsigned long long)st.copies, (unsigned long long)st.staged_launches,
               (unsigned long long)st.batched_launches);
        assert_true(st.staged_launches > 0); /* the small batches took the staged path */
        assert_int_equal(bsgpu_unregister_host(ctx, buf), 0);
        bsgpu_close(ctx);
    }
    free(buf);
}

/*
 * One call of njob PRESENT-80 jobs of wlen bytes: job 0 ends the first of two ranges registered
 * side by side, job 1 starts the second, the others lie further into the second with gaps
 * between them (a copy each); their device outputs are back to back. regions: each job names its
 * range (as the daemon's do). Returns bsgpu_keystream's code; on 0 every job's bytes are checked.
 */
static int adjacent_call(bsgpu_ctx *ctx, uint8_t *buf, size_t half, size_t wlen, int njob,
                         int regions)
{
    const bs_block_cipher *core = &bs_present80_bs64;
    bsgpu_job jobs[8];
    bsgpu_key dk;
    bs_key_schedule ks;
    uint8_t key[16];
    bs_test_fill(key, core->key_len);
    core->set_key(&ks, key);
    assert_int_equal(bsgpu_key_from_schedule(&dk, core, &ks), 0);
    memset(jobs, 0, sizeof jobs);
    for (int j = 0; j < njob; j++) {
        bs_test_fill(jobs[j].counter, core->block_len);
        jobs[j].nblocks = wlen / core->block_len;
        jobs[j].dst = j == 0 ? buf + half - wlen : buf + half + (size_t)(j - 1) * 2 * wlen;
        jobs[j].region = !regions ? NULL : j == 0 ? buf : buf + half;
    }
    memset(buf, 0, 2 * half);
    const int rc = bsgpu_keystream(ctx, BSGPU_PRESENT80, &dk, 1, jobs, (size_t)njob);
    uint8_t *want = (uint8_t *)malloc(wlen);
    assert_non_null(want);
    for (int j = 0; rc == 0 && j < njob; j++) {
        bs_ctr_keystream(core, &ks, jobs[j].counter, jobs[j].nblocks, want);
        assert_memory_equal(jobs[j].dst, want, wlen);
    }
    free(want);
    return rc;
}

/*
 * The daemon's mmaps of several clients' rings lie side by side, each registered on its own; a
 * batch may hold the last window of one and the first of the next back to back. With the jobs'
 * regions, their copies stay apart and the device serves them, by direct copies (2 jobs) and by
 * one batch call (6 windows of 128 KiB). Without (the H100 daemon's cuda_error), the one merged
 * copy across both registrations is either taken or refused as BSGPU_E_DEST, never anything
 * else, and the context serves the next call. That case is left out of the quick pass
 * (compute-sanitizer reports the refused call).
 */
static void test_adjacent_registrations(void **state)
{
    (void)state;
    const size_t half = (size_t)2 << 20, wlen = (size_t)128 << 10;
    uint8_t *buf = (uint8_t *)aligned_alloc(4096, 2 * half);
    assert_non_null(buf);
    bsgpu_ctx *ctx;
    assert_int_equal(bsgpu_open(&ctx, 0, 2, (size_t)4 << 20), 0);
    assert_int_equal(bsgpu_register_host(ctx, buf, half), 0);
    assert_int_equal(bsgpu_register_host(ctx, buf + half, half), 0);
    for (int njob = 2; njob <= 6; njob += 4) {
        assert_int_equal(adjacent_call(ctx, buf, half, wlen, njob, 1), 0);
        if (quick)
            continue;
        const int rc = adjacent_call(ctx, buf, half, wlen, njob, 0);
        printf("%d jobs, one copy across two registered ranges: %s\n", njob,
               rc == 0 ? "taken" : bsgpu_last_error(ctx));
        assert_true(rc == 0 || rc == BSGPU_E_DEST);
        assert_int_equal(adjacent_call(ctx, buf, half, wlen, njob, 1), 0);
    }
    bsgpu_stats st;
    bsgpu_get_stats(ctx, &st);
    printf("adjacent registrations: %llu calls, %llu copy calls, %llu batched\n",
           (unsigned long long)st.calls, (unsigned long long)st.copies,
           (unsigned long long)st.batched_launches);
    assert_int_equal(bsgpu_unregister_host(ctx, buf), 0);
    assert_int_equal(bsgpu_unregister_host(ctx, buf + half), 0);
    bsgpu_close(ctx);
    free(buf);
}

static void test_keysearch(void **state)
{
    (void)state;
    static const char *const names[4] = {"PRESENT-80", "PRESENT-128", "GIFT-64", "GIFT-128"};
    for (int c = 0; c < 4; c++)
        for (int neg = 0; neg < 2; neg++) {
            const bs_block_cipher *core = bs_block_cipher_by_name(names[c]);
            uint8_t key[16], mask[16] = {0}, pt[2][16], ct[2][16], found[16];
            bs_key_schedule ks;
            char err[256];
            bs_test_fill(key, core->key_len);
            /* 26 unknown bits: the top 20 and 6 low ones (quick: 10 and 6). */
            const unsigned top = quick ? 10 : 20;
            for (unsigned i = 0; i < top; i++)
                mask[i / 8] |= (uint8_t)(0x80u >> (i % 8));
            mask[core->key_len - 1] = 0x3f;
            core->set_key(&ks, key);
            for (int p = 0; p < 2; p++) {
                bs_test_fill(pt[p], core->block_len);
                core->encrypt(&ks, ct[p], pt[p], 1);
            }
            uint8_t given[16];
            memcpy(given, key, sizeof given);
            if (neg)
                given[core->key_len / 2] ^= 0x40; /* a known bit wrong: nothing to find */
            bsks_search s;
            uint64_t tried;
            assert_int_equal(bsks_prepare(&s, names[c], given, mask, (const uint8_t(*)[16])pt,
                                          (const uint8_t(*)[16])ct, 2, err, sizeof err),
                             0);
            const int rc = bsks_search_cuda(&s, 0, found, &tried, err, sizeof err);
            if (rc < 0)
                printf("%s: %s\n", names[c], err);
            assert_int_equal(rc, neg ? 0 : 1);
            if (!neg)
                assert_memory_equal(found, key, core->key_len);
            else
                assert_int_equal(tried, (uint64_t)1 << (top + 6));
        }
}

int main(void)
{
    if (bsgpu_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    bs_test_seed();
    const char *q = getenv("BSGPU_TEST_QUICK");
    quick = q != NULL && strcmp(q, "0") != 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keystream),
        cmocka_unit_test(test_adjacent_registrations),
        cmocka_unit_test(test_keysearch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
