/* The daemon's counters (bsd_stats.h). */
#include "bsd_stats.h"

void bsd_stats_batch(bsd_stats *s, size_t njobs)
{
    unsigned b = 0;
    while (b + 1 < BSD_HIST_BUCKETS && ((size_t)1 << b) < njobs)
        b++;
    s->hist[b]++;
    s->size_counts[njobs < BSD_SIZE_COUNTS ? njobs : BSD_SIZE_COUNTS - 1]++;
    s->batches_total++;
    s->batched_jobs_total += njobs;
    if (njobs > s->batch_max)
        s->batch_max = njobs;
}

void bsd_stats_error(bsd_stats *s, uint32_t code)
{
    if (code <= BSD_E_MAX)
        s->errors[code]++;
    s->errors_total++;
}

uint64_t bsd_stats_median_batch(const bsd_stats *s)
{
    if (s->batches_total == 0)
        return 0;
    uint64_t half = (s->batches_total + 1) / 2, seen = 0;
    for (size_t i = 0; i < BSD_SIZE_COUNTS; i++) {
        seen += s->size_counts[i];
        if (seen >= half)
            return i;
    }
    return BSD_SIZE_COUNTS - 1;
}
