/*
 * ctr.h: counter mode over any bs_block_cipher (docs/spec/algorithms.md, "Counters" and "Limits").
 *
 * The counter block is the IV for 64- and 128-bit blocks, IV(16) || 0^16 for Rijndael-256 and
 * IV(16) || 0^8 for SPEEDY;
 * the whole block increments as a big-endian integer. A stream may be split at any byte.
 * A request that would pass the data limit or wrap the counter fails as a whole and changes
 * nothing, so the caller loses no data and may report the error.
 */
#ifndef BS_CTR_H
#define BS_CTR_H

#include "../bitslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default limit on blocks per key for 64-bit-block ciphers: 2^32 (birthday bound). */
#define BS_CTR_LIMIT64_DEFAULT ((uint64_t)1 << 32)

typedef struct bs_ctr_ctx {
    const bs_block_cipher *cipher;
    bs_key_schedule ks;
    uint8_t counter[BS_BLOCK_MAX]; /* counter of the next block to generate */
    uint8_t stream[BS_BLOCK_MAX];  /* keystream of the last generated block */
    unsigned num;                  /* bytes of stream[] already used; 0 when none pending */
    uint64_t blocks_used;          /* blocks generated under this key */
    uint64_t block_limit;          /* blocks allowed under this key */
    uint64_t wrap_left;            /* blocks before the counter wraps (capped at 2^64 - 1) */
    bs_ctr32_fn ctr32;             /* the core's own counter mode (bs_ctr32_for), or NULL */
    int keyed;
} bs_ctr_ctx;

/* Sets the key (key_len bytes). Resets the block count. */
int bs_ctr_set_key(bs_ctr_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                   size_t key_len);
/* Sets the IV: block_len bytes, or 16 for a 32-byte block. Keeps the key and its block count. */
int bs_ctr_set_iv(bs_ctr_ctx *ctx, const uint8_t *iv, size_t iv_len);
/* The IV length this cipher takes in CTR mode. */
size_t bs_ctr_iv_len(const bs_block_cipher *cipher);
/* Lowers (or raises, up to the absolute default) the per-key block limit. */
void bs_ctr_set_block_limit(bs_ctr_ctx *ctx, uint64_t max_blocks);
/* Encrypts or decrypts len bytes (the same operation). in may equal out. */
int bs_ctr_crypt(bs_ctr_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len);
/* Blocks that may still be generated: the lesser of the limit's room and the wrap distance. */
uint64_t bs_ctr_blocks_left(const bs_ctr_ctx *ctx);
/*
 * The all-or-nothing check bs_ctr_crypt makes before it moves: BS_OK if len more bytes fit,
 * else BS_ERR_COUNTER_WRAP or BS_ERR_DATA_LIMIT. For code that produces the bytes elsewhere.
 */
int bs_ctr_check(const bs_ctr_ctx *ctx, uint64_t len);
/*
 * Advances the stream by nbytes exactly as bs_ctr_crypt would (same checks, all or nothing),
 * without producing output: used when the keystream for those bytes came from elsewhere
 * (the daemon) and the context must take over at that position.
 */
int bs_ctr_seek(bs_ctr_ctx *ctx, uint64_t nbytes);
/* Wipes the key schedule and the keystream. */
void bs_ctr_clear(bs_ctr_ctx *ctx);

/*
 * Stateless keystream: nblocks blocks of keystream starting at counter, into out
 * (nblocks * block_len bytes). No limit or wrap check: the caller does them
 * (bs_ctr_blocks_before_wrap). This is what the daemon's backends produce.
 */
void bs_ctr_keystream(const bs_block_cipher *cipher, const bs_key_schedule *ks,
                      const uint8_t *counter, uint64_t nblocks, uint8_t *out);
/* counter += n, as a big-endian integer of len bytes, modulo 2^(8 len). */
void bs_ctr_add(uint8_t *counter, size_t len, uint64_t n);
/* Blocks that can be generated from counter before it wraps, capped at 2^64 - 1. */
uint64_t bs_ctr_blocks_before_wrap(const uint8_t *counter, size_t len);

#ifdef __cplusplus
}
#endif

#endif
