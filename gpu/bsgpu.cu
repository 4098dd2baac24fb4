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

#include "bs_digest_mix.h"
#include "bsgpu.h"
#include "bsgpu_kernel_attr.h"
#include "bsgpu_host.h"

#define BSGPU_MAX_STREAMS 8
/* Segments per launch: the planner starts a new launch when a batch has more. */
#define BSGPU_MAX_SEG 4096
/* Copy policy of a launch (bsgpu_copy_out): at most this many copies always go direct... */
#define BSGPU_DIRECT_COPIES 4
/* ... and so do copies of ctx->stage_below bytes on average (BSGPU_STAGE_BELOW_DEFAULT, bsgpu.h);
 * smaller ones are staged. */

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

/*
 * Threads per block: 128 for PRESENT and GIFT-64, 64 for GIFT-128 (183 registers a thread: blocks
 * of two warps fit 10 warps an SM where blocks of four fit 8), 256 for RIJNDAEL-256.
 */
#define BSGPU_THREADS_OF(C) ((C) == BSGPU_RIJNDAEL256 ? 256u : (C) == BSGPU_GIFT128 ? 64u : 128u)
/* Shared words per warp: the key, then (PRESENT, GIFT) the warp's output on its way out. */
#define BSGPU_SLOT_OF(C)                                                                           \
    ((C) == BSGPU_RIJNDAEL256 ? BSGPU_SLOT_R256                                                    \
     : (C) == BSGPU_GIFT64    ? BSGPU_SLOT_GIFT64                                                  \
     : (C) == BSGPU_GIFT128   ? BSGPU_SLOT_GIFT128                                                 \
                              : BSGPU_SLOT_PRESENT)

/* One warp per key: the expansion every warp of the keystream kernel used to repeat. */
__global__ void __launch_bounds__(BSGPU_WARP)
    bsgpu_xkey_kernel(int c, const bsgpu_key *__restrict__ keys, uint32_t *__restrict__ xkeys)
{
    bsgpu_key_expand(xkeys + (size_t)blockIdx.x * bsgpu_xkey_stride((bsgpu_cipher)c),
                     (bsgpu_cipher)c, keys[blockIdx.x].w, threadIdx.x, BSGPU_WARP);
}

/*
 * One warp per change of the resident key table (bsgpu_keys_update): the slot loaded with its
 * key's device form and the rest of it zeroed, or all of it zeroed (bsgpu_keyop_apply).
 */
__global__ void __launch_bounds__(BSGPU_WARP)
    bsgpu_keyop_kernel(const bsgpu_keyop *__restrict__ ops, const bsgpu_key *__restrict__ keys,
                       uint32_t *__restrict__ table)
{
    const bsgpu_keyop op = ops[blockIdx.x];
    bsgpu_keyop_apply(table + (size_t)op.slot * BSGPU_XKEY_STRIDE_MAX, &op, keys[blockIdx.x].w,
                      threadIdx.x, BSGPU_WARP);
}

template <int C>
__global__ void __launch_bounds__(BSGPU_THREADS_OF(C))
    bsgpu_ctr_kernel(const bsgpu_segment *__restrict__ seg, uint32_t nseg,
                     const uint32_t *__restrict__ xkeys, const uint32_t *__restrict__ rkeys,
                     uint8_t *__restrict__ out, uint64_t ngroups)
{
    __shared__ __align__(16) uint32_t slot[BSGPU_THREADS_OF(C) / BSGPU_WARP][BSGPU_SLOT_OF(C)];
    const unsigned gt = C == BSGPU_RIJNDAEL256 ? 8u : 1u;
    const unsigned bl = bsgpu_block_len((bsgpu_cipher)C), nw = bl / 4;
    const unsigned lane = threadIdx.x % BSGPU_WARP, warp = threadIdx.x / BSGPU_WARP;
    const uint64_t tid = (uint64_t)blockIdx.x * BSGPU_THREADS_OF(C) + threadIdx.x;
    /* ngroups is a whole number of warps: a warp is either all in or all out. */
    if ((tid - lane) / gt >= ngroups)
        return;
    uint32_t s;
    uint64_t g;
    const unsigned nvalid = bsgpu_group_locate(seg, nseg, (uint32_t)(tid / gt), &s, &g);
    uint64_t off = 0;
    unsigned nbytes = 0;
    if (C != BSGPU_RIJNDAEL256) {
        /* The same for every lane (one segment a warp): a warp of padding groups leaves whole. */
        nbytes = bsgpu_warp_bytes(&seg[s], g - lane, bl, &off);
        if (nbytes == 0)
            return;
    }
    /* The warp's key (expanded once: by bsgpu_xkey_kernel for this call, or by
     * bsgpu_keyop_kernel into a resident slot), 16 bytes a lane and load. The choice is the
     * same for the whole warp (one segment a warp). */
    uint32_t *sk = slot[warp];
    const unsigned stride = bsgpu_xkey_stride((bsgpu_cipher)C);
    const uint32_t ki = seg[s].key_index;
    const uint4 *src =
        (const uint4 *)((ki & BSGPU_KEY_RESIDENT) != 0
                            ? rkeys + (size_t)(ki & ~BSGPU_KEY_RESIDENT) * BSGPU_XKEY_STRIDE_MAX
                            : xkeys + (size_t)ki * stride);
    for (unsigned i = lane; i < stride / 4; i += BSGPU_WARP)
        ((uint4 *)sk)[i] = __ldg(src + i);
    __syncwarp();
    uint32_t B[8];
    bsgpu_group_counter(B, &seg[s], nw, g);
    if (C == BSGPU_RIJNDAEL256) {
        uint8_t *dst = out + seg[s].out_offset + g * BSGPU_GROUP_BLOCKS * bl;
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
    /* Padding lanes of a partial warp compute too: every lane reaches the __syncwarp()s. */
    uint32_t y[C == BSGPU_GIFT128 ? 128 : 64];
    if (C == BSGPU_PRESENT80 || C == BSGPU_PRESENT128)
        bsgpu_present_y(y, sk, B);
    else if (C == BSGPU_GIFT64)
        bsgpu_gift64_y(y, sk, B);
    else
        bsgpu_gift128_y(y, sk, B);
    __syncwarp(); /* every lane is done with the key before the slot takes the output */
    bsgpu_stage_write(sk, lane, y, nw);
    __syncwarp();
    bsgpu_stage_store(out + off, sk, lane, nw, nbytes);
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
    /* A launch's output staged in pinned memory (one copy), scattered once its stream is done:
     * ncopy[slot] copies pending when staged[slot]. */
    uint8_t *hstage[BSGPU_MAX_STREAMS];
    uint32_t ncopy[BSGPU_MAX_STREAMS];
    int staged[BSGPU_MAX_STREAMS];
    int stage_failed; /* no pinned staging could be had: direct copies only */
    int batch_failed; /* the driver has no cudaMemcpyBatchAsync: one call a copy */
    uint64_t stage_below;
    void *bdst[BSGPU_MAX_SEG];
    const void *bsrc[BSGPU_MAX_SEG];
    size_t blen[BSGPU_MAX_SEG];
    /* Compact keys (pinned staging, device) and their expansions (device), one upload a call. */
    bsgpu_key *hkeys, *dkeys;
    uint32_t *dxkeys;
    uint32_t dkeys_cap;
    cudaEvent_t keys_ready;
    /* Keys that stay on the device (bsgpu_keys_reserve): the table, and the staging of
     * bsgpu_keys_update (ops and compact keys, pinned and device), ops_cap entries each. */
    uint32_t *dres;
    uint32_t res_cap;
    bsgpu_keyop *hops, *dops;
    bsgpu_key *hopkeys, *dopkeys;
    uint32_t ops_cap;
    bsgpu_stats stats;
    /* The self-check (bsgpu_keystream_checked): second outputs, each launch's digest segments
     * (pinned staging, device) and per-job digest sums. */
    uint8_t *dout2[BSGPU_MAX_STREAMS];
    bsgpu_digest_seg *hds[BSGPU_MAX_STREAMS], *dds[BSGPU_MAX_STREAMS];
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

/* Keys are wiped before their memory goes back. */
static void bsgpu_free_keys(bsgpu_ctx *ctx)
{
    if (ctx->hkeys != NULL) {
        memset(ctx->hkeys, 0, ctx->dkeys_cap * sizeof(bsgpu_key));
        cudaFreeHost(ctx->hkeys);
    }
    if (ctx->dkeys != NULL) {
        cudaMemset(ctx->dkeys, 0, ctx->dkeys_cap * sizeof(bsgpu_key));
        cudaFree(ctx->dkeys);
    }
    if (ctx->dxkeys != NULL) {
        cudaMemset(ctx->dxkeys, 0, (size_t)ctx->dkeys_cap * BSGPU_XKEY_STRIDE_MAX * 4);
        cudaFree(ctx->dxkeys);
    }
    ctx->hkeys = ctx->dkeys = NULL;
    ctx->dxkeys = NULL;
    ctx->dkeys_cap = 0;
}

/* The update staging, wiped (compact keys) and freed. */
static void bsgpu_free_ops(bsgpu_ctx *ctx)
{
    if (ctx->hopkeys != NULL) {
        memset(ctx->hopkeys, 0, ctx->ops_cap * sizeof(bsgpu_key));
        cudaFreeHost(ctx->hopkeys);
    }
    if (ctx->dopkeys != NULL) {
        cudaMemset(ctx->dopkeys, 0, ctx->ops_cap * sizeof(bsgpu_key));
        cudaFree(ctx->dopkeys);
    }
    cudaFreeHost(ctx->hops);
    cudaFree(ctx->dops);
    ctx->hopkeys = ctx->dopkeys = NULL;
    ctx->hops = ctx->dops = NULL;
    ctx->ops_cap = 0;
}

extern "C" int bsgpu_keys_release(bsgpu_ctx *ctx)
{
    if (cudaSetDevice(ctx->device) != cudaSuccess)
        (void)cudaGetLastError();
    int rc = 0;
    if (ctx->dres != NULL) {
        /* Keys are wiped before their memory goes back (and waited for: the free is not
         * ordered after an asynchronous memset on another stream). After a sticky error the
         * memset fails, and the keys stay until the context is torn down: said to the caller. */
        cudaError_t e = cudaMemset(ctx->dres, 0, (size_t)ctx->res_cap * BSGPU_XKEY_STRIDE_MAX * 4);
        const cudaError_t y = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = y;
        if (e != cudaSuccess)
            rc = bsgpu_fail(ctx, e, "bsgpu_keys_release: cudaMemset of the key table");
        cudaFree(ctx->dres);
    }
    ctx->dres = NULL;
    ctx->res_cap = 0;
    bsgpu_free_ops(ctx);
    return rc;
}

extern "C" int bsgpu_keys_reserve(bsgpu_ctx *ctx, uint32_t nslots)
{
    if (nslots == 0 || nslots >= BSGPU_KEY_RESIDENT || ctx->dres != NULL)
        return BSGPU_E_ARG;
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    const size_t len = (size_t)nslots * BSGPU_XKEY_STRIDE_MAX * 4;
    BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dres, len));
    ctx->res_cap = nslots;
    BSGPU_CHECK(ctx, cudaMemset(ctx->dres, 0, len));
    return 0;
}

extern "C" int bsgpu_keys_update(bsgpu_ctx *ctx, const bsgpu_keyop *ops, const bsgpu_key *keys,
                                 uint32_t n)
{
    if (ctx->dres == NULL)
        return BSGPU_E_ARG;
    for (uint32_t i = 0; i < n; i++)
        if (ops[i].slot >= ctx->res_cap || (ops[i].load && ops[i].cipher >= BSGPU_NCIPHERS))
            return BSGPU_E_ARG;
    if (n == 0)
        return 0;
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    if (n > ctx->ops_cap) {
        bsgpu_free_ops(ctx);
        const uint32_t cap = n < 64 ? 64 : n;
        BSGPU_CHECK(ctx, cudaMallocHost((void **)&ctx->hops, cap * sizeof(bsgpu_keyop)));
        BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dops, cap * sizeof(bsgpu_keyop)));
        BSGPU_CHECK(ctx, cudaMallocHost((void **)&ctx->hopkeys, cap * sizeof(bsgpu_key)));
        BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dopkeys, cap * sizeof(bsgpu_key)));
        ctx->ops_cap = cap;
    }
    /* On stream 0, waited for before returning: every later call finds the table done. */
    cudaStream_t st = ctx->stream[0];
    memcpy(ctx->hops, ops, n * sizeof(bsgpu_keyop));
    memcpy(ctx->hopkeys, keys, n * sizeof(bsgpu_key));
    cudaError_t e =
        cudaMemcpyAsync(ctx->dops, ctx->hops, n * sizeof(bsgpu_keyop), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(ctx->dopkeys, ctx->hopkeys, n * sizeof(bsgpu_key),
                            cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) {
        bsgpu_keyop_kernel<<<n, BSGPU_WARP, 0, st>>>(ctx->dops, ctx->dopkeys, ctx->dres);
        e = cudaGetLastError();
    }
    /* The compact keys leave no copy behind, on the device or in the pinned staging. */
    const cudaError_t w = cudaMemsetAsync(ctx->dopkeys, 0, n * sizeof(bsgpu_key), st);
    const cudaError_t y = cudaStreamSynchronize(st);
    memset(ctx->hopkeys, 0, n * sizeof(bsgpu_key));
    if (e == cudaSuccess)
        e = w != cudaSuccess ? w : y;
    return e == cudaSuccess ? 0 : bsgpu_fail(ctx, e, "bsgpu_keys_update");
}

static void bsgpu_free(bsgpu_ctx *ctx)
{
    cudaSetDevice(ctx->device);
    for (unsigned i = 0; i < BSGPU_MAX_STREAMS; i++) {
        if (ctx->stream[i] != NULL)
            cudaStreamDestroy(ctx->stream[i]);
        cudaFree(ctx->dout[i]);
        cudaFree(ctx->dout2[i]);
        cudaFree(ctx->dds[i]);
        cudaFreeHost(ctx->hds[i]);
        cudaFree(ctx->dseg[i]);
        cudaFreeHost(ctx->hseg[i]);
        if (ctx->hstage[i] != NULL) {
            memset(ctx->hstage[i], 0, ctx->chunk_bytes); /* keystream */
            cudaFreeHost(ctx->hstage[i]);
        }
    }
    bsgpu_free_keys(ctx);
    (void)bsgpu_keys_release(ctx); /* its callers that can say so release first */
    if (ctx->keys_ready != NULL)
        cudaEventDestroy(ctx->keys_ready);
    cudaFree(ctx->dsums);
    free(ctx);
}

/*
 * How a host thread waits for the device (BSGPU_SYNC, read at open): "blocking" sleeps on an OS
 * primitive, "yield" polls and yields, "spin" polls; unset, or anything else, leaves CUDA's
 * default (auto: with fewer active contexts than logical CPUs, spin, so that every
 * cudaStreamSynchronize counts the device's time as the caller's CPU). For measuring the
 * daemon's CPU per byte on a device either way; not yet measured.
 */
static unsigned bsgpu_sync_flags(void)
{
    const char *s = getenv("BSGPU_SYNC");
    if (s == NULL)
        return 0;
    if (strcmp(s, "blocking") == 0)
        return cudaDeviceScheduleBlockingSync;
    if (strcmp(s, "yield") == 0)
        return cudaDeviceScheduleYield;
    if (strcmp(s, "spin") == 0)
        return cudaDeviceScheduleSpin;
    return 0;
}

static int bsgpu_open_inner(bsgpu_ctx *ctx)
{
    BSGPU_CHECK(NULL, cudaSetDevice(ctx->device));
    const unsigned sync = bsgpu_sync_flags();
    if (sync != 0)
        BSGPU_CHECK(NULL, cudaSetDeviceFlags(sync));
    BSGPU_CHECK(NULL, cudaGetDeviceProperties(&ctx->prop, ctx->device));
    BSGPU_CHECK(NULL, cudaEventCreateWithFlags(&ctx->keys_ready, cudaEventDisableTiming));
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
    ctx->stage_below = BSGPU_STAGE_BELOW_DEFAULT;
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
                             const uint32_t *xkeys, const uint32_t *rkeys, uint8_t *out,
                             uint64_t ngroups)
{
    const uint64_t threads = ngroups * bsgpu_group_threads((bsgpu_cipher)C);
    const unsigned tb = BSGPU_THREADS_OF(C);
    const unsigned blocks = (unsigned)((threads + tb - 1) / tb);
    if (blocks != 0)
        bsgpu_ctr_kernel<C><<<blocks, tb, 0, st>>>(seg, nseg, xkeys, rkeys, out, ngroups);
}

/* The keys a kernel of cipher c reads: expanded, or compact for RIJNDAEL-256. */
static const uint32_t *bsgpu_kernel_keys(const bsgpu_ctx *ctx, bsgpu_cipher c)
{
    return c == BSGPU_RIJNDAEL256 ? (const uint32_t *)ctx->dkeys : ctx->dxkeys;
}

static cudaError_t bsgpu_launch(const bsgpu_ctx *ctx, bsgpu_cipher c, cudaStream_t st,
                                const bsgpu_segment *seg, uint32_t nseg, uint8_t *out,
                                uint64_t ngroups)
{
    const uint32_t *xk = bsgpu_kernel_keys(ctx, c);
    switch (c) {
    case BSGPU_PRESENT80:
    case BSGPU_PRESENT128:
        bsgpu_launch_one<BSGPU_PRESENT80>(st, seg, nseg, xk, ctx->dres, out, ngroups);
        break;
    case BSGPU_GIFT64:
        bsgpu_launch_one<BSGPU_GIFT64>(st, seg, nseg, xk, ctx->dres, out, ngroups);
        break;
    case BSGPU_GIFT128:
        bsgpu_launch_one<BSGPU_GIFT128>(st, seg, nseg, xk, ctx->dres, out, ngroups);
        break;
    default:
        bsgpu_launch_one<BSGPU_RIJNDAEL256>(st, seg, nseg, xk, ctx->dres, out, ngroups);
        break;
    }
    return cudaGetLastError();
}

/*
 * The call's keys: one pinned upload and one expansion pre-kernel on stream 0, which every other
 * stream waits for (no device-wide synchronisation). The staging buffer is free: the previous
 * call drained every stream before it returned.
 */
static int bsgpu_upload_keys(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys)
{
    if (nkeys > ctx->dkeys_cap) {
        bsgpu_free_keys(ctx);
        const uint32_t cap = nkeys < 64 ? 64 : nkeys;
        BSGPU_CHECK(ctx, cudaMallocHost((void **)&ctx->hkeys, cap * sizeof(bsgpu_key)));
        BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dkeys, cap * sizeof(bsgpu_key)));
        BSGPU_CHECK(ctx,
                    cudaMalloc((void **)&ctx->dxkeys, (size_t)cap * BSGPU_XKEY_STRIDE_MAX * 4));
        ctx->dkeys_cap = cap;
    }
    cudaStream_t st = ctx->stream[0];
    memcpy(ctx->hkeys, keys, nkeys * sizeof(bsgpu_key));
    BSGPU_CHECK(ctx, cudaMemcpyAsync(ctx->dkeys, ctx->hkeys, nkeys * sizeof(bsgpu_key),
                                     cudaMemcpyHostToDevice, st));
    if (c != BSGPU_RIJNDAEL256) {
        bsgpu_xkey_kernel<<<nkeys, BSGPU_WARP, 0, st>>>((int)c, ctx->dkeys, ctx->dxkeys);
        BSGPU_CHECK(ctx, cudaGetLastError());
    }
    BSGPU_CHECK(ctx, cudaEventRecord(ctx->keys_ready, st));
    for (unsigned i = 1; i < ctx->nstreams; i++)
        BSGPU_CHECK(ctx, cudaStreamWaitEvent(ctx->stream[i], ctx->keys_ready, 0));
    return 0;
}

/*
 * A call's own keys leave no copy behind once it is done (every stream drained): the pinned
 * staging now, the device's compact and expanded copies by memsets queued on stream 0, ahead of
 * any later upload there.
 */
static void bsgpu_wipe_call_keys(bsgpu_ctx *ctx, bsgpu_cipher c, uint32_t nkeys)
{
    if (nkeys == 0 || nkeys > ctx->dkeys_cap || ctx->hkeys == NULL)
        return;
    memset(ctx->hkeys, 0, nkeys * sizeof(bsgpu_key));
    cudaStream_t st = ctx->stream[0];
    cudaError_t e = cudaMemsetAsync(ctx->dkeys, 0, nkeys * sizeof(bsgpu_key), st);
    if (e == cudaSuccess && c != BSGPU_RIJNDAEL256)
        e = cudaMemsetAsync(ctx->dxkeys, 0, (size_t)nkeys * bsgpu_xkey_stride(c) * 4, st);
    if (e != cudaSuccess)
        (void)cudaGetLastError(); /* bsgpu_close zeroes them all the same */
}

/*
 * After a refused copy (BSGPU_E_DEST), every stream drained: whether the context still works. A
 * sticky error (a corrupted context) is returned by every later call, this synchronisation and
 * the error check after it included.
 */
static int bsgpu_context_ok(bsgpu_ctx *ctx)
{
    (void)cudaGetLastError();
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        bsgpu_fail(ctx, e, "cudaDeviceSynchronize after a refused copy");
        return 0;
    }
    return 1;
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

/*
 * cudaMemcpyBatchAsync: CUDA 12.8 has it with a failIdx argument, 13.0 without; an older toolkit
 * has none, and every copy is its own call.
 */
#if CUDART_VERSION >= 12080
typedef cudaMemcpyAttributes bsgpu_copy_attr;
#else
typedef struct bsgpu_copy_attr {
    int srcAccessOrder;
} bsgpu_copy_attr;
#define cudaMemcpySrcAccessOrderStream 1
#endif
static cudaError_t bsgpu_memcpy_batch(void **dst, const void **src, size_t *len, size_t n,
                                      bsgpu_copy_attr *attr, size_t *attr_index, cudaStream_t st)
{
#if CUDART_VERSION >= 13000
    return cudaMemcpyBatchAsync(dst, src, len, n, attr, attr_index, 1, st);
#elif CUDART_VERSION >= 12080
    size_t fail = 0;
    return cudaMemcpyBatchAsync(dst, (void **)src, len, n, attr, attr_index, 1, &fail, st);
#else
    (void)dst, (void)src, (void)len, (void)n, (void)attr, (void)attr_index, (void)st;
    return cudaErrorNotSupported;
#endif
}

/* The host half of a staged launch: its output, from pinned memory to each job's dst. */
static void bsgpu_scatter(bsgpu_ctx *ctx, unsigned slot)
{
    if (!ctx->staged[slot])
        return;
    const uint64_t base = ctx->copy[slot][0].src_offset;
    for (uint32_t i = 0; i < ctx->ncopy[slot]; i++) {
        const bsgpu_copy *cp = &ctx->copy[slot][i];
        memcpy(cp->dst, ctx->hstage[slot] + (cp->src_offset - base), cp->len);
    }
    ctx->staged[slot] = 0;
}

/*
 * A copy into a job's memory that CUDA refused: cudaErrorInvalidValue is about its arguments (the
 * destination: e.g. a range running across the end of one registered allocation), is not sticky,
 * and is cleared here, BSGPU_E_DEST; bsgpu_keystream_any checks the context before it says so.
 */
static int bsgpu_copy_refused(bsgpu_ctx *ctx, cudaError_t e, const bsgpu_copy *cp, uint32_t i,
                              uint32_t n)
{
    char what[160];
    snprintf(what, sizeof what,
             "cudaMemcpyAsync into a job's memory (copy %u of %u, dst %p, %llu bytes, "
             "cudaMemcpyDeviceToHost)",
             i + 1, n, (void *)cp[i].dst, (unsigned long long)cp[i].len);
    bsgpu_fail(ctx, e, what);
    if (e != cudaErrorInvalidValue)
        return BSGPU_E_CUDA;
    (void)cudaGetLastError();
    return BSGPU_E_DEST;
}

/* A launch's copies to the jobs' memory, one call each, in stream order after its kernel. */
static int bsgpu_copy_each(bsgpu_ctx *ctx, unsigned slot, uint32_t n)
{
    const bsgpu_copy *cp = ctx->copy[slot];
    for (uint32_t i = 0; i < n; i++) {
        const cudaError_t e = cudaMemcpyAsync(cp[i].dst, ctx->dout[slot] + cp[i].src_offset,
                                              cp[i].len, cudaMemcpyDeviceToHost, ctx->stream[slot]);
        if (e != cudaSuccess)
            return bsgpu_copy_refused(ctx, e, cp, i, n);
        ctx->stats.copies++;
    }
    return 0;
}

/*
 * The copies back of one launch: a few go straight to the jobs' memory (full DMA speed into
 * registered memory), one call each; many large ones too, as one batch call; many small ones,
 * where each copy would cost more than its bytes (~4 us), become one copy of the launch's packed
 * output into pinned staging, scattered on the host once the stream is done.
 */
static int bsgpu_copy_out(bsgpu_ctx *ctx, unsigned slot, uint32_t n)
{
    cudaStream_t st = ctx->stream[slot];
    const bsgpu_copy *cp = ctx->copy[slot];
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += cp[i].len;
    const uint64_t span = cp[n - 1].src_offset + cp[n - 1].len - cp[0].src_offset;
    int stage = n > BSGPU_DIRECT_COPIES && total / n < ctx->stage_below && !ctx->stage_failed;
    if (stage && ctx->hstage[slot] == NULL &&
        cudaMallocHost((void **)&ctx->hstage[slot], ctx->chunk_bytes) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: fall back to direct copies */
        ctx->hstage[slot] = NULL;
        ctx->stage_failed = 1;
        stage = 0;
    }
    if (stage) {
        BSGPU_CHECK(ctx, cudaMemcpyAsync(ctx->hstage[slot], ctx->dout[slot] + cp[0].src_offset,
                                         span, cudaMemcpyDeviceToHost, st));
        ctx->ncopy[slot] = n;
        ctx->staged[slot] = 1;
        ctx->stats.copies++;
        ctx->stats.staged_launches++;
        return 0;
    }
    if (n > BSGPU_DIRECT_COPIES && !ctx->batch_failed) {
        /* One call for the launch's copies (CUDA 12.8 and later), in stream order after the
         * kernel; where the driver refuses, one call each from now on. */
        for (uint32_t i = 0; i < n; i++) {
            ctx->bdst[i] = cp[i].dst;
            ctx->bsrc[i] = ctx->dout[slot] + cp[i].src_offset;
            ctx->blen[i] = cp[i].len;
        }
        bsgpu_copy_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        size_t attr_index = 0;
        if (bsgpu_memcpy_batch(ctx->bdst, ctx->bsrc, ctx->blen, n, &attr, &attr_index, st) ==
            cudaSuccess) {
            ctx->stats.copies++;
            ctx->stats.batched_launches++;
            return 0;
        }
        (void)cudaGetLastError();
        /* Refused: the copies one call each. Where those pass, the driver lacks the batch call
         * (one call a copy from now on); where one is refused too, its destination was the cause,
         * and the batch call stays in use for later launches. */
        const int rc = bsgpu_copy_each(ctx, slot, n);
        if (rc == 0)
            ctx->batch_failed = 1;
        return rc;
    }
    return bsgpu_copy_each(ctx, slot, n);
}

/*
 * The self-check's reduction of a whole launch, whatever its number of jobs: one warp a chunk of
 * BSGPU_DIGEST_CHUNK words of one digest segment (bsgpu_digest.h), the warp's sum added to its
 * job's. Words are little-endian, as on the wire.
 */
#define BSGPU_DIGEST_THREADS 256u
__global__ void __launch_bounds__(BSGPU_DIGEST_THREADS)
    bsgpu_digest_kernel(const bsgpu_digest_seg *__restrict__ ds, uint32_t nseg, uint32_t nchunks,
                        const uint8_t *__restrict__ base, unsigned long long *sums)
{
    const uint32_t chunk = (blockIdx.x * BSGPU_DIGEST_THREADS + threadIdx.x) / BSGPU_WARP;
    const unsigned lane = threadIdx.x % BSGPU_WARP;
    if (chunk >= nchunks)
        return; /* the whole warp */
    const uint32_t s = bsgpu_digest_find(ds, nseg, chunk);
    uint64_t acc = bsgpu_digest_lane(&ds[s], chunk - ds[s].chunk_first, base, lane, BSGPU_WARP);
    for (int o = BSGPU_WARP / 2; o > 0; o /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0)
        atomicAdd(sums + ds[s].job, (unsigned long long)acc);
}

/* What the self-check needs of a call: per job, its digest seed and first word index. */
typedef struct bsgpu_check {
    const uint64_t *seeds, *word0s;
    size_t job; /* the job the next copy belongs to: the planner goes through them in order */
} bsgpu_check;

/*
 * The self-check of one launch (its per-segment copies, before they are merged): the same
 * launch again into the second buffer, then its words digested per job on the device, in one
 * kernel for all its jobs. Queued on the launch's stream after its copies, so that the second
 * computation overlaps the copies of the other streams.
 */
static int bsgpu_check_launch(bsgpu_ctx *ctx, bsgpu_cipher c, unsigned slot, uint32_t nseg,
                              uint64_t ngroups, const bsgpu_job *jobs, size_t njobs,
                              bsgpu_check *chk, const bsgpu_copy *cp, uint32_t ncp)
{
    cudaStream_t st = ctx->stream[slot];
    BSGPU_CHECK(ctx, bsgpu_launch(ctx, c, st, ctx->dseg[slot], nseg, ctx->dout2[slot], ngroups));
    uint32_t nchunks;
    if (bsgpu_plan_digest(c, cp, ncp, jobs, njobs, chk->seeds, chk->word0s, &chk->job,
                          ctx->hds[slot], &nchunks) < 0)
        return BSGPU_E_ARG; /* a copy outside every job: a planning error */
    BSGPU_CHECK(ctx, cudaMemcpyAsync(ctx->dds[slot], ctx->hds[slot], ncp * sizeof(bsgpu_digest_seg),
                                     cudaMemcpyHostToDevice, st));
    const uint32_t per = BSGPU_DIGEST_THREADS / BSGPU_WARP;
    bsgpu_digest_kernel<<<(nchunks + per - 1) / per, BSGPU_DIGEST_THREADS, 0, st>>>(
        ctx->dds[slot], ncp, nchunks, ctx->dout2[slot], ctx->dsums);
    BSGPU_CHECK(ctx, cudaGetLastError());
    return 0;
}

static int bsgpu_keystream_inner(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_job *jobs,
                                 size_t njobs, bsgpu_check *chk)
{
    static __thread bsgpu_copy unmerged[BSGPU_MAX_SEG];
    bsgpu_cursor cur = {0, 0};
    for (unsigned slot = 0;; slot = (slot + 1) % ctx->nstreams) {
        cudaStream_t st = ctx->stream[slot];
        /* The slot's previous launch and copies are done before its buffers are reused. */
        BSGPU_CHECK(ctx, cudaStreamSynchronize(st));
        bsgpu_scatter(ctx, slot);
        uint64_t ngroups;
        uint32_t n = bsgpu_plan_launch(c, jobs, njobs, &cur, ctx->chunk_bytes, BSGPU_MAX_SEG,
                                       ctx->hseg[slot], ctx->copy[slot], &ngroups);
        if (n == 0)
            break;
        BSGPU_CHECK(ctx, cudaMemcpyAsync(ctx->dseg[slot], ctx->hseg[slot],
                                         n * sizeof(bsgpu_segment), cudaMemcpyHostToDevice, st));
        BSGPU_CHECK(ctx, bsgpu_launch(ctx, c, st, ctx->dseg[slot], n, ctx->dout[slot], ngroups));
        ctx->stats.launches++;
        const uint32_t nseg = n;
        if (chk != NULL)
            memcpy(unmerged, ctx->copy[slot], nseg * sizeof unmerged[0]);
        n = bsgpu_merge_copies(ctx->copy[slot], n);
        int rc = bsgpu_copy_out(ctx, slot, n);
        if (rc == 0 && chk != NULL)
            rc = bsgpu_check_launch(ctx, c, slot, nseg, ngroups, jobs, njobs, chk, unmerged, nseg);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int bsgpu_keystream_any(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys,
                               uint32_t nkeys, const bsgpu_job *jobs, size_t njobs,
                               bsgpu_check *chk, uint64_t *sums);

extern "C" int bsgpu_keystream(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys,
                               uint32_t nkeys, const bsgpu_job *jobs, size_t njobs)
{
    return bsgpu_keystream_any(ctx, c, keys, nkeys, jobs, njobs, NULL, NULL);
}

extern "C" int bsgpu_keystream_checked(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys,
                                       uint32_t nkeys, const bsgpu_job *jobs, size_t njobs,
                                       const uint64_t *seeds, const uint64_t *word0s,
                                       uint64_t *sums)
{
    if ((int)c >= 0 && c < BSGPU_NCIPHERS && bsgpu_block_len(c) % 8 != 0)
        return BSGPU_E_ARG;
    bsgpu_check chk = {seeds, word0s, 0};
    return bsgpu_keystream_any(ctx, c, keys, nkeys, jobs, njobs, &chk, sums);
}

static int bsgpu_keystream_any(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys,
                               uint32_t nkeys, const bsgpu_job *jobs, size_t njobs,
                               bsgpu_check *chk, uint64_t *sums)
{
    if ((int)c < 0 || c >= BSGPU_NCIPHERS)
        return BSGPU_E_ARG;
    for (size_t j = 0; j < njobs; j++) {
        const uint32_t k = jobs[j].key_index;
        if ((k & BSGPU_KEY_RESIDENT) ? (k & ~BSGPU_KEY_RESIDENT) >= ctx->res_cap : k >= nkeys)
            return BSGPU_E_ARG;
    }
    if (njobs == 0)
        return 0;
    BSGPU_CHECK(ctx, cudaSetDevice(ctx->device));
    if (chk != NULL) {
        for (unsigned i = 0; i < ctx->nstreams; i++) {
            if (ctx->dout2[i] == NULL)
                BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dout2[i], ctx->chunk_bytes));
            if (ctx->dds[i] == NULL)
                BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dds[i],
                                            BSGPU_MAX_SEG * sizeof(bsgpu_digest_seg)));
            if (ctx->hds[i] == NULL)
                BSGPU_CHECK(ctx, cudaMallocHost((void **)&ctx->hds[i],
                                                BSGPU_MAX_SEG * sizeof(bsgpu_digest_seg)));
        }
        if (njobs > ctx->dsums_cap) {
            BSGPU_CHECK(ctx, cudaFree(ctx->dsums));
            ctx->dsums = NULL;
            ctx->dsums_cap = 0;
            BSGPU_CHECK(ctx, cudaMalloc((void **)&ctx->dsums, njobs * sizeof *ctx->dsums));
            ctx->dsums_cap = njobs;
        }
        BSGPU_CHECK(ctx, cudaMemset(ctx->dsums, 0, njobs * sizeof *ctx->dsums));
    }
    /* Only the call's own keys: resident ones are on the device already. */
    int rc = nkeys > 0 ? bsgpu_upload_keys(ctx, c, keys, nkeys) : 0;
    if (rc == 0)
        rc = bsgpu_keystream_inner(ctx, c, jobs, njobs, chk);
    /* Always drain: on failure no copy may still be writing into the caller's buffers. */
    const int rs = bsgpu_sync_all(ctx);
    /* A refused destination is the jobs' fault only while the device still works. */
    if (rc == BSGPU_E_DEST && (rs != 0 || !bsgpu_context_ok(ctx)))
        rc = BSGPU_E_CUDA;
    bsgpu_wipe_call_keys(ctx, c, nkeys);
    for (unsigned i = 0; i < ctx->nstreams; i++) {
        if (rc == 0 && rs == 0)
            bsgpu_scatter(ctx, i);
        ctx->staged[i] = 0;
    }
    ctx->stats.calls++;
    if (rc == 0 && rs == 0 && chk != NULL)
        BSGPU_CHECK(ctx,
                    cudaMemcpy(sums, ctx->dsums, njobs * sizeof *sums, cudaMemcpyDeviceToHost));
    return rc != 0 ? rc : rs;
}

extern "C" void bsgpu_get_stats(const bsgpu_ctx *ctx, bsgpu_stats *st)
{
    *st = ctx->stats;
}

extern "C" void bsgpu_set_stage_below(bsgpu_ctx *ctx, uint64_t bytes)
{
    ctx->stage_below = bytes;
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
    BSGPU_CHECK(ctx, bsgpu_launch(ctx, c, st, dseg, 1, dout, ngroups)); /* warm-up */
    for (unsigned i = 0; i < reps; i++) {
        BSGPU_CHECK(ctx, cudaEventRecord(e0, st));
        BSGPU_CHECK(ctx, bsgpu_launch(ctx, c, st, dseg, 1, dout, ngroups));
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
    int rc = bsgpu_upload_keys(ctx, c, key, 1);
    if (rc != 0)
        return rc;
    BSGPU_CHECK(ctx, cudaStreamSynchronize(ctx->stream[0]));
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

template <typename K> static void bsgpu_attr_of(K kernel, unsigned tb, bsgpu_kernel_attr *a)
{
    cudaFuncAttributes fa;
    if (!bsgpu_kernel_query(kernel, tb, &fa, &a->warps_per_sm))
        return;
    a->regs = fa.numRegs;
    a->local_bytes = (int)fa.localSizeBytes;
    a->shared_bytes = (int)fa.sharedSizeBytes;
    a->threads = (int)tb;
}

extern "C" void bsgpu_get_kernel_attr(bsgpu_ctx *ctx, bsgpu_cipher c, bsgpu_kernel_attr *a)
{
    memset(a, 0, sizeof *a);
    if (cudaSetDevice(ctx->device) != cudaSuccess)
        return;
    switch (c) {
    case BSGPU_PRESENT80:
    case BSGPU_PRESENT128:
        bsgpu_attr_of(bsgpu_ctr_kernel<BSGPU_PRESENT80>, BSGPU_THREADS_OF(BSGPU_PRESENT80), a);
        break;
    case BSGPU_GIFT64:
        bsgpu_attr_of(bsgpu_ctr_kernel<BSGPU_GIFT64>, BSGPU_THREADS_OF(BSGPU_GIFT64), a);
        break;
    case BSGPU_GIFT128:
        bsgpu_attr_of(bsgpu_ctr_kernel<BSGPU_GIFT128>, BSGPU_THREADS_OF(BSGPU_GIFT128), a);
        break;
    default:
        bsgpu_attr_of(bsgpu_ctr_kernel<BSGPU_RIJNDAEL256>, BSGPU_THREADS_OF(BSGPU_RIJNDAEL256), a);
        break;
    }
}

extern "C" void *bsgpu_alloc_pinned(bsgpu_ctx *ctx, size_t len)
{
    void *p = NULL;
    if (cudaSetDevice(ctx->device) != cudaSuccess || cudaMallocHost(&p, len) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void bsgpu_free_pinned(void *p)
{
    if (p != NULL)
        cudaFreeHost(p);
}
