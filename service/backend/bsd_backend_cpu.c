/*
 * The CPU backend: each batch is cut into one slice per worker thread, by block ranges across
 * the batch's jobs, and the slices run on the backend's own worker threads, which take them from
 * one queue. A batch costs one futex wake for all the sleeping workers it needs and each of
 * them its wait, and one eventfd write and read to hand it back to the loop once its last slice
 * ran (counted down and listed without a lock); libuv's pool took 6-8 futex calls a batch on the
 * project's VM (signals and waits on one shared queue, lock hand-offs, an async send per slice),
 * and one queue per worker took a wake per slice. */
#include "bsd_backend.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef BSD_BENCH_CEILING
#include <sys/mman.h>
#endif

#include "bs_cpu.h"
#include "modes/ctr.h"

/*
 * Each piece is written and digested in turn, the digest while the piece is still in L1 (32 KiB
 * on the VMs measured). The window is not poisoned first: the client left it zeroed and the
 * digest pass counts zero words (bsd_job_seal_wiped). A poison fill was a second pass of stores
 * over the window's lines; on the project's VM (RIJNDAEL-256 VAES, one thread, 64 MiB from
 * memory, CPU time) the checks then cost 0.067-0.077 ns/B over the unchecked path, and with the
 * digest alone 0.030-0.040. Computing into an L1 scratch and copying it out with the digest
 * cost as much as the fill (0.060-0.085): any second store pass over the window pays its
 * write misses without the cipher's work to hide them behind.
 */
#define CPU_PIECE_BYTES 8192
/*
 * The widest core's pass (the AVX-512 cores run 512 blocks at a time; a shorter call pays for a
 * padded pass or a narrower one). Pieces and slices are whole passes where that keeps a piece
 * under twice CPU_PIECE_BYTES, i.e. still well inside L1: SPEEDY's 24-byte blocks get 512-block
 * (12 KiB) pieces rather than 384-block ones that waste a quarter of a pass.
 */
#define CPU_PASS_BLOCKS 512

struct cpu_slice;
struct cpu_batch;
struct cpu_backend;

/* One worker thread. */
typedef struct cpu_worker {
    pthread_t th;
    struct cpu_backend *cpu;
} cpu_worker;

/*
 * The workers share one queue of slices (under mu; only the loop thread adds). A worker with
 * nothing to do sleeps on seq, a futex word the loop bumps with each batch it adds, and the
 * loop wakes as many sleepers as the batch has slices with one futex call: a batch costs one
 * wake however many workers it takes, and each worker its wait.
 */
typedef struct cpu_backend {
    unsigned threads;
    cpu_worker *w;
    unsigned started;
    pthread_mutex_t mu;
    uint32_t seq;
    struct cpu_slice *head, *tail;
    unsigned sleepers; /* under mu: about to wait on seq, or waiting, or woken and not back */
    int quit;
    /* Batches whose slices all ran (a stack, pushed by workers, taken whole by the loop). */
    struct cpu_batch *done;
    int signalled; /* efd written since the loop last took done */
    /* The loop thread's side: efd readable when batches are done. */
    int efd;
    uv_poll_t poll;
    unsigned inflight; /* batches submitted and not handed back (the poll holds the loop) */
} cpu_backend;

#ifdef BSD_BENCH_CEILING
/*
 * BENCHMARK ONLY (meson -Dbench_ceiling=true, refused for release and plain builds; the backend
 * "ceiling", which "auto" never picks): what the daemon path costs with a keystream that costs
 * a copy. The keystream of the first BSD_BENCH_CEILING_MIB MiB (default 256) from the all-zero
 * counter is computed once per key, in-process, at the first request; a request inside it is
 * copied from there, anything else computed as by the CPU backend. The bytes are the real
 * keystream, so every check (poison, digests, the client's recomputed blocks) runs and passes as
 * with the CPU backend: only the cipher's cost is gone.
 */
static pthread_mutex_t ceil_mu = PTHREAD_MUTEX_INITIALIZER;
static const bs_block_cipher *ceil_cipher;
static bs_key_schedule ceil_ks;
static uint8_t *ceil_buf;
static uint64_t ceil_blocks;
static size_t ceil_size;
static int ceiling_on;

/* The precomputed keystream of blocks [a, b) of job, or NULL when it is not in the buffer. */
static const uint8_t *ceiling_lookup(const bsd_job *job, uint64_t a, uint64_t b)
{
    const size_t bl = job->cipher->block_len;
    uint64_t off = 0;
    for (size_t i = 0; i < bl; i++) {
        if (i + 8 < bl && job->counter[i] != 0)
            return NULL;
        if (i + 8 >= bl)
            off = off << 8 | job->counter[i];
    }
    pthread_mutex_lock(&ceil_mu);
    if (ceil_cipher != job->cipher || memcmp(&ceil_ks, job->ks, sizeof ceil_ks) != 0) {
        if (ceil_buf == NULL) {
            const char *e = getenv("BSD_BENCH_CEILING_MIB");
            long mib = e != NULL ? atol(e) : 256;
            ceil_size = (size_t)(mib > 0 && mib <= 4096 ? mib : 256) << 20;
            void *m = mmap(NULL, ceil_size, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
            ceil_buf = m != MAP_FAILED ? (uint8_t *)m : NULL;
        }
        ceil_cipher = NULL;
        if (ceil_buf != NULL) {
            uint8_t zero[BS_BLOCK_MAX] = {0};
            ceil_blocks = ceil_size / bl;
            bs_ctr_keystream(job->cipher, job->ks, zero, ceil_blocks, ceil_buf);
            memcpy(&ceil_ks, job->ks, sizeof ceil_ks);
            ceil_cipher = job->cipher;
        }
    }
    const uint8_t *p = ceil_cipher != NULL && off <= ceil_blocks && b <= ceil_blocks - off && a <= b
                           ? ceil_buf + (off + a) * bl
                           : NULL;
    pthread_mutex_unlock(&ceil_mu);
    return p;
}
#endif

typedef struct cpu_slice {
    struct cpu_slice *next; /* in the queue */
    bsd_batch *batch;
    uint64_t first, last; /* block range [first, last) over the concatenated jobs */
} cpu_slice;

typedef struct cpu_batch {
    struct cpu_batch *next; /* on the done list */
    bsd_batch *batch;
    unsigned pending; /* slices not yet run (atomic) */
    unsigned nslices;
    cpu_slice slices[];
} cpu_batch;

/* Blocks per piece for a block length: about CPU_PIECE_BYTES, in whole passes (see above). */
static uint64_t piece_blocks(size_t bl)
{
    uint64_t n = (CPU_PIECE_BYTES / bl + BS_LANES_MAX - 1) / BS_LANES_MAX * BS_LANES_MAX;
    uint64_t whole = (n + CPU_PASS_BLOCKS - 1) / CPU_PASS_BLOCKS * CPU_PASS_BLOCKS;
    return whole * bl < 2 * CPU_PIECE_BYTES ? whole : n;
}

static void slice_work(cpu_slice *s)
{
    bsd_batch *b = s->batch;
    uint64_t base = 0;
    for (size_t j = 0; j < b->njobs && base < s->last; j++) {
        bsd_job *job = b->jobs[j];
        uint64_t js = base, je = base + job->nblocks;
        base = je;
        uint64_t lo = js > s->first ? js : s->first;
        uint64_t hi = je < s->last ? je : s->last;
        if (lo >= hi)
            continue;
        uint8_t ctr[BS_BLOCK_MAX];
        const size_t bl = job->cipher->block_len;
        /*
         * In pieces of about 8 KiB (whole bitsliced passes): each is written and digested while
         * it is still in this core's cache.
         */
        const uint64_t step = piece_blocks(bl);
#ifdef BSD_BENCH_CEILING
        /* The slice's part of the job, where it is precomputed (ceiling). */
        const uint8_t *pre0 = ceiling_on ? ceiling_lookup(job, lo - js, hi - js) : NULL;
#endif
        for (uint64_t a = lo - js; a < hi - js; a += step) {
            uint64_t b = hi - js - a < step ? hi - js : a + step;
            memcpy(ctr, job->counter, bl);
            bs_ctr_add(ctr, bl, a);
            bsd_job_begin_wiped(job, a, b);
#ifdef BSD_BENCH_CEILING
            if (pre0 != NULL)
                memcpy(job->dst + a * bl, pre0 + (a - (lo - js)) * bl, (size_t)(b - a) * bl);
            else
#endif
                bs_ctr_keystream(job->cipher, job->ks, ctr, b - a, job->dst + a * bl);
            bsd_job_seal_wiped(job, a, b);
        }
    }
    /* The pool's threads live on: leave nothing of this slice's keys on their stacks. */
    bs_wipe_stack(BS_STACK_WIPE_BYTES);
}

/*
 * Queues the n slices s (or, s NULL, tells every worker to quit) and wakes up to n sleeping
 * workers (every one to quit) with one futex call: the bump of seq under mu makes a wait that
 * comes after return at once. sleepers may count a worker already woken: waking fewer then
 * loses nothing, as every awake worker takes slices until the queue is empty.
 */
static void workers_post(cpu_backend *cpu, cpu_slice *s, unsigned n)
{
    pthread_mutex_lock(&cpu->mu);
    if (s == NULL) {
        cpu->quit = 1;
    } else {
        for (unsigned i = 0; i < n; i++) {
            s[i].next = NULL;
            if (cpu->tail != NULL)
                cpu->tail->next = &s[i];
            else
                cpu->head = &s[i];
            cpu->tail = &s[i];
        }
    }
    __atomic_store_n(&cpu->seq, cpu->seq + 1, __ATOMIC_RELEASE);
    const unsigned wake = s == NULL ? cpu->sleepers : (n < cpu->sleepers ? n : cpu->sleepers);
    pthread_mutex_unlock(&cpu->mu);
    /* After the unlock, so that the workers do not wake into a held lock. */
    if (wake > 0) {
        syscall(SYS_futex, &cpu->seq, FUTEX_WAKE_PRIVATE, s == NULL ? INT_MAX : (int)wake, NULL,
                NULL, 0);
        __atomic_add_fetch(&bsd_backend_syscalls, 1, __ATOMIC_RELAXED);
    }
}

static void *worker_main(void *arg)
{
    cpu_worker *w = (cpu_worker *)arg;
    cpu_backend *cpu = w->cpu;
    pthread_mutex_lock(&cpu->mu);
    for (;;) {
        cpu_slice *s = cpu->head;
        if (s == NULL) {
            if (cpu->quit)
                break;
            /* Anything added after the unlock bumps seq first: the wait then returns at once. */
            const uint32_t seq = __atomic_load_n(&cpu->seq, __ATOMIC_ACQUIRE);
            cpu->sleepers++;
            pthread_mutex_unlock(&cpu->mu);
            syscall(SYS_futex, &cpu->seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
            __atomic_add_fetch(&bsd_backend_syscalls, 1, __ATOMIC_RELAXED);
            pthread_mutex_lock(&cpu->mu);
            cpu->sleepers--;
            continue;
        }
        cpu->head = s->next;
        if (cpu->head == NULL)
            cpu->tail = NULL;
        pthread_mutex_unlock(&cpu->mu);
        slice_work(s);
        cpu_batch *cb = (cpu_batch *)s->batch->backend_data;
        if (__atomic_sub_fetch(&cb->pending, 1, __ATOMIC_ACQ_REL) == 0) {
            cb->next = __atomic_load_n(&cpu->done, __ATOMIC_ACQUIRE);
            while (!__atomic_compare_exchange_n(&cpu->done, &cb->next, cb, 1, __ATOMIC_RELEASE,
                                                __ATOMIC_ACQUIRE)) {
            }
            /* After the push: the loop clears the flag before it takes the list. */
            if (!__atomic_exchange_n(&cpu->signalled, 1, __ATOMIC_ACQ_REL)) {
                const uint64_t one = 1;
                /* An eventfd write cannot fail here: the counter stays far below its limit. */
                ssize_t r = write(cpu->efd, &one, sizeof one);
                (void)r;
                __atomic_add_fetch(&bsd_backend_syscalls, 1, __ATOMIC_RELAXED);
            }
        }
        pthread_mutex_lock(&cpu->mu);
    }
    pthread_mutex_unlock(&cpu->mu);
    return NULL;
}

/* The loop thread: every batch whose slices all ran is done. */
static void on_done(uv_poll_t *h, int status, int events)
{
    cpu_backend *cpu = (cpu_backend *)h->data;
    (void)status;
    (void)events;
    uint64_t n;
    ssize_t r = read(cpu->efd, &n, sizeof n); /* EAGAIN: nothing new; the list says */
    (void)r;
    __atomic_add_fetch(&bsd_backend_syscalls, 1, __ATOMIC_RELAXED);
    /* The flag first: a batch pushed after the list is taken then writes efd again. */
    __atomic_store_n(&cpu->signalled, 0, __ATOMIC_SEQ_CST);
    cpu_batch *list = __atomic_exchange_n(&cpu->done, NULL, __ATOMIC_ACQ_REL);
    /* Oldest first: the list was pushed at its head. */
    cpu_batch *rev = NULL;
    while (list != NULL) {
        cpu_batch *next = list->next;
        list->next = rev;
        rev = list;
        list = next;
    }
    while (rev != NULL) {
        cpu_batch *next = rev->next;
        bsd_batch *b = rev->batch;
        b->backend_data = NULL;
        free(rev);
        if (--cpu->inflight == 0)
            uv_unref((uv_handle_t *)&cpu->poll);
        b->done(b, 0);
        rev = next;
    }
}

static int cpu_submit(bsd_backend *be, bsd_batch *b)
{
    cpu_backend *cpu = (cpu_backend *)be->priv;
    /* Slices of at least 256 blocks: smaller ones cost more in hand-offs than they save. */
    uint64_t n = b->nblocks / 256;
    unsigned nslices = n < 1 ? 1 : (n < cpu->threads ? (unsigned)n : cpu->threads);
    cpu_batch *cb = (cpu_batch *)calloc(1, sizeof *cb + nslices * sizeof(cpu_slice));
    if (cb == NULL)
        return -ENOMEM;
    cb->nslices = nslices;
    cb->pending = nslices;
    cb->batch = b;
    b->backend_data = cb;
    uint64_t per = (b->nblocks + nslices - 1) / nslices;
    /* Whole passes of the widest core per slice, so no slice ends in a padded pass. */
    per = (per + CPU_PASS_BLOCKS - 1) / CPU_PASS_BLOCKS * CPU_PASS_BLOCKS;
    for (unsigned i = 0; i < nslices; i++) {
        cpu_slice *s = &cb->slices[i];
        s->batch = b;
        s->first = (uint64_t)i * per;
        s->last = s->first + per < b->nblocks ? s->first + per : b->nblocks;
    }
    /* While batches are in flight the poll keeps the loop running (a drain waits for them). */
    if (cpu->inflight++ == 0)
        uv_ref((uv_handle_t *)&cpu->poll);
    workers_post(cpu, cb->slices, nslices);
    return 0;
}

static void cpu_describe(bsd_backend *be, char *out, size_t len)
{
    cpu_backend *cpu = (cpu_backend *)be->priv;
    /* The level the sessions' cores are chosen at (bs_cpu.h; $BITSLICE_CPU caps it). */
    snprintf(out, len, "device=cpu threads=%u cpu_level=%s", cpu->threads,
             bs_cpu_level_name(bs_cpu_level()));
}

static void stop_workers(cpu_backend *cpu)
{
    workers_post(cpu, NULL, 0);
    for (unsigned i = 0; i < cpu->started; i++)
        pthread_join(cpu->w[i].th, NULL);
    cpu->started = 0;
}

/* After the loop closed (and with it the poll handle): nothing is in flight. */
static void cpu_destroy(bsd_backend *be)
{
    cpu_backend *cpu = (cpu_backend *)be->priv;
    stop_workers(cpu);
    pthread_mutex_destroy(&cpu->mu);
    close(cpu->efd);
    free(cpu->w);
    free(cpu);
    free(be);
}

static const bsd_backend_ops cpu_ops = {
    "cpu", cpu_submit, cpu_describe, cpu_destroy, NULL, NULL, NULL, NULL,
};

bsd_backend *bsd_backend_cpu_create(uv_loop_t *loop, unsigned threads)
{
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (unsigned)n : 1;
    }
    if (threads > 128)
        threads = 128;
    bsd_backend *be = (bsd_backend *)calloc(1, sizeof *be);
    cpu_backend *cpu = (cpu_backend *)calloc(1, sizeof *cpu);
    cpu_worker *th = (cpu_worker *)calloc(threads, sizeof *th);
    int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (be == NULL || cpu == NULL || th == NULL || efd < 0 || uv_poll_init(loop, &cpu->poll, efd)) {
        free(be);
        free(cpu);
        free(th);
        if (efd >= 0)
            close(efd);
        return NULL;
    }
    cpu->threads = threads;
    cpu->w = th;
    cpu->efd = efd;
    pthread_mutex_init(&cpu->mu, NULL);
    for (unsigned i = 0; i < threads; i++)
        th[i].cpu = cpu;
    cpu->poll.data = cpu;
    /* Only batches in flight keep the loop alive (cpu_submit refs it). */
    uv_poll_start(&cpu->poll, UV_READABLE, on_done);
    uv_unref((uv_handle_t *)&cpu->poll);
    /* The workers block every signal (as libuv's pool does): they go to the loop thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned i = 0; i < threads; i++) {
        if (pthread_create(&th[i].th, NULL, worker_main, &th[i]) != 0)
            break;
        cpu->started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    be->ops = &cpu_ops;
    be->loop = loop;
    be->priv = cpu;
    be->host_workers = cpu->started;
    if (cpu->started == 0) {
        uv_close((uv_handle_t *)&cpu->poll, NULL);
        /* Freed after the loop's next turn closes the handle: the caller gives up anyway. */
        return NULL;
    }
    return be;
}

#ifdef BSD_BENCH_CEILING
static const bsd_backend_ops ceiling_ops = {
    "ceiling", cpu_submit, cpu_describe, cpu_destroy, NULL, NULL, NULL, NULL,
};

bsd_backend *bsd_backend_ceiling_create(uv_loop_t *loop, unsigned threads)
{
    bsd_backend *be = bsd_backend_cpu_create(loop, threads);
    if (be != NULL) {
        be->ops = &ceiling_ops;
        ceiling_on = 1;
    }
    return be;
}
#endif
