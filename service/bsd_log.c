#include "bsd_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int debug_on;

void bsd_log_set_debug(int on)
{
    debug_on = on;
}

int bsd_log_debug_enabled(void)
{
    return debug_on;
}

void bsd_log(const char *level, const char *event, const char *fmt, ...)
{
    char line[768];
    int n = snprintf(line, sizeof line, "bitsliced level=%s event=%s", level, event);
    if (n < 0 || (size_t)n >= sizeof line)
        return;
    if (fmt != NULL && fmt[0] != 0) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
        if (m < 0)
            return;
        n = (size_t)(n + m) >= sizeof line ? (int)sizeof line - 1 : n + m;
    }
    line[n++] = '\n';
    /* One write per line so that lines from a busy daemon do not interleave. */
    fwrite(line, 1, (size_t)n, stderr);
    fflush(stderr);
}
