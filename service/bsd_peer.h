/*
 * bsd_peer.h: what each local uid holds, and its log budget.
 *
 * Every resource with a global bound is charged to the uid that holds it for as long as it is
 * held, whether or not the connection that took it is still open: a connection slot until its
 * last job is answered (a closed connection whose jobs run still counts in max_clients), a key
 * slot until it is back in the pool, a KEYSTREAM job and its bytes until the job is done. The
 * per-uid caps (max_*_per_uid) are checked against these counts, so one uid cannot make the
 * daemon refuse another by closing connections while their jobs run.
 *
 * Log lines a peer causes (accept, disconnect, refusals, timeouts, cancels, REPORTs) go through
 * its uid's token bucket: BSD_PEER_LOG_BURST lines at once, BSD_PEER_LOG_RATE a second after
 * that; what is left out is counted and said in one "event=log_suppressed uid=U suppressed=N"
 * line (itself from the bucket, at most one a second) once the bucket has room again. Debug
 * lines (log_level=debug) are not limited.
 */
#ifndef BSD_PEER_H
#define BSD_PEER_H

#include <stdint.h>
#include <sys/types.h>

#include "bsd_log.h"
#include "bsd_time.h"

#define BSD_PEER_LOG_BURST 200
#define BSD_PEER_LOG_RATE 10 /* lines a second, after the burst */

typedef struct bsd_peer {
    struct bsd_peer *next;
    uid_t uid;
    unsigned clients;      /* connections, closed ones included until their last job is done */
    unsigned sessions;     /* key slots, until each is back in the pool */
    unsigned jobs;         /* KEYSTREAM jobs accepted and not yet done */
    uint64_t queued_bytes; /* their keystream bytes */
    uint64_t shm_bytes;    /* shared memory mapped (MAP_SHM), until the daemon unmaps it */
    /* Log budget: tokens in 1/1000 of a line, refilled at BSD_PEER_LOG_RATE a second. */
    uint64_t log_tokens, log_refill_ns, log_suppressed, last_log_ns, said_ns;
} bsd_peer;

typedef struct bsd_peers {
    bsd_peer *head;
    unsigned count;
    uint64_t suppressed_total; /* all uids, since start (STATUS log_suppressed) */
} bsd_peers;

/* The entry of uid, made if there is none; NULL only when out of memory. */
bsd_peer *bsd_peer_get(bsd_peers *ps, uid_t uid, uint64_t now_ns);
/*
 * Whether a line caused by this peer may be logged now (then it takes a token), else counts it
 * as suppressed. First says how many were suppressed, once there is room again. A NULL peer
 * (out of memory) may log.
 */
int bsd_peer_log_ok(bsd_peers *ps, bsd_peer *p, uint64_t now_ns);
/*
 * Periodic (the daemon's tick): says what each uid had suppressed once its bucket has room, and
 * frees the entries that hold nothing and have logged nothing for a while.
 */
void bsd_peers_tick(bsd_peers *ps, uint64_t now_ns);
void bsd_peers_free(bsd_peers *ps);
/*
 * A uid's share of a global bound: the setting, or (0) three quarters of the bound; never more
 * than the bound less one (another uid keeps one at least), and at least 1.
 */
uint64_t bsd_peer_cap(uint64_t configured, uint64_t global);

#define BSD_PEER_LOG(ps, p, level, ev, ...)                                                        \
    do {                                                                                           \
        if (bsd_peer_log_ok((ps), (p), bsd_now_ns()))                                              \
            bsd_log(level, ev, __VA_ARGS__);                                                       \
    } while (0)

#endif
