#include "bs_keysrc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsd_client.h"

static void drop_daemon(bscli_keysrc *s, const char *why, int err)
{
    if (!s->daemon)
        return;
    if (s->local_why[0] == 0)
        snprintf(s->local_why, sizeof s->local_why, "in-process (daemon %s)", why);
    bsd_windows_fail(&s->w, err); /* drops the daemon, wipes the shared memory */
    const char *text = err == -EREMOTEIO ? s->w.error_text : "";
    fprintf(stderr, "bitslice: daemon %s (%s%s%s); continuing in-process\n", why, strerror(-err),
            text[0] ? ": " : "", text);
    s->daemon = 0;
    snprintf(s->backend, sizeof s->backend, "in-process");
    memset(s->slot, 0, sizeof s->slot);
}

int bscli_keysrc_init(bscli_keysrc *s, const bsf_keys *k, size_t chunk_size, int use_daemon,
                      const char *socket, int verbose, unsigned depth)
{
    memset(s, 0, sizeof s[0]);
    s->k = k;
    s->verbose = verbose;
    /*
     * Per window, as the provider's stream: a daemon that stops answering mid-file costs one
     * wait this long, then the file goes on in-process (a window is at most a 16 MiB chunk,
     * tens of ms on any backend; 30 s was a long stall for an interactive user).
     */
    s->timeout_ms = 5000;
    s->slot_bytes = (size_t)bsf_chunk_ks_blocks(chunk_size) * 32;
    const size_t fit = BSCLI_KEYSRC_WINDOW_BYTES / s->slot_bytes;
    unsigned n = depth < BSCLI_KEYSRC_SLOTS_MAX ? depth : BSCLI_KEYSRC_SLOTS_MAX;
    if (n > fit)
        n = (unsigned)fit;
    s->nslots = n > BSCLI_KEYSRC_SLOTS ? n : BSCLI_KEYSRC_SLOTS;
    s->local = (uint8_t *)malloc(s->slot_bytes);
    if (s->local == NULL)
        return -1;
    snprintf(s->backend, sizeof s->backend, "in-process");
    if (!use_daemon)
        return 0;
    bsd_client_opts o = {socket, 1000, s->timeout_ms};
    int bad = 0;
    const int mode = bsd_offload_mode_env(BSD_OFFLOAD_AUTO, &bad);
    if (bad)
        fprintf(stderr, "bitslice: $" BSD_OFFLOAD_ENV " is not auto, always or never: auto\n");
    int r = bsd_windows_open_by_cost(&s->w, &o, k->cipher, k->payload_key, 32, s->slot_bytes,
                                     s->nslots, mode, &s->decision);
    if (s->decision.decided && verbose)
        fprintf(stderr, "bitslice: offload %s\n", s->decision.reason);
    if (r == -ECANCELED) {
        /* The offload rule (bsd_offload.h) keeps this file in-process: no failure. */
        snprintf(s->local_why, sizeof s->local_why, "in-process (offload rule: %s)",
                 mode == BSD_OFFLOAD_AUTO ? "daemon path not cheaper" : "offload=never");
        return 0;
    }
    /* The windows it could map bound the depth (it caps them at BSD_WINDOWS_MAX). */
    if (r == 0 && s->w.nslots < s->nslots)
        s->nslots = s->w.nslots;
    if (r != 0 && !s->w.connected) {
        if (verbose)
            fprintf(stderr, "bitslice: no daemon (%s); in-process\n", strerror(-r));
        snprintf(s->local_why, sizeof s->local_why, "in-process (no daemon: %s)", strerror(-r));
        return 0;
    }
    s->daemon = 1;
    if (r != 0) {
        drop_daemon(s, "refused", r);
        return 0;
    }
    snprintf(s->backend, sizeof s->backend, "daemon:%s", bsd_client_info(s->w.client)->backend);
    snprintf(s->daemon_backend, sizeof s->daemon_backend, "%s", s->backend);
    return 0;
}

void bscli_keysrc_request(bscli_keysrc *s, uint64_t index, int last, size_t len)
{
    bscli_keysrc_slot *sl = &s->slot[index % s->nslots];
    sl->state = 0;
    if (!s->daemon)
        return;
    uint8_t j0[32];
    bsf_chunk_j0(j0, index, last);
    sl->index = index;
    sl->last = last;
    sl->nblocks = bsf_chunk_ks_blocks(len);
    int r = bsd_windows_submit(&s->w, (unsigned)(index % s->nslots), j0, sl->nblocks);
    if (r != 0) {
        drop_daemon(s, "failed", r);
        return;
    }
    sl->state = 1;
}

/* -v: one line per run of chunks from the same source, said when the source changes. */
static void source_flush(bscli_keysrc *s)
{
    if (!s->verbose || s->run_len == 0)
        return;
    fprintf(stderr, "bitslice: chunk%s %llu", s->run_len > 1 ? "s" : "",
            (unsigned long long)s->run_first);
    if (s->run_len > 1)
        fprintf(stderr, "-%llu", (unsigned long long)(s->run_first + s->run_len - 1));
    fprintf(stderr, ": %s\n", s->run_src);
    s->run_len = 0;
}

static void source_note(bscli_keysrc *s, uint64_t index, const char *src)
{
    if (!s->verbose)
        return;
    if (s->run_len > 0 && strcmp(src, s->run_src) == 0 && index == s->run_first + s->run_len) {
        s->run_len++;
        return;
    }
    source_flush(s);
    snprintf(s->run_src, sizeof s->run_src, "%s", src);
    s->run_first = index;
    s->run_len = 1;
}

const uint8_t *bscli_keysrc_take(bscli_keysrc *s, uint64_t index, int last, size_t len)
{
    const unsigned k = (unsigned)(index % s->nslots);
    bscli_keysrc_slot *sl = &s->slot[k];
    uint64_t need = bsf_chunk_ks_blocks(len);
    /* A prefetch guessed the last flag wrong (input of unknown size): ask again. */
    if (s->daemon &&
        (sl->state != 1 || sl->index != index || sl->last != last || sl->nblocks < need)) {
        if (sl->state == 1) {
            int r = bsd_windows_discard(&s->w, k);
            if (r != 0)
                drop_daemon(s, "failed", r);
        }
        if (s->daemon)
            bscli_keysrc_request(s, index, last, len);
    }
    const char *why = s->daemon ? NULL : s->local_why;
    if (s->daemon && sl->state == 1) {
        const uint8_t *ks = NULL;
        sl->state = 0;
        /* The window is checked there (bsd_verify_move), before any byte of it is used. */
        int r = bsd_windows_get(&s->w, k, &s->k->ks, &ks);
        if (r == 0) {
            s->daemon_chunks++;
            source_note(s, index, s->backend);
            return ks; /* wiped by the request that reuses the slot, or at close */
        }
        if (r == -EBADMSG)
            s->mismatches++;
        snprintf(s->local_why, sizeof s->local_why,
                 "in-process (after the daemon %s at chunk %llu)",
                 r == -EBADMSG ? "sent keystream that failed the check" : "failed",
                 (unsigned long long)index);
        why = s->local_why;
        drop_daemon(s, r == -EBADMSG ? "keystream failed the in-process check" : "failed mid-file",
                    r);
    }
    s->local_chunks++;
    source_note(s, index, why != NULL && why[0] != 0 ? why : "in-process");
    return NULL;
}

const uint8_t *bscli_keysrc_get(bscli_keysrc *s, uint64_t index, int last, size_t len)
{
    const uint8_t *ks = bscli_keysrc_take(s, index, last, len);
    if (ks != NULL)
        return ks;
    bsf_chunk_keystream(s->k, index, last, len, s->local);
    return s->local;
}

void bscli_keysrc_close(bscli_keysrc *s)
{
    source_flush(s);
    bsd_windows_close(&s->w); /* wipes the shared memory */
    if (s->local != NULL) {
        bs_wipe(s->local, s->slot_bytes);
        free(s->local);
    }
    memset(s, 0, sizeof *s);
}
