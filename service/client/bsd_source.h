/*
 * bsd_source.h: bitsliced as a keystream source (core/modes/keystream.h) for CTR and GCM.
 *
 * The mode context (bs_ctr_ctx, bs_gcm256_ctx) keeps every rule of the stream: position, num,
 * limits, wrap, GHASH, the tag. This source only answers "blocks [counter, counter + n)":
 *  - below `threshold` bytes asked in one run (consecutive counters: a new IV, key or seek
 *    starts a new run) it does nothing, so the mode computes them in-process;
 *  - from the request that reaches it, it opens a bsd_stream at that counter (depth windows
 *    prefetched, each moved into private memory and checked by bsd_verify_move before a byte
 *    of it is used) and serves the blocks from that checked copy;
 *  - on any failure (no daemon, refusal, death, timeout, a window that fails the check,
 *    inc32 blocks past a 2^32 wrap, fork() without a reconnect) it returns the blocks it did,
 *    a prefix, and the mode computes the rest in-process: the output is the same either way;
 *    it then stays in-process for the rest of the run;
 *  - one back-off for the process: after a failed or stalled connect, or a daemon gone or
 *    caught sending wrong keystream, every source stays in-process 1 s, doubling up to 60 s,
 *    back to none once verified keystream arrives.
 * The raw key is kept (wiped in free) to open daemon sessions; the window checks use the mode's
 * own key schedule, passed with each request, so no second schedule is expanded here.
 *
 * Not thread-safe (one per mode context). Works across fork(): the child reconnects.
 */
#ifndef BSD_SOURCE_H
#define BSD_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "bsd_offload.h"
#include "modes/keystream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsd_source_opts {
    const char *socket_path; /* NULL: bsd_client_default_socket() */
    uint64_t threshold;      /* bytes asked in one run before the daemon is used */
    int connect_timeout_ms;  /* 0: 1000 */
    int timeout_ms;          /* per window; 0: 5000 */
    size_t window_bytes;     /* 0: 1 MiB */
    unsigned depth;          /* 0: adapting, 2 to 8 (bsd_stream.h) */
    int offload;             /* BSD_OFFLOAD_* (bsd_offload.h), decided as each stream opens */
} bsd_source_opts;

/* NULL on allocation failure. opts is copied (socket_path too). Free with src->ops->free. */
bs_keystream_source *bsd_source_new(const bsd_source_opts *opts);

/* For logs and tests: bytes served by the daemon, and asked of it but done in-process. */
void bsd_source_counts(const bs_keystream_source *src, uint64_t *daemon_bytes,
                       uint64_t *local_bytes);
/* The offload mode (BSD_OFFLOAD_*) from the next message (key or IV) on. */
void bsd_source_set_offload(bs_keystream_source *src, int mode);
/*
 * The offload decision of the last stream this source opened (decided 0: none yet, e.g. every
 * message so far stayed below the threshold, or no daemon answered).
 */
const bsd_offload_decision *bsd_source_offload(const bs_keystream_source *src);
/*
 * 0 while the daemon is used or may be; else the error that made this run fall back
 * (-ECANCELED: the offload rule kept it in-process).
 */
int bsd_source_fallback_reason(const bs_keystream_source *src);
/* Milliseconds before this process tries the daemon again (0: it will try). */
long long bsd_source_backoff_ms(void);
/*
 * Feed the back-off from other users of the daemon (bitslice seal/open), as the source does
 * itself: a failed open (any error) backs off; on a stream, 0 (verified keystream arrived)
 * resets it, and an error meaning the daemon is gone, stalled or sent wrong keystream backs off.
 */
void bsd_source_note_open(int err);
void bsd_source_note_stream(int err);

#ifdef __cplusplus
}
#endif

#endif
