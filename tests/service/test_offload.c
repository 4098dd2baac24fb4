/*
 * Offloaded keystream equals in-process keystream (bs_ctr_keystream) for every compiled-in
 * cipher, from 1 byte to 64 MiB: one KEYSTREAM request into shared memory, and the prefetching
 * stream read in pieces of many sizes. Also: counter wrap refused, fork() reconnects.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bsd_client.h"
#include "bsd_stream.h"
#include "modes/ctr.h"
#include "svc_util.h"

static svc_daemon dmn;

static void expected(const bs_block_cipher *c, const uint8_t *key, const uint8_t *ctr, uint8_t *out,
                     size_t len)
{
    static bs_key_schedule ks;
    size_t bl = c->block_len, nb = (len + bl - 1) / bl;
    uint8_t *tmp = (uint8_t *)malloc(nb * bl);
    CHECK(tmp != NULL);
    c->set_key(&ks, key);
    bs_ctr_keystream(c, &ks, ctr, nb, tmp);
    memcpy(out, tmp, len);
    free(tmp);
}

/* One KEYSTREAM request of size bytes (rounded up to blocks) into shared memory. */
static void direct(const bs_block_cipher *c, size_t size)
{
    uint8_t key[64], ctr[32] = {0};
    svc_fill(key, sizeof key, (uint32_t)size);
    svc_fill(ctr, c->block_len, (uint32_t)size + 1);
    ctr[0] = 0; /* keep clear of the wrap */
    size_t bl = c->block_len, nb = (size + bl - 1) / bl;
    bsd_client_opts o = {dmn.socket, 1000, 30000};
    bsd_client *cl;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_map_shm(cl, nb * bl + 64) == 0);
    uint32_t sid;
    unsigned blen;
    CHECK(bsd_client_open_session(cl, c->name, key, c->key_len, &sid, &blen) == 0);
    CHECK(blen == bl);
    size_t shm_size;
    uint8_t *shm = bsd_client_shm(cl, &shm_size);
    /* Offset by one block to check that shm_offset is honoured. */
    CHECK(bsd_client_keystream(cl, sid, ctr, bl, nb, bl) == 0);
    uint8_t *want = (uint8_t *)malloc(size);
    CHECK(want != NULL);
    expected(c, key, ctr, want, size);
    if (memcmp(shm + bl, want, size) != 0) {
        fprintf(stderr, "%s: direct keystream of %zu bytes differs\n", c->name, size);
        CHECK(0);
    }
    free(want);
    bsd_client_close(cl);
}

/* The stream, read in pieces whose sizes cycle through piece[]. */
static void streamed(const bs_block_cipher *c, size_t size, const size_t *piece, size_t npiece)
{
    uint8_t key[64], ctr[32] = {0};
    svc_fill(key, sizeof key, (uint32_t)size + 7);
    svc_fill(ctr, c->block_len, (uint32_t)size + 8);
    ctr[0] = 0;
    uint8_t *got = (uint8_t *)malloc(size), *want = (uint8_t *)malloc(size);
    CHECK(got != NULL && want != NULL);
    bsd_stream_opts so = {dmn.socket, 1000, 30000, 64 * 1024 + 8, 3, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s;
    CHECK(bsd_stream_open(&so, c, key, c->key_len, ctr, &s) == 0);
    const bs_key_schedule *ks = svc_schedule(c, key);
    size_t off = 0;
    for (size_t i = 0; off < size; i++) {
        size_t n = piece[i % npiece];
        if (n > size - off)
            n = size - off;
        CHECK(bsd_stream_read(s, ks, got + off, n) == 0);
        off += n;
        CHECK(bsd_stream_position(s) == off);
    }
    expected(c, key, ctr, want, size);
    if (memcmp(got, want, size) != 0) {
        fprintf(stderr, "%s: streamed keystream of %zu bytes differs\n", c->name, size);
        CHECK(0);
    }
    bsd_stream_close(s);
    free(got);
    free(want);
}

static void wrap(const bs_block_cipher *c)
{
    uint8_t key[64] = {0}, ctr[32];
    size_t bl = c->block_len;
    memset(ctr, 0xff, bl);
    ctr[bl - 1] = 0xfd; /* three blocks left: ...fd, ...fe, ...ff */
    bsd_client_opts o = {dmn.socket, 1000, 5000};
    bsd_client *cl;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_map_shm(cl, 4096) == 0);
    uint32_t sid;
    CHECK(bsd_client_open_session(cl, c->name, key, c->key_len, &sid, NULL) == 0);
    CHECK(bsd_client_keystream(cl, sid, ctr, bl, 3, 0) == 0);
    CHECK(bsd_client_keystream(cl, sid, ctr, bl, 4, 0) == -EREMOTEIO);
    CHECK(bsd_client_last_error(cl, NULL) == BSD_E_COUNTER_WRAP);
    bsd_client_close(cl);

    /* The stream delivers exactly the three blocks, then fails at that position. */
    bsd_stream *s;
    bsd_stream_opts so = {dmn.socket, 1000, 5000, 0, 0, BSD_OFFLOAD_ALWAYS, NULL};
    uint8_t buf[200];
    CHECK(bsd_stream_open(&so, c, key, c->key_len, ctr, &s) == 0);
    CHECK(bsd_stream_read(s, svc_schedule(c, key), buf, 3 * bl - 1) == 0);
    CHECK(bsd_stream_read(s, svc_schedule(c, key), buf, 2) != 0);
    CHECK(bsd_stream_position(s) == 3 * bl);
    bsd_stream_close(s);
}

/* After fork(), parent and child each continue their own copy of the stream correctly. */
static void forked(const bs_block_cipher *c)
{
    uint8_t key[64], ctr[32] = {0};
    svc_fill(key, sizeof key, 99);
    const size_t total = 300000, first = 100003;
    uint8_t *want = (uint8_t *)malloc(total), *got = (uint8_t *)malloc(total);
    CHECK(want != NULL && got != NULL);
    expected(c, key, ctr, want, total);
    bsd_stream_opts so = {dmn.socket, 1000, 10000, 32768, 3, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s;
    CHECK(bsd_stream_open(&so, c, key, c->key_len, ctr, &s) == 0);
    CHECK(bsd_stream_read(s, svc_schedule(c, key), got, first) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    int rc = bsd_stream_read(s, svc_schedule(c, key), got + first, total - first);
    int ok = rc == 0 && memcmp(got, want, total) == 0;
    if (!ok) {
        const char *text = NULL;
        (void)bsd_stream_error(s, &text);
        fprintf(stderr, "forked: %s: read %d (%s), %s, %llu mismatches\n",
                pid == 0 ? "child" : "parent", rc, strerror(rc < 0 ? -rc : 0),
                rc == 0        ? "wrong bytes"
                : text != NULL ? text
                               : "?",
                (unsigned long long)bsd_stream_mismatches());
    }
    bsd_stream_close(s);
    if (pid == 0)
        _exit(ok ? 0 : 1);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(ok);
    free(want);
    free(got);
}

int main(void)
{
    const bs_block_cipher *ciphers[16];
    size_t nc = svc_ciphers(ciphers, 16);
    if (nc == 0) {
        fprintf(stderr, "no cipher compiled in\n");
        return SVC_SKIP;
    }
    svc_init(&dmn);
    svc_start(&dmn, NULL, NULL);
    static const size_t pieces_small[] = {1, 3, 7, 16, 100, 4096, 17, 65536 + 13};
    static const size_t pieces_big[] = {4096};
    for (size_t i = 0; i < nc; i++) {
        const bs_block_cipher *c = ciphers[i];
        size_t bl = c->block_len;
        const size_t sizes[] = {1, bl - 1, bl, bl + 1, 1000, 4096, 65537, (1u << 20) + 3};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            direct(c, sizes[k]);
            streamed(c, sizes[k], pieces_small, sizeof pieces_small / sizeof pieces_small[0]);
        }
        /* openssl enc's 4 KiB updates over several windows. */
        streamed(c, (3u << 20) + 5, pieces_big, 1);
        /* the largest request the default max_request_bytes (64 MiB) allows, in whole blocks */
        direct(c, ((size_t)64 << 20) / bl * bl);
        wrap(c);
        printf("%s (%s): ok\n", c->name, c->impl);
    }
    forked(ciphers[0]);
    char st[16384];
    CHECK(svc_status(&dmn, st, sizeof st) == 0);
    /* The direct requests that would wrap, and nothing else. */
    CHECK(svc_status_value(st, "errors.11") == (long long)nc);
    CHECK(svc_status_value(st, "errors_total") == (long long)nc);
    CHECK(svc_stop(&dmn) == 0);
    svc_cleanup(&dmn);
    return 0;
}
