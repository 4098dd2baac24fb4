/* bsd_time.h: the daemon's clock (monotonic, nanoseconds): deadlines, timeouts, uptime. */
#ifndef BSD_TIME_H
#define BSD_TIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t bsd_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
