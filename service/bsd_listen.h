/*
 * bsd_listen.h: the listening socket (a 0700 directory of our own, stale-socket removal,
 * systemd LISTEN_FDS) and accept, which admits a peer only by SO_PEERCRED against the
 * allow-list and the daemon's bounds.
 */
#ifndef BSD_LISTEN_H
#define BSD_LISTEN_H

#include <stddef.h>

#include "bsd_daemon.h"

/* Opens (or takes over) the socket: 0, or -1 with a message in err. */
int bsd_listen_open(bsd_daemon *d, char *err, size_t errlen);
/* Starts accepting on the loop: 0 or a libuv error. */
int bsd_listen_start(bsd_daemon *d);
/* Stops accepting and unlinks the socket (when the daemon created it). */
void bsd_listen_stop(bsd_daemon *d);
/*
 * Unlinks the socket, at most once and only if the path still holds the socket this daemon
 * bound (a daemon restarted over it keeps its own).
 */
void bsd_listen_unlink(bsd_daemon *d);

#endif
