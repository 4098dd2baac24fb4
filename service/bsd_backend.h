/*
 * bsd_backend.h: what the daemon asks of a keystream backend. The CPU backend (bsd_backend_cpu.c)
 * always exists; a CUDA backend implements the same table.
 *
 * The batcher hands a backend a batch: jobs of one cipher, each "nblocks of CTR keystream from
 * counter with schedule ks, into dst". The backend may split and reorder the work freely, but
 * must write exactly bs_ctr_keystream()'s bytes for every job, and then call batch->done once,
 * on the loop thread. It never touches a job after that. Between submit and done, the daemon
 * keeps every ks and dst alive.
 */
#ifndef BSD_BACKEND_H
#define BSD_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "bitslice.h"

typedef struct bsd_job {
    struct bsd_job *next;
    const bs_block_cipher *cipher;
    const bs_key_schedule *ks;
    uint8_t counter[BS_BLOCK_MAX];
    uint64_t nblocks;
    uint8_t *dst;
    /*
     * Integrity (bsd_integrity.c, PROTOCOL.md "Integrity"): backends call bsd_job_poison over a
     * block range before they produce it and bsd_job_seal right after it is in dst, from their
     * worker threads; sum and poison_hits accumulate atomically over the ranges.
     */
    uint64_t seed, poison;
    uint64_t sum, poison_hits;
    int unchecked; /* benchmark request: no poison, no digest */
    /* Daemon bookkeeping; backends ignore these. */
    struct bsd_conn *conn;
    struct bsd_session *session;
    struct bsd_shm *shm;
    uint32_t id;
    uint64_t enqueued_ns;
} bsd_job;

typedef struct bsd_batch {
    const bs_block_cipher *cipher;
    bsd_job **jobs;
    size_t njobs;
    uint64_t nblocks; /* sum over jobs */
    /* Set by the batcher; the backend calls it once, on the loop thread. status 0 or -errno. */
    void (*done)(struct bsd_batch *batch, int status);
    void *owner;
    void *backend_data; /* the backend's own per-batch state */
} bsd_batch;

typedef struct bsd_backend bsd_backend;

typedef struct bsd_backend_ops {
    const char *name;
    /* Starts the batch; 0, or -errno when it cannot (then done is never called). */
    int (*submit)(bsd_backend *be, bsd_batch *batch);
    /* One line of key=value pairs for STATUS (device, threads, ...). */
    void (*describe)(bsd_backend *be, char *out, size_t len);
    /* Called after the last batch completed. */
    void (*destroy)(bsd_backend *be);
} bsd_backend_ops;

struct bsd_backend {
    const bsd_backend_ops *ops;
    uv_loop_t *loop;
    void *priv;
};

/* Blocks [lo, hi) of the job: fill with its poison word (before the backend writes them). */
void bsd_job_poison(bsd_job *job, uint64_t lo, uint64_t hi);
/* Blocks [lo, hi) of the job are final: digest them and count words still equal to the poison. */
void bsd_job_seal(bsd_job *job, uint64_t lo, uint64_t hi);
/* The two halves of bsd_job_seal, for a backend that compares the sum with its own first. */
uint64_t bsd_job_piece_sum(const bsd_job *job, uint64_t lo, uint64_t hi, uint64_t *hits);
void bsd_job_add(bsd_job *job, uint64_t sum, uint64_t hits);

/* threads: workers (0: one per online CPU). Call before anything else uses the libuv pool. */
bsd_backend *bsd_backend_cpu_create(uv_loop_t *loop, unsigned threads);

#endif
