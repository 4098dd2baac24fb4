/*
 * bsd_daemon.h: the daemon's state, owned by bsd_main.c. The parts live in their own files,
 * each with its own header, and none of them calls back up into another by name:
 *   bsd_listen.c    socket directory, stale socket, LISTEN_FDS, peer credentials, accept
 *   bsd_conn.c      connections: refcounts, input framing, output backlog, timeouts, close
 *   bsd_handlers.c  HELLO, MAP_SHM, OPEN, CLOSE, KEYSTREAM, STATUS, and KEYSTREAM's answers
 *   bsd_batcher.c   pending KEYSTREAM jobs grouped by cipher, flushed on size or deadline
 *   bsd_status.c    the STATUS text; bsd_stats.c the counters
 *   bsd_main.c      configuration, signals, start and orderly shutdown
 */
#ifndef BSD_DAEMON_H
#define BSD_DAEMON_H

#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "bsd_backend.h"
#include "bsd_batcher.h"
#include "bsd_config.h"
#include "bsd_keypool.h"
#include "bsd_peer.h"
#include "bsd_proto.h"
#include "bsd_stats.h"
#include "bsd_time.h"

struct bsd_conn;

typedef enum bsd_run_state {
    BSD_RUNNING = 0,
    BSD_DRAINING = 1, /* SIGTERM: no new work, the queued jobs finish */
    BSD_DRAINED = 2,  /* nothing left in flight; handles are closing */
} bsd_run_state;

typedef struct bsd_daemon {
    uv_loop_t *loop;
    bsd_config cfg;
    bsd_backend *backend;
    bsd_keypool keys;
    bsd_batcher batcher;
    bsd_stats stats;
    /* Each decoded request of a connection (bsd_handlers.c: bsd_handle_request). */
    void (*on_request)(struct bsd_conn *c, bsd_request *r);
    /* Each connection that closes (bsd_handlers.c: its queued jobs are cancelled). */
    void (*on_close)(struct bsd_conn *c);
    int listen_fd;
    int socket_activated;
    int unlink_on_exit;
    /* The socket this daemon bound: its directory (held open) and inode, unlinked at most once. */
    int sock_dir_fd;
    gid_t sock_gid; /* the group the socket is shared with, or (gid_t)-1 */
    char sock_name[108];
    dev_t sock_dev;
    ino_t sock_ino;
    /* Out of file descriptors: accepting paused until the timer fires; warnings rate-limited. */
    uv_timer_t accept_pause;
    int accept_paused;
    uint64_t emfile_total, emfile_warned_ns, emfile_unwarned;
    uv_poll_t listen_poll;
    uv_timer_t tick; /* read timeouts */
    /* Connections with replies queued in this turn of the loop, sent before it blocks. */
    uv_prepare_t flush;
    struct bsd_conn *dirty;
    uv_timer_t drain_timer;
    uv_signal_t sigterm, sigint;
    bsd_peers peers; /* per-uid charges and log budgets (bsd_peer.h) */
    struct bsd_conn *conns;
    unsigned nconns;
    unsigned nclosing; /* of nconns: closed, held until their jobs in flight are done */
    unsigned next_cid;
    unsigned sessions_open;
    unsigned inflight_jobs;
    bsd_run_state draining;
    int exit_code;
} bsd_daemon;

#endif
