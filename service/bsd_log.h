/*
 * bsd_log.h: structured logs, one line per event on stderr (journald keeps them under systemd):
 *   bitsliced level=info event=accept conn=3 uid=1000 pid=4242
 * Callers pass key=value pairs in fmt. Keys, counters and keystream are never logged.
 * When stderr is the journal ($JOURNAL_STREAM), each line starts with its syslog severity,
 * <3> error, <4> warn, <6> info, <7> debug (sd-daemon(3)), which journald keeps as PRIORITY.
 */
#ifndef BSD_LOG_H
#define BSD_LOG_H

void bsd_log_set_debug(int on);
void bsd_log(const char *level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int bsd_log_debug_enabled(void);

#define BSD_INFO(ev, ...) bsd_log("info", ev, __VA_ARGS__)
#define BSD_WARN(ev, ...) bsd_log("warn", ev, __VA_ARGS__)
#define BSD_ERR(ev, ...) bsd_log("error", ev, __VA_ARGS__)
#define BSD_DEBUG(ev, ...)                                                                         \
    do {                                                                                           \
        if (bsd_log_debug_enabled())                                                               \
            bsd_log("debug", ev, __VA_ARGS__);                                                     \
    } while (0)

#endif
