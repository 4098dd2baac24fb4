/*
 * Connections (bsd_conn.h): reference counts, output backlog, input framing, read timeouts and
 * close. Each decoded request goes to the daemon's on_request (bsd_handlers.c).
 */
#include "bsd_conn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bsd_log.h"

static void conn_update_events(bsd_conn *c);

/* ---- shared memory and sessions: reference counted, because jobs in flight use them ---- */

void bsd_shm_unref(bsd_shm *m)
{
    if (m != NULL && --m->refs == 0) {
        if (m->registered_with != NULL)
            m->registered_with->ops->unregister_memory(m->registered_with, m->base);
        munmap(m->base, m->size);
        m->peer->shm_bytes -= m->size;
        free(m->populated);
        free(m);
    }
}

void bsd_session_unref(bsd_session *s)
{
    if (s != NULL && --s->refs == 0) {
        /* No job of the session is left: the backend's copies of its key go first (zeroed). */
        bsd_backend *be = s->d->backend;
        if (s->dev_key != 0 && be != NULL && be->ops->close_key != NULL)
            be->ops->close_key(be, s->dev_key);
        bsd_keypool_put(&s->d->keys, s->slot);
        s->d->sessions_open--;
        s->peer->sessions--;
        free(s);
    }
}

void bsd_conn_unref(bsd_conn *c)
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
    c->d->nclosing--;
    c->peer->clients--;
    free(c->out);
    free(c->sessions);
    free(c);
}

void bsd_conn_drop_session(bsd_conn *c, unsigned index)
{
    bsd_session *s = c->sessions[index];
    c->sessions[index] = c->sessions[--c->nsessions];
    bsd_session_unref(s);
}

/* ---- output ---- */

static void conn_flush(bsd_conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        c->d->stats.syscalls++;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                bsd_conn_close(c, "send_failed");
            break;
        }
        c->out_off += (size_t)n;
    }
    if (c->closing)
        return;
    if (c->out_off == c->out_len) {
        c->out_off = c->out_len = 0;
        if (c->close_after_flush) {
            bsd_conn_close(c, "protocol_error");
            return;
        }
    }
    conn_update_events(c);
}

/*
 * Replies are queued and sent once per turn of the loop, just before it blocks (the prepare
 * handle), so that the answers of one batch, or to the requests of one read, go out in one
 * send per connection rather than one each. A backlog past BSD_OUT_FLUSH goes out at once.
 */
#define BSD_OUT_FLUSH (64u << 10)

static void flush_dirty(bsd_daemon *d)
{
    bsd_conn *c;
    while ((c = d->dirty) != NULL) {
        d->dirty = c->dirty_next;
        c->dirty_next = NULL;
        c->dirty = 0;
        if (!c->closing)
            conn_flush(c);
        bsd_conn_unref(c);
    }
}

static void on_flush(uv_prepare_t *h)
{
    bsd_daemon *d = (bsd_daemon *)h->data;
    flush_dirty(d);
    d->stats.syscalls++; /* the poll wait this turn of the loop makes next */
}

void bsd_conn_send(bsd_conn *c, uint8_t op, uint32_t id, const void *payload, size_t len)
{
    if (c->closing)
        return;
    size_t need = c->out_len + BSD_HDR_LEN + len;
    if (need > BSD_OUT_MAX) {
        bsd_conn_close(c, "reply_backlog");
        return;
    }
    if (need > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 1024;
        while (cap < need)
            cap *= 2;
        uint8_t *p = (uint8_t *)realloc(c->out, cap);
        if (p == NULL) {
            bsd_conn_close(c, "out_of_memory");
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
    if (c->out_len - c->out_off >= BSD_OUT_FLUSH) {
        conn_flush(c);
    } else if (!c->dirty) {
        c->dirty = 1;
        c->refs++; /* until the flush */
        c->dirty_next = c->d->dirty;
        c->d->dirty = c;
    }
}

void bsd_conn_send_error(bsd_conn *c, uint32_t id, uint32_t code, const char *text)
{
    uint8_t p[BSD_ERROR_REP_FIXED_LEN + BSD_ERROR_TEXT_MAX];
    size_t n = bsd_error_rep_encode(p, code, text);
    bsd_stats_error(&c->d->stats, code);
    BSD_DEBUG("error_reply", "conn=%u id=%u code=%u reason=\"%s\"", c->cid, id, code,
              bsd_errc_str(code));
    bsd_conn_send(c, BSD_OP_ERROR | BSD_OP_REPLY, id, p, n);
}

/* A framing error: answer, then close once the answer is out (the stream cannot be resynced). */
void bsd_conn_fatal_error(bsd_conn *c, uint32_t id, uint32_t code)
{
    BSD_PEER_LOG(&c->d->peers, c->peer, "info", "protocol_error",
                 "conn=%u pid=%d code=%u reason=\"%s\"", c->cid, (int)c->pid, code,
                 bsd_errc_str(code));
    bsd_conn_send_error(c, id, code, bsd_errc_str(code));
    c->close_after_flush = 1;
    if (!c->closing)
        conn_flush(c);
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
            bsd_conn_fatal_error(c, id, (uint32_t)-r);
            break;
        }
        c->active_ns = bsd_now_ns();
        c->d->on_request(c, &req);
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
        c->d->stats.syscalls++;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                bsd_conn_close(c, "recv_failed");
            return;
        }
        take_fds(c, &msg);
        if (n == 0) {
            bsd_conn_close(c, c->in_len > 0 ? "eof_mid_frame" : "eof");
            return;
        }
        if (c->in_len == 0)
            c->partial_since_ns = bsd_now_ns();
        c->in_len += (size_t)n;
        process_input(c);
        /*
         * A read shorter than the room it had took what was there: the poll (level-triggered)
         * says when there is more, and a further recvmsg now would most often say EAGAIN.
         */
        if ((size_t)n < iov.iov_len)
            return;
    }
}

static void on_conn_event(uv_poll_t *h, int status, int events)
{
    bsd_conn *c = (bsd_conn *)h->data;
    if (status < 0) {
        bsd_conn_close(c, "poll_error");
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
    bsd_conn_unref(c);
}

void bsd_conn_close(bsd_conn *c, const char *why)
{
    if (c->closing)
        return;
    c->closing = 1;
    c->d->nclosing++;
    BSD_PEER_LOG(&c->d->peers, c->peer, "info", "disconnect",
                 "conn=%u pid=%d reason=%s inflight=%u", c->cid, (int)c->pid, why, c->inflight);
    /* Its jobs not yet on the backend are dropped, not computed for nobody. */
    if (c->d->on_close != NULL)
        c->d->on_close(c);
    /* Keys go now unless a job still uses them; then its completion wipes them. */
    while (c->nsessions > 0)
        bsd_conn_drop_session(c, c->nsessions - 1);
    bsd_shm_unref(c->shm);
    c->shm = NULL;
    if (c->pending_fd >= 0)
        close(c->pending_fd);
    c->pending_fd = -1;
    explicit_bzero(c->in, sizeof c->in);
    uv_poll_stop(&c->poll);
    uv_close((uv_handle_t *)&c->poll, on_conn_closed);
}

/* ---- lifetime ---- */

bsd_conn *bsd_conn_new(bsd_daemon *d, int fd, const struct ucred *cred)
{
    bsd_conn *c = (bsd_conn *)calloc(1, sizeof *c);
    bsd_session **ss = (bsd_session **)calloc(d->cfg.max_sessions_per_client, sizeof *ss);
    bsd_peer *peer = bsd_peer_get(&d->peers, cred->uid, bsd_now_ns());
    if (c == NULL || ss == NULL || peer == NULL || uv_poll_init(d->loop, &c->poll, fd) != 0) {
        free(c);
        free(ss);
        close(fd);
        return NULL;
    }
    c->d = d;
    c->fd = fd;
    c->refs = 1;
    c->pending_fd = -1;
    c->sessions = ss;
    c->next_session_id = 1;
    c->cid = ++d->next_cid;
    c->peer = peer;
    peer->clients++;
    c->uid = cred->uid;
    c->gid = cred->gid;
    c->pid = cred->pid;
    c->opened_ns = c->active_ns = bsd_now_ns();
    c->poll.data = c;
    c->next = d->conns;
    if (d->conns != NULL)
        d->conns->prev = c;
    d->conns = c;
    d->nconns++;
    d->stats.connections_total++;
    BSD_PEER_LOG(&d->peers, peer, "info", "accept", "conn=%u uid=%u pid=%d", c->cid,
                 (unsigned)cred->uid, (int)cred->pid);
    conn_update_events(c);
    return c;
}

void bsd_conn_close_all(bsd_daemon *d)
{
    flush_dirty(d);
    for (bsd_conn *c = d->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (!c->closing) {
            conn_flush(c);
            bsd_conn_close(c, "shutdown");
        }
    }
}

static void on_tick(uv_timer_t *t)
{
    bsd_daemon *d = (bsd_daemon *)t->data;
    uint64_t now = bsd_now_ns();
    uint64_t limit = (uint64_t)d->cfg.read_timeout_ms * 1000000u;
    uint64_t hello = (uint64_t)d->cfg.hello_timeout_ms * 1000000u;
    uint64_t idle = (uint64_t)d->cfg.idle_timeout_ms * 1000000u;
    for (bsd_conn *c = d->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (c->closing || c->close_after_flush)
            continue;
        if (c->in_len > 0 && now - c->partial_since_ns > limit) {
            bsd_conn_fatal_error(c, 0, BSD_E_TIMEOUT);
        } else if (!c->hello_done && now - c->opened_ns > hello) {
            /* Connected and never said HELLO: it holds a client slot for nothing. */
            BSD_PEER_LOG(&d->peers, c->peer, "info", "timeout", "conn=%u uid=%u reason=no_hello",
                         c->cid, (unsigned)c->uid);
            bsd_conn_fatal_error(c, 0, BSD_E_TIMEOUT);
        } else if (idle != 0 && c->inflight == 0 && c->in_len == 0 && now - c->active_ns > idle) {
            BSD_PEER_LOG(&d->peers, c->peer, "info", "timeout", "conn=%u uid=%u reason=idle",
                         c->cid, (unsigned)c->uid);
            bsd_conn_fatal_error(c, 0, BSD_E_TIMEOUT);
        }
    }
    bsd_peers_tick(&d->peers, now);
}

int bsd_conn_start_timeouts(bsd_daemon *d)
{
    uv_timer_init(d->loop, &d->tick);
    d->tick.data = d;
    uint64_t period = d->cfg.read_timeout_ms < 1000 ? d->cfg.read_timeout_ms / 4 + 1 : 250;
    uv_prepare_init(d->loop, &d->flush);
    d->flush.data = d;
    int r = uv_prepare_start(&d->flush, on_flush);
    /* It runs on every turn, but only the daemon's other handles keep the loop alive. */
    uv_unref((uv_handle_t *)&d->flush);
    return r != 0 ? r : uv_timer_start(&d->tick, on_tick, period, period);
}

void bsd_conn_stop_timeouts(bsd_daemon *d)
{
    uv_timer_stop(&d->tick);
    uv_close((uv_handle_t *)&d->tick, NULL);
}
