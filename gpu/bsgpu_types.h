/*
 * bsgpu_types.h: the types the GPU engine's C API (bsgpu.h) and its lane code (bsgpu_lanes.h)
 * share: the device ciphers, the compact key and a job. C/C++ common subset, no functions.
 */
#ifndef BSGPU_TYPES_H
#define BSGPU_TYPES_H

#include <stdint.h>

typedef enum bsgpu_cipher {
    BSGPU_PRESENT80 = 0,
    BSGPU_PRESENT128 = 1,
    BSGPU_GIFT64 = 2,
    BSGPU_GIFT128 = 3,
    BSGPU_RIJNDAEL256 = 4,
    BSGPU_NCIPHERS = 5
} bsgpu_cipher;

/* A key in the kernels' compact form (layout: bsgpu_lanes.h). */
#define BSGPU_KEY_WORDS 120
typedef struct bsgpu_key {
    uint32_t w[BSGPU_KEY_WORDS];
} bsgpu_key;

/*
 * Device-resident keys (bsgpu.h, "keys that stay on the device"): a job whose key_index has this
 * bit set uses slot key_index & ~BSGPU_KEY_RESIDENT of the context's key table instead of the
 * call's keys.
 */
#define BSGPU_KEY_RESIDENT 0x80000000u

/*
 * One change to a device key table: load = 1 puts the key's device form (expanded; RIJNDAEL-256:
 * compact) into slot `slot` and zeroes the rest of the slot; load = 0 zeroes the whole slot.
 */
typedef struct bsgpu_keyop {
    uint32_t slot;
    uint32_t cipher; /* a bsgpu_cipher (loads only) */
    uint32_t load;
} bsgpu_keyop;

/* A job as the daemon sees it: nblocks of keystream from counter under keys[key_index] (or a
 * resident slot: BSGPU_KEY_RESIDENT). */
typedef struct bsgpu_job {
    uint8_t counter[32]; /* big-endian, block_len bytes */
    uint64_t nblocks;
    uint32_t key_index;
    uint8_t *dst; /* host memory, nblocks * block_len bytes */
    /*
     * The host allocation dst lies in (e.g. the client's mapping, registered on its own): copies
     * into two jobs are merged into one only when their regions are equal, because CUDA refuses a
     * copy that runs across the end of one registered range into another, even where the two
     * are adjacent in the address space. Jobs in one buffer may leave it NULL.
     */
    const void *region;
} bsgpu_job;

#endif
