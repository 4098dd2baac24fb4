/*
 * The batcher: KEYSTREAM jobs wait per cipher until their group reaches batch_max_bytes or
 * batch_max_requests, or its oldest job has waited batch_deadline_us, or (batch_when_idle) the
 * backend has no batch in flight. A ready group goes to the
 * backend when fewer than max_inflight_batches are running; otherwise it keeps growing until a
 * batch completes, which is what makes batches large under load. The deadline runs on a timerfd
 * because libuv's timers have millisecond resolution; a libuv timer backs it up where the timerfd
 * is left unset (rearm).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bsd_batcher.h"

#include "bsd_integrity.h"

#include "bsd_log.h"
#include "bsd_time.h"

static void try_flush(bsd_batcher *b);

static int group_ready(const bsd_batcher *b, const bsd_pending *p, uint64_t now)
{
    const bsd_config *c = b->cfg;
    if (p->njobs == 0)
        return 0;
    /* An idle backend waits for nothing: the deadline only lets groups grow while it works. */
    return b->flush_all || (c->batch_when_idle && b->inflight_batches == 0) ||
           p->bytes >= c->batch_max_bytes || p->njobs >= c->batch_max_requests ||
           now >= p->first_ns + (uint64_t)c->batch_deadline_us * 1000;
}

static void arm_timer(bsd_batcher *b, uint64_t when_ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (when_ns != 0) {
        its.it_value.tv_sec = (time_t)(when_ns / 1000000000u);
        its.it_value.tv_nsec = (long)(when_ns % 1000000000u);
    }
    if (timerfd_settime(b->timerfd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
        BSD_ERR("timerfd", "errno=%d", errno);
    b->stats->syscalls++;
    b->armed_ns = when_ns;
}

static void on_backstop(uv_timer_t *t);

/*
 * Arms the timer for the earliest deadline among groups that are not ready yet. A deadline the
 * timer could not serve needs none: when max_inflight_batches are running, a ready group waits
 * for a completion anyway. With batch_when_idle, when the batches in flight are predicted
 * (idle_by_ns) to be done before a deadline, their completion should flush the group first, so
 * the timerfd is not set for it (one timerfd_settime to arm and one to disarm saved per such
 * request: issue 26, system calls per request); but a batch can run late (a preempted worker, a
 * rate measured on a better batch), so a libuv timer still fires at that deadline: it only sets
 * the loop's poll timeout (no system call), at millisecond resolution, and a group still waiting
 * when it fires goes then. A prediction that has already passed arms the timerfd as before.
 */
static void rearm(bsd_batcher *b, uint64_t now)
{
    uint64_t next = 0, backstop = 0;
    const int full = b->inflight_batches >= b->cfg->max_inflight_batches;
    const int idle_soon =
        b->cfg->batch_when_idle && b->inflight_batches > 0 && b->idle_by_ns >= now;
    for (int i = 0; i < BSD_MAX_CIPHERS; i++) {
        bsd_pending *p = &b->pend[i];
        if (p->njobs == 0 || group_ready(b, p, now) || full)
            continue;
        uint64_t t = p->first_ns + (uint64_t)b->cfg->batch_deadline_us * 1000;
        uint64_t *slot = idle_soon && b->idle_by_ns <= t ? &backstop : &next;
        if (*slot == 0 || t < *slot)
            *slot = t;
    }
    if (next != b->armed_ns)
        arm_timer(b, next);
    if (backstop != 0) {
        /* Rounded up: it never fires before the deadline by the loop's clock (a stale loop
         * clock can make it early: on_backstop then sets it again). */
        uv_timer_start(&b->backstop, on_backstop, (backstop - now + 999999) / 1000000, 0);
    } else if (uv_is_active((uv_handle_t *)&b->backstop)) {
        uv_timer_stop(&b->backstop);
    }
}

/* The cipher's entry, taking a free one for a cipher never seen (NULL: the table is full). */
static bsd_pending *pending_of(bsd_batcher *b, const bs_block_cipher *cipher)
{
    for (int i = 0; i < BSD_MAX_CIPHERS; i++)
        if (b->pend[i].cipher == cipher)
            return &b->pend[i];
    for (int i = 0; i < BSD_MAX_CIPHERS; i++)
        if (b->pend[i].cipher == NULL) {
            b->pend[i].cipher = cipher;
            return &b->pend[i];
        }
    return NULL;
}

static void batch_done(bsd_batch *batch, int status)
{
    bsd_batcher *b = (bsd_batcher *)batch->owner;
    b->inflight_batches--;
    if (b->inflight_batches == 0)
        b->idle_by_ns = 0;
    bsd_pending *p = pending_of(b, batch->cipher);
    const uint64_t now = bsd_now_ns();
    /*
     * A batch counts in the rate only if every word of it was written: a backend that leaves
     * words unwritten would otherwise show a fast rate (PROTOCOL.md, RATE: "with every check").
     * Read before job_done, which may free or requeue the jobs.
     */
    int counts = p != NULL && batch->rated && status == 0 && now > batch->submitted_ns;
    for (size_t i = 0; i < batch->njobs && counts; i++) {
        uint64_t digest, unwritten;
        counts = bsd_job_verdict(batch->jobs[i], &digest, &unwritten) == 0;
    }
    if (counts) {
        const uint64_t bytes = batch->nblocks * batch->cipher->block_len;
        p->rate[p->rate_next] =
            (uint64_t)((double)bytes * 1e9 / (double)(now - batch->submitted_ns));
        p->rate_bytes[p->rate_next] = bytes;
        p->rate_next = (p->rate_next + 1) % BSD_RATE_BATCHES;
        if (p->nrates < BSD_RATE_BATCHES)
            p->nrates++;
    }
    if (status != 0)
        BSD_ERR("batch", "status=%d jobs=%zu", status, batch->njobs);
    for (size_t i = 0; i < batch->njobs; i++)
        b->job_done(b->arg, batch->jobs[i], status);
    free(batch->jobs);
    free(batch);
    try_flush(b);
    if (b->on_idle != NULL)
        b->on_idle(b->arg);
}

static void flush_group(bsd_batcher *b, bsd_pending *p)
{
    bsd_batch *batch = (bsd_batch *)calloc(1, sizeof *batch);
    bsd_job **jobs = (bsd_job **)malloc(p->njobs * sizeof *jobs);
    if (batch == NULL || jobs == NULL) {
        free(batch);
        free(jobs);
        BSD_ERR("batch", "reason=out_of_memory");
        return; /* retried on the next completion or deadline */
    }
    size_t n = 0;
    for (bsd_job *j = p->head; j != NULL; j = j->next)
        jobs[n++] = j;
    batch->cipher = p->cipher;
    batch->jobs = jobs;
    batch->njobs = n;
    batch->nblocks = p->nblocks;
    batch->done = batch_done;
    batch->owner = b;
    const uint64_t bytes = p->nblocks * p->cipher->block_len;
    batch->rated = bytes >= BSD_RATE_MIN_BATCH_BYTES;
    /* Stamped before submit: the workers it wakes may take this thread's CPU until they finish. */
    const uint64_t now = bsd_now_ns();
    batch->submitted_ns = now;
    int r = b->backend->ops->submit(b->backend, batch);
    if (r != 0) {
        BSD_ERR("batch", "reason=submit status=%d", r);
        free(jobs);
        free(batch);
        return;
    }
    b->inflight_batches++;
    uint64_t rate, measured;
    bsd_batcher_rate(b, p->cipher, &rate, &measured);
    const uint64_t end =
        rate > 0 ? now + (uint64_t)((double)bytes * 1e9 / (double)rate) : UINT64_MAX;
    if (end > b->idle_by_ns)
        b->idle_by_ns = end;
    bsd_stats_batch(b->stats, n);
    BSD_DEBUG("batch", "cipher=%s jobs=%zu blocks=%llu", p->cipher->name, n,
              (unsigned long long)p->nblocks);
    p->head = p->tail = NULL;
    p->njobs = 0;
    p->nblocks = p->bytes = 0;
    p->first_ns = 0;
}

static void try_flush(bsd_batcher *b)
{
    uint64_t now = bsd_now_ns();
    while (b->inflight_batches < b->cfg->max_inflight_batches) {
        /* The ready group whose oldest job has waited longest goes first. */
        bsd_pending *best = NULL;
        for (int i = 0; i < BSD_MAX_CIPHERS; i++) {
            bsd_pending *p = &b->pend[i];
            if (group_ready(b, p, now) && (best == NULL || p->first_ns < best->first_ns))
                best = p;
        }
        if (best == NULL)
            break;
        size_t before = best->njobs;
        flush_group(b, best);
        if (best->njobs == before)
            break; /* could not submit: try again later */
    }
    rearm(b, now);
}

static void on_backstop(uv_timer_t *t)
{
    try_flush((bsd_batcher *)t->data);
}

static void on_timer(uv_poll_t *h, int status, int events)
{
    bsd_batcher *b = (bsd_batcher *)h->data;
    uint64_t expirations;
    (void)status;
    (void)events;
    /* One read takes every expiration (timerfd(2)); a second would only say EAGAIN. */
    if (read(b->timerfd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
        BSD_ERR("timerfd", "errno=%d", errno);
    b->stats->syscalls++;
    b->armed_ns = 0;
    try_flush(b);
}

int bsd_batcher_init(bsd_batcher *b, uv_loop_t *loop, const bsd_config *cfg, bsd_backend *backend,
                     bsd_stats *stats, bsd_job_done_fn job_done, bsd_batch_idle_fn on_idle,
                     void *arg)
{
    memset(b, 0, sizeof *b);
    b->cfg = cfg;
    b->backend = backend;
    b->stats = stats;
    b->job_done = job_done;
    b->on_idle = on_idle;
    b->arg = arg;
    b->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (b->timerfd < 0)
        return -errno;
    int r = uv_timer_init(loop, &b->backstop);
    if (r != 0)
        return r;
    b->backstop.data = b;
    r = uv_poll_init(loop, &b->timer_poll, b->timerfd);
    if (r != 0)
        return r;
    b->timer_poll.data = b;
    return uv_poll_start(&b->timer_poll, UV_READABLE, on_timer);
}

int bsd_batcher_add(bsd_batcher *b, bsd_job *job)
{
    bsd_pending *p = pending_of(b, job->cipher);
    if (p == NULL)
        return -1;
    job->next = NULL;
    if (p->tail != NULL)
        p->tail->next = job;
    else {
        p->head = job;
        p->first_ns = job->enqueued_ns;
    }
    p->tail = job;
    p->njobs++;
    p->nblocks += job->nblocks;
    p->bytes += job->nblocks * job->cipher->block_len;
    try_flush(b);
    return 0;
}

void bsd_batcher_flush_all(bsd_batcher *b)
{
    b->flush_all = 1;
    try_flush(b);
}

size_t bsd_batcher_cancel(bsd_batcher *b, int (*match)(const bsd_job *job, const void *arg),
                          const void *arg)
{
    size_t n = 0;
    for (int i = 0; i < BSD_MAX_CIPHERS; i++) {
        bsd_pending *p = &b->pend[i];
        bsd_job *keep = NULL, *tail = NULL, *gone = NULL;
        for (bsd_job *j = p->head, *next; j != NULL; j = next) {
            next = j->next;
            if (match(j, arg)) {
                p->njobs--;
                p->nblocks -= j->nblocks;
                p->bytes -= j->nblocks * j->cipher->block_len;
                j->next = gone;
                gone = j;
                continue;
            }
            j->next = NULL;
            if (tail != NULL)
                tail->next = j;
            else
                keep = j;
            tail = j;
        }
        p->head = keep;
        p->tail = tail;
        p->first_ns = keep != NULL ? keep->enqueued_ns : 0;
        for (bsd_job *j = gone, *next; j != NULL; j = next) {
            next = j->next;
            b->job_done(b->arg, j, -ECANCELED);
            n++;
        }
    }
    if (n > 0)
        rearm(b, bsd_now_ns());
    return n;
}

bsd_pending *bsd_batcher_rate(bsd_batcher *b, const bs_block_cipher *cipher, uint64_t *bytes_per_s,
                              uint64_t *bytes)
{
    bsd_pending *p = pending_of(b, cipher);
    *bytes_per_s = *bytes = 0;
    if (p == NULL)
        return NULL;
    for (unsigned i = 0; i < p->nrates; i++) {
        *bytes += p->rate_bytes[i];
        if (p->rate[i] > *bytes_per_s)
            *bytes_per_s = p->rate[i];
    }
    return p;
}

size_t bsd_batcher_queued_jobs(const bsd_batcher *b)
{
    size_t n = 0;
    for (int i = 0; i < BSD_MAX_CIPHERS; i++)
        n += b->pend[i].njobs;
    return n;
}

static void on_timer_closed(uv_handle_t *h)
{
    bsd_batcher *b = (bsd_batcher *)h->data;
    close(b->timerfd);
    b->timerfd = -1;
}

void bsd_batcher_close(bsd_batcher *b)
{
    uv_poll_stop(&b->timer_poll);
    uv_close((uv_handle_t *)&b->timer_poll, on_timer_closed);
    uv_close((uv_handle_t *)&b->backstop, NULL);
}
