/*
 * bsgpu.cu: the CTR keystream kernels and the host side of bsgpu.h.
 *
 * Geometry. PRESENT and GIFT: one thread per 32-block group, 128 threads a block; RIJNDAEL-256:
 * eight (one column each, bsgpu_lanes.h), 256 threads a block; a warp serves 32 or 4 groups.
 * bsgpu_plan starts every segment on a warp boundary, so each warp has one key: the warp
 * expands it (PRESENT, GIFT: lane masks, 8 to 11 KiB) or copies it (RIJNDAEL-256: compact) into
 * its slot of shared memory once, and every later key read is a broadcast.
 * The rounds are bsgpu_lanes.h's, the same code tests/gpu runs on the host.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsd_digest_mix.h"
#include "bsgpu.h"

#define BSGPU_MAX_STREAMS 8
/* Segments per launch: the planner starts a new launch when a batch has more. */
#define BSGPU_MAX_SEG 4096

/* ShiftRows across the 8 column threads of a group (bsgpu_r256_shift_rows_host on the host). */
__device__ __forceinline__ void bsgpu_r256_shift_rows_dev(uint32_t *col, unsigned lane)
{
    const unsigned c = lane & 7, base = lane & ~7u;
#pragma unroll
    for (unsigned r = 1; r < 4; r++) {
        const unsigned from = base | ((c + bsgpu_r256_shift(r)) & 7);
#pragma unroll
        for (unsigned j = 0; j < 8; j++)
            col[8 * r + j] = __shfl_sync(0xffffffffu, col[8 * r + j], from);
    }
}

/* Threads per block: 128 where each warp holds an expanded key in shared memory, else 256. */
#define BSGPU_THREADS_OF(C) ((C) == BSGPU_RIJNDAEL256 ? 256u : 128u)
/* Shared words per warp: the expanded key, or the compact one. */
#define BSGPU_SKEY_OF(C)                                                                           \
    ((C) == BSGPU_RIJNDAEL256 ? BSGPU_KEY_WORDS                                                    \
     : (C) == BSGPU_GIFT64    ? BSGPU_XKEY_GIFT64                                                  \
     : (C) == BSGPU_GIFT128   ? BSGPU_XKEY_GIFT128                                                 \
                              : BSGPU_XKEY_PRESENT)

template <int C>
__global__ void __launch_bounds__(BSGPU_THREADS_OF(C))
    bsgpu_ctr_kernel(const bsgpu_segment *__restrict__ seg, uint32_t nseg,
                     const bsgpu_key *__restrict__ keys, uint8_t *__restrict__ out,
                     uint64_t ngroups)
{
    __shared__ uint32_t skey[BSGPU_THREADS_OF(C) / BSGPU_WARP][BSGPU_SKEY_OF(C)];
    const unsigned gt = C == BSGPU_RIJNDAEL256 ? 8u : 1u;
    const unsigned lane = threadIdx.x % BSGPU_WARP, warp = threadIdx.x / BSGPU_WARP;
    const uint64_t tid = (uint64_t)blockIdx.x * BSGPU_THREADS_OF(C) + threadIdx.x;
    /* ngroups is a whole number of warps: a warp is either all in or all out. */
    if ((tid - lane) / gt >= ngroups)
        return;
    uint32_t s;
    uint64_t g;
    const unsigned nvalid = bsgpu_group_locate(seg, nseg, (uint32_t)(tid / gt), &s, &g);
    uint32_t *sk = skey[warp];
    if (C == BSGPU_RIJNDAEL256) {
        const uint32_t *src = keys[seg[s].key_index].w;
        for (unsigned i = lane; i < BSGPU_KEY_WORDS; i += BSGPU_WARP)
            sk[i] = src[i];
    } else {
        bsgpu_key_expand(sk, (bsgpu_cipher)C, keys[seg[s].key_index].w, lane, BSGPU_WARP);
    }
    __syncwarp();
    const unsigned bl = bsgpu_block_len((bsgpu_cipher)C);
    uint32_t B[8];
    bsgpu_group_counter(B, &seg[s], bl / 4, g);
    uint8_t *dst = out + seg[s].out_offset + g * BSGPU_GROUP_BLOCKS * bl;
    if (C == BSGPU_RIJNDAEL256) {
        /* Every lane takes part in the exchanges, padding groups too. */
        const unsigned c = lane & 7;
        uint32_t col[32];
        bsgpu_r256_ctr_column(col, B, c);
        bsgpu_r256_add_key(col, sk[c]);
        for (unsigned n = 1; n < BS_R256_ROUNDS; n++) {
            bsgpu_r256_sub_column(col);
            bsgpu_r256_shift_rows_dev(col, lane);
            bsgpu_r256_mix_column(col, sk[8 * n + c]);
        }
        bsgpu_r256_sub_column(col);
        bsgpu_r256_shift_rows_dev(col, lane);
        bsgpu_r256_add_key(col, sk[8 * BS_R256_ROUNDS + c]);
        if (nvalid != 0)
            bsgpu_r256_store_column(dst, col, c, nvalid);
        return;
    }
    if (nvalid == 0)
        return;
    if (C == BSGPU_PRESENT80 || C == BSGPU_PRESENT128)
        bsgpu_present_group(dst, sk, B, nvalid);
    else if (C == BSGPU_GIFT64)
        bsgpu_gift64_group(dst, sk, B, nvalid);
    else
        bsgpu_gift128_group(dst, sk, B, nvalid);
}

struct bsgpu_ctx {
    int device;
    unsigned nstreams;
    size_t chunk_bytes;
    cudaDeviceProp prop;
    cudaStream_t stream[BSGPU_MAX_STREAMS];
    uint8_t *dout[BSGPU_MAX_STREAMS];
    bsgpu_segment *dseg[BSGPU_MAX_STREAMS];
    bsgpu_segment *hseg[BSGPU_MAX_STREAMS]; /* pinned staging for the segment tables */
    bsgpu_copy copy[BSGPU_MAX_STREAMS][BSGPU_MAX_SEG];
    bsgpu_key *dkeys;
    uint32_t dkeys_cap;
    /* The self-check (bsgpu_keystream_checked): second outputs and per-job digest sums. */
    uint8_t *dout2[BSGPU_MAX_STREAMS];
    unsigned long long *dsums;
    size_t dsums_cap;
    char err[256];
};

static char bsgpu_open_err[256];

static int bsgpu_fail(bsgpu_ctx *ctx, cudaError_t e, const char *what)
{
    char *buf = ctx != NULL ? ctx->err : bsgpu_open_err;
    snprintf(buf, sizeof ctx->err, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return BSGPU_E_CUDA;
}

#define BSGPU_CHECK(ctx, call)                                                                     \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return bsgpu_fail((ctx), e_, #call);                                                   \
    } while (0)

extern "C" int bsgpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return 0;
    return n;
}

extern "C" const char *bsgpu_last_error(const bsgpu_ctx *ctx)
{
    return ctx != NULL ? ctx->err : bsgpu_open_err;
}

static void bsgpu_free(bsgpu_ctx *ctx)
{
    cudaSetDevice(ctx->device);
    for (unsigned i = 0; i < BSGPU_MAX_STREAMS; i++) {
        if (ctx->stream[i] != NULL)
            cudaStreamDestroy(ctx->stream[i]);
        cudaFree(ctx->dout[i]);
        cudaFree(ctx->dout2[i]);
        cudaFree(ctx->dseg[i]);
        cudaFreeHost(ctx->hseg[i]);
    }
    if (ctx->dkeys != NULL) {
        cudaMemset(ctx->dkeys, 0, ctx->dkeys_cap * sizeof(bsgpu_key));
        cudaFree(ctx->dkeys);
    }
    cudaFree(ctx->dsums);
    free(ctx);
}

static int bsgpu_open_inner(bsgpu_ctx *ctx)
{
    BSGPU_CHECK(NULL, cudaSetDevice(ctx->device));
    BSGPU_CHECK(NULL, cudaGetDeviceProperties(&ctx->prop, ctx->device));
    for (unsigned i = 0; i < ctx->nstreams; i++) {
        BSGPU_CHECK(NULL, cudaStreamCreateWithFlags(&ctx->stream[i], cudaStreamNonBlocking));
        BSGPU_CHECK(NULL, cudaMalloc((void **)&ctx->dout[i], ctx->chunk_bytes));
        BSGPU_CHECK(NULL,
                    cudaMalloc((void **)&ctx->dseg[i], BSGPU_MAX_SEG * sizeof(bsgpu_segment)));
        BSGPU_CHECK(NULL,
                    cudaMallocHost((void **)&ctx->hseg[i], BSGPU_MAX_SEG * sizeof(bsgpu_segment)));
    }
    return 0;
}

extern "C" int bsgpu_open(bsgpu_ctx **out, int device, unsigned nstreams, size_t chunk_bytes)
{
    *out = NULL;
    if (device < 0 || device >= bsgpu_device_count()) {
        snprintf(bsgpu_open_err, sizeof bsgpu_open_err, "no CUDA device %d", device);
        return BSGPU_E_NODEV;
    }
    /* One warp of RIJNDAEL-256 groups (the largest) is 4 KiB. */
    if (nstreams < 2 || nstreams > BSGPU_MAX_STREAMS || chunk_bytes < 4096)
        return BSGPU_E_ARG;
    bsgpu_ctx *ctx = (bsgpu_ctx *)calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return BSGPU_E_ARG;
    ctx->device = device;
    ctx->nstreams = nstreams;
    ctx->chunk_bytes = chunk_bytes / 4096 * 4096;
    int rc = bsgpu_open_inner(ctx);
    if (rc != 0) {
        bsgpu_free(ctx);
        return rc;
    }
    *out = ctx;
    return 0;
}

extern "C" void bsgpu_close(bsgpu_ctx *ctx)
{
    if (ctx != NULL)
        bsgpu_free(ctx);
}

extern "C" void bsgpu_describe(const bsgpu_ctx *ctx, char *out, size_t len)
{
    snprintf(out, len, "device=%d name=\"%s\" sm=%d%d sms=%d mem_mb=%zu streams=%u chunk_mb=%zu",
             ctx->device, ctx->prop.name, ctx->prop.major, ctx->prop.minor,
             ctx->prop.multiProcessorCount, ctx->prop.totalGlobalMem >> 20, ctx->nstreams,
             ctx->chunk_bytes >> 20);
}

extern "C" int bsgpu_register_host(bsgpu_ctx *ctx, void *p, size_t len)
{
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    BSGPU_CHECK(ctx, cudaHostRegister(p, len, cudaHostRegisterPortable));
    return 0;
}

extern "C" int bsgpu_unregister_host(bsgpu_ctx *ctx, void *p)
{
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    BSGPU_CHECK(ctx, cudaHostUnregister(p));
    return 0;
}

template <int C>
static void bsgpu_launch_one(cudaStream_t st, const bsgpu_segment *seg, uint32_t nseg,
                             const bsgpu_key *keys, uint8_t *out, uint64_t ngroups)
{
    const uint64_t threads = ngroups * bsgpu_group_threads((bsgpu_cipher)C);
    const unsigned tb = BSGPU_THREADS_OF(C);
    const unsigned blocks = (unsigned)((threads + tb - 1) / tb);
    if (blocks != 0)
        bsgpu_ctr_kernel<C><<<blocks, tb, 0, st>>>(seg, nseg, keys, out, ngroups);
}

static cudaError_t bsgpu_launch(bsgpu_cipher c, cudaStream_t st, const bsgpu_segment *seg,
                                uint32_t nseg, const bsgpu_key *keys, uint8_t *out,
                                uint64_t ngroups)
{
    switch (c) {
    case BSGPU_PRESENT80:
    case BSGPU_PRESENT128:
        bsgpu_launch_one<BSGPU_PRESENT80>(st, seg, nseg, keys, out, ngroups);
        break;
    case BSGPU_GIFT64:
        bsgpu_launch_one<BSGPU_GIFT64>(st, seg, nseg, keys, out, ngroups);
        break;
    case BSGPU_GIFT128:
        bsgpu_launch_one<BSGPU_GIFT128>(st, seg, nseg, keys, out, ngroups);
        break;
    default:
        bsgpu_launch_one<BSGPU_RIJNDAEL256>(st, seg, nseg, keys, out, ngroups);
        break;
    }
    return cudaGetLastError();
}

static int bsgpu_upload_keys(bsgpu_ctx *ctx, const bsgpu_key *keys, uint32_t nkeys)
{
    if (nkeys > ctx->dkeys_cap) {
        if (ctx->dkeys != NULL) {
            BSGPU_CHECK(ctx, cudaMemset(ctx->dkeys, 0, ctx->dkeys_cap * sizeof(bsgpu_key)));
            BSGPU_CHECK(ctx, cudaFree(ctx->dkeys));
            ctx->dkeys = NULL;
            ctx->dkeys_cap = 0;
        }
        uint32_t cap = nkeys < 64 ? 64 : nkeys;
        BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dkeys, cap * sizeof(bsgpu_key)));
        ctx->dkeys_cap = cap;
    }
    BSGPU_CHECK(ctx,
                cudaMemcpy(ctx->dkeys, keys, nkeys * sizeof(bsgpu_key), cudaMemcpyHostToDevice));
    /* A pageable copy may still be in flight when cudaMemcpy returns, and the work streams are
     * non-blocking: wait for it before any kernel reads the keys. */
    BSGPU_CHECK(ctx, cudaDeviceSynchronize());
    return 0;
}

static int bsgpu_sync_all(bsgpu_ctx *ctx)
{
    cudaError_t first = cudaSuccess;
    for (unsigned i = 0; i < ctx->nstreams; i++) {
        cudaError_t e = cudaStreamSynchronize(ctx->stream[i]);
        if (e != cudaSuccess && first == cudaSuccess)
            first = e;
    }
    return first == cudaSuccess ? 0 : bsgpu_fail(ctx, first, "cudaStreamSynchronize");
}

static int bsgpu_keystream_inner(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_job *jobs,
                                 size_t njobs)
{
    bsgpu_cursor cur = {0, 0};
    for (unsigned slot = 0;; slot = (slot + 1) % ctx->nstreams) {
        cudaStream_t st = ctx->stream[slot];
        /* The slot's previous launch and copies are done before its buffers are reused. */
        BSGPU_CHECK(ctx, cudaStreamSynchronize(st));
        uint64_t ngroups;
        const uint32_t n = bsgpu_plan_launch(c, jobs, njobs, &cur, ctx->chunk_bytes, BSGPU_MAX_SEG,
                                             ctx->hseg[slot], ctx->copy[slot], &ngroups);
        if (n == 0)
            break;
        BSGPU_CHECK(ctx, cudaMemcpyAsync(ctx->dseg[slot], ctx->hseg[slot],
                                         n * sizeof(bsgpu_segment), cudaMemcpyHostToDevice, st));
        BSGPU_CHECK(ctx,
                    bsgpu_launch(c, st, ctx->dseg[slot], n, ctx->dkeys, ctx->dout[slot], ngroups));
        for (uint32_t i = 0; i < n; i++) {
            const bsgpu_copy *cp = &ctx->copy[slot][i];
            BSGPU_CHECK(ctx, cudaMemcpyAsync(cp->dst, ctx->dout[slot] + cp->src_offset, cp->len,
                                             cudaMemcpyDeviceToHost, st));
        }
    }
    return 0;
}

/*
 * The self-check's reduction: the digest terms of nwords words of a second, independent
 * computation, summed per warp and added to *sum. Words are little-endian, as on the wire.
 */
__global__ void bsgpu_digest_kernel(const uint64_t *__restrict__ words, uint64_t nwords,
                                    uint64_t seed, uint64_t word0, unsigned long long *sum)
{
    uint64_t acc = 0;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j < nwords; j += stride)
        acc += bsd_digest_word(seed, word0 + j, words[j]);
    for (int o = BSGPU_WARP / 2; o > 0; o /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x % BSGPU_WARP == 0)
        atomicAdd(sum, (unsigned long long)acc);
}

static int bsgpu_checked_inner(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_job *jobs, size_t njobs,
                               const uint64_t *seeds, const uint64_t *word0s)
{
    const unsigned bl = bsgpu_block_len(c);
    bsgpu_cursor cur = {0, 0};
    size_t job = 0; /* the job the next copy belongs to: the planner goes through them in order */
    for (unsigned slot = 0;; slot = (slot + 1) % ctx->nstreams) {
        cudaStream_t st = ctx->stream[slot];
        BSGPU_CHECK(ctx, cudaStreamSynchronize(st));
        uint64_t ngroups;
        const uint32_t n = bsgpu_plan_launch(c, jobs, njobs, &cur, ctx->chunk_bytes, BSGPU_MAX_SEG,
                                             ctx->hseg[slot], ctx->copy[slot], &ngroups);
        if (n == 0)
            break;
        BSGPU_CHECK(ctx, cudaMemcpyAsync(ctx->dseg[slot], ctx->hseg[slot],
                                         n * sizeof(bsgpu_segment), cudaMemcpyHostToDevice, st));
        BSGPU_CHECK(ctx,
                    bsgpu_launch(c, st, ctx->dseg[slot], n, ctx->dkeys, ctx->dout[slot], ngroups));
        for (uint32_t i = 0; i < n; i++) {
            const bsgpu_copy *cp = &ctx->copy[slot][i];
            BSGPU_CHECK(ctx, cudaMemcpyAsync(cp->dst, ctx->dout[slot] + cp->src_offset, cp->len,
                                             cudaMemcpyDeviceToHost, st));
        }
        /* The same launch again, into the second buffer, while the copies run. */
        BSGPU_CHECK(ctx,
                    bsgpu_launch(c, st, ctx->dseg[slot], n, ctx->dkeys, ctx->dout2[slot], ngroups));
        for (uint32_t i = 0; i < n; i++) {
            const bsgpu_copy *cp = &ctx->copy[slot][i];
            while (job < njobs && !(cp->dst >= jobs[job].dst &&
                                    cp->dst < jobs[job].dst + jobs[job].nblocks * bl))
                job++;
            if (job == njobs)
                return BSGPU_E_ARG; /* a copy outside every job: a planning error */
            const uint64_t w0 = word0s[job] + (uint64_t)(cp->dst - jobs[job].dst) / 8;
            const uint64_t nw = cp->len / 8;
            const unsigned tb = 256;
            const uint64_t want = (nw + tb - 1) / tb;
            const unsigned blocks = want > 1024 ? 1024u : (unsigned)(want > 0 ? want : 1);
            bsgpu_digest_kernel<<<blocks, tb, 0, st>>>(
                (const uint64_t *)(ctx->dout2[slot] + cp->src_offset), nw, seeds[job], w0,
                ctx->dsums + job);
            BSGPU_CHECK(ctx, cudaGetLastError());
        }
    }
    return 0;
}

extern "C" int bsgpu_keystream_checked(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys,
                                       uint32_t nkeys, const bsgpu_job *jobs, size_t njobs,
                                       const uint64_t *seeds, const uint64_t *word0s,
                                       uint64_t *sums)
{
    if ((int)c < 0 || c >= BSGPU_NCIPHERS || bsgpu_block_len(c) % 8 != 0)
        return BSGPU_E_ARG;
    for (size_t j = 0; j < njobs; j++)
        if (jobs[j].key_index >= nkeys)
            return BSGPU_E_ARG;
    if (njobs == 0)
        return 0;
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    for (unsigned i = 0; i < ctx->nstreams; i++)
        if (ctx->dout2[i] == NULL)
            BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dout2[i], ctx->chunk_bytes));
    if (njobs > ctx->dsums_cap) {
        BSGPU_CHECK(ctx, cudaFree(ctx->dsums));
        ctx->dsums = NULL;
        ctx->dsums_cap = 0;
        BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dsums, njobs * sizeof *ctx->dsums));
        ctx->dsums_cap = njobs;
    }
    BSGPU_CHECK(ctx, cudaMemset(ctx->dsums, 0, njobs * sizeof *ctx->dsums));
    int rc = bsgpu_upload_keys(ctx, keys, nkeys);
    if (rc == 0)
        rc = bsgpu_checked_inner(ctx, c, jobs, njobs, seeds, word0s);
    const int rs = bsgpu_sync_all(ctx);
    if (rc == 0 && rs == 0)
        BSGPU_CHECK(ctx, cudaMemcpy(sums, ctx->dsums, njobs * sizeof *sums, cudaMemcpyDeviceToHost));
    return rc != 0 ? rc : rs;
}

extern "C" int bsgpu_keystream(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys,
                               uint32_t nkeys, const bsgpu_job *jobs, size_t njobs)
{
    if ((int)c < 0 || c >= BSGPU_NCIPHERS)
        return BSGPU_E_ARG;
    for (size_t j = 0; j < njobs; j++)
        if (jobs[j].key_index >= nkeys)
            return BSGPU_E_ARG;
    if (njobs == 0)
        return 0;
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    int rc = bsgpu_upload_keys(ctx, keys, nkeys);
    if (rc == 0)
        rc = bsgpu_keystream_inner(ctx, c, jobs, njobs);
    /* Always drain: on failure no copy may still be writing into the caller's buffers. */
    const int rs = bsgpu_sync_all(ctx);
    return rc != 0 ? rc : rs;
}

static int bsgpu_time_kernel_inner(bsgpu_ctx *ctx, bsgpu_cipher c, uint64_t bytes, unsigned reps,
                                   float *ms, uint8_t *dout, bsgpu_segment *dseg, cudaEvent_t e0,
                                   cudaEvent_t e1)
{
    bsgpu_segment seg;
    memset(&seg, 0, sizeof seg);
    seg.nblocks = bytes / bsgpu_block_len(c);
    seg.counter[0] = 0xfffff000u; /* carries into limb 1 early on */
    const uint64_t ngroups = bsgpu_plan(&seg, 1, c);
    BSGPU_CHECK(ctx, cudaMemcpy(dseg, &seg, sizeof seg, cudaMemcpyHostToDevice));
    BSGPU_CHECK(ctx, cudaDeviceSynchronize());
    cudaStream_t st = ctx->stream[0];
    BSGPU_CHECK(ctx, bsgpu_launch(c, st, dseg, 1, ctx->dkeys, dout, ngroups)); /* warm-up */
    for (unsigned i = 0; i < reps; i++) {
        BSGPU_CHECK(ctx, cudaEventRecord(e0, st));
        BSGPU_CHECK(ctx, bsgpu_launch(c, st, dseg, 1, ctx->dkeys, dout, ngroups));
        BSGPU_CHECK(ctx, cudaEventRecord(e1, st));
        BSGPU_CHECK(ctx, cudaEventSynchronize(e1));
        BSGPU_CHECK(ctx, cudaEventElapsedTime(&ms[i], e0, e1));
    }
    return 0;
}

extern "C" int bsgpu_time_kernel(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *key,
                                 uint64_t bytes, unsigned reps, float *ms)
{
    if ((int)c < 0 || c >= BSGPU_NCIPHERS || bytes == 0)
        return BSGPU_E_ARG;
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    int rc = bsgpu_upload_keys(ctx, key, 1);
    if (rc != 0)
        return rc;
    /* Output rounded up to whole warps of groups. */
    const uint64_t warp_bytes = (uint64_t)bsgpu_warp_groups(c) * 32 * bsgpu_block_len(c);
    const uint64_t alloc = (bytes + warp_bytes - 1) / warp_bytes * warp_bytes;
    uint8_t *dout = NULL;
    bsgpu_segment *dseg = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaError_t e = cudaMalloc((void **)&dout, alloc);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&dseg, sizeof(bsgpu_segment));
    if (e == cudaSuccess)
        e = cudaEventCreate(&e0);
    if (e == cudaSuccess)
        e = cudaEventCreate(&e1);
    rc = e != cudaSuccess ? bsgpu_fail(ctx, e, "allocating the timing buffers")
                          : bsgpu_time_kernel_inner(ctx, c, bytes, reps, ms, dout, dseg, e0, e1);
    cudaFree(dout);
    cudaFree(dseg);
    if (e0 != NULL)
        cudaEventDestroy(e0);
    if (e1 != NULL)
        cudaEventDestroy(e1);
    return rc;
}

static int bsgpu_time_copies_inner(bsgpu_ctx *ctx, size_t bytes, unsigned reps, float *h2d,
                                   float *d2h, uint8_t *h, uint8_t *d, cudaEvent_t e0,
                                   cudaEvent_t e1)
{
    cudaStream_t st = ctx->stream[0];
    memset(h, 0x3c, bytes); /* touch every page before timing */
    for (unsigned i = 0; i < reps; i++)
        for (int dir = 0; dir < 2; dir++) {
            BSGPU_CHECK(ctx, cudaEventRecord(e0, st));
            if (dir == 0)
                BSGPU_CHECK(ctx, cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));
            else
                BSGPU_CHECK(ctx, cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, st));
            BSGPU_CHECK(ctx, cudaEventRecord(e1, st));
            BSGPU_CHECK(ctx, cudaEventSynchronize(e1));
            BSGPU_CHECK(ctx, cudaEventElapsedTime(dir == 0 ? &h2d[i] : &d2h[i], e0, e1));
        }
    return 0;
}

extern "C" int bsgpu_time_copies(bsgpu_ctx *ctx, size_t bytes, unsigned reps, float *h2d_ms,
                                 float *d2h_ms)
{
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    uint8_t *h = NULL, *d = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    cudaError_t e = cudaMallocHost((void **)&h, bytes);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&d, bytes);
    if (e == cudaSuccess)
        e = cudaEventCreate(&e0);
    if (e == cudaSuccess)
        e = cudaEventCreate(&e1);
    int rc = e != cudaSuccess
                 ? bsgpu_fail(ctx, e, "allocating the copy buffers")
                 : bsgpu_time_copies_inner(ctx, bytes, reps, h2d_ms, d2h_ms, h, d, e0, e1);
    cudaFreeHost(h);
    cudaFree(d);
    if (e0 != NULL)
        cudaEventDestroy(e0);
    if (e1 != NULL)
        cudaEventDestroy(e1);
    return rc;
}
