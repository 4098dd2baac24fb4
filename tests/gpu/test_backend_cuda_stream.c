/*
 * The daemon's CUDA backend over the fake bsgpu with the stream's requests (bsd_stream.c): windows
 * the client left zeroed, per-piece digests asked for. Each job's bytes are bs_ctr_keystream's,
 * its window digest and every piece digest are those of the right bytes, and no word is counted
 * unwritten; a device whose result silently differs fails its self-check, its part is redone on
 * the CPU, and the pieces are still right. A block that the device's copy never reached (left as
 * the client's zero) is counted unwritten. Arguments "MIB ROUNDS [nopieces]" run only the clean
 * path (no piece digests asked for, as the large requests, with nopieces) and print the process's
 * CPU per byte less the fake device's: the backend's host side (a profile; the test times
 * nothing).
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

#include "bs_digest.h"
#include "bsd_backend_cuda.h"
#include "bsd_integrity.h"
#include "backend_status.h"
#include "fake_bsgpu.h"
#include "modes/ctr.h"
#include "testutil.h"

enum { NJOB = 4, PIECE_LOG2 = 14 };

static size_t window_bytes = (size_t)1 << 20;
static unsigned rounds = 1;
static unsigned piece_log2 = PIECE_LOG2; /* 0: none asked for, as the large requests */
static int done_calls;
static bs_key_schedule ks;

static void on_done(bsd_batch *b, int status)
{
    (void)b;
    (void)status;
    done_calls++;
}

/* Piece p's digest of the right keystream, as the client computes it (PROTOCOL.md). */
static uint64_t piece_digest(const bsd_job *job, const uint8_t *want, size_t p)
{
    const uint64_t bytes = job->nblocks * job->cipher->block_len;
    uint64_t a = (uint64_t)p << PIECE_LOG2, b = a + ((uint64_t)1 << PIECE_LOG2);
    if (b > bytes)
        b = bytes;
    return bs_digest_final(
        bs_digest_sum(job->seed, a / 8, want + a, (size_t)((b - a) / 8), 0, NULL), (b - a) / 8);
}

/*
 * One batch of NJOB stream windows; check: 1 verify everything, expecting *unwritten_job (or -1)
 * to be refused (-2: every job); 0 only run (the profile).
 */
static void run_round(bsd_backend *be, uv_loop_t *loop, const bs_block_cipher *c, int check,
                      int unwritten_job)
{
    static bsd_job jobs[NJOB];
    static uint8_t *win[NJOB];
    static uint64_t *sums[NJOB];
    bsd_job *list[NJOB];
    bsd_batch b;
    const size_t bl = c->block_len;
    const uint64_t nblocks = window_bytes / bl - (check ? 3 : 0); /* a short last piece */
    const size_t npieces = (size_t)((nblocks * bl + ((size_t)1 << PIECE_LOG2) - 1) >> PIECE_LOG2);
    uint64_t total = 0;
    for (int j = 0; j < NJOB; j++) {
        if (win[j] == NULL) {
            win[j] = (uint8_t *)calloc(1, window_bytes);
            sums[j] = (uint64_t *)calloc(window_bytes >> PIECE_LOG2, sizeof(uint64_t));
            assert_non_null(win[j]);
            assert_non_null(sums[j]);
        }
        memset(&jobs[j], 0, sizeof jobs[j]);
        memset(sums[j], 0, (window_bytes >> PIECE_LOG2) * sizeof(uint64_t));
        /* The client's move left the window zeroed; in the profile it stays as written, as
         * each word is zeroed by the client's pass in the real path (not the daemon's cost). */
        if (check)
            memset(win[j], 0, window_bytes);
        jobs[j].cipher = c;
        jobs[j].ks = &ks;
        bs_test_fill(jobs[j].counter, bl);
        jobs[j].nblocks = nblocks;
        jobs[j].dst = win[j];
        jobs[j].region = win[j];
        bsd_job_integrity_init(&jobs[j], 0);
        jobs[j].piece_log2 = piece_log2;
        jobs[j].piece_sums = piece_log2 != 0 ? sums[j] : NULL;
        list[j] = &jobs[j];
        total += nblocks;
    }
    memset(&b, 0, sizeof b);
    b.cipher = c;
    b.jobs = list;
    b.njobs = NJOB;
    b.nblocks = total;
    b.done = on_done;
    done_calls = 0;
    assert_int_equal(be->ops->submit(be, &b), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    assert_int_equal(done_calls, 1);
    uint8_t *want = check ? (uint8_t *)malloc(window_bytes) : NULL;
    for (int j = 0; j < NJOB; j++) {
        /* What the daemon's reply does on the loop thread (bsd_handlers.c). */
        uint64_t digest, unwritten, pieces[(size_t)64 << (20 - PIECE_LOG2)];
        assert_true(npieces <= sizeof pieces / sizeof pieces[0]);
        const int verdict = bsd_job_verdict(&jobs[j], &digest, &unwritten);
        if (piece_log2 != 0)
            bsd_job_piece_digests(&jobs[j], pieces, npieces);
        if (!check)
            continue;
        assert_non_null(want);
        bs_ctr_keystream(c, &ks, jobs[j].counter, nblocks, want);
        if (j == unwritten_job || unwritten_job == -2) {
            assert_int_equal(verdict, -1);
            assert_true(unwritten > 0);
            continue;
        }
        assert_int_equal(verdict, 0);
        assert_memory_equal(win[j], want, nblocks * bl);
        assert_true(digest == bs_digest(jobs[j].counter, bl, nblocks, want));
        for (size_t p = 0; p < npieces; p++)
            assert_true(pieces[p] == piece_digest(&jobs[j], want, p));
    }
    free(want);
}

static bsd_backend *start(uv_loop_t *loop, const bs_block_cipher *c)
{
    uint8_t key[32];
    bs_test_fill(key, c->key_len);
    c->set_key(&ks, key);
    uv_loop_init(loop);
    bsgpu_fake_devices = 1;
    bsd_backend *be = bsd_backend_cuda_create(loop, 2);
    assert_non_null(be);
    return be;
}

static void stop(bsd_backend *be, uv_loop_t *loop)
{
    be->ops->destroy(be);
    uv_loop_close(loop);
}

static void test_stream_windows(void **state)
{
    (void)state;
    static const bs_block_cipher *const cs[] = {&bs_present80_bs64, &bs_gift128_bs64,
                                                &bs_rijndael256_bs64};
    for (int i = 0; i < 3; i++) {
        uv_loop_t loop;
        bsd_backend *be = start(&loop, cs[i]);
        for (int r = 0; r < 2; r++)
            run_round(be, &loop, cs[i], 1, -1);
        stop(be, &loop);
    }
}

/* A silently wrong device: its part is redone on the CPU, every piece digest still right. */
static void test_silent_device(void **state)
{
    (void)state;
    uv_loop_t loop;
    bsd_backend *be = start(&loop, &bs_present80_bs64);
    bsgpu_fake_silent = 1;
    run_round(be, &loop, &bs_present80_bs64, 1, -1);
    bsgpu_fake_silent = 0;
    status_has(be, "self_check_failures=1");
    run_round(be, &loop, &bs_present80_bs64, 1, -1); /* now on the CPU: still right */
    stop(be, &loop);
}

/*
 * A block the device's copy never reached, with a self-check that agrees (both computations
 * wrong alike): the window's zero there is counted, and that job alone is refused. With what a
 * client that did not zero its window left there instead, the part fails its check and is redone
 * on the CPU: the window is never answered with what it held before.
 */
static void test_device_unwritten(void **state)
{
    (void)state;
    uv_loop_t loop;
    bsd_backend *be = start(&loop, &bs_present80_bs64);
    bsgpu_fake_unwritten = 1;
    memset(bsgpu_fake_unwritten_block, 0, sizeof bsgpu_fake_unwritten_block);
    run_round(be, &loop, &bs_present80_bs64, 1, 0);
    status_has(be, "self_check_failures=0");
    bsgpu_fake_unwritten = 2;
    memset(bsgpu_fake_unwritten_block, 0x5c, sizeof bsgpu_fake_unwritten_block);
    run_round(be, &loop, &bs_present80_bs64, 1, -1);
    status_has(be, "self_check_failures=1");
    bsgpu_fake_unwritten = 0;
    stop(be, &loop);
}

/*
 * The test hook BSD_TEST_FAULT=unwritten on a part the device failed (redone on the CPU, into a
 * window poisoned again): each job's middle block left as the poison, and every job refused.
 */
static void test_unwritten_block(void **state)
{
    (void)state;
    setenv("BSD_TEST_FAULT", "unwritten", 1);
    assert_non_null(bsd_fault_init());
    uv_loop_t loop;
    bsd_backend *be = start(&loop, &bs_present80_bs64);
    bsgpu_fake_fail = 1;
    run_round(be, &loop, &bs_present80_bs64, 1, -2);
    bsgpu_fake_fail = 0;
    stop(be, &loop);
}

int main(int argc, char **argv)
{
    if (argc == 3 || argc == 4) {
        if (argc == 4 && strcmp(argv[3], "nopieces") == 0)
            piece_log2 = 0;
        window_bytes = (size_t)strtoul(argv[1], NULL, 10) << 20;
        if (window_bytes == 0 || window_bytes > (size_t)64 << 20)
            return 2;
        rounds = (unsigned)strtoul(argv[2], NULL, 10);
        uv_loop_t loop;
        bsd_backend *be = start(&loop, &bs_present80_bs64);
        run_round(be, &loop, &bs_present80_bs64, 0, -1); /* windows and pool threads warm */
        struct timespec t0, t1;
        const uint64_t dev0 = bsgpu_fake_device_ns;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        for (unsigned r = 0; r < rounds; r++)
            run_round(be, &loop, &bs_present80_bs64, 0, -1);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        const double bytes = (double)rounds * NJOB * (double)window_bytes;
        const double all =
            (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
        const double dev = (double)(bsgpu_fake_device_ns - dev0);
        printf("%u x %d windows of %zu MiB%s, PRESENT-80: process cpu %.3f ns/B, of which the fake "
               "device %.3f, the backend's host side %.3f ns/B\n",
               rounds, NJOB, window_bytes >> 20, piece_log2 != 0 ? " in pieces" : "", all / bytes,
               dev / bytes, (all - dev) / bytes);
        stop(be, &loop);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_windows),
        cmocka_unit_test(test_silent_device),
        cmocka_unit_test(test_device_unwritten),
        cmocka_unit_test(test_unwritten_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
