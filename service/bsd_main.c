/* bitsliced: the keystream daemon. See service/README.md and service/proto/PROTOCOL.md. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bsd_conn.h"
#include "bsd_daemon.h"
#include "bsd_handlers.h"
#include "bsd_integrity.h"
#include "bsd_listen.h"
#include "bsd_log.h"
#include "bsd_sd.h"
#include "bs_opt.h"

#ifndef BS_VERSION
#define BS_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    bsd_config d;
    bsd_config_defaults(&d);
    fprintf(f,
            "usage: bitsliced [--config FILE] [--socket PATH] [--set KEY=VALUE]... [--check]\n"
            "       bitsliced --help | --version\n"
            "The bitslice keystream daemon (bitsliced(8)).\n"
            "  -c, --config FILE     settings, key = value lines ('-': standard input); every\n"
            "                        key and its default: bitsliced(8), and the example\n"
            "                        bitsliced.conf\n"
            "  -s, --socket PATH     listening socket (default %s:\n"
            "                        $XDG_RUNTIME_DIR/bitslice/bitsliced.sock, else\n"
            "                        /run/bitslice/bitsliced.sock; systemd socket activation\n"
            "                        wins)\n"
            "  -o, --set KEY=VALUE   one setting, applied after the file\n"
            "  -t, --check           validate the settings, print the main ones and exit\n"
            "Defaults: backend=%s threads=%u (0: one per CPU) max_clients=%u "
            "max_sessions_total=%u\n"
            "          batch_deadline_us=%u batch_max_requests=%u memlock=try log_level=info\n"
            "Allowed peers by default: the daemon's own uid only (allow_uids, allow_gids).\n",
            d.socket_path, d.backend, d.threads, d.max_clients, d.max_sessions_total,
            d.batch_deadline_us, d.batch_max_requests);
}

static void walk_close(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

/* Finishes the shutdown once draining and nothing is in flight (also the batcher's on_idle). */
static void maybe_finish(void *arg)
{
    bsd_daemon *d = (bsd_daemon *)arg;
    if (d->draining != BSD_DRAINING || d->inflight_jobs > 0 || d->batcher.inflight_batches > 0)
        return;
    d->draining = BSD_DRAINED;
    BSD_INFO("drained", "bytes_served=%llu batches=%llu", (unsigned long long)d->stats.bytes_served,
             (unsigned long long)d->stats.batches_total);
    bsd_conn_close_all(d);
    bsd_batcher_close(&d->batcher);
    uv_timer_stop(&d->drain_timer);
    uv_close((uv_handle_t *)&d->drain_timer, NULL);
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->sigint, NULL);
    /*
     * Closing a signal handle gives the signal back its default action, which would kill the
     * daemon mid-teardown (socket left behind, a clean exit reported as death by signal) if a
     * second SIGTERM came now, as from a supervisor or a user who sends it twice. The shutdown
     * is under way: ignore them.
     */
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
}

static void on_drain_timeout(uv_timer_t *t)
{
    bsd_daemon *d = (bsd_daemon *)t->data;
    BSD_ERR("drain_timeout", "inflight_jobs=%u action=exit", d->inflight_jobs);
    /* Workers may still be running on the schedules: wipe and leave without joining them. */
    explicit_bzero(d->keys.base, d->keys.map_len);
    bsd_listen_unlink(d);
    _exit(1);
}

static void on_signal(uv_signal_t *s, int signum)
{
    bsd_daemon *d = (bsd_daemon *)s->data;
    if (d->draining)
        return;
    BSD_INFO("shutdown", "signal=%d inflight_jobs=%u queued_jobs=%zu", signum, d->inflight_jobs,
             bsd_batcher_queued_jobs(&d->batcher));
    d->draining = BSD_DRAINING;
    bsd_sd_notify("STOPPING=1");
    bsd_listen_stop(d);
    bsd_conn_stop_timeouts(d);
    uv_timer_start(&d->drain_timer, on_drain_timeout, d->cfg.drain_timeout_ms, 0);
    bsd_batcher_flush_all(&d->batcher);
    maybe_finish(d);
}

/*
 * Keys must never reach a core file or a ptrace-capable peer of the same uid: a daemon that
 * cannot make sure of it does not start. Lowering one's own limits and dumpable flag cannot be
 * refused on Linux, so a failure here means something is badly wrong.
 */
static int harden(char *err, size_t errlen)
{
    struct rlimit rl = {0, 0};
    if (setrlimit(RLIMIT_CORE, &rl) != 0) {
        snprintf(err, errlen, "setrlimit(RLIMIT_CORE, 0): %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        snprintf(err, errlen, "prctl(PR_SET_DUMPABLE, 0): %s", strerror(errno));
        return -1;
    }
    /* Read back: the flag is what keeps a same-uid ptrace and /proc/PID/mem away. */
    int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
    if (dumpable != 0) {
        if (dumpable < 0)
            snprintf(err, errlen, "prctl(PR_GET_DUMPABLE): %s", strerror(errno));
        else
            snprintf(err, errlen, "still dumpable (%d) after prctl(PR_SET_DUMPABLE, 0)", dumpable);
        return -1;
    }
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
        snprintf(err, errlen, "ignoring SIGPIPE: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * The command line into cfg: --help and --version win over everything else, even an unreadable
 * config; then the config file, then the flags that override it, in their order. Returns -1 to
 * go on, or the exit status (0 after --help or --version, 2 for a refused line or setting).
 */
static int parse_args(int argc, char **argv, bsd_config *cfg, int *check_only)
{
    static const struct option lo[] = {
        {"config", required_argument, 0, 'c'},
        {"socket", required_argument, 0, 's'},
        {"set", required_argument, 0, 'o'},
        {"check", no_argument, 0, 't'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    static const char *const so = ":c:s:o:thV";
    char err[512];
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c == 'V') {
            printf("bitsliced %s\n", BS_VERSION);
            return 0;
        }
        if (c == '?' || c == ':')
            return bs_opt_error("bitsliced", "bitsliced", c, argv);
    }
    if (optind < argc)
        return bs_usage_error("bitsliced", "bitsliced", "unexpected argument", argv[optind]);
    optind = 0;
    while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1)
        if (c == 'c' && bsd_config_load(cfg, optarg, err, sizeof err) != 0) {
            fprintf(stderr, "bitsliced: %s\n", err);
            return 2;
        }
    optind = 0;
    while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
        if (c == 's' && bsd_config_set(cfg, "socket", optarg, err, sizeof err) != 0) {
            fprintf(stderr, "bitsliced: %s\n", err);
            return 2;
        }
        if (c == 't')
            *check_only = 1;
        if (c == 'o') {
            if (bsd_config_set_kv(cfg, optarg, err, sizeof err) != 0) {
                fprintf(stderr, "bitsliced: %s\n", err);
                return 2;
            }
        }
    }
    return -1;
}

/* --check: the main settings, as the daemon would run with them. */
static void report_check(const bsd_config *cfg)
{
    printf("socket=%s backend=%s\n", cfg->socket_path, cfg->backend);
    bsd_config_print_allow(cfg, stdout);
    bsd_config_print_shares(cfg, stdout);
}

/*
 * Everything before the loop: hardening, the key pool, the backend and batcher, the socket,
 * the signals; logs why it cannot start (1) or that it is ready (0).
 */
static int start(bsd_daemon *d)
{
    char err[512];
    bsd_log_set_debug(d->cfg.log_debug);
    if (harden(err, sizeof err) != 0) {
        BSD_ERR("start", "reason=\"%s\"", err);
        return 1;
    }
    const char *fault = bsd_fault_init();
    if (fault != NULL)
        BSD_WARN("test_fault",
                 "mode=%s reason=\"BSD_TEST_FAULT is set: this daemon corrupts its "
                 "own keystream on purpose (tests only)\"",
                 fault);
    d->loop = uv_default_loop();
    d->listen_fd = -1;
    d->stats.start_ns = bsd_now_ns();
    if (bsd_keypool_init(&d->keys, d->cfg.max_sessions_total, d->cfg.memlock, err, sizeof err) !=
        0) {
        BSD_ERR("start", "reason=\"%s\"", err);
        return 1;
    }
    if (d->keys.dontdump_errno != 0)
        BSD_WARN("dontdump",
                 "reason=\"madvise(MADV_DONTDUMP) of the key pool: %s; core dumps are off "
                 "(RLIMIT_CORE 0, not dumpable) all the same\"",
                 strerror(d->keys.dontdump_errno));
    if (!d->keys.locked && d->cfg.memlock != BSD_MEMLOCK_OFF)
        BSD_WARN("memlock", "locked=0 reason=\"%s\"",
                 d->keys.lock_note != NULL ? d->keys.lock_note : "mlock failed");
    d->backend = bsd_backend_create(d->cfg.backend, d->loop, d->cfg.threads);
    d->on_request = bsd_handle_request;
    d->on_close = bsd_handle_conn_closed;
    if (d->backend == NULL || bsd_batcher_init(&d->batcher, d->loop, &d->cfg, d->backend, &d->stats,
                                               bsd_handle_job_done, maybe_finish, d) != 0) {
        BSD_ERR("start", "reason=\"backend or batcher init failed\"");
        return 1;
    }
    if (bsd_listen_open(d, err, sizeof err) != 0) {
        BSD_ERR("start", "reason=\"%s\"", err);
        return 1;
    }
    uv_timer_init(d->loop, &d->drain_timer);
    d->drain_timer.data = d;
    uv_signal_init(d->loop, &d->sigterm);
    uv_signal_init(d->loop, &d->sigint);
    d->sigterm.data = d->sigint.data = d;
    uv_signal_start(&d->sigterm, on_signal, SIGTERM);
    uv_signal_start(&d->sigint, on_signal, SIGINT);
    if (bsd_listen_start(d) != 0 || bsd_conn_start_timeouts(d) != 0) {
        BSD_ERR("start", "reason=\"cannot watch the socket\"");
        return 1;
    }
    char dev[BSD_DESCRIBE_MAX];
    d->backend->ops->describe(d->backend, dev, sizeof dev);
    BSD_INFO("ready", "backend=%s %s keys_locked=%d batch_deadline_us=%u pid=%d",
             d->backend->ops->name, dev, d->keys.locked, d->cfg.batch_deadline_us, (int)getpid());
    /* Type=notify: the unit is started once the socket is served (sd_notify(3)). */
    int nr = bsd_sd_notify("READY=1");
    if (nr < 0)
        BSD_WARN("notify", "state=READY reason=\"%s\"", strerror(-nr));
    return 0;
}

/* The loop until the drain finishes (on_signal, maybe_finish), then the teardown. */
static void run(bsd_daemon *d)
{
    uv_run(d->loop, UV_RUN_DEFAULT);
    /* Anything left (nothing, normally) is closed so that uv_loop_close succeeds. */
    uv_walk(d->loop, walk_close, NULL);
    uv_run(d->loop, UV_RUN_DEFAULT);
    uv_loop_close(d->loop);
    d->backend->ops->destroy(d->backend);
    bsd_keypool_destroy(&d->keys);
    bsd_peers_free(&d->peers);
    BSD_INFO("exit", "code=0");
}

int main(int argc, char **argv)
{
    static bsd_daemon daemon_state;
    bsd_daemon *d = &daemon_state;
    int check_only = 0;
    bsd_config_defaults(&d->cfg);
    const int rc = parse_args(argc, argv, &d->cfg, &check_only);
    if (rc >= 0)
        return rc;
    if (check_only) {
        report_check(&d->cfg);
        return 0;
    }
    if (start(d) != 0)
        return 1;
    run(d);
    return 0;
}
