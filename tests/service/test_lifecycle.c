/*
 * The daemon at its operating limits:
 *  - out of file descriptors: max_clients above RLIMIT_NOFILE is clamped at start (with a
 *    warning); when accept() then fails with EMFILE anyway (the limit lowered under the running
 *    daemon), the daemon stops listening for a short pause instead of spinning: little CPU, a
 *    few log lines, and it accepts again once descriptors are back;
 *  - restart over a live socket: an old daemon whose drain times out after a new daemon bound
 *    the same path leaves the new daemon's socket alone.
 * Needs prlimit (util-linux).
 */
#include <dirent.h>
#include <errno.h>
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

/* utime + stime of a process, in clock ticks. */
static long long cpu_ticks(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');
    CHECK(p != NULL);
    long long ut = 0, st = 0;
    /* Fields after the command: state is 3, utime 14, stime 15. */
    CHECK(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld", &ut, &st) == 2);
    return ut + st;
}

static int open_fds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *dir = opendir(path);
    CHECK(dir != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

static size_t count_in_file(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[1024];
    size_t n = 0;
    while (fgets(line, sizeof line, f) != NULL)
        n += strstr(line, needle) != NULL;
    fclose(f);
    return n;
}

static int raw_connect(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void out_of_fds(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const pre[] = {"prlimit", "--nofile=64:64", NULL};
    static const char *const sets[] = {"max_clients=1000", NULL};
    svc_start(&d, pre, sets);
    CHECK(svc_status_of(&d, "max_clients") == 64 - 32);
    CHECK(count_in_file(d.log, "event=max_clients configured=1000 clamped=32") == 1);
    printf("max_clients=1000 with RLIMIT_NOFILE 64: clamped to 32, with a warning\n");

    /* Now fewer descriptors than it has use for: a few connections take the last ones. */
    const int have = open_fds(d.pid);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "prlimit --pid %d --nofile=%d:64", (int)d.pid, have + 2);
    CHECK(system(cmd) == 0);
    int fds[40], nfd = 0;
    const long long t0 = cpu_ticks(d.pid);
    for (int i = 0; i < 40; i++) {
        int fd = raw_connect(d.socket);
        if (fd >= 0)
            fds[nfd++] = fd;
    }
    /* The first warning comes at the first failed accept (bounded poll); then 1.5 s more. */
    const long long w0 = svc_now_ms();
    for (int i = 0; i < 1000 && count_in_file(d.log, "event=accept errno=") == 0; i++)
        svc_sleep_ms(10);
    svc_sleep_ms(1500);
    const long long used = cpu_ticks(d.pid) - t0;
    const long long waited = svc_now_ms() - w0;
    const long hz = sysconf(_SC_CLK_TCK);
    const size_t warned = count_in_file(d.log, "event=accept errno=");
    printf("out of fds with %d connections waiting: %lld ticks of CPU in %lld ms (%ld a second), "
           "%zu warnings\n",
           nfd, used, waited, hz, warned);
    CHECK(nfd > 4);
    /* At most one a second (and the first): however long the test itself was held up. */
    CHECK(warned >= 1 && (long long)warned <= waited / 1000 + 2);
    CHECK(used < hz * waited / 1000 / 3); /* a spinning accept loop takes all of it */
    for (int i = 0; i < nfd; i++)
        close(fds[i]);
    snprintf(cmd, sizeof cmd, "prlimit --pid %d --nofile=64:64", (int)d.pid);
    CHECK(system(cmd) == 0);
    /* Descriptors back: it accepts again, after its pause (bounded poll; a refusal while the
     * closed connections still hold their slots is not an answer yet). */
    static char text[16384];
    for (int i = 0; i < 1000 && (svc_status(&d, text, sizeof text) != 0 ||
                                 svc_status_value(text, "accepting") != 1);
         i++)
        svc_sleep_ms(10); /* meanwhile it takes and drops the 40 closed connections */
    CHECK(svc_status_of(&d, "accept_out_of_fds") > 0);
    CHECK(svc_status_of(&d, "accepting") == 1);
    printf("descriptors back: accepting again (accept_out_of_fds=%lld)\n",
           svc_status_of(&d, "accept_out_of_fds"));
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

/*
 * Daemon A drains a long job after SIGTERM; B starts on the same path meanwhile; A's drain
 * times out and A exits: B's socket must still be there and serve.
 */
static void restart_over_live_socket(void)
{
    /* A's job must outlast its drain timeout on any machine: the slowest core, at the
     * portable level, on one thread, over 1 GiB (PRESENT-80 with AVX-512 finished 256 MiB
     * inside the 300 ms on a quiet machine). */
    const bs_block_cipher *c = bs_block_cipher_by_name("SKINNY-128-384");
    if (c == NULL)
        c = bs_block_cipher_by_name("PRESENT-80");
    if (c == NULL)
        c = bs_block_cipher_by_name("RIJNDAEL-256");
    CHECK(c != NULL);
    svc_daemon a;
    svc_init(&a);
    static const char *const sets[] = {"max_request_bytes=1073741824",
                                       "max_shm_bytes=1073741824",
                                       "max_queued_bytes=1073741824",
                                       "drain_timeout_ms=300",
                                       "threads=1",
                                       NULL};
    setenv("BITSLICE_CPU", "portable", 1);
    svc_start(&a, NULL, sets);
    unsetenv("BITSLICE_CPU");
    bsd_client_opts o = {a.socket, 1000, 60000};
    bsd_client *cl = NULL;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_map_shm(cl, (size_t)1 << 30) == 0);
    uint8_t key[BS_KEY_MAX] = {1}, ctr[32] = {0};
    uint32_t sid, rid;
    CHECK(bsd_client_open_session(cl, c->name, key, c->key_len, &sid, NULL) == 0);
    CHECK(bsd_client_keystream_submit(cl, sid, ctr, c->block_len,
                                      ((uint64_t)1 << 30) / c->block_len, 0, &rid) == 0);
    /* SIGTERM only once the job is in flight (a draining daemon would refuse it). */
    for (int i = 0; i < 1000 && svc_status_of(&a, "inflight_jobs") != 1; i++)
        svc_sleep_ms(10);
    CHECK(svc_status_of(&a, "inflight_jobs") == 1);
    CHECK(kill(a.pid, SIGTERM) == 0);
    struct stat st;
    for (int i = 0; i < 1000 && lstat(a.socket, &st) == 0; i++)
        svc_sleep_ms(10);
    CHECK(lstat(a.socket, &st) != 0); /* A unlinked its own socket when it stopped listening */
    svc_daemon b = a;
    snprintf(b.log, sizeof b.log, "%s/daemon-b.log", a.dir);
    svc_start(&b, NULL, NULL);
    int status;
    CHECK(waitpid(a.pid, &status, 0) == a.pid);
    /* A left by its drain timeout, with its job unfinished. */
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(lstat(b.socket, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK(svc_status_of(&b, "draining") == 0);
    printf("old daemon's drain timed out after a new one bound the socket: the new socket "
           "stays and serves\n");
    bsd_client_close(cl);
    CHECK(svc_stop(&b) == 0);
    svc_cleanup(&b);
}

int main(void)
{
    if (system("prlimit --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "needs prlimit\n");
        return SVC_SKIP;
    }
    out_of_fds();
    restart_over_live_socket();
    return 0;
}
