/*
 * Fair share between local users: one uid cannot take every client slot or key slot (per-uid
 * caps; another allowed uid is still served), a connection that never says HELLO or sits idle
 * is closed after its timeout, and the queued jobs of a connection that closed are cancelled
 * instead of computed for nobody. The other-uid part needs root (skipped otherwise).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bsd_client.h"
#include "svc_util.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long status_of(const svc_daemon *d, const char *key)
{
    static char text[16384];
    CHECK(svc_status(d, text, sizeof text) == 0);
    return svc_status_value(text, key);
}

static int raw_connect(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    return fd;
}

/* Milliseconds until the daemon closes fd (reading and dropping what it sends), or -1. */
static long closed_after(int fd, long max_ms)
{
    for (long t = 0; t < max_ms; t += 50) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 50) == 1) {
            char b[256];
            if (recv(fd, b, sizeof b, 0) <= 0)
                return t;
        }
    }
    return -1;
}

static const bs_block_cipher *cipher(void)
{
    const bs_block_cipher *c = bs_block_cipher_by_name("PRESENT-80");
    if (c == NULL)
        c = bs_block_cipher_by_name("RIJNDAEL-256");
    CHECK(c != NULL);
    return c;
}

static void caps(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"allow_uids=0,65534",     "max_clients=8",
                                       "max_clients_per_uid=3",  "max_sessions_total=8",
                                       "max_sessions_per_uid=4", NULL};
    svc_start(&d, NULL, sets);
    const bs_block_cipher *c = cipher();
    bsd_client_opts o = {d.socket, 1000, 5000};
    bsd_client *cl[4];
    uint8_t key[32] = {7};
    uint32_t sid;
    for (int i = 0; i < 3; i++)
        CHECK(bsd_client_connect(&o, &cl[i]) == 0);
    /* The fourth connection of the same uid: refused, the daemon has room for others. */
    int r = bsd_client_connect(&o, &cl[3]);
    CHECK(r == -EREMOTEIO || r == -EPIPE || r == -ECONNRESET);
    int sessions = 0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++)
            sessions += bsd_client_open_session(cl[i], c->name, key, c->key_len, &sid, NULL) == 0;
    CHECK(sessions == 4);
    CHECK(bsd_client_last_error(cl[2], NULL) == BSD_E_TOO_MANY_SESSIONS);
    /* STATUS through a connection we have: a new one would be over the cap too. */
    static char text[16384];
    CHECK(bsd_client_status(cl[0], text, sizeof text) == 0);
    CHECK(svc_status_value(text, "per_uid_refusals") >= 2);
    printf("one uid: 3 connections and 4 key slots of 8, then refused (max_*_per_uid)\n");
    if (geteuid() == 0 && system("setpriv --version >/dev/null 2>&1") == 0) {
        /* Another allowed uid still gets a connection and a key slot. */
        CHECK(chmod(d.dir, 0711) == 0);
        char run[128];
        snprintf(run, sizeof run, "%s/run", d.dir);
        CHECK(chmod(run, 0711) == 0 && chmod(d.socket, 0666) == 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(3);
            bsd_client *other;
            if (bsd_client_connect(&o, &other) != 0)
                _exit(1);
            _exit(bsd_client_open_session(other, c->name, key, c->key_len, &sid, NULL) == 0 ? 0
                                                                                            : 2);
        }
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        printf("another uid (65534): connected and got a key slot\n");
    }
    for (int i = 0; i < 3; i++)
        bsd_client_close(cl[i]);
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

static void timeouts(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"hello_timeout_ms=300", "idle_timeout_ms=700", NULL};
    svc_start(&d, NULL, sets);
    /* Connected, never says HELLO: closed after about 300 ms (bounded poll, 10 s). */
    int fd = raw_connect(d.socket);
    long t = closed_after(fd, 10000);
    close(fd);
    CHECK(t >= 0);
    printf("no HELLO: closed after %ld ms (hello_timeout_ms=300)\n", t);
    /*
     * Says HELLO, then nothing: closed after about 700 ms; one that keeps asking meanwhile
     * stays. The idle one is polled with a bound; the busy one's gaps between requests are
     * measured, and it must still be served only when every gap was well inside the timeout
     * (a stalled test process proves nothing about the daemon).
     */
    bsd_client_opts o = {d.socket, 1000, 5000};
    bsd_client *idle, *busy;
    CHECK(bsd_client_connect(&o, &idle) == 0);
    CHECK(bsd_client_connect(&o, &busy) == 0);
    char text[16384];
    long long last = now_ms(), max_gap = 0, t0 = last;
    int closed = 0;
    while (!closed && now_ms() - t0 < 10000) {
        closed = closed_after(bsd_client_fd(idle), 50) >= 0;
        long long now = now_ms();
        if (now - last > max_gap)
            max_gap = now - last;
        CHECK(bsd_client_status(busy, text, sizeof text) == 0 || max_gap >= 350);
        last = now_ms();
    }
    CHECK(closed);
    printf("idle after HELLO: closed after about %lld ms (idle_timeout_ms=700); a connection "
           "asking meanwhile (longest gap %lld ms) stayed\n",
           now_ms() - t0, max_gap);
    bsd_client_close(idle);
    bsd_client_close(busy);
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

/*
 * Deterministic, whatever the machine's speed: the daemon is stopped (SIGSTOP) while the client
 * sends its 21 KEYSTREAM requests and closes, so that on SIGCONT the daemon reads all of them and
 * the end of the stream in one wake-up. The first job goes to the only backend slot at once; the
 * 20 behind it can only queue (one batch in flight, one request a batch); the end of the stream
 * comes before the loop can see the first job finish. Every queued job must be cancelled, and
 * only the first one computed, however fast the backend is.
 */
static void cancel_queued(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"threads=1", "max_inflight_batches=1",
                                       "batch_max_requests=1", "batch_deadline_us=0", NULL};
    svc_start(&d, NULL, sets);
    const bs_block_cipher *c = cipher();
    bsd_client_opts o = {d.socket, 1000, 60000};
    bsd_client *cl;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_map_shm(cl, (size_t)1 << 22) == 0);
    uint8_t key[32] = {9}, ctr[32] = {0};
    uint32_t sid, rid;
    CHECK(bsd_client_open_session(cl, c->name, key, c->key_len, &sid, NULL) == 0);
    const long long batched0 = status_of(&d, "batched_jobs_total");
    int st;
    CHECK(kill(d.pid, SIGSTOP) == 0);
    CHECK(waitpid(d.pid, &st, WUNTRACED) == d.pid && WIFSTOPPED(st));
    const int queued = 20;
    for (int i = 0; i <= queued; i++) {
        ctr[0] = (uint8_t)i;
        CHECK(bsd_client_keystream_submit(cl, sid, ctr, c->block_len, 65536 / c->block_len,
                                          (uint64_t)i * 65536, &rid) == 0);
    }
    bsd_client_close(cl);
    CHECK(kill(d.pid, SIGCONT) == 0);
    /* Bounded poll: the one job on the backend finishes, the others are dropped. */
    for (int i = 0;
         i < 1000 && (status_of(&d, "inflight_jobs") != 0 || status_of(&d, "queued_jobs") != 0);
         i++)
        sleep_ms(10);
    CHECK(status_of(&d, "inflight_jobs") == 0);
    CHECK(status_of(&d, "queued_jobs") == 0);
    CHECK(status_of(&d, "cancelled_jobs") == queued);
    CHECK(status_of(&d, "batched_jobs_total") - batched0 == 1);
    printf("connection closed with %d jobs queued: all cancelled, none computed\n", queued);
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

int main(void)
{
    caps();
    timeouts();
    cancel_queued();
    return 0;
}
