/*
 * bs_pipe.h: the I/O pipeline of `bitslice seal/open`. A reader thread reads the next chunks
 * into a ring of BS_PIPE_SLOTS buffers while the caller seals or opens the current one, and a
 * writer thread writes finished chunks in order, so that reading, crypto and writing overlap.
 * The caller sees the chunks one at a time, in order: bscli_pipe_next, work in place,
 * bscli_pipe_put. A write error stops the pipeline (bscli_pipe_next answers NULL); a read error
 * comes with the chunk it ends. The buffers are wiped when the pipeline finishes.
 */
#ifndef BS_PIPE_H
#define BS_PIPE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BS_PIPE_SLOTS 4

typedef struct bscli_pipe_slot {
    uint8_t *buf; /* cap bytes */
    size_t n;     /* bytes read: want, or fewer at the end of the input */
    int last;     /* nothing follows in the input */
    int rerr;     /* errno of a read error after the n bytes, else 0 */
    size_t wlen;  /* bytes of buf to write, set by bscli_pipe_put */
} bscli_pipe_slot;

typedef struct bscli_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t reader, writer;
    int in_fd;
    FILE *out;
    int wake[2]; /* written once on stop: wakes a reader blocked on a pipe or terminal */
    size_t want, cap;
    bscli_pipe_slot slot[BS_PIPE_SLOTS];
    /* Chunks read, handed to the writer, and written: nwritten <= nput <= nread. */
    uint64_t nread, nput, nwritten;
    int stop, drain, werr;
    uint8_t peek; /* the byte read to tell whether a full chunk was the last one */
    int have_peek;
} bscli_pipe;

/*
 * Reads chunks of want bytes from in_fd into buffers of cap (>= want) bytes and writes what
 * the caller hands back to out. 0, or -1 (no memory or no thread) with nothing started.
 */
int bscli_pipe_start(bscli_pipe *p, int in_fd, FILE *out, size_t want, size_t cap);
/* The next chunk read, waiting for it; NULL once a write failed (see bscli_pipe_finish). */
bscli_pipe_slot *bscli_pipe_next(bscli_pipe *p);
/* Hands the chunk from the last bscli_pipe_next to the writer: wlen bytes of its buffer. */
void bscli_pipe_put(bscli_pipe *p, size_t wlen);
/*
 * ok: waits until every chunk put is written; else stops at once. Joins the threads, wipes and
 * frees the buffers. Returns the errno of a failed write, else 0.
 */
int bscli_pipe_finish(bscli_pipe *p, int ok);

#endif
