#include "bsd_sd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bs_num.h"

int bsd_sd_listen_fds(char *err, size_t errlen)
{
    const char *pid_s = getenv("LISTEN_PID"), *fds_s = getenv("LISTEN_FDS");
    uint64_t pid = 0, n = 0;
    int r = 0;
    if (pid_s == NULL || fds_s == NULL) {
        r = 0;
    } else if (bs_parse_u64(pid_s, 1, UINT64_MAX, &pid) != 0) {
        snprintf(err, errlen, "LISTEN_PID: not a process id: '%.32s'", pid_s);
        r = -1;
    } else if (pid != (uint64_t)getpid()) {
        r = 0; /* meant for another process (our parent's, passed down by mistake) */
    } else if (bs_parse_u64(fds_s, 0, 4096, &n) != 0) {
        snprintf(err, errlen, "LISTEN_FDS: not a count: '%.32s'", fds_s);
        r = -1;
    } else {
        r = (int)n;
        for (int fd = BSD_SD_LISTEN_FDS_START; fd < BSD_SD_LISTEN_FDS_START + r; fd++) {
            int fl = fcntl(fd, F_GETFD);
            if (fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0) {
                snprintf(err, errlen, "LISTEN_FDS=%d: descriptor %d: %s", r, fd, strerror(errno));
                r = -1;
                break;
            }
        }
    }
    unsetenv("LISTEN_PID");
    unsetenv("LISTEN_FDS");
    unsetenv("LISTEN_FDNAMES");
    return r;
}

int bsd_sd_is_unix_listener(int fd)
{
    int type = 0, domain = 0, listening = 0;
    socklen_t l = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) != 0 || type != SOCK_STREAM)
        return 0;
    l = sizeof domain;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &l) != 0 || domain != AF_UNIX)
        return 0;
    l = sizeof listening;
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &l) == 0 && listening;
}

int bsd_sd_notify(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL || path[0] == 0)
        return 0;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    const size_t len = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || len >= sizeof sa.sun_path)
        return -EINVAL;
    memcpy(sa.sun_path, path, len);
    if (path[0] == '@')
        sa.sun_path[0] = 0; /* the abstract namespace */
    const socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    ssize_t w;
    do
        w = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
    while (w < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    return w == (ssize_t)strlen(state) ? 1 : -(w < 0 ? e : EMSGSIZE);
}
