/*
 * The request handlers (bsd_handlers.h). A KEYSTREAM request becomes a job for the batcher,
 * embedded in a ks_job that holds what the answer needs; the job's connection, session and
 * shared memory stay referenced until bsd_handle_job_done answers it.
 */
#include "bsd_handlers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bsd_integrity.h"
#include "bsd_log.h"
#include "bsd_status.h"
#include "modes/ctr.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 (uapi asm-generic/mman-common.h) */
#endif

/* KEYSTREAM requests one connection may have in flight (clients use 8 at most). */
#define BSD_CONN_MAX_INFLIGHT 64

/*
 * RATE on a cipher with no figure makes the daemon calibrate it first: BSD_RATE_CALIBRATION_JOBS
 * jobs of BSD_RATE_CALIBRATION_BYTES, one after the other, under a fixed public key, into the
 * daemon's own memory; the batcher times each as it times every batch (bsd_batcher_rate: the best
 * of the recent ones counts, so one preempted job on a busy machine does not make the figure).
 */
#define BSD_RATE_CALIBRATION_BYTES ((uint64_t)1 << 20)
#define BSD_RATE_CALIBRATION_JOBS 4

/*
 * A KEYSTREAM job and the daemon's bookkeeping for its answer; backends see only job. A RATE
 * calibration job (cal_ks set) has no session and no shared memory: it writes into cal_buf and
 * is answered with the cipher's rate once done.
 */
typedef struct ks_job {
    bsd_job job;
    bsd_conn *conn;
    bsd_session *session;
    bsd_shm *shm;
    uint32_t id;
    bs_key_schedule *cal_ks;
    uint8_t *cal_buf;
    size_t cal_len;
    int cal_registered;
    unsigned cal_left; /* jobs still to run after this one */
    uint64_t cal_best; /* bytes per second, the best job so far */
} ks_job;

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
        bsd_conn_send_error(c, r->hdr.id, BSD_E_VERSION, "this daemon speaks protocol version 2");
        return;
    }
    bsd_hello_rep rep;
    memset(&rep, 0, sizeof rep);
    rep.version = BSD_PROTO_VERSION;
    rep.caps = BSD_CAP_SHM_KEYSTREAM | BSD_CAP_PIECES | BSD_CAP_RATE;
    rep.max_sessions = c->d->cfg.max_sessions_per_client;
    rep.max_request_bytes = c->d->cfg.max_request_bytes;
    rep.max_queued_bytes = c->d->cfg.max_queued_bytes;
    snprintf(rep.backend, sizeof rep.backend, "%s", c->d->backend->ops->name);
    uint8_t p[BSD_HELLO_REP_LEN];
    size_t n = bsd_hello_rep_encode(p, &rep);
    c->hello_done = 1;
    bsd_conn_send(c, BSD_OP_HELLO | BSD_OP_REPLY, r->hdr.id, p, n);
}

static void handle_map_shm(bsd_conn *c, const bsd_request *r)
{
    uint32_t id = r->hdr.id;
    int fd = c->pending_fd;
    c->pending_fd = -1;
    if (fd < 0) {
        bsd_conn_send_error(c, id, BSD_E_NO_SHM, "MAP_SHM needs a memfd in SCM_RIGHTS");
        return;
    }
    uint64_t size = r->u.map_shm.size;
    struct stat st;
    int seals = fcntl(fd, F_GET_SEALS);
    const char *why = NULL;
    /* What this uid has mapped, less the mapping this one replaces if nothing else holds it. */
    bsd_peer *peer = c->peer;
    const uint64_t held =
        peer->shm_bytes - (c->shm != NULL && c->shm->refs == 1 ? c->shm->size : 0);
    uint32_t code = BSD_E_RANGE;
    if (size > c->d->cfg.max_shm_bytes)
        why = "mapping larger than max_shm_bytes";
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < size)
        why = "fd is not a regular file of at least size bytes";
    /* Without a shrink seal the client could truncate the file under us: SIGBUS on write. */
    else if (seals < 0 || !(seals & F_SEAL_SHRINK))
        why = "memfd must carry F_SEAL_SHRINK";
    else if (held + size > bsd_config_shm_per_uid(&c->d->cfg)) {
        why = "max_shm_bytes_per_uid reached";
        code = BSD_E_BUSY;
        c->d->stats.per_uid_refusals++;
    }
    if (why != NULL) {
        close(fd);
        bsd_conn_send_error(c, id, code, why);
        return;
    }
    /*
     * Populated here when the client has already allocated every page of the file (its own
     * MAP_POPULATE does): then the workers' writes into reused windows take no page faults, and
     * populating only maps pages the client was charged for. A file with holes is mapped as it is,
     * so that a client cannot make the daemon allocate (and be charged for) a whole mapping it
     * never asks keystream for: only the windows requested are allocated (shm_populate, before
     * their jobs run), within the uid's max_shm_bytes_per_uid.
     */
    const int allocated = (uint64_t)st.st_blocks * 512 >= (uint64_t)st.st_size;
    void *base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                      MAP_SHARED | (allocated ? MAP_POPULATE : 0), fd, 0);
    close(fd);
    bsd_shm *m = base == MAP_FAILED ? NULL : (bsd_shm *)calloc(1, sizeof *m);
    /* With holes: which chunks shm_populate has allocated (none yet). */
    const size_t nchunks =
        (size_t)((size + ((uint64_t)1 << BSD_SHM_CHUNK_LOG2) - 1) >> BSD_SHM_CHUNK_LOG2);
    if (m != NULL && !allocated) {
        m->populated = (uint8_t *)calloc(nchunks / 8 + 1, 1);
        if (m->populated == NULL) {
            free(m);
            m = NULL;
        }
    }
    if (m == NULL) {
        if (base != MAP_FAILED)
            munmap(base, (size_t)size);
        bsd_conn_send_error(c, id, BSD_E_INTERNAL, "cannot map the memfd");
        return;
    }
    m->refs = 1;
    m->base = (uint8_t *)base;
    m->size = size;
    m->peer = peer;
    peer->shm_bytes += size;
    /* E.g. page-locked windows let a GPU copy keystream straight in; failure only costs speed. */
    bsd_backend *be = c->d->backend;
    if (be->ops->register_memory != NULL && be->ops->unregister_memory != NULL &&
        be->ops->register_memory(be, base, (size_t)size) == 0)
        m->registered_with = be;
    bsd_shm_unref(c->shm);
    c->shm = m;
    bsd_conn_send(c, BSD_OP_MAP_SHM | BSD_OP_REPLY, id, NULL, 0);
}

/*
 * Allocates the pages of [off, off + len) of a mapping with holes before a backend writes there,
 * a chunk (2^BSD_SHM_CHUNK_LOG2 bytes) at a time, each chunk once for the mapping's life. A write
 * that allocates a page and finds no memory (memfd or memory cgroup full, strict overcommit)
 * would get SIGBUS, and the daemon with it; MADV_POPULATE_WRITE reports it as an error instead,
 * answered to that one request. 0, or the negative errno of the failed allocation. Where the
 * kernel has no MADV_POPULATE_WRITE (before Linux 5.14: EINVAL) the backend's writes allocate the
 * pages, as they did before.
 */
static int shm_populate(bsd_shm *m, uint64_t off, uint64_t len)
{
    static int unsupported;
    if (m->populated == NULL || len == 0 || unsupported)
        return 0;
    const uint64_t chunk = (uint64_t)1 << BSD_SHM_CHUNK_LOG2;
    uint64_t i = off >> BSD_SHM_CHUNK_LOG2;
    const uint64_t end = (off + len - 1) >> BSD_SHM_CHUNK_LOG2;
    while (i <= end) {
        if (m->populated[i / 8] & (1u << (i % 8))) {
            i++;
            continue;
        }
        uint64_t j = i;
        while (j + 1 <= end && !(m->populated[(j + 1) / 8] & (1u << ((j + 1) % 8))))
            j++;
        const uint64_t a = i * chunk;
        const uint64_t b = (j + 1) * chunk < m->size ? (j + 1) * chunk : m->size;
        int r = -ENOMEM; /* the test hook's answer */
        if (bsd_fault_mode() != BSD_FAULT_NOMEM) {
            while ((r = madvise(m->base + a, (size_t)(b - a), MADV_POPULATE_WRITE)) != 0 &&
                   errno == EINTR)
                ;
            if (r != 0)
                r = -errno;
        }
        if (r == -EINVAL) {
            unsupported = 1;
            BSD_WARN("shm_populate",
                     "reason=\"madvise(MADV_POPULATE_WRITE): %s; windows are "
                     "allocated by the backend's writes\"",
                     strerror(EINVAL));
            return 0;
        }
        if (r != 0)
            return r;
        for (uint64_t k = i; k <= j; k++)
            m->populated[k / 8] |= (uint8_t)(1u << (k % 8));
        i = j + 1;
    }
    return 0;
}

static void handle_open(bsd_conn *c, bsd_request *r)
{
    bsd_daemon *d = c->d;
    uint32_t id = r->hdr.id;
    const bs_block_cipher *cipher = bs_block_cipher_by_name(r->u.open.cipher);
    if (cipher == NULL) {
        bsd_conn_send_error(c, id, BSD_E_UNKNOWN_CIPHER, "cipher not compiled into this daemon");
        return;
    }
    /* The window digest works on 64-bit words (bs_digest.h): every block cipher here has them. */
    if (cipher->block_len % 8 != 0) {
        bsd_conn_send_error(c, id, BSD_E_UNKNOWN_CIPHER, "block length not a multiple of 8 bytes");
        return;
    }
    if (r->u.open.key_len != cipher->key_len) {
        bsd_conn_send_error(c, id, BSD_E_KEY_LENGTH, "key length does not match the cipher");
        return;
    }
    if (c->nsessions >= d->cfg.max_sessions_per_client) {
        bsd_conn_send_error(c, id, BSD_E_TOO_MANY_SESSIONS, "max_sessions_per_client reached");
        return;
    }
    /*
     * Fair share: one uid never holds every key slot (the others keep a quarter at least). Its
     * count includes slots still held by jobs of its closed connections.
     */
    if (c->peer->sessions >= bsd_peer_cap(d->cfg.max_sessions_per_uid, d->cfg.max_sessions_total)) {
        d->stats.per_uid_refusals++;
        bsd_conn_send_error(c, id, BSD_E_TOO_MANY_SESSIONS, "max_sessions_per_uid reached");
        return;
    }
    unsigned slot;
    bs_key_schedule *ks = bsd_keypool_get(&d->keys, &slot);
    bsd_session *s = ks == NULL ? NULL : (bsd_session *)calloc(1, sizeof *s);
    if (s == NULL) {
        if (ks != NULL)
            bsd_keypool_put(&d->keys, slot);
        bsd_conn_send_error(c, id, BSD_E_TOO_MANY_SESSIONS, "max_sessions_total reached");
        return;
    }
    cipher->set_key(ks, r->u.open.key);
    /* E.g. the CUDA backend expands the key on its devices now, once for the session. */
    if (d->backend->ops->open_key != NULL)
        s->dev_key = d->backend->ops->open_key(d->backend, cipher, ks);
    s->refs = 1;
    s->id = c->next_session_id++;
    if (c->next_session_id == 0)
        c->next_session_id = 1;
    s->slot = slot;
    s->cipher = cipher;
    s->ks = ks;
    s->d = d;
    s->peer = c->peer;
    c->peer->sessions++;
    c->sessions[c->nsessions++] = s;
    d->sessions_open++;
    bsd_open_rep rep = {s->id, (uint16_t)cipher->block_len};
    uint8_t p[BSD_OPEN_REP_LEN];
    size_t n = bsd_open_rep_encode(p, &rep);
    BSD_DEBUG("session_open", "conn=%u session=%u cipher=%s", c->cid, s->id, cipher->name);
    bsd_conn_send(c, BSD_OP_OPEN_SESSION | BSD_OP_REPLY, id, p, n);
}

static void handle_close(bsd_conn *c, const bsd_request *r)
{
    unsigned index;
    if (find_session(c, r->u.close.session, &index) == NULL) {
        bsd_conn_send_error(c, r->hdr.id, BSD_E_NO_SESSION, "no such session on this connection");
        return;
    }
    bsd_conn_drop_session(c, index);
    bsd_conn_send(c, BSD_OP_CLOSE_SESSION | BSD_OP_REPLY, r->hdr.id, NULL, 0);
}

static void handle_keystream(bsd_conn *c, const bsd_request *r)
{
    bsd_daemon *d = c->d;
    const bsd_keystream_req *k = &r->u.keystream;
    uint32_t id = r->hdr.id;
    if (d->draining) {
        bsd_conn_send_error(c, id, BSD_E_SHUTDOWN, "daemon is draining");
        return;
    }
    bsd_session *s = find_session(c, k->session, NULL);
    if (s == NULL) {
        bsd_conn_send_error(c, id, BSD_E_NO_SESSION, "no such session on this connection");
        return;
    }
    const size_t bl = s->cipher->block_len;
    for (size_t i = bl; i < BSD_COUNTER_LEN; i++)
        if (k->counter[i] != 0) {
            /* Malformed (PROTOCOL.md): answered, and the connection closed. */
            bsd_conn_fatal_error(c, id, BSD_E_MALFORMED);
            return;
        }
    if (c->shm == NULL) {
        bsd_conn_send_error(c, id, BSD_E_NO_SHM, "KEYSTREAM before MAP_SHM");
        return;
    }
    /* The decoder bounds nblocks and the offset by 2^40, so none of this overflows. */
    uint64_t bytes = k->nblocks * bl;
    if (bytes > d->cfg.max_request_bytes || k->shm_offset + bytes > c->shm->size) {
        bsd_conn_send_error(c, id, BSD_E_RANGE,
                            "destination outside the mapping or above max_request_bytes");
        return;
    }
    if (bs_ctr_blocks_before_wrap(k->counter, bl) < k->nblocks) {
        bsd_conn_send_error(c, id, BSD_E_COUNTER_WRAP, "the counter would wrap");
        return;
    }
    if (c->queued_bytes + bytes > d->cfg.max_queued_bytes ||
        d->inflight_jobs >= d->cfg.max_inflight_jobs) {
        bsd_conn_send_error(c, id, BSD_E_BUSY, "queue bound reached");
        return;
    }
    /*
     * Fair share of max_inflight_jobs, and a bound on a uid's outstanding keystream over all
     * its connections: both count the jobs of its closed connections until they are done.
     */
    bsd_peer *peer = c->peer;
    const uint64_t qcap = d->cfg.max_queued_bytes_per_uid != 0 ? d->cfg.max_queued_bytes_per_uid
                                                               : d->cfg.max_queued_bytes * 4;
    if (peer->jobs >= bsd_peer_cap(d->cfg.max_inflight_jobs_per_uid, d->cfg.max_inflight_jobs) ||
        peer->queued_bytes + bytes > qcap) {
        d->stats.per_uid_refusals++;
        bsd_conn_send_error(c, id, BSD_E_BUSY,
                            peer->queued_bytes + bytes > qcap
                                ? "max_queued_bytes_per_uid reached"
                                : "max_inflight_jobs_per_uid reached");
        return;
    }
    /* One peer may not take the whole max_inflight_jobs and leave everyone else BUSY. */
    if (c->inflight >= BSD_CONN_MAX_INFLIGHT) {
        bsd_conn_send_error(c, id, BSD_E_BUSY, "too many requests in flight on this connection");
        return;
    }
    /* Per-piece digests (PROTOCOL.md): their sums live after the job, one word a piece. */
    const unsigned piece_log2 = BSD_KS_PIECE_LOG2(k->flags);
    const uint64_t npieces = piece_log2 != 0 ? BSD_KS_NPIECES(bytes, piece_log2) : 0;
    if (npieces > BSD_KS_MAX_PIECES) {
        bsd_conn_send_error(c, id, BSD_E_RANGE, "more pieces than a reply holds");
        return;
    }
    const int pr = shm_populate(c->shm, k->shm_offset, bytes);
    if (pr != 0) {
        char why[BSD_ERROR_TEXT_MAX];
        snprintf(why, sizeof why, "cannot allocate the window's shared memory: %s", strerror(-pr));
        BSD_PEER_LOG(&d->peers, peer, "warn", "shm_populate",
                     "conn=%u uid=%u offset=%llu bytes=%llu reason=\"%s\"", c->cid,
                     (unsigned)c->uid, (unsigned long long)k->shm_offset, (unsigned long long)bytes,
                     why);
        bsd_conn_send_error(c, id, BSD_E_BUSY, why);
        return;
    }
    ks_job *kj = (ks_job *)calloc(1, sizeof *kj + (size_t)npieces * sizeof(uint64_t));
    if (kj == NULL) {
        bsd_conn_send_error(c, id, BSD_E_INTERNAL, "out of memory");
        return;
    }
    bsd_job *job = &kj->job;
    job->cipher = s->cipher;
    job->ks = s->ks;
    job->dev_key = s->dev_key;
    memcpy(job->counter, k->counter, bl);
    job->nblocks = k->nblocks;
    job->dst = c->shm->base + k->shm_offset;
    job->region = c->shm->base;
    job->enqueued_ns = bsd_now_ns();
    bsd_job_integrity_init(job, (k->flags & BSD_KS_UNCHECKED) != 0);
    job->piece_log2 = piece_log2;
    job->piece_sums = npieces != 0 ? (uint64_t *)(void *)(kj + 1) : NULL;
    if (job->unchecked)
        d->stats.unchecked_requests++;
    kj->conn = c;
    kj->session = s;
    kj->shm = c->shm;
    kj->id = id;
    if (bsd_batcher_add(&d->batcher, job) != 0) {
        free(kj);
        bsd_conn_send_error(c, id, BSD_E_INTERNAL, "batcher full");
        return;
    }
    c->refs++;
    s->refs++;
    c->shm->refs++;
    c->queued_bytes += bytes;
    c->inflight++;
    peer->queued_bytes += bytes;
    peer->jobs++;
    d->inflight_jobs++;
    d->stats.keystream_requests++;
}

static void send_rate(bsd_conn *c, uint32_t id, const bs_block_cipher *cipher)
{
    bsd_rate_rep rep;
    memset(&rep, 0, sizeof rep);
    bsd_batcher_rate(&c->d->batcher, cipher, &rep.bytes_per_s, &rep.bytes);
    rep.host_workers = c->d->backend->host_workers;
    uint8_t p[BSD_RATE_REP_LEN];
    size_t n = bsd_rate_rep_encode(p, &rep);
    bsd_conn_send(c, BSD_OP_RATE | BSD_OP_REPLY, id, p, n);
}

static void free_calibration(bsd_daemon *d, ks_job *kj)
{
    bsd_backend *be = d->backend;
    if (kj->cal_buf != NULL) {
        if (kj->cal_registered)
            be->ops->unregister_memory(be, kj->cal_buf);
        munmap(kj->cal_buf, kj->cal_len);
    }
    if (kj->cal_ks != NULL) {
        bs_wipe(kj->cal_ks, sizeof *kj->cal_ks);
        free(kj->cal_ks);
    }
}

/*
 * RATE: the cipher's measured rate (bsd_batcher_rate). A cipher with no figure yet is calibrated
 * first, once at a time: BSD_RATE_CALIBRATION_JOBS jobs through the batcher and the backend like
 * any request (checks included: a job with words its backend left unwritten is counted in
 * integrity.unwritten_jobs, its batch is not in the rate, and the calibration stops there), and
 * the answer waits for them.
 * The key is all zeroes (the cores take the same time for every key) and the keystream goes
 * into an anonymous mapping that only the backend writes and that is unmapped after.
 */
static void handle_rate(bsd_conn *c, const bsd_request *r)
{
    bsd_daemon *d = c->d;
    uint32_t id = r->hdr.id;
    const bs_block_cipher *cipher = bs_block_cipher_by_name(r->u.rate.cipher);
    if (cipher == NULL || cipher->block_len % 8 != 0) {
        bsd_conn_send_error(c, id, BSD_E_UNKNOWN_CIPHER, "cipher not compiled into this daemon");
        return;
    }
    uint64_t rate, bytes;
    bsd_pending *p = bsd_batcher_rate(&d->batcher, cipher, &rate, &bytes);
    if (p == NULL || p->calibrating || rate > 0 || d->draining ||
        c->inflight >= BSD_CONN_MAX_INFLIGHT || d->inflight_jobs >= d->cfg.max_inflight_jobs) {
        send_rate(c, id, cipher);
        return;
    }
    ks_job *kj = (ks_job *)calloc(1, sizeof *kj);
    if (kj == NULL) {
        send_rate(c, id, cipher);
        return;
    }
    kj->cal_len = (size_t)BSD_RATE_CALIBRATION_BYTES;
    void *buf = mmap(NULL, kj->cal_len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    kj->cal_buf = buf == MAP_FAILED ? NULL : (uint8_t *)buf;
    kj->cal_ks = (bs_key_schedule *)aligned_alloc(64, sizeof *kj->cal_ks);
    if (kj->cal_buf == NULL || kj->cal_ks == NULL) {
        free_calibration(d, kj);
        free(kj);
        send_rate(c, id, cipher);
        return;
    }
    const uint8_t zero_key[BSD_KEY_MAX] = {0};
    cipher->set_key(kj->cal_ks, zero_key);
    bsd_backend *be = d->backend;
    kj->cal_registered = be->ops->register_memory != NULL && be->ops->unregister_memory != NULL &&
                         be->ops->register_memory(be, kj->cal_buf, kj->cal_len) == 0;
    bsd_job *job = &kj->job;
    job->cipher = cipher;
    job->ks = kj->cal_ks;
    job->nblocks = BSD_RATE_CALIBRATION_BYTES / cipher->block_len;
    job->dst = kj->cal_buf;
    job->region = kj->cal_buf;
    job->enqueued_ns = bsd_now_ns();
    bsd_job_integrity_init(job, 0);
    kj->conn = c;
    kj->id = id;
    kj->cal_left = BSD_RATE_CALIBRATION_JOBS - 1;
    if (bsd_batcher_add(&d->batcher, job) != 0) {
        free_calibration(d, kj);
        free(kj);
        send_rate(c, id, cipher);
        return;
    }
    p->calibrating = 1;
    c->refs++;
    c->inflight++;
    d->inflight_jobs++;
}

void bsd_handle_job_done(void *arg, bsd_job *job, int status)
{
    ks_job *kj = (ks_job *)job; /* job is its first member */
    bsd_conn *c = kj->conn;
    bsd_daemon *d = (bsd_daemon *)arg;
    if (kj->cal_ks != NULL) {
        uint64_t digest, unwritten = 0;
        if (status == 0 && bsd_job_verdict(job, &digest, &unwritten) != 0) {
            /*
             * Checked like any job: words the backend left unwritten. The batcher did not count
             * the batch in the rate; the calibration stops and RATE answers what is known.
             */
            d->stats.integrity_unwritten_jobs++;
            BSD_ERR("integrity",
                    "conn=%u cipher=%s blocks=%llu unwritten_words=%llu calibration=1 "
                    "reason=\"backend left poisoned words\"",
                    c->cid, job->cipher->name, (unsigned long long)job->nblocks,
                    (unsigned long long)unwritten);
            status = -EIO;
        }
        if (status == 0 && kj->cal_left > 0 && !c->closing && !d->draining) {
            /* The next job: the window zeroed again, as a client leaves it. */
            kj->cal_left--;
            memset(kj->cal_buf, 0, kj->cal_len);
            job->enqueued_ns = bsd_now_ns();
            bsd_job_integrity_init(job, 0);
            if (bsd_batcher_add(&d->batcher, job) == 0)
                return;
        }
        /* Its batches were timed by the batcher like any (bsd_batcher_rate). */
        uint64_t rate, measured;
        bsd_pending *p = bsd_batcher_rate(&d->batcher, job->cipher, &rate, &measured);
        if (p != NULL)
            p->calibrating = 0;
        c->inflight--;
        d->inflight_jobs--;
        c->active_ns = bsd_now_ns();
        if (status != -ECANCELED && !c->closing)
            send_rate(c, kj->id, job->cipher);
        free_calibration(d, kj);
        free(kj);
        bsd_conn_unref(c);
        return;
    }
    uint64_t bytes = job->nblocks * job->cipher->block_len;
    c->queued_bytes -= bytes;
    c->inflight--;
    c->peer->queued_bytes -= bytes;
    c->peer->jobs--;
    d->inflight_jobs--;
    uint64_t digest = 0, unwritten = 0;
    c->active_ns = bsd_now_ns();
    if (status == -ECANCELED) {
        /* Its connection closed before the job reached the backend: nothing to answer. */
    } else if (status == 0 && bsd_job_verdict(job, &digest, &unwritten) != 0) {
        /* Words still hold this request's poison: the backend did not write them. */
        d->stats.integrity_unwritten_jobs++;
        BSD_ERR("integrity",
                "conn=%u cipher=%s blocks=%llu unwritten_words=%llu "
                "reason=\"backend left poisoned words\"",
                c->cid, job->cipher->name, (unsigned long long)job->nblocks,
                (unsigned long long)unwritten);
        if (!c->closing)
            bsd_conn_send_error(c, kj->id, BSD_E_INTEGRITY,
                                "the backend did not write the whole window");
    } else if (!c->closing && status != 0) {
        /* The backend failed: the shared memory does not hold this keystream. */
        bsd_conn_send_error(c, kj->id, BSD_E_INTERNAL,
                            "the backend failed to compute this keystream");
    } else if (!c->closing) {
        bsd_keystream_rep rep = {job->nblocks, digest};
        uint8_t p[BSD_MAX_REPLY_PAYLOAD];
        size_t n = bsd_keystream_rep_encode(p, &rep);
        if (job->piece_log2 != 0) {
            uint64_t pieces[BSD_KS_MAX_PIECES];
            size_t np = (size_t)BSD_KS_NPIECES(bytes, job->piece_log2);
            if (job->unchecked)
                memset(pieces, 0, np * sizeof pieces[0]);
            else
                bsd_job_piece_digests(job, pieces, np);
            n = bsd_keystream_rep_encode_pieces(p, &rep, pieces, np);
        }
        d->stats.bytes_served += bytes;
        /* A window of this connection that a REPORT may name, once. */
        c->served[c->served_next].session = kj->session->id;
        c->served[c->served_next].nblocks = job->nblocks;
        c->served_next = (c->served_next + 1) % BSD_SERVED_WINDOWS;
        bsd_conn_send(c, BSD_OP_KEYSTREAM | BSD_OP_REPLY, kj->id, p, n);
    }
    bsd_session_unref(kj->session);
    bsd_shm_unref(kj->shm);
    free(kj);
    bsd_conn_unref(c);
}

static void handle_status(bsd_conn *c, const bsd_request *r)
{
    char *text = (char *)malloc(BSD_MAX_REPLY_PAYLOAD);
    if (text == NULL) {
        bsd_conn_send_error(c, r->hdr.id, BSD_E_INTERNAL, "out of memory");
        return;
    }
    size_t n = bsd_status_text(c->d, text, BSD_MAX_REPLY_PAYLOAD);
    bsd_conn_send(c, BSD_OP_STATUS | BSD_OP_REPLY, r->hdr.id, text, n);
    free(text);
}

/*
 * A client found a window that failed its check: count and log it, so that STATUS shows it.
 * Only for a window this daemon answered on this connection (same session and length), and
 * once per window: a REPORT naming anything else is answered and counted apart
 * (integrity.client_unmatched_reports), and logs nothing at info. Lines go through the uid's
 * log budget.
 */
static void handle_report(bsd_conn *c, const bsd_request *r)
{
    const bsd_report_req *m = &r->u.report;
    bsd_daemon *d = c->d;
    int found = -1;
    for (unsigned i = 0; i < BSD_SERVED_WINDOWS && found < 0 && m->nblocks != 0; i++)
        if (c->served[i].nblocks == m->nblocks && c->served[i].session == m->session)
            found = (int)i;
    if (found < 0) {
        d->stats.integrity_client_unmatched++;
        BSD_DEBUG("report_unmatched", "conn=%u uid=%u session=%u blocks=%llu", c->cid,
                  (unsigned)c->uid, m->session, (unsigned long long)m->nblocks);
    } else {
        c->served[found].nblocks = 0;
        if (m->kind == BSD_REPORT_DIGEST)
            d->stats.integrity_client_digest++;
        else
            d->stats.integrity_client_spot++;
        BSD_PEER_LOG(&d->peers, c->peer, "error", "integrity",
                     "conn=%u uid=%u pid=%d session=%u blocks=%llu reason=\"%s\"", c->cid,
                     (unsigned)c->uid, (int)c->pid, m->session, (unsigned long long)m->nblocks,
                     m->kind == BSD_REPORT_DIGEST ? "client: window digest mismatch"
                                                  : "client: block recomputed in-process differs");
    }
    bsd_conn_send(c, BSD_OP_REPORT | BSD_OP_REPLY, r->hdr.id, NULL, 0);
}

static int job_of_conn(const bsd_job *job, const void *conn)
{
    return ((const ks_job *)job)->conn == (const bsd_conn *)conn;
}

void bsd_handle_conn_closed(bsd_conn *c)
{
    size_t n = bsd_batcher_cancel(&c->d->batcher, job_of_conn, c);
    c->d->stats.cancelled_jobs += n;
    if (n > 0)
        BSD_PEER_LOG(&c->d->peers, c->peer, "info", "cancel",
                     "conn=%u queued_jobs=%zu reason=\"connection closed\"", c->cid, n);
}

void bsd_handle_request(bsd_conn *c, bsd_request *r)
{
    c->d->stats.requests_total++;
    if (r->hdr.op != BSD_OP_HELLO && !c->hello_done) {
        bsd_conn_send_error(c, r->hdr.id, BSD_E_STATE, "HELLO first");
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
    case BSD_OP_RATE:
        handle_rate(c, r);
        break;
    default:
        break; /* the decoder has rejected every other op */
    }
}
