/*
 * Device-resident keys without a device: the host's slot table (gpu/bsgpu_keytab.c: open, close,
 * reuse, full, per-device pending changes, host copies wiped once every device has them, a device
 * leaving service), and the table as the device holds it, driven through the update pre-kernel's
 * and the keystream kernels' own code on the host (bsgpu_keys_update_host, bsgpu_launch_host_table)
 * against bs_ctr_keystream: slots loaded, used beside the call's keys, zeroed at close, reused
 * by another cipher with nothing of the old key left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bsgpu.h"
#include "bsgpu_host.h"
#include "bsgpu_keytab.h"
#include "modes/ctr.h"
#include "testutil.h"

static const bs_block_cipher *const cores[BSGPU_NCIPHERS] = {
    &bs_present80_bs64, &bs_present128_bs64,  &bs_gift64_bs64,
    &bs_gift128_bs64,   &bs_rijndael256_bs64,
};

static int all_zero(const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != 0)
            return 0;
    return 1;
}

static bsgpu_key some_key(uint32_t tag)
{
    bsgpu_key k;
    for (unsigned i = 0; i < BSGPU_KEY_WORDS; i++)
        k.w[i] = tag * 0x9e3779b9u + i + 1;
    return k;
}

static void test_open_close_reuse_full(void **state)
{
    (void)state;
    bsgpu_keytab t;
    bsgpu_keyop ops[8];
    bsgpu_key keys[8];
    uint32_t slot[5];
    assert_int_equal(bsgpu_keytab_init(&t, 4, 2), 0);
    for (uint32_t i = 0; i < 4; i++) {
        const bsgpu_key k = some_key(i);
        assert_int_equal(bsgpu_keytab_open(&t, BSGPU_GIFT64, &k, &slot[i]), 0);
        for (uint32_t j = 0; j < i; j++)
            assert_int_not_equal(slot[i], slot[j]);
        assert_true(slot[i] < 4);
    }
    /* Full: refused and counted; the slots are unchanged. */
    const bsgpu_key k4 = some_key(4);
    assert_int_equal(bsgpu_keytab_open(&t, BSGPU_GIFT64, &k4, &slot[4]), BSGPU_E_FULL);
    assert_int_equal(t.full, 1);
    assert_int_equal(bsgpu_keytab_used(&t), 4);
    assert_int_equal(bsgpu_keytab_pending(&t, 0), 4);
    assert_int_equal(bsgpu_keytab_pending(&t, 1), 4);

    /* Device 0 takes two changes at most: loads, with their keys. */
    assert_int_equal(bsgpu_keytab_take(&t, 0, ops, keys, 2), 2);
    assert_int_equal(bsgpu_keytab_pending(&t, 0), 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ops[i].load, 1);
        assert_int_equal(ops[i].cipher, BSGPU_GIFT64);
        uint32_t which = 4;
        for (uint32_t j = 0; j < 4; j++)
            if (slot[j] == ops[i].slot)
                which = j;
        assert_true(which < 4);
        const bsgpu_key want = some_key(which);
        assert_memory_equal(&keys[i], &want, sizeof want);
        /* Device 1 has not taken it: the host still holds the key. */
        assert_false(all_zero(&t.keys[ops[i].slot], sizeof(bsgpu_key)));
    }
    /* Device 1 takes all four: the two keys device 0 has too are wiped on the host now. */
    assert_int_equal(bsgpu_keytab_take(&t, 1, ops, keys, 8), 4);
    assert_int_equal(bsgpu_keytab_pending(&t, 1), 0);
    assert_int_equal(bsgpu_keytab_take(&t, 1, ops, keys, 8), 0);
    unsigned wiped = 0;
    for (uint32_t s = 0; s < 4; s++)
        wiped += all_zero(&t.keys[s], sizeof(bsgpu_key));
    assert_int_equal(wiped, 2);
    assert_int_equal(t.loads, 6);

    /* Close: the host copy goes at once, a zeroing is pending on both devices. */
    bsgpu_keytab_close(&t, slot[3]);
    assert_true(all_zero(&t.keys[slot[3]], sizeof(bsgpu_key)));
    assert_int_equal(bsgpu_keytab_used(&t), 3);
    assert_int_equal(bsgpu_keytab_pending(&t, 1), 1);
    assert_int_equal(bsgpu_keytab_take(&t, 1, ops, keys, 8), 1);
    assert_int_equal(ops[0].slot, slot[3]);
    assert_int_equal(ops[0].load, 0);
    assert_true(all_zero(&keys[0], sizeof keys[0]));
    assert_int_equal(t.wipes, 1);
    /* A second close of the same slot changes nothing. */
    bsgpu_keytab_close(&t, slot[3]);
    assert_int_equal(bsgpu_keytab_pending(&t, 1), 0);
    assert_int_equal(bsgpu_keytab_used(&t), 3);

    /* Reuse before device 0 caught up: its pending zeroing becomes one load of the new key. */
    const bsgpu_key k5 = some_key(5);
    uint32_t again;
    assert_int_equal(bsgpu_keytab_open(&t, BSGPU_RIJNDAEL256, &k5, &again), 0);
    assert_int_equal(again, slot[3]);
    /* Device 0 had taken the loads of slots 0 and 1 (the lowest first): 2 and 3 remain, and 3's
     * zeroing merged into its new load. */
    assert_int_equal(slot[3], 3);
    assert_int_equal(bsgpu_keytab_take(&t, 0, ops, keys, 8), 2);
    int seen = 0;
    for (int i = 0; i < 2; i++)
        if (ops[i].slot == again) {
            seen++;
            assert_int_equal(ops[i].load, 1);
            assert_int_equal(ops[i].cipher, BSGPU_RIJNDAEL256);
            assert_memory_equal(&keys[i], &k5, sizeof k5);
        }
    assert_int_equal(seen, 1);
    assert_int_equal(bsgpu_keytab_take(&t, 1, ops, keys, 8), 1);
    assert_int_equal(ops[0].slot, again);
    assert_int_equal(ops[0].load, 1);
    assert_true(all_zero(t.keys, 4 * sizeof(bsgpu_key))); /* every device has every key */
    /* Closed everywhere, every slot is free again and refusals stop. */
    for (uint32_t i = 0; i < 3; i++)
        bsgpu_keytab_close(&t, slot[i]);
    bsgpu_keytab_close(&t, again);
    assert_int_equal(bsgpu_keytab_used(&t), 0);
    assert_int_equal(bsgpu_keytab_open(&t, BSGPU_GIFT64, &k4, &slot[4]), 0);
    assert_int_equal(t.full, 1);
    bsgpu_keytab_destroy(&t);
}

static void test_device_leaves_service(void **state)
{
    (void)state;
    bsgpu_keytab t;
    bsgpu_keyop ops[4];
    bsgpu_key keys[4];
    uint32_t s0, s1;
    assert_int_equal(bsgpu_keytab_init(&t, 2, 2), 0);
    assert_int_equal(bsgpu_keytab_serves(&t, 1), 1);
    const bsgpu_key k0 = some_key(10), k1 = some_key(11);
    assert_int_equal(bsgpu_keytab_open(&t, BSGPU_PRESENT80, &k0, &s0), 0);
    assert_int_equal(bsgpu_keytab_take(&t, 0, ops, keys, 4), 1);
    assert_false(all_zero(&t.keys[s0], sizeof(bsgpu_key))); /* device 1 still to load it */
    /* Device 1 fails: nothing is pending for it, and the key it will never take is wiped. */
    bsgpu_keytab_drop_device(&t, 1);
    assert_int_equal(bsgpu_keytab_serves(&t, 1), 0);
    assert_int_equal(bsgpu_keytab_pending(&t, 1), 0);
    assert_true(all_zero(&t.keys[s0], sizeof(bsgpu_key)));
    /* New sessions are for device 0 only. */
    assert_int_equal(bsgpu_keytab_open(&t, BSGPU_PRESENT80, &k1, &s1), 0);
    assert_int_equal(bsgpu_keytab_pending(&t, 1), 0);
    assert_int_equal(bsgpu_keytab_take(&t, 1, ops, keys, 4), 0);
    assert_int_equal(bsgpu_keytab_take(&t, 0, ops, keys, 4), 1);
    assert_true(all_zero(&t.keys[s1], sizeof(bsgpu_key)));
    /* No device left: every open refuses (the caller uploads keys per call instead), and the
     * table is not counted full. */
    bsgpu_keytab_close(&t, s1);
    bsgpu_keytab_drop_device(&t, 0);
    assert_int_equal(bsgpu_keytab_open(&t, BSGPU_PRESENT80, &k1, &s1), BSGPU_E_NODEV);
    assert_int_equal(t.full, 0);
    bsgpu_keytab_destroy(&t);
    /* Bounds: more devices than the masks hold, or no slot, is refused. */
    assert_int_equal(bsgpu_keytab_init(&t, 2, BSGPU_KEYTAB_MAX_DEV + 1), -1);
    bsgpu_keytab_destroy(&t);
    assert_int_equal(bsgpu_keytab_init(&t, 0, 1), -1);
    bsgpu_keytab_destroy(&t);
}

/* Keystream of jobs through the host run of the kernels with the device table, checked. */
static void check_jobs(int c, const bsgpu_job *jobs, size_t njobs, const bsgpu_key *call_keys,
                       const uint32_t *table, const bs_key_schedule *const *ks_of)
{
    const size_t bl = cores[c]->block_len;
    bsgpu_segment seg[64];
    bsgpu_copy copy[64];
    bsgpu_cursor cur = {0, 0};
    uint64_t ngroups;
    uint32_t n;
    static uint8_t dev[1 << 18], want[1 << 16];
    while ((n = bsgpu_plan_launch((bsgpu_cipher)c, jobs, njobs, &cur, sizeof dev, 64, seg, copy,
                                  &ngroups)) > 0) {
        assert_int_equal(
            bsgpu_launch_host_table((bsgpu_cipher)c, seg, n, call_keys, table, ngroups, dev), 0);
        for (uint32_t i = 0; i < n; i++)
            memcpy(copy[i].dst, dev + copy[i].src_offset, copy[i].len);
    }
    for (size_t j = 0; j < njobs; j++) {
        assert_true(jobs[j].nblocks * bl <= sizeof want);
        bs_ctr_keystream(cores[c], ks_of[j], jobs[j].counter, jobs[j].nblocks, want);
        if (memcmp(want, jobs[j].dst, jobs[j].nblocks * bl) != 0) {
            printf("%s job %zu (%llu blocks, key %#x) differs\n", cores[c]->name, j,
                   (unsigned long long)jobs[j].nblocks, jobs[j].key_index);
            fail();
        }
    }
}

static void test_table_on_host(void **state)
{
    (void)state;
    enum { CAP = 6, NJ = 12 };
    bsgpu_keytab t;
    uint32_t *table = (uint32_t *)calloc((size_t)CAP * BSGPU_XKEY_STRIDE_MAX, sizeof *table);
    static bs_key_schedule ks[NJ];
    static uint8_t out[NJ][1 << 16];
    assert_non_null(table);
    assert_int_equal(bsgpu_keytab_init(&t, CAP, 1), 0);
    /* The table without a table: a resident job is refused, not read from nowhere. */
    bsgpu_segment one;
    memset(&one, 0, sizeof one);
    one.nblocks = 1;
    one.key_index = BSGPU_KEY_RESIDENT;
    uint8_t junk[4096];
    assert_int_equal(bsgpu_launch_host_table(BSGPU_GIFT64, &one, 1, NULL, NULL,
                                             bsgpu_plan(&one, 1, BSGPU_GIFT64), junk),
                     -1);
    /* Each cipher in turn, in the slots the previous one left: GIFT-128 (the longest key) first,
     * so that every later cipher overwrites a longer key. */
    static const int order[BSGPU_NCIPHERS] = {BSGPU_GIFT128, BSGPU_PRESENT80, BSGPU_RIJNDAEL256,
                                              BSGPU_GIFT64, BSGPU_PRESENT128};
    for (int oi = 0; oi < BSGPU_NCIPHERS; oi++) {
        const int c = order[oi];
        const bs_block_cipher *core = cores[c];
        const size_t bl = core->block_len;
        uint32_t slot[CAP];
        bsgpu_key call_keys[NJ], k;
        bsgpu_job jobs[NJ];
        const bs_key_schedule *ks_of[NJ];
        /* Four sessions resident, the rest with the call (as when the table is full). */
        for (int s = 0; s < NJ; s++) {
            uint8_t key[32];
            bs_test_fill(key, core->key_len);
            core->set_key(&ks[s], key);
            assert_int_equal(bsgpu_key_from_schedule(s < 4 ? &k : &call_keys[s], core, &ks[s]), 0);
            if (s < 4)
                assert_int_equal(bsgpu_keytab_open(&t, (bsgpu_cipher)c, &k, &slot[s]), 0);
        }
        bs_wipe(&k, sizeof k);
        bsgpu_keyop ops[CAP];
        bsgpu_key opkeys[CAP];
        const uint32_t n = bsgpu_keytab_take(&t, 0, ops, opkeys, CAP);
        assert_true(n >= 4);
        bsgpu_keys_update_host(table, ops, opkeys, n);
        for (int j = 0; j < NJ; j++) {
            memset(&jobs[j], 0, sizeof jobs[j]);
            bs_test_fill(jobs[j].counter, bl);
            if (j % 3 == 0)
                memset(jobs[j].counter + bl - 4, 0xff, 4); /* a carry past 2^32 */
            jobs[j].nblocks = 1 + bs_test_below((uint32_t)(sizeof out[0] / bl));
            const int s = j % 8 < 4 ? j % 4 : 4 + j % 8;
            jobs[j].key_index = s < 4 ? (slot[s] | BSGPU_KEY_RESIDENT) : (uint32_t)s;
            jobs[j].dst = out[j];
            ks_of[j] = &ks[s];
        }
        check_jobs(c, jobs, NJ, call_keys, table, ks_of);
        /* The sessions close: their slots are zeroed on the "device", whole. */
        for (int s = 0; s < 4; s++)
            bsgpu_keytab_close(&t, slot[s]);
        const uint32_t nw = bsgpu_keytab_take(&t, 0, ops, opkeys, CAP);
        assert_int_equal(nw, 4);
        bsgpu_keys_update_host(table, ops, opkeys, nw);
        assert_true(all_zero(table, (size_t)CAP * BSGPU_XKEY_STRIDE_MAX * sizeof *table));
        /* Loaded again over the zeroed slots, then over each other without a close between: a
         * load covers its whole slot (the words its key does not use are zeroed). */
        uint32_t s2;
        bsgpu_key big = some_key(77);
        assert_int_equal(bsgpu_keytab_open(&t, BSGPU_GIFT128, &big, &s2), 0);
        assert_int_equal(bsgpu_keytab_take(&t, 0, ops, opkeys, CAP), 1);
        bsgpu_keys_update_host(table, ops, opkeys, 1);
        uint32_t *w = table + (size_t)s2 * BSGPU_XKEY_STRIDE_MAX;
        assert_false(all_zero(w + BSGPU_XKEY_STRIDE_MAX - 64, 64 * sizeof *w));
        ops[0].cipher = (uint32_t)c;
        bsgpu_keys_update_host(table, ops, opkeys, 1);
        const unsigned used =
            c == BSGPU_RIJNDAEL256 ? BSGPU_KEY_WORDS : bsgpu_xkey_words((bsgpu_cipher)c);
        assert_true(all_zero(w + used, (BSGPU_XKEY_STRIDE_MAX - used) * sizeof *w));
        bsgpu_keytab_close(&t, s2);
        assert_int_equal(bsgpu_keytab_take(&t, 0, ops, opkeys, CAP), 1);
        bsgpu_keys_update_host(table, ops, opkeys, 1);
        assert_true(all_zero(table, (size_t)CAP * BSGPU_XKEY_STRIDE_MAX * sizeof *table));
    }
    bsgpu_keytab_destroy(&t);
    free(table);
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_close_reuse_full),
        cmocka_unit_test(test_device_leaves_service),
        cmocka_unit_test(test_table_on_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
