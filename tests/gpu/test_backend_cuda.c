/*
 * The daemon's CUDA backend (service/backend/bsd_backend_cuda.c) over the fake bsgpu: batches of
 * many sessions split across two "devices" give bs_ctr_keystream's bytes; a failing device's part
 * is redone on the CPU with the right bytes, reported in STATUS, and the device is not used again;
 * with every device failed the batches still complete on the CPU. Every job's window digest
 * (the daemon's reply) is the digest of the right bytes. A device whose result silently differs
 * from its own redundant computation fails the self-check: taken out of service, its part redone
 * on the CPU, counted in STATUS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bsd_backend_cuda.h"
#include "bs_digest.h"
#include "bsd_integrity.h"
#include "fake_bsgpu.h"
#include "modes/ctr.h"
#include "testutil.h"

enum { NJOB = 40, NSESS = 6 };

static int done_calls, done_status;

static void on_done(bsd_batch *b, int status)
{
    (void)b;
    done_calls++;
    done_status = status;
}

/* One batch of cipher c through the backend; checks every job's bytes. */
static void run_batch(bsd_backend *be, uv_loop_t *loop, const bs_block_cipher *c, int big)
{
    static bs_key_schedule ks[NSESS];
    static bsd_job jobs[NJOB];
    bsd_job *list[NJOB];
    bsd_batch b;
    const size_t bl = c->block_len;
    uint64_t total = 0;
    for (int s = 0; s < NSESS; s++) {
        uint8_t key[32];
        bs_test_fill(key, c->key_len);
        c->set_key(&ks[s], key);
    }
    for (int j = 0; j < NJOB; j++) {
        memset(&jobs[j], 0, sizeof jobs[j]);
        jobs[j].cipher = c;
        jobs[j].ks = &ks[bs_test_below(NSESS)];
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

/* With the daemon's own buffer size (bsd_status.c, bsd_main.c): a field cut off there is lost. */
static void status_has(bsd_backend *be, const char *what)
{
    char line[BSD_DESCRIBE_MAX];
    be->ops->describe(be, line, sizeof line);
    if (strstr(line, what) == NULL) {
        printf("STATUS: %s\nwanted: %s\n", line, what);
        fail();
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
        run_batch(be, &loop, cs[i], 0);
    /* More than 2 * 2^20 blocks: one part per device. */
    memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
    run_batch(be, &loop, &bs_gift64_bs64, 1);
    assert_int_equal(bsgpu_fake_calls[0], 1);
    assert_int_equal(bsgpu_fake_calls[1], 1);
    status_has(be, "cuda_errors=0");
    status_has(be, "self_check_failures=0 last_cuda_error=\"\"");

    /* Silently wrong: the self-check catches it, the CPU redoes the part, the device is out. */
    bsgpu_fake_silent = 1;
    run_batch(be, &loop, &bs_gift64_bs64, 0);
    bsgpu_fake_silent = 0;
    status_has(be, "gpus_failed=1");
    status_has(be, "self_check_failures=1");
    status_has(be, "differs from its redundant computation");
    be->ops->destroy(be);
    be = bsd_backend_cuda_create(&loop, 2);
    assert_non_null(be);
    status_has(be, "gpus_failed=0");

    bsgpu_fake_fail = 1;
    run_batch(be, &loop, &bs_present80_bs64, 0);
    status_has(be, "gpus_failed=1");
    status_has(be, "cuda_errors=1");
    status_has(be, "injected failure");
    run_batch(be, &loop, &bs_gift128_bs64, 0);
    status_has(be, "gpus_failed=2");
    /* No healthy device left: straight to the CPU, no new error. */
    memset(bsgpu_fake_calls, 0, sizeof bsgpu_fake_calls);
    run_batch(be, &loop, &bs_rijndael256_bs64, 0);
    assert_int_equal(bsgpu_fake_calls[0] + bsgpu_fake_calls[1], 0);
    status_has(be, "cuda_errors=2");
    bsgpu_fake_fail = 0;
    be->ops->destroy(be);
    uv_loop_close(&loop);
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
