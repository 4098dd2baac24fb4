/*
 * The daemon's batcher (service/bsd_batcher.c) on its own, over a stand-in backend that keeps
 * each submitted batch until the test completes it: grouping per cipher in arrival order,
 * flushing on batch_max_requests, on batch_max_bytes (counted in the cipher's block length) and
 * on the deadline (a job already past it goes at once; a fresh one arms the timer for exactly
 * enqueued + deadline and goes when it fires, not before); max_inflight_batches holding ready
 * groups back while they keep growing; the oldest ready group going first when a slot frees
 * (not the first registered); job_done for every job in order with the backend's status, then
 * on_idle; cancel taking exactly the matching jobs (and re-arming for the new oldest); a failed
 * submit keeping the jobs for the next try; flush_all ignoring deadlines; the cipher table limit;
 * the rate counting a batch only when every word of it was written; with batch_when_idle, a group
 * whose deadline comes after the predicted end of the batch in flight still going at its deadline
 * when that batch runs late.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bsd_batcher.h"
#include "bsd_time.h"

#define MAX_BATCHES 64
#define MAX_DONE 256
#define MS 1000000ull

/* Stand-in ciphers: the batcher reads name and block_len only. */
static bs_block_cipher ciphers[BSD_MAX_CIPHERS + 1];
static char cipher_names[BSD_MAX_CIPHERS + 1][8];

typedef struct fake {
    bsd_backend be;
    bsd_batch *batches[MAX_BATCHES]; /* submitted, not completed */
    size_t nbatches;
    size_t submits; /* calls, failed ones included */
    int fail_next;  /* the next submit returns -ENOMEM */
} fake;

typedef struct world {
    uv_loop_t loop;
    bsd_config cfg;
    bsd_stats stats;
    fake fk;
    bsd_batcher b;
    bsd_job *done_job[MAX_DONE];
    int done_status[MAX_DONE];
    size_t ndone;
    size_t idle_calls;
} world;

static int fake_submit(bsd_backend *be, bsd_batch *batch)
{
    fake *f = (fake *)be->priv;
    f->submits++;
    if (f->fail_next) {
        f->fail_next = 0;
        return -ENOMEM;
    }
    assert_true(f->nbatches < MAX_BATCHES);
    f->batches[f->nbatches++] = batch;
    return 0;
}

static void fake_describe(bsd_backend *be, char *out, size_t len)
{
    (void)be;
    snprintf(out, len, "fake=1");
}

static void fake_destroy(bsd_backend *be)
{
    (void)be;
}

static const bsd_backend_ops fake_ops = {
    .name = "fake", .submit = fake_submit, .describe = fake_describe, .destroy = fake_destroy};

static void on_job_done(void *arg, bsd_job *job, int status)
{
    world *w = (world *)arg;
    assert_true(w->ndone < MAX_DONE);
    w->done_job[w->ndone] = job;
    w->done_status[w->ndone] = status;
    w->ndone++;
}

static void on_idle(void *arg)
{
    ((world *)arg)->idle_calls++;
}

static world *W;

static int setup(void **state)
{
    W = (world *)calloc(1, sizeof *W);
    assert_non_null(W);
    for (int i = 0; i <= BSD_MAX_CIPHERS; i++) {
        snprintf(cipher_names[i], sizeof cipher_names[i], "C%d", i);
        ciphers[i].name = cipher_names[i];
        ciphers[i].block_len = i % 2 ? 8 : 16;
    }
    assert_int_equal(uv_loop_init(&W->loop), 0);
    bsd_config_defaults(&W->cfg);
    /* Only what a test sets makes a group ready: no size or deadline flush by default. */
    W->cfg.batch_deadline_us = 1000000;
    W->cfg.batch_max_requests = 1000;
    W->cfg.batch_max_bytes = (uint64_t)1 << 30;
    W->cfg.max_inflight_batches = 4;
    W->cfg.batch_when_idle = 0;
    W->fk.be.ops = &fake_ops;
    W->fk.be.loop = &W->loop;
    W->fk.be.priv = &W->fk;
    *state = W;
    return 0;
}

static void start(void)
{
    assert_int_equal(
        bsd_batcher_init(&W->b, &W->loop, &W->cfg, &W->fk.be, &W->stats, on_job_done, on_idle, W),
        0);
}

static int teardown(void **state)
{
    (void)state;
    while (W->fk.nbatches > 0) { /* the backend finishes what a test left in flight */
        bsd_batch *bt = W->fk.batches[--W->fk.nbatches];
        bt->done(bt, 0);
    }
    bsd_batcher_close(&W->b);
    uv_run(&W->loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&W->loop), 0);
    free(W);
    W = NULL;
    return 0;
}

static void job(bsd_job *j, int cipher, uint64_t nblocks, uint64_t enqueued_ns)
{
    memset(j, 0, sizeof *j);
    j->cipher = &ciphers[cipher];
    j->nblocks = nblocks;
    j->enqueued_ns = enqueued_ns;
}

static void add(bsd_job *j)
{
    assert_int_equal(bsd_batcher_add(&W->b, j), 0);
}

/* The i-th batch still in flight has exactly these jobs, in this order. */
static void expect_batch(size_t i, int cipher, bsd_job *const *jobs, size_t n)
{
    assert_true(i < W->fk.nbatches);
    const bsd_batch *bt = W->fk.batches[i];
    assert_ptr_equal(bt->cipher, &ciphers[cipher]);
    assert_int_equal(bt->njobs, n);
    uint64_t blocks = 0;
    for (size_t k = 0; k < n; k++) {
        assert_ptr_equal(bt->jobs[k], jobs[k]);
        blocks += jobs[k]->nblocks;
    }
    assert_int_equal(bt->nblocks, blocks);
    assert_non_null(bt->done);
}

/* The backend finishes in-flight batch i with status. */
static void complete(size_t i, int status)
{
    assert_true(i < W->fk.nbatches);
    bsd_batch *bt = W->fk.batches[i];
    memmove(&W->fk.batches[i], &W->fk.batches[i + 1],
            (W->fk.nbatches - i - 1) * sizeof W->fk.batches[0]);
    W->fk.nbatches--;
    bt->done(bt, status);
}

static void test_group_by_count(void **state)
{
    (void)state;
    W->cfg.batch_max_requests = 3;
    start();
    uint64_t now = bsd_now_ns();
    bsd_job a[3], b[2];
    job(&a[0], 0, 5, now);
    job(&b[0], 1, 1, now);
    job(&a[1], 0, 7, now);
    job(&b[1], 1, 1, now);
    add(&a[0]);
    add(&b[0]);
    add(&a[1]);
    add(&b[1]);
    assert_int_equal(W->fk.submits, 0);
    assert_int_equal(bsd_batcher_queued_jobs(&W->b), 4);
    job(&a[2], 0, 9, now);
    add(&a[2]); /* cipher 0 reaches three requests; cipher 1 keeps waiting */
    assert_int_equal(W->fk.nbatches, 1);
    bsd_job *const want[] = {&a[0], &a[1], &a[2]};
    expect_batch(0, 0, want, 3);
    assert_int_equal(bsd_batcher_queued_jobs(&W->b), 2);
    assert_int_equal(W->stats.batches_total, 1);
    assert_int_equal(W->stats.batch_max, 3);

    /* Done: every job handed back in order with the backend's status, then on_idle once. */
    assert_int_equal(W->ndone, 0);
    complete(0, -EIO);
    assert_int_equal(W->ndone, 3);
    for (int k = 0; k < 3; k++) {
        assert_ptr_equal(W->done_job[k], &a[k]);
        assert_int_equal(W->done_status[k], -EIO);
    }
    assert_int_equal(W->idle_calls, 1);
    /* A group that flushed starts again from nothing. */
    job(&a[0], 0, 1, now);
    add(&a[0]);
    assert_int_equal(W->fk.nbatches, 0);
    bsd_batcher_flush_all(&W->b);
    assert_int_equal(W->fk.nbatches, 2);
    complete(0, 0);
    complete(0, 0);
    assert_int_equal(W->ndone, 6);
    assert_int_equal(W->idle_calls, 3);
}

static void test_group_by_bytes(void **state)
{
    (void)state;
    W->cfg.batch_max_bytes = 64;
    start();
    uint64_t now = bsd_now_ns();
    bsd_job x[3], y;
    job(&x[0], 0, 3, now); /* 16-byte blocks: 48 bytes */
    job(&y, 1, 7, now);    /* 8-byte blocks: 56 bytes, below 64 */
    add(&x[0]);
    add(&y);
    assert_int_equal(W->fk.submits, 0);
    job(&x[1], 0, 1, now); /* 64 bytes: ready */
    add(&x[1]);
    bsd_job *const want[] = {&x[0], &x[1]};
    assert_int_equal(W->fk.nbatches, 1);
    expect_batch(0, 0, want, 2);
    job(&x[2], 1, 1, now); /* cipher 1: 64 bytes with y */
    add(&x[2]);
    bsd_job *const want_y[] = {&y, &x[2]};
    assert_int_equal(W->fk.nbatches, 2);
    expect_batch(1, 1, want_y, 2);
}

static int in_set(const bsd_job *j, const void *arg)
{
    for (bsd_job *const *p = (bsd_job *const *)arg; *p != NULL; p++)
        if (*p == j)
            return 1;
    return 0;
}

static void test_deadline(void **state)
{
    (void)state;
    W->cfg.batch_deadline_us = 100000; /* 100 ms */
    start();
    /* Enqueued longer ago than the deadline: it goes as it is added. */
    bsd_job old, fresh, late;
    job(&old, 0, 1, bsd_now_ns() - 101 * MS);
    add(&old);
    assert_int_equal(W->fk.nbatches, 1);
    assert_int_equal(W->b.armed_ns, 0); /* nothing left to wait for */

    /* 30 ms before its deadline it is not due yet; just past it, it is. */
    bsd_job almost, past;
    job(&almost, 3, 1, bsd_now_ns() - 70 * MS);
    add(&almost);
    assert_int_equal(W->fk.nbatches, 1);
    job(&past, 4, 1, bsd_now_ns() - 100 * MS - 1);
    add(&past);
    assert_int_equal(W->fk.nbatches, 2);
    complete(1, 0);
    assert_int_equal(bsd_batcher_cancel(&W->b, in_set, (bsd_job *const[]){&almost, NULL}), 1);

    /* A fresh one waits: the timer is set for its deadline exactly. */
    uint64_t t0 = bsd_now_ns();
    job(&fresh, 1, 1, t0);
    add(&fresh);
    assert_int_equal(W->fk.nbatches, 1);
    assert_int_equal(W->b.armed_ns, t0 + 100 * MS);
    /* A later job of the same cipher does not move the group's deadline. */
    job(&late, 1, 1, t0 + 5 * MS);
    add(&late);
    assert_int_equal(W->b.armed_ns, t0 + 100 * MS);

    for (int spins = 0; W->fk.nbatches < 2 && spins < 1000; spins++)
        uv_run(&W->loop, UV_RUN_ONCE);
    assert_int_equal(W->fk.nbatches, 2);
    assert_true(bsd_now_ns() >= t0 + 100 * MS); /* not before its deadline */
    bsd_job *const want[] = {&fresh, &late};
    expect_batch(1, 1, want, 2);
    assert_int_equal(W->b.armed_ns, 0);

    /* batch_deadline_us = 0: no waiting at all. */
    W->cfg.batch_deadline_us = 0;
    bsd_job z;
    job(&z, 2, 1, bsd_now_ns());
    add(&z);
    assert_int_equal(W->fk.nbatches, 3);
}

/*
 * batch_when_idle: with no batch in flight a fresh job goes at once, deadline or not; while one
 * is in flight the next ones wait (the timer armed for their deadline) and grow into one group,
 * which goes as soon as the backend is idle again, before that deadline.
 */
static void test_when_idle(void **state)
{
    (void)state;
    W->cfg.batch_when_idle = 1;
    start(); /* deadline 1 s, no size flush */
    uint64_t t0 = bsd_now_ns();
    bsd_job a, b, c;
    job(&a, 0, 1, t0);
    add(&a);
    assert_int_equal(W->fk.nbatches, 1);
    job(&b, 0, 1, t0);
    job(&c, 0, 1, t0);
    add(&b);
    add(&c);
    assert_int_equal(W->fk.nbatches, 1);
    assert_int_equal(W->b.armed_ns, t0 + 1000 * MS);
    complete(0, 0);
    assert_int_equal(W->fk.nbatches, 1);
    bsd_job *const want[] = {&b, &c};
    expect_batch(0, 0, want, 2);
    assert_true(bsd_now_ns() < t0 + 1000 * MS);
    assert_int_equal(W->b.armed_ns, 0);
}

/* Ready groups wait for an in-flight slot, keep growing, and the oldest goes first. */
static void test_inflight_fairness(void **state)
{
    (void)state;
    W->cfg.batch_max_requests = 2;
    W->cfg.max_inflight_batches = 1;
    start();
    uint64_t now = bsd_now_ns();
    bsd_job a[2], b[3], c[2];
    job(&a[0], 0, 1, now);
    job(&a[1], 0, 1, now);
    add(&a[0]);
    add(&a[1]);
    assert_int_equal(W->fk.nbatches, 1);
    /* Cipher 1 registers first, but cipher 2's oldest job is older. */
    job(&b[0], 1, 1, now - 3 * MS);
    job(&c[0], 2, 1, now - 5 * MS);
    job(&b[1], 1, 1, now);
    job(&c[1], 2, 1, now);
    job(&b[2], 1, 1, now);
    add(&b[0]);
    add(&c[0]);
    add(&b[1]);
    add(&c[1]);
    add(&b[2]); /* ready since b[1], still growing */
    assert_int_equal(W->fk.nbatches, 1);
    assert_int_equal(W->fk.submits, 1);
    assert_int_equal(bsd_batcher_queued_jobs(&W->b), 5);

    complete(0, 0);
    assert_int_equal(W->fk.nbatches, 1);
    bsd_job *const want_c[] = {&c[0], &c[1]};
    expect_batch(0, 2, want_c, 2);
    assert_int_equal(W->idle_calls, 1);
    complete(0, 0);
    bsd_job *const want_b[] = {&b[0], &b[1], &b[2]};
    expect_batch(0, 1, want_b, 3);
    complete(0, 0);
    assert_int_equal(W->ndone, 7);
    assert_int_equal(W->idle_calls, 3);
    /* job_done order follows the batches: a, c, b. */
    assert_ptr_equal(W->done_job[2], &c[0]);
    assert_ptr_equal(W->done_job[4], &b[0]);
    assert_int_equal(W->stats.batches_total, 3);
}

static void test_cancel(void **state)
{
    (void)state;
    start(); /* deadline 1 s */
    uint64_t now = bsd_now_ns();
    bsd_job x[4], other;
    for (int i = 0; i < 4; i++)
        job(&x[i], 0, (uint64_t)(i + 1), now + (uint64_t)i * MS);
    job(&other, 1, 10, now + 10 * MS);
    for (int i = 0; i < 4; i++)
        add(&x[i]);
    add(&other);
    assert_int_equal(W->b.armed_ns, now + 1000 * MS);

    bsd_job *const gone[] = {&x[0], &x[2], NULL};
    assert_int_equal(bsd_batcher_cancel(&W->b, in_set, gone), 2);
    assert_int_equal(W->ndone, 2);
    for (size_t k = 0; k < 2; k++) {
        assert_true(W->done_job[k] == &x[0] || W->done_job[k] == &x[2]);
        assert_int_equal(W->done_status[k], -ECANCELED);
    }
    assert_ptr_not_equal(W->done_job[0], W->done_job[1]);
    assert_int_equal(bsd_batcher_queued_jobs(&W->b), 3);
    /* The group's oldest is now x[1]: the timer follows. */
    assert_int_equal(W->b.armed_ns, now + 1 * MS + 1000 * MS);
    assert_int_equal(W->fk.submits, 0);
    assert_int_equal(W->idle_calls, 0);

    /* Nothing matches: nothing changes. */
    bsd_job *const none[] = {&x[0], NULL};
    assert_int_equal(bsd_batcher_cancel(&W->b, in_set, none), 0);
    assert_int_equal(bsd_batcher_queued_jobs(&W->b), 3);

    bsd_batcher_flush_all(&W->b);
    assert_int_equal(W->fk.nbatches, 2);
    bsd_job *const want[] = {&x[1], &x[3]};
    expect_batch(0, 0, want, 2); /* nblocks 2 + 4: the cancelled blocks left the count */
    bsd_job *const want_o[] = {&other};
    expect_batch(1, 1, want_o, 1);

    /* Jobs already handed to the backend are not the batcher's to cancel. */
    bsd_job *const sent[] = {&x[1], &other, NULL};
    assert_int_equal(bsd_batcher_cancel(&W->b, in_set, sent), 0);
    complete(0, 0);
    complete(0, 0);
    assert_int_equal(W->ndone, 5);
}

static void test_submit_failure(void **state)
{
    (void)state;
    W->cfg.batch_max_requests = 2;
    start();
    uint64_t now = bsd_now_ns();
    bsd_job a[3];
    for (int i = 0; i < 3; i++)
        job(&a[i], 0, 1, now);
    W->fk.fail_next = 1;
    add(&a[0]);
    add(&a[1]);
    assert_int_equal(W->fk.submits, 1);
    assert_int_equal(W->fk.nbatches, 0);
    assert_int_equal(bsd_batcher_queued_jobs(&W->b), 2); /* kept */
    assert_int_equal(W->ndone, 0);
    assert_int_equal(W->stats.batches_total, 0);
    add(&a[2]);
    assert_int_equal(W->fk.submits, 2);
    bsd_job *const want[] = {&a[0], &a[1], &a[2]};
    expect_batch(0, 0, want, 3);
    complete(0, 0);
    assert_int_equal(W->ndone, 3);
}

static void test_cipher_table(void **state)
{
    (void)state;
    start();
    uint64_t now = bsd_now_ns();
    static bsd_job j[BSD_MAX_CIPHERS + 1];
    for (int i = 0; i < BSD_MAX_CIPHERS; i++) {
        job(&j[i], i, 1, now);
        add(&j[i]);
    }
    job(&j[BSD_MAX_CIPHERS], BSD_MAX_CIPHERS, 1, now);
    assert_int_equal(bsd_batcher_add(&W->b, &j[BSD_MAX_CIPHERS]), -1);
    assert_int_equal(bsd_batcher_queued_jobs(&W->b), BSD_MAX_CIPHERS);
    W->cfg.max_inflight_batches = BSD_MAX_CIPHERS;
    bsd_batcher_flush_all(&W->b);
    assert_int_equal(W->fk.nbatches, BSD_MAX_CIPHERS);
    while (W->fk.nbatches > 0)
        complete(0, 0);
    assert_int_equal(W->ndone, BSD_MAX_CIPHERS);
}

/*
 * The rate (RATE): a batch of 256 KiB or more counts once it completed with status 0 and every
 * job's words were written (bsd_job_verdict); a job with a word left unwritten keeps its batch out,
 * and so does a failed one. Nothing is timed: the submission time is set back by hand.
 */
static void test_rate_verdict(void **state)
{
    (void)state;
    start();
    uint64_t rate, bytes;
    bsd_job good, bad, failed;
    job(&good, 0, (BSD_RATE_MIN_BATCH_BYTES / 16) * 2, bsd_now_ns());
    add(&good);
    bsd_batcher_flush_all(&W->b); /* from here on, every job goes as it is added */
    assert_int_equal(W->fk.nbatches, 1);
    W->fk.batches[0]->submitted_ns -= 1000; /* 1 us on the backend */
    complete(0, 0);
    assert_non_null(bsd_batcher_rate(&W->b, &ciphers[0], &rate, &bytes));
    assert_true(rate > 0);
    assert_int_equal(bytes, BSD_RATE_MIN_BATCH_BYTES * 2);

    job(&bad, 0, (BSD_RATE_MIN_BATCH_BYTES / 16) * 4, bsd_now_ns());
    bad.poison_hits = 1; /* the backend left one word unwritten */
    add(&bad);
    assert_int_equal(W->fk.nbatches, 1);
    W->fk.batches[0]->submitted_ns -= 1;
    complete(0, 0);
    job(&failed, 0, (BSD_RATE_MIN_BATCH_BYTES / 16) * 4, bsd_now_ns());
    add(&failed);
    assert_int_equal(W->fk.nbatches, 1);
    W->fk.batches[0]->submitted_ns -= 1;
    complete(0, -EIO);
    uint64_t rate2;
    bsd_batcher_rate(&W->b, &ciphers[0], &rate2, &bytes);
    assert_int_equal(rate2, rate);
    assert_int_equal(bytes, BSD_RATE_MIN_BATCH_BYTES * 2);
    assert_int_equal(W->ndone, 3);
}

static void on_guard(uv_timer_t *t)
{
    *(int *)t->data = 1;
}

/*
 * batch_when_idle, and a backend slower than its recorded rate: the batch in flight is predicted
 * to end 50 ms after its submission (its cipher's rate: a batch of the same size that took 50 ms,
 * set by hand), well before the next group's 300 ms deadline, so no timerfd is set for that
 * group; the backend then holds the batch (it runs late). The group still goes at its deadline,
 * not when the late batch completes. The wait is bounded by a 5 s guard, nothing is timed.
 */
static void test_late_batch(void **state)
{
    (void)state;
    W->cfg.batch_when_idle = 1;
    W->cfg.batch_deadline_us = 300000;
    start();
    const uint64_t big = (BSD_RATE_MIN_BATCH_BYTES / 16) * 2;
    bsd_job a, b, c;
    job(&a, 0, big, bsd_now_ns());
    add(&a); /* idle: goes at once */
    assert_int_equal(W->fk.nbatches, 1);
    W->fk.batches[0]->submitted_ns -= 50 * MS;
    complete(0, 0);
    uint64_t rate, bytes;
    bsd_batcher_rate(&W->b, &ciphers[0], &rate, &bytes);
    assert_true(rate > 0);

    job(&b, 0, big, bsd_now_ns());
    add(&b); /* idle again: goes at once, predicted to end in about 50 ms */
    assert_int_equal(W->fk.nbatches, 1);
    const uint64_t t0 = bsd_now_ns();
    job(&c, 0, 1, t0);
    add(&c);
    assert_int_equal(W->fk.nbatches, 1);

    static int guard_fired;
    static uv_timer_t guard; /* closed by the loop after this test returns */
    guard_fired = 0;
    uv_timer_init(&W->loop, &guard);
    guard.data = &guard_fired;
    uv_timer_start(&guard, on_guard, 5000, 0);
    while (W->fk.nbatches < 2 && !guard_fired)
        uv_run(&W->loop, UV_RUN_ONCE);
    uv_timer_stop(&guard);
    uv_close((uv_handle_t *)&guard, NULL);
    /* b is still on the backend; c went on its own deadline, not before it. */
    assert_int_equal(W->fk.nbatches, 2);
    assert_true(bsd_now_ns() >= t0 + 300 * MS);
    bsd_job *const want_b[] = {&b}, *const want_c[] = {&c};
    expect_batch(0, 0, want_b, 1);
    expect_batch(1, 0, want_c, 1);
    complete(1, 0);
    complete(0, 0);
    assert_int_equal(W->ndone, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_group_by_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group_by_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inflight_fairness, setup, teardown),
        cmocka_unit_test_setup_teardown(test_when_idle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_submit_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cipher_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rate_verdict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_late_batch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
