/*
 * bsd_sd.h: the two systemd protocols the daemon speaks, as sd_listen_fds(3) and sd_notify(3)
 * document them (no libsystemd needed): socket activation ($LISTEN_PID, $LISTEN_FDS, the
 * descriptors from 3 up) and readiness/stopping notification ($NOTIFY_SOCKET, a datagram).
 */
#ifndef BSD_SD_H
#define BSD_SD_H

#include <stddef.h>

/* The first descriptor systemd passes (SD_LISTEN_FDS_START). */
#define BSD_SD_LISTEN_FDS_START 3

/*
 * The descriptors passed to this process: their count (0: none, or meant for another process,
 * as $LISTEN_PID says), each made close-on-exec; the three variables are removed from the
 * environment in every case, so that children do not see them. -1 with err set when the
 * variables are malformed.
 */
int bsd_sd_listen_fds(char *err, size_t errlen);

/* Whether fd is a listening AF_UNIX stream socket (sd_is_socket_unix(fd, SOCK_STREAM, 1, ...)). */
int bsd_sd_is_unix_listener(int fd);

/*
 * Sends state ("READY=1", "STOPPING=1", "STATUS=...") to $NOTIFY_SOCKET (a path, or an
 * abstract address with a leading '@'). 0 when there is no such socket (not under a
 * Type=notify service), 1 when sent, -errno on failure.
 */
int bsd_sd_notify(const char *state);

#endif
