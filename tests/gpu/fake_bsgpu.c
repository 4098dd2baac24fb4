/*
 * A host stand-in for bsgpu.cu, for testing the daemon's CUDA backend and bsgpu-bench without a
 * GPU: "devices" that run each launch with bsgpu_launch_host (the kernels' own per-thread code),
 * a switch that makes the next calls fail after scribbling over the output, as a faulting device
 * might, and BSGPU_FAKE_REFUSE_REGISTER=1 refusing to register host memory (as a sandbox may).
 * Registered host memory is tracked as CUDA tracks it: a copy that touches a registered range
 * must lie within that one range, or it is refused (cudaErrorInvalidValue, BSGPU_E_DEST), and a
 * range overlapping one already registered is refused too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bs_digest.h"
#include "bs_digest_mix.h"
#include "bsgpu.h"
#include "bsgpu_host.h"
#include "fake_bsgpu.h"

int bsgpu_fake_devices = 2;
int bsgpu_fake_fail;
int bsgpu_fake_silent;
int bsgpu_fake_unwritten;
uint8_t bsgpu_fake_unwritten_block[32];
unsigned bsgpu_fake_calls[8];
uint64_t bsgpu_fake_call_keys[8], bsgpu_fake_key_loads[8], bsgpu_fake_key_wipes[8];
int bsgpu_fake_fail_keys;
int bsgpu_fake_fail_wipe;
bsgpu_ctx *bsgpu_fake_ctx[8];

struct bsgpu_ctx {
    int device;
    bsgpu_stats stats;
    /* The resident key table, as the device holds it (bsgpu_keys_update_host). */
    uint32_t *table;
    uint32_t res_cap;
    char err[128];
};

const uint32_t *bsgpu_fake_table(int device, uint32_t *cap)
{
    bsgpu_ctx *ctx = device >= 0 && device < 8 ? bsgpu_fake_ctx[device] : NULL;
    *cap = ctx != NULL ? ctx->res_cap : 0;
    return ctx != NULL ? ctx->table : NULL;
}

int bsgpu_keys_reserve(bsgpu_ctx *ctx, uint32_t nslots)
{
    if (nslots == 0 || ctx->table != NULL)
        return BSGPU_E_ARG;
    ctx->table = (uint32_t *)calloc((size_t)nslots * BSGPU_XKEY_STRIDE_MAX, sizeof *ctx->table);
    if (ctx->table == NULL)
        return BSGPU_E_ARG;
    ctx->res_cap = nslots;
    return 0;
}

int bsgpu_keys_update(bsgpu_ctx *ctx, const bsgpu_keyop *ops, const bsgpu_key *keys, uint32_t n)
{
    if (ctx->table == NULL)
        return BSGPU_E_ARG;
    for (uint32_t i = 0; i < n; i++)
        if (ops[i].slot >= ctx->res_cap || (ops[i].load && ops[i].cipher >= BSGPU_NCIPHERS))
            return BSGPU_E_ARG;
    if (bsgpu_fake_fail_keys) {
        snprintf(ctx->err, sizeof ctx->err, "fake device %d: key update failed", ctx->device);
        return BSGPU_E_CUDA;
    }
    bsgpu_keys_update_host(ctx->table, ops, keys, n);
    for (uint32_t i = 0; i < n; i++) {
        bsgpu_fake_key_loads[ctx->device] += ops[i].load;
        bsgpu_fake_key_wipes[ctx->device] += !ops[i].load;
    }
    return 0;
}

int bsgpu_keys_release(bsgpu_ctx *ctx)
{
    int rc = 0;
    if (ctx->table != NULL) {
        /* bsgpu_fake_fail_wipe: the memset fails, as after a sticky CUDA error (the fake's table
         * is host memory and goes back wiped all the same). */
        if (bsgpu_fake_fail_wipe) {
            snprintf(ctx->err, sizeof ctx->err, "bsgpu_keys_release: injected wipe failure");
            rc = BSGPU_E_CUDA;
        }
        memset(ctx->table, 0, (size_t)ctx->res_cap * BSGPU_XKEY_STRIDE_MAX * sizeof *ctx->table);
        free(ctx->table);
    }
    ctx->table = NULL;
    ctx->res_cap = 0;
    return rc;
}

static char open_err[128];

enum { FAKE_MAX_REG = 64 };
static struct {
    const uint8_t *p;
    size_t len;
} fake_reg[FAKE_MAX_REG];
static unsigned fake_nreg;
static pthread_mutex_t fake_reg_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether CUDA would take a copy of len bytes into dst: outside every registered range, or
 * inside one. */
static int fake_copy_ok(const uint8_t *dst, uint64_t len)
{
    int ok = 1;
    pthread_mutex_lock(&fake_reg_lock);
    for (unsigned i = 0; i < fake_nreg && ok; i++) {
        const uint8_t *p = fake_reg[i].p;
        const int touches = dst < p + fake_reg[i].len && p < dst + len;
        const int within = dst >= p && dst + len <= p + fake_reg[i].len;
        ok = !touches || within;
    }
    pthread_mutex_unlock(&fake_reg_lock);
    return ok;
}

int bsgpu_device_count(void)
{
    return bsgpu_fake_devices;
}

int bsgpu_open(bsgpu_ctx **ctx, int device, unsigned nstreams, size_t chunk_bytes)
{
    (void)nstreams;
    (void)chunk_bytes;
    if (device >= bsgpu_fake_devices)
        return BSGPU_E_NODEV;
    *ctx = (bsgpu_ctx *)calloc(1, sizeof **ctx);
    if (*ctx == NULL)
        return BSGPU_E_ARG;
    (*ctx)->device = device;
    if (device < 8)
        bsgpu_fake_ctx[device] = *ctx;
    return 0;
}

void bsgpu_close(bsgpu_ctx *ctx)
{
    if (ctx == NULL)
        return;
    (void)bsgpu_keys_release(ctx);
    if (ctx->device < 8 && bsgpu_fake_ctx[ctx->device] == ctx)
        bsgpu_fake_ctx[ctx->device] = NULL;
    free(ctx);
}

void bsgpu_describe(const bsgpu_ctx *ctx, char *out, size_t len)
{
    /* As long as the real line on an H200 (bsgpu.cu), so that STATUS's buffer is tested. */
    snprintf(out, len,
             "device=%d name=\"fake NVIDIA H200\" sm=90 sms=132 mem_mb=143155 streams=3 "
             "chunk_mb=64",
             ctx->device);
}

const char *bsgpu_last_error(const bsgpu_ctx *ctx)
{
    return ctx != NULL ? ctx->err : open_err;
}

int bsgpu_register_host(bsgpu_ctx *ctx, void *p, size_t len)
{
    const char *r = getenv("BSGPU_FAKE_REFUSE_REGISTER");
    if (r != NULL && strcmp(r, "1") == 0) {
        snprintf(ctx->err, sizeof ctx->err, "fake device %d: registering refused", ctx->device);
        return BSGPU_E_CUDA;
    }
    const uint8_t *b = (const uint8_t *)p;
    int rc = 0;
    pthread_mutex_lock(&fake_reg_lock);
    for (unsigned i = 0; i < fake_nreg && rc == 0; i++)
        if (b < fake_reg[i].p + fake_reg[i].len && fake_reg[i].p < b + len)
            rc = BSGPU_E_CUDA; /* cudaErrorHostMemoryAlreadyRegistered */
    if (rc == 0 && fake_nreg == FAKE_MAX_REG)
        rc = BSGPU_E_CUDA;
    if (rc == 0) {
        fake_reg[fake_nreg].p = b;
        fake_reg[fake_nreg].len = len;
        fake_nreg++;
    }
    pthread_mutex_unlock(&fake_reg_lock);
    if (rc != 0)
        snprintf(ctx->err, sizeof ctx->err, "fake device %d: host memory already registered",
                 ctx->device);
    return rc;
}

int bsgpu_unregister_host(bsgpu_ctx *ctx, void *p)
{
    int rc = BSGPU_E_CUDA;
    pthread_mutex_lock(&fake_reg_lock);
    for (unsigned i = 0; i < fake_nreg; i++)
        if (fake_reg[i].p == (const uint8_t *)p) {
            fake_reg[i] = fake_reg[--fake_nreg];
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&fake_reg_lock);
    if (rc != 0)
        snprintf(ctx->err, sizeof ctx->err, "fake device %d: host memory not registered",
                 ctx->device);
    return rc;
}

int bsgpu_keystream(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                    const bsgpu_job *jobs, size_t njobs)
{
    enum { CHUNK = 64 * 1024, MAXSEG = 64 };
    static __thread uint8_t dev[CHUNK];
    bsgpu_segment seg[MAXSEG];
    bsgpu_copy copy[MAXSEG];
    bsgpu_cursor cur = {0, 0};
    uint64_t ngroups;
    uint32_t n;
    bsgpu_fake_calls[ctx->device]++;
    bsgpu_fake_call_keys[ctx->device] += nkeys;
    for (size_t j = 0; j < njobs; j++) {
        const uint32_t k = jobs[j].key_index;
        if ((k & BSGPU_KEY_RESIDENT) ? (k & ~BSGPU_KEY_RESIDENT) >= ctx->res_cap : k >= nkeys)
            return BSGPU_E_ARG;
    }
    if (bsgpu_fake_fail) {
        for (size_t j = 0; j < njobs; j++)
            memset(jobs[j].dst, 0xee, jobs[j].nblocks * bsgpu_block_len(c));
        snprintf(ctx->err, sizeof ctx->err, "fake device %d: injected failure", ctx->device);
        return BSGPU_E_CUDA;
    }
    while ((n = bsgpu_plan_launch(c, jobs, njobs, &cur, CHUNK, MAXSEG, seg, copy, &ngroups)) > 0) {
        if (bsgpu_launch_host_table(c, seg, n, keys, ctx->table, ngroups, dev) != 0)
            return BSGPU_E_ARG;
        n = bsgpu_merge_copies(copy, n);
        for (uint32_t i = 0; i < n; i++) {
            if (!fake_copy_ok(copy[i].dst, copy[i].len)) {
                snprintf(ctx->err, sizeof ctx->err,
                         "fake device %d: copy of %llu bytes refused: invalid argument (runs "
                         "across the end of a registered range)",
                         ctx->device, (unsigned long long)copy[i].len);
                return BSGPU_E_DEST;
            }
            memcpy(copy[i].dst, dev + copy[i].src_offset, copy[i].len);
        }
        ctx->stats.launches++;
        ctx->stats.copies += n;
    }
    ctx->stats.calls++;
    return 0;
}

void bsgpu_get_stats(const bsgpu_ctx *ctx, bsgpu_stats *st)
{
    *st = ctx->stats;
}

void bsgpu_set_stage_below(bsgpu_ctx *ctx, uint64_t bytes)
{
    (void)ctx, (void)bytes; /* the stand-in copies on the host: no policy to choose */
}

void bsgpu_get_kernel_attr(bsgpu_ctx *ctx, bsgpu_cipher c, bsgpu_kernel_attr *a)
{
    (void)ctx, (void)c;
    memset(a, 0, sizeof *a);
}

void *bsgpu_alloc_pinned(bsgpu_ctx *ctx, size_t len)
{
    (void)ctx;
    return malloc(len);
}

void bsgpu_free_pinned(void *p)
{
    free(p);
}

static double fake_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/*
 * The self-check: the keystream as bsgpu_keystream, then every launch again into a second
 * buffer, digested per job. bsgpu_fake_silent flips one byte of the first job's output after
 * the copy and says nothing, as a faulting device or bus might.
 */
static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int keystream_checked(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                             const bsgpu_job *jobs, size_t njobs, const uint64_t *seeds,
                             const uint64_t *word0s, uint64_t *sums);

uint64_t bsgpu_fake_device_ns;

/* The device's work (both computations, its digests, the copies into dst), its CPU time counted
 * in bsgpu_fake_device_ns, so that a profile can tell it from the caller's host-side work. */
int bsgpu_keystream_checked(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                            const bsgpu_job *jobs, size_t njobs, const uint64_t *seeds,
                            const uint64_t *word0s, uint64_t *sums)
{
    const uint64_t t0 = thread_cpu_ns();
    const int rc = keystream_checked(ctx, c, keys, nkeys, jobs, njobs, seeds, word0s, sums);
    __atomic_fetch_add(&bsgpu_fake_device_ns, thread_cpu_ns() - t0, __ATOMIC_RELAXED);
    return rc;
}

static int keystream_checked(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                             const bsgpu_job *jobs, size_t njobs, const uint64_t *seeds,
                             const uint64_t *word0s, uint64_t *sums)
{
    enum { CHUNK = 64 * 1024, MAXSEG = 64 };
    static __thread uint8_t dev2[CHUNK];
    int rc = bsgpu_keystream(ctx, c, keys, nkeys, jobs, njobs);
    if (rc != 0)
        return rc;
    const unsigned bl = bsgpu_block_len(c);
    bsgpu_segment seg[MAXSEG];
    bsgpu_copy copy[MAXSEG];
    bsgpu_digest_seg ds[MAXSEG];
    bsgpu_cursor cur = {0, 0};
    uint64_t ngroups;
    uint32_t n, nchunks;
    size_t job = 0;
    memset(sums, 0, njobs * sizeof *sums);
    /* The device's digest kernel, run on the host (bsgpu_digest.h). */
    while ((n = bsgpu_plan_launch(c, jobs, njobs, &cur, CHUNK, MAXSEG, seg, copy, &ngroups)) > 0) {
        if (bsgpu_launch_host_table(c, seg, n, keys, ctx->table, ngroups, dev2) != 0 ||
            bsgpu_plan_digest(c, copy, n, jobs, njobs, seeds, word0s, &job, ds, &nchunks) < 0)
            return BSGPU_E_ARG;
        bsgpu_digest_host(ds, n, nchunks, dev2, sums);
    }
    if (bsgpu_fake_silent && njobs > 0)
        jobs[0].dst[jobs[0].nblocks * bl / 2] ^= 0x10;
    if (bsgpu_fake_unwritten && njobs > 0) {
        /* The middle block's copy never landed; 1: the check agrees with what did. */
        memcpy(jobs[0].dst + jobs[0].nblocks / 2 * bl, bsgpu_fake_unwritten_block, bl);
        if (bsgpu_fake_unwritten == 1)
            sums[0] =
                bs_digest_sum(seeds[0], word0s[0], jobs[0].dst, jobs[0].nblocks * bl / 8, 0, NULL);
    }
    return 0;
}

/* One launch of `bytes` on the host (keep it small), timed like the device's. */
int bsgpu_time_kernel(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *key, uint64_t bytes,
                      unsigned reps, float *ms)
{
    (void)ctx;
    bsgpu_segment seg;
    memset(&seg, 0, sizeof seg);
    seg.nblocks = bytes / bsgpu_block_len(c);
    const uint64_t ngroups = bsgpu_plan(&seg, 1, c);
    uint8_t *out = (uint8_t *)malloc(ngroups * 32 * bsgpu_block_len(c) + 16);
    if (out == NULL)
        return BSGPU_E_ARG;
    for (unsigned i = 0; i < reps; i++) {
        const double t0 = fake_now_ms();
        bsgpu_launch_host(c, &seg, 1, key, ngroups, out);
        ms[i] = (float)(fake_now_ms() - t0);
    }
    free(out);
    return 0;
}

int bsgpu_time_copies(bsgpu_ctx *ctx, size_t bytes, unsigned reps, float *h2d_ms, float *d2h_ms)
{
    (void)ctx;
    uint8_t *a = (uint8_t *)calloc(1, bytes), *b = (uint8_t *)calloc(1, bytes);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return BSGPU_E_ARG;
    }
    for (unsigned i = 0; i < reps; i++) {
        double t0 = fake_now_ms();
        memcpy(b, a, bytes);
        h2d_ms[i] = (float)(fake_now_ms() - t0);
        t0 = fake_now_ms();
        memcpy(a, b, bytes);
        d2h_ms[i] = (float)(fake_now_ms() - t0);
    }
    free(a);
    free(b);
    return 0;
}
