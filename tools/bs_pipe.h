/*
 * bs_pipe.h: the I/O pipeline of `bitslice seal/open`. A reader thread reads the next chunks
 * into a ring of buffers while the caller seals or opens the ones it has, and a writer thread
 * writes finished chunks in order, so that reading, crypto and writing overlap. The caller
 * takes the chunks in order (bscli_pipe_next, from one thread) and hands each back when done
 * with it (bscli_pipe_put, from any thread, in any order): the writer writes a chunk once it
 * and every chunk before it were handed back, so a chunk never handed back stops the output
 * before it. A write error stops the pipeline (bscli_pipe_next answers NULL); a read error
 * comes with the chunk it ends. The buffers are wiped when the pipeline finishes.
 */
#ifndef BS_PIPE_H
#define BS_PIPE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Buffers for one thread working on the chunks (more with more: bscli_pipe_start's nslots). */
#define BS_PIPE_SLOTS 4

typedef struct bscli_pipe_slot {
    uint8_t *buf;   /* cap bytes */
    uint64_t index; /* the chunk's place in the input, from 0 */
    int done;       /* handed back (bscli_pipe_put) */
    size_t n;       /* bytes read: want, or fewer at the end of the input */
    int last;       /* nothing follows in the input */
    int rerr;       /* errno of a read error after the n bytes, else 0 */
    size_t wlen;    /* bytes of buf to write, set by bscli_pipe_put */
} bscli_pipe_slot;

typedef struct bscli_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t reader, writer;
    int in_fd;
    FILE *out;
    int wake[2]; /* written once on stop: wakes a reader blocked on a pipe or terminal */
    size_t want, cap;
    unsigned nslots;
    bscli_pipe_slot *slot; /* nslots */
    /*
     * Chunks read, taken by the caller, handed back with every one before them (what the
     * writer may write), and written: nwritten <= nput <= nnext <= nread.
     */
    uint64_t nread, nnext, nput, nwritten;
    int stop, drain, werr;
    uint8_t peek; /* the byte read to tell whether a full chunk was the last one */
    int have_peek;
} bscli_pipe;

/*
 * Reads chunks of want bytes from in_fd into nslots (>= 2) buffers of cap (>= want) bytes and
 * writes what the caller hands back to out. 0, or -1 (no memory or no thread) with nothing
 * started.
 */
int bscli_pipe_start(bscli_pipe *p, int in_fd, FILE *out, size_t want, size_t cap, unsigned nslots);
/*
 * The next chunk read (its index is s->index), waiting for it; NULL once a write failed (see
 * bscli_pipe_finish) or the pipeline stopped.
 */
bscli_pipe_slot *bscli_pipe_next(bscli_pipe *p);
/* Hands chunk s (from bscli_pipe_next) back to the writer: wlen bytes of its buffer. */
void bscli_pipe_put(bscli_pipe *p, bscli_pipe_slot *s, size_t wlen);
/* Stops the pipeline now: nothing more is read or written (bscli_pipe_next answers NULL). */
void bscli_pipe_stop(bscli_pipe *p);
/*
 * ok: waits until every chunk put is written; else stops at once. Joins the threads, wipes and
 * frees the buffers. Returns the errno of a failed write, else 0.
 */
int bscli_pipe_finish(bscli_pipe *p, int ok);

#endif
