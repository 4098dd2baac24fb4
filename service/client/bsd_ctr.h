/*
 * bsd_ctr.h: a CTR context with the semantics of bs_ctr_ctx (counter rule, limits, wrap, num,
 * all-or-nothing errors) whose keystream comes from bitsliced, prefetched by a bsd_stream, from
 * the call that brings the bytes under the current IV to the threshold or more. Any daemon failure
 * (absent, refused, dead, timeout) switches to the in-process core at the exact position: the
 * output is byte-identical either way. This is the provider's daemon backend minus the OpenSSL
 * glue: each function maps to one entry of provider/backend.h's bsprov_ctr_backend.
 *
 * Not thread-safe (one per EVP context). Works across fork(): the child reconnects.
 */
#ifndef BSD_CTR_H
#define BSD_CTR_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "bsd_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsd_ctr bsd_ctr;

typedef struct bsd_ctr_opts {
    const char *socket_path; /* NULL: bsd_client_default_socket() */
    uint64_t threshold;      /* offload once this many bytes went through under one IV */
    int connect_timeout_ms;  /* 0: 1000 */
    int timeout_ms;          /* per window; 0: 5000 */
    size_t window_bytes;     /* 0: 1 MiB */
    unsigned depth;          /* 0: 4 */
} bsd_ctr_opts;

/* NULL on allocation failure. opts is copied (socket_path too). */
bsd_ctr *bsd_ctr_new(const bs_block_cipher *cipher, const bsd_ctr_opts *opts);
/* bs_ctr_set_key + bs_ctr_set_block_limit. Keeps the raw key (wiped in free) for the daemon. */
int bsd_ctr_set_key(bsd_ctr *c, const uint8_t *key, size_t key_len, uint64_t block_limit);
int bsd_ctr_set_iv(bsd_ctr *c, const uint8_t *iv, size_t iv_len);
/* As the provider's in-process table: never below the blocks already used. */
int bsd_ctr_set_block_limit(bsd_ctr *c, uint64_t block_limit);
int bsd_ctr_crypt(bsd_ctr *c, uint8_t *out, const uint8_t *in, size_t len);
void bsd_ctr_get_position(const bsd_ctr *c, uint8_t *counter, unsigned *num);
int bsd_ctr_set_num(bsd_ctr *c, unsigned num);
bsd_ctr *bsd_ctr_dup(const bsd_ctr *c);
void bsd_ctr_free(bsd_ctr *c);

/* For logs and tests: bytes served by the daemon, and in-process, since the key was set. */
void bsd_ctr_counts(const bsd_ctr *c, uint64_t *daemon_bytes, uint64_t *local_bytes);
/* 0 while the daemon is used or may be; else the error that made this IV fall back. */
int bsd_ctr_fallback_reason(const bsd_ctr *c);
/*
 * Milliseconds before this process tries the daemon again after failures (0: it will try):
 * 1 s after a failed or stalled connect, doubling up to 60 s, reset once keystream arrives.
 */
long long bsd_ctr_backoff_ms(void);
/*
 * Feed that back-off from other users of the daemon (the provider's GCM offload), as bsd_ctr
 * does itself: a failed bsd_stream_open (any error) backs off; on a stream, 0 (verified
 * keystream arrived) resets it, and an error meaning the daemon is gone, stalled or sent
 * wrong keystream backs off.
 */
void bsd_ctr_note_open(int err);
void bsd_ctr_note_stream(int err);

#ifdef __cplusplus
}
#endif

#endif
