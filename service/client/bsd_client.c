#include "bsd_client.h"
#include "bsd_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Answers that arrived while the caller waited for another one. */
#define BSD_CLIENT_PARKED 64

typedef struct parked {
    uint32_t id;
    uint8_t op;
    uint32_t err;
    uint64_t digest; /* of a KEYSTREAM reply */
} parked;

/* Where a KEYSTREAM request that asked for pieces has its piece digests decoded to. */
typedef struct pieces_sink {
    uint32_t id;
    uint64_t *pieces;
    size_t npieces;
} pieces_sink;

struct bsd_client {
    int fd;
    pid_t pid;
    int io_timeout_ms;
    uint32_t next_id;
    bsd_hello_rep info;
    uint8_t *shm;
    size_t shm_size;
    int shm_populated;   /* allocated whole here (bsd_client_map_shm), so freed here at close */
    uint32_t unanswered; /* requests sent whose reply has not been read (a job may be running) */
    int raw_sent;        /* bsd_client_send_raw was used: unanswered is not known */
    parked parked[BSD_CLIENT_PARKED];
    unsigned nparked;
    pieces_sink sinks[BSD_CLIENT_PARKED];
    unsigned nsinks;
    uint32_t last_err;
    char last_text[BSD_ERROR_TEXT_MAX + 1];
    uint8_t rbuf[BSD_HDR_LEN + BSD_MAX_REPLY_PAYLOAD];
    size_t rlen;
    uint64_t stalls; /* waits that found no reply bytes waiting and had to block */
    /* KEYSTREAM frames held back between bsd_client_hold and bsd_client_flush (one write). */
    int holding;
    unsigned nheld;
    size_t held_len;
    uint8_t held[BSD_CLIENT_HELD * (BSD_HDR_LEN + BSD_KEYSTREAM_REQ_LEN)];
};

/*
 * The process id, cached: glibc no longer caches getpid(), and a system call per EVP call was a
 * fifth of the client's time on 4 KiB calls. Renewed in the child by a pthread_atfork handler
 * (fork() runs it; a raw clone() or _Fork() does not, and is not supported here).
 */
static pid_t cached_pid;
static pthread_once_t pid_once = PTHREAD_ONCE_INIT;

static void pid_renew(void)
{
    __atomic_store_n(&cached_pid, getpid(), __ATOMIC_RELAXED);
}

static void pid_init(void)
{
    pid_renew();
    (void)pthread_atfork(NULL, NULL, pid_renew);
}

pid_t bsd_client_getpid(void)
{
    pthread_once(&pid_once, pid_init);
    return __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void bsd_client_default_socket(char *out, size_t len)
{
    bsd_default_socket(out, len, 1);
}

/*
 * The first uid of login accounts (UID_MIN of /etc/login.defs, 1000 when it says nothing): the
 * daemons that rule 3 below may trust run as system accounts, below it.
 */
static uid_t login_uid_min(void)
{
    static long cached = -1;
    long v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v >= 0)
        return (uid_t)v;
    v = 1000;
    FILE *f = fopen("/etc/login.defs", "re");
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof line, f) != NULL) {
            char key[32];
            long n;
            if (sscanf(line, " %31s %ld", key, &n) == 2 && strcmp(key, "UID_MIN") == 0 && n > 0)
                v = n;
        }
        fclose(f);
    }
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    return (uid_t)v;
}

/*
 * A daemon of another uid is trusted when it runs as a system account (below UID_MIN: the
 * bitslice service user, not another person's login) that owns the directory that holds the
 * socket, and only root could have made that directory there, as systemd-tmpfiles makes
 * /run/bitslice for the system service: the socket path is absolute with no "." or ".." component,
 * every directory from "/" down to the socket's parent's parent is owned by root with no write bit
 * for group or others, and no component is a symlink. Each component is opened (O_PATH |
 * O_NOFOLLOW) from the one above and checked with fstat, so the checks apply to the directories the
 * path named when walked; a non-root user can neither rename nor replace any of them.
 */
static int dir_owner_is(const char *path, uid_t uid)
{
    char buf[sizeof(((struct sockaddr_un *)0)->sun_path)];
    size_t n = strlen(path);
    if (path[0] != '/' || n >= sizeof buf)
        return 0;
    memcpy(buf, path, n + 1);
    char *slash = strrchr(buf, '/');
    if (slash == buf)
        return 0;
    *slash = 0;
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int ok = fd >= 0;
    for (char *save = NULL, *t = strtok_r(buf, "/", &save); ok && t != NULL;
         t = strtok_r(NULL, "/", &save)) {
        struct stat st;
        ok = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
             (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 && strcmp(t, ".") != 0 && strcmp(t, "..") != 0;
        int next = ok ? openat(fd, t, O_PATH | O_NOFOLLOW | O_CLOEXEC) : -1;
        close(fd);
        fd = next;
        ok = ok && fd >= 0;
    }
    struct stat st;
    ok = ok && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid;
    if (fd >= 0)
        close(fd);
    /*
     * Every login's home (/home/alice) and runtime directory (/run/user/1000) is a directory of
     * that user made by root: without this, anyone's daemon there would get everyone's keys.
     */
    return ok && uid < login_uid_min();
}

static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
        if (r > 0)
            return 0;
        if (r < 0 && errno != EINTR)
            return -errno;
    }
}

static int send_all(bsd_client *c, const uint8_t *buf, size_t len, int fd_to_pass)
{
    int64_t deadline = now_ms() + c->io_timeout_ms;
    size_t off = 0;
    while (off < len) {
        struct iovec iov = {(void *)(buf + off), len - off};
        struct msghdr msg;
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(sizeof(int))];
        } ctl;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        if (fd_to_pass >= 0 && off == 0) {
            memset(&ctl, 0, sizeof ctl);
            msg.msg_control = ctl.buf;
            msg.msg_controllen = sizeof ctl.buf;
            struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(cm), &fd_to_pass, sizeof(int));
        }
        ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                int r = wait_fd(c->fd, POLLOUT, deadline);
                if (r != 0)
                    return r;
                continue;
            }
            return errno == ECONNRESET ? -EPIPE : -errno;
        }
        off += (size_t)n;
    }
    return 0;
}

/*
 * Sends the held frames in one write. They count as unanswered even when the write fails part
 * way (what reached the daemon may be running): close then leaves the shared memory to it.
 */
static int flush_held(bsd_client *c)
{
    if (c->nheld == 0)
        return 0;
    int r = c->fd >= 0 ? send_all(c, c->held, c->held_len, -1) : -EPIPE;
    c->unanswered += c->nheld;
    c->nheld = 0;
    c->held_len = 0;
    return r;
}

static int send_frame(bsd_client *c, uint8_t op, const uint8_t *payload, size_t len,
                      uint32_t *id_out, int fd_to_pass)
{
    if (bsd_client_getpid() != c->pid)
        return -ECHILD;
    if (c->fd < 0)
        return -EPIPE;
    /* Only KEYSTREAM frames are held (no key, no fd); anything else goes out after them. */
    const int hold =
        c->holding && op == BSD_OP_KEYSTREAM && fd_to_pass < 0 && len <= BSD_KEYSTREAM_REQ_LEN;
    int r = 0;
    if (!hold || c->held_len + BSD_HDR_LEN + len > sizeof c->held)
        r = flush_held(c);
    if (r != 0)
        return r;
    uint8_t buf[BSD_HDR_LEN + BSD_MAX_REQUEST_PAYLOAD];
    uint32_t id = c->next_id++;
    if (c->next_id == 0)
        c->next_id = 1;
    bsd_hdr h = {BSD_PROTO_VERSION, op, id, (uint32_t)len};
    bsd_hdr_encode(hold ? c->held + c->held_len : buf, &h);
    if (hold) {
        if (len > 0)
            memcpy(c->held + c->held_len + BSD_HDR_LEN, payload, len);
        c->held_len += BSD_HDR_LEN + len;
        c->nheld++;
        if (id_out != NULL)
            *id_out = id;
        return 0;
    }
    if (len > 0)
        memcpy(buf + BSD_HDR_LEN, payload, len);
    r = send_all(c, buf, BSD_HDR_LEN + len, fd_to_pass);
    /* The buffer may hold a key. */
    explicit_bzero(buf, sizeof buf);
    if (r != 0)
        return r;
    c->unanswered++;
    if (id_out != NULL)
        *id_out = id;
    return 0;
}

/*
 * A KEYSTREAM reply's payload: its digest, and its piece digests into the sink registered for
 * id, if any (then removed). -1 when it does not decode as the request asked.
 */
static int take_keystream(bsd_client *c, uint32_t id, const uint8_t *p, size_t len,
                          uint64_t *digest)
{
    bsd_keystream_rep k = {0, 0};
    for (unsigned i = 0; i < c->nsinks; i++) {
        if (c->sinks[i].id != id)
            continue;
        pieces_sink sk = c->sinks[i];
        c->sinks[i] = c->sinks[--c->nsinks];
        if (bsd_keystream_rep_decode_pieces(p, len, &k, sk.pieces, sk.npieces) != BSD_OK)
            return -1;
        *digest = k.digest;
        return 0;
    }
    if (bsd_keystream_rep_decode(p, len, &k) != BSD_OK)
        return -1;
    *digest = k.digest;
    return 0;
}

/* The request id was answered with an error: its sink, if any, is not written. */
static void drop_sink(bsd_client *c, uint32_t id)
{
    for (unsigned i = 0; i < c->nsinks; i++)
        if (c->sinks[i].id == id) {
            c->sinks[i] = c->sinks[--c->nsinks];
            return;
        }
}

/*
 * Reads frames until the reply to id arrives or the deadline passes. The reply's payload is
 * copied to out (up to *out_len bytes; *out_len becomes its length); replies to other ids are
 * parked. A broken stream poisons the client: every later call fails.
 */
static int read_reply(bsd_client *c, uint32_t id, uint8_t expect_op, uint8_t *out, size_t *out_len,
                      int timeout_ms)
{
    if (bsd_client_getpid() != c->pid)
        return -ECHILD;
    /* A request still held would never be answered. */
    int fr = flush_held(c);
    if (fr != 0)
        return fr;
    for (unsigned i = 0; i < c->nparked; i++) {
        if (c->parked[i].id != id)
            continue;
        parked p = c->parked[i];
        c->parked[i] = c->parked[--c->nparked];
        if (p.op == (BSD_OP_ERROR | BSD_OP_REPLY)) {
            c->last_err = p.err;
            snprintf(c->last_text, sizeof c->last_text, "%s", bsd_errc_str(p.err));
            return -EREMOTEIO;
        }
        if (p.op != (expect_op | BSD_OP_REPLY))
            return -EPROTO;
        /* Only KEYSTREAM replies are parked with a payload worth keeping: re-encode it. */
        if (expect_op == BSD_OP_KEYSTREAM && out != NULL && out_len != NULL &&
            *out_len >= BSD_KEYSTREAM_REP_LEN) {
            bsd_keystream_rep k = {0, p.digest};
            *out_len = bsd_keystream_rep_encode(out, &k);
        }
        return 0;
    }
    if (c->fd < 0)
        return -EPIPE;
    int64_t deadline = now_ms() + timeout_ms;
    int stalled = 0;
    for (;;) {
        bsd_hdr h;
        int r = bsd_hdr_decode(c->rbuf, c->rlen, BSD_MAX_REPLY_PAYLOAD, &h);
        if (r < 0 || (r == BSD_OK && !(h.op & BSD_OP_REPLY)))
            goto broken;
        if (r == BSD_OK && c->rlen >= BSD_HDR_LEN + h.len) {
            const uint8_t *p = c->rbuf + BSD_HDR_LEN;
            int result = 1; /* 1: not ours, keep reading */
            uint32_t err = 0;
            if (h.op == (BSD_OP_ERROR | BSD_OP_REPLY)) {
                bsd_error_rep e;
                if (bsd_error_rep_decode(p, h.len, &e) != BSD_OK)
                    goto broken;
                err = e.code;
                drop_sink(c, h.id);
                /* id 0: the daemon refused the connection or lost the framing. */
                if (h.id == id || h.id == 0) {
                    c->last_err = e.code;
                    snprintf(c->last_text, sizeof c->last_text, "%s", e.text);
                    result = -EREMOTEIO;
                }
            } else if (h.id == id) {
                if (h.op != (expect_op | BSD_OP_REPLY))
                    goto broken;
                if (h.op == (BSD_OP_KEYSTREAM | BSD_OP_REPLY)) {
                    /* Its piece digests go to their sink; the caller gets the fixed part. */
                    bsd_keystream_rep k = {0, 0};
                    if (take_keystream(c, h.id, p, h.len, &k.digest) != 0)
                        goto broken;
                    if (out != NULL && out_len != NULL && *out_len >= BSD_KEYSTREAM_REP_LEN)
                        *out_len = bsd_keystream_rep_encode(out, &k);
                } else if (out != NULL && out_len != NULL) {
                    size_t n = h.len < *out_len ? h.len : *out_len;
                    memcpy(out, p, n);
                    *out_len = h.len;
                }
                result = 0;
            }
            if (result == 1) {
                if (c->nparked == BSD_CLIENT_PARKED)
                    goto broken;
                bsd_keystream_rep k = {0, 0};
                if (h.op == (BSD_OP_KEYSTREAM | BSD_OP_REPLY) &&
                    take_keystream(c, h.id, p, h.len, &k.digest) != 0)
                    goto broken;
                c->parked[c->nparked].id = h.id;
                c->parked[c->nparked].op = h.op;
                c->parked[c->nparked].err = err;
                c->parked[c->nparked].digest = k.digest;
                c->nparked++;
            }
            if (h.id != 0 && c->unanswered > 0)
                c->unanswered--;
            size_t used = BSD_HDR_LEN + h.len;
            memmove(c->rbuf, c->rbuf + used, c->rlen - used);
            c->rlen -= used;
            if (result != 1)
                return result;
            continue;
        }
        /*
         * Read first, poll only when nothing is there: a reply that arrived while the caller
         * worked costs one system call. A KEYSTREAM wait that finds none of its reply's bytes
         * (nothing buffered) is a stall (bsd_client_stalls), once per wait; the rest of a reply
         * already arriving, and other requests' waits (RATE, STATUS), are not.
         */
        ssize_t n = recv(c->fd, c->rbuf + c->rlen, sizeof c->rbuf - c->rlen, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (expect_op == BSD_OP_KEYSTREAM && c->rlen == 0 && !stalled) {
                stalled = 1;
                c->stalls++;
            }
            r = wait_fd(c->fd, POLLIN, deadline);
            if (r != 0)
                return r;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(c->fd);
            c->fd = -1;
            return -EPIPE;
        }
        c->rlen += (size_t)n;
    }
broken:
    close(c->fd);
    c->fd = -1;
    return -EPROTO;
}

int bsd_client_connect(const bsd_client_opts *opts, bsd_client **out)
{
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    if (opts != NULL && opts->socket_path != NULL)
        snprintf(path, sizeof path, "%s", opts->socket_path);
    else
        bsd_client_default_socket(path, sizeof path);
    int connect_ms = opts != NULL && opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 1000;
    bsd_client *c = (bsd_client *)calloc(1, sizeof *c);
    if (c == NULL)
        return -ENOMEM;
    c->pid = bsd_client_getpid();
    c->next_id = 1;
    c->io_timeout_ms = opts != NULL && opts->io_timeout_ms > 0 ? opts->io_timeout_ms : 5000;
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (c->fd < 0) {
        free(c);
        return -errno;
    }
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int64_t deadline = now_ms() + connect_ms;
    int r;
    for (;;) {
        if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
            r = 0;
            break;
        }
        r = -errno;
        /* A full backlog answers EAGAIN on a non-blocking Unix socket: retry until the deadline. */
        if ((r != -EAGAIN && r != -EINTR) || now_ms() >= deadline)
            break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (r == -EAGAIN)
        r = -ETIMEDOUT;
    if (r == 0) {
        /*
         * Keys go to whoever listens on the socket: only a daemon of our own uid, root's, or
         * one that owns a root-made socket directory (dir_owner_is) may have them. Anything
         * else is refused before a byte is sent (-EPERM).
         */
        struct ucred cred;
        socklen_t cl = sizeof cred;
        if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0)
            r = -errno;
        else if (cred.uid != geteuid() && cred.uid != 0 && !dir_owner_is(path, cred.uid))
            r = -EPERM;
    }
    if (r == 0) {
        bsd_hello_req hr = {BSD_PROTO_VERSION, BSD_PROTO_VERSION};
        uint8_t p[BSD_HELLO_REQ_LEN];
        uint8_t rep[BSD_HELLO_REP_LEN];
        size_t rlen = sizeof rep;
        uint32_t id;
        r = send_frame(c, BSD_OP_HELLO, p, bsd_hello_req_encode(p, &hr), &id, -1);
        if (r == 0)
            /* Only the connect timeout: a stalled daemon must not hold up the caller longer. */
            r = read_reply(c, id, BSD_OP_HELLO, rep, &rlen, connect_ms);
        if (r == 0 && bsd_hello_rep_decode(rep, rlen, &c->info) != BSD_OK)
            r = -EPROTO;
    }
    if (r != 0) {
        bsd_client_close(c);
        return r;
    }
    *out = c;
    return 0;
}

void bsd_client_close(bsd_client *c)
{
    if (c == NULL)
        return;
    /* After fork() the socket and mapping are shared with the parent: only drop our references. */
    if (c->fd >= 0)
        close(c->fd);
    /*
     * Memory this process allocated whole it also frees, here: otherwise the daemon's unmap,
     * the last reference once the socket is closed, freed every page on its loop thread (after a
     * 1 GiB mapping, the next stream's daemon CPU measured 0.26 ns/B instead of 0.11 on the
     * 2-vCPU VM, and its rate fell from 10 to 4 GB/s; other clients wait meanwhile). Not while
     * a request is unanswered (e.g. after a timeout): its job may still be running, and the
     * hole would zero words under the daemon's check (PROTOCOL.md "Integrity") and make its
     * writes allocate pages again; the daemon's unmap frees them then. Not in a child after
     * fork(): the memory is the parent's.
     */
    if (c->shm != NULL && c->shm_populated && c->unanswered == 0 && !c->raw_sent &&
        bsd_client_getpid() == c->pid)
        (void)madvise(c->shm, c->shm_size, MADV_REMOVE);
    if (c->shm != NULL)
        munmap(c->shm, c->shm_size);
    explicit_bzero(c, sizeof *c);
    free(c);
}

const bsd_hello_rep *bsd_client_info(const bsd_client *c)
{
    return &c->info;
}

uint32_t bsd_client_last_error(const bsd_client *c, const char **text)
{
    if (text != NULL)
        *text = c->last_text;
    return c->last_err;
}

int bsd_client_fd(const bsd_client *c)
{
    return c->fd;
}

int bsd_client_map_shm(bsd_client *c, size_t size)
{
    return bsd_client_map_shm_ex(c, size, 1);
}

int bsd_client_map_shm_ex(bsd_client *c, size_t size, int populate)
{
    if (bsd_client_getpid() != c->pid)
        return -ECHILD;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size = (size + page - 1) / page * page;
    int fd = memfd_create("bitslice-keystream", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    int r = 0;
    if (ftruncate(fd, (off_t)size) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        r = -errno;
    /*
     * populate: every page allocated here, at once, and the daemon maps them all (no faults on
     * either side). Else the daemon allocates the windows it is asked for, before it writes
     * them, within the uid's quota (PROTOCOL.md, MAP_SHM).
     */
    void *p = r == 0 ? mmap(NULL, size, PROT_READ | PROT_WRITE,
                            MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0)
                     : MAP_FAILED;
    if (r == 0 && p == MAP_FAILED)
        r = -errno;
    /* The mapping holds keystream: keep it out of core dumps (advice; failure is harmless). */
    if (r == 0)
        (void)madvise(p, size, MADV_DONTDUMP);
    if (r == 0) {
        bsd_map_shm_req m = {size};
        uint8_t pl[BSD_MAP_SHM_REQ_LEN];
        uint32_t id;
        r = send_frame(c, BSD_OP_MAP_SHM, pl, bsd_map_shm_req_encode(pl, &m), &id, fd);
        if (r == 0)
            r = read_reply(c, id, BSD_OP_MAP_SHM, NULL, NULL, c->io_timeout_ms);
    }
    close(fd);
    if (r != 0) {
        if (p != MAP_FAILED)
            munmap(p, size);
        return r;
    }
    if (c->shm != NULL)
        munmap(c->shm, c->shm_size);
    c->shm = (uint8_t *)p;
    c->shm_size = size;
    c->shm_populated = populate;
    return 0;
}

uint8_t *bsd_client_shm(const bsd_client *c, size_t *size)
{
    if (size != NULL)
        *size = c->shm_size;
    return c->shm;
}

int bsd_client_open_session(bsd_client *c, const char *cipher, const uint8_t *key, size_t key_len,
                            uint32_t *session, unsigned *block_len)
{
    if (strlen(cipher) > BSD_CIPHER_NAME_LEN || key_len == 0 || key_len > BSD_KEY_MAX)
        return -EINVAL;
    bsd_open_req m;
    memset(&m, 0, sizeof m);
    snprintf(m.cipher, sizeof m.cipher, "%s", cipher);
    m.key_len = (uint16_t)key_len;
    memcpy(m.key, key, key_len);
    uint8_t pl[BSD_OPEN_REQ_FIXED_LEN + BSD_KEY_MAX];
    size_t n = bsd_open_req_encode(pl, &m);
    uint32_t id;
    int r = send_frame(c, BSD_OP_OPEN_SESSION, pl, n, &id, -1);
    explicit_bzero(&m, sizeof m);
    explicit_bzero(pl, sizeof pl);
    if (r != 0)
        return r;
    uint8_t rep[BSD_OPEN_REP_LEN];
    size_t rlen = sizeof rep;
    r = read_reply(c, id, BSD_OP_OPEN_SESSION, rep, &rlen, c->io_timeout_ms);
    if (r != 0)
        return r;
    bsd_open_rep o;
    if (bsd_open_rep_decode(rep, rlen, &o) != BSD_OK)
        return -EPROTO;
    *session = o.session;
    if (block_len != NULL)
        *block_len = o.block_len;
    return 0;
}

int bsd_client_close_session(bsd_client *c, uint32_t session)
{
    bsd_close_req m = {session};
    uint8_t pl[BSD_CLOSE_REQ_LEN];
    uint32_t id;
    int r = send_frame(c, BSD_OP_CLOSE_SESSION, pl, bsd_close_req_encode(pl, &m), &id, -1);
    if (r == 0)
        r = read_reply(c, id, BSD_OP_CLOSE_SESSION, NULL, NULL, c->io_timeout_ms);
    return r;
}

static int bench_unchecked;

void bsd_client_bench_set_unchecked(int on)
{
    __atomic_store_n(&bench_unchecked, on != 0, __ATOMIC_RELAXED);
}

int bsd_client_bench_unchecked(void)
{
    return __atomic_load_n(&bench_unchecked, __ATOMIC_RELAXED);
}

int bsd_client_keystream_submit(bsd_client *c, uint32_t session, const uint8_t *counter,
                                size_t counter_len, uint64_t nblocks, uint64_t shm_offset,
                                uint32_t *req_id)
{
    if (counter_len == 0 || counter_len > BSD_COUNTER_LEN)
        return -EINVAL;
    bsd_keystream_req m;
    memset(&m, 0, sizeof m);
    m.session = session;
    m.flags = bsd_client_bench_unchecked() ? BSD_KS_UNCHECKED : 0;
    m.shm_offset = shm_offset;
    m.nblocks = nblocks;
    memcpy(m.counter, counter, counter_len);
    uint8_t pl[BSD_KEYSTREAM_REQ_LEN];
    return send_frame(c, BSD_OP_KEYSTREAM, pl, bsd_keystream_req_encode(pl, &m), req_id, -1);
}

int bsd_client_keystream_submit_pieces(bsd_client *c, uint32_t session, const uint8_t *counter,
                                       size_t counter_len, uint64_t nblocks, uint64_t shm_offset,
                                       unsigned piece_log2, uint64_t *pieces, size_t npieces,
                                       uint32_t *req_id)
{
    if (counter_len == 0 || counter_len > BSD_COUNTER_LEN || piece_log2 < BSD_KS_PIECE_LOG2_MIN ||
        piece_log2 > BSD_KS_PIECE_LOG2_MAX || npieces == 0 || npieces > BSD_KS_MAX_PIECES ||
        c->nsinks == BSD_CLIENT_PARKED)
        return -EINVAL;
    bsd_keystream_req m;
    memset(&m, 0, sizeof m);
    m.session = session;
    m.flags = (bsd_client_bench_unchecked() ? BSD_KS_UNCHECKED : 0) |
              ((uint32_t)piece_log2 << BSD_KS_PIECE_SHIFT);
    m.shm_offset = shm_offset;
    m.nblocks = nblocks;
    memcpy(m.counter, counter, counter_len);
    uint8_t pl[BSD_KEYSTREAM_REQ_LEN];
    uint32_t id = 0;
    int r = send_frame(c, BSD_OP_KEYSTREAM, pl, bsd_keystream_req_encode(pl, &m), &id, -1);
    if (r != 0)
        return r;
    c->sinks[c->nsinks].id = id;
    c->sinks[c->nsinks].pieces = pieces;
    c->sinks[c->nsinks].npieces = npieces;
    c->nsinks++;
    *req_id = id;
    return 0;
}

int bsd_client_wait_keystream(bsd_client *c, uint32_t req_id, int timeout_ms, uint64_t *digest)
{
    uint8_t rep[BSD_KEYSTREAM_REP_LEN];
    size_t rlen = sizeof rep;
    int r = read_reply(c, req_id, BSD_OP_KEYSTREAM, rep, &rlen, timeout_ms);
    bsd_keystream_rep k = {0, 0};
    if (r == 0 && bsd_keystream_rep_decode(rep, rlen, &k) != BSD_OK)
        r = -EPROTO;
    /* The daemon's own check refused the window: as wrong keystream, not a refused request. */
    if (r == -EREMOTEIO && c->last_err == BSD_E_INTEGRITY)
        r = -EBADMSG;
    if (digest != NULL)
        *digest = k.digest;
    return r;
}

int bsd_client_wait(bsd_client *c, uint32_t req_id, int timeout_ms)
{
    return bsd_client_wait_keystream(c, req_id, timeout_ms, NULL);
}

int bsd_client_report(bsd_client *c, uint32_t kind, uint32_t session, uint64_t nblocks)
{
    bsd_report_req m = {kind, session, nblocks};
    uint8_t pl[BSD_REPORT_REQ_LEN];
    uint32_t id;
    int r = send_frame(c, BSD_OP_REPORT, pl, bsd_report_req_encode(pl, &m), &id, -1);
    /* Best effort, on the way to dropping this daemon: not worth a long wait. */
    if (r == 0)
        r = read_reply(c, id, BSD_OP_REPORT, NULL, NULL,
                       c->io_timeout_ms < 500 ? c->io_timeout_ms : 500);
    return r;
}

int bsd_client_keystream(bsd_client *c, uint32_t session, const uint8_t *counter,
                         size_t counter_len, uint64_t nblocks, uint64_t shm_offset)
{
    uint32_t id;
    int r = bsd_client_keystream_submit(c, session, counter, counter_len, nblocks, shm_offset, &id);
    return r != 0 ? r : bsd_client_wait(c, id, c->io_timeout_ms);
}

int bsd_client_status(bsd_client *c, char *out, size_t len)
{
    uint32_t id;
    int r = send_frame(c, BSD_OP_STATUS, NULL, 0, &id, -1);
    if (r != 0)
        return r;
    size_t n = len > 0 ? len - 1 : 0;
    r = read_reply(c, id, BSD_OP_STATUS, (uint8_t *)out, &n, c->io_timeout_ms);
    if (r != 0)
        return r;
    if (len > 0)
        out[n < len - 1 ? n : len - 1] = 0;
    return 0;
}

void bsd_client_hold(bsd_client *c)
{
    c->holding = 1;
}

int bsd_client_flush(bsd_client *c)
{
    c->holding = 0;
    if (bsd_client_getpid() != c->pid) {
        c->nheld = 0;
        c->held_len = 0;
        return -ECHILD;
    }
    return flush_held(c);
}

uint64_t bsd_client_stalls(const bsd_client *c)
{
    return c->stalls;
}

int bsd_client_rate(bsd_client *c, const char *cipher, bsd_rate_rep *out)
{
    memset(out, 0, sizeof *out);
    if ((c->info.caps & BSD_CAP_RATE) == 0)
        return -EOPNOTSUPP;
    if (strlen(cipher) > BSD_CIPHER_NAME_LEN)
        return -EINVAL;
    bsd_rate_req m;
    memset(&m, 0, sizeof m);
    memcpy(m.cipher, cipher, strlen(cipher));
    uint8_t pl[BSD_RATE_REQ_LEN], rep[BSD_RATE_REP_LEN];
    uint32_t id;
    int r = send_frame(c, BSD_OP_RATE, pl, bsd_rate_req_encode(pl, &m), &id, -1);
    if (r != 0)
        return r;
    size_t n = sizeof rep;
    r = read_reply(c, id, BSD_OP_RATE, rep, &n, c->io_timeout_ms);
    if (r != 0)
        return r;
    return bsd_rate_rep_decode(rep, n, out) == BSD_OK ? 0 : -EPROTO;
}

int bsd_client_send_raw(bsd_client *c, const void *buf, size_t len, int fd)
{
    c->raw_sent = 1;
    return send_all(c, (const uint8_t *)buf, len, fd);
}
