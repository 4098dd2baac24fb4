#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bsd_status.h"

#include "bsd_batcher.h"

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...)
{
    if (t->len >= t->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len = t->len + (size_t)n < t->cap ? t->len + (size_t)n : t->cap - 1;
}

/*
 * The daemon's wakeups: voluntary context switches summed over its threads (each is a thread
 * that blocked, in a wait or a system call, and was woken again), from /proc/self/task/N/status;
 * -1 when /proc cannot be read.
 */
static long long wakeups_total(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL)
        return -1;
    long long sum = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], line[128];
        snprintf(path, sizeof path, "/proc/self/task/%.255s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        long long v;
        while (fgets(line, sizeof line, f) != NULL)
            if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1)
                sum += v;
        fclose(f);
    }
    closedir(dir);
    return sum;
}

size_t bsd_status_text(bsd_daemon *d, char *out, size_t len)
{
    text t = {out, 0, len};
    bsd_stats *s = &d->stats;
    char dev[BSD_DESCRIBE_MAX];
    d->backend->ops->describe(d->backend, dev, sizeof dev);
    add(&t, "protocol=%d\n", BSD_PROTO_VERSION);
    add(&t, "backend=%s\n", d->backend->ops->name);
    add(&t, "backend_info=%s\n", dev);
    add(&t, "backend_workers=%u\n", d->backend->host_workers);
    add(&t, "uptime_s=%llu\n", (unsigned long long)((bsd_now_ns() - s->start_ns) / 1000000000u));
    add(&t, "draining=%d\n", d->draining);
    add(&t, "keys_locked=%d\n", d->keys.locked);
    add(&t, "clients=%u\n", d->nconns);
    add(&t, "clients_closing=%u\n", d->nclosing);
    add(&t, "sessions=%u\n", d->sessions_open);
    add(&t, "session_slots_free=%u\n", d->keys.nfree);
    add(&t, "inflight_jobs=%u\n", d->inflight_jobs);
    add(&t, "inflight_batches=%u\n", d->batcher.inflight_batches);
    add(&t, "queued_jobs=%zu\n", bsd_batcher_queued_jobs(&d->batcher));
    for (int i = 0; i < BSD_MAX_CIPHERS; i++) {
        const bsd_pending *p = &d->batcher.pend[i];
        if (p->cipher != NULL)
            add(&t, "queue.%s=%zu jobs %llu bytes\n", p->cipher->name, p->njobs,
                (unsigned long long)p->bytes);
    }
    /* What RATE answers (issue 26, offload by cost): per cipher, as measured so far. */
    for (int i = 0; i < BSD_MAX_CIPHERS; i++) {
        const bs_block_cipher *c = d->batcher.pend[i].cipher;
        uint64_t rate, bytes;
        if (c != NULL && bsd_batcher_rate(&d->batcher, c, &rate, &bytes) != NULL && bytes > 0)
            add(&t, "rate.%s=%llu bytes/s over %llu bytes\n", c->name, (unsigned long long)rate,
                (unsigned long long)bytes);
    }
    add(&t, "connections_total=%llu\n", (unsigned long long)s->connections_total);
    add(&t, "refused_peers=%llu\n", (unsigned long long)s->refused_peers);
    add(&t, "max_clients=%u\n", d->cfg.max_clients);
    add(&t, "per_uid_refusals=%llu\n", (unsigned long long)s->per_uid_refusals);
    add(&t, "cancelled_jobs=%llu\n", (unsigned long long)s->cancelled_jobs);
    add(&t, "accept_out_of_fds=%llu\n", (unsigned long long)d->emfile_total);
    add(&t, "accepting=%d\n", d->listen_fd >= 0 && !d->accept_paused);
    add(&t, "requests_total=%llu\n", (unsigned long long)s->requests_total);
    add(&t, "keystream_requests=%llu\n", (unsigned long long)s->keystream_requests);
    add(&t, "bytes_served=%llu\n", (unsigned long long)s->bytes_served);
    add(&t, "batches_total=%llu\n", (unsigned long long)s->batches_total);
    add(&t, "batched_jobs_total=%llu\n", (unsigned long long)s->batched_jobs_total);
    add(&t, "batch_median=%llu\n", (unsigned long long)bsd_stats_median_batch(s));
    add(&t, "batch_max=%llu\n", (unsigned long long)s->batch_max);
    add(&t, "batch_hist=");
    for (unsigned b = 0; b < BSD_HIST_BUCKETS; b++)
        add(&t, "%s%s%u:%llu", b ? "," : "", b + 1 == BSD_HIST_BUCKETS ? ">" : "<=",
            b + 1 == BSD_HIST_BUCKETS ? 1u << (b - 1) : 1u << b, (unsigned long long)s->hist[b]);
    add(&t, "\n");
    /* What each request costs the daemon beyond its keystream (issue 26): wakeups and faults. */
    const long long wk = wakeups_total();
    add(&t, "wakeups_total=%lld\n", wk);
    if (wk >= 0 && s->keystream_requests > 0)
        add(&t, "wakeups_per_request=%.2f\n", (double)wk / (double)s->keystream_requests);
    /* System calls for requests, counted where the daemon makes them (bsd_stats.h). */
    const uint64_t sc = s->syscalls + __atomic_load_n(&bsd_backend_syscalls, __ATOMIC_RELAXED);
    add(&t, "syscalls_total=%llu\n", (unsigned long long)sc);
    if (s->keystream_requests > 0)
        add(&t, "syscalls_per_request=%.2f\n", (double)sc / (double)s->keystream_requests);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        add(&t, "page_faults_minor=%ld\n", ru.ru_minflt);
    add(&t, "errors_total=%llu\n", (unsigned long long)s->errors_total);
    add(&t, "integrity.unwritten_jobs=%llu\n", (unsigned long long)s->integrity_unwritten_jobs);
    add(&t, "integrity.client_digest_mismatches=%llu\n",
        (unsigned long long)s->integrity_client_digest);
    add(&t, "integrity.client_spot_mismatches=%llu\n",
        (unsigned long long)s->integrity_client_spot);
    add(&t, "integrity.client_unmatched_reports=%llu\n",
        (unsigned long long)s->integrity_client_unmatched);
    add(&t, "integrity.unchecked_requests=%llu\n", (unsigned long long)s->unchecked_requests);
    add(&t, "log_suppressed=%llu\n", (unsigned long long)d->peers.suppressed_total);
    for (uint32_t c = 1; c <= BSD_E_MAX; c++)
        if (s->errors[c] != 0)
            add(&t, "errors.%u=%llu # %s\n", c, (unsigned long long)s->errors[c], bsd_errc_str(c));
    return t.len;
}
