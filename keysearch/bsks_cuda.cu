/*
 * bsks_cuda.cu: the key search on a CUDA device. One thread per chunk of 32 candidates
 * (bsgpu_keysearch.h, the code tests/gpu runs on the host); the problem sits in constant memory,
 * so every known key bit and plaintext bit is a uniform constant load. A thread with a lane that
 * matches the first pair records (chunk, lanes); the host checks those against every pair.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include "bsgpu_kernel_attr.h"
#include "bsks.h"

#define BSKS_THREADS 256
#define BSKS_GIFT_THREADS 64
#define BSKS_MAX_HITS 256
/* Chunks per launch: short launches so that a found key stops the search soon. */
#define BSKS_SLICE ((uint64_t)1 << 22)

__constant__ bsks_problem bsks_cpb;

/* Candidates of chunk q that match the first pair; kw: this thread's key words. */
__device__ __forceinline__ void bsks_report(uint32_t hit, uint64_t q, unsigned long long *hits,
                                            unsigned *nhits)
{
    if (hit != 0) {
        const unsigned i = atomicAdd(nhits, 1u);
        if (i < BSKS_MAX_HITS) {
            hits[2 * i] = q;
            hits[2 * i + 1] = hit;
        }
    }
}

/*
 * PRESENT-80: the key register in registers; the unrolled schedule renames it for free.
 * Variant 0: 256 threads, 255 registers (8 warps an SM); variant 1: __launch_bounds__(128, 3),
 * 12 warps an SM at the price of spills (the bench times both).
 */
template <int V>
__global__ void __launch_bounds__(V == 0 ? BSKS_THREADS : 128, V == 0 ? 1 : 3)
    bsks_present_kernel(bsks_kwtab_u32 tab, uint64_t first, uint64_t end, unsigned long long *hits,
                        unsigned *nhits)
{
    const unsigned tb = V == 0 ? BSKS_THREADS : 128;
    const uint32_t t = blockIdx.x * tb + threadIdx.x;
    const uint64_t q = first + t;
    if (q >= end)
        return;
    uint32_t kw[128], y[64];
    bsks_key_words_tab_u32(kw, &tab, t);
    bsks_present_n_u32(y, kw, &bsks_cpb, 80);
    bsks_report(bsks_compare_u32(y, &bsks_cpb, 64), q, hits, nhits);
}

/*
 * PRESENT-128 and GIFT: 128 key words and a 64- or 128-word state do not fit 255 registers
 * together, so the key words stay in shared memory at [bit][thread] (a warp reads one bit of 32
 * threads: 32 banks). GIFT's schedule is a fixed permutation, read by index; PRESENT-128's is a
 * ring.
 */
template <int C, int V>
__global__ void __launch_bounds__(BSKS_GIFT_THREADS, C == BSGPU_GIFT128 && V == 0 ? 1 : 6)
    bsks_shared_kernel(bsks_kwtab_u32 tab, uint64_t first, uint64_t end, unsigned long long *hits,
                       unsigned *nhits)
{
    __shared__ uint32_t skw[128 * BSKS_GIFT_THREADS];
    const uint32_t t = blockIdx.x * BSKS_GIFT_THREADS + threadIdx.x;
    const uint64_t q = first + t;
    if (q >= end)
        return;
    uint32_t kw[128], y[128];
    bsks_key_words_tab_u32(kw, &tab, t);
    uint32_t *mine = skw + threadIdx.x;
#pragma unroll
    for (unsigned i = 0; i < 128; i++)
        mine[BSKS_GIFT_THREADS * i] = kw[i];
    if (C == BSGPU_PRESENT128) {
        bsks_present128_ring_u32(y, mine, BSKS_GIFT_THREADS, &bsks_cpb);
        bsks_report(bsks_compare_u32(y, &bsks_cpb, 64), q, hits, nhits);
    } else if (C == BSGPU_GIFT64) {
        bsks_gift64_u32(y, mine, BSKS_GIFT_THREADS, &bsks_cpb);
        bsks_report(bsks_compare_u32(y, &bsks_cpb, 64), q, hits, nhits);
    } else {
        bsks_gift128_u32(y, mine, BSKS_GIFT_THREADS, &bsks_cpb);
        bsks_report(bsks_compare_u32(y, &bsks_cpb, 128), q, hits, nhits);
    }
}

static int bsks_fail(char *err, size_t errlen, cudaError_t e, const char *what)
{
    snprintf(err, errlen, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

#define BSKS_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            rc = bsks_fail(err, errlen, e_, #call);                                                \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static unsigned bsks_variant;

extern "C" void bsks_cuda_set_variant(unsigned v)
{
    bsks_variant = v != 0;
}

template <int V>
static cudaError_t bsks_launch_v(int c, const bsks_kwtab_u32 &tab, uint64_t first, uint64_t end,
                                 unsigned long long *hits, unsigned *nhits)
{
    const unsigned tb = c == BSGPU_PRESENT80 ? (V == 0 ? BSKS_THREADS : 128) : BSKS_GIFT_THREADS;
    const unsigned blocks = (unsigned)((end - first + tb - 1) / tb);
    switch (c) {
    case BSGPU_PRESENT80:
        bsks_present_kernel<V><<<blocks, tb>>>(tab, first, end, hits, nhits);
        break;
    case BSGPU_PRESENT128:
        bsks_shared_kernel<BSGPU_PRESENT128, V><<<blocks, tb>>>(tab, first, end, hits, nhits);
        break;
    case BSGPU_GIFT64:
        bsks_shared_kernel<BSGPU_GIFT64, V><<<blocks, tb>>>(tab, first, end, hits, nhits);
        break;
    default:
        bsks_shared_kernel<BSGPU_GIFT128, V><<<blocks, tb>>>(tab, first, end, hits, nhits);
        break;
    }
    return cudaGetLastError();
}

static cudaError_t bsks_launch(const bsks_problem *pb, uint64_t first, uint64_t end,
                               unsigned long long *hits, unsigned *nhits)
{
    const int c = pb->cipher;
    /* first is a multiple of BSKS_SLICE = 2^BSKS_TBITS: the launch's chunks share the bits above.
     */
    bsks_kwtab_u32 tab;
    bsks_kwtab_make_u32(&tab, pb, first);
    return bsks_variant == 0 ? bsks_launch_v<0>(c, tab, first, end, hits, nhits)
                             : bsks_launch_v<1>(c, tab, first, end, hits, nhits);
}

template <typename K> static void bsks_attr_of(K kernel, unsigned tb, bsks_kernel_attr *a)
{
    cudaFuncAttributes fa;
    memset(a, 0, sizeof *a);
    if (!bsgpu_kernel_query(kernel, tb, &fa, &a->warps_per_sm))
        return;
    a->regs = fa.numRegs;
    a->local_bytes = (int)fa.localSizeBytes;
}

extern "C" void bsks_cuda_kernel_attr(int c, unsigned v, bsks_kernel_attr *a)
{
    const unsigned tbp = v == 0 ? BSKS_THREADS : 128;
    switch (c * 2 + (v != 0)) {
    case BSGPU_PRESENT80 * 2:
        bsks_attr_of(bsks_present_kernel<0>, tbp, a);
        break;
    case BSGPU_PRESENT80 * 2 + 1:
        bsks_attr_of(bsks_present_kernel<1>, tbp, a);
        break;
    case BSGPU_PRESENT128 * 2:
        bsks_attr_of(bsks_shared_kernel<BSGPU_PRESENT128, 0>, BSKS_GIFT_THREADS, a);
        break;
    case BSGPU_PRESENT128 * 2 + 1:
        bsks_attr_of(bsks_shared_kernel<BSGPU_PRESENT128, 1>, BSKS_GIFT_THREADS, a);
        break;
    case BSGPU_GIFT64 * 2:
        bsks_attr_of(bsks_shared_kernel<BSGPU_GIFT64, 0>, BSKS_GIFT_THREADS, a);
        break;
    case BSGPU_GIFT64 * 2 + 1:
        bsks_attr_of(bsks_shared_kernel<BSGPU_GIFT64, 1>, BSKS_GIFT_THREADS, a);
        break;
    case BSGPU_GIFT128 * 2:
        bsks_attr_of(bsks_shared_kernel<BSGPU_GIFT128, 0>, BSKS_GIFT_THREADS, a);
        break;
    default:
        bsks_attr_of(bsks_shared_kernel<BSGPU_GIFT128, 1>, BSKS_GIFT_THREADS, a);
        break;
    }
}

extern "C" int bsks_search_cuda(const bsks_search *s, int device, uint8_t *key, uint64_t *tried,
                                char *err, size_t errlen)
{
    return bsks_search_cuda_range(s, device, 0, bsks_chunks(s, 5), key, tried, NULL, NULL, err,
                                  errlen);
}

extern "C" int bsks_search_cuda_range(const bsks_search *s, int device, uint64_t begin,
                                      uint64_t total, uint8_t *key, uint64_t *tried,
                                      bsks_progress_fn fn, void *arg, char *err, size_t errlen)
{
    int rc = 0;
    unsigned long long *dhits = NULL, hhits[2 * BSKS_MAX_HITS];
    unsigned *dn = NULL, hn = 0;
    *tried = 0;
    BSKS_CHECK(cudaSetDevice(device));
    BSKS_CHECK(cudaMemcpyToSymbol(bsks_cpb, &s->pb, sizeof s->pb));

    BSKS_CHECK(cudaMalloc((void **)&dhits, sizeof hhits));
    BSKS_CHECK(cudaMalloc((void **)&dn, sizeof hn));
    for (uint64_t first = begin; first < total && rc == 0;) {
        const uint64_t end = total - first < BSKS_SLICE ? total : first + BSKS_SLICE;
        BSKS_CHECK(cudaMemset(dn, 0, sizeof hn));
        BSKS_CHECK(bsks_launch(&s->pb, first, end, dhits, dn));
        BSKS_CHECK(cudaMemcpy(&hn, dn, sizeof hn, cudaMemcpyDeviceToHost));
        *tried += (end - first) * 32;
        if (hn > 0) {
            const unsigned n = hn < BSKS_MAX_HITS ? hn : BSKS_MAX_HITS;
            BSKS_CHECK(cudaMemcpy(hhits, dhits, 2 * n * sizeof hhits[0], cudaMemcpyDeviceToHost));
            for (unsigned i = 0; i < n && rc == 0; i++)
                for (unsigned l = 0; l < 32; l++)
                    if (((hhits[2 * i + 1] >> l) & 1) &&
                        bsks_check_candidate(s, hhits[2 * i] * 32 + l, key)) {
                        rc = 1;
                        break;
                    }
            if (hn > BSKS_MAX_HITS && rc == 0) {
                /* More first-pair matches than recorded: redo this slice on the CPU. */
                uint64_t t;
                rc = bsks_search_cpu(s, 0, first / 2, (end + 1) / 2, key, &t);
            }
        }
        first = end;
        if (fn != NULL)
            fn(*tried, arg);
    }
out:
    cudaFree(dhits);
    cudaFree(dn);
    return rc;
}
