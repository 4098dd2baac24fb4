/*
 * bsd_daemon.h: the daemon's state, split by concern as the files are:
 *   bsd_server.c   listener, connections, frame I/O, peer credentials, request handlers
 *   bsd_batcher.c  pending KEYSTREAM jobs grouped by cipher, flushed on size or deadline
 *   bsd_status.c   counters and the STATUS text
 *   bsd_main.c     configuration, signals, start and orderly shutdown
 */
#ifndef BSD_DAEMON_H
#define BSD_DAEMON_H

#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "bsd_backend.h"
#include "bsd_config.h"
#include "bsd_keypool.h"
#include "bsd_proto.h"

#define BSD_MAX_CIPHERS 32
/* Batch-size histogram: bucket i holds sizes in (2^(i-1), 2^i], bucket 0 holds size 1. */
#define BSD_HIST_BUCKETS 10
#define BSD_SIZE_COUNTS 1025
/* Largest reply backlog a connection may have before it counts as not reading. */
#define BSD_OUT_MAX (1u << 20)
#define BSD_IN_BUF 4096
/* KEYSTREAM requests one connection may have in flight (clients use 8 at most). */
#define BSD_CONN_MAX_INFLIGHT 64

typedef struct bsd_daemon bsd_daemon;

typedef struct bsd_shm {
    int refs;
    uint8_t *base;
    uint64_t size;
    struct bsd_backend *registered_with; /* the CUDA backend that page-locked it, or NULL */
} bsd_shm;

typedef struct bsd_session {
    int refs;
    uint32_t id;
    unsigned slot;
    const bs_block_cipher *cipher;
    bs_key_schedule *ks;
    bsd_daemon *d;
} bsd_session;

typedef struct bsd_conn {
    struct bsd_conn *prev, *next;
    bsd_daemon *d;
    uv_poll_t poll;
    int fd;
    int events;
    int refs; /* 1 for the poll handle, 1 per job in flight */
    int closing;
    int close_after_flush;
    int hello_done;
    unsigned cid;
    uid_t uid;
    gid_t gid;
    pid_t pid;
    uint8_t in[BSD_IN_BUF];
    size_t in_len;
    uint64_t partial_since_ns; /* when the first byte of the incomplete frame arrived */
    int pending_fd;            /* an fd received by SCM_RIGHTS, waiting for MAP_SHM */
    uint8_t *out;
    size_t out_len, out_off, out_cap;
    bsd_session **sessions;
    unsigned nsessions;
    uint32_t next_session_id;
    bsd_shm *shm;
    uint64_t queued_bytes;
    unsigned inflight;
} bsd_conn;

typedef struct bsd_pending {
    const bs_block_cipher *cipher;
    bsd_job *head, *tail;
    size_t njobs;
    uint64_t nblocks, bytes;
    uint64_t first_ns;
} bsd_pending;

typedef struct bsd_batcher {
    bsd_daemon *d;
    bsd_pending pend[BSD_MAX_CIPHERS];
    int timerfd;
    uv_poll_t timer_poll;
    uint64_t armed_ns; /* 0: not armed */
    unsigned inflight_batches;
    int flush_all; /* draining: ignore deadlines */
} bsd_batcher;

typedef struct bsd_stats {
    uint64_t start_ns;
    uint64_t connections_total, refused_peers, requests_total, keystream_requests;
    uint64_t bytes_served, batches_total, batched_jobs_total;
    uint64_t hist[BSD_HIST_BUCKETS];
    uint64_t size_counts[BSD_SIZE_COUNTS]; /* exact batch sizes, last one is "or more" */
    uint64_t batch_max;
    uint64_t errors[BSD_E_MAX + 1];
    uint64_t errors_total;
    /* Integrity: jobs refused for unwritten (still poisoned) words, client reports by kind. */
    uint64_t integrity_unwritten_jobs, integrity_client_digest, integrity_client_spot;
    uint64_t unchecked_requests;
} bsd_stats;

struct bsd_daemon {
    uv_loop_t *loop;
    bsd_config cfg;
    bsd_backend *backend;
    bsd_keypool keys;
    bsd_batcher batcher;
    bsd_stats stats;
    int listen_fd;
    int socket_activated;
    int unlink_on_exit;
    uv_poll_t listen_poll;
    uv_timer_t tick; /* read timeouts */
    uv_timer_t drain_timer;
    uv_signal_t sigterm, sigint;
    bsd_conn *conns;
    unsigned nconns;
    unsigned next_cid;
    unsigned sessions_open;
    unsigned inflight_jobs;
    int draining;
    int exit_code;
};

uint64_t bsd_now_ns(void);

/* bsd_server.c */
int bsd_server_listen(bsd_daemon *d, char *err, size_t errlen);
int bsd_server_start(bsd_daemon *d);
/* Stops accepting and unlinks the socket (when the daemon created it). */
void bsd_server_stop_listening(bsd_daemon *d);
void bsd_server_close_all(bsd_daemon *d);
/*
 * Called by the batcher for each finished job, on the loop thread: answers KEYSTREAM, or ERROR
 * (INTERNAL) when status != 0.
 */
void bsd_server_job_done(bsd_job *job, int status);

/* bsd_batcher.c */
int bsd_batcher_init(bsd_batcher *b, bsd_daemon *d);
/* 0, or -1 when the cipher table is full (more ciphers than BSD_MAX_CIPHERS). */
int bsd_batcher_add(bsd_batcher *b, bsd_job *job);
/* Flushes everything pending, deadlines aside (shutdown). */
void bsd_batcher_flush_all(bsd_batcher *b);
size_t bsd_batcher_queued_jobs(const bsd_batcher *b);
void bsd_batcher_close(bsd_batcher *b);

/* bsd_status.c */
void bsd_stats_batch(bsd_stats *s, size_t njobs);
void bsd_stats_error(bsd_stats *s, uint32_t code);
/* Writes the STATUS text (key=value lines) into out; returns its length. */
size_t bsd_status_text(bsd_daemon *d, char *out, size_t len);

/* bsd_main.c: checks whether draining is complete and, if so, finishes shutdown. */
void bsd_daemon_maybe_finish(bsd_daemon *d);

#endif
