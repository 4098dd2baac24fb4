/*
 * The CPU backend: each batch is cut into one slice per worker thread, by block ranges across
 * the batch's jobs, and the slices run on libuv's thread pool (sized to the worker count).
 */
#include "bsd_backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef BSD_BENCH_CEILING
#include <pthread.h>
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

typedef struct cpu_backend {
    unsigned threads;
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
    uv_work_t work;
    bsd_batch *batch;
    uint64_t first, last; /* block range [first, last) over the concatenated jobs */
} cpu_slice;

typedef struct cpu_batch {
    unsigned pending;
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

static void slice_work(uv_work_t *w)
{
    cpu_slice *s = (cpu_slice *)w->data;
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

static void slice_after(uv_work_t *w, int status)
{
    cpu_slice *s = (cpu_slice *)w->data;
    bsd_batch *b = s->batch;
    cpu_batch *cb = (cpu_batch *)b->backend_data;
    (void)status; /* uv_cancel is never called, so every slice ran */
    if (--cb->pending == 0) {
        b->backend_data = NULL;
        free(cb);
        b->done(b, 0);
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
    b->backend_data = cb;
    uint64_t per = (b->nblocks + nslices - 1) / nslices;
    /* Whole passes of the widest core per slice, so no slice ends in a padded pass. */
    per = (per + CPU_PASS_BLOCKS - 1) / CPU_PASS_BLOCKS * CPU_PASS_BLOCKS;
    for (unsigned i = 0; i < nslices; i++) {
        cpu_slice *s = &cb->slices[i];
        s->batch = b;
        s->first = (uint64_t)i * per;
        s->last = s->first + per < b->nblocks ? s->first + per : b->nblocks;
        s->work.data = s;
    }
    for (unsigned i = 0; i < nslices; i++) {
        /* uv_queue_work fails only for a NULL callback: a failure here is a bug, and carrying
         * on would answer a job with keystream that was never written. */
        if (uv_queue_work(be->loop, &cb->slices[i].work, slice_work, slice_after) != 0)
            abort();
    }
    return 0;
}

static void cpu_describe(bsd_backend *be, char *out, size_t len)
{
    cpu_backend *cpu = (cpu_backend *)be->priv;
    /* The level the sessions' cores are chosen at (bs_cpu.h; $BITSLICE_CPU caps it). */
    snprintf(out, len, "device=cpu threads=%u cpu_level=%s", cpu->threads,
             bs_cpu_level_name(bs_cpu_level()));
}

static void cpu_destroy(bsd_backend *be)
{
    free(be->priv);
    free(be);
}

static const bsd_backend_ops cpu_ops = {
    "cpu", cpu_submit, cpu_describe, cpu_destroy, NULL, NULL,
};

bsd_backend *bsd_backend_cpu_create(uv_loop_t *loop, unsigned threads)
{
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (unsigned)n : 1;
    }
    if (threads > 128)
        threads = 128;
    /* libuv reads this once, when the pool first starts. */
    char v[16];
    snprintf(v, sizeof v, "%u", threads);
    setenv("UV_THREADPOOL_SIZE", v, 1);
    bsd_backend *be = (bsd_backend *)calloc(1, sizeof *be);
    cpu_backend *cpu = (cpu_backend *)calloc(1, sizeof *cpu);
    if (be == NULL || cpu == NULL) {
        free(be);
        free(cpu);
        return NULL;
    }
    cpu->threads = threads;
    be->ops = &cpu_ops;
    be->loop = loop;
    be->priv = cpu;
    return be;
}

#ifdef BSD_BENCH_CEILING
static const bsd_backend_ops ceiling_ops = {
    "ceiling", cpu_submit, cpu_describe, cpu_destroy, NULL, NULL,
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
