/*
 * The daemon's handlers with a backend that keeps each session's key (bsd_backend_ops.open_key and
 * close_key, as the CUDA backend keeps them on its devices): OPEN hands the backend the session's
 * schedule and the session keeps the handle; a KEYSTREAM job carries it to the backend; CLOSE with
 * a job in flight closes the key only once that job is done; the end of a connection closes its
 * sessions' keys; a session the backend keeps nothing for (handle 0) is never closed there.
 * The daemon's own bsd_conn.c and bsd_handlers.c over a socketpair: no socket file, no process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "bsd_conn.h"
#include "bsd_handlers.h"

static int opens, closes, submits, refuse;
static uint32_t closed[8], job_key;
static const bs_key_schedule *opened_ks;
static bsd_batch *held;

static uint32_t fake_open_key(bsd_backend *be, const bs_block_cipher *cipher,
                              const bs_key_schedule *ks)
{
    (void)be;
    assert_string_equal(cipher->name, "PRESENT-80");
    opened_ks = ks;
    opens++;
    return refuse ? 0 : 40 + (uint32_t)opens;
}

static void fake_close_key(bsd_backend *be, uint32_t handle)
{
    (void)be;
    assert_true(closes < 8);
    closed[closes++] = handle;
}

static int fake_submit(bsd_backend *be, bsd_batch *b)
{
    (void)be;
    submits++;
    job_key = b->jobs[0]->dev_key;
    held = b;
    return 0;
}

static void fake_describe(bsd_backend *be, char *out, size_t len)
{
    (void)be;
    snprintf(out, len, "device=fake");
}

static void fake_destroy(bsd_backend *be)
{
    (void)be;
}

static const bsd_backend_ops fake_ops = {.name = "fake",
                                         .submit = fake_submit,
                                         .describe = fake_describe,
                                         .destroy = fake_destroy,
                                         .open_key = fake_open_key,
                                         .close_key = fake_close_key};

static void on_idle(void *arg)
{
    (void)arg;
}

static void request(bsd_conn *c, uint8_t op, bsd_request *r)
{
    static uint32_t id;
    r->hdr.op = op;
    r->hdr.id = ++id;
    bsd_handle_request(c, r);
}

static bsd_session *open_session(bsd_conn *c)
{
    bsd_request r;
    memset(&r, 0, sizeof r);
    strcpy(r.u.open.cipher, "PRESENT-80");
    r.u.open.key_len = 10;
    memset(r.u.open.key, 0x5a, 10);
    const unsigned n = c->nsessions;
    request(c, BSD_OP_OPEN_SESSION, &r);
    assert_int_equal(c->nsessions, n + 1);
    return c->sessions[n];
}

static void close_session(bsd_conn *c, uint32_t id)
{
    bsd_request r;
    memset(&r, 0, sizeof r);
    r.u.close.session = id;
    request(c, BSD_OP_CLOSE_SESSION, &r);
}

/* A KEYSTREAM of the session, run until the batcher hands it to the backend (bounded). */
static void keystream(uv_loop_t *loop, bsd_conn *c, uint32_t id)
{
    bsd_request r;
    memset(&r, 0, sizeof r);
    r.u.keystream.session = id;
    r.u.keystream.nblocks = 4;
    const int before = submits;
    request(c, BSD_OP_KEYSTREAM, &r);
    for (int i = 0; i < 10000 && submits == before; i++)
        uv_run(loop, UV_RUN_ONCE);
    assert_int_equal(submits, before + 1);
}

/* The backend finishes the batch it holds (with an error: no bytes are needed here). */
static void finish(void)
{
    bsd_batch *b = held;
    held = NULL;
    assert_non_null(b);
    b->done(b, -EIO);
}

static void test_session_keys(void **state)
{
    (void)state;
    static bsd_daemon d;
    uv_loop_t loop;
    char err[256];
    assert_int_equal(uv_loop_init(&loop), 0);
    bsd_config_defaults(&d.cfg);
    d.loop = &loop;
    d.listen_fd = -1;
    assert_int_equal(bsd_keypool_init(&d.keys, 8, BSD_MEMLOCK_OFF, err, sizeof err), 0);
    bsd_backend be = {.ops = &fake_ops, .loop = &loop};
    d.backend = &be;
    d.on_request = bsd_handle_request;
    d.on_close = bsd_handle_conn_closed;
    assert_int_equal(bsd_batcher_init(&d.batcher, &loop, &d.cfg, &be, &d.stats, bsd_handle_job_done,
                                      on_idle, &d),
                     0);
    /* Replies are flushed before the loop blocks, as in the daemon. */
    assert_int_equal(bsd_conn_start_timeouts(&d), 0);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    struct ucred cred = {getpid(), getuid(), getgid()};
    bsd_conn *c = bsd_conn_new(&d, sv[0], &cred);
    assert_non_null(c);
    c->hello_done = 1;
    /* A mapping for the jobs' destinations, as a client's MAP_SHM leaves it. */
    int fd = memfd_create("session-keys", MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 65536), 0);
    assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
    c->pending_fd = fd;
    bsd_request r;
    memset(&r, 0, sizeof r);
    r.u.map_shm.size = 65536;
    request(c, BSD_OP_MAP_SHM, &r);
    assert_non_null(c->shm);

    /* OPEN: the backend gets the session's own schedule; the session keeps the handle. */
    bsd_session *s = open_session(c);
    assert_int_equal(opens, 1);
    assert_ptr_equal(opened_ks, s->ks);
    assert_int_equal(s->dev_key, 41);
    const uint32_t id1 = s->id;
    /* Its job carries the handle; CLOSE while it is in flight waits for the job. */
    keystream(&loop, c, id1);
    assert_int_equal(job_key, 41);
    close_session(c, id1);
    assert_int_equal(closes, 0);
    finish();
    assert_int_equal(closes, 1);
    assert_int_equal(closed[0], 41);

    /* A session the backend keeps nothing for: its jobs carry 0, CLOSE asks nothing. */
    refuse = 1;
    s = open_session(c);
    assert_int_equal(s->dev_key, 0);
    keystream(&loop, c, s->id);
    assert_int_equal(job_key, 0);
    finish();
    close_session(c, s->id);
    assert_int_equal(closes, 1);
    refuse = 0;

    /* The end of the connection closes the keys of the sessions it still had. */
    s = open_session(c);
    assert_int_equal(s->dev_key, 43);
    bsd_conn_close(c, "test");
    assert_int_equal(closes, 2);
    assert_int_equal(closed[1], 43);
    for (int i = 0; i < 100 && d.nconns > 0; i++)
        uv_run(&loop, UV_RUN_NOWAIT);
    assert_int_equal(d.nconns, 0);
    close(sv[1]);
    bsd_conn_stop_timeouts(&d);
    uv_close((uv_handle_t *)&d.flush, NULL);
    bsd_batcher_close(&d.batcher);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    bsd_keypool_destroy(&d.keys);
    bsd_peers_free(&d.peers);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
