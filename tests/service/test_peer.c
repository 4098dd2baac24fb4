/*
 * SO_PEERCRED: a daemon running as uid 65534 (through setpriv) refuses a peer of another uid
 * (this test, as root) with ERROR not-allowed and a closed connection, and serves a peer of its
 * own uid. The client side: root refuses that daemon in a directory under /tmp; trusts a daemon
 * of a system account (uid 987) in a directory it owns under a root-made parent (as
 * /run/bitslice for the system service), refuses it again when that parent is writable by
 * others or reached through a symlink, and refuses a login account's daemon (uid 54321) in the
 * same layout (as in /home/alice or /run/user/1000, directories root made for a user). The
 * daemon's allow_gids admits a supplementary group of the peer. Needs root, setpriv and a
 * root-owned /run without group/other write; skips (77) otherwise.
 */
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bsd_proto.h"
#include "svc_util.h"

#define NOBODY "65534"
#define SYSUID 987     /* below UID_MIN: a system account, as the bitslice service user */
#define LOGINUID 54321 /* a person's login account */

int main(void)
{
    if (geteuid() != 0 || system("setpriv --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "needs root and setpriv to run the daemon as another uid\n");
        return SVC_SKIP;
    }
    svc_daemon d;
    svc_init(&d);
    CHECK(chown(d.dir, 65534, 65534) == 0);
    static const char *const as_nobody[] = {"setpriv", "--reuid=" NOBODY, "--regid=" NOBODY,
                                            "--clear-groups", NULL};
    svc_start(&d, as_nobody, NULL);

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", d.socket);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    uint8_t buf[BSD_HDR_LEN + BSD_ERROR_REP_FIXED_LEN + BSD_ERROR_TEXT_MAX];
    size_t got = 0;
    for (;;) {
        struct pollfd pf = {fd, POLLIN, 0};
        CHECK(poll(&pf, 1, 5000) == 1);
        ssize_t n = recv(fd, buf + got, sizeof buf - got, 0);
        if (n <= 0)
            break; /* closed after the error */
        got += (size_t)n;
    }
    close(fd);
    bsd_hdr h;
    bsd_error_rep e;
    CHECK(bsd_hdr_decode(buf, got, BSD_MAX_REPLY_PAYLOAD, &h) == BSD_OK);
    CHECK(h.op == (BSD_OP_ERROR | BSD_OP_REPLY) && got == BSD_HDR_LEN + h.len);
    CHECK(bsd_error_rep_decode(buf + BSD_HDR_LEN, h.len, &e) == BSD_OK);
    CHECK(e.code == BSD_E_NOT_ALLOWED);
    printf("root peer refused: %s\n", e.text);

    /* The daemon's own uid is served: bitslice status as uid 65534 succeeds. */
    const char *cli = getenv("BITSLICE");
    CHECK(cli != NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "setpriv --reuid=" NOBODY " --regid=" NOBODY " --clear-groups '%s' status --socket "
             "'%s' | grep -q '^refused_peers=[1-9]'",
             cli, d.socket);
    int rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);

    /* The client side: a daemon of another uid (not ours, not root) gets no keys, even if its
     * allow-list would take us. Here the daemon refuses us anyway; the client must not even
     * say HELLO, and says why. */
    snprintf(cmd, sizeof cmd, "'%s' status --socket '%s' 2>&1 | grep -q 'runs as another user'",
             cli, d.socket);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);

    struct stat st;
    if (stat("/", &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0 ||
        lstat("/run", &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
        (st.st_mode & 022) != 0) {
        fprintf(stderr, "needs a root-owned /run without group/other write\n");
        return SVC_SKIP;
    }
    /* base (root, 0755) / run (65534, 0700) / bitsliced.sock: the system service's layout. */
    svc_daemon t;
    svc_init(&t); /* for svc_fail_hook; its directory under /tmp is not used */
    CHECK(rmdir(t.dir) == 0);
    snprintf(t.dir, sizeof t.dir, "/run/bsd-peer-XXXXXX");
    CHECK(mkdtemp(t.dir) != NULL);
    CHECK(chmod(t.dir, 0755) == 0);
    char run[72];
    snprintf(run, sizeof run, "%s/run", t.dir);
    snprintf(t.socket, sizeof t.socket, "%s/bitsliced.sock", run);
    snprintf(t.log, sizeof t.log, "%s/daemon.log", t.dir);
    static const char *const admit_root[] = {"allow_uids=0", NULL};
    static const char *const as_login[] = {"setpriv", "--reuid=54321", "--regid=54321",
                                           "--clear-groups", NULL};
    static const char *const as_sys[] = {"setpriv", "--reuid=987", "--regid=987", "--clear-groups",
                                         NULL};

    /* A login account's daemon in a directory root made for it (as /home/alice): refused. */
    CHECK(mkdir(run, 0700) == 0 && chown(run, LOGINUID, LOGINUID) == 0);
    svc_start(&t, as_login, admit_root);
    snprintf(cmd, sizeof cmd, "'%s' status --socket '%s' 2>&1 | grep -q 'runs as another user'",
             cli, t.socket);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    CHECK(svc_stop(&t) == 0);
    printf("refused: a login account's daemon (uid %d) in its root-made directory %s\n", LOGINUID,
           run);

    CHECK(chown(run, SYSUID, SYSUID) == 0);
    svc_start(&t, as_sys, admit_root);
    snprintf(cmd, sizeof cmd, "'%s' status --socket '%s' | grep -q '^bytes_served='", cli,
             t.socket);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    printf("trusted: a system account's daemon (uid %d) owns %s under a root-owned 0755 parent\n",
           SYSUID, run);

    /* The same daemon, its directory's parent now writable by others: refused. */
    snprintf(cmd, sizeof cmd, "'%s' status --socket '%s' 2>&1 | grep -q 'runs as another user'",
             cli, t.socket);
    CHECK(chmod(t.dir, 01777) == 0);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    CHECK(chmod(t.dir, 0775) == 0);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    CHECK(chmod(t.dir, 0755) == 0);

    /* Through a symlink to the directory: refused, though it names the same socket. */
    char link[72], via[100];
    snprintf(link, sizeof link, "%s/link", t.dir);
    CHECK(symlink("run", link) == 0);
    snprintf(via, sizeof via, "%s/bitsliced.sock", link);
    snprintf(cmd, sizeof cmd, "'%s' status --socket '%s' 2>&1 | grep -q 'runs as another user'",
             cli, via);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    CHECK(svc_stop(&t) == 0);

    /*
     * allow_gids: a peer whose supplementary groups hold the gid is admitted, one without not
     * (the client then fails with EREMOTEIO or EPIPE, depending on when the close comes). The
     * daemon has refused two peers when the member asks: svc_start's probe and the non-member.
     */
    static const char *const admit_group[] = {"allow_gids=4242", NULL};
    svc_start(&t, as_sys, admit_group);
    snprintf(cmd, sizeof cmd, "setpriv --clear-groups '%s' status --socket '%s' 2>&1", cli,
             t.socket);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
    snprintf(cmd, sizeof cmd,
             "setpriv --groups=4242 '%s' status --socket '%s' | grep -q '^refused_peers=2$'", cli,
             t.socket);
    rc = system(cmd);
    CHECK(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    CHECK(svc_stop(&t) == 0);
    svc_cleanup(&t);
    return 0;
}
