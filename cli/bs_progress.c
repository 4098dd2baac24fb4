#include "bs_progress.h"

#include <stdio.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void eta(char *buf, size_t len, double left)
{
    if (left < 3600 * 99)
        snprintf(buf, len, "%d:%02d:%02d", (int)(left / 3600), (int)(left / 60) % 60,
                 (int)left % 60);
    else
        snprintf(buf, len, "%.3g days", left / 86400);
}

void bs_progress_format(char *buf, size_t len, bs_progress_unit unit, double done, double total,
                        double elapsed)
{
    const double rate = elapsed > 0 ? done / elapsed : 0;
    char left[32] = "?";
    if (total > 0 && rate > 0)
        eta(left, sizeof left, (total > done ? total - done : 0) / rate);
    if (unit == BS_PROGRESS_KEYS) {
        if (total > 0)
            snprintf(buf, len, "%5.1f%%  %.3g of %.3g keys  %.3g keys/s  ETA %s",
                     100 * done / total, done, total, rate, left);
        else
            snprintf(buf, len, "%.3g keys  %.3g keys/s", done, rate);
        return;
    }
    const double mib = done / 1048576.0;
    if (total <= 0) {
        snprintf(buf, len, "%.1f MiB  %.1f MiB/s", mib, rate / 1048576.0);
        return;
    }
    char bar[31];
    int fill = (int)(30.0 * (done < total ? done : total) / total);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    snprintf(buf, len, "[%s] %.1f / %.1f MiB  %.1f MiB/s  ETA %s", bar, mib, total / 1048576.0,
             rate / 1048576.0, left);
}

void bs_progress_start(bs_progress *p, int on, double total, bs_progress_unit unit)
{
    p->on = on;
    p->shown = 0;
    p->total = total > 0 ? total : 0;
    p->unit = unit;
    p->t0 = now_s();
    p->last = 0;
}

void bs_progress_update(bs_progress *p, double done, int final)
{
    if (!p->on)
        return;
    const double now = now_s();
    if (!final && now - p->last < 0.2)
        return;
    p->last = now;
    char line[160];
    bs_progress_format(line, sizeof line, p->unit, done, p->total, now - p->t0);
    /* Trailing spaces wipe what a longer previous line left. */
    fprintf(stderr, "\r%s   ", line);
    p->shown = 1;
    if (final)
        bs_progress_end(p);
}

void bs_progress_end(bs_progress *p)
{
    if (p->shown)
        fputc('\n', stderr);
    p->shown = 0;
}
