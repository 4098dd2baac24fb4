/*
 * keystream.h: the seam between the modes and whatever produces their keystream.
 *
 * CTR (ctr.h) and GCM (gcm256.h) own every rule of the stream: the counter position, the
 * partial block (num), the limits, the wrap, GHASH and the tag. What they ask a source for is
 * only "the keystream of blocks [counter, counter + nblocks)", counted by one of two rules.
 * The in-process core (bs_keystream_inproc, below) is one source; the daemon's prefetched,
 * checked windows (service/client/bsd_source.h) are another; AES FACE caching is a third.
 *
 * fill also XORs: given in, it writes out = in ^ keystream, so that a core's own counter mode
 * can XOR in registers and a daemon window (the client's checked private copy of it) is read
 * straight into the output, with no keystream buffer in between (with in NULL, out receives the
 * keystream itself).
 *
 * A source may do fewer blocks than asked, a prefix: it returns how many it did, and the mode
 * computes the rest in-process from its own key schedule (bs_keystream_local), so the output
 * is byte-identical whichever source served which block. A source that is not ready yet (the
 * daemon below its offload threshold, absent or backed off) returns 0.
 *
 * Sources are not owned by the mode contexts that point at them: whoever creates one copies
 * and frees it (copy/free), e.g. when the provider duplicates an EVP context.
 */
#ifndef BS_KEYSTREAM_H
#define BS_KEYSTREAM_H

#include "../bitslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How counter_i follows counter_0. */
enum {
    BS_KS_STEP_BLOCK = 0, /* the whole block increments as a big-endian integer (CTR) */
    BS_KS_STEP_INC32 = 1, /* only the last 4 bytes, modulo 2^32 (GCM's inc32) */
};

typedef struct bs_keystream_source bs_keystream_source;

typedef struct bs_keystream_ops {
    const char *name;
    /*
     * Optional (NULL: nothing to do). The mode's key was set (key_len bytes for cipher): a
     * remote producer needs the raw key, and drops whatever it had under the previous one.
     */
    void (*set_key)(bs_keystream_source *src, const bs_block_cipher *cipher, const uint8_t *key,
                    size_t key_len);
    /*
     * Blocks [0, nblocks) from counter (cipher->block_len bytes) counted by step, into out,
     * XORed with in unless in is NULL (in may equal out). cipher and ks are the mode's own key,
     * for checks. Returns the blocks done, a prefix (0..nblocks); the rest of out is unchanged.
     */
    uint64_t (*fill)(bs_keystream_source *src, const bs_block_cipher *cipher,
                     const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks, int step,
                     const uint8_t *in, uint8_t *out);
    /* A deep copy (that starts afresh at whatever counter it is asked for); NULL: no memory. */
    bs_keystream_source *(*copy)(const bs_keystream_source *src);
    /* Wipes and frees. */
    void (*free)(bs_keystream_source *src);
} bs_keystream_ops;

/* Implementations embed this first. */
struct bs_keystream_source {
    const bs_keystream_ops *ops;
};

/* The in-process core; fill always does every block. copy returns itself, free does nothing. */
extern bs_keystream_source bs_keystream_inproc;

/*
 * The in-process keystream (what bs_keystream_inproc's fill does): the core's own counter mode
 * where it has one (its ctr32, split at its 2^32 wraps under BS_KS_STEP_BLOCK), else
 * counter blocks through encrypt(), a pass at a time. No limit or wrap check: the mode does them.
 */
void bs_keystream_local(const bs_block_cipher *cipher, const bs_key_schedule *ks,
                        const uint8_t *counter, uint64_t nblocks, int step, const uint8_t *in,
                        uint8_t *out);

/*
 * What the modes call: src (NULL: in-process) for the blocks it does, then the in-process core
 * for the rest. Never fails, never does fewer.
 */
void bs_keystream_fill(bs_keystream_source *src, const bs_block_cipher *cipher,
                       const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                       int step, const uint8_t *in, uint8_t *out);

/* counter += n, as a big-endian integer of len bytes, modulo 2^(8 len) (CTR's counter rule). */
void bs_ctr_add(uint8_t *counter, size_t len, uint64_t n);
/* counter += n under step (bs_ctr_add for BS_KS_STEP_BLOCK). */
void bs_keystream_advance(uint8_t *counter, size_t len, uint64_t n, int step);

/* out = in ^ ks, n bytes, word-wise (any alignment; in may equal out, but the buffers may not
 * otherwise overlap: the word loops read ahead of what they write). */
void bs_keystream_xor(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n);

#ifdef __cplusplus
}
#endif

#endif
