/* bsd_windows.c: see bsd_windows.h. */
#include "bsd_windows.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bsd_verify.h"

static uint8_t *window_mem(bsd_windows *w, unsigned k)
{
    return bsd_client_shm(w->client, NULL) + (size_t)k * w->slot_bytes;
}

static uint8_t *window_copy(bsd_windows *w, unsigned k)
{
    return w->priv + (size_t)k * w->slot_bytes;
}

/*
 * The copies hold keystream: wiped before they are unmapped, in this process only (after fork
 * the child's are its own copy-on-write pages, wiped by its own close). Only the bytes each copy
 * ever held: the rest of the mapping was never written, and writing zeroes there would allocate
 * it now (8 MiB for a stream that used one 64 KiB window).
 */
static void drop_copies(bsd_windows *w)
{
    if (w->priv == NULL)
        return;
    for (unsigned k = 0; k < w->nslots; k++)
        bs_wipe(w->priv + (size_t)k * w->slot_bytes, w->slot[k].copied);
    munmap(w->priv, w->priv_size);
    w->priv = NULL;
    w->priv_size = 0;
}

static void note_used(bsd_window_slot *s, size_t bytes)
{
    if (s->used < bytes)
        s->used = bytes;
}

/*
 * Not in a child after fork(): the mapping is still the parent's, and the parent's to wipe. A
 * window with a request in flight is left alone: the daemon may still be writing it, and it
 * counts the zeroes it finds there as words its backend did not write (PROTOCOL.md
 * "Integrity"), so zeroes landing mid-job would read as a fault of the daemon's. Its keystream
 * goes with the mapping. Of each other window, only the bytes the daemon ever wrote are wiped:
 * its pages beyond were never allocated, and zeroes written there would allocate them here, at
 * close (and could fail there, as SIGBUS, inside the application's free of its context).
 */
static void drop(bsd_windows *w)
{
    if (w->client == NULL)
        return;
    size_t size = 0;
    uint8_t *m = bsd_client_shm(w->client, &size);
    if (m != NULL && w->pid == bsd_client_getpid()) {
        for (unsigned k = 0; k < w->nslots && (size_t)(k + 1) * w->slot_bytes <= size; k++)
            if (w->slot[k].state != 1)
                bs_wipe(window_mem(w, k), w->slot[k].used);
    }
    bsd_client_close(w->client);
    w->client = NULL;
    drop_copies(w);
    memset(w->slot, 0, sizeof w->slot);
}

void bsd_windows_fail(bsd_windows *w, int err)
{
    if (w->error == 0) {
        const char *text = strerror(-err);
        w->error = err;
        if (err == -EREMOTEIO && w->client != NULL)
            bsd_client_last_error(w->client, &text);
        snprintf(w->error_text, sizeof w->error_text, "%s", text);
    }
    drop(w);
}

void bsd_windows_close(bsd_windows *w)
{
    drop(w);
    drop_copies(w);
}

int bsd_windows_open(bsd_windows *w, const bsd_client_opts *co, const bs_block_cipher *bc,
                     const uint8_t *key, size_t key_len, size_t slot_bytes, unsigned nslots)
{
    return bsd_windows_open_by_cost(w, co, bc, key, key_len, slot_bytes, nslots, BSD_OFFLOAD_ALWAYS,
                                    NULL);
}

int bsd_windows_open_by_cost(bsd_windows *w, const bsd_client_opts *co, const bs_block_cipher *bc,
                             const uint8_t *key, size_t key_len, size_t slot_bytes, unsigned nslots,
                             int mode, bsd_offload_decision *decision)
{
    memset(w, 0, sizeof *w);
    bsd_offload_decision scratch;
    if (decision == NULL)
        decision = &scratch;
    memset(decision, 0, sizeof *decision);
    if (mode == BSD_OFFLOAD_NEVER) {
        bsd_offload_decide(mode, bc->name, NULL, decision);
        bsd_windows_fail(w, -ECANCELED);
        return -ECANCELED;
    }
    w->bc = bc;
    w->slot_bytes = slot_bytes;
    w->nslots = nslots < BSD_WINDOWS_MAX ? nslots : BSD_WINDOWS_MAX;
    w->timeout_ms = co != NULL && co->io_timeout_ms > 0 ? co->io_timeout_ms : 5000;
    unsigned bl = 0;
    int r = bsd_client_connect(co, &w->client);
    if (r != 0) {
        w->client = NULL;
        bsd_windows_fail(w, r);
        return r;
    }
    w->pid = bsd_client_getpid();
    w->connected = 1;
    /* Before the memory and the key: a stream that stays in-process sends neither. */
    if (!bsd_offload_check(mode, w->client, bc, decision)) {
        bsd_windows_fail(w, -ECANCELED);
        return -ECANCELED;
    }
    /*
     * Not pre-faulted: a stream allocates only the windows it reaches (a message just over the
     * offload threshold used to allocate all nslots windows, 8 MiB, about 5 ms of this process's
     * CPU on a 2-vCPU VM whatever its length). The daemon allocates a window's pages before its
     * first request there is computed (MADV_POPULATE_WRITE: a failure to allocate is that
     * request's error, and the stream goes on in-process), within the uid's quota; the ring is
     * reused for the connection's life, and this process writes only pages the daemon allocated.
     */
    r = bsd_client_map_shm_ex(w->client, slot_bytes * w->nslots, 0);
    if (r == 0)
        r = bsd_client_open_session(w->client, bc->name, key, key_len, &w->session, &bl);
    if (r == 0 && bl != bc->block_len)
        r = -EPROTO;
    if (r != 0)
        bsd_windows_fail(w, r);
    return r;
}

/* The private copies, made at the first bsd_windows_get (users of pieces never need them). */
static int make_copies(bsd_windows *w)
{
    if (w->priv != NULL)
        return 0;
    size_t size = w->slot_bytes * w->nslots;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -errno;
    w->priv = p;
    w->priv_size = size;
    (void)madvise(p, size, MADV_DONTDUMP); /* advice, as for the shared mapping */
    return 0;
}

/*
 * Slot k taken for a new request of nblocks from counter: the window's previous keystream has
 * been used, so it does not stay in shared memory.
 */
static bsd_window_slot *slot_take(bsd_windows *w, unsigned k, const uint8_t *counter,
                                  uint64_t nblocks)
{
    bsd_window_slot *s = &w->slot[k];
    if (s->state != 0)
        bsd_windows_release(w, k);
    memcpy(s->counter, counter, w->bc->block_len);
    s->nblocks = nblocks;
    return s;
}

/* The request for slot s was sent (r == 0: now in flight) or refused (the windows fail). */
static int slot_sent(bsd_windows *w, bsd_window_slot *s, int r)
{
    if (r != 0) {
        bsd_windows_fail(w, r);
        return r;
    }
    s->state = 1;
    s->dirty = 1;
    return 0;
}

int bsd_windows_submit_pieces(bsd_windows *w, unsigned k, const uint8_t *counter, uint64_t nblocks,
                              unsigned piece_log2, uint64_t *pieces, size_t npieces)
{
    if (w->error != 0)
        return w->error;
    bsd_window_slot *s = slot_take(w, k, counter, nblocks);
    int r = bsd_client_keystream_submit_pieces(w->client, w->session, counter, w->bc->block_len,
                                               nblocks, (uint64_t)k * w->slot_bytes, piece_log2,
                                               pieces, npieces, &s->req_id);
    return slot_sent(w, s, r);
}

int bsd_windows_wait_pieces(bsd_windows *w, unsigned k, uint64_t *digest, uint8_t **shared)
{
    if (w->error != 0)
        return w->error;
    bsd_window_slot *s = &w->slot[k];
    if (s->state != 1) {
        bsd_windows_fail(w, -EINVAL); /* not in flight: a caller's bug */
        return w->error;
    }
    int r = bsd_client_wait_keystream(w->client, s->req_id, w->timeout_ms, digest);
    if (r != 0) {
        bsd_windows_fail(w, r);
        return r;
    }
    note_used(s, (size_t)s->nblocks * w->bc->block_len);
    s->state = 3;
    *shared = window_mem(w, k);
    return 0;
}

int bsd_windows_submit(bsd_windows *w, unsigned k, const uint8_t *counter, uint64_t nblocks)
{
    if (w->error != 0)
        return w->error;
    bsd_window_slot *s = slot_take(w, k, counter, nblocks);
    int r = bsd_client_keystream_submit(w->client, w->session, counter, w->bc->block_len, nblocks,
                                        (uint64_t)k * w->slot_bytes, &s->req_id);
    return slot_sent(w, s, r);
}

int bsd_windows_get(bsd_windows *w, unsigned k, const bs_key_schedule *ks, const uint8_t **mem)
{
    if (w->error != 0)
        return w->error;
    bsd_window_slot *s = &w->slot[k];
    if (s->state == 0) {
        bsd_windows_fail(w, -EINVAL); /* never asked for: a caller's bug, not the daemon's */
        return w->error;
    }
    if (s->state == 1) {
        int m = make_copies(w);
        if (m != 0) {
            bsd_windows_fail(w, m);
            return m;
        }
        uint64_t digest = 0;
        int r = bsd_client_wait_keystream(w->client, s->req_id, w->timeout_ms, &digest);
        /*
         * The daemon is trusted with the key, not with correctness: the window is moved out of
         * the shared memory once, and the copy is checked (digest, first, last and random blocks
         * recomputed here) before any byte of it is used. Checking the shared window in place
         * and reading it again later would let a write that lands after the check (a stray or
         * late write of the daemon or its device) reach the output unchecked.
         */
        size_t bytes = (size_t)s->nblocks * w->bc->block_len;
        if (r == 0) {
            note_used(s, bytes);
            if (s->copied < bytes)
                s->copied = bytes;
            /*
             * One pass: each word is read from the shared window once, stored in the copy,
             * zeroed in the shared window and digested from the register it was read into
             * (bsd_verify_move); the recomputed blocks are then taken from the copy.
             */
            r = bsd_verify_move(w->client, w->session, w->bc, ks, s->counter, s->nblocks,
                                window_copy(w, k), window_mem(w, k), digest);
            s->dirty = 0; /* consumed: no keystream left in shared memory */
        }
        if (r != 0) {
            bs_wipe(window_copy(w, k), bytes);
            bsd_windows_fail(w, r);
            return r;
        }
        s->state = 2;
    }
    *mem = window_copy(w, k);
    return 0;
}

int bsd_windows_discard(bsd_windows *w, unsigned k)
{
    if (w->error != 0)
        return w->error;
    bsd_window_slot *s = &w->slot[k];
    if (s->state == 1) {
        int r = bsd_client_wait(w->client, s->req_id, w->timeout_ms);
        if (r != 0) {
            bsd_windows_fail(w, r);
            return r;
        }
        note_used(s, (size_t)s->nblocks * w->bc->block_len);
    }
    bsd_windows_release(w, k);
    return 0;
}

/* Wipes what the daemon wrote for the window's request (not the whole slot: windows ramp up). */
void bsd_windows_release(bsd_windows *w, unsigned k)
{
    bsd_window_slot *s = &w->slot[k];
    const size_t bytes = (size_t)s->nblocks * w->bc->block_len;
    if (s->state != 0 && s->dirty && w->client != NULL && w->pid == bsd_client_getpid())
        bs_wipe(window_mem(w, k), bytes);
    s->dirty = 0;
    if (s->state == 2 && w->priv != NULL)
        bs_wipe(window_copy(w, k), bytes); /* the checked copy the caller used */
    s->state = 0;
}
