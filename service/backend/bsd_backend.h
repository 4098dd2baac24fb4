/*
 * bsd_backend.h: what the daemon asks of a keystream backend. The daemon sees backends only
 * through this table and the list of create functions in bsd_backends.c: the CPU backend
 * (bsd_backend_cpu.c) always, the CUDA backend (bsd_backend_cuda.c) in builds with CUDA.
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
    /* The backend's handle for the session's key (open_key), 0 when it keeps none. */
    uint32_t dev_key;
    uint8_t counter[BS_BLOCK_MAX];
    uint64_t nblocks;
    uint8_t *dst;
    /*
     * The mapping dst lies in (the connection's shared memory, as registered with the backend),
     * or NULL: a backend copies into two jobs' windows in one piece only when their regions are
     * equal (CUDA refuses one copy across two registered mappings, adjacent or not).
     */
    const void *region;
    /*
     * Integrity (bsd_integrity.c, PROTOCOL.md "Integrity"): from their worker threads, backends
     * call bsd_job_begin_wiped and bsd_job_seal_wiped around a block range (CPU: the client left
     * dst zeroed, and the zero is the poison), bsd_job_device_sum and bsd_job_add once the
     * device's copies are in dst (CUDA, the same zero), or bsd_job_poison before they produce a
     * range into a window that holds something else and bsd_job_seal right after (CUDA's CPU
     * redo); sum and poison_hits accumulate atomically over the ranges.
     */
    uint64_t seed, poison;
    uint64_t sum, poison_hits;
    int unchecked; /* benchmark request: no poison, no digest */
    /*
     * Per-piece sums (BSD_KS_PIECE_LOG2; piece_log2 0: none): the seals (and
     * bsd_job_device_sum) add each range's sum into the pieces it covers too; a range redone
     * after its sums were added marks them stale (bsd_job_pieces_stale), and the reply then sums
     * the pieces from the window.
     */
    unsigned piece_log2;
    uint64_t *piece_sums;
    int pieces_stale;
    /* The batcher's; backends ignore it. The daemon embeds the job in its own bookkeeping. */
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
    void *backend_data;    /* the backend's own per-batch state */
    int rated;             /* the batcher's: the batch counts in its cipher's rate */
    uint64_t submitted_ns; /* the batcher's: when it went to the backend */
} bsd_batch;

typedef struct bsd_backend bsd_backend;

#define BSD_DESCRIBE_MAX 1024

typedef struct bsd_backend_ops {
    const char *name;
    /* Starts the batch; 0, or -errno when it cannot (then done is never called). */
    int (*submit)(bsd_backend *be, bsd_batch *batch);
    /* One line of key=value pairs for STATUS (device, threads, ...); callers give it
     * BSD_DESCRIBE_MAX bytes (the CUDA backend's line with its counters is ~400). */
    void (*describe)(bsd_backend *be, char *out, size_t len);
    /* Called after the last batch completed. */
    void (*destroy)(bsd_backend *be);
    /*
     * Optional (NULL when the backend has no use for it): prepares a shared-memory window that
     * keystream will be written into (the CUDA backend page-locks it, so the device copies
     * straight in), and undoes that before the window is unmapped. 0, or -1: failure only
     * costs speed.
     */
    int (*register_memory)(bsd_backend *be, void *p, size_t len);
    int (*unregister_memory)(bsd_backend *be, void *p);
    /*
     * Optional (NULL when the backend keeps nothing per session): on the loop thread, a session's
     * key was set (OPEN), and a session is gone with no job of it left (CLOSE, or its connection's
     * end). open_key returns a handle > 0 that the session's jobs carry (bsd_job.dev_key), or 0
     * when the backend keeps nothing for it (full, or no device): its jobs then go as any other.
     * The CUDA backend keeps the session's round keys on its devices, expanded once, until
     * close_key zeroes them.
     */
    uint32_t (*open_key)(bsd_backend *be, const bs_block_cipher *cipher, const bs_key_schedule *ks);
    void (*close_key)(bsd_backend *be, uint32_t handle);
} bsd_backend_ops;

struct bsd_backend {
    const bsd_backend_ops *ops;
    uv_loop_t *loop;
    void *priv;
    /*
     * Threads of this host's CPUs that compute the keystream (the CPU backend's workers); 0 when
     * a device computes it. RATE passes it on: a client weighs what a CPU backend costs against
     * the cores it shares with that client (service/client/bsd_offload.h).
     */
    unsigned host_workers;
};

/*
 * A backend's constructor: NULL when it cannot run here (no device). threads: the CPU
 * workers (0: one per online CPU). Call before anything else uses the libuv pool.
 */
typedef bsd_backend *(*bsd_backend_create_fn)(uv_loop_t *loop, unsigned threads);

typedef struct bsd_backend_kind {
    const char *name;
    bsd_backend_create_fn create;
} bsd_backend_kind;

/*
 * The backends compiled into this daemon (bsd_backends.c), NULL-terminated, in the order
 * "auto" tries them; the last, "cpu", always starts.
 */
extern const bsd_backend_kind bsd_backend_kinds[];

/*
 * System calls a backend makes for its batches, on its threads and on the loop (STATUS
 * syscalls_total): the CPU backend counts its workers' futex waits, the loop's wakes of them and
 * the eventfd that hands batches back (atomically, relaxed); other backends count none.
 */
extern uint64_t bsd_backend_syscalls;

/* 1 if name is "auto" or a compiled-in backend. */
int bsd_backend_known(const char *name);
/*
 * The backend called name, or for "auto" the first of bsd_backend_kinds that starts. When the
 * wanted one cannot start, logs why and returns the CPU backend; NULL only when none starts.
 */
bsd_backend *bsd_backend_create(const char *name, uv_loop_t *loop, unsigned threads);

/* Blocks [lo, hi) of the job: fill with its poison word (before the backend writes them). */
void bsd_job_poison(bsd_job *job, uint64_t lo, uint64_t hi);
/* Blocks [lo, hi) of the job are final: digest them and count words still equal to the poison. */
void bsd_job_seal(bsd_job *job, uint64_t lo, uint64_t hi);
/*
 * The same for a backend that writes straight into the window as the client left it, zeroed
 * (PROTOCOL.md "Integrity"): begin before blocks [lo, hi) are written (a test-fault hook only),
 * seal when they are final: digest them and count words still zero. No fill pass over the
 * window: its lines are written once, by the backend, as without the checks.
 */
void bsd_job_begin_wiped(bsd_job *job, uint64_t lo, uint64_t hi);
void bsd_job_seal_wiped(bsd_job *job, uint64_t lo, uint64_t hi);
/*
 * For a backend whose results arrive by DMA into the window as the client left it, zeroed, and
 * that compares the sum with its own before it counts (CUDA): bsd_job_device_sum digests blocks
 * [lo, hi), counts the words still zero into *hits and adds each piece's share into the piece
 * sums (one pass over the window, no fill pass before it); bsd_job_add then adds the total and
 * the hits, or, when the comparison failed and the range is to be redone, bsd_job_pieces_stale
 * makes the reply sum the pieces from the window instead.
 */
uint64_t bsd_job_device_sum(bsd_job *job, uint64_t lo, uint64_t hi, uint64_t *hits);
void bsd_job_add(bsd_job *job, uint64_t sum, uint64_t hits);
void bsd_job_pieces_stale(bsd_job *job);

bsd_backend *bsd_backend_cpu_create(uv_loop_t *loop, unsigned threads);
/* BENCHMARK ONLY, in -Dbench_ceiling builds (bsd_backend_cpu.c): the CPU backend serving a
 * precomputed keystream. */
bsd_backend *bsd_backend_ceiling_create(uv_loop_t *loop, unsigned threads);

#endif
