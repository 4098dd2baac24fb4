/*
 * The listener (bsd_listen.h): the socket and its directory, systemd socket activation, and
 * accept with the peer checks; an admitted peer becomes a bsd_conn.
 */
#include "bsd_listen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "bsd_conn.h"
#include "bsd_log.h"
#include "bsd_sd.h"

/* ---- peers ---- */

/*
 * allow_gids matches the peer's primary gid (SO_PEERCRED) or one of its supplementary groups
 * (SO_PEERGROUPS, Linux 4.13): both are the credentials of the process that called connect(), as
 * at that call, so group membership admits a peer just as the socket file's group mode does.
 */
static int peer_allowed(const bsd_config *cfg, int fd, uid_t uid, gid_t gid)
{
    if (cfg->n_allow_uids == 0 && cfg->n_allow_gids == 0)
        return uid == geteuid();
    for (size_t i = 0; i < cfg->n_allow_uids; i++)
        if (cfg->allow_uids[i] == uid)
            return 1;
    for (size_t i = 0; i < cfg->n_allow_gids; i++)
        if (cfg->allow_gids[i] == gid)
            return 1;
    if (cfg->n_allow_gids == 0)
        return 0;
    int ok = 0;
#ifdef SO_PEERGROUPS
    gid_t small[64], *groups = small;
    socklen_t gl = sizeof small;
    int r = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &gl);
    if (r != 0 && errno == ERANGE && (groups = (gid_t *)malloc(gl)) != NULL)
        r = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &gl);
    for (size_t j = 0; r == 0 && j < gl / sizeof(gid_t); j++)
        for (size_t i = 0; i < cfg->n_allow_gids; i++)
            ok |= cfg->allow_gids[i] == groups[j];
    if (groups != small)
        free(groups);
#else
    (void)fd;
#endif
    return ok;
}

/* Best effort, on a fresh socket whose buffer is empty: one small frame fits. */
static void refuse(int fd, uint32_t code, const char *text)
{
    uint8_t buf[BSD_HDR_LEN + BSD_ERROR_REP_FIXED_LEN + BSD_ERROR_TEXT_MAX];
    size_t n = bsd_error_rep_encode(buf + BSD_HDR_LEN, code, text);
    bsd_hdr h = {BSD_PROTO_VERSION, BSD_OP_ERROR | BSD_OP_REPLY, 0, (uint32_t)n};
    bsd_hdr_encode(buf, &h);
    (void)!send(fd, buf, BSD_HDR_LEN + n, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
}

static void accept_one(bsd_daemon *d, int fd)
{
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0) {
        BSD_WARN("refused", "reason=no_peercred errno=%d", errno);
        d->stats.refused_peers++;
        close(fd);
        return;
    }
    /* Its uid's entry: the log budget of a refused peer too (it holds nothing, and goes). */
    bsd_peer *peer = bsd_peer_get(&d->peers, cred.uid, bsd_now_ns());
    if (!peer_allowed(&d->cfg, fd, cred.uid, cred.gid)) {
        BSD_PEER_LOG(&d->peers, peer, "warn", "refused",
                     "reason=peer_not_allowed uid=%u gid=%u pid=%d", (unsigned)cred.uid,
                     (unsigned)cred.gid, (int)cred.pid);
        d->stats.refused_peers++;
        bsd_stats_error(&d->stats, BSD_E_NOT_ALLOWED);
        refuse(fd, BSD_E_NOT_ALLOWED, "peer uid/gid not in the allow-list");
        return;
    }
    if (d->nconns >= d->cfg.max_clients || d->draining) {
        BSD_PEER_LOG(&d->peers, peer, "warn", "refused", "reason=%s uid=%u pid=%d",
                     d->draining ? "draining" : "max_clients", (unsigned)cred.uid, (int)cred.pid);
        bsd_stats_error(&d->stats, d->draining ? BSD_E_SHUTDOWN : BSD_E_BUSY);
        refuse(fd, d->draining ? BSD_E_SHUTDOWN : BSD_E_BUSY,
               d->draining ? "daemon is draining" : "max_clients reached");
        return;
    }
    /*
     * Fair share: one uid never takes every client slot (the others keep a quarter at least).
     * Its count includes its closed connections whose jobs still run: they hold slots of
     * max_clients just the same.
     */
    const uint64_t cap = bsd_peer_cap(d->cfg.max_clients_per_uid, d->cfg.max_clients);
    if (peer != NULL && peer->clients >= cap) {
        BSD_PEER_LOG(&d->peers, peer, "warn", "refused",
                     "reason=max_clients_per_uid uid=%u pid=%d clients=%u", (unsigned)cred.uid,
                     (int)cred.pid, peer->clients);
        d->stats.per_uid_refusals++;
        bsd_stats_error(&d->stats, BSD_E_BUSY);
        refuse(fd, BSD_E_BUSY, "max_clients_per_uid reached");
        return;
    }
    bsd_conn_new(d, fd, &cred);
}

static void on_listen_event(uv_poll_t *h, int status, int events);

static void on_accept_resume(uv_timer_t *t)
{
    bsd_daemon *d = (bsd_daemon *)t->data;
    d->accept_paused = 0;
    if (d->listen_fd >= 0)
        uv_poll_start(&d->listen_poll, UV_READABLE, on_listen_event);
}

/*
 * accept() failed for want of a resource (EMFILE, ENFILE, ENOBUFS, ENOMEM): the pending
 * connection stays in the backlog, so polling again at once would spin. Stop listening for
 * BSD_ACCEPT_PAUSE_MS (connections that end meanwhile give fds back), and warn at most once a
 * second, with the count of the failures not warned about.
 */
#define BSD_ACCEPT_PAUSE_MS 100
static void accept_pause(bsd_daemon *d, int err)
{
    d->emfile_total++;
    uint64_t now = bsd_now_ns();
    if (d->emfile_warned_ns == 0 || now - d->emfile_warned_ns >= 1000000000u) {
        BSD_WARN("accept", "errno=%d reason=\"%s\" action=pause pause_ms=%d not_logged=%llu", err,
                 strerror(err), BSD_ACCEPT_PAUSE_MS, (unsigned long long)d->emfile_unwarned);
        d->emfile_warned_ns = now;
        d->emfile_unwarned = 0;
    } else {
        d->emfile_unwarned++;
    }
    uv_poll_stop(&d->listen_poll);
    d->accept_paused = 1;
    uv_timer_start(&d->accept_pause, on_accept_resume, BSD_ACCEPT_PAUSE_MS, 0);
}

static void on_listen_event(uv_poll_t *h, int status, int events)
{
    bsd_daemon *d = (bsd_daemon *)h->data;
    (void)events;
    if (status < 0)
        return;
    for (int i = 0; i < 64; i++) {
        int fd = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                accept_pause(d, errno);
            return;
        }
        accept_one(d, fd);
    }
}

/*
 * max_clients against RLIMIT_NOFILE: each connection holds one fd (and briefly a second, the
 * memfd of MAP_SHM), besides the daemon's own (listener, loop, timers, logs, a GPU's). The soft
 * limit is raised to the hard one if needed; if that is still short, max_clients is lowered to
 * what fits, with a warning, and the daemon refuses to start when not even one client fits.
 */
#define BSD_FD_RESERVE 32
static int fit_fd_limit(bsd_daemon *d, char *err, size_t errlen)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        snprintf(err, errlen, "getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
        return -1;
    }
    const rlim_t want = (rlim_t)d->cfg.max_clients + BSD_FD_RESERVE;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        struct rlimit up = rl;
        up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            rl = up;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
        return 0;
    if (rl.rlim_cur <= BSD_FD_RESERVE) {
        snprintf(err, errlen, "RLIMIT_NOFILE %llu leaves no file descriptor for a client",
                 (unsigned long long)rl.rlim_cur);
        return -1;
    }
    const unsigned fit = (unsigned)(rl.rlim_cur - BSD_FD_RESERVE);
    BSD_WARN("max_clients", "configured=%u clamped=%u rlimit_nofile=%llu", d->cfg.max_clients, fit,
             (unsigned long long)rl.rlim_cur);
    d->cfg.max_clients = fit;
    return 0;
}

/*
 * The directory must be ours and 0700: the socket's only access control besides SO_PEERCRED.
 * It is opened once (O_NOFOLLOW) and every later step goes through that descriptor: fstat,
 * fchmod, and the socket's bind, stale check and unlink through /proc/self/fd/N/NAME or
 * *at() calls. Checking a path with lstat and then using the path (chmod, bind) would act on
 * whatever another user put there in between when the parent directory is writable by others.
 */
/* Whether the directory open at fd holds nothing but (maybe) an entry called name. */
static int own_directory(int fd, const char *name)
{
    int dfd = dup(fd);
    DIR *dp = dfd < 0 ? NULL : fdopendir(dfd);
    if (dp == NULL) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    int own = 1;
    const struct dirent *e;
    const size_t nl = strlen(name), el = strlen(".tmp");
    while (own && (e = readdir(dp)) != NULL) {
        const size_t l = strlen(e->d_name);
        /* NAME.PID.tmp: where a daemon binds before the rename (bsd_listen_open). */
        const int ours = l > nl + el && strncmp(e->d_name, name, nl) == 0 && e->d_name[nl] == '.' &&
                         strcmp(e->d_name + l - el, ".tmp") == 0;
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, name) != 0 && !ours)
            own = 0;
    }
    closedir(dp);
    return own;
}

/*
 * The group the socket is shared with, as the system unit's SocketGroup=bitslice and
 * SocketMode=0660 share it: the first of allow_gids, when the daemon may give its files to that
 * group (it runs as root, or as a member: user bitslice with allow_gids=bitslice). Then the
 * directory is 0750 and the socket 0660, both of that group; else (gid -1) 0700 and 0600.
 */
static gid_t share_gid(const bsd_config *cfg)
{
    if (cfg->n_allow_gids == 0)
        return (gid_t)-1;
    const gid_t g = cfg->allow_gids[0];
    if (geteuid() == 0 || getegid() == g)
        return g;
    gid_t groups[256];
    int n = getgroups(sizeof groups / sizeof groups[0], groups);
    for (int i = 0; i < n; i++)
        if (groups[i] == g)
            return g;
    BSD_WARN("socket_group",
             "gid=%u reason=\"allow_gids names a group this daemon is not in: "
             "the socket stays 0600, reachable by its own uid and root only\"",
             (unsigned)g);
    return (gid_t)-1;
}

static int prepare_dir(bsd_daemon *d, const char *sock, char *err, size_t errlen)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof dir, "%s", sock);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir || slash[1] == 0) {
        snprintf(err, errlen, "socket %s: needs its own directory", sock);
        return -1;
    }
    *slash = 0;
    snprintf(d->sock_name, sizeof d->sock_name, "%s", slash + 1);
    const gid_t g = d->sock_gid;
    const mode_t want = g != (gid_t)-1 ? 0750 : 0700;
    if (mkdir(dir, want) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory (or a symlink)", dir);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "%s: owned by uid %u, not by this daemon's uid %u", dir,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        close(fd);
        return -1;
    }
    const int group_ok = g == (gid_t)-1 || st.st_gid == g;
    if (((st.st_mode & 07777) != want || !group_ok) && !own_directory(fd, d->sock_name)) {
        /*
         * Making a shared directory (/tmp, /run, a home) 0700 would lock every other user and
         * service out of it: only a directory that holds nothing but this socket is the
         * socket's own, and only that one is tightened.
         */
        snprintf(err, errlen,
                 "socket %s: %s (mode %04o) holds other files: it is not the socket's own "
                 "directory, and making it %04o would lock others out of it; give the socket a "
                 "directory of its own (e.g. %s/bitslice/%s)",
                 sock, dir, (unsigned)(st.st_mode & 07777), (unsigned)want, dir, d->sock_name);
        close(fd);
        return -1;
    }
    if (!group_ok && fchown(fd, (uid_t)-1, g) != 0) {
        snprintf(err, errlen, "chgrp %u %s: %s", (unsigned)g, dir, strerror(errno));
        close(fd);
        return -1;
    }
    if ((st.st_mode & 07777) != want) {
        if (fchmod(fd, want) != 0) {
            snprintf(err, errlen, "chmod %04o %s: %s", (unsigned)want, dir, strerror(errno));
            close(fd);
            return -1;
        }
        BSD_WARN("socket_dir", "path=%s old_mode=%o new_mode=%o", dir,
                 (unsigned)(st.st_mode & 0777), (unsigned)want);
    }
    d->sock_dir_fd = fd;
    return 0;
}

/*
 * The address of the entry `name` of the socket's directory, through the directory we checked
 * (the path itself when /proc is not there); 0, or -1 when it does not fit sun_path.
 */
static int sock_addr_of(const bsd_daemon *d, const char *name, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    char via[sizeof sa->sun_path];
    int n = snprintf(via, sizeof via, "/proc/self/fd/%d/%s", d->sock_dir_fd, name);
    if (n > 0 && (size_t)n < sizeof via && access("/proc/self/fd", X_OK) == 0) {
        memcpy(sa->sun_path, via, (size_t)n + 1);
        return 0;
    }
    const char *path = d->cfg.socket_path, *slash = strrchr(path, '/');
    const int dirlen = slash != NULL ? (int)(slash - path) + 1 : 0;
    n = snprintf(sa->sun_path, sizeof sa->sun_path, "%.*s%s", dirlen, path, name);
    return n > 0 && (size_t)n < sizeof sa->sun_path ? 0 : -1;
}

static void sock_addr(const bsd_daemon *d, struct sockaddr_un *sa)
{
    sock_addr_of(d, d->sock_name, sa);
}

/* A socket file left by a daemon that died: nobody accepts on it, so it can go. */
static int remove_stale(bsd_daemon *d, char *err, size_t errlen)
{
    const char *path = d->cfg.socket_path;
    struct stat st;
    if (fstatat(d->sock_dir_fd, d->sock_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a socket", path);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    sock_addr(d, &sa);
    int r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(fd);
    if (r == 0) {
        snprintf(err, errlen, "%s: another daemon is listening there", path);
        return -1;
    }
    if (e != ECONNREFUSED) {
        snprintf(err, errlen, "%s: cannot tell whether it is stale: %s", path, strerror(e));
        return -1;
    }
    BSD_INFO("stale_socket", "path=%s action=unlink", path);
    return unlinkat(d->sock_dir_fd, d->sock_name, 0);
}

void bsd_listen_unlink(bsd_daemon *d)
{
    if (!d->unlink_on_exit || d->sock_dir_fd < 0)
        return;
    d->unlink_on_exit = 0; /* once: a restarted daemon may bind the same path meanwhile */
    struct stat st;
    if (fstatat(d->sock_dir_fd, d->sock_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (!S_ISSOCK(st.st_mode) || st.st_dev != d->sock_dev || st.st_ino != d->sock_ino) {
        BSD_INFO("unlink", "path=%s action=keep reason=\"not the socket this daemon bound\"",
                 d->cfg.socket_path);
        return;
    }
    unlinkat(d->sock_dir_fd, d->sock_name, 0);
}

int bsd_listen_open(bsd_daemon *d, char *err, size_t errlen)
{
    d->sock_dir_fd = -1;
    if (fit_fd_limit(d, err, errlen) != 0)
        return -1;
    /*
     * systemd socket activation (sd_listen_fds(3)): $LISTEN_PID names this process and
     * $LISTEN_FDS counts the descriptors from 3 up; the daemon listens on exactly one, a Unix
     * stream socket in listening state (one ListenStream= in the .socket unit).
     */
    int nfds = bsd_sd_listen_fds(err, errlen);
    if (nfds < 0)
        return -1;
    if (nfds > 1) {
        snprintf(err, errlen,
                 "socket activation passed %d sockets; bitsliced listens on one (one "
                 "ListenStream= in its .socket unit)",
                 nfds);
        return -1;
    }
    if (nfds == 1) {
        const int fd = BSD_SD_LISTEN_FDS_START;
        if (!bsd_sd_is_unix_listener(fd)) {
            snprintf(err, errlen,
                     "socket activation: descriptor %d is not a listening Unix stream socket", fd);
            return -1;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        d->listen_fd = fd;
        d->socket_activated = 1;
        BSD_INFO("listen", "socket_activated=1 fd=%d", fd);
        return 0;
    }
    const char *path = d->cfg.socket_path;
    d->sock_gid = share_gid(&d->cfg);
    if (prepare_dir(d, path, err, errlen) != 0 || remove_stale(d, err, errlen) != 0)
        return -1;
    /*
     * Bound under a temporary name, listening, given its mode, and only then linked into
     * place: a client (or a script polling for the file, as the README's) that finds the socket
     * finds it accepting, never refusing between bind() and listen().
     */
    char tmp[sizeof d->sock_name];
    struct sockaddr_un sa;
    const int via_tmp =
        snprintf(tmp, sizeof tmp, "%s.%d.tmp", d->sock_name, (int)getpid()) < (int)sizeof tmp &&
        sock_addr_of(d, tmp, &sa) == 0;
    const char *bound = via_tmp ? tmp : d->sock_name;
    if (via_tmp)
        unlinkat(d->sock_dir_fd, tmp, 0); /* left by a process of the same pid */
    else
        sock_addr(d, &sa);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    mode_t old = umask(0177);
    int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (r != 0 || listen(fd, 128) != 0) {
        snprintf(err, errlen, "bind/listen %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (r == 0)
            unlinkat(d->sock_dir_fd, bound, 0);
        return -1;
    }
    /* Bound 0600 (umask); given to the group only then: never open to more than intended. */
    if (d->sock_gid != (gid_t)-1 &&
        (fchownat(d->sock_dir_fd, bound, (uid_t)-1, d->sock_gid, AT_SYMLINK_NOFOLLOW) != 0 ||
         fchmodat(d->sock_dir_fd, bound, 0660, 0) != 0)) {
        snprintf(err, errlen, "giving %s to group %u (mode 0660): %s", path, (unsigned)d->sock_gid,
                 strerror(errno));
        close(fd);
        unlinkat(d->sock_dir_fd, bound, 0);
        return -1;
    }
    /* link + unlink, not rename: a socket another daemon bound there meanwhile is not replaced. */
    if (via_tmp && linkat(d->sock_dir_fd, tmp, d->sock_dir_fd, d->sock_name, 0) != 0) {
        snprintf(err, errlen, "%s: %s", path,
                 errno == EEXIST ? "another daemon bound it meanwhile" : strerror(errno));
        close(fd);
        unlinkat(d->sock_dir_fd, tmp, 0);
        return -1;
    }
    if (via_tmp)
        unlinkat(d->sock_dir_fd, tmp, 0);
    struct stat st;
    if (fstatat(d->sock_dir_fd, d->sock_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        snprintf(err, errlen, "stat %s after bind: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    d->sock_dev = st.st_dev;
    d->sock_ino = st.st_ino;
    d->listen_fd = fd;
    d->unlink_on_exit = 1;
    BSD_INFO("listen", "socket=%s mode=%o gid=%d", path, (unsigned)(st.st_mode & 0777),
             d->sock_gid != (gid_t)-1 ? (int)d->sock_gid : -1);
    return 0;
}

int bsd_listen_start(bsd_daemon *d)
{
    int r = uv_timer_init(d->loop, &d->accept_pause);
    if (r != 0)
        return r;
    d->accept_pause.data = d;
    r = uv_poll_init(d->loop, &d->listen_poll, d->listen_fd);
    if (r != 0)
        return r;
    d->listen_poll.data = d;
    return uv_poll_start(&d->listen_poll, UV_READABLE, on_listen_event);
}

void bsd_listen_stop(bsd_daemon *d)
{
    if (d->listen_fd < 0)
        return;
    uv_poll_stop(&d->listen_poll);
    uv_close((uv_handle_t *)&d->listen_poll, NULL);
    uv_timer_stop(&d->accept_pause);
    uv_close((uv_handle_t *)&d->accept_pause, NULL);
    close(d->listen_fd);
    d->listen_fd = -1;
    bsd_listen_unlink(d);
}
