/*
 * bsd_stats.h: the daemon's counters (connections, requests, bytes, batch sizes, errors by
 * code). Written on the loop thread only; bsd_status.c turns them into the STATUS text.
 */
#ifndef BSD_STATS_H
#define BSD_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "bsd_proto.h"

/* Batch-size histogram: bucket i holds sizes in (2^(i-1), 2^i], bucket 0 holds size 1. */
#define BSD_HIST_BUCKETS 10
#define BSD_SIZE_COUNTS 1025

typedef struct bsd_stats {
    uint64_t start_ns;
    uint64_t connections_total, refused_peers, requests_total, keystream_requests;
    uint64_t per_uid_refusals, cancelled_jobs;
    uint64_t bytes_served, batches_total, batched_jobs_total;
    uint64_t hist[BSD_HIST_BUCKETS];
    uint64_t size_counts[BSD_SIZE_COUNTS]; /* exact batch sizes, last one is "or more" */
    uint64_t batch_max;
    uint64_t errors[BSD_E_MAX + 1];
    uint64_t errors_total;
    /* Integrity: jobs refused for unwritten (still poisoned) words, client reports by kind. */
    uint64_t integrity_unwritten_jobs, integrity_client_digest, integrity_client_spot;
    /* REPORTs that named no window served to their connection (or one already reported). */
    uint64_t integrity_client_unmatched;
    uint64_t unchecked_requests;
    /*
     * System calls the loop thread makes for requests, counted where it makes them: its poll
     * waits (one a turn of the loop), socket reads and sends, the batch timer's settings and
     * reads (the backend's own: bsd_backend_syscalls). Not counted: accepting and closing
     * connections, logging, and lock contention inside libc or libuv.
     */
    uint64_t syscalls;
} bsd_stats;

void bsd_stats_batch(bsd_stats *s, size_t njobs);
void bsd_stats_error(bsd_stats *s, uint32_t code);
/* The median batch size so far (0 before the first batch). */
uint64_t bsd_stats_median_batch(const bsd_stats *s);

#endif
