/*
 * bsgpu.h: the CUDA engine's C API, used by the daemon's CUDA backend, the benchmarks and the
 * device tests: its functions over the types of bsgpu_types.h, nothing of the lane code
 * (bsgpu_lanes.h) or the launch planner (bsgpu_host.h). Every function returns 0 or a negative
 * BSGPU_E_* code; after a failure, bsgpu_last_error() says what CUDA said, and the caller redoes
 * the work on the CPU (bs_ctr_keystream): this engine never hands back output it did not check the
 * status of. One context serves one device and one caller at a time.
 */
#ifndef BSGPU_H
#define BSGPU_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "bsgpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device cipher for a descriptor, or -1 when the GPU has none for it (bsgpu_host.c). */
int bsgpu_cipher_of(const bs_block_cipher *cipher);

/*
 * The compact key from a schedule made by cipher->set_key, as the core exports it
 * (bs_block_cipher.export_round_keys). Returns -1 for a cipher the GPU lacks or a core without
 * that hook (k is then zero). bsgpu_host.c: no CUDA needed.
 */
int bsgpu_key_from_schedule(bsgpu_key *k, const bs_block_cipher *cipher, const bs_key_schedule *ks);

#define BSGPU_E_NODEV -1 /* no CUDA device, or no driver */
#define BSGPU_E_CUDA -2  /* a CUDA call failed: see bsgpu_last_error */
#define BSGPU_E_ARG -3   /* bad argument (unknown cipher, too many keys, ...) */
#define BSGPU_E_FULL -4  /* every device key slot is taken (bsgpu_keytab.h) */
/*
 * CUDA refused a copy into a job's host memory (cudaErrorInvalidValue: a destination it cannot
 * write, such as a range that is not one registered allocation). The call's jobs are not done and
 * nothing of it is still running; the device passed a health check after the refusal and stays
 * usable: the error belongs to the jobs' memory. A sticky error found by that check is
 * BSGPU_E_CUDA instead.
 */
#define BSGPU_E_DEST -5

typedef struct bsgpu_ctx bsgpu_ctx;

/* Devices usable by this process (0 when none or no driver); never fails otherwise. */
int bsgpu_device_count(void);

/*
 * Opens device `device` with `nstreams` streams (2..8; kernels on one overlap copies of the
 * others) and a device output buffer of `chunk_bytes` per stream (rounded down to whole warps).
 */
int bsgpu_open(bsgpu_ctx **ctx, int device, unsigned nstreams, size_t chunk_bytes);
void bsgpu_close(bsgpu_ctx *ctx);

/* One line "device=N name=... sm=90 mem_mb=..." for STATUS. */
void bsgpu_describe(const bsgpu_ctx *ctx, char *out, size_t len);
/* The last CUDA error of this context, or of the last failed bsgpu_open (ctx NULL). */
const char *bsgpu_last_error(const bsgpu_ctx *ctx);

/* Page-locks host memory that keystream will be written into (e.g. a shared-memory window). */
int bsgpu_register_host(bsgpu_ctx *ctx, void *p, size_t len);
int bsgpu_unregister_host(bsgpu_ctx *ctx, void *p);

/*
 * Keys that stay on the device: a table of `nslots` key slots in device memory (each
 * BSGPU_XKEY_STRIDE_MAX words, the largest expanded key), zeroed when made. bsgpu_keys_update
 * applies changes to it (bsgpu_keyop: a slot loaded with a key, expanded on the device, or
 * zeroed), all of them in one upload and one pre-kernel, and returns when they are done; the
 * device and host staging of the compact keys are zeroed before it returns. Jobs then name a
 * slot as key_index | BSGPU_KEY_RESIDENT, so a call uploads no key of theirs. bsgpu_keys_release
 * zeroes the table and frees it (bsgpu_close does too); it returns BSGPU_E_CUDA (the error in
 * bsgpu_last_error) when the zeroing failed, e.g. after a sticky error: the keys then stay in
 * device memory until the context is torn down. The host's bookkeeping of which session
 * holds which slot, and what each device still has to apply: bsgpu_keytab.h.
 */
int bsgpu_keys_reserve(bsgpu_ctx *ctx, uint32_t nslots);
int bsgpu_keys_update(bsgpu_ctx *ctx, const bsgpu_keyop *ops, const bsgpu_key *keys, uint32_t n);
int bsgpu_keys_release(bsgpu_ctx *ctx);

/*
 * Keystream for every job (one cipher), written to each job's dst: the bytes
 * bs_ctr_keystream() would write. keys[job.key_index] is the job's key, or, with
 * BSGPU_KEY_RESIDENT, the table's slot (keys may then be NULL, nkeys 0). Blocks until done.
 */
int bsgpu_keystream(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                    const bsgpu_job *jobs, size_t njobs);

/*
 * bsgpu_keystream with a self-check: every launch is computed twice on the device; the first
 * result is copied to the jobs' dst exactly as bsgpu_keystream does, the second is reduced on the
 * device to one digest sum per job, sums[i] = sum over the job's 64-bit words w_j of
 * bs_digest_word(seeds[i], word0s[i] + j, w_j) (core/digest/bs_digest_mix.h), and only the
 * sums cross the bus. The caller digests dst the same way: equal sums mean that both
 * computations and the copy agree. Block lengths must be multiples of 8 bytes.
 */
int bsgpu_keystream_checked(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                            const bsgpu_job *jobs, size_t njobs, const uint64_t *seeds,
                            const uint64_t *word0s, uint64_t *sums);

/* What a context has done, for the bench and STATUS: calls, kernel launches, device-to-host copy
 * calls, launches whose output went back as one staged copy, and as one batch call. */
typedef struct bsgpu_stats {
    uint64_t calls, launches, copies, staged_launches, batched_launches;
} bsgpu_stats;
void bsgpu_get_stats(const bsgpu_ctx *ctx, bsgpu_stats *st);

/* The copy policy (bsgpu.cu, bsgpu_copy_out): a launch of more than a few copies averaging fewer
 * than `bytes` goes back as one staged copy scattered on the host; 0 never stages (the bench
 * compares both on the device). Default BSGPU_STAGE_BELOW_DEFAULT. */
#define BSGPU_STAGE_BELOW_DEFAULT ((uint64_t)8 << 10)
void bsgpu_set_stage_below(bsgpu_ctx *ctx, uint64_t bytes);

/* ---- measurements (bench and device-check) ---- */

/*
 * Device-only keystream: one launch of `bytes` of keystream (one segment, one key) into device
 * memory, timed with CUDA events, `reps` times; ms[i] receives each time.
 */
int bsgpu_time_kernel(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *key, uint64_t bytes,
                      unsigned reps, float *ms);
/* Pinned copies of `bytes`, host to device and device to host, timed `reps` times each. */
int bsgpu_time_copies(bsgpu_ctx *ctx, size_t bytes, unsigned reps, float *h2d_ms, float *d2h_ms);

/* A CTR kernel's registers, local (spill) and static shared bytes, threads per block and
 * resident warps per SM on the context's device (zeros when CUDA cannot tell). */
typedef struct bsgpu_kernel_attr {
    int regs, local_bytes, shared_bytes, threads, warps_per_sm;
} bsgpu_kernel_attr;
void bsgpu_get_kernel_attr(bsgpu_ctx *ctx, bsgpu_cipher c, bsgpu_kernel_attr *a);

/* Page-locked host memory from the driver (cudaMallocHost): where registering memory is refused. */
void *bsgpu_alloc_pinned(bsgpu_ctx *ctx, size_t len);
void bsgpu_free_pinned(void *p);

#ifdef __cplusplus
}
#endif

#endif
