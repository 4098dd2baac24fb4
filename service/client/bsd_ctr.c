/*
 * The in-process bs_ctr_ctx stays authoritative for the key schedule, counter, num and limits.
 * Once offloading, every byte is XORed with the stream's keystream and the context is moved
 * over the same bytes with bs_ctr_seek (which computes in-process only the keystream of a block
 * left pending at the end of a call). Invariant while a stream is open: it has delivered
 * exactly the bytes from its start counter (opened with num == 0) up to the context's position.
 */
#include "bsd_ctr.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "modes/ctr.h"

/*
 * After a failed or stalled connect, the whole process stays in-process for a while: 1 s after
 * the first failure, doubling with each further one up to 60 s, back to none after a success.
 * A daemon that accepts but never answers would otherwise cost every EVP context a connect
 * timeout each second.
 */
#define BSD_CTR_BACKOFF_MIN_MS 1000
#define BSD_CTR_BACKOFF_MAX_MS 60000

struct bsd_ctr {
    bs_ctr_ctx ctx; /* first: 64-byte aligned with the allocation */
    bsd_ctr_opts opts;
    char socket_path[108];
    uint8_t key[BSD_KEY_MAX];
    size_t key_len;
    uint64_t since_iv;
    bsd_stream *stream;
    int fallback; /* the error that stopped offload for this IV */
    uint64_t daemon_bytes, local_bytes;
};

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
    long long next = b == 0 ? BSD_CTR_BACKOFF_MIN_MS : 2 * b;
    if (next > BSD_CTR_BACKOFF_MAX_MS)
        next = BSD_CTR_BACKOFF_MAX_MS;
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

void bsd_ctr_note_open(int err)
{
    if (err != 0)
        note_failure();
}

void bsd_ctr_note_stream(int err)
{
    if (err == 0)
        note_success();
    else if (is_daemon_failure(err))
        note_failure();
}

long long bsd_ctr_backoff_ms(void)
{
    long long last = atomic_load(&last_failure_ms), b = atomic_load(&backoff_ms);
    long long left = last != 0 ? last + b - now_ms() : 0;
    return left > 0 ? left : 0;
}

static void *aligned_zalloc(size_t n)
{
    size_t rounded = (n + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, rounded);
    if (p != NULL)
        memset(p, 0, rounded);
    return p;
}

bsd_ctr *bsd_ctr_new(const bs_block_cipher *cipher, const bsd_ctr_opts *opts)
{
    bsd_ctr *c = (bsd_ctr *)aligned_zalloc(sizeof *c);
    if (c == NULL)
        return NULL;
    c->ctx.cipher = cipher;
    if (opts != NULL)
        c->opts = *opts;
    if (c->opts.socket_path != NULL) {
        snprintf(c->socket_path, sizeof c->socket_path, "%s", c->opts.socket_path);
        c->opts.socket_path = c->socket_path;
    }
    return c;
}

static void stop_stream(bsd_ctr *c)
{
    bsd_stream_close(c->stream);
    c->stream = NULL;
}

int bsd_ctr_set_key(bsd_ctr *c, const uint8_t *key, size_t key_len, uint64_t block_limit)
{
    if (key_len > sizeof c->key)
        return BS_ERR_KEY_LENGTH;
    int rc = bs_ctr_set_key(&c->ctx, c->ctx.cipher, key, key_len);
    if (rc != BS_OK)
        return rc;
    bs_ctr_set_block_limit(&c->ctx, block_limit);
    stop_stream(c);
    bs_wipe(c->key, sizeof c->key);
    memcpy(c->key, key, key_len);
    c->key_len = key_len;
    c->since_iv = 0;
    c->fallback = 0;
    c->daemon_bytes = c->local_bytes = 0;
    return BS_OK;
}

int bsd_ctr_set_iv(bsd_ctr *c, const uint8_t *iv, size_t iv_len)
{
    int rc = bs_ctr_set_iv(&c->ctx, iv, iv_len);
    if (rc == BS_OK) {
        stop_stream(c);
        c->since_iv = 0;
        c->fallback = 0;
    }
    return rc;
}

int bsd_ctr_set_block_limit(bsd_ctr *c, uint64_t block_limit)
{
    bs_ctr_set_block_limit(&c->ctx,
                           block_limit < c->ctx.blocks_used ? c->ctx.blocks_used : block_limit);
    return BS_OK;
}

/* Opens the stream at the current counter (ctx.num == 0) if offloading is due. */
static void maybe_start(bsd_ctr *c, size_t len)
{
    if (c->stream != NULL || c->fallback != 0 || c->since_iv + len < c->opts.threshold)
        return;
    if (bsd_ctr_backoff_ms() > 0) {
        c->fallback = -EAGAIN;
        return;
    }
    bsd_stream_opts so = {c->opts.socket_path, c->opts.connect_timeout_ms, c->opts.timeout_ms,
                          c->opts.window_bytes, c->opts.depth};
    int r =
        bsd_stream_open(&so, c->ctx.cipher->name, c->key, c->key_len, c->ctx.counter, &c->stream);
    if (r != 0) {
        c->stream = NULL;
        c->fallback = r;
        bsd_ctr_note_open(r);
    }
}

/* The stream failed after delivering some bytes of this request: note it and stop offloading. */
static void stream_failed(bsd_ctr *c)
{
    c->fallback = bsd_stream_error(c->stream, NULL);
    if (c->fallback == 0)
        c->fallback = -EIO;
    bsd_ctr_note_stream(c->fallback);
    stop_stream(c);
}

int bsd_ctr_crypt(bsd_ctr *c, uint8_t *out, const uint8_t *in, size_t len)
{
    bs_ctr_ctx *x = &c->ctx;
    if (!x->keyed)
        return BS_ERR_STATE;
    if (len == 0)
        return BS_OK;
    if (out == NULL || in == NULL)
        return BS_ERR_ARG;
    /* The same all-or-nothing check as bs_ctr_crypt, before anything moves. */
    int err = bs_ctr_check(x, len);
    if (err != BS_OK)
        return err;
    const size_t bl = x->cipher->block_len;
    size_t pending = x->num ? bl - x->num : 0;
    size_t total = len;
    if (c->stream == NULL && pending > 0) {
        /* The rest of a started block comes from the context's pending keystream. */
        size_t take = pending < len ? pending : len;
        bs_ctr_crypt(x, out, in, take); /* checked above: cannot fail */
        c->local_bytes += take;
        out += take;
        in += take;
        len -= take;
    }
    if (len > 0)
        maybe_start(c, total);
    if (len > 0 && c->stream != NULL) {
        uint64_t before = bsd_stream_position(c->stream);
        int r = bsd_stream_xor(c->stream, out, in, len);
        size_t got = (size_t)(bsd_stream_position(c->stream) - before);
        /*
         * Moves the context over the bytes the daemon served; a final partial block costs one
         * in-process block (its keystream becomes the context's pending block).
         */
        bs_ctr_seek(x, got); /* room checked above: cannot fail */
        c->daemon_bytes += got;
        if (got > 0)
            bsd_ctr_note_stream(0); /* verified keystream arrived: the daemon works */
        out += got;
        in += got;
        len -= got;
        if (r != 0)
            stream_failed(c);
    }
    if (len > 0) {
        bs_ctr_crypt(x, out, in, len); /* checked above: cannot fail */
        c->local_bytes += len;
    }
    c->since_iv += total;
    return BS_OK;
}

void bsd_ctr_get_position(const bsd_ctr *c, uint8_t *counter, unsigned *num)
{
    memcpy(counter, c->ctx.counter, c->ctx.cipher->block_len);
    *num = c->ctx.num;
}

int bsd_ctr_set_num(bsd_ctr *c, unsigned num)
{
    bs_ctr_ctx *x = &c->ctx;
    const unsigned bl = x->cipher->block_len;
    uint8_t scratch[BS_BLOCK_MAX] = {0};
    int rc = BS_OK;
    if (num >= bl)
        return BS_ERR_ARG;
    /* Same moves as the in-process table; any move leaves the stream out of step: drop it. */
    if (x->num != 0 && num != 0 && num < x->num) {
        x->num = num;
        stop_stream(c);
    } else if ((x->num != 0 && num == 0) || num > x->num) {
        rc = bs_ctr_crypt(x, scratch, scratch, num == 0 ? bl - x->num : num - x->num);
        stop_stream(c);
    }
    bs_wipe(scratch, sizeof scratch);
    return rc;
}

bsd_ctr *bsd_ctr_dup(const bsd_ctr *c)
{
    bsd_ctr *d = (bsd_ctr *)aligned_zalloc(sizeof *d);
    if (d == NULL)
        return NULL;
    memcpy(d, c, sizeof *d);
    if (c->opts.socket_path != NULL)
        d->opts.socket_path = d->socket_path;
    d->stream = NULL; /* the copy opens its own, at its own position, when due */
    return d;
}

void bsd_ctr_free(bsd_ctr *c)
{
    if (c == NULL)
        return;
    stop_stream(c);
    bs_wipe(c, sizeof *c);
    free(c);
}

void bsd_ctr_counts(const bsd_ctr *c, uint64_t *daemon_bytes, uint64_t *local_bytes)
{
    *daemon_bytes = c->daemon_bytes;
    *local_bytes = c->local_bytes;
}

int bsd_ctr_fallback_reason(const bsd_ctr *c)
{
    return c->fallback;
}
