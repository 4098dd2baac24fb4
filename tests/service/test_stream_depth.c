/*
 * The stream's depth adapting to the rate (bsd_stream.h): the rule on its own (a wait adds a
 * window up to the most, a long run without one takes one away down to the start), and a real
 * stream over a daemon that holds every request 300 ms in its batcher (batch_when_idle=0,
 * batch_deadline_us=300000), so that the reader waits for its windows: the depth grows from
 * BSD_STREAM_DEPTH_START, and every byte still equals the in-process keystream. A stream given a
 * depth keeps it. The slow daemon is what makes the reader wait, not a race: a reply cannot
 * arrive before its request has waited 300 ms, so a reader that found a reply ready for every
 * window would have had to be held up that long before each of them.
 */
#include <string.h>

#include "bsd_client.h"
#include "bsd_stream.h"
#include "modes/ctr.h"
#include "svc_util.h"

static void rule(void)
{
    unsigned calm = 0, a = BSD_STREAM_DEPTH_START;
    for (unsigned i = 0; i < 3 * BSD_STREAM_DEPTH_MAX; i++) {
        unsigned next = bsd_stream_adapt_depth(a, BSD_STREAM_DEPTH_MAX, 1, &calm);
        CHECK(next == (a < BSD_STREAM_DEPTH_MAX ? a + 1 : a) && calm == 0);
        a = next;
    }
    CHECK(a == BSD_STREAM_DEPTH_MAX);
    /* 4 * max windows ready in a row take one away; a wait in between starts the count again. */
    for (unsigned i = 1; i < 4 * BSD_STREAM_DEPTH_MAX; i++)
        CHECK(bsd_stream_adapt_depth(a, BSD_STREAM_DEPTH_MAX, 0, &calm) == a && calm == i);
    CHECK(bsd_stream_adapt_depth(a, BSD_STREAM_DEPTH_MAX, 0, &calm) == a - 1 && calm == 0);
    a--;
    for (unsigned i = 0; i < 10; i++)
        CHECK(bsd_stream_adapt_depth(a, BSD_STREAM_DEPTH_MAX, 0, &calm) == a);
    CHECK(bsd_stream_adapt_depth(a, BSD_STREAM_DEPTH_MAX, 1, &calm) == a + 1 && calm == 0);
    /* Never below the start. */
    a = BSD_STREAM_DEPTH_START;
    for (unsigned i = 0; i < 20 * BSD_STREAM_DEPTH_MAX; i++)
        CHECK(bsd_stream_adapt_depth(a, BSD_STREAM_DEPTH_MAX, 0, &calm) == a);
    printf("rule: up on a wait to %u, down after %u ready windows to %u\n", BSD_STREAM_DEPTH_MAX,
           4 * BSD_STREAM_DEPTH_MAX, BSD_STREAM_DEPTH_START);
}

/*
 * The requests go out in groups: nothing until half of the depth (at least one) is free or nothing
 * is in flight, then every free slot; a window is always in flight for the reader, and in a steady
 * run (one window read, then the rule) a stream of depth a sends one message per max(1, a / 2)
 * windows.
 */
static void groups(void)
{
    for (unsigned a = 1; a <= BSD_STREAM_DEPTH_MAX; a++) {
        const unsigned g = a / 2 > 1 ? a / 2 : 1;
        for (unsigned f = 0; f <= a + 1; f++) {
            const unsigned n = bsd_stream_refill_count(a, f);
            if (f == 0)
                CHECK(n == a);
            else if (f >= a || f + g > a)
                CHECK(n == 0);
            else
                CHECK(n == a - f);
        }
        unsigned inflight = bsd_stream_refill_count(a, 0), messages = 0;
        for (unsigned w = 0; w < 64 * a; w++) {
            CHECK(inflight >= 1); /* the window being read */
            inflight--;
            const unsigned n = bsd_stream_refill_count(a, inflight);
            messages += n > 0;
            inflight += n;
            CHECK(inflight > a - g && inflight <= a);
        }
        CHECK(messages == 64 * a / g);
    }
    printf("groups: at depth %u, one message per %u windows\n", BSD_STREAM_DEPTH_MAX,
           BSD_STREAM_DEPTH_MAX / 2);
}

/*
 * Held requests (bsd_client_hold): none leaves before the flush (the daemon has counted no
 * KEYSTREAM request), and what releases them is the flush, a wait (so a wait never waits for a
 * request not sent) or another request (STATUS, sent after them); every window is then the
 * in-process keystream. Run first, on a fresh daemon.
 */
static void held(const svc_daemon *d)
{
    const bs_block_cipher *c = bs_block_cipher_by_name("GIFT-128");
    CHECK(c != NULL);
    enum { W = 16384, N = 4 };
    const size_t bl = c->block_len;
    const uint64_t nb = W / bl;
    bsd_client_opts o = {d->socket, 1000, 20000};
    bsd_client *cl = NULL;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_map_shm(cl, N * W) == 0);
    uint8_t key[BS_KEY_MAX], ctr[BS_BLOCK_MAX] = {0}, want[N * W];
    svc_fill(key, sizeof key, 7);
    svc_fill(ctr, 8, 8);
    uint32_t sid, id[N];
    CHECK(bsd_client_open_session(cl, c->name, key, c->key_len, &sid, NULL) == 0);
    const bs_key_schedule *ks = svc_schedule(c, key);
    uint8_t *shm = bsd_client_shm(cl, NULL);
    for (int round = 0; round < 3; round++) {
        bsd_client_hold(cl);
        for (unsigned k = 0; k < N; k++) {
            uint8_t cc[BS_BLOCK_MAX];
            memcpy(cc, ctr, bl);
            bs_ctr_add(cc, bl, k * nb);
            CHECK(bsd_client_keystream_submit(cl, sid, cc, bl, nb, (uint64_t)k * W, &id[k]) == 0);
        }
        if (round == 0)
            CHECK(svc_status_of(d, "keystream_requests") == 0);
        if (round == 1)
            CHECK(bsd_client_flush(cl) == 0);
        if (round == 2) {
            char st[8192];
            CHECK(bsd_client_status(cl, st, sizeof st) == 0);
            /* Rounds 0 and 1 counted 2 * N; the held N went out before the STATUS, on the
             * same connection, so the daemon has counted them too: exactly 3 * N. */
            CHECK(svc_status_value(st, "keystream_requests") == 3 * N);
        }
        for (unsigned k = N; k-- > 0;) /* the last first: a wait sends them all (round 0) */
            CHECK(bsd_client_wait(cl, id[k], 20000) == 0);
        CHECK(bsd_client_flush(cl) == 0); /* nothing left: a no-op */
        bs_ctr_keystream(c, ks, ctr, N * nb, want);
        CHECK(memcmp(shm, want, sizeof want) == 0);
        memset(shm, 0, sizeof want); /* zero again before the next requests (PROTOCOL.md) */
        bs_ctr_add(ctr, bl, N * nb);
    }
    CHECK(svc_status_of(d, "keystream_requests") == 3 * N);
    bsd_client_close(cl);
    printf("held requests: sent at the flush, the first wait or the next request; keystream "
           "right\n");
}

/* Reads windows of a stream of the given depth (0: adapting); returns its depth after. */
static unsigned read_stream(const svc_daemon *d, unsigned depth, size_t window, unsigned nwin)
{
    const bs_block_cipher *c = bs_block_cipher_by_name("GIFT-128");
    CHECK(c != NULL);
    uint8_t key[BS_KEY_MAX], ctr[BS_BLOCK_MAX] = {0};
    svc_fill(key, sizeof key, 5);
    svc_fill(ctr, 8, 6);
    bsd_stream_opts so = {d->socket, 1000, 20000, window, depth, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s;
    CHECK(bsd_stream_open(&so, c, key, c->key_len, ctr, &s) == 0);
    CHECK(bsd_stream_depth(s) == (depth != 0 ? depth : BSD_STREAM_DEPTH_START));
    const size_t len = window * nwin;
    uint8_t *got = (uint8_t *)malloc(len), *want = (uint8_t *)malloc(len);
    CHECK(got != NULL && want != NULL);
    const bs_key_schedule *ks = svc_schedule(c, key);
    for (size_t off = 0; off < len; off += 4096)
        CHECK(bsd_stream_read(s, ks, got + off, len - off < 4096 ? len - off : 4096) == 0);
    bs_ctr_keystream(c, ks, ctr, len / c->block_len, want);
    CHECK(memcmp(got, want, len) == 0);
    unsigned after = bsd_stream_depth(s);
    bsd_stream_close(s);
    free(got);
    free(want);
    return after;
}

int main(void)
{
    rule();
    groups();
    if (getenv("BITSLICED") == NULL) {
        printf("BITSLICED not set: the daemon part skipped\n");
        return 0;
    }
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"batch_when_idle=0", "batch_deadline_us=300000", NULL};
    svc_start(&d, NULL, sets);
    held(&d);
    /* 64 KiB windows (the first requests ramp up from 4 KiB), 6 of them. */
    unsigned adapted = read_stream(&d, 0, 65536, 6);
    CHECK(adapted > BSD_STREAM_DEPTH_START && adapted <= BSD_STREAM_DEPTH_MAX);
    printf("adapting: depth %u -> %u over a daemon that holds each request 300 ms\n",
           BSD_STREAM_DEPTH_START, adapted);
    CHECK(read_stream(&d, 3, 65536, 4) == 3);
    printf("fixed depth 3: kept\n");
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
    return 0;
}
