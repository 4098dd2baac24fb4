/*
 * The daemon's CUDA backend (service/backend/bsd_backend_cuda.c) over the fake bsgpu: batches of
 * many sessions split across two "devices" give bs_ctr_keystream's bytes; a failing device's part
 * is redone on the CPU with the right bytes, reported in STATUS, and the device is not used again;
 * with every device failed the batches still complete on the CPU. Every job's window digest
 * (the daemon's reply) is the digest of the right bytes. A device whose result silently differs
 * from its own redundant computation fails the self-check: taken out of service, its part redone
 * on the CPU, counted in STATUS. Keys that stay on the devices: sessions opened through the
 * backend are loaded into every device's table once, their jobs upload no key, closing zeroes
 * their slots on every device; a full table leaves the extra sessions' keys going with each call;
 * a device that fails, or whose key update fails, has its table zeroed and is out of service,
 * and the batches stay right. Two clients' windows side by side in the address space, each
 * registered on its own: their jobs are copied apart; a copy CUDA refuses (a destination across
 * two registrations) sends only that part to the CPU, and the device stays in service.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "bsd_backend_cuda.h"
#include "bs_digest.h"
#include "bsd_integrity.h"
#include "bsgpu_lanes.h" /* BSGPU_XKEY_STRIDE_MAX: a key slot's words */
#include "backend_status.h"
#include "fake_bsgpu.h"
#include "modes/ctr.h"
#include "testutil.h"

enum { NJOB = 40, NSESS = 6 };

static int done_calls, done_status;
static bs_key_schedule ks[NSESS];

static void set_keys(const bs_block_cipher *c)
{
    for (int s = 0; s < NSESS; s++) {
        uint8_t key[32];
        bs_test_fill(key, c->key_len);
        c->set_key(&ks[s], key);
    }
}

static void on_done(bsd_batch *b, int status)
{
    (void)b;
    done_calls++;
    done_status = status;
}

/*
 * One batch of cipher c through the backend; checks every job's bytes. handles: the sessions'
 * open_key handles (their keys already in ks), or NULL: fresh keys, no handles. Job 0 is always
 * of session 0.
 */
static void run_batch(bsd_backend *be, uv_loop_t *loop, const bs_block_cipher *c, int big,
                      const uint32_t *handles)
{
    static bsd_job jobs[NJOB];
    bsd_job *list[NJOB];
    bsd_batch b;
    const size_t bl = c->block_len;
    uint64_t total = 0;
    if (handles == NULL)
        set_keys(c);
    for (int j = 0; j < NJOB; j++) {
        memset(&jobs[j], 0, sizeof jobs[j]);
        jobs[j].cipher = c;
        const uint32_t s = j == 0 ? 0 : bs_test_below(NSESS);
        jobs[j].ks = &ks[s];
        jobs[j].dev_key = handles != NULL ? handles[s] : 0;
        bs_test_fill(jobs[j].counter, bl);
        if (j % 4 == 0)
            memset(jobs[j].counter + bl - 4, 0xff, 4);
        jobs[j].nblocks = big && j == 3 ? ((uint64_t)1 << 21) + 77 : bs_test_below(3000);
        if (jobs[j].nblocks == 0)
            jobs[j].nblocks = 1;
        jobs[j].dst = (uint8_t *)malloc(jobs[j].nblocks * bl + 1);
        assert_non_null(jobs[j].dst);
        memset(jobs[j].dst, 0x11, jobs[j].nblocks * bl + 1);
        bsd_job_integrity_init(&jobs[j], 0);
        list[j] = &jobs[j];
        total += jobs[j].nblocks;
    }
    memset(&b, 0, sizeof b);
    b.cipher = c;
    b.jobs = list;
    b.njobs = NJOB;
    b.nblocks = total;
    b.done = on_done;
    done_calls = 0;
    done_status = -1;
    assert_int_equal(be->ops->submit(be, &b), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(done_calls, 1);
    assert_int_equal(done_status, 0);
    for (int j = 0; j < NJOB; j++) {
        uint8_t *want = (uint8_t *)malloc(jobs[j].nblocks * bl + 1);
        assert_non_null(want);
        bs_ctr_keystream(c, jobs[j].ks, jobs[j].counter, jobs[j].nblocks, want);
        assert_memory_equal(jobs[j].dst, want, jobs[j].nblocks * bl);
        assert_int_equal(jobs[j].dst[jobs[j].nblocks * bl], 0x11);
        uint64_t digest, unwritten;
        assert_int_equal(bsd_job_verdict(&jobs[j], &digest, &unwritten), 0);
        assert_true(digest == bs_digest(jobs[j].counter, bl, jobs[j].nblocks, want));
        free(want);
        free(jobs[j].dst);
    }
}

static void test_backend(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    bsgpu_fake_devices = 0;
    assert_null(bsd_backend_cuda_create(&loop, 2));
    bsgpu_fake_devices = 2;
    bsd_backend *be = bsd_backend_cuda_create(&loop, 2);
    assert_non_null(be);
    static const bs_block_cipher *const cs[] = {&bs_present80_bs64, &bs_present128_bs64,
                                                &bs_gift64_bs64, &bs_gift128_bs64,
                                                &bs_rijndael256_bs64};
    for (int i = 0; i < 5; i++)
        run_batch(be, &loop, cs[i], 0, NULL);
    /* More than 2 * 2^20 blocks: one part per device. */
    memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
    run_batch(be, &loop, &bs_gift64_bs64, 1, NULL);
    assert_int_equal(bsgpu_fake_calls[0], 1);
    assert_int_equal(bsgpu_fake_calls[1], 1);
    status_has(be, "cuda_errors=0");
    status_has(be, "self_check_failures=0 ");
    status_has(be, "last_cuda_error=\"\"");

    /*
     * Someone else (the client) writes into the window after the device's copy (the daemon's
     * hook BSD_TEST_FAULT=window): the self-check fails, but the device's recheck into
     * daemon-private memory agrees with its sums, so the part is redone on the CPU (run_batch
     * checks the bytes and the verdict) and the device stays in service, no CUDA error counted.
     */
    setenv("BSD_TEST_FAULT", "window", 1);
    assert_non_null(bsd_fault_init());
    run_batch(be, &loop, &bs_gift64_bs64, 0, NULL);
    run_batch(be, &loop, &bs_present80_bs64, 0, NULL);
    unsetenv("BSD_TEST_FAULT");
    assert_null(bsd_fault_init());
    status_has(be, "gpus_failed=0");
    status_has(be, "window_changes=2");
    status_has(be, "self_check_failures=0 ");
    status_has(be, "cuda_errors=0");
    status_has(be, "cpu_fallbacks=2");
    /* Both devices still serve. */
    memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
    run_batch(be, &loop, &bs_gift64_bs64, 1, NULL);
    assert_int_equal(bsgpu_fake_calls[0], 1);
    assert_int_equal(bsgpu_fake_calls[1], 1);

    /* Silently wrong (the fake's device corrupts its own output, every call, the recheck's too):
     * the self-check catches it, the CPU redoes the part, the device is out. */
    status_has(be, "device_key_wipe_failures=0 ");
    bsgpu_fake_silent = 1;
    bsgpu_fake_fail_wipe = 1; /* and its key table cannot be zeroed: said, not hidden */
    run_batch(be, &loop, &bs_gift64_bs64, 0, NULL);
    bsgpu_fake_silent = 0;
    bsgpu_fake_fail_wipe = 0;
    status_has(be, "gpus_failed=1");
    status_has(be, "self_check_failures=1");
    status_has(be, "device_key_wipe_failures=1 ");
    status_has(be, "differs from its redundant computation");
    be->ops->destroy(be);
    be = bsd_backend_cuda_create(&loop, 2);
    assert_non_null(be);
    status_has(be, "gpus_failed=0");

    bsgpu_fake_fail = 1;
    run_batch(be, &loop, &bs_present80_bs64, 0, NULL);
    status_has(be, "gpus_failed=1");
    status_has(be, "cuda_errors=1");
    status_has(be, "injected failure");
    run_batch(be, &loop, &bs_gift128_bs64, 0, NULL);
    status_has(be, "gpus_failed=2");
    /* No healthy device left: straight to the CPU, no new error. */
    memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
    run_batch(be, &loop, &bs_rijndael256_bs64, 0, NULL);
    assert_int_equal(bsgpu_fake_calls[0] + bsgpu_fake_calls[1], 0);
    status_has(be, "cuda_errors=2");
    bsgpu_fake_fail = 0;
    be->ops->destroy(be);
    uv_loop_close(&loop);
}

/*
 * Two mappings side by side in the address space, each registered with the backend on its own, as
 * the daemon's mmaps of two connections' memfds often lie: a batch whose first job fills the end
 * of one and whose second fills the start of the other has device outputs back to back too. With
 * each job's region (the daemon's bsd_job.region, its connection's mapping) the two are copied
 * apart and the device serves them. Without (one region: the planner merged them into one copy
 * across both registrations, which CUDA refuses with cudaErrorInvalidValue, the H100 run's
 * cuda_error) the fake refuses that copy as CUDA does: the part is redone on the CPU with the
 * right bytes, STATUS counts a copy refusal, and the device stays in service for the next batch.
 */
static void adjacent_batch(bsd_backend *be, uv_loop_t *loop, uint8_t *buf, size_t half, int regions)
{
    const bs_block_cipher *c = &bs_present80_bs64;
    const size_t bl = c->block_len, len = 8192;
    static bsd_job jobs[2];
    bsd_job *list[2] = {&jobs[0], &jobs[1]};
    bsd_batch b;
    set_keys(c);
    memset(buf, 0x11, 2 * half);
    for (int j = 0; j < 2; j++) {
        memset(&jobs[j], 0, sizeof jobs[j]);
        jobs[j].cipher = c;
        jobs[j].ks = &ks[j];
        bs_test_fill(jobs[j].counter, bl);
        jobs[j].nblocks = len / bl; /* 1,024: one warp of groups, so outputs are back to back */
        jobs[j].dst = j == 0 ? buf + half - len : buf + half;
        jobs[j].region = regions ? buf + half * (size_t)j : NULL;
        bsd_job_integrity_init(&jobs[j], 0);
    }
    memset(&b, 0, sizeof b);
    b.cipher = c;
    b.jobs = list;
    b.njobs = 2;
    b.nblocks = 2 * (len / bl);
    b.done = on_done;
    done_calls = 0;
    done_status = -1;
    assert_int_equal(be->ops->submit(be, &b), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(done_calls, 1);
    assert_int_equal(done_status, 0);
    uint8_t want[8192];
    for (int j = 0; j < 2; j++) {
        bs_ctr_keystream(c, jobs[j].ks, jobs[j].counter, jobs[j].nblocks, want);
        assert_memory_equal(jobs[j].dst, want, len);
        uint64_t digest, unwritten;
        assert_int_equal(bsd_job_verdict(&jobs[j], &digest, &unwritten), 0);
        assert_true(digest == bs_digest(jobs[j].counter, bl, jobs[j].nblocks, want));
    }
    assert_int_equal(buf[half - len - 1], 0x11);
    assert_int_equal(buf[half + len], 0x11);
}

static unsigned fake_calls(void)
{
    return bsgpu_fake_calls[0] + bsgpu_fake_calls[1];
}

static void test_adjacent_mappings(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    bsgpu_fake_devices = 2;
    bsd_backend *be = bsd_backend_cuda_create(&loop, 2);
    assert_non_null(be);
    const size_t half = 65536;
    uint8_t *buf = (uint8_t *)malloc(2 * half);
    assert_non_null(buf);
    assert_int_equal(be->ops->register_memory(be, buf, half), 0);
    assert_int_equal(be->ops->register_memory(be, buf + half, half), 0);
    memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
    adjacent_batch(be, &loop, buf, half, 1);
    assert_int_equal(fake_calls(), 1);
    status_has(be, "cpu_fallbacks=0 cuda_errors=0 copy_refusals=0 ");

    adjacent_batch(be, &loop, buf, half, 0);
    assert_int_equal(fake_calls(), 2);
    status_has(be, "gpus_failed=0 ");
    status_has(be, "cpu_fallbacks=1 cuda_errors=1 copy_refusals=1 ");
    status_has(be, "runs across the end of a registered range");
    /* Still in service: the next batch is the device's, no new fallback. */
    adjacent_batch(be, &loop, buf, half, 1);
    assert_int_equal(fake_calls(), 3);
    status_has(be, "gpus_failed=0 ");
    status_has(be, "cpu_fallbacks=1 cuda_errors=1 copy_refusals=1 ");

    assert_int_equal(be->ops->unregister_memory(be, buf), 0);
    assert_int_equal(be->ops->unregister_memory(be, buf + half), 0);
    free(buf);
    be->ops->destroy(be);
    uv_loop_close(&loop);
}

/* Every word of device d's key table is zero (or it has none). */
static int table_zero(int d)
{
    uint32_t cap;
    const uint32_t *t = bsgpu_fake_table(d, &cap);
    for (size_t i = 0; t != NULL && i < (size_t)cap * BSGPU_XKEY_STRIDE_MAX; i++)
        if (t[i] != 0)
            return 0;
    return 1;
}

static uint64_t call_keys(void)
{
    return bsgpu_fake_call_keys[0] + bsgpu_fake_call_keys[1];
}

static void test_resident_keys(void **state)
{
    (void)state;
    enum { SLOTS = 4096 };
    static const bs_block_cipher *const cs[] = {&bs_present80_bs64, &bs_present128_bs64,
                                                &bs_gift64_bs64, &bs_gift128_bs64,
                                                &bs_rijndael256_bs64};
    static uint32_t h[SLOTS];
    uv_loop_t loop;
    uv_loop_init(&loop);
    bsgpu_fake_devices = 2;
    memset(bsgpu_fake_key_loads, 0, sizeof bsgpu_fake_key_loads);
    memset(bsgpu_fake_key_wipes, 0, sizeof bsgpu_fake_key_wipes);
    bsd_backend *be = bsd_backend_cuda_create(&loop, 2);
    assert_non_null(be);
    status_has(be, "device_keys=0/4096");
    uint64_t loads = 0;
    for (int i = 0; i < 5; i++) {
        set_keys(cs[i]);
        for (int s = 0; s < NSESS; s++) {
            h[s] = be->ops->open_key(be, cs[i], &ks[s]);
            assert_int_not_equal(h[s], 0);
        }
        uv_run(&loop, UV_RUN_DEFAULT); /* OPEN's sync: every device loads each key once */
        loads += NSESS;
        assert_int_equal(bsgpu_fake_key_loads[0], loads);
        assert_int_equal(bsgpu_fake_key_loads[1], loads);
        const uint64_t k0 = call_keys();
        memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
        /* GIFT-64 with a job of 2^21 blocks: a part on each device. */
        run_batch(be, &loop, cs[i], i == 2, h);
        run_batch(be, &loop, cs[i], 0, h);
        if (i == 2)
            assert_true(bsgpu_fake_calls[0] > 0 && bsgpu_fake_calls[1] > 0);
        /* No key went with a call, and none was loaded again. */
        assert_int_equal(call_keys(), k0);
        assert_int_equal(bsgpu_fake_key_loads[0], loads);
        assert_int_equal(bsgpu_fake_key_loads[1], loads);
        for (int s = 0; s < NSESS; s++)
            be->ops->close_key(be, h[s]);
        uv_run(&loop, UV_RUN_DEFAULT); /* CLOSE's sync: the slots are zeroed everywhere */
        assert_int_equal(bsgpu_fake_key_wipes[0], (uint64_t)NSESS * (i + 1));
        assert_true(table_zero(0) && table_zero(1));
    }
    status_has(be, "device_keys=0/4096 device_key_loads=60 device_key_wipes=60");

    /* Full: every slot taken (sessions 1.. NSESS - 1 real, the rest fillers); the next session is
     * refused and its key goes with each call. */
    set_keys(&bs_gift128_bs64);
    for (uint32_t s = 1; s < SLOTS + 1; s++) {
        h[s % SLOTS] = be->ops->open_key(be, &bs_gift128_bs64, &ks[s < NSESS ? s : 1]);
        assert_int_not_equal(h[s % SLOTS], 0);
    }
    uint32_t hs[NSESS] = {0};
    hs[0] = be->ops->open_key(be, &bs_gift128_bs64, &ks[0]);
    assert_int_equal(hs[0], 0);
    for (int s = 1; s < NSESS; s++)
        hs[s] = h[s];
    uv_run(&loop, UV_RUN_DEFAULT);
    status_has(be, "device_keys=4096/4096");
    status_has(be, "device_keys_full=1");
    const uint64_t k0 = call_keys();
    memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
    run_batch(be, &loop, &bs_gift128_bs64, 0, hs);
    /* Session 0's key (job 0 is its) and only it went with each call. */
    assert_true(call_keys() > k0);
    assert_true(call_keys() - k0 <= bsgpu_fake_calls[0] + bsgpu_fake_calls[1]);
    for (uint32_t s = 0; s < SLOTS; s++)
        be->ops->close_key(be, h[s]);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(table_zero(0) && table_zero(1));
    status_has(be, "device_keys=0/4096");

    /* A device fails in a batch: its table is zeroed and freed, the other keeps serving. */
    set_keys(&bs_present80_bs64);
    for (int s = 0; s < NSESS; s++)
        h[s] = be->ops->open_key(be, &bs_present80_bs64, &ks[s]);
    uv_run(&loop, UV_RUN_DEFAULT);
    bsgpu_fake_fail = 1;
    run_batch(be, &loop, &bs_present80_bs64, 0, h);
    bsgpu_fake_fail = 0;
    status_has(be, "gpus_failed=1");
    uint32_t cap0, cap1;
    const uint32_t *t0 = bsgpu_fake_table(0, &cap0), *t1 = bsgpu_fake_table(1, &cap1);
    assert_true((t0 == NULL) != (t1 == NULL));
    const int alive = t0 != NULL ? 0 : 1;
    const uint64_t before = bsgpu_fake_key_loads[alive];
    run_batch(be, &loop, &bs_present80_bs64, 0, h);
    for (int s = 0; s < NSESS; s++)
        be->ops->close_key(be, h[s]);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(table_zero(alive));
    /* New sessions load on the device in service only. */
    h[0] = be->ops->open_key(be, &bs_present80_bs64, &ks[0]);
    assert_int_not_equal(h[0], 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(bsgpu_fake_key_loads[alive], before + 1);
    be->ops->close_key(be, h[0]);
    uv_run(&loop, UV_RUN_DEFAULT);

    /* A key update fails: that device is out of service (logged, in STATUS), the batch right. */
    bsgpu_fake_fail_keys = 1;
    set_keys(&bs_gift64_bs64);
    for (int s = 0; s < NSESS; s++)
        h[s] = be->ops->open_key(be, &bs_gift64_bs64, &ks[s]);
    uv_run(&loop, UV_RUN_DEFAULT);
    bsgpu_fake_fail_keys = 0;
    status_has(be, "gpus_failed=2");
    status_has(be, "key update failed");
    assert_null(bsgpu_fake_table(alive, &cap0));
    run_batch(be, &loop, &bs_gift64_bs64, 0, h);
    for (int s = 0; s < NSESS; s++)
        be->ops->close_key(be, h[s]);
    uv_run(&loop, UV_RUN_DEFAULT);
    be->ops->destroy(be);
    uv_loop_close(&loop);
}

/*
 * A slot used again while its load is still pending: session A opens and closes, its slot zeroed
 * on both devices by the sync, whose after-callback has not run yet (the loop has not), so the
 * next change waits for it; session B opens, gets A's slot back, and its batch is queued before
 * the loop runs again. The part must apply B's load under its device's lock before it names the
 * slot: job 0 (B's) is compared with bs_ctr_keystream under B's key by run_batch, and A's key,
 * which the slot held, differs from it.
 */
static void test_slot_reuse(void **state)
{
    (void)state;
    uv_loop_t loop;
    uv_loop_init(&loop);
    bsgpu_fake_devices = 2;
    bsd_backend *be = bsd_backend_cuda_create(&loop, 2);
    assert_non_null(be);
    const bs_block_cipher *c = &bs_present80_bs64;
    set_keys(c);
    assert_memory_not_equal(&ks[0], &ks[1], sizeof ks[0]);
    const uint32_t ha = be->ops->open_key(be, c, &ks[1]); /* A's key: ks[1] */
    assert_int_not_equal(ha, 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    const uint64_t loads0 = bsgpu_fake_key_loads[0], loads1 = bsgpu_fake_key_loads[1];
    const uint64_t wipes0 = bsgpu_fake_key_wipes[0], wipes1 = bsgpu_fake_key_wipes[1];
    be->ops->close_key(be, ha);
    /* The sync's work (on the pool) zeroes the slot on both devices; bounded wait, 60 s. */
    for (int i = 0; i < 60000; i++) {
        if (__atomic_load_n(&bsgpu_fake_key_wipes[0], __ATOMIC_ACQUIRE) > wipes0 &&
            __atomic_load_n(&bsgpu_fake_key_wipes[1], __ATOMIC_ACQUIRE) > wipes1)
            break;
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    assert_true(__atomic_load_n(&bsgpu_fake_key_wipes[0], __ATOMIC_ACQUIRE) > wipes0);
    assert_true(__atomic_load_n(&bsgpu_fake_key_wipes[1], __ATOMIC_ACQUIRE) > wipes1);
    uint32_t h[NSESS] = {0};
    h[0] = be->ops->open_key(be, c, &ks[0]); /* B: session 0 of run_batch, key ks[0] */
    assert_int_equal(h[0], ha);              /* A's slot again */
    /* Submitted before the loop runs: no sync is under way for B's load. */
    run_batch(be, &loop, c, 0, h);
    /* B's key was loaded once on each device, by the part or the sync that followed it. */
    assert_int_equal(bsgpu_fake_key_loads[0], loads0 + 1);
    assert_int_equal(bsgpu_fake_key_loads[1], loads1 + 1);
    status_has(be, "gpus_failed=0");
    status_has(be, "cpu_fallbacks=0 ");
    be->ops->close_key(be, h[0]);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(table_zero(0) && table_zero(1));
    be->ops->destroy(be);
    uv_loop_close(&loop);
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend),
        cmocka_unit_test(test_resident_keys),
        cmocka_unit_test(test_slot_reuse),
        cmocka_unit_test(test_adjacent_mappings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
