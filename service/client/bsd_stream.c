/*
 * The prefetching stream, over bsd_windows (the windows, their checks and the daemon's
 * dropping live there). The shared memory holds depth windows; window k of the ring covers
 * blocks [first, first + nblocks) of the stream (block 0 is the initial counter), nblocks at most
 * a window (the first requests are smaller). The windows in flight always cover consecutive
 * blocks starting at the one holding the read position; when the reader leaves a window, it is
 * resubmitted for the next blocks not yet asked for.
 */
#include "bsd_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bitslice.h"
#include "bsd_verify.h"
#include "bsd_windows.h"
#include "modes/ctr.h"
#include "modes/keystream.h"

typedef struct window {
    uint64_t first, nblocks;
    int requested;
} window;

#define BSD_STREAM_DEPTH_MAX BSD_WINDOWS_MAX

struct bsd_stream {
    bsd_windows w;
    pid_t pid;
    char socket_path[108];
    int connect_timeout_ms, timeout_ms;
    uint8_t key[BSD_KEY_MAX];
    size_t key_len;
    const bs_block_cipher *bc;
    unsigned block_len;
    uint8_t counter0[BS_BLOCK_MAX];
    uint64_t total_blocks; /* blocks before the counter wraps */
    uint64_t window_blocks;
    uint64_t ramp_blocks; /* size of the next request: grows to window_blocks */
    unsigned depth, head; /* head: the window holding the read position */
    window win[BSD_STREAM_DEPTH_MAX];
    uint64_t next_block; /* first block not yet requested */
    uint64_t pos;        /* bytes delivered */
};

uint64_t bsd_stream_mismatches(void)
{
    uint64_t d = 0, b = 0;
    bsd_verify_counts(NULL, &d, &b);
    return d + b;
}

static int submit(bsd_stream *s, unsigned k)
{
    window *w = &s->win[k];
    w->requested = 0;
    if (s->next_block >= s->total_blocks)
        return 0; /* past the wrap: the reader fails when it gets here */
    uint64_t n = s->total_blocks - s->next_block;
    w->first = s->next_block;
    w->nblocks = n < s->ramp_blocks ? n : s->ramp_blocks;
    s->ramp_blocks = 2 * s->ramp_blocks < s->window_blocks ? 2 * s->ramp_blocks : s->window_blocks;
    uint8_t ctr[BS_BLOCK_MAX];
    memcpy(ctr, s->counter0, s->block_len);
    bs_ctr_add(ctr, s->block_len, w->first);
    int r = bsd_windows_submit(&s->w, k, ctr, w->nblocks);
    if (r != 0)
        return r;
    w->requested = 1;
    s->next_block += w->nblocks;
    return 0;
}

/* Connects, maps, opens the session and requests depth windows from the read position. */
static int start(bsd_stream *s)
{
    bsd_client_opts co = {s->socket_path, s->connect_timeout_ms, s->timeout_ms};
    int r = bsd_windows_open(&s->w, &co, s->bc, s->key, s->key_len,
                             (size_t)(s->window_blocks * s->block_len), s->depth);
    s->pid = getpid();
    s->head = 0;
    s->next_block = s->pos / s->block_len;
    memset(s->win, 0, sizeof s->win);
    /*
     * The first requests are small and double up to a window: a message just over the
     * offload threshold does not make the daemon compute depth whole windows past its end.
     */
    s->ramp_blocks = s->window_blocks / 16 > 0 ? s->window_blocks / 16 : 1;
    for (unsigned k = 0; r == 0 && k < s->depth; k++)
        r = submit(s, k);
    return r;
}

int bsd_stream_open(const bsd_stream_opts *o, const bs_block_cipher *bc, const uint8_t *key,
                    size_t key_len, const uint8_t *counter, bsd_stream **out)
{
    if (bc == NULL || key_len != bc->key_len || strlen(bc->name) > BSD_CIPHER_NAME_LEN)
        return -EINVAL;
    bsd_stream *s = (bsd_stream *)calloc(1, sizeof *s);
    if (s == NULL)
        return -ENOMEM;
    if (o != NULL && o->socket_path != NULL)
        snprintf(s->socket_path, sizeof s->socket_path, "%s", o->socket_path);
    else
        bsd_client_default_socket(s->socket_path, sizeof s->socket_path);
    s->connect_timeout_ms = o != NULL && o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 1000;
    s->timeout_ms = o != NULL && o->timeout_ms > 0 ? o->timeout_ms : 5000;
    size_t wb = o != NULL && o->window_bytes > 0 ? o->window_bytes : 1024 * 1024;
    s->depth = o != NULL && o->depth > 0 ? o->depth : 4;
    if (s->depth > BSD_STREAM_DEPTH_MAX)
        s->depth = BSD_STREAM_DEPTH_MAX;
    memcpy(s->key, key, key_len);
    s->key_len = key_len;
    s->bc = bc;
    s->block_len = bc->block_len;
    memcpy(s->counter0, counter, bc->block_len);
    s->total_blocks = bs_ctr_blocks_before_wrap(counter, bc->block_len);
    s->window_blocks = wb / bc->block_len > 0 ? wb / bc->block_len : 1;
    int r = start(s);
    if (r != 0) {
        bsd_stream_close(s);
        return r;
    }
    *out = s;
    return 0;
}

/* In a child after fork(): leave the parent's connection and mapping alone, and start afresh. */
static int reconnect_after_fork(bsd_stream *s)
{
    bsd_client_close(s->w.client); /* not bsd_windows_close: the memory is the parent's */
    s->w.client = NULL;
    return start(s);
}

static int stream_apply(bsd_stream *s, const bs_key_schedule *sched, uint8_t *out,
                        const uint8_t *in, size_t len)
{
    if (s->w.error != 0)
        return s->w.error;
    if (s->pid != getpid()) {
        int r = reconnect_after_fork(s);
        if (r != 0) {
            bsd_windows_fail(&s->w, r);
            return r;
        }
    }
    while (len > 0) {
        window *w = &s->win[s->head];
        uint64_t block = s->pos / s->block_len;
        if (!w->requested || block < w->first || block >= w->first + w->nblocks) {
            bsd_windows_fail(&s->w, -ERANGE); /* the counter would wrap */
            return s->w.error;
        }
        const uint8_t *ks;
        int r = bsd_windows_get(&s->w, s->head, sched, &ks);
        if (r != 0)
            return r;
        uint64_t off = s->pos - w->first * s->block_len;
        uint64_t avail = w->nblocks * s->block_len - off;
        size_t n = avail < len ? (size_t)avail : len;
        if (in == NULL) {
            memcpy(out, ks + off, n);
        } else {
            bs_keystream_xor(out, in, ks + off, n);
            in += n;
        }
        out += n;
        len -= n;
        s->pos += n;
        if (n == avail) {
            unsigned k = s->head;
            bsd_windows_release(&s->w, k);
            s->head = (s->head + 1) % s->depth;
            r = submit(s, k);
            if (r != 0)
                return len == 0 ? 0 : r;
        }
    }
    return 0;
}

int bsd_stream_read(bsd_stream *s, const bs_key_schedule *ks, uint8_t *out, size_t len)
{
    return stream_apply(s, ks, out, NULL, len);
}

int bsd_stream_xor(bsd_stream *s, const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                   size_t len)
{
    return stream_apply(s, ks, out, in, len);
}

uint64_t bsd_stream_position(const bsd_stream *s)
{
    return s->pos;
}

void bsd_stream_resume_point(const bsd_stream *s, uint8_t *counter, unsigned *skip)
{
    memcpy(counter, s->counter0, s->block_len);
    bs_ctr_add(counter, s->block_len, s->pos / s->block_len);
    *skip = (unsigned)(s->pos % s->block_len);
}

int bsd_stream_error(const bsd_stream *s, const char **text)
{
    if (text != NULL)
        *text = s->w.error != 0 ? s->w.error_text : "";
    return s->w.error;
}

void bsd_stream_close(bsd_stream *s)
{
    if (s == NULL)
        return;
    if (s->pid == getpid())
        bsd_windows_close(&s->w);
    else
        bsd_client_close(s->w.client);
    explicit_bzero(s, sizeof *s);
    free(s);
}
