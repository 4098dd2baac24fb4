/*
 * bsgpu_host.h: host-side helpers shared by the CUDA backend, the tests and the tools: which
 * device cipher serves a core descriptor, and the compact device key recovered from a core's
 * key schedule (the daemon keeps schedules, not keys).
 */
#ifndef BSGPU_HOST_H
#define BSGPU_HOST_H

#include "bitslice.h"
#include "bsgpu_lanes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device cipher for a descriptor, or -1 when the GPU has none for it. */
int bsgpu_cipher_of(const bs_block_cipher *cipher);

/*
 * The compact key (bsgpu_lanes.h) from a schedule made by cipher->set_key. Only the "bs64"
 * schedules' layouts are known here: returns -1 for any other implementation.
 */
int bsgpu_key_from_schedule(bsgpu_key *k, const bs_block_cipher *cipher, const bs_key_schedule *ks);

/* Sets a segment's counter from a big-endian counter block of the cipher's block length. */
void bsgpu_segment_set_counter(bsgpu_segment *seg, bsgpu_cipher c, const uint8_t *counter);

/* A job as the daemon sees it: nblocks of keystream from counter under keys[key_index]. */
typedef struct bsgpu_job {
    uint8_t counter[32]; /* big-endian, block_len bytes */
    uint64_t nblocks;
    uint32_t key_index;
    uint8_t *dst; /* host memory, nblocks * block_len bytes */
} bsgpu_job;

/* After a launch, bytes [src_offset, src_offset + len) of its output go to dst. */
typedef struct bsgpu_copy {
    uint64_t src_offset;
    uint8_t *dst;
    uint64_t len;
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
 * count in *ngroups. A job larger than a launch continues in the next one.
 */
uint32_t bsgpu_plan_launch(bsgpu_cipher c, const bsgpu_job *jobs, size_t njobs, bsgpu_cursor *cur,
                           uint64_t max_bytes, uint32_t max_seg, bsgpu_segment *seg,
                           bsgpu_copy *copy, uint64_t *ngroups);

/*
 * Runs a whole launch on the host, group by group, with the device's per-thread code: what the
 * kernels compute, for the tests and as a reference. out is indexed by the segments' out_offset.
 * Returns -1 if a warp would serve two segments (a planning error), 0 otherwise.
 */
int bsgpu_launch_host(bsgpu_cipher c, const bsgpu_segment *seg, uint32_t nseg,
                      const bsgpu_key *keys, uint64_t ngroups, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
