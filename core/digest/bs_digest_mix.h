/*
 * bs_digest_mix.h: the per-word step of the window digest (bs_digest.h), in the common subset
 * of C and CUDA so that the daemon, the clients and the GPU's self-check compute the same sums.
 */
#ifndef BS_DIGEST_MIX_H
#define BS_DIGEST_MIX_H

#include <stdint.h>

#ifdef __CUDACC__
#define BS_DIGEST_FN __host__ __device__ static inline
#else
#define BS_DIGEST_FN static inline
#endif

/* The 64-bit golden ratio: word j of a window is mixed with seed + j * G. */
#define BS_DIGEST_G 0x9e3779b97f4a7c15ull

/* MurmurHash3's 64-bit finalizer: a bijection with full avalanche. */
BS_DIGEST_FN uint64_t bs_digest_fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Word j (counted from the request's first block) of value w: its term of the digest sum. */
BS_DIGEST_FN uint64_t bs_digest_word(uint64_t seed, uint64_t j, uint64_t w)
{
    return bs_digest_fmix64(w ^ (seed + j * BS_DIGEST_G));
}

#endif
