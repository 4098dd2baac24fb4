/*
 * bsd_stream.h: a CTR keystream served by bitsliced, read in order, with the next windows
 * computed by the daemon while the caller consumes the current one (depth windows in flight).
 *
 * Reads never hang: each wait for a window is bounded by timeout_ms. On any failure (no daemon,
 * refusal, daemon death, timeout, counter wrap, use across fork() that cannot reconnect) the call
 * returns a negative errno and bsd_stream_position() says exactly how many keystream bytes were
 * delivered in total; the bytes of this call before that point were written. The caller then
 * continues in-process: bsd_stream_resume_point() gives the counter block and the offset into it,
 * and the output is byte-identical either way. After a failure every later call fails the same.
 *
 * Where the daemon answers piece digests (PROTOCOL.md, caps bit 1) and the cipher's blocks tile
 * a 4 KiB piece, each window is read out of the shared memory once, piece by piece, straight into
 * the caller's output (XORed with the input, zeroed in the shared memory, digested in the same
 * pass), and each piece is checked (its digest, no zero word, one block drawn at random after the
 * reply and the window's first and last blocks recomputed in-process from the caller's key
 * schedule of the same key, passed with each read) before the call returns any byte of it; a
 * read of part of a piece checks the whole piece into a private piece-sized copy first.
 * Elsewhere the whole window is moved into a private copy and checked there (bsd_verify_move).
 * A mismatch is reported to the daemon and is a failure like any other (-EBADMSG): the connection
 * is dropped and the caller continues in-process at the exact position (the failing piece's first
 * byte; its output bytes are zeroed, or are the input again where out is in). Each window is
 * wiped in the shared memory once read. No system call per read: the fork check compares a
 * cached pid (bsd_client_getpid).
 *
 * After fork(), the first read in the child opens its own connection, memfd and session (the
 * key is kept, wiped on close) and continues at the child's position.
 */
#ifndef BSD_STREAM_H
#define BSD_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "bsd_client.h"
#include "bsd_offload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsd_stream bsd_stream;

typedef struct bsd_stream_opts {
    const char *socket_path; /* NULL: bsd_client_default_socket() */
    int connect_timeout_ms;  /* 0: 1000 */
    int timeout_ms;          /* per window wait; 0: 5000 */
    size_t window_bytes;     /* 0: 1 MiB (rounded to whole blocks); the first requests ramp up */
    unsigned depth;          /* windows in flight; 0: adapting (bsd_stream_adapt_depth) */
    int offload;             /* BSD_OFFLOAD_* (bsd_offload.h); 0: always */
    /* Receives the offload decision and its reason (NULL: none); must outlive the stream. */
    bsd_offload_decision *decision;
} bsd_stream_opts;

/*
 * Connects, opens a session for bc's cipher (by name: "PRESENT-80", ...) and key, and starts
 * prefetching from counter (block_len bytes: the IV, or IV || 0^16 for RIJNDAEL-256). Returns 0
 * or a negative errno; nothing is allocated on failure. -ECANCELED: the offload rule (opts'
 * offload) kept the stream in-process; opts->decision says why.
 */
int bsd_stream_open(const bsd_stream_opts *opts, const bs_block_cipher *bc, const uint8_t *key,
                    size_t key_len, const uint8_t *counter, bsd_stream **out);
/* Writes the next len keystream bytes to out. ks: bc's schedule of the stream's key (checks). */
int bsd_stream_read(bsd_stream *s, const bs_key_schedule *ks, uint8_t *out, size_t len);
/* out = in XOR the next len keystream bytes (in may equal out). */
int bsd_stream_xor(bsd_stream *s, const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                   size_t len);
/*
 * Windows in flight: a fixed depth (opts), or from BSD_STREAM_DEPTH_START up to
 * BSD_STREAM_DEPTH_MAX, adapting to the rate each time a window arrives: one more window when
 * the reader had to wait for it (bsd_client_stalls: its reply had not begun to arrive), one
 * fewer after 4 * BSD_STREAM_DEPTH_MAX windows in a row found ready. The shared memory holds
 * BSD_STREAM_DEPTH_MAX windows. bsd_stream_adapt_depth is that rule (calm: the run without a
 * wait, kept by the caller); bsd_stream_depth the stream's depth now.
 */
#define BSD_STREAM_DEPTH_START 2
#define BSD_STREAM_DEPTH_MAX 8
unsigned bsd_stream_adapt_depth(unsigned active, unsigned max, int stalled, unsigned *calm);
unsigned bsd_stream_depth(const bsd_stream *s);
/*
 * How many windows to request now with inflight of active in flight: none until half of active
 * (at least one) are free, or none is in flight; then all that are free, in one message
 * (bsd_client_hold). So more than half of active stay asked for, and a stream of depth 8 costs
 * the daemon and itself one message for 4 windows instead of one a window.
 */
unsigned bsd_stream_refill_count(unsigned active, unsigned inflight);
/* Keystream bytes delivered so far. */
uint64_t bsd_stream_position(const bsd_stream *s);
/*
 * Where in-process CTR must continue: counter block of the block holding the next byte, and the
 * offset of that byte in the block (bytes of that block's keystream to skip).
 */
void bsd_stream_resume_point(const bsd_stream *s, uint8_t *counter, unsigned *skip);
/* The error that stopped the stream (0 while it works), and the daemon's text if it refused. */
int bsd_stream_error(const bsd_stream *s, const char **text);
/* Windows that failed the in-process check, in this process, since it started (bsd_verify). */
uint64_t bsd_stream_mismatches(void);
/* Closes the connection (the daemon wipes the session) and wipes the key. */
void bsd_stream_close(bsd_stream *s);

#ifdef __cplusplus
}
#endif

#endif
