/*
 * bsd_source.c: the daemon keystream source (bsd_source.h). Invariant while a stream is open:
 * it delivers next keystream block `next` (the counter after the last request), so a request at
 * that counter is served from it; any other counter is a new run.
 */
#include "bsd_source.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bsd_client.h"
#include "bsd_stream.h"
#include "modes/ctr.h"

/*
 * After a failed or stalled connect, the whole process stays in-process for a while: 1 s after
 * the first failure, doubling with each further one up to 60 s, back to none after a success.
 * A daemon that accepts but never answers would otherwise cost every context a connect timeout
 * each second.
 */
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS 60000

typedef struct bsd_source {
    bs_keystream_source base; /* first */
    bsd_source_opts opts;
    char socket_path[108];
    const bs_block_cipher *cipher; /* of the key below; NULL: no key yet */
    uint8_t key[BSD_KEY_MAX];
    size_t key_len;
    uint8_t next[BS_BLOCK_MAX]; /* the counter after the last request of this run */
    int in_run;                 /* next[] is valid */
    uint64_t run_bytes;         /* bytes asked in this run */
    bsd_stream *stream;         /* positioned at next[] */
    int fallback;               /* the error that stopped offload for this run */
    uint64_t daemon_bytes, local_bytes;
    bsd_offload_decision decision; /* the last stream's (bsd_offload.h) */
} bsd_source;

static _Atomic long long last_failure_ms;
static _Atomic long long backoff_ms;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Failures that say the daemon is gone, stalled or untrustworthy (not a refused request). */
static int is_daemon_failure(int err)
{
    return err == -EPIPE || err == -ECONNREFUSED || err == -ENOENT || err == -ETIMEDOUT ||
           err == -EBADMSG || err == -EPROTO;
}

static void note_failure(void)
{
    long long b = atomic_load(&backoff_ms);
    long long next = b == 0 ? BACKOFF_MIN_MS : 2 * b;
    if (next > BACKOFF_MAX_MS)
        next = BACKOFF_MAX_MS;
    /* Racing threads may each double: harmless, the cap holds. */
    atomic_store(&backoff_ms, next);
    atomic_store(&last_failure_ms, now_ms());
}

static void note_success(void)
{
    if (atomic_load(&backoff_ms) != 0) {
        atomic_store(&backoff_ms, 0);
        atomic_store(&last_failure_ms, 0);
    }
}

void bsd_source_note_open(int err)
{
    if (err != 0)
        note_failure();
}

void bsd_source_note_stream(int err)
{
    if (err == 0)
        note_success();
    else if (is_daemon_failure(err))
        note_failure();
}

long long bsd_source_backoff_ms(void)
{
    long long last = atomic_load(&last_failure_ms), b = atomic_load(&backoff_ms);
    long long left = last != 0 ? last + b - now_ms() : 0;
    return left > 0 ? left : 0;
}

static void stop_stream(bsd_source *s)
{
    bsd_stream_close(s->stream);
    s->stream = NULL;
}

static void new_run(bsd_source *s)
{
    stop_stream(s);
    s->in_run = 0;
    s->run_bytes = 0;
    s->fallback = 0;
}

/* No decision yet, except under never, which needs none. */
static void reset_decision(bsd_source *s)
{
    memset(&s->decision, 0, sizeof s->decision);
    if (s->opts.offload == BSD_OFFLOAD_NEVER)
        bsd_offload_decide(BSD_OFFLOAD_NEVER, "", NULL, &s->decision);
}

static void src_set_key(bs_keystream_source *src, const bs_block_cipher *cipher, const uint8_t *key,
                        size_t key_len)
{
    bsd_source *s = (bsd_source *)src;
    new_run(s);
    bs_wipe(s->key, sizeof s->key);
    s->cipher = NULL;
    s->daemon_bytes = s->local_bytes = 0;
    reset_decision(s);
    if (key_len > sizeof s->key)
        return; /* no cipher here takes one: stays in-process */
    memcpy(s->key, key, key_len);
    s->key_len = key_len;
    s->cipher = cipher;
}

/* Opens the stream at counter if offloading is due for this run. */
static void maybe_start(bsd_source *s, const uint8_t *counter, uint64_t bytes)
{
    if (s->stream != NULL || s->fallback != 0 || s->run_bytes + bytes < s->opts.threshold)
        return;
    if (s->opts.offload == BSD_OFFLOAD_NEVER) {
        s->fallback = -ECANCELED; /* no connection at all */
        return;
    }
    if (bsd_source_backoff_ms() > 0) {
        s->fallback = -EAGAIN;
        return;
    }
    bsd_stream_opts so = {s->opts.socket_path, s->opts.connect_timeout_ms,
                          s->opts.timeout_ms,  s->opts.window_bytes,
                          s->opts.depth,       s->opts.offload,
                          &s->decision};
    int r = bsd_stream_open(&so, s->cipher, s->key, s->key_len, counter, &s->stream);
    if (r != 0) {
        s->stream = NULL;
        s->fallback = r;
        /* Kept in-process by the offload rule: the daemon did nothing wrong. */
        if (r != -ECANCELED)
            bsd_source_note_open(r);
    }
}

static uint64_t src_fill(bs_keystream_source *src, const bs_block_cipher *cipher,
                         const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                         int step, const uint8_t *in, uint8_t *out)
{
    bsd_source *s = (bsd_source *)src;
    /* the schedule that comes with each request is this descriptor's: the checks need both */
    if (s->cipher != cipher || nblocks == 0)
        return 0;
    const size_t bl = cipher->block_len;
    if (!s->in_run || memcmp(counter, s->next, bl) != 0)
        new_run(s);
    /*
     * The daemon counts whole blocks; inc32 is the same count until the last 4 bytes wrap:
     * serve up to there, and let the wrap end the run.
     */
    uint64_t serve = nblocks;
    int reaches_wrap = 0;
    if (step == BS_KS_STEP_INC32) {
        uint64_t room = ((uint64_t)1 << 32) - bs_load_be32(counter + bl - 4);
        serve = nblocks < room ? nblocks : room;
        reaches_wrap = serve == room;
    }
    maybe_start(s, counter, nblocks * bl);
    uint64_t done = 0;
    if (s->stream != NULL) {
        uint64_t before = bsd_stream_position(s->stream);
        int r = in != NULL ? bsd_stream_xor(s->stream, ks, out, in, (size_t)(serve * bl))
                           : bsd_stream_read(s->stream, ks, out, (size_t)(serve * bl));
        /* Windows are whole blocks and are used only once checked: a failure is at a boundary. */
        done = (bsd_stream_position(s->stream) - before) / bl;
        if (done > 0)
            bsd_source_note_stream(0); /* verified keystream arrived: the daemon works */
        if (r != 0) {
            s->fallback = bsd_stream_error(s->stream, NULL);
            if (s->fallback == 0)
                s->fallback = -EIO;
            bsd_source_note_stream(s->fallback);
            stop_stream(s);
        } else if (reaches_wrap) {
            s->fallback = -ERANGE; /* inc32 wrapped: the daemon's count goes on differently */
            stop_stream(s);
        }
    }
    s->daemon_bytes += done * bl;
    s->local_bytes += (nblocks - done) * bl;
    s->run_bytes += nblocks * bl;
    memcpy(s->next, counter, bl);
    bs_keystream_advance(s->next, bl, nblocks, step);
    s->in_run = 1;
    return done;
}

static bs_keystream_source *src_copy(const bs_keystream_source *src)
{
    const bsd_source *s = (const bsd_source *)src;
    bsd_source *d = (bsd_source *)malloc(sizeof *d);
    if (d == NULL)
        return NULL;
    memcpy(d, s, sizeof *d);
    if (s->opts.socket_path != NULL)
        d->opts.socket_path = d->socket_path;
    d->stream = NULL; /* the copy opens its own, at its own position, when due */
    return &d->base;
}

static void src_free(bs_keystream_source *src)
{
    bsd_source *s = (bsd_source *)src;
    if (s == NULL)
        return;
    stop_stream(s);
    bs_wipe(s, sizeof *s);
    free(s);
}

static const bs_keystream_ops daemon_ops = {"daemon", src_set_key, src_fill, src_copy, src_free};

bs_keystream_source *bsd_source_new(const bsd_source_opts *opts)
{
    bsd_source *s = (bsd_source *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->base.ops = &daemon_ops;
    if (opts != NULL)
        s->opts = *opts;
    reset_decision(s);
    if (s->opts.socket_path != NULL) {
        snprintf(s->socket_path, sizeof s->socket_path, "%s", s->opts.socket_path);
        s->opts.socket_path = s->socket_path;
    }
    return &s->base;
}

void bsd_source_counts(const bs_keystream_source *src, uint64_t *daemon_bytes,
                       uint64_t *local_bytes)
{
    const bsd_source *s = (const bsd_source *)src;
    *daemon_bytes = s->daemon_bytes;
    *local_bytes = s->local_bytes;
}

void bsd_source_set_offload(bs_keystream_source *src, int mode)
{
    bsd_source *s = (bsd_source *)src;
    s->opts.offload = mode;
    if (s->stream == NULL) /* a stream open goes on as decided */
        reset_decision(s);
}

const bsd_offload_decision *bsd_source_offload(const bs_keystream_source *src)
{
    return &((const bsd_source *)src)->decision;
}

int bsd_source_fallback_reason(const bs_keystream_source *src)
{
    return ((const bsd_source *)src)->fallback;
}
