/*
 * bsks.h: the key-search engine's host side: preparing a search from hex inputs, the CPU search
 * (64 candidates per bitsliced pass, one pass per chunk, on `threads` threads) and, when built
 * with CUDA, the device search. Every lane hit is checked against all pairs with the core.
 */
#ifndef BSKS_H
#define BSKS_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "bsgpu_keysearch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The block ciphers a key search runs on, for messages. */
#define BSKS_CIPHER_NAMES "PRESENT-80, PRESENT-128, GIFT-64, GIFT-128"

typedef struct bsks_search {
    bsks_problem pb;
    const bs_block_cipher *core;
    unsigned npairs;
    uint8_t key[16];  /* the known bits, unknown ones cleared */
    uint8_t mask[16]; /* the unknown bits */
    uint8_t pt[BSKS_MAX_PAIRS][16], ct[BSKS_MAX_PAIRS][16];
} bsks_search;

/*
 * Sets up a search for cipher (PRESENT-80, PRESENT-128, GIFT-64, GIFT-128): key and mask of
 * core->key_len bytes (mask bits set = unknown, at most BSKS_MAX_UNKNOWN), npairs (1..4)
 * plaintext/ciphertext blocks. 0, or -1 with a message in err.
 */
int bsks_prepare(bsks_search *s, const char *cipher, const uint8_t *key, const uint8_t *mask,
                 const uint8_t (*pt)[16], const uint8_t (*ct)[16], unsigned npairs, char *err,
                 size_t errlen);

/* Chunks of 2^lanes_log2 candidates that cover the search. */
uint64_t bsks_chunks(const bsks_search *s, unsigned lanes_log2);

/* The key of candidate number v. */
void bsks_candidate_key(const bsks_search *s, uint64_t v, uint8_t *key);

/* 1 if candidate v encrypts every pair right (and writes its key), else 0. */
int bsks_check_candidate(const bsks_search *s, uint64_t v, uint8_t *key);

/*
 * CPU search over chunks [first, last) of 64 candidates, on threads threads (0: one per CPU).
 * Returns 1 with the key when found, 0 when not, -1 out of memory; *tried receives the
 * candidates covered.
 */
int bsks_search_cpu(const bsks_search *s, unsigned threads, uint64_t first, uint64_t last,
                    uint8_t *key, uint64_t *tried);

/*
 * Called about every 200 ms during a search with the candidates covered so far (for a progress
 * display); NULL for none.
 */
typedef void (*bsks_progress_fn)(uint64_t tried, void *arg);

/* bsks_search_cpu with a progress callback (the calling thread then only watches). */
int bsks_search_cpu_progress(const bsks_search *s, unsigned threads, uint64_t first, uint64_t last,
                             uint8_t *key, uint64_t *tried, bsks_progress_fn fn, void *arg);

/*
 * Slice k of n (0 <= k < n) of the search's chunks of 2^lanes_log2 candidates: chunks
 * [*first, *last). The n slices are disjoint, cover every chunk once, and differ in size by one
 * chunk at most, for any n (a slice may be empty when n exceeds the chunks).
 */
void bsks_part(const bsks_search *s, unsigned lanes_log2, uint64_t k, uint64_t n, uint64_t *first,
               uint64_t *last);

/*
 * CUDA search on device `device` over all candidates (keysearch/bsks_cuda.cu; only in CUDA
 * builds).
 * 1 found, 0 not found, negative on a CUDA error (message in err).
 */
int bsks_search_cuda(const bsks_search *s, int device, uint8_t *key, uint64_t *tried, char *err,
                     size_t errlen);

/* The same over chunks [first, last) of 32 candidates, with an optional progress callback. */
int bsks_search_cuda_range(const bsks_search *s, int device, uint64_t first, uint64_t last,
                           uint8_t *key, uint64_t *tried, bsks_progress_fn fn, void *arg, char *err,
                           size_t errlen);

/* Which build of the CUDA kernels bsks_search_cuda uses: 0 (default) or 1, the register-capped
 * launch bounds (PRESENT-80 __launch_bounds__(128, 3), the others (64, 6)); for the bench. */
void bsks_cuda_set_variant(unsigned v);

/* A kernel's registers, local (spill) bytes and resident warps per SM on the current device
 * (zeros when CUDA cannot tell). */
typedef struct bsks_kernel_attr {
    int regs, local_bytes, warps_per_sm;
} bsks_kernel_attr;
void bsks_cuda_kernel_attr(int cipher, unsigned variant, bsks_kernel_attr *a);

#ifdef __cplusplus
}
#endif

#endif
