/*
 * bsd_conn.h: one client connection: a non-blocking Unix stream socket watched with uv_poll
 * (the daemon does its own recvmsg() because MAP_SHM carries a memfd in SCM_RIGHTS, which
 * uv_stream would treat as a handle to accept), its input framing, reply backlog, read
 * timeout, sessions and shared memory. Sessions, shared memory and the connection itself are
 * reference counted, because jobs in flight use them after the client may have gone.
 */
#ifndef BSD_CONN_H
#define BSD_CONN_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <uv.h>

#include "bsd_daemon.h"

/* Largest reply backlog a connection may have before it counts as not reading. */
#define BSD_OUT_MAX (1u << 20)
#define BSD_IN_BUF 4096
/* Windows answered on a connection that a REPORT may still name (clients keep 8 in flight). */
#define BSD_SERVED_WINDOWS 32

typedef struct bsd_shm {
    int refs;
    uint8_t *base;
    uint64_t size;
    bsd_backend *registered_with; /* the backend that registered it, or NULL */
    bsd_peer *peer;               /* charged size (shm_bytes) until the unmap */
    /*
     * For a file mapped with holes: one bit per 2^BSD_SHM_CHUNK_LOG2 bytes (64 KiB), set once that
     * chunk's pages are allocated (bsd_handlers.c, shm_populate). NULL: every page was allocated at
     * MAP_SHM.
     */
    uint8_t *populated;
} bsd_shm;

#define BSD_SHM_CHUNK_LOG2 16

typedef struct bsd_session {
    int refs;
    bsd_peer *peer; /* charged one key slot until the slot is back in the pool */
    uint32_t id;
    unsigned slot;
    uint32_t dev_key; /* the backend's handle for this key (open_key), 0: none */
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
    bsd_peer *peer; /* its uid's charges: one client slot until the last unref */
    uid_t uid;
    gid_t gid;
    pid_t pid;
    uint8_t in[BSD_IN_BUF];
    size_t in_len;
    uint64_t partial_since_ns;     /* when the first byte of the incomplete frame arrived */
    uint64_t opened_ns, active_ns; /* accepted; last request or job completion */
    int pending_fd;                /* an fd received by SCM_RIGHTS, waiting for MAP_SHM */
    uint8_t *out;
    size_t out_len, out_off, out_cap;
    bsd_session **sessions;
    unsigned nsessions;
    uint32_t next_session_id;
    bsd_shm *shm;
    uint64_t queued_bytes;
    unsigned inflight;
    /* The last windows answered (session, nblocks; 0 blocks: none or already reported). */
    struct {
        uint32_t session;
        uint64_t nblocks;
    } served[BSD_SERVED_WINDOWS];
    unsigned served_next;
    /* Replies waiting for the loop's flush before it next blocks (bsd_conn_send). */
    struct bsd_conn *dirty_next;
    int dirty;
} bsd_conn;

/* A connection for an accepted fd of an allowed peer; NULL (fd closed) when out of memory. */
bsd_conn *bsd_conn_new(bsd_daemon *d, int fd, const struct ucred *cred);

void bsd_conn_send(bsd_conn *c, uint8_t op, uint32_t id, const void *payload, size_t len);
void bsd_conn_send_error(bsd_conn *c, uint32_t id, uint32_t code, const char *text);
/* A framing error: answer, then close once the answer is out (the stream cannot be resynced). */
void bsd_conn_fatal_error(bsd_conn *c, uint32_t id, uint32_t code);
void bsd_conn_close(bsd_conn *c, const char *why);
/* Flushes what each connection can take and closes it (shutdown). */
void bsd_conn_close_all(bsd_daemon *d);

/* Removes session index from the connection and drops the connection's reference. */
void bsd_conn_drop_session(bsd_conn *c, unsigned index);
void bsd_conn_unref(bsd_conn *c);
void bsd_session_unref(bsd_session *s);
void bsd_shm_unref(bsd_shm *m);

/*
 * The read-timeout tick over every connection (read_timeout_ms), and the flush of the replies
 * queued in one turn of the loop (bsd_conn_send). 0 or a libuv error.
 */
int bsd_conn_start_timeouts(bsd_daemon *d);
void bsd_conn_stop_timeouts(bsd_daemon *d);

#endif
