/*
 * bsgpu_host.h: host-side helpers of the engine (bsgpu.cu), the tests and the tools: device
 * counters, the launch planner, samples of a batch, and a host run of a whole launch.
 */
#ifndef BSGPU_HOST_H
#define BSGPU_HOST_H

#include "bitslice.h"
#include "bsgpu_digest.h"
#include "bsgpu_lanes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets a segment's counter from a big-endian counter block of the cipher's block length. */
void bsgpu_segment_set_counter(bsgpu_segment *seg, bsgpu_cipher c, const uint8_t *counter);

/* After a launch, bytes [src_offset, src_offset + len) of its output go to dst. */
typedef struct bsgpu_copy {
    uint64_t src_offset;
    uint8_t *dst;
    uint64_t len;
    const void *region; /* its job's (bsgpu_job.region) */
} bsgpu_copy;

/* Where the planner stands in a list of jobs. */
typedef struct bsgpu_cursor {
    size_t job;
    uint64_t block;
} bsgpu_cursor;

/*
 * Cuts the next launch out of jobs, from *cur on: at most max_seg segments and an output of at
 * most max_bytes (the device buffer; at least one warp of groups). Fills seg (planned) and one
 * copy per segment; returns the segment count (0 when the jobs are done) and the launch's group
 * count in *ngroups. A job larger than a launch continues in the next one. The outputs are
 * packed in the device buffer (each segment's out_offset a multiple of 16, the kernels' store
 * width), so that a launch's output is one dense range however small its segments.
 */
uint32_t bsgpu_plan_launch(bsgpu_cipher c, const bsgpu_job *jobs, size_t njobs, bsgpu_cursor *cur,
                           uint64_t max_bytes, uint32_t max_seg, bsgpu_segment *seg,
                           bsgpu_copy *copy, uint64_t *ngroups);

/*
 * A sample of a batch, for a cheap second opinion on its output (the CUDA backend's self-check):
 * up to nsample sub-jobs of at most nblocks blocks, spread over the jobs with blocks (the first
 * and last blocks of a job among them; seed picks the others), each writing into its own part of
 * scratch (nsample * nblocks * block_len bytes) instead of its job's dst. Run them through another
 * engine (bs_ctr_keystream, or bsgpu_keystream again: the sample lands in other warps, launches
 * and copies) and compare with bsgpu_sample_check. Returns the number of sub-jobs.
 */
typedef struct bsgpu_sample_where {
    size_t job;
    uint64_t block;
} bsgpu_sample_where;
size_t bsgpu_sample_jobs(bsgpu_cipher c, const bsgpu_job *jobs, size_t njobs, size_t nsample,
                         uint64_t nblocks, uint64_t seed, uint8_t *scratch, bsgpu_job *sample,
                         bsgpu_sample_where *where);

/* The first sub-job whose scratch output differs from its job's dst, or -1 when all agree. */
long bsgpu_sample_check(bsgpu_cipher c, const bsgpu_job *jobs, const bsgpu_job *sample,
                        const bsgpu_sample_where *where, size_t n);

/*
 * Merges copies that continue each other on both sides (device range and dst) within one region,
 * as a launch of one job split across launches, or of jobs written back to back into one buffer;
 * returns the new count. Copies of different regions stay apart however their dst lie.
 */
uint32_t bsgpu_merge_copies(bsgpu_copy *copy, uint32_t n);

/*
 * The key pre-kernel's work on the host: keys[0 .. nkeys) expanded (bsgpu_key_expand, lane by
 * lane as the pre-kernel's warp splits it; RIJNDAEL-256 copied), bsgpu_xkey_stride(c) words
 * apart.
 */
void bsgpu_expand_keys_host(bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys, uint32_t *xkeys);

/*
 * Runs a whole launch on the host, warp by warp and lane by lane, with the device's code (key
 * pre-kernel, counters, rounds, transposes, the shared-memory staging of the output): what the
 * kernels compute, for the tests and as a reference. out is indexed by the segments' out_offset.
 * Returns -1 if a warp would serve two segments (a planning error) or out of memory, 0 otherwise.
 */
int bsgpu_launch_host(bsgpu_cipher c, const bsgpu_segment *seg, uint32_t nseg,
                      const bsgpu_key *keys, uint64_t ngroups, uint8_t *out);

/*
 * bsgpu_launch_host with device-resident keys: a segment whose key_index has BSGPU_KEY_RESIDENT
 * uses its slot of table (BSGPU_XKEY_STRIDE_MAX words a slot, as bsgpu_keys_update_host leaves
 * it); -1 when such a segment comes without a table.
 */
int bsgpu_launch_host_table(bsgpu_cipher c, const bsgpu_segment *seg, uint32_t nseg,
                            const bsgpu_key *keys, const uint32_t *table, uint64_t ngroups,
                            uint8_t *out);

/* bsgpu_keys_update's pre-kernel on the host: each op applied to its slot of table, lane by lane
 * as the op's warp splits it (bsgpu_keyop_apply). */
void bsgpu_keys_update_host(uint32_t *table, const bsgpu_keyop *ops, const bsgpu_key *keys,
                            uint32_t n);

/*
 * The self-check's digest of one launch (bsgpu_digest.h): one segment per copy of the launch
 * (its copies before merging, which follow the jobs in order; *job is the cursor over jobs), with
 * its job's seed and word index (seeds, word0s: per job). Returns the count, or -1 when a copy
 * lies outside every job (a planning error); *nchunks gets the chunks of all, the kernel's warps.
 */
long bsgpu_plan_digest(bsgpu_cipher c, const bsgpu_copy *cp, uint32_t ncp, const bsgpu_job *jobs,
                       size_t njobs, const uint64_t *seeds, const uint64_t *word0s, size_t *job,
                       bsgpu_digest_seg *ds, uint32_t *nchunks);

/* The digest kernel on the host, warp by warp and lane by lane: sums[ds[i].job] gets the terms of
 * every word of base the segments name. */
void bsgpu_digest_host(const bsgpu_digest_seg *ds, uint32_t n, uint32_t nchunks,
                       const uint8_t *base, uint64_t *sums);

#ifdef __cplusplus
}
#endif

#endif
