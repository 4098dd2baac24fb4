#include "svc_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bsd_client.h"

static svc_daemon *current;

void svc_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

long long svc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long svc_status_of(const svc_daemon *d, const char *key)
{
    static char text[16384];
    CHECK(svc_status(d, text, sizeof text) == 0);
    return svc_status_value(text, key);
}

uint8_t *svc_shared_windows(size_t *len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    uint8_t *m = NULL;
    while (m == NULL && fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        if (strstr(line, "memfd:bitslice-keystream") != NULL &&
            sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
            m = (uint8_t *)lo;
            *len = hi - lo;
        }
    }
    fclose(f);
    return m;
}

void svc_fail_hook(void)
{
    if (current == NULL || current->log[0] == 0)
        return;
    /* The daemon holds the test's stdout pipe: it must not outlive a failed test. */
    if (current->pid > 0)
        kill(current->pid, SIGKILL);
    FILE *f = fopen(current->log, "r");
    if (f == NULL)
        return;
    fprintf(stderr, "--- daemon log (%s):\n", current->log);
    char line[1024];
    while (fgets(line, sizeof line, f) != NULL)
        fputs(line, stderr);
    fclose(f);
    svc_cleanup(current);
}

void svc_init(svc_daemon *d)
{
    memset(d, 0, sizeof *d);
    const char *tmp = getenv("TMPDIR");
    snprintf(d->dir, sizeof d->dir, "%s/bsd-test-XXXXXX", tmp != NULL ? tmp : "/tmp");
    CHECK(mkdtemp(d->dir) != NULL);
    snprintf(d->socket, sizeof d->socket, "%s/run/bitsliced.sock", d->dir);
    snprintf(d->log, sizeof d->log, "%s/daemon.log", d->dir);
    current = d;
}

void svc_start(svc_daemon *d, const char *const *prefix, const char *const *sets)
{
    const char *bin = getenv("BITSLICED");
    CHECK(bin != NULL);
    const char *argv[64];
    int n = 0;
    for (int i = 0; prefix != NULL && prefix[i] != NULL; i++)
        argv[n++] = prefix[i];
    argv[n++] = bin;
    argv[n++] = "--socket";
    argv[n++] = d->socket;
    argv[n++] = "--set";
    argv[n++] = "log_level=debug";
    for (int i = 0; sets != NULL && sets[i] != NULL && n < 60; i++) {
        argv[n++] = "--set";
        argv[n++] = sets[i];
    }
    argv[n] = NULL;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    d->pid = pid;
    /* Ready when the socket accepts a connection (a HELLO may be refused: see test_peer). */
    for (int i = 0; i < 1000; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", d->socket);
        int ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        close(fd);
        if (ok)
            return;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            d->pid = 0;
            fprintf(stderr, "bitsliced exited early (status %d)\n", st);
            CHECK(0);
        }
        svc_sleep_ms(10);
    }
    CHECK(!"daemon did not start");
}

int svc_stop(svc_daemon *d)
{
    if (d->pid <= 0)
        return -1;
    kill(d->pid, SIGTERM);
    int st = 0;
    while (waitpid(d->pid, &st, 0) < 0 && errno == EINTR) {
    }
    d->pid = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void svc_kill9(svc_daemon *d)
{
    if (d->pid <= 0)
        return;
    kill(d->pid, SIGKILL);
    int st;
    while (waitpid(d->pid, &st, 0) < 0 && errno == EINTR) {
    }
    d->pid = 0;
}

void svc_cleanup(svc_daemon *d)
{
    if (d->pid > 0)
        svc_kill9(d);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", d->dir);
    current = NULL;
}

long long svc_status_value(const char *status, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = status; p != NULL && *p;
         p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=')
            return strtoll(p + kl + 1, NULL, 10);
    }
    return -1;
}

int svc_status(const svc_daemon *d, char *out, size_t len)
{
    bsd_client_opts o = {d->socket, 1000, 5000};
    bsd_client *c;
    int r = bsd_client_connect(&o, &c);
    if (r != 0)
        return r;
    r = bsd_client_status(c, out, len);
    bsd_client_close(c);
    return r;
}

void svc_fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

const bs_key_schedule *svc_schedule(const bs_block_cipher *c, const uint8_t *key)
{
    static bs_key_schedule ks;
    c->set_key(&ks, key);
    return &ks;
}

size_t svc_ciphers(const bs_block_cipher **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL && n < max; i++) {
        const bs_block_cipher *c = bs_block_cipher_by_name(bs_block_ciphers[i]->name);
        int seen = 0;
        for (size_t j = 0; j < n; j++)
            seen |= out[j] == c;
        if (!seen)
            out[n++] = c;
    }
    return n;
}

long svc_rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}
