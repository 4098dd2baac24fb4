/*
 * The prefetching stream, over bsd_windows (the windows, their checks and the daemon's
 * dropping live there). The shared memory holds a ring of depth slots; the window in slot k
 * covers blocks [first, first + nblocks) of the stream (block 0 is the initial counter), nblocks
 * at most a window (the first requests are smaller). The active windows in flight always cover
 * consecutive blocks starting at the one holding the read position, in consecutive slots from
 * head; when the reader leaves a window, the next blocks not yet asked for are requested into
 * the slots after the last in flight, as many windows as keep active in flight (bsd_stream.h:
 * active adapts to the rate, or is depth), once half of active are free, in one message.
 */
#include "bsd_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bitslice.h"
#include "bs_digest.h"
#include "bsd_verify.h"
#include "bsd_windows.h"
#include "modes/ctr.h"
#include "modes/keystream.h"

_Static_assert(BSD_STREAM_DEPTH_MAX <= BSD_WINDOWS_MAX, "a stream's windows are bsd_windows slots");

typedef struct window {
    uint64_t first, nblocks;
    int requested;
    int arrived;   /* pieces: the reply is in and the spot blocks are computed */
    uint64_t seed; /* pieces: the request's digest seed */
} window;

struct bsd_stream {
    bsd_windows w;
    pid_t pid;
    char socket_path[108];
    int connect_timeout_ms, timeout_ms;
    int offload;                    /* BSD_OFFLOAD_* (bsd_offload.h) */
    bsd_offload_decision *decision; /* the opener's, or NULL */
    uint8_t key[BSD_KEY_MAX];
    size_t key_len;
    const bs_block_cipher *bc;
    unsigned block_len;
    uint8_t counter0[BS_BLOCK_MAX];
    uint64_t total_blocks; /* blocks before the counter wraps */
    uint64_t window_blocks;
    uint64_t ramp_blocks; /* size of the next request: grows to window_blocks */
    unsigned depth, head; /* slots of the ring; head: the window holding the read position */
    /*
     * Windows kept in flight (head's included): depth when the opener fixed it, else from
     * BSD_STREAM_DEPTH_START, adapting (bsd_stream_adapt_depth) each time a window arrives:
     * one more where the reader had to wait for it, one fewer after a long run without waiting.
     */
    unsigned active, inflight, calm;
    int adaptive;
    window win[BSD_STREAM_DEPTH_MAX];
    uint64_t next_block; /* first block not yet requested */
    uint64_t pos;        /* bytes delivered */
    /*
     * Pieces (PROTOCOL.md "Integrity"): when the daemon offers them, each window comes with a
     * digest per piece of piece_bytes, and is read out of the shared memory once, piece by piece,
     * straight into the caller's output (bs_digest_xor_move_sum), each piece checked before the
     * call returns any byte of it. Per window and piece: the daemon's digest (pdig), one block at
     * a random position (spot_blk, drawn after the reply) and its keystream recomputed here
     * (spot_ks: per window, its first and last blocks, then one block per piece).
     */
    int pieces;
    unsigned piece_log2;
    size_t piece_bytes, max_pieces;
    uint64_t *pdig;     /* depth x max_pieces */
    uint64_t *spot_blk; /* depth x max_pieces */
    uint8_t *spot_ks;   /* depth x (2 + max_pieces) x block_len */
    uint8_t *scratch;   /* one piece: a piece read in part, or the keystream of an in-place one */
    int buf_win;        /* the window whose piece buf_piece scratch holds, -1: none */
    uint64_t buf_piece;
    size_t alloc_size; /* of the pieces' arrays, one mapping */
    void *alloc;
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
    int r;
    w->arrived = 0;
    if (s->pieces) {
        uint64_t np = BSD_KS_NPIECES(w->nblocks * s->block_len, s->piece_log2);
        r = bsd_windows_submit_pieces(&s->w, k, ctr, w->nblocks, s->piece_log2,
                                      s->pdig + (size_t)k * s->max_pieces, (size_t)np);
        w->seed = bs_digest_seed(ctr, s->block_len, w->nblocks);
    } else {
        r = bsd_windows_submit(&s->w, k, ctr, w->nblocks);
    }
    if (r != 0)
        return r;
    w->requested = 1;
    s->next_block += w->nblocks;
    return 0;
}

/*
 * Requests windows after the ones in flight until active are, each into the next ring slot, in
 * groups: only once half of active (at least one) are free, and then in one message
 * (bsd_client_hold). Each message costs a system call and a wakeup of the daemon (on the 2-vCPU
 * VM, 5-15 us of this process's CPU a window with one request a message); more than half of
 * active stay in flight meanwhile, and the daemon answers a group's windows as one batch.
 */
unsigned bsd_stream_refill_count(unsigned active, unsigned inflight)
{
    const unsigned group = active / 2 > 1 ? active / 2 : 1;
    if (inflight >= active || (inflight > 0 && inflight + group > active))
        return 0;
    return active - inflight;
}

static int refill(bsd_stream *s)
{
    if (bsd_stream_refill_count(s->active, s->inflight) == 0)
        return 0;
    if (s->w.client == NULL || s->w.error != 0)
        return s->w.error != 0 ? s->w.error : -EPIPE;
    bsd_client_hold(s->w.client);
    int r = 0;
    while (r == 0 && s->inflight < s->active) {
        r = submit(s, (s->head + s->inflight) % s->depth);
        if (r == 0)
            s->inflight++;
    }
    const int f = bsd_client_flush(s->w.client);
    if (r == 0 && f != 0) {
        bsd_windows_fail(&s->w, f);
        r = f;
    }
    return r;
}

unsigned bsd_stream_adapt_depth(unsigned active, unsigned max, int stalled, unsigned *calm)
{
    if (stalled) {
        *calm = 0;
        return active < max ? active + 1 : active;
    }
    if (++*calm >= 4 * max && active > BSD_STREAM_DEPTH_START) {
        *calm = 0;
        return active - 1;
    }
    return active;
}

/* The head window has just arrived; stalled: the reader had to wait for it. */
static int adapt(bsd_stream *s, int stalled)
{
    if (!s->adaptive)
        return 0;
    s->active = bsd_stream_adapt_depth(s->active, s->depth, stalled, &s->calm);
    return refill(s);
}

unsigned bsd_stream_depth(const bsd_stream *s)
{
    return s->active;
}

/* Connects, maps, opens the session and requests active windows from the read position. */
static int start(bsd_stream *s)
{
    bsd_client_opts co = {s->socket_path, s->connect_timeout_ms, s->timeout_ms};
    int r = bsd_windows_open_by_cost(&s->w, &co, s->bc, s->key, s->key_len,
                                     (size_t)(s->window_blocks * s->block_len), s->depth,
                                     s->offload, s->decision);
    s->pid = bsd_client_getpid();
    s->head = 0;
    s->buf_win = -1;
    /* Pieces where the daemon offers them and the blocks tile them (not for the bench switch). */
    s->pieces = r == 0 && s->alloc != NULL &&
                (bsd_client_info(s->w.client)->caps & BSD_CAP_PIECES) != 0 &&
                !bsd_verify_bench_unchecked();
    s->next_block = s->pos / s->block_len;
    memset(s->win, 0, sizeof s->win);
    /*
     * The first requests are small and double up to a window: a message just over the
     * offload threshold does not make the daemon compute depth whole windows past its end.
     */
    s->ramp_blocks = s->window_blocks / 16 > 0 ? s->window_blocks / 16 : 1;
    s->inflight = 0;
    if (r == 0)
        r = refill(s);
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
    s->adaptive = o == NULL || o->depth == 0;
    s->depth = s->adaptive ? BSD_STREAM_DEPTH_MAX : o->depth;
    s->offload = o != NULL ? o->offload : BSD_OFFLOAD_ALWAYS;
    s->decision = o != NULL ? o->decision : NULL;
    if (s->depth > BSD_STREAM_DEPTH_MAX)
        s->depth = BSD_STREAM_DEPTH_MAX;
    s->active = s->adaptive ? BSD_STREAM_DEPTH_START : s->depth;
    memcpy(s->key, key, key_len);
    s->key_len = key_len;
    s->bc = bc;
    s->block_len = bc->block_len;
    memcpy(s->counter0, counter, bc->block_len);
    s->total_blocks = bs_ctr_blocks_before_wrap(counter, bc->block_len);
    s->window_blocks = wb / bc->block_len > 0 ? wb / bc->block_len : 1;
    /* Pieces of 4 KiB (larger for windows of more than BSD_KS_MAX_PIECES of them). */
    const size_t wbytes = (size_t)(s->window_blocks * s->block_len);
    s->piece_log2 = BSD_KS_PIECE_LOG2_MIN;
    while (BSD_KS_NPIECES(wbytes, s->piece_log2) > BSD_KS_MAX_PIECES &&
           s->piece_log2 < BSD_KS_PIECE_LOG2_MAX)
        s->piece_log2++;
    s->piece_bytes = (size_t)1 << s->piece_log2;
    s->max_pieces = (size_t)BSD_KS_NPIECES(wbytes, s->piece_log2);
    if (s->block_len % 8 == 0 && s->piece_bytes % s->block_len == 0 &&
        s->max_pieces <= BSD_KS_MAX_PIECES) {
        const size_t n = (size_t)s->depth * s->max_pieces;
        s->alloc_size = n * 2 * sizeof(uint64_t) + s->piece_bytes +
                        (size_t)s->depth * (2 + s->max_pieces) * s->block_len;
        void *m =
            mmap(NULL, s->alloc_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            (void)madvise(m, s->alloc_size, MADV_DONTDUMP); /* keystream: advice */
            s->alloc = m;
            s->pdig = (uint64_t *)m;
            s->spot_blk = s->pdig + n;
            s->scratch = (uint8_t *)(s->spot_blk + n);
            s->spot_ks = s->scratch + s->piece_bytes;
        }
    }
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

/* Bytes [a, b) of window k's piece p. */
static void piece_range(const bsd_stream *s, const window *w, uint64_t p, uint64_t *a, uint64_t *b)
{
    const uint64_t wbytes = w->nblocks * s->block_len;
    *a = p << s->piece_log2;
    *b = *a + s->piece_bytes < wbytes ? *a + s->piece_bytes : wbytes;
}

/*
 * Window k's reply is in: draw one block of each piece at random (now, after the daemon wrote
 * them) and recompute it and the window's first and last blocks in-process, in one call of the
 * cipher (ECB of the counter blocks is CTR's keystream).
 */
static int arrive(bsd_stream *s, unsigned k, const bs_key_schedule *ks)
{
    window *w = &s->win[k];
    uint64_t digest = 0;
    uint8_t *shared = NULL;
    int r = bsd_windows_wait_pieces(&s->w, k, &digest, &shared);
    if (r != 0)
        return r;
    (void)digest; /* the pieces' digests cover the same words */
    bsd_verify_count_window();
    const size_t bl = s->block_len;
    const uint64_t np = BSD_KS_NPIECES(w->nblocks * bl, s->piece_log2);
    uint64_t *blk = s->spot_blk + (size_t)k * s->max_pieces;
    uint8_t *ksb = s->spot_ks + (size_t)k * (2 + s->max_pieces) * bl;
    memcpy(ksb, s->counter0, bl);
    bs_ctr_add(ksb, bl, w->first);
    memcpy(ksb + bl, s->counter0, bl);
    bs_ctr_add(ksb + bl, bl, w->first + w->nblocks - 1);
    for (uint64_t p = 0; p < np; p++) {
        uint64_t a, b;
        piece_range(s, w, p, &a, &b);
        /*
         * Not the window's first or last block where the piece has others: those two are
         * recomputed anyway, and a backend wrong everywhere but there must still be caught.
         */
        uint64_t lo = a / bl, hi = b / bl;
        if (lo == 0 && hi > 1)
            lo = 1;
        if (hi == w->nblocks && hi - 1 > lo)
            hi--;
        /* A multiply, not a division: hi - lo is at most 2^21 blocks (a 16 MiB piece). */
        blk[p] = lo + (((bsd_verify_random() >> 32) * (hi - lo)) >> 32);
        memcpy(ksb + (2 + p) * bl, s->counter0, bl);
        bs_ctr_add(ksb + (2 + p) * bl, bl, w->first + blk[p]);
    }
    /* One call: PRESENT-80's 2 blocks alone cost as much as its 256 (a pass of its core). */
    s->bc->encrypt(ks, ksb, ksb, (size_t)np + 2);
    w->arrived = 1;
    return 0;
}

/* 1 when block i of the window (inside piece p, whose used keystream is at used) is wrong. */
static int block_wrong(const bsd_stream *s, const uint8_t *used, uint64_t a, uint64_t i,
                       const uint8_t *expect)
{
    const size_t bl = s->block_len;
    return bs_ct_memcmp(used + (i * bl - a), expect, bl) != 0;
}

/*
 * The check of piece p of window k after its one pass: digest, no zero word, and its random,
 * first and last blocks against the in-process ones. used: the piece's keystream as used (the
 * output, the scratch copy, or NULL with out and in to derive it: out ^ in). 0 or a REPORT kind.
 */
static uint32_t piece_verdict(bsd_stream *s, unsigned k, uint64_t p, uint64_t sum, uint64_t zeros,
                              const uint8_t *used, const uint8_t *out, const uint8_t *in)
{
    window *w = &s->win[k];
    const size_t bl = s->block_len;
    uint64_t a, b;
    piece_range(s, w, p, &a, &b);
    if (bs_digest_final(sum, (b - a) / 8) != s->pdig[(size_t)k * s->max_pieces + p] || zeros != 0)
        return BSD_REPORT_DIGEST;
    uint8_t tmp[3][BS_BLOCK_MAX];
    int derived = 0; /* tmp holds keystream, wiped below */
    const uint64_t idx[3] = {s->spot_blk[(size_t)k * s->max_pieces + p], 0, w->nblocks - 1};
    const uint8_t *ksb = s->spot_ks + (size_t)k * (2 + s->max_pieces) * bl;
    const uint8_t *exp[3] = {ksb + (2 + p) * bl, ksb, ksb + bl};
    int bad = 0;
    for (int t = 0; t < 3; t++) {
        if (idx[t] * bl < a || idx[t] * bl >= b)
            continue;
        const uint8_t *u = used;
        uint64_t base = a;
        if (u == NULL) {
            /* out ^ in is the keystream used (in != out here) */
            bs_keystream_xor(tmp[t], out + (idx[t] * bl - a), in + (idx[t] * bl - a), bl);
            u = tmp[t];
            base = idx[t] * bl;
            derived = 1;
        }
        bad |= block_wrong(s, u, base, idx[t], exp[t]);
    }
    if (derived)
        bs_wipe(tmp, sizeof tmp);
    return bad ? BSD_REPORT_SPOT : 0;
}

/* A piece failed: reported, and the stream fails at its first byte (the caller goes on). */
static int piece_failed(bsd_stream *s, unsigned k, uint32_t kind)
{
    int r = bsd_verify_failed(s->w.client, s->w.session, kind, s->win[k].nblocks);
    bsd_windows_fail(&s->w, r);
    return r;
}

/*
 * The pieces path of stream_apply: at most len bytes at the read position, inside the head
 * window (arrived). *done: the bytes delivered (checked); returns 0 or a negative error (nothing
 * of the failing piece delivered: its bytes of out are zeroed, or restored to the input where out
 * is in).
 */
static int apply_pieces(bsd_stream *s, uint8_t *out, const uint8_t *in, size_t len, size_t *done)
{
    *done = 0;
    const unsigned k = s->head;
    window *w = &s->win[k];
    uint8_t *shared = bsd_client_shm(s->w.client, NULL) + (size_t)k * s->w.slot_bytes;
    const uint64_t off = s->pos - w->first * s->block_len;
    const uint64_t p = off >> s->piece_log2;
    uint64_t a, b;
    piece_range(s, w, p, &a, &b);
    if (s->buf_win == (int)k && s->buf_piece == p) {
        /* The rest of a checked piece, from the private copy. */
        size_t n = b - off < len ? (size_t)(b - off) : len;
        if (in == NULL)
            memcpy(out, s->scratch + (off - a), n);
        else
            bs_keystream_xor(out, in, s->scratch + (off - a), n);
        if (off + n == b) {
            bs_wipe(s->scratch, (size_t)(b - a));
            s->buf_win = -1;
        }
        *done = n;
        return 0;
    }
    uint64_t zeros = 0, sum;
    uint32_t kind;
    if (off == a && len >= b - a) {
        /* Whole pieces: straight from the shared window into out, one pass each. */
        uint64_t q = p;
        for (;;) {
            uint64_t qa, qb;
            piece_range(s, w, q, &qa, &qb);
            const size_t n = (size_t)(qb - qa);
            uint8_t *o = out + *done;
            const uint8_t *i = in != NULL ? in + *done : NULL;
            /* In place, the keystream is kept aside (scratch) so the input can be restored. */
            uint8_t *keep = i != NULL && i == o ? s->scratch : NULL;
            sum = bs_digest_xor_move_sum(w->seed, qa / 8, o, i, keep, shared + qa, n / 8, &zeros);
            kind = piece_verdict(s, k, q, sum, zeros, keep != NULL ? keep : (i == NULL ? o : NULL),
                                 o, i);
            /*
             * The kept keystream is not wiped piece by piece: the next in-place piece overwrites
             * it, and close (or a failure) wipes it; at most one used piece stays there between
             * calls, where a whole checked window used to stay until its last byte was used.
             */
            if (keep != NULL && kind != 0) {
                bs_keystream_xor(o, o, keep, n); /* the input again */
                bs_wipe(keep, n);
            }
            if (kind != 0) {
                if (keep == NULL)
                    bs_wipe(o, n);
                return piece_failed(s, k, kind);
            }
            *done += n;
            q++;
            if (qb == w->nblocks * s->block_len)
                break;
            uint64_t na, nb;
            piece_range(s, w, q, &na, &nb);
            if (len - *done < nb - na)
                break;
        }
        return 0;
    }
    /* Part of a piece: the whole piece into the private copy, checked, then served from there. */
    sum = bs_digest_xor_move_sum(w->seed, a / 8, s->scratch, NULL, NULL, shared + a,
                                 (size_t)(b - a) / 8, &zeros);
    kind = piece_verdict(s, k, p, sum, zeros, s->scratch, NULL, NULL);
    if (kind != 0) {
        bs_wipe(s->scratch, (size_t)(b - a));
        return piece_failed(s, k, kind);
    }
    s->buf_win = (int)k;
    s->buf_piece = p;
    return 0; /* served at the next turn */
}

/* The head window is used up: release it, move the head on and refill (refill's result). */
static int next_window(bsd_stream *s)
{
    bsd_windows_release(&s->w, s->head);
    s->head = (s->head + 1) % s->depth;
    s->inflight--;
    return refill(s);
}

static int stream_apply(bsd_stream *s, const bs_key_schedule *sched, uint8_t *out,
                        const uint8_t *in, size_t len)
{
    if (s->w.error != 0)
        return s->w.error;
    if (s->pid != bsd_client_getpid()) {
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
        int r;
        if (s->pieces) {
            if (!w->arrived) {
                const uint64_t stalls = bsd_client_stalls(s->w.client);
                if ((r = arrive(s, s->head, sched)) != 0)
                    return r;
                if ((r = adapt(s, bsd_client_stalls(s->w.client) != stalls)) != 0)
                    return r;
            }
            size_t n = 0;
            int e = apply_pieces(s, out, in, len, &n);
            s->pos += n;
            if (e != 0)
                return e;
            out += n;
            if (in != NULL)
                in += n;
            len -= n;
            if (s->pos == (w->first + w->nblocks) * s->block_len) {
                s->w.slot[s->head].dirty = 0; /* every word moved out, and zeroed */
                if ((r = next_window(s)) != 0)
                    return len == 0 ? 0 : r;
            }
            continue;
        }
        const uint8_t *ks;
        const uint64_t stalls = s->w.client != NULL ? bsd_client_stalls(s->w.client) : 0;
        r = bsd_windows_get(&s->w, s->head, sched, &ks);
        if (r != 0)
            return r;
        if (!w->arrived) {
            w->arrived = 1;
            if ((r = adapt(s, bsd_client_stalls(s->w.client) != stalls)) != 0)
                return r;
        }
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
        if (n == avail && (r = next_window(s)) != 0)
            return len == 0 ? 0 : r;
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
    if (s->pid == bsd_client_getpid())
        bsd_windows_close(&s->w);
    else
        bsd_client_close(s->w.client);
    if (s->alloc != NULL) {
        bs_wipe(s->alloc, s->alloc_size);
        munmap(s->alloc, s->alloc_size);
    }
    explicit_bzero(s, sizeof *s);
    free(s);
}
