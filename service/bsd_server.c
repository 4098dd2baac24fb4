/*
 * Listener, connections and request handlers. Connections are plain non-blocking Unix stream
 * sockets watched with uv_poll: the daemon does its own recvmsg() because MAP_SHM carries a memfd
 * in SCM_RIGHTS, which uv_stream would treat as a handle to accept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "bsd_daemon.h"
#include "bsd_integrity.h"
#include "bsd_log.h"
#include "modes/ctr.h"
#ifdef BSD_HAVE_CUDA
#include "bsd_backend_cuda.h"
#endif

static void conn_close(bsd_conn *c, const char *why);
static void conn_update_events(bsd_conn *c);

/* ---- shared memory and sessions: reference counted, because jobs in flight use them ---- */

static void shm_unref(bsd_shm *m)
{
    if (m != NULL && --m->refs == 0) {
#ifdef BSD_HAVE_CUDA
        if (m->registered_with != NULL)
            bsd_backend_cuda_unregister(m->registered_with, m->base);
#endif
        munmap(m->base, m->size);
        free(m);
    }
}

static void session_unref(bsd_session *s)
{
    if (s != NULL && --s->refs == 0) {
        bsd_keypool_put(&s->d->keys, s->slot);
        s->d->sessions_open--;
        free(s);
    }
}

static void conn_unref(bsd_conn *c)
{
    if (--c->refs > 0)
        return;
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        c->d->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    c->d->nconns--;
    free(c->out);
    free(c->sessions);
    free(c);
}

/* ---- output ---- */

static void conn_flush(bsd_conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_close(c, "send_failed");
            break;
        }
        c->out_off += (size_t)n;
    }
    if (c->closing)
        return;
    if (c->out_off == c->out_len) {
        c->out_off = c->out_len = 0;
        if (c->close_after_flush) {
            conn_close(c, "protocol_error");
            return;
        }
    }
    conn_update_events(c);
}

static void conn_send(bsd_conn *c, uint8_t op, uint32_t id, const void *payload, size_t len)
{
    if (c->closing)
        return;
    size_t need = c->out_len + BSD_HDR_LEN + len;
    if (need > BSD_OUT_MAX) {
        conn_close(c, "reply_backlog");
        return;
    }
    if (need > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 1024;
        while (cap < need)
            cap *= 2;
        uint8_t *p = (uint8_t *)realloc(c->out, cap);
        if (p == NULL) {
            conn_close(c, "out_of_memory");
            return;
        }
        c->out = p;
        c->out_cap = cap;
    }
    bsd_hdr h = {BSD_PROTO_VERSION, op, id, (uint32_t)len};
    bsd_hdr_encode(c->out + c->out_len, &h);
    if (len > 0)
        memcpy(c->out + c->out_len + BSD_HDR_LEN, payload, len);
    c->out_len += BSD_HDR_LEN + len;
    conn_flush(c);
}

static void send_error(bsd_conn *c, uint32_t id, uint32_t code, const char *text)
{
    uint8_t p[BSD_ERROR_REP_FIXED_LEN + BSD_ERROR_TEXT_MAX];
    size_t n = bsd_error_rep_encode(p, code, text);
    bsd_stats_error(&c->d->stats, code);
    BSD_DEBUG("error_reply", "conn=%u id=%u code=%u reason=\"%s\"", c->cid, id, code,
              bsd_errc_str(code));
    conn_send(c, BSD_OP_ERROR | BSD_OP_REPLY, id, p, n);
}

/* A framing error: answer, then close once the answer is out (the stream cannot be resynced). */
static void fatal_error(bsd_conn *c, uint32_t id, uint32_t code)
{
    BSD_INFO("protocol_error", "conn=%u pid=%d code=%u reason=\"%s\"", c->cid, (int)c->pid, code,
             bsd_errc_str(code));
    send_error(c, id, code, bsd_errc_str(code));
    c->close_after_flush = 1;
    if (!c->closing)
        conn_flush(c);
}

/* ---- request handlers ---- */

static bsd_session *find_session(bsd_conn *c, uint32_t id, unsigned *index)
{
    for (unsigned i = 0; i < c->nsessions; i++)
        if (c->sessions[i]->id == id) {
            if (index != NULL)
                *index = i;
            return c->sessions[i];
        }
    return NULL;
}

static void handle_hello(bsd_conn *c, const bsd_request *r)
{
    if (r->u.hello.min_version > BSD_PROTO_VERSION || r->u.hello.max_version < BSD_PROTO_VERSION) {
        send_error(c, r->hdr.id, BSD_E_VERSION, "this daemon speaks protocol version 2");
        return;
    }
    bsd_hello_rep rep;
    memset(&rep, 0, sizeof rep);
    rep.version = BSD_PROTO_VERSION;
    rep.caps = BSD_CAP_SHM_KEYSTREAM;
    rep.max_sessions = c->d->cfg.max_sessions_per_client;
    rep.max_request_bytes = c->d->cfg.max_request_bytes;
    rep.max_queued_bytes = c->d->cfg.max_queued_bytes;
    snprintf(rep.backend, sizeof rep.backend, "%s", c->d->backend->ops->name);
    uint8_t p[BSD_HELLO_REP_LEN];
    size_t n = bsd_hello_rep_encode(p, &rep);
    c->hello_done = 1;
    conn_send(c, BSD_OP_HELLO | BSD_OP_REPLY, r->hdr.id, p, n);
}

static void handle_map_shm(bsd_conn *c, const bsd_request *r)
{
    uint32_t id = r->hdr.id;
    int fd = c->pending_fd;
    c->pending_fd = -1;
    if (fd < 0) {
        send_error(c, id, BSD_E_NO_SHM, "MAP_SHM needs a memfd in SCM_RIGHTS");
        return;
    }
    uint64_t size = r->u.map_shm.size;
    struct stat st;
    int seals = fcntl(fd, F_GET_SEALS);
    const char *why = NULL;
    if (size > c->d->cfg.max_shm_bytes)
        why = "mapping larger than max_shm_bytes";
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < size)
        why = "fd is not a regular file of at least size bytes";
    /* Without a shrink seal the client could truncate the file under us: SIGBUS on write. */
    else if (seals < 0 || !(seals & F_SEAL_SHRINK))
        why = "memfd must carry F_SEAL_SHRINK";
    if (why != NULL) {
        close(fd);
        send_error(c, id, BSD_E_RANGE, why);
        return;
    }
    void *base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    bsd_shm *m = base == MAP_FAILED ? NULL : (bsd_shm *)calloc(1, sizeof *m);
    if (m == NULL) {
        if (base != MAP_FAILED)
            munmap(base, (size_t)size);
        send_error(c, id, BSD_E_INTERNAL, "cannot map the memfd");
        return;
    }
    m->refs = 1;
    m->base = (uint8_t *)base;
    m->size = size;
#ifdef BSD_HAVE_CUDA
    /* Page-locked windows let the GPU copy keystream straight in; failure only costs speed. */
    if (strcmp(c->d->backend->ops->name, "cuda") == 0 &&
        bsd_backend_cuda_register(c->d->backend, base, (size_t)size) == 0)
        m->registered_with = c->d->backend;
#endif
    shm_unref(c->shm);
    c->shm = m;
    conn_send(c, BSD_OP_MAP_SHM | BSD_OP_REPLY, id, NULL, 0);
}

static void handle_open(bsd_conn *c, bsd_request *r)
{
    bsd_daemon *d = c->d;
    uint32_t id = r->hdr.id;
    const bs_block_cipher *cipher = bs_block_cipher_by_name(r->u.open.cipher);
    if (cipher == NULL) {
        send_error(c, id, BSD_E_UNKNOWN_CIPHER, "cipher not compiled into this daemon");
        return;
    }
    /* The window digest works on 64-bit words (bsd_digest.h): every block cipher here has them. */
    if (cipher->block_len % 8 != 0) {
        send_error(c, id, BSD_E_UNKNOWN_CIPHER, "block length not a multiple of 8 bytes");
        return;
    }
    if (r->u.open.key_len != cipher->key_len) {
        send_error(c, id, BSD_E_KEY_LENGTH, "key length does not match the cipher");
        return;
    }
    if (c->nsessions >= d->cfg.max_sessions_per_client) {
        send_error(c, id, BSD_E_TOO_MANY_SESSIONS, "max_sessions_per_client reached");
        return;
    }
    unsigned slot;
    bs_key_schedule *ks = bsd_keypool_get(&d->keys, &slot);
    bsd_session *s = ks == NULL ? NULL : (bsd_session *)calloc(1, sizeof *s);
    if (s == NULL) {
        if (ks != NULL)
            bsd_keypool_put(&d->keys, slot);
        send_error(c, id, BSD_E_TOO_MANY_SESSIONS, "max_sessions_total reached");
        return;
    }
    cipher->set_key(ks, r->u.open.key);
    s->refs = 1;
    s->id = c->next_session_id++;
    if (c->next_session_id == 0)
        c->next_session_id = 1;
    s->slot = slot;
    s->cipher = cipher;
    s->ks = ks;
    s->d = d;
    c->sessions[c->nsessions++] = s;
    d->sessions_open++;
    bsd_open_rep rep = {s->id, (uint16_t)cipher->block_len};
    uint8_t p[BSD_OPEN_REP_LEN];
    size_t n = bsd_open_rep_encode(p, &rep);
    BSD_DEBUG("session_open", "conn=%u session=%u cipher=%s", c->cid, s->id, cipher->name);
    conn_send(c, BSD_OP_OPEN_SESSION | BSD_OP_REPLY, id, p, n);
}

static void drop_session(bsd_conn *c, unsigned index)
{
    bsd_session *s = c->sessions[index];
    c->sessions[index] = c->sessions[--c->nsessions];
    session_unref(s);
}

static void handle_close(bsd_conn *c, const bsd_request *r)
{
    unsigned index;
    if (find_session(c, r->u.close.session, &index) == NULL) {
        send_error(c, r->hdr.id, BSD_E_NO_SESSION, "no such session on this connection");
        return;
    }
    drop_session(c, index);
    conn_send(c, BSD_OP_CLOSE_SESSION | BSD_OP_REPLY, r->hdr.id, NULL, 0);
}

static void handle_keystream(bsd_conn *c, const bsd_request *r)
{
    bsd_daemon *d = c->d;
    const bsd_keystream_req *k = &r->u.keystream;
    uint32_t id = r->hdr.id;
    if (d->draining) {
        send_error(c, id, BSD_E_SHUTDOWN, "daemon is draining");
        return;
    }
    bsd_session *s = find_session(c, k->session, NULL);
    if (s == NULL) {
        send_error(c, id, BSD_E_NO_SESSION, "no such session on this connection");
        return;
    }
    const size_t bl = s->cipher->block_len;
    for (size_t i = bl; i < BSD_COUNTER_LEN; i++)
        if (k->counter[i] != 0) {
            send_error(c, id, BSD_E_MALFORMED, "counter bytes past the block length not zero");
            return;
        }
    if (c->shm == NULL) {
        send_error(c, id, BSD_E_NO_SHM, "KEYSTREAM before MAP_SHM");
        return;
    }
    /* The decoder bounds nblocks and the offset by 2^40, so none of this overflows. */
    uint64_t bytes = k->nblocks * bl;
    if (bytes > d->cfg.max_request_bytes || k->shm_offset + bytes > c->shm->size) {
        send_error(c, id, BSD_E_RANGE,
                   "destination outside the mapping or above max_request_bytes");
        return;
    }
    if (bs_ctr_blocks_before_wrap(k->counter, bl) < k->nblocks) {
        send_error(c, id, BSD_E_COUNTER_WRAP, "the counter would wrap");
        return;
    }
    if (c->queued_bytes + bytes > d->cfg.max_queued_bytes ||
        d->inflight_jobs >= d->cfg.max_inflight_jobs) {
        send_error(c, id, BSD_E_BUSY, "queue bound reached");
        return;
    }
    /* One peer may not take the whole max_inflight_jobs and leave everyone else BUSY. */
    if (c->inflight >= BSD_CONN_MAX_INFLIGHT) {
        send_error(c, id, BSD_E_BUSY, "too many requests in flight on this connection");
        return;
    }
    bsd_job *job = (bsd_job *)calloc(1, sizeof *job);
    if (job == NULL) {
        send_error(c, id, BSD_E_INTERNAL, "out of memory");
        return;
    }
    job->cipher = s->cipher;
    job->ks = s->ks;
    memcpy(job->counter, k->counter, bl);
    job->nblocks = k->nblocks;
    job->dst = c->shm->base + k->shm_offset;
    job->conn = c;
    job->session = s;
    job->shm = c->shm;
    job->id = id;
    job->enqueued_ns = bsd_now_ns();
    bsd_job_integrity_init(job, (k->flags & BSD_KS_UNCHECKED) != 0);
    if (job->unchecked)
        d->stats.unchecked_requests++;
    if (bsd_batcher_add(&d->batcher, job) != 0) {
        free(job);
        send_error(c, id, BSD_E_INTERNAL, "batcher full");
        return;
    }
    c->refs++;
    s->refs++;
    c->shm->refs++;
    c->queued_bytes += bytes;
    c->inflight++;
    d->inflight_jobs++;
    d->stats.keystream_requests++;
}

void bsd_server_job_done(bsd_job *job, int status)
{
    bsd_conn *c = job->conn;
    bsd_daemon *d = c->d;
    uint64_t bytes = job->nblocks * job->cipher->block_len;
    c->queued_bytes -= bytes;
    c->inflight--;
    d->inflight_jobs--;
    uint64_t digest = 0, unwritten = 0;
    if (status == 0 && bsd_job_verdict(job, &digest, &unwritten) != 0) {
        /* Words still hold this request's poison: the backend did not write them. */
        d->stats.integrity_unwritten_jobs++;
        BSD_ERR("integrity",
                "conn=%u cipher=%s blocks=%llu unwritten_words=%llu "
                "reason=\"backend left poisoned words\"",
                c->cid, job->cipher->name, (unsigned long long)job->nblocks,
                (unsigned long long)unwritten);
        if (!c->closing)
            send_error(c, job->id, BSD_E_INTEGRITY, "the backend did not write the whole window");
    } else if (!c->closing && status != 0) {
        /* The backend failed: the shared memory does not hold this keystream. */
        send_error(c, job->id, BSD_E_INTERNAL, "the backend failed to compute this keystream");
    } else if (!c->closing) {
        bsd_keystream_rep rep = {job->nblocks, digest};
        uint8_t p[BSD_KEYSTREAM_REP_LEN];
        size_t n = bsd_keystream_rep_encode(p, &rep);
        d->stats.bytes_served += bytes;
        conn_send(c, BSD_OP_KEYSTREAM | BSD_OP_REPLY, job->id, p, n);
    }
    session_unref(job->session);
    shm_unref(job->shm);
    free(job);
    conn_unref(c);
}

static void handle_status(bsd_conn *c, const bsd_request *r)
{
    char *text = (char *)malloc(BSD_MAX_REPLY_PAYLOAD);
    if (text == NULL) {
        send_error(c, r->hdr.id, BSD_E_INTERNAL, "out of memory");
        return;
    }
    size_t n = bsd_status_text(c->d, text, BSD_MAX_REPLY_PAYLOAD);
    conn_send(c, BSD_OP_STATUS | BSD_OP_REPLY, r->hdr.id, text, n);
    free(text);
}

/* A client found a window that failed its check: count and log it, so that STATUS shows it. */
static void handle_report(bsd_conn *c, const bsd_request *r)
{
    const bsd_report_req *m = &r->u.report;
    if (m->kind == BSD_REPORT_DIGEST)
        c->d->stats.integrity_client_digest++;
    else
        c->d->stats.integrity_client_spot++;
    BSD_ERR("integrity", "conn=%u uid=%u pid=%d session=%u blocks=%llu reason=\"%s\"", c->cid,
            (unsigned)c->uid, (int)c->pid, m->session, (unsigned long long)m->nblocks,
            m->kind == BSD_REPORT_DIGEST ? "client: window digest mismatch"
                                         : "client: block recomputed in-process differs");
    conn_send(c, BSD_OP_REPORT | BSD_OP_REPLY, r->hdr.id, NULL, 0);
}

static void handle_request(bsd_conn *c, bsd_request *r)
{
    c->d->stats.requests_total++;
    if (r->hdr.op != BSD_OP_HELLO && !c->hello_done) {
        send_error(c, r->hdr.id, BSD_E_STATE, "HELLO first");
        return;
    }
    switch (r->hdr.op) {
    case BSD_OP_HELLO:
        handle_hello(c, r);
        break;
    case BSD_OP_MAP_SHM:
        handle_map_shm(c, r);
        break;
    case BSD_OP_OPEN_SESSION:
        handle_open(c, r);
        break;
    case BSD_OP_CLOSE_SESSION:
        handle_close(c, r);
        break;
    case BSD_OP_KEYSTREAM:
        handle_keystream(c, r);
        break;
    case BSD_OP_STATUS:
        handle_status(c, r);
        break;
    case BSD_OP_REPORT:
        handle_report(c, r);
        break;
    default:
        break; /* the decoder has rejected every other op */
    }
}

/* ---- input ---- */

static void take_fds(bsd_conn *c, struct msghdr *msg)
{
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm != NULL; cm = CMSG_NXTHDR(msg, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *fds = (int *)CMSG_DATA(cm);
        for (size_t i = 0; i < nfd; i++) {
            int fd;
            memcpy(&fd, fds + i, sizeof fd);
            if (c->pending_fd < 0)
                c->pending_fd = fd;
            else
                close(fd); /* one memfd per MAP_SHM; extras are dropped */
        }
    }
}

static void process_input(bsd_conn *c)
{
    size_t off = 0;
    while (!c->closing && !c->close_after_flush) {
        /* Zeroed: a header the decoder rejects early leaves hdr.id unset, and it is echoed. */
        bsd_request req;
        memset(&req, 0, sizeof req);
        size_t used = 0;
        int r = bsd_request_decode(c->in + off, c->in_len - off, &req, &used);
        if (r == BSD_NEED_MORE)
            break;
        if (r != BSD_OK) {
            uint32_t id = c->in_len - off >= BSD_HDR_LEN ? req.hdr.id : 0;
            fatal_error(c, id, (uint32_t)-r);
            break;
        }
        handle_request(c, &req);
        /* A request may carry a key: wipe both copies. */
        explicit_bzero(&req, sizeof req);
        explicit_bzero(c->in + off, used);
        off += used;
    }
    if (off > 0) {
        memmove(c->in, c->in + off, c->in_len - off);
        explicit_bzero(c->in + c->in_len - off, off);
        c->in_len -= off;
        c->partial_since_ns = c->in_len > 0 ? bsd_now_ns() : 0;
    }
}

static void conn_read(bsd_conn *c)
{
    /* Read a bounded amount per wake-up so that one busy client cannot starve the others. */
    for (int rounds = 0; rounds < 16 && !c->closing && !c->close_after_flush; rounds++) {
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(4 * sizeof(int))];
        } ctl;
        struct iovec iov = {c->in + c->in_len, sizeof c->in - c->in_len};
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = ctl.buf;
        msg.msg_controllen = sizeof ctl.buf;
        ssize_t n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_close(c, "recv_failed");
            return;
        }
        take_fds(c, &msg);
        if (n == 0) {
            conn_close(c, c->in_len > 0 ? "eof_mid_frame" : "eof");
            return;
        }
        if (c->in_len == 0)
            c->partial_since_ns = bsd_now_ns();
        c->in_len += (size_t)n;
        process_input(c);
    }
}

static void on_conn_event(uv_poll_t *h, int status, int events)
{
    bsd_conn *c = (bsd_conn *)h->data;
    if (status < 0) {
        conn_close(c, "poll_error");
        return;
    }
    if ((events & UV_WRITABLE) && !c->closing)
        conn_flush(c);
    if ((events & (UV_READABLE | UV_DISCONNECT)) && !c->closing)
        conn_read(c);
}

static void conn_update_events(bsd_conn *c)
{
    if (c->closing)
        return;
    int ev = 0;
    if (!c->close_after_flush)
        ev |= UV_READABLE;
    if (c->out_len > c->out_off)
        ev |= UV_WRITABLE;
    if (ev != c->events) {
        c->events = ev;
        uv_poll_start(&c->poll, ev, on_conn_event);
    }
}

static void on_conn_closed(uv_handle_t *h)
{
    bsd_conn *c = (bsd_conn *)h->data;
    close(c->fd);
    c->fd = -1;
    conn_unref(c);
}

static void conn_close(bsd_conn *c, const char *why)
{
    if (c->closing)
        return;
    c->closing = 1;
    BSD_INFO("disconnect", "conn=%u pid=%d reason=%s inflight=%u", c->cid, (int)c->pid, why,
             c->inflight);
    /* Keys go now unless a job still uses them; then its completion wipes them. */
    while (c->nsessions > 0)
        drop_session(c, c->nsessions - 1);
    shm_unref(c->shm);
    c->shm = NULL;
    if (c->pending_fd >= 0)
        close(c->pending_fd);
    c->pending_fd = -1;
    explicit_bzero(c->in, sizeof c->in);
    uv_poll_stop(&c->poll);
    uv_close((uv_handle_t *)&c->poll, on_conn_closed);
}

/* ---- listener ---- */

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
    if (!peer_allowed(&d->cfg, fd, cred.uid, cred.gid)) {
        BSD_WARN("refused", "reason=peer_not_allowed uid=%u gid=%u pid=%d", (unsigned)cred.uid,
                 (unsigned)cred.gid, (int)cred.pid);
        d->stats.refused_peers++;
        bsd_stats_error(&d->stats, BSD_E_NOT_ALLOWED);
        refuse(fd, BSD_E_NOT_ALLOWED, "peer uid/gid not in the allow-list");
        return;
    }
    if (d->nconns >= d->cfg.max_clients || d->draining) {
        BSD_WARN("refused", "reason=%s uid=%u pid=%d", d->draining ? "draining" : "max_clients",
                 (unsigned)cred.uid, (int)cred.pid);
        bsd_stats_error(&d->stats, d->draining ? BSD_E_SHUTDOWN : BSD_E_BUSY);
        refuse(fd, d->draining ? BSD_E_SHUTDOWN : BSD_E_BUSY,
               d->draining ? "daemon is draining" : "max_clients reached");
        return;
    }
    bsd_conn *c = (bsd_conn *)calloc(1, sizeof *c);
    bsd_session **ss = (bsd_session **)calloc(d->cfg.max_sessions_per_client, sizeof *ss);
    if (c == NULL || ss == NULL || uv_poll_init(d->loop, &c->poll, fd) != 0) {
        free(c);
        free(ss);
        close(fd);
        return;
    }
    c->d = d;
    c->fd = fd;
    c->refs = 1;
    c->pending_fd = -1;
    c->sessions = ss;
    c->next_session_id = 1;
    c->cid = ++d->next_cid;
    c->uid = cred.uid;
    c->gid = cred.gid;
    c->pid = cred.pid;
    c->poll.data = c;
    c->next = d->conns;
    if (d->conns != NULL)
        d->conns->prev = c;
    d->conns = c;
    d->nconns++;
    d->stats.connections_total++;
    BSD_INFO("accept", "conn=%u uid=%u pid=%d", c->cid, (unsigned)cred.uid, (int)cred.pid);
    conn_update_events(c);
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
                BSD_WARN("accept", "errno=%d", errno);
            return;
        }
        accept_one(d, fd);
    }
}

static void on_tick(uv_timer_t *t)
{
    bsd_daemon *d = (bsd_daemon *)t->data;
    uint64_t now = bsd_now_ns();
    uint64_t limit = (uint64_t)d->cfg.read_timeout_ms * 1000000u;
    for (bsd_conn *c = d->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (!c->closing && !c->close_after_flush && c->in_len > 0 &&
            now - c->partial_since_ns > limit)
            fatal_error(c, 0, BSD_E_TIMEOUT);
    }
}

/* The directory must be ours and 0700: the socket's only access control besides SO_PEERCRED. */
static int prepare_dir(const char *sock, char *err, size_t errlen)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof dir, "%s", sock);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) {
        snprintf(err, errlen, "socket %s: needs its own directory", sock);
        return -1;
    }
    *slash = 0;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", dir);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "%s: owned by uid %u, not by this daemon's uid %u", dir,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    if ((st.st_mode & 0777) != 0700) {
        if (chmod(dir, 0700) != 0) {
            snprintf(err, errlen, "chmod 0700 %s: %s", dir, strerror(errno));
            return -1;
        }
        BSD_WARN("socket_dir", "path=%s old_mode=%o new_mode=700", dir,
                 (unsigned)(st.st_mode & 0777));
    }
    return 0;
}

/* A socket file left by a daemon that died: nobody accepts on it, so it can go. */
static int remove_stale(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a socket", path);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
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
    return unlink(path);
}

int bsd_server_listen(bsd_daemon *d, char *err, size_t errlen)
{
    /* systemd socket activation: LISTEN_FDS=1 and LISTEN_PID=us hand over fd 3. */
    const char *lfds = getenv("LISTEN_FDS"), *lpid = getenv("LISTEN_PID");
    if (lfds != NULL && lpid != NULL && atoi(lfds) >= 1 && atoi(lpid) == (int)getpid()) {
        int fd = 3, type = 0, listening = 0;
        socklen_t l = sizeof type;
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l);
        l = sizeof listening;
        getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &l);
        if (type != SOCK_STREAM || !listening) {
            snprintf(err, errlen, "LISTEN_FDS: fd 3 is not a listening stream socket");
            return -1;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        unsetenv("LISTEN_FDS");
        unsetenv("LISTEN_PID");
        unsetenv("LISTEN_FDNAMES");
        d->listen_fd = fd;
        d->socket_activated = 1;
        BSD_INFO("listen", "socket_activated=1 fd=3");
        return 0;
    }
    const char *path = d->cfg.socket_path;
    if (prepare_dir(path, err, errlen) != 0 || remove_stale(path, err, errlen) != 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    mode_t old = umask(0177);
    int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (r != 0 || listen(fd, 128) != 0) {
        snprintf(err, errlen, "bind/listen %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    d->listen_fd = fd;
    d->unlink_on_exit = 1;
    BSD_INFO("listen", "socket=%s", path);
    return 0;
}

int bsd_server_start(bsd_daemon *d)
{
    int r = uv_poll_init(d->loop, &d->listen_poll, d->listen_fd);
    if (r != 0)
        return r;
    d->listen_poll.data = d;
    r = uv_poll_start(&d->listen_poll, UV_READABLE, on_listen_event);
    if (r != 0)
        return r;
    uv_timer_init(d->loop, &d->tick);
    d->tick.data = d;
    uint64_t period = d->cfg.read_timeout_ms < 1000 ? d->cfg.read_timeout_ms / 4 + 1 : 250;
    return uv_timer_start(&d->tick, on_tick, period, period);
}

void bsd_server_stop_listening(bsd_daemon *d)
{
    if (d->listen_fd < 0)
        return;
    uv_poll_stop(&d->listen_poll);
    uv_close((uv_handle_t *)&d->listen_poll, NULL);
    close(d->listen_fd);
    d->listen_fd = -1;
    if (d->unlink_on_exit)
        unlink(d->cfg.socket_path);
    uv_timer_stop(&d->tick);
    uv_close((uv_handle_t *)&d->tick, NULL);
}

void bsd_server_close_all(bsd_daemon *d)
{
    for (bsd_conn *c = d->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (!c->closing) {
            conn_flush(c);
            conn_close(c, "shutdown");
        }
    }
}
