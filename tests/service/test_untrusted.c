/*
 * A daemon that answers every request with success but never writes keystream (a silently
 * failing backend, or an impostor): the clients must notice before using the shared memory and
 * continue in-process with the same bytes. The fake daemon is a child process speaking the
 * protocol through bsd_proto.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bsd_source.h"
#include "bsd_proto.h"
#include "bsd_stream.h"
#include "modes/ctr.h"
#include "svc_util.h"

static char dir[64], sock_path[100];
static pid_t fake_pid = -1;

static void reply(int fd, uint8_t op, uint32_t id, const uint8_t *p, size_t n)
{
    uint8_t buf[BSD_HDR_LEN + 64];
    bsd_hdr h = {BSD_PROTO_VERSION, (uint8_t)(op | BSD_OP_REPLY), id, (uint32_t)n};
    bsd_hdr_encode(buf, &h);
    memcpy(buf + BSD_HDR_LEN, p, n);
    (void)!write(fd, buf, BSD_HDR_LEN + n);
}

/* One connection: every request gets its success reply; KEYSTREAM writes nothing. */
static void serve(int fd)
{
    static uint8_t in[1 << 16];
    size_t len = 0;
    for (;;) {
        char cbuf[CMSG_SPACE(4 * sizeof(int))];
        struct iovec iov = {in + len, sizeof in - len};
        struct msghdr msg = {0};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf;
        msg.msg_controllen = sizeof cbuf;
        ssize_t r = recvmsg(fd, &msg, 0);
        if (r <= 0)
            return;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm))
            if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
                int mfd;
                memcpy(&mfd, CMSG_DATA(cm), sizeof mfd);
                close(mfd);
            }
        len += (size_t)r;
        for (;;) {
            bsd_request req;
            size_t used = 0;
            int d = bsd_request_decode(in, len, &req, &used);
            if (d == BSD_NEED_MORE)
                break;
            if (d != BSD_OK)
                return;
            uint8_t p[64];
            size_t n = 0;
            if (req.hdr.op == BSD_OP_HELLO) {
                bsd_hello_rep h = {BSD_PROTO_VERSION, 0, 16, 1 << 26, 1 << 28, "cpu"};
                n = bsd_hello_rep_encode(p, &h);
            } else if (req.hdr.op == BSD_OP_OPEN_SESSION) {
                const bs_block_cipher *bc = bs_block_cipher_by_name(req.u.open.cipher);
                bsd_open_rep o = {1, (uint16_t)(bc != NULL ? bc->block_len : 8)};
                n = bsd_open_rep_encode(p, &o);
            } else if (req.hdr.op == BSD_OP_KEYSTREAM) {
                bsd_keystream_rep k = {req.u.keystream.nblocks, 0};
                n = bsd_keystream_rep_encode(p, &k);
            }
            reply(fd, req.hdr.op, req.hdr.id, p, n);
            memmove(in, in + used, len - used);
            len -= used;
        }
    }
}

static void fake_start(void)
{
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(l >= 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock_path);
    CHECK(bind(l, (struct sockaddr *)&sa, sizeof sa) == 0);
    CHECK(listen(l, 8) == 0);
    fake_pid = fork();
    CHECK(fake_pid >= 0);
    if (fake_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a failing CHECK in the parent must not leave it */
        signal(SIGCHLD, SIG_IGN);
        /* One process per connection: a client never waits behind another's connection. */
        for (;;) {
            int c = accept(l, NULL, NULL);
            if (c < 0)
                _exit(0);
            if (fork() == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(l);
                serve(c);
                _exit(0);
            }
            close(c);
        }
    }
    close(l);
}

static void fake_stop(void)
{
    kill(fake_pid, SIGKILL);
    waitpid(fake_pid, NULL, 0);
}

/* The stream refuses the unwritten window before delivering a byte, and says where to resume. */
static void stream_refuses(void)
{
    const bs_block_cipher *bc = bs_block_cipher_by_name("PRESENT-80");
    if (bc == NULL)
        bc = bs_block_cipher_by_name("RIJNDAEL-256");
    CHECK(bc != NULL);
    uint8_t key[BS_KEY_MAX], ctr[32] = {0}, out[4096];
    svc_fill(key, sizeof key, 1);
    ctr[0] = 7;
    bsd_stream_opts so = {sock_path, 1000, 2000, 8192, 2, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s = NULL;
    uint64_t before = bsd_stream_mismatches();
    CHECK(bsd_stream_open(&so, bc, key, bc->key_len, ctr, &s) == 0);
    CHECK(bsd_stream_read(s, svc_schedule(bc, key), out, sizeof out) == -EBADMSG);
    CHECK(bsd_stream_position(s) == 0);
    CHECK(bsd_stream_mismatches() == before + 1);
    bsd_stream_close(s);
}

/* The CTR offload the provider uses: the same bytes as bs_ctr, now in-process, and a backoff. */
static void ctr_same_bytes(const bs_block_cipher *bc, int first)
{
    uint8_t key[BS_KEY_MAX], iv[32] = {0};
    svc_fill(key, sizeof key, 2);
    svc_fill(iv, bs_ctr_iv_len(bc), 3);
    bsd_source_opts o = {sock_path, 0, 1000, 2000, 16384, 3, BSD_OFFLOAD_ALWAYS};
    bs_keystream_source *src = bsd_source_new(&o);
    static bs_ctr_ctx off_ctx;
    bs_ctr_ctx *off = &off_ctx;
    CHECK(src != NULL);
    bs_ctr_set_source(off, src);
    CHECK(bs_ctr_set_key(off, bc, key, bc->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(off, iv, bs_ctr_iv_len(bc)) == BS_OK);
    static bs_ctr_ctx ref;
    CHECK(bs_ctr_set_key(&ref, bc, key, bc->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(&ref, iv, bs_ctr_iv_len(bc)) == BS_OK);
    static uint8_t pt[200000], a[sizeof pt], b[sizeof pt];
    svc_fill(pt, sizeof pt, 4);
    CHECK(bs_ctr_crypt(off, a, pt, sizeof pt) == BS_OK);
    CHECK(bs_ctr_crypt(&ref, b, pt, sizeof pt) == BS_OK);
    CHECK(memcmp(a, b, sizeof pt) == 0);
    uint64_t dbytes, lbytes;
    bsd_source_counts(src, &dbytes, &lbytes);
    CHECK(dbytes == 0 && lbytes >= sizeof pt); /* whole blocks */
    /* The first mismatch starts the process-wide backoff: later contexts do not try. */
    CHECK(bsd_source_fallback_reason(src) == (first ? -EBADMSG : -EAGAIN));
    CHECK(bsd_source_backoff_ms() > 0);
    bs_ctr_clear(off);
    src->ops->free(src);
    bs_ctr_clear(&ref);
}

/*
 * A socket that accepts (backlog) and never answers HELLO: connect gives up after the connect
 * timeout, not the I/O timeout (60 s here; the alarm turns a wait that long into a failure).
 */
static void stalled_hello(void)
{
    char path[100];
    CHECK(snprintf(path, sizeof path, "%s/stalled.sock", dir) < (int)sizeof path);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(l >= 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    CHECK(bind(l, (struct sockaddr *)&sa, sizeof sa) == 0);
    CHECK(listen(l, 8) == 0);
    bsd_client_opts o = {path, 200, 60000};
    bsd_client *c = NULL;
    alarm(20);
    CHECK(bsd_client_connect(&o, &c) == -ETIMEDOUT);
    alarm(0);
    close(l);
    unlink(path);
}

/* The backoff doubles with each failure in a row: about 2 s left right after the second. */
static void backoff_doubles(const bs_block_cipher *bc)
{
    while (bsd_source_backoff_ms() > 0) {
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    uint8_t key[BS_KEY_MAX] = {1}, iv[32] = {2}, buf[4096];
    bsd_source_opts o = {sock_path, 0, 1000, 2000, 16384, 3, BSD_OFFLOAD_ALWAYS};
    bs_keystream_source *src = bsd_source_new(&o);
    static bs_ctr_ctx off_ctx;
    bs_ctr_ctx *off = &off_ctx;
    CHECK(src != NULL);
    bs_ctr_set_source(off, src);
    CHECK(bs_ctr_set_key(off, bc, key, bc->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(off, iv, bs_ctr_iv_len(bc)) == BS_OK);
    CHECK(bs_ctr_crypt(off, buf, buf, sizeof buf) == BS_OK);
    CHECK(bsd_source_fallback_reason(src) == -EBADMSG);
    CHECK(bsd_source_backoff_ms() > 1000);
    bs_ctr_clear(off);
    src->ops->free(src);
}

static int run(const char *const *argv)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    static uint8_t buf[1 << 20];
    *n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

/* bitslice seal through the fake daemon: still a correct sealed file, payload not in clear. */
static void seal_correct(void)
{
    const char *bitslice = getenv("BITSLICE");
    CHECK(bitslice != NULL);
    char key[128], pt[128], bs[128], back[128];
    snprintf(key, sizeof key, "%s/key", dir);
    snprintf(pt, sizeof pt, "%s/pt", dir);
    snprintf(bs, sizeof bs, "%s/pt.bs", dir);
    snprintf(back, sizeof back, "%s/pt.back", dir);
    uint8_t k[32];
    static uint8_t data[300000];
    svc_fill(k, sizeof k, 5);
    memset(data, 'A', sizeof data); /* plaintext in the clear would show as runs of 'A' */
    FILE *f = fopen(key, "wb");
    CHECK(f != NULL && fwrite(k, 1, sizeof k, f) == sizeof k && fclose(f) == 0);
    f = fopen(pt, "wb");
    CHECK(f != NULL && fwrite(data, 1, sizeof data, f) == sizeof data && fclose(f) == 0);
    const char *seal[] = {bitslice,       "seal", "-q", "--socket", sock_path, "-k", key,
                          "--chunk-log2", "16",   "-o", bs,         pt,        NULL};
    CHECK(run(seal) == 0);
    size_t n;
    const uint8_t *sealed = slurp(bs, &n);
    size_t run_a = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        run_a = sealed[i] == 'A' ? run_a + 1 : 0;
        longest = run_a > longest ? run_a : longest;
    }
    CHECK(longest < 16);
    const char *open_[] = {bitslice, "open", "-q", "--no-daemon", "-k", key, "-o", back, bs, NULL};
    CHECK(run(open_) == 0);
    const uint8_t *got = slurp(back, &n);
    CHECK(n == sizeof data && memcmp(got, data, n) == 0);
    /* And open through the fake daemon: the chunks still verify. */
    unlink(back);
    const char *open2[] = {bitslice, "open", "-q", "--socket", sock_path, "-k",
                           key,      "-o",   back, bs,         NULL};
    CHECK(run(open2) == 0);
    got = slurp(back, &n);
    CHECK(n == sizeof data && memcmp(got, data, n) == 0);
    unlink(key);
    unlink(pt);
    unlink(bs);
    unlink(back);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/bsd-fake-XXXXXX", tmp != NULL ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(sock_path, sizeof sock_path, "%s/fake.sock", dir);
    fake_start();
    stream_refuses();
    printf("bsd_stream: unwritten keystream refused before use\n");
    const bs_block_cipher *cs[16];
    size_t nc = svc_ciphers(cs, 16);
    for (size_t i = 0; i < nc; i++) {
        ctr_same_bytes(cs[i], i == 0);
        printf("%s: offloaded CTR through a lying daemon == bs_ctr\n", cs[i]->name);
    }
    if (nc > 0) {
        backoff_doubles(cs[0]);
        printf("backoff after a second failure: %lld ms\n", bsd_source_backoff_ms());
    }
    stalled_hello();
    printf("a daemon that never answers HELLO: -ETIMEDOUT after the connect timeout\n");
    if (bs_block_cipher_by_name("RIJNDAEL-256") != NULL) {
        seal_correct();
        printf("seal through a lying daemon: correct file, opens in-process\n");
    }
    fake_stop();
    unlink(sock_path);
    rmdir(dir);
    return 0;
}
