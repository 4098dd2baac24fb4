/*
 * bsd_windows.h: windows of daemon keystream in shared memory, each checked before use: the
 * one place where a client of bitsliced connects, maps, opens a session, asks for a window,
 * waits for it, moves it out of the shared memory into this process's own memory and checks it
 * in that one pass (bsd_verify_move: digest and recomputed blocks), wipes it once used, and drops
 * the daemon on any failure. Only the checked private copy is ever used: a writer of the shared
 * memory (a late or stray write of the daemon or its device) cannot change a byte between the
 * check and its use, however long the caller takes to consume the window. Two users, with two
 * orders: bsd_stream (consecutive windows of one CTR stream, a ring) and bitslice seal/open (one
 * window per chunk, several chunks ahead, tools/bs_keysrc.c).
 *
 * After any failure (connect, refusal, death, timeout, a window that fails the check) the
 * connection is dropped, the shared memory wiped, and every later call fails with the same
 * error: the caller computes in-process from there.
 */
#ifndef BSD_WINDOWS_H
#define BSD_WINDOWS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bitslice.h"
#include "bsd_client.h"
#include "bsd_offload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSD_WINDOWS_MAX 8

typedef struct bsd_window_slot {
    uint8_t counter[BS_BLOCK_MAX]; /* first counter block of the window */
    uint64_t nblocks;
    uint32_t req_id;
    /*
     * 0 idle, 1 requested, 2 checked (the private copy holds it), 3 answered with piece digests
     * (bsd_windows_wait_pieces): the shared window holds it, its user moves it out piece by piece
     */
    int state;
    int dirty; /* the shared window may hold keystream (asked for and not wiped since) */
    /*
     * The most bytes of the shared window any answered request wrote, and of the private copy
     * any check wrote: what close wipes (the rest of each was never touched, and its pages
     * never allocated: wiping them would allocate them).
     */
    size_t used;
    size_t copied;
} bsd_window_slot;

typedef struct bsd_windows {
    bsd_client *client; /* NULL once dropped */
    pid_t pid;          /* of the process that mapped the memory */
    const bs_block_cipher *bc;
    uint32_t session;
    size_t slot_bytes;
    unsigned nslots;
    uint8_t *priv;    /* nslots private copies of slot_bytes (anonymous, kept out of dumps) */
    size_t priv_size; /* its mapping's size, 0 when none */
    int timeout_ms;   /* per window wait */
    int connected;    /* the connect succeeded (a later failure was a refusal or worse) */
    bsd_window_slot slot[BSD_WINDOWS_MAX];
    int error; /* 0 while usable */
    char error_text[BSD_ERROR_TEXT_MAX + 1];
} bsd_windows;

/*
 * Connects (co), maps nslots windows of slot_bytes, opens a session for bc's cipher under key.
 * 0, or a negative errno (w is then closed, error set).
 */
int bsd_windows_open(bsd_windows *w, const bsd_client_opts *co, const bs_block_cipher *bc,
                     const uint8_t *key, size_t key_len, size_t slot_bytes, unsigned nslots);
/*
 * The same, offloading by cost (bsd_offload.h): mode BSD_OFFLOAD_* (bsd_windows_open: always).
 * Where the rule keeps the stream in-process (mode never, or auto on these figures) it returns
 * -ECANCELED, which is no failure of the daemon, with nothing mapped and no key sent. decision
 * (may be NULL) receives the decision and its reason whenever one was made.
 */
int bsd_windows_open_by_cost(bsd_windows *w, const bsd_client_opts *co, const bs_block_cipher *bc,
                             const uint8_t *key, size_t key_len, size_t slot_bytes, unsigned nslots,
                             int mode, bsd_offload_decision *decision);
/* Asks for nblocks blocks from counter into window k (wiped first). 0 or the error. */
int bsd_windows_submit(bsd_windows *w, unsigned k, const uint8_t *counter, uint64_t nblocks);
/*
 * Waits for window k, copies it into this process's memory (the shared window is wiped at once)
 * and checks the copy with ks (bc's schedule of the session's key): 0 and *mem pointing at the
 * checked copy, valid until window k is released, submitted again or closed; or the error
 * (-EBADMSG: it failed the check).
 */
int bsd_windows_get(bsd_windows *w, unsigned k, const bs_key_schedule *ks, const uint8_t **mem);
/*
 * The same request with piece digests (bsd_client_keystream_submit_pieces; pieces must stay valid
 * until the window is waited for), for a user that moves the window out itself, piece by piece,
 * checking each before it releases a byte of it (bsd_stream.c).
 */
int bsd_windows_submit_pieces(bsd_windows *w, unsigned k, const uint8_t *counter, uint64_t nblocks,
                              unsigned piece_log2, uint64_t *pieces, size_t npieces);
/*
 * Waits for window k submitted with pieces: 0, the window digest and *shared pointing at the
 * shared window (unchecked: nothing of it may be used before its piece passed its check), or the
 * error. The caller clears the slot's dirty flag once every word is moved out (zeroed).
 */
int bsd_windows_wait_pieces(bsd_windows *w, unsigned k, uint64_t *digest, uint8_t **shared);
/* Waits for a requested window whose keystream is not wanted (0 or the error). */
int bsd_windows_discard(bsd_windows *w, unsigned k);
/* Window k has been used: wipe its copy (and the shared window, if not wiped yet). */
void bsd_windows_release(bsd_windows *w, unsigned k);
/* Records err (the first one counts), drops the daemon and wipes the shared memory. */
void bsd_windows_fail(bsd_windows *w, int err);
/* Drops the connection, wipes the shared memory and the copies (w may be reopened). */
void bsd_windows_close(bsd_windows *w);

#ifdef __cplusplus
}
#endif

#endif
