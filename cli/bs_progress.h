/*
 * bs_progress.h: the one progress line of the command-line programs (seal/open, keysearch), on
 * standard error, rewritten in place at most every 0.2 s, and only when it is a terminal.
 * With a known total: a bar, done / total, the rate and the time left. With an unknown total
 * (standard input, a pipe): what is done so far and the rate, no bar and no total.
 */
#ifndef BS_PROGRESS_H
#define BS_PROGRESS_H

#include <stddef.h>

typedef enum { BS_PROGRESS_BYTES, BS_PROGRESS_KEYS } bs_progress_unit;

typedef struct bs_progress {
    int on;       /* drawing at all (a terminal, not --quiet) */
    int shown;    /* a line is on the screen: bs_progress_end ends it */
    double total; /* 0: unknown */
    bs_progress_unit unit;
    double t0, last;
} bs_progress;

/* on: whether to draw (the caller decides: isatty(2) && !quiet). total 0: unknown. */
void bs_progress_start(bs_progress *p, int on, double total, bs_progress_unit unit);

/* done so far; drawn when 0.2 s passed since the last line, or final. */
void bs_progress_update(bs_progress *p, double done, int final);

/* Ends the line (a newline) if one is shown; safe to call twice. */
void bs_progress_end(bs_progress *p);

/* The line itself, without "\r": for the tests. elapsed in seconds. */
void bs_progress_format(char *buf, size_t len, bs_progress_unit unit, double done, double total,
                        double elapsed);

#endif
