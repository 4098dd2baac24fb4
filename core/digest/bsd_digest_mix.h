/*
 * bsd_digest_mix.h: the per-word step of the window digest (bsd_digest.h), in the common subset
 * of C and CUDA so that the daemon, the clients and the GPU's self-check compute the same sums.
 */
#ifndef BSD_DIGEST_MIX_H
#define BSD_DIGEST_MIX_H

#include <stdint.h>

#ifdef __CUDACC__
#define BSD_DIGEST_FN __host__ __device__ static inline
#else
#define BSD_DIGEST_FN static inline
#endif

/* The 64-bit golden ratio: word j of a window is mixed with seed + j * G. */
#define BSD_DIGEST_G 0x9e3779b97f4a7c15ull

/* MurmurHash3's 64-bit finalizer: a bijection with full avalanche. */
BSD_DIGEST_FN uint64_t bsd_digest_fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Word j (counted from the request's first block) of value w: its term of the digest sum. */
BSD_DIGEST_FN uint64_t bsd_digest_word(uint64_t seed, uint64_t j, uint64_t w)
{
    return bsd_digest_fmix64(w ^ (seed + j * BSD_DIGEST_G));
}

#endif
