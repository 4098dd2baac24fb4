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
#include "keystream.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Room for CTR's read-ahead: one batch of the widest core (bs_block_cipher.batch). A build with
 * only the MCU variants passes a smaller value (bs_core_dep carries it, as BS_KS_MAX); any value
 * >= BS_BLOCK_MAX works (a batch or a pass that does not fit is cut to what does).
 */
#ifndef BS_CTR_AHEAD_BYTES
#define BS_CTR_AHEAD_BYTES (BS_BATCH_MAX * BS_BLOCK_MAX)
#endif

/* Default limit on blocks per key for 64-bit-block ciphers: 2^32 (birthday bound). */
#define BS_CTR_LIMIT64_DEFAULT ((uint64_t)1 << 32)

/*
 * The fields are private to ctr.c (read them through the accessors below). Keystream comes
 * from src (keystream.h; NULL: the in-process core), whole blocks at a time. A request shorter
 * than one bitsliced pass takes a whole pass of keystream into ahead[] (a pass costs the same
 * whatever it is used for), within the limit and the wrap, and later small requests are XORs
 * from it. A core with a batch (bs_block_cipher.batch: its widest pass) runs whole batches
 * straight through and takes the rest of a call as one whole batch into ahead[], on a stream's
 * first call from batch_from blocks on and on every later one, so a stream of small calls costs
 * what long ones do. How much is read ahead depends on the lengths of the calls only (public).
 * Every operation other than crypt first gives the unused blocks back (settle), so positions,
 * limits and copies are those of a context that never read ahead; whatever keystream leaves
 * ahead[] is wiped, and the bytes of ahead[] past ahead_len are always zero.
 */
typedef struct bs_ctr_ctx {
    const bs_block_cipher *cipher;
    bs_key_schedule ks;
    bs_keystream_source *src;          /* not owned; NULL: in-process */
    uint8_t counter[BS_BLOCK_MAX];     /* counter of the next block to generate */
    uint8_t ahead_ctr[BS_BLOCK_MAX];   /* counter of ahead[0] */
    uint8_t ahead[BS_CTR_AHEAD_BYTES]; /* keystream generated, not all used */
    unsigned ahead_len;                /* bytes in ahead[] (whole blocks); 0: none */
    unsigned ahead_pos;                /* bytes of ahead[] used */
    uint64_t blocks_used;              /* blocks generated under this key (ahead[] included) */
    uint64_t block_limit;              /* blocks allowed under this key */
    uint64_t wrap_left;                /* blocks before the counter wraps (capped at 2^64 - 1) */
    int keyed;
    int streaming; /* crypt ran since the key or IV was set: read-ahead takes whole batches */
} bs_ctr_ctx;

/*
 * Sets the key (key_len bytes). Resets the block count; tells the source (keystream.h). The
 * counter goes on, and a counter that reached its wrap (BS_ERR_COUNTER_WRAP) needs a new IV
 * under any key, unless the new core's block length differs.
 */
int bs_ctr_set_key(bs_ctr_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                   size_t key_len);
/*
 * New key, keep the count: sets the key (as bs_ctr_set_key, at the next counter block) while
 * the stream goes on, so the blocks started under the old key stay counted against the limit,
 * which is kept (within the new cipher's absolute one). On a context without a key, as
 * bs_ctr_set_key.
 */
int bs_ctr_rekey(bs_ctr_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                 size_t key_len);
/* Sets the IV: block_len bytes, or 16 for a 32-byte block. Keeps the key and its block count. */
int bs_ctr_set_iv(bs_ctr_ctx *ctx, const uint8_t *iv, size_t iv_len);
/* The IV length this cipher takes in CTR mode. */
size_t bs_ctr_iv_len(const bs_block_cipher *cipher);
/*
 * Lowers (or raises, up to the absolute default) the per-key block limit; never below the
 * blocks already used (a lower limit stops the stream there, it does not wrap the count).
 */
void bs_ctr_set_block_limit(bs_ctr_ctx *ctx, uint64_t max_blocks);
/*
 * Where keystream comes from (NULL: the in-process core). Set it before the key, which the
 * source is told (a source given later fills nothing until the next key). The context does
 * not own it. The output is the same whichever source serves (keystream.h).
 */
void bs_ctr_set_source(bs_ctr_ctx *ctx, bs_keystream_source *src);
/* Encrypts or decrypts len bytes (the same operation). in may equal out. */
int bs_ctr_crypt(bs_ctr_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len);
/*
 * The position as OpenSSL's CTR reports it: the counter of the next block to start
 * (block_len bytes) and num, the bytes used of the last keystream block (0 when none pending).
 */
void bs_ctr_position(const bs_ctr_ctx *ctx, uint8_t *counter, unsigned *num);
/* Moves within the current block (OpenSSL's num semantics); num < block_len. All or nothing. */
int bs_ctr_set_num(bs_ctr_ctx *ctx, unsigned num);
/*
 * Makes dst (any memory) a context that goes on with src's stream from where src is: the key,
 * the position, the count, the limit and the source pointer (not a copy of the source: the
 * caller makes one where it owns them). Of src's read-ahead only a partly used block comes
 * along; the copy computes the rest again, so no other keystream is held twice.
 */
void bs_ctr_copy(bs_ctr_ctx *dst, const bs_ctr_ctx *src);
/* Blocks started under this key (the limit counts these). */
uint64_t bs_ctr_blocks_used(const bs_ctr_ctx *ctx);
/* Blocks that may still be started: the lesser of the limit's room and the wrap distance. */
uint64_t bs_ctr_blocks_left(const bs_ctr_ctx *ctx);
/* Wipes the key schedule and the keystream (not the source: its owner frees it), and the
 * stack the cores used (bs_wipe_stack). */
void bs_ctr_clear(bs_ctr_ctx *ctx);

/*
 * Stateless keystream: nblocks blocks of keystream starting at counter, into out
 * (nblocks * block_len bytes), in-process. No limit or wrap check: the caller does them
 * (bs_ctr_blocks_before_wrap). This is what the daemon's backends produce.
 */
void bs_ctr_keystream(const bs_block_cipher *cipher, const bs_key_schedule *ks,
                      const uint8_t *counter, uint64_t nblocks, uint8_t *out);
/* bs_ctr_add(counter, len, n), counter += n big-endian: in keystream.h. */
/* Blocks that can be generated from counter before it wraps, capped at 2^64 - 1. */
uint64_t bs_ctr_blocks_before_wrap(const uint8_t *counter, size_t len);

#ifdef __cplusplus
}
#endif

#endif
