/*
 * SO_PEERCRED: a daemon running as uid 65534 (through setpriv) refuses a peer of another uid
 * (this test, as root) with ERROR not-allowed and a closed connection, and serves a peer of its
 * own uid. Needs root and setpriv; skips (77) otherwise.
 */
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bsd_proto.h"
#include "svc_util.h"

#define NOBODY "65534"

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
    return 0;
}
