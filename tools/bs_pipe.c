/* bs_pipe.c: see bs_pipe.h. */
#include "bs_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bitslice.h"

static void set_stop(bscli_pipe *p)
{
    /* Caller holds mu. */
    if (!p->stop) {
        p->stop = 1;
        uint8_t b = 1;
        ssize_t r = write(p->wake[1], &b, 1);
        (void)r; /* the pipe is empty before this one byte: it cannot fail for space */
    }
    pthread_cond_broadcast(&p->cv);
}

/* Reads up to n bytes; short only at end of input, on error (*err) or on stop (*stopped). */
static size_t read_some(bscli_pipe *p, uint8_t *dst, size_t n, int *err, int *stopped)
{
    size_t got = 0;
    while (got < n) {
        struct pollfd pf[2] = {{p->in_fd, POLLIN, 0}, {p->wake[0], POLLIN, 0}};
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            *err = errno;
            break;
        }
        if (pf[1].revents != 0) {
            *stopped = 1;
            break;
        }
        ssize_t r = read(p->in_fd, dst + got, n - got);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            *err = errno;
            break;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return got;
}

static void *reader_main(void *arg)
{
    bscli_pipe *p = (bscli_pipe *)arg;
    for (uint64_t i = 0;; i++) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && i >= p->nwritten + p->nslots)
            pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            break;
        /* Slot i % nslots held chunk i - nslots, written: the reader alone touches it now. */
        bscli_pipe_slot *s = &p->slot[i % p->nslots];
        size_t n = 0;
        int err = 0, stopped = 0, last = 0;
        if (p->have_peek && p->want > 0) {
            s->buf[0] = p->peek;
            p->have_peek = 0;
            n = 1;
        }
        n += read_some(p, s->buf + n, p->want - n, &err, &stopped);
        if (!err && !stopped && n == p->want) {
            size_t r = read_some(p, &p->peek, 1, &err, &stopped);
            p->have_peek = r == 1;
            last = r == 0 && !err && !stopped;
        } else if (!err && !stopped) {
            last = 1;
        }
        if (stopped)
            break;
        pthread_mutex_lock(&p->mu);
        s->n = n;
        s->last = last;
        s->rerr = err;
        s->index = i;
        s->done = 0;
        p->nread++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (last || err)
            break;
    }
    return NULL;
}

static void *writer_main(void *arg)
{
    bscli_pipe *p = (bscli_pipe *)arg;
    for (uint64_t i = 0;; i++) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && !p->drain && i >= p->nput)
            pthread_cond_wait(&p->cv, &p->mu);
        int go = !p->stop && i < p->nput;
        pthread_mutex_unlock(&p->mu);
        if (!go)
            break;
        bscli_pipe_slot *s = &p->slot[i % p->nslots];
        errno = 0;
        int werr = fwrite(s->buf, 1, s->wlen, p->out) == s->wlen ? 0 : errno != 0 ? errno : EIO;
        pthread_mutex_lock(&p->mu);
        if (werr != 0) {
            p->werr = werr;
            set_stop(p);
        } else {
            p->nwritten++;
            pthread_cond_broadcast(&p->cv);
        }
        pthread_mutex_unlock(&p->mu);
        if (werr != 0)
            break;
    }
    return NULL;
}

static void free_slots(bscli_pipe *p)
{
    for (unsigned i = 0; p->slot != NULL && i < p->nslots; i++) {
        if (p->slot[i].buf != NULL)
            bs_wipe(p->slot[i].buf, p->cap);
        free(p->slot[i].buf);
    }
    free(p->slot);
    p->slot = NULL;
    bs_wipe(&p->peek, sizeof p->peek);
}

int bscli_pipe_start(bscli_pipe *p, int in_fd, FILE *out, size_t want, size_t cap, unsigned nslots)
{
    memset(p, 0, sizeof *p);
    p->in_fd = in_fd;
    p->out = out;
    p->want = want;
    p->cap = cap;
    p->nslots = nslots < 2 ? 2 : nslots;
    p->wake[0] = p->wake[1] = -1;
    p->slot = (bscli_pipe_slot *)calloc(p->nslots, sizeof *p->slot);
    if (p->slot == NULL)
        goto fail;
    for (unsigned i = 0; i < p->nslots; i++)
        if ((p->slot[i].buf = (uint8_t *)malloc(cap)) == NULL)
            goto fail;
    if (pipe2(p->wake, O_CLOEXEC) != 0)
        goto fail;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (pthread_create(&p->reader, NULL, reader_main, p) != 0)
        goto fail_sync;
    if (pthread_create(&p->writer, NULL, writer_main, p) != 0) {
        pthread_mutex_lock(&p->mu);
        set_stop(p);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->reader, NULL);
        goto fail_sync;
    }
    return 0;
fail_sync:
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
fail:
    if (p->wake[0] >= 0) {
        close(p->wake[0]);
        close(p->wake[1]);
    }
    free_slots(p);
    return -1;
}

bscli_pipe_slot *bscli_pipe_next(bscli_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->nnext >= p->nread)
        pthread_cond_wait(&p->cv, &p->mu);
    bscli_pipe_slot *s = p->stop ? NULL : &p->slot[p->nnext++ % p->nslots];
    pthread_mutex_unlock(&p->mu);
    return s;
}

void bscli_pipe_put(bscli_pipe *p, bscli_pipe_slot *s, size_t wlen)
{
    pthread_mutex_lock(&p->mu);
    s->wlen = wlen;
    s->done = 1;
    /* The writer may go on to every chunk handed back with all those before it. */
    while (p->nput < p->nnext && p->slot[p->nput % p->nslots].done)
        p->nput++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void bscli_pipe_stop(bscli_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    set_stop(p);
    pthread_mutex_unlock(&p->mu);
}

int bscli_pipe_finish(bscli_pipe *p, int ok)
{
    pthread_mutex_lock(&p->mu);
    if (ok) {
        p->drain = 1;
        pthread_cond_broadcast(&p->cv);
    } else {
        set_stop(p);
    }
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->writer, NULL);
    pthread_mutex_lock(&p->mu);
    set_stop(p);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->reader, NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    close(p->wake[0]);
    close(p->wake[1]);
    free_slots(p);
    return p->werr;
}
