/*
 * backend.h: the tables the provider's generic glue (ciphercommon.c, ciphercommon_gcm.c) calls,
 * over the core's mode contexts (backend_inproc.c: bs_ctr_ctx, bs_gcm256_ctx).
 *
 * The seam to keystream producers is below them, at the keystream (core/modes/keystream.h):
 * each context pulls its blocks from a source chosen at newctx, the daemon's
 * (bsprov_source_new, backend_daemon.c) when a daemon socket is configured, else the in-process
 * core. Output, bs_err codes and limits are the same either way: the mode computes them, and
 * finishes in-process when the daemon is absent or fails.
 *
 * Every function returns a bs_err (BS_OK on success). A failed call changes nothing.
 */
#ifndef BSPROV_BACKEND_H
#define BSPROV_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "modes/keystream.h"

struct bsprov_ctx;

/* CTR keystream, counter rule and limits of docs/spec/algorithms.md. */
typedef struct bsprov_ctr_backend {
    const char *name;
    /* A context for cipher; NULL on allocation failure. */
    void *(*newctx)(const bs_block_cipher *cipher, const struct bsprov_ctx *prov);
    /* Sets the key and the per-key block limit; resets the block count. */
    int (*set_key)(void *bctx, const uint8_t *key, size_t key_len, uint64_t block_limit);
    /* Sets the initial counter (bs_ctr_iv_len bytes); keeps the block count. */
    int (*set_iv)(void *bctx, const uint8_t *iv, size_t iv_len);
    /* Changes the block limit of the current key (never above the core's absolute limit). */
    int (*set_block_limit)(void *bctx, uint64_t block_limit);
    /* XORs len bytes of keystream into in; in may equal out; all or nothing. */
    int (*crypt)(void *bctx, uint8_t *out, const uint8_t *in, size_t len);
    /*
     * The position as OpenSSL's CTR reports it: the next counter block (block_len bytes) and
     * num, the bytes already used of the last keystream block (0 when none is pending).
     */
    void (*get_position)(const void *bctx, uint8_t *counter, unsigned *num);
    /* Moves within the current block (OpenSSL's num semantics); num < block_len. */
    int (*set_num)(void *bctx, unsigned num);
    /* Blocks started since the last set_key, across set_iv (the count the limit applies to). */
    uint64_t (*blocks_used)(const void *bctx);
    /* A deep copy in the same position; NULL on allocation failure. */
    void *(*dup)(const void *bctx);
    /* Wipes all key material and frees. Accepts NULL. */
    void (*free)(void *bctx);
} bsprov_ctr_backend;

/* RIJNDAEL-256-GCM (docs/spec/rijndael256-gcm.md), over bs_gcm256_ctx. */
typedef struct bsprov_gcm_backend {
    const char *name;
    /* A context over cipher (a 32-byte-block core, as CTR's); NULL on allocation failure. */
    void *(*newctx)(const bs_block_cipher *cipher, const struct bsprov_ctx *prov);
    int (*set_key)(void *bctx, const uint8_t *key, size_t key_len);
    /* Starts a message: any IV length >= 1. */
    int (*set_iv)(void *bctx, const uint8_t *iv, size_t iv_len);
    int (*aad)(void *bctx, const uint8_t *aad, size_t len);
    int (*encrypt)(void *bctx, uint8_t *out, const uint8_t *in, size_t len);
    int (*decrypt)(void *bctx, uint8_t *out, const uint8_t *in, size_t len);
    /* Finishes: writes the first tag_len bytes of the tag (16..32, step 4). */
    int (*tag)(void *bctx, uint8_t *tag, size_t tag_len);
    /* Finishes: compares in constant time, BS_OK or BS_ERR_AUTH. */
    int (*verify)(void *bctx, const uint8_t *tag, size_t tag_len);
    void *(*dup)(const void *bctx);
    void (*free)(void *bctx);
} bsprov_gcm_backend;

extern const bsprov_ctr_backend bsprov_ctr_modes;
extern const bsprov_gcm_backend bsprov_gcm_modes;

/*
 * The keystream source a new context pulls from when prov->daemon_socket is set (the daemon's,
 * backend_daemon.c); NULL on allocation failure. The context owns it (ops->copy, ops->free).
 */
bs_keystream_source *bsprov_source_new(const struct bsprov_ctx *prov);

/* The tables a new context uses (one each: the source is what differs). */
const bsprov_ctr_backend *bsprov_ctr_backend_for(const struct bsprov_ctx *prov,
                                                 const bs_block_cipher *cipher);
const bsprov_gcm_backend *bsprov_gcm_backend_for(const struct bsprov_ctx *prov);

#endif
