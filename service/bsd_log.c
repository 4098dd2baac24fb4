#include "bsd_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int debug_on;
/* -1 not known yet; 1: stderr is the journal's stream, lines carry <N> severities. */
static int to_journal = -1;

/*
 * $JOURNAL_STREAM is "DEV:INODE" of the stream systemd connected to stdout/stderr; it is the
 * journal only when stderr is still that very stream (systemd.exec(5)), not a file or a pipe a
 * child of the service redirected it to.
 */
static int stderr_is_journal(void)
{
    const char *js = getenv("JOURNAL_STREAM");
    struct stat st;
    unsigned long long dev, ino;
    char tail;
    if (js == NULL || sscanf(js, "%llu:%llu%c", &dev, &ino, &tail) != 2 ||
        fstat(STDERR_FILENO, &st) != 0)
        return 0;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* syslog(3) severities, as sd-daemon(3)'s SD_ERR, SD_WARNING, SD_INFO, SD_DEBUG prefixes. */
static int severity(const char *level)
{
    if (strcmp(level, "error") == 0)
        return 3;
    if (strcmp(level, "warn") == 0)
        return 4;
    if (strcmp(level, "debug") == 0)
        return 7;
    return 6;
}

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
    if (to_journal < 0)
        to_journal = stderr_is_journal();
    char prefix[8] = "";
    if (to_journal)
        snprintf(prefix, sizeof prefix, "<%d>", severity(level));
    int n = snprintf(line, sizeof line, "%sbitsliced level=%s event=%s", prefix, level, event);
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
