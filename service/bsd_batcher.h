/*
 * bsd_batcher.h: pending KEYSTREAM jobs grouped by cipher, flushed to the backend on size,
 * count or a µs deadline. The batcher knows none of its callers: it hands each finished job to
 * job_done and, after every completed batch, calls on_idle (both on the loop thread), so the
 * daemon answers requests and finishes a drain without the batcher naming either.
 */
#ifndef BSD_BATCHER_H
#define BSD_BATCHER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "bsd_backend.h"
#include "bsd_config.h"
#include "bsd_stats.h"

#define BSD_MAX_CIPHERS 32
/* The recent batches a cipher's rate is the best of (bsd_pending). */
#define BSD_RATE_BATCHES 16
/*
 * Batches below this many bytes do not count in the rate: their fixed cost (hand-offs, wakeups)
 * is most of their time, and a stream's windows are 1 MiB.
 */
#define BSD_RATE_MIN_BATCH_BYTES ((uint64_t)256 << 10)

/* Called once per job the batcher accepted: status 0 (dst holds the keystream) or -errno. */
typedef void (*bsd_job_done_fn)(void *arg, bsd_job *job, int status);
/* Called after a batch completed and its jobs were handed to job_done. */
typedef void (*bsd_batch_idle_fn)(void *arg);

typedef struct bsd_pending {
    const bs_block_cipher *cipher;
    bsd_job *head, *tail;
    size_t njobs;
    uint64_t nblocks, bytes;
    uint64_t first_ns;
    /*
     * The cipher's measured rate (RATE, STATUS rate.<CIPHER>): the keystream rate of each of its
     * last BSD_RATE_BATCHES batches of BSD_RATE_MIN_BATCH_BYTES or more, from submission to
     * completion (a RATE calibration's jobs included); the best of them is answered. calibrating:
     * a RATE calibration of this cipher is on its way.
     */
    uint64_t rate[BSD_RATE_BATCHES], rate_bytes[BSD_RATE_BATCHES];
    unsigned nrates, rate_next;
    int calibrating;
} bsd_pending;

typedef struct bsd_batcher {
    const bsd_config *cfg;
    bsd_backend *backend;
    bsd_stats *stats;
    bsd_job_done_fn job_done;
    bsd_batch_idle_fn on_idle;
    void *arg;
    bsd_pending pend[BSD_MAX_CIPHERS];
    int timerfd;
    uv_poll_t timer_poll;
    /* The deadline of a group whose timerfd was left unset on a prediction (rearm). */
    uv_timer_t backstop;
    uint64_t armed_ns; /* 0: not armed */
    unsigned inflight_batches;
    /*
     * When the batches in flight should all be done, from their ciphers' measured rates
     * (UINT64_MAX: a batch of a cipher with no rate yet); 0 while none is in flight. With
     * batch_when_idle their completion flushes every waiting group, so a deadline after this
     * needs no timerfd, only the backstop (rearm).
     */
    uint64_t idle_by_ns;
    int flush_all; /* draining: ignore deadlines */
} bsd_batcher;

/* 0 or -errno. cfg, backend and stats must outlive the batcher. */
int bsd_batcher_init(bsd_batcher *b, uv_loop_t *loop, const bsd_config *cfg, bsd_backend *backend,
                     bsd_stats *stats, bsd_job_done_fn job_done, bsd_batch_idle_fn on_idle,
                     void *arg);
/* 0, or -1 when the cipher table is full (more ciphers than BSD_MAX_CIPHERS). */
int bsd_batcher_add(bsd_batcher *b, bsd_job *job);
/* Flushes everything pending, deadlines aside (shutdown). */
void bsd_batcher_flush_all(bsd_batcher *b);
size_t bsd_batcher_queued_jobs(const bsd_batcher *b);
/*
 * The cipher's measured rate: the best bytes per second among its recent batches (bsd_pending),
 * and *bytes, the keystream of those batches; 0 and 0: none yet. Returns the cipher's entry
 * (NULL when the cipher was never queued and the table is full).
 */
bsd_pending *bsd_batcher_rate(bsd_batcher *b, const bs_block_cipher *cipher, uint64_t *bytes_per_s,
                              uint64_t *bytes);
/*
 * Takes the pending jobs (not yet handed to the backend) for which match(job, arg) says so out
 * of the queues and hands each to job_done with -ECANCELED. Returns how many.
 */
size_t bsd_batcher_cancel(bsd_batcher *b, int (*match)(const bsd_job *job, const void *arg),
                          const void *arg);
void bsd_batcher_close(bsd_batcher *b);

#endif
