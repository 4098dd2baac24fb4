/*
 * The prefetching stream. The shared memory holds depth windows; window k of the ring covers
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
#include "modes/ctr.h"
#include "modes/keystream.h"

typedef struct window {
    uint64_t first, nblocks;
    uint32_t req_id;
    int state; /* 0 idle, 1 requested, 2 ready */
} window;

#define BSD_STREAM_DEPTH_MAX 8

struct bsd_stream {
    bsd_client *client;
    pid_t pid;
    char socket_path[108];
    int connect_timeout_ms, timeout_ms;
    char cipher[BSD_CIPHER_NAME_LEN + 1];
    uint8_t key[BSD_KEY_MAX];
    size_t key_len;
    const bs_block_cipher *bc;
    unsigned block_len;
    uint8_t counter0[BS_BLOCK_MAX];
    uint64_t total_blocks; /* blocks before the counter wraps */
    uint32_t session;
    uint64_t window_blocks;
    uint64_t ramp_blocks; /* size of the next request: grows to window_blocks */
    unsigned depth, head; /* head: the window holding the read position */
    window win[BSD_STREAM_DEPTH_MAX];
    uint64_t next_block; /* first block not yet requested */
    uint64_t pos;        /* bytes delivered */
    int error;
    char error_text[BSD_ERROR_TEXT_MAX + 1];
};

uint64_t bsd_stream_mismatches(void)
{
    uint64_t d = 0, b = 0;
    bsd_verify_counts(NULL, &d, &b);
    return d + b;
}

/*
 * The daemon is trusted with the key, not with correctness: bsd_verify_window checks the window
 * (digest, first, last and random blocks recomputed here) before any byte of it is used.
 * Returns 0 or -EBADMSG.
 */
static int check_window(bsd_stream *s, const bs_key_schedule *sched, const window *w,
                        const uint8_t *ks, uint64_t digest)
{
    uint8_t ctr[BS_BLOCK_MAX];
    memcpy(ctr, s->counter0, s->block_len);
    bs_ctr_add(ctr, s->block_len, w->first);
    return bsd_verify_window(s->client, s->session, s->bc, sched, ctr, w->nblocks, ks, digest);
}

/* Window k of the shared memory. */
static uint8_t *window_mem(bsd_stream *s, unsigned k)
{
    return bsd_client_shm(s->client, NULL) + (size_t)k * s->window_blocks * s->block_len;
}

/* On a failure the connection is dropped, so that nothing more is read from that daemon. */
static void drop_client(bsd_stream *s)
{
    if (s->client == NULL)
        return;
    size_t size = 0;
    uint8_t *m = bsd_client_shm(s->client, &size);
    /* Not in a child after fork(): the mapping is still the parent's. */
    if (m != NULL && s->pid == getpid())
        bs_wipe(m, size);
    bsd_client_close(s->client);
    s->client = NULL;
}

static void fail(bsd_stream *s, int err)
{
    if (s->error == 0) {
        const char *text = strerror(-err);
        s->error = err;
        if (err == -EREMOTEIO && s->client != NULL)
            bsd_client_last_error(s->client, &text);
        snprintf(s->error_text, sizeof s->error_text, "%s", text);
    }
    drop_client(s);
}

static int submit(bsd_stream *s, unsigned k)
{
    window *w = &s->win[k];
    w->state = 0;
    if (s->next_block >= s->total_blocks)
        return 0; /* past the wrap: the reader fails when it gets here */
    uint64_t n = s->total_blocks - s->next_block;
    w->first = s->next_block;
    w->nblocks = n < s->ramp_blocks ? n : s->ramp_blocks;
    s->ramp_blocks = 2 * s->ramp_blocks < s->window_blocks ? 2 * s->ramp_blocks : s->window_blocks;
    uint8_t ctr[BS_BLOCK_MAX];
    memcpy(ctr, s->counter0, s->block_len);
    bs_ctr_add(ctr, s->block_len, w->first);
    int r = bsd_client_keystream_submit(s->client, s->session, ctr, s->block_len, w->nblocks,
                                        (uint64_t)k * s->window_blocks * s->block_len, &w->req_id);
    if (r != 0)
        return r;
    w->state = 1;
    s->next_block += w->nblocks;
    return 0;
}

/* Connects, maps, opens the session and requests depth windows from the read position. */
static int start(bsd_stream *s)
{
    bsd_client_opts co = {s->socket_path, s->connect_timeout_ms, s->timeout_ms};
    int r = bsd_client_connect(&co, &s->client);
    if (r != 0)
        return r;
    s->pid = getpid();
    unsigned bl = 0;
    r = bsd_client_map_shm(s->client, (size_t)(s->depth * s->window_blocks * s->block_len));
    if (r == 0)
        r = bsd_client_open_session(s->client, s->cipher, s->key, s->key_len, &s->session, &bl);
    if (r == 0 && bl != s->block_len)
        r = -EPROTO;
    s->head = 0;
    s->next_block = s->pos / s->block_len;
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
    snprintf(s->cipher, sizeof s->cipher, "%s", bc->name);
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

/* In a child after fork(): drop the parent's connection and mapping, and start afresh. */
static int reconnect_after_fork(bsd_stream *s)
{
    bsd_client_close(s->client);
    s->client = NULL;
    memset(s->win, 0, sizeof s->win);
    return start(s);
}

static int stream_apply(bsd_stream *s, const bs_key_schedule *sched, uint8_t *out,
                        const uint8_t *in, size_t len)
{
    if (s->error != 0)
        return s->error;
    if (s->pid != getpid()) {
        int r = reconnect_after_fork(s);
        if (r != 0) {
            fail(s, r);
            return r;
        }
    }
    while (len > 0) {
        window *w = &s->win[s->head];
        uint64_t block = s->pos / s->block_len;
        if (w->state == 0 || block < w->first || block >= w->first + w->nblocks) {
            fail(s, -ERANGE); /* the counter would wrap */
            return s->error;
        }
        if (w->state == 1) {
            uint64_t digest = 0;
            int r = bsd_client_wait_keystream(s->client, w->req_id, s->timeout_ms, &digest);
            if (r == 0)
                r = check_window(s, sched, w, window_mem(s, s->head), digest);
            if (r != 0) {
                fail(s, r);
                return r;
            }
            w->state = 2;
        }
        uint8_t *ks = window_mem(s, s->head);
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
            bs_wipe(ks, (size_t)(w->nblocks * s->block_len));
            s->head = (s->head + 1) % s->depth;
            int r = submit(s, k);
            if (r != 0) {
                fail(s, r);
                return len == 0 ? 0 : r;
            }
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
        *text = s->error != 0 ? s->error_text : "";
    return s->error;
}

void bsd_stream_close(bsd_stream *s)
{
    if (s == NULL)
        return;
    drop_client(s);
    explicit_bzero(s, sizeof *s);
    free(s);
}
