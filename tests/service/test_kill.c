/*
 * Daemon death and restarts:
 *  - SIGKILL mid-stream: the stream fails at an exact position; continuing in-process from
 *    bsd_stream_resume_point() with bs_ctr_keystream gives the full, correct keystream;
 *  - a restart on the same path removes the stale socket and serves again;
 *  - a second daemon on a live socket refuses to start;
 *  - SIGTERM drains: a request already accepted is still answered, then the daemon exits 0
 *    and unlinks its socket.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bsd_client.h"
#include "bsd_stream.h"
#include "modes/ctr.h"
#include "svc_util.h"

static svc_daemon dmn;
static bs_key_schedule ks;

static void keystream_from(const bs_block_cipher *c, const uint8_t *ctr, unsigned skip,
                           uint8_t *out, size_t len)
{
    size_t bl = c->block_len, nb = (skip + len + bl - 1) / bl;
    uint8_t *tmp = (uint8_t *)malloc(nb * bl);
    CHECK(tmp != NULL);
    bs_ctr_keystream(c, &ks, ctr, nb, tmp);
    memcpy(out, tmp + skip, len);
    free(tmp);
}

static void killed_mid_stream(const bs_block_cipher *c)
{
    const size_t total = 3u << 20, before_kill = 100003;
    uint8_t key[64], ctr[32] = {0};
    svc_fill(key, sizeof key, 42);
    svc_fill(ctr + 2, c->block_len - 2, 43);
    c->set_key(&ks, key);
    uint8_t *want = (uint8_t *)malloc(total), *got = (uint8_t *)malloc(total);
    CHECK(want != NULL && got != NULL);
    keystream_from(c, ctr, 0, want, total);
    memset(got, 0, total);

    bsd_stream_opts so = {dmn.socket, 1000, 5000, 65536, 3, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s;
    CHECK(bsd_stream_open(&so, c, key, c->key_len, ctr, &s) == 0);
    CHECK(bsd_stream_read(s, svc_schedule(c, key), got, before_kill) == 0);
    svc_kill9(&dmn);
    /* One large call: it delivers what was already computed, then fails. */
    int r = bsd_stream_read(s, svc_schedule(c, key), got + before_kill, total - before_kill);
    CHECK(r != 0);
    uint64_t pos = bsd_stream_position(s);
    CHECK(pos >= before_kill && pos < total);
    const char *why;
    CHECK(bsd_stream_error(s, &why) == r);
    printf("%s: daemon killed; stream stopped at byte %llu (%s)\n", c->name,
           (unsigned long long)pos, why);
    /* Later calls fail the same way and deliver nothing. */
    uint8_t one;
    CHECK(bsd_stream_read(s, svc_schedule(c, key), &one, 1) == r);
    CHECK(bsd_stream_position(s) == pos);
    uint8_t rctr[32];
    unsigned skip;
    bsd_stream_resume_point(s, rctr, &skip);
    bsd_stream_close(s);
    keystream_from(c, rctr, skip, got + pos, total - pos);
    CHECK(memcmp(got, want, total) == 0);
    free(want);
    free(got);
}

static void restart_serves(const bs_block_cipher *c)
{
    struct stat st;
    CHECK(lstat(dmn.socket, &st) == 0 && S_ISSOCK(st.st_mode)); /* left behind by SIGKILL */
    svc_start(&dmn, NULL, NULL);
    uint8_t key[64] = {7}, ctr[32] = {0}, got[5000], want[5000];
    c->set_key(&ks, key);
    keystream_from(c, ctr, 0, want, sizeof want);
    bsd_stream_opts so = {dmn.socket, 1000, 5000, 0, 0, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s;
    CHECK(bsd_stream_open(&so, c, key, c->key_len, ctr, &s) == 0);
    CHECK(bsd_stream_read(s, svc_schedule(c, key), got, sizeof got) == 0);
    CHECK(memcmp(got, want, sizeof got) == 0);
    bsd_stream_close(s);

    /* A second daemon on the live socket must refuse, and leave the first one working. */
    const char *bin = getenv("BITSLICED");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' --socket '%s' 2>>'%s'", bin, dmn.socket, dmn.log);
    int rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) != 0);
    char text[16384];
    CHECK(svc_status(&dmn, text, sizeof text) == 0);
}

static void sigterm_drains(const bs_block_cipher *c)
{
    const size_t bytes = (8u << 20) / c->block_len * c->block_len; /* whole blocks */
    uint8_t key[64] = {9}, ctr[32] = {0};
    bsd_client_opts o = {dmn.socket, 1000, 20000};
    bsd_client *cl;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_map_shm(cl, bytes) == 0);
    uint32_t sid, rid;
    CHECK(bsd_client_open_session(cl, c->name, key, c->key_len, &sid, NULL) == 0);
    CHECK(bsd_client_keystream_submit(cl, sid, ctr, c->block_len, bytes / c->block_len, 0, &rid) ==
          0);
    /* Make sure the daemon has the request before the signal: a STATUS after it is answered
     * after it was read. */
    char text[16384];
    CHECK(bsd_client_status(cl, text, sizeof text) == 0);
    kill(dmn.pid, SIGTERM);
    CHECK(bsd_client_wait(cl, rid, 20000) == 0);
    uint8_t *want = (uint8_t *)malloc(bytes);
    CHECK(want != NULL);
    c->set_key(&ks, key);
    keystream_from(c, ctr, 0, want, bytes);
    CHECK(memcmp(bsd_client_shm(cl, NULL), want, bytes) == 0);
    free(want);
    bsd_client_close(cl);
    CHECK(svc_stop(&dmn) == 0); /* already exiting; collects the status */
    struct stat st;
    CHECK(lstat(dmn.socket, &st) != 0 && errno == ENOENT);
}

int main(void)
{
    const bs_block_cipher *cs[16];
    size_t nc = svc_ciphers(cs, 16);
    if (nc == 0)
        return SVC_SKIP;
    svc_init(&dmn);
    for (size_t i = 0; i<nc; i += nc> 1 ? nc - 1 : 1) { /* the first and the last cipher */
        svc_start(&dmn, NULL, NULL);
        killed_mid_stream(cs[i]);
        restart_serves(cs[i]);
        sigterm_drains(cs[i]);
        if (nc == 1)
            break;
    }
    svc_cleanup(&dmn);
    return 0;
}
