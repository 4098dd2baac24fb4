/* bsd_offload.c: offload by cost (bsd_offload.h). */
#include "bsd_offload.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "digest/bs_digest.h"
#include "modes/ctr.h"

/*
 * The calibration: the cipher over CAL_BYTES (its cost is its passes, in cache), the daemon
 * path's one pass over a window of the stream's size (it reads the window out of memory another
 * core wrote, and costs more than in cache); the best of CAL_PASSES each.
 */
#define CAL_BYTES ((size_t)32 << 10)
#define CAL_WINDOW ((size_t)1 << 20)
#define CAL_PASSES 5
/* Pieces of the stream's windows (bsd_stream.c): one block recomputed in each. */
#define PIECE_BYTES 4096.0

int bsd_offload_mode_by_name(const char *name)
{
    if (name == NULL)
        return -1;
    if (strcmp(name, "auto") == 0)
        return BSD_OFFLOAD_AUTO;
    if (strcmp(name, "always") == 0)
        return BSD_OFFLOAD_ALWAYS;
    if (strcmp(name, "never") == 0)
        return BSD_OFFLOAD_NEVER;
    return -1;
}

const char *bsd_offload_mode_name(int mode)
{
    return mode == BSD_OFFLOAD_AUTO ? "auto" : mode == BSD_OFFLOAD_NEVER ? "never" : "always";
}

int bsd_offload_mode_env(int dflt, int *bad)
{
    const char *v = secure_getenv(BSD_OFFLOAD_ENV);
    int m = bsd_offload_mode_by_name(v);
    if (bad != NULL)
        *bad = v != NULL && m < 0;
    return m >= 0 ? m : dflt;
}

void bsd_offload_decide(int mode, const char *cipher, const bsd_offload_figures *f,
                        bsd_offload_decision *d)
{
    d->decided = 1;
    if (mode == BSD_OFFLOAD_ALWAYS || mode == BSD_OFFLOAD_NEVER) {
        d->daemon = mode == BSD_OFFLOAD_ALWAYS;
        snprintf(d->reason, sizeof d->reason, "%s: forced (offload=%s)",
                 d->daemon ? "daemon" : "in-process", bsd_offload_mode_name(mode));
        return;
    }
    d->daemon = 0;
    if (f->daemon_ns <= 0) {
        snprintf(d->reason, sizeof d->reason,
                 "in-process: the daemon gives no rate for %s (in-process %.3f ns/B)", cipher,
                 f->local_ns);
        return;
    }
    /*
     * The daemon path's time per byte: at least this thread's pass and the daemon's own time;
     * a CPU backend also needs its CPU time on this host's CPUs, which it shares with this
     * thread: the CPU time of both over the CPUs both can use.
     */
    double path = f->path_ns > f->daemon_ns ? f->path_ns : f->daemon_ns;
    char where[112];
    if (f->workers > 0) {
        const unsigned cpus = f->cpus > 0 ? f->cpus : 1;
        const unsigned avail = cpus < f->workers + 1 ? cpus : f->workers + 1;
        const double cpu_ns = f->path_ns + f->daemon_ns * f->workers;
        if (cpu_ns / avail > path)
            path = cpu_ns / avail;
        snprintf(where, sizeof where,
                 "cpu backend %.3f with %u workers: %.3f ns/B of CPU on %u CPU%s", f->daemon_ns,
                 f->workers, cpu_ns, avail, avail == 1 ? "" : "s");
    } else {
        snprintf(where, sizeof where, "device backend %.3f", f->daemon_ns);
    }
    d->daemon = path * BSD_OFFLOAD_MARGIN < f->local_ns;
    snprintf(d->reason, sizeof d->reason,
             "%s: %s in-process %.3f ns/B, through the daemon %.3f ns/B (this thread %.3f, %s)",
             d->daemon ? "daemon" : "in-process", cipher, f->local_ns, path, f->path_ns, where);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* In-process: keystream of CAL_BYTES under a zero key (the cores' time does not depend on it),
 * XORed into a buffer as the mode does; the best of CAL_PASSES, in ns per byte. */
static double measure_local(const bs_block_cipher *bc, uint8_t *ks_buf, uint8_t *data)
{
    bs_key_schedule *ks = (bs_key_schedule *)aligned_alloc(64, sizeof *ks);
    if (ks == NULL)
        return 0;
    const uint8_t key[BS_KEY_MAX] = {0};
    uint8_t ctr[BS_BLOCK_MAX] = {0};
    bc->set_key(ks, key);
    const uint64_t nblocks = CAL_BYTES / bc->block_len;
    const size_t bytes = (size_t)nblocks * bc->block_len;
    double best = 0;
    for (int i = 0; i < CAL_PASSES; i++) {
        double t0 = now_ns();
        bs_ctr_keystream(bc, ks, ctr, nblocks, ks_buf);
        for (size_t j = 0; j < bytes; j++)
            data[j] ^= ks_buf[j];
        double t = now_ns() - t0;
        if (i == 0 || t < best)
            best = t;
    }
    bs_wipe(ks, sizeof *ks);
    free(ks);
    return best / (double)bytes;
}

/* The daemon path's one pass (bsd_stream.c) over CAL_WINDOW: ns per byte, the best of passes. */
static double measure_pass(uint8_t *shared, uint8_t *data)
{
    double best = 0;
    uint64_t zeros;
    for (int i = 0; i < CAL_PASSES; i++) {
        double t0 = now_ns();
        (void)bs_digest_xor_move_sum(1, 0, data, data, NULL, shared, CAL_WINDOW / 8, &zeros);
        double t = now_ns() - t0;
        if (i == 0 || t < best)
            best = t;
    }
    return best / (double)CAL_WINDOW;
}

/*
 * Per process: the pass once, the in-process figure once per cipher (by descriptor: few exist).
 * One mutex guards both, held while a figure is measured, so that threads asking at once measure
 * once and all get the same figure (a few milliseconds, once per cipher and process).
 */
#define CACHE_MAX 64
static struct {
    const bs_block_cipher *bc;
    double local_ns;
} cache[CACHE_MAX];
static int cache_n;
static double pass_ns;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static double cached_local(const bs_block_cipher *bc)
{
    for (int i = 0; i < cache_n; i++)
        if (cache[i].bc == bc)
            return cache[i].local_ns;
    return 0;
}

static void measure(const bs_block_cipher *bc, bsd_offload_figures *f)
{
    pthread_mutex_lock(&cache_lock);
    f->local_ns = cached_local(bc);
    f->path_ns = pass_ns;
    if (f->local_ns <= 0 || f->path_ns <= 0) {
        uint8_t *buf = (uint8_t *)aligned_alloc(64, 2 * CAL_WINDOW);
        if (buf != NULL) {
            memset(buf, 0, 2 * CAL_WINDOW);
            if (f->local_ns <= 0) {
                f->local_ns = measure_local(bc, buf, buf + CAL_BYTES);
                /* More ciphers than slots: the others are measured on each call. */
                if (f->local_ns > 0 && cache_n < CACHE_MAX) {
                    cache[cache_n].bc = bc;
                    cache[cache_n].local_ns = f->local_ns;
                    cache_n++;
                }
            }
            if (f->path_ns <= 0)
                pass_ns = f->path_ns = measure_pass(buf, buf + CAL_WINDOW);
            bs_wipe(buf, 2 * CAL_WINDOW);
            free(buf);
        }
    }
    pthread_mutex_unlock(&cache_lock);
}

/* $BITSLICE_OFFLOAD_FIGURES: "name=value" pairs, comma-separated; unknown names are ignored. */
static void inject(bsd_offload_figures *f, int *daemon_given)
{
    const char *v = secure_getenv(BSD_OFFLOAD_FIGURES_ENV);
    while (v != NULL && *v != 0) {
        char name[16];
        size_t n = strcspn(v, "=,");
        if (v[n] == '=' && n < sizeof name) {
            memcpy(name, v, n);
            name[n] = 0;
            char *end;
            double x = strtod(v + n + 1, &end);
            if (strcmp(name, "local") == 0)
                f->local_ns = x;
            else if (strcmp(name, "path") == 0)
                f->path_ns = x;
            else if (strcmp(name, "daemon") == 0) {
                f->daemon_ns = x;
                *daemon_given = 1;
            } else if (strcmp(name, "workers") == 0)
                f->workers = (unsigned)x;
            else if (strcmp(name, "cpus") == 0)
                f->cpus = (unsigned)x;
            v = end;
        } else {
            v += n;
        }
        v += strcspn(v, ",");
        if (*v == ',')
            v++;
    }
}

static void local_figures(const bs_block_cipher *bc, bsd_offload_figures *f, int *daemon_given)
{
    memset(f, 0, sizeof *f);
    /* The CPUs this process may use: a container's cpuset, not the host's online count. */
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    f->cpus = n > 0 ? (unsigned)n : 1;
    bsd_offload_figures inj = *f;
    inj.local_ns = inj.path_ns = -1;
    *daemon_given = 0;
    inject(&inj, daemon_given);
    /* Measure only what is not injected. */
    if (inj.local_ns < 0 || inj.path_ns < 0)
        measure(bc, f);
    if (inj.local_ns >= 0)
        f->local_ns = inj.local_ns;
    if (inj.path_ns >= 0)
        f->path_ns = inj.path_ns;
    else
        f->path_ns += f->local_ns * (double)bc->block_len / PIECE_BYTES;
    f->daemon_ns = inj.daemon_ns;
    f->workers = inj.workers;
    f->cpus = inj.cpus;
}

void bsd_offload_local_figures(const bs_block_cipher *bc, bsd_offload_figures *f)
{
    int given;
    local_figures(bc, f, &given);
}

int bsd_offload_check(int mode, bsd_client *c, const bs_block_cipher *bc, bsd_offload_decision *d)
{
    bsd_offload_figures f;
    memset(&f, 0, sizeof f);
    if (mode == BSD_OFFLOAD_AUTO) {
        int given;
        local_figures(bc, &f, &given);
        if (!given) {
            bsd_rate_rep rate;
            if (bsd_client_rate(c, bc->name, &rate) == 0 && rate.bytes_per_s > 0) {
                f.daemon_ns = 1e9 / (double)rate.bytes_per_s;
                f.workers = rate.host_workers;
            }
        }
    }
    bsd_offload_decide(mode, bc->name, &f, d);
    return d->daemon;
}
