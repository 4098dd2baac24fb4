/*
 * bs_keysrc.h: per-chunk keystream for `bitslice seal/open`, from bitsliced when it answers
 * (requested several chunks ahead, so that the daemon computes while this process does GHASH
 * and I/O), else in-process. A daemon failure mid-file switches to in-process for the chunk
 * at hand and every later one; the output is the same either way. The windows, their check
 * (bsd_verify_move: a mismatch counts as a daemon failure), the wiping of each slot once used
 * and the dropping of a failed daemon are service/client/bsd_windows.h's, the same code the
 * provider's keystream source runs on; this file keeps only the chunk order (J0 per chunk,
 * several chunks ahead). With -v, every chunk's actual source is said (runs of chunks, one line
 * each).
 */
#ifndef BS_KEYSRC_H
#define BS_KEYSRC_H

#include "bs_stream_format.h"
#include "bsd_windows.h"

/* Chunks asked of the daemon ahead: BSCLI_KEYSRC_SLOTS, or more (bscli_keysrc_init's depth). */
#define BSCLI_KEYSRC_SLOTS 4
#define BSCLI_KEYSRC_SLOTS_MAX BSD_WINDOWS_MAX
/* The windows of one file stay within this much shared memory (a slot is a chunk). */
#define BSCLI_KEYSRC_WINDOW_BYTES ((size_t)64 << 20)

typedef struct bscli_keysrc_slot {
    int state; /* 0 none, 1 requested from the daemon */
    uint64_t index;
    int last;
    uint64_t nblocks;
} bscli_keysrc_slot;

typedef struct bscli_keysrc {
    const bsf_keys *k;
    int daemon; /* the windows below are usable */
    bsd_windows w;
    size_t slot_bytes;
    unsigned nslots; /* in use of slot[] */
    bscli_keysrc_slot slot[BSCLI_KEYSRC_SLOTS_MAX];
    uint8_t *local;
    int timeout_ms;
    uint64_t daemon_chunks, local_chunks;
    uint64_t mismatches;     /* daemon chunks that failed the in-process check */
    char backend[32];        /* what serves now ("in-process" once the daemon is dropped) */
    char daemon_backend[32]; /* the daemon that served daemon_chunks ("daemon:cpu") */
    int verbose;
    char local_why[96];          /* why chunks are computed in-process ("" before any reason) */
    uint64_t run_first, run_len; /* -v: the current run of chunks from one source */
    char run_src[96];
    bsd_offload_decision decision; /* whether the daemon is used, and why (bsd_offload.h) */
} bscli_keysrc;

/*
 * use_daemon: try the daemon at socket (NULL: default path), where the offload rule
 * (bsd_offload.h; $BITSLICE_OFFLOAD, default auto) says it is cheaper. Never fails for lack of a
 * daemon.
 * depth: the chunks that may be asked for ahead (s->nslots: BSCLI_KEYSRC_SLOTS at least, at
 * most BSCLI_KEYSRC_SLOTS_MAX and BSCLI_KEYSRC_WINDOW_BYTES of windows).
 */
int bscli_keysrc_init(bscli_keysrc *s, const bsf_keys *k, size_t chunk_size, int use_daemon,
                      const char *socket, int verbose, unsigned depth);
/* Asks for chunk (index, last) of up to len bytes ahead of time, into slot index % nslots. */
void bscli_keysrc_request(bscli_keysrc *s, uint64_t index, int last, size_t len);
/* The keystream of chunk (index, last) for len bytes (bsf_chunk_ks_blocks(len) blocks). */
const uint8_t *bscli_keysrc_get(bscli_keysrc *s, uint64_t index, int last, size_t len);
/*
 * As get, but NULL where the chunk's keystream is to be computed in-process, which the caller
 * then does itself (bsf_chunk_keystream), e.g. on another thread: counted and said as get
 * does. A daemon window stays valid until the request that reuses its slot
 * (index + s->nslots) or the close.
 */
const uint8_t *bscli_keysrc_take(bscli_keysrc *s, uint64_t index, int last, size_t len);
void bscli_keysrc_close(bscli_keysrc *s);

#endif
