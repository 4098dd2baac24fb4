/*
 * bsgpu_digest.h: what one warp of the self-check's digest kernel computes (bsgpu.cu,
 * bsgpu_keystream_checked), as BS_FN functions that the host compiles too (bsgpu_digest_host,
 * tests/gpu). A launch's second output is digested in one kernel whatever its number of jobs: its
 * copies are listed as digest segments (bsgpu_plan_digest), each cut into chunks of
 * BSGPU_DIGEST_CHUNK words; warp w finds the segment of chunk w by binary search, its lanes sum the
 * digest terms of the chunk's words (lane-strided: coalesced loads), and lane 0 adds the warp's
 * sum to its job's. C/C++ common subset.
 */
#ifndef BSGPU_DIGEST_H
#define BSGPU_DIGEST_H

#include <string.h>

#include "bs_common.h"
#include "bs_digest_mix.h"

/* Words a warp digests (64 a lane). */
#define BSGPU_DIGEST_CHUNK 2048u

/*
 * nwords words of a launch's output from byte src_offset, of job `job`: the terms are
 * bs_digest_word(seed, word0 + j, word j). chunk_first: the launch-wide index of its first chunk
 * (segments in order, each ceil(nwords / BSGPU_DIGEST_CHUNK) chunks).
 */
typedef struct bsgpu_digest_seg {
    uint64_t src_offset, nwords, seed, word0;
    uint32_t job, chunk_first;
} bsgpu_digest_seg;

/* The segment of chunk `chunk`: the last whose chunk_first is at most it. */
BS_FN uint32_t bsgpu_digest_find(const bsgpu_digest_seg *ds, uint32_t n, uint32_t chunk)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (ds[mid].chunk_first <= chunk)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* One lane's share of chunk c of segment d: words c * CHUNK + lane, + step, ... */
BS_FN uint64_t bsgpu_digest_lane(const bsgpu_digest_seg *d, uint32_t c, const uint8_t *base,
                                 unsigned lane, unsigned step)
{
    const uint64_t lo = (uint64_t)c * BSGPU_DIGEST_CHUNK;
    const uint64_t hi = lo + BSGPU_DIGEST_CHUNK < d->nwords ? lo + BSGPU_DIGEST_CHUNK : d->nwords;
    uint64_t acc = 0;
    for (uint64_t j = lo + lane; j < hi; j += step) {
        /* Little-endian, as on the wire. On the device one 8-byte load (segments start on
         * 16-byte boundaries of the launch's output); on the host, alignment-free. */
#ifdef __CUDA_ARCH__
        const uint64_t w = ((const uint64_t *)(base + d->src_offset))[j];
#else
        uint64_t w;
        memcpy(&w, base + d->src_offset + 8 * j, 8);
#endif
        acc += bs_digest_word(d->seed, d->word0 + j, w);
    }
    return acc;
}

#endif
