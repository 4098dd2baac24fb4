/*
 * The one-pass path (PROTOCOL.md "Integrity", pieces): the client reads each window out of the
 * shared memory once, piece by piece, straight into the caller's output, and releases a piece
 * only once it passed its check. A piece changed in the shared memory after the daemon answered
 * (as a late or stray writer would) must stop the stream exactly at its first byte: the pieces
 * before it in the same call are delivered (and right), and no byte of it is: where the output is
 * the input (in place) the input is given back unchanged, elsewhere those output bytes are zero.
 * For each cipher and each way of reading (XOR in place, XOR into another buffer, keystream).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bsd_stream.h"
#include "modes/ctr.h"
#include "svc_util.h"

static svc_daemon dmn;

enum { IN_PLACE, OTHER_BUFFER, KEYSTREAM };

/* One read of len bytes at out (from in, by way). */
static int op(bsd_stream *s, const bs_key_schedule *ks, int way, uint8_t *out, const uint8_t *in,
              size_t len)
{
    if (way == KEYSTREAM)
        return bsd_stream_read(s, ks, out, len);
    if (way == IN_PLACE) {
        memcpy(out, in, len);
        return bsd_stream_xor(s, ks, out, out, len);
    }
    return bsd_stream_xor(s, ks, out, in, len);
}

static void one(const bs_block_cipher *c, int way)
{
    enum { W = 65536, P = 4096, TOTAL = 16384 };
    const size_t bl = c->block_len;
    uint8_t key[64], ctr[32] = {0};
    svc_fill(key, sizeof key, 3);
    const bs_key_schedule *ks = svc_schedule(c, key);
    static uint8_t ref[TOTAL], in[TOTAL], out[TOTAL];
    bs_ctr_keystream(c, ks, ctr, TOTAL / bl, ref); /* the keystream, in-process */
    svc_fill(in, sizeof in, 5);
    if (way == KEYSTREAM)
        memset(in, 0, sizeof in);
    for (size_t i = 0; i < TOTAL; i++)
        ref[i] ^= in[i];
    memset(out, 0xa5, sizeof out);
    bsd_stream_opts so = {dmn.socket, 1000, 5000, W, 2, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s = NULL;
    CHECK(bsd_stream_open(&so, c, key, c->key_len, ctr, &s) == 0);
    /* The first request is W/16 = 4 KiB (window 0, slot 0), the second 8 KiB (slot 1). */
    CHECK(op(s, ks, way, out, in, P) == 0);
    CHECK(memcmp(out, ref, P) == 0);
    /* One block of window 1: it has arrived, and its first piece is checked and kept aside. */
    CHECK(op(s, ks, way, out + P, in + P, bl) == 0);
    size_t len = 0;
    uint8_t *shm = svc_shared_windows(&len);
    CHECK(shm != NULL && len >= 2 * W);
    /* Window 1's second piece (stream bytes [8 KiB, 12 KiB)) changes in the shared memory. */
    shm[W + P + 5] ^= 0x10;
    uint64_t before = bsd_stream_mismatches();
    int r = op(s, ks, way, out + P + bl, in + P + bl, 2 * P - bl);
    CHECK(r == -EBADMSG);
    CHECK(bsd_stream_position(s) == 2 * P);
    CHECK(bsd_stream_mismatches() == before + 1);
    CHECK(memcmp(out, ref, 2 * P) == 0); /* everything before the piece, checked and right */
    size_t bad = 0;
    for (size_t i = 2 * P; i < 3 * P; i++)
        bad += way == IN_PLACE ? out[i] != in[i] : out[i] != 0;
    printf("%s, %s: stopped at byte %llu, the piece after it %s (%zu bytes differ)\n", c->name,
           way == IN_PLACE       ? "in place"
           : way == OTHER_BUFFER ? "other buffer"
                                 : "keystream",
           (unsigned long long)bsd_stream_position(s),
           way == IN_PLACE ? "is the input again" : "is zeroes", bad);
    CHECK(bad == 0);
    bsd_stream_close(s);
}

int main(void)
{
    const bs_block_cipher *cs[16];
    size_t nc = svc_ciphers(cs, 16);
    if (nc == 0)
        return SVC_SKIP;
    svc_init(&dmn);
    svc_start(&dmn, NULL, NULL);
    for (size_t ci = 0; ci < nc; ci++)
        /* Blocks that do not tile a 4 KiB piece (SPEEDY's 24 bytes) keep whole-window checks. */
        for (int way = IN_PLACE; 4096 % cs[ci]->block_len == 0 && way <= KEYSTREAM; way++)
            one(cs[ci], way);
    svc_cleanup(&dmn);
    return 0;
}
