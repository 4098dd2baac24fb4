/*
 * gcm128.h: standard AES-GCM (NIST SP 800-38D, 128-bit block) over the AES cores: CTR with
 * inc32 plus GHASH-128 over GF(2^128) / (x^128 + x^7 + x^2 + x + 1), shaped like gcm256.h.
 *
 * One GCM over both block sizes (gcm.inc.h, instantiated here and in gcm256.c): incremental
 * set_key (over any 16-byte-block core, AES-128 or AES-256), set_iv (any length >= 1; 12 bytes
 * gives J0 = IV || 00000001), aad*, encrypt*|decrypt*, then tag (12..16 bytes) or verify
 * (constant-time). A refused call changes nothing.
 *
 * GHASH-128 is chosen at set_key (bs_ghash128_default) and may be changed with
 * bs_gcm128_set_ghash:
 * - ctmul32 (32 x 32 -> 32 multiplies with holes, two-level Karatsuba, four blocks per
 *   reduction) and ctshift32 (no multiply, for RV32I and for cores whose multiplier is not
 *   constant-time): constant-time, table-free, bit-exact;
 * - table4_not_ct: Shoup's 4-bit table multiplier. NOT CONSTANT-TIME: its table indices are
 *   nibbles of the hash input and of the accumulator, which depend on H, a secret. It exists
 *   for comparison (the benchmarks) and as the ct suite's leaky control; it is the default only
 *   in a build configured with -Dghash128_table4_not_ct=true.
 *
 * CTR keystream: the cipher's own encrypt, or with bs_gcm128_set_face AES-CTR with FACE
 * caching (core/aes/aes_ctr_face.h, inc32 counter rule), or a keystream source
 * (bs_gcm128_set_source, as gcm256.h): bit-exact either way.
 */
#ifndef BS_GCM128_H
#define BS_GCM128_H

#include "../bitslice.h"
#include "keystream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SP 800-38D limits: 2^32 - 2 blocks of data per IV, AAD below 2^61 bytes. */
#define BS_GCM128_MAX_BLOCKS (((uint64_t)1 << 32) - 2)
#define BS_GCM128_TAG_MIN 12
#define BS_GCM128_TAG_MAX 16

/* Room for any implementation's key form (ctmul32: 4 powers x 9 operands, both halves). */
#define BS_GHASH128_HKEY_WORDS 36

/* As bs_ghash256_impl, for 16-byte blocks: y = (y ^ X_i) * H for each block. */
typedef struct bs_ghash128_impl {
    const char *name;
    int constant_time; /* 0 for the 4-bit table */
    void (*init)(uint64_t hkey[BS_GHASH128_HKEY_WORDS], const uint8_t h[16]);
    void (*mul_blocks)(const uint64_t hkey[BS_GHASH128_HKEY_WORDS], uint8_t y[16],
                       const uint8_t *blocks, size_t nblocks);
    bs_level level; /* the CPU level it needs (bitslice.h); BS_CPU_NONE: never chosen */
} bs_ghash128_impl;

extern const bs_ghash128_impl bs_ghash128_ctmul32;
extern const bs_ghash128_impl bs_ghash128_ctshift32;
/* Not constant-time (see above). */
extern const bs_ghash128_impl bs_ghash128_table4_not_ct;
/*
 * What set_key picks: table4_not_ct if the build opted in (-Dghash128_table4_not_ct=true);
 * else ctshift32 on RISC-V without M (whose 32-bit product is a data-dependent library loop),
 * ctmul32 elsewhere, as GHASH-256 does.
 */
const bs_ghash128_impl *bs_ghash128_default(void);

struct bs_aes_face_ctx;

typedef struct bs_gcm128_ctx {
    const bs_block_cipher *cipher;
    const bs_ghash128_impl *ghash;
    bs_ctr32_fn ctr32;            /* the core's own counter mode (bs_block_cipher.ctr32), or NULL */
    struct bs_aes_face_ctx *face; /* CTR through FACE caching when set (and ctr_secret is 0) */
    bs_key_schedule ks;
    BS_ALIGN(16) uint64_t hkey[BS_GHASH128_HKEY_WORDS];
    uint8_t j0[16];
    uint8_t y[16];       /* GHASH accumulator */
    uint8_t counter[16]; /* next counter block */
    uint8_t stream[16];  /* keystream of the current partial block */
    uint8_t ghbuf[16];   /* GHASH input waiting for a full block */
    uint8_t ekj0[16];    /* E_K(J0), once computed (ekj0_ready) */
    int ekj0_ready;
    bs_keystream_source *src; /* data keystream; not owned; NULL: in-process (keystream.h) */
    unsigned ghbuf_len;
    unsigned num; /* bytes of stream[] used */
    uint64_t aad_len, data_len;
    int state;      /* see gcm.inc.h */
    int ctr_secret; /* J0 came by GHASH: the counter depends on the key (no FACE then) */
} bs_gcm128_ctx;

/*
 * Key (cipher->key_len bytes) over cipher, a 16-byte-block core (e.g.
 * bs_block_cipher_by_name("AES-128")): BS_ERR_ARG for NULL or another block length,
 * BS_ERR_KEY_LENGTH for another key length. As bs_ctr_set_key, the caller chooses the core.
 * Computes H = E_K(0^128) and picks bs_ghash128_default(); keeps the source, drops the face.
 */
int bs_gcm128_set_key(bs_gcm128_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                      size_t key_len);
/* As bs_gcm256_set_source. */
void bs_gcm128_set_source(bs_gcm128_ctx *ctx, bs_keystream_source *src);
/* Uses impl for GHASH (NULL: the default); a message under way is dropped (set the IV again). */
void bs_gcm128_set_ghash(bs_gcm128_ctx *ctx, const bs_ghash128_impl *impl);
/*
 * CTR keystream through face (keyed by the caller with the same key: bs_aes_face_set_key), or
 * NULL for the plain core. The face context is the caller's and must outlive its use here.
 * BS_ERR_ARG if face holds another key length, and over a masked core (impl "masked32" or
 * "masked32v", aes_masked.h): FACE is unmasked AES, so its keystream would not be masked; the
 * context keeps the masked core for everything. A message under way is dropped. FACE serves
 * messages with a 12-byte IV only: for any other length J0 = GHASH_H(IV), the counters depend on
 * the key, and FACE's cache is indexed by counter bytes; such a message takes the plain core.
 */
int bs_gcm128_set_face(bs_gcm128_ctx *ctx, struct bs_aes_face_ctx *face);
int bs_gcm128_set_iv(bs_gcm128_ctx *ctx, const uint8_t *iv, size_t iv_len);
/* set_key then set_iv, as one call (gcm256.h); a refused call changes nothing. */
int bs_gcm128_set_key_iv(bs_gcm128_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                         size_t key_len, const uint8_t *iv, size_t iv_len);
/* Any number of calls, before any data; BS_ERR_DATA_LIMIT at 2^61 bytes. */
int bs_gcm128_aad(bs_gcm128_ctx *ctx, const uint8_t *aad, size_t len);
/* Any split of the stream; in may equal out; one direction per message (else BS_ERR_STATE). */
int bs_gcm128_encrypt(bs_gcm128_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len);
int bs_gcm128_decrypt(bs_gcm128_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len);
/* Finishes and writes the first tag_len bytes (12..16, else BS_ERR_TAG_LENGTH). */
int bs_gcm128_tag(bs_gcm128_ctx *ctx, uint8_t *tag, size_t tag_len);
/* Finishes and compares in constant time: BS_OK or BS_ERR_AUTH. */
int bs_gcm128_verify(bs_gcm128_ctx *ctx, const uint8_t *tag, size_t tag_len);
/* Wipes everything, key schedule included (not the face context), and the stack the cores
 * used (bs_wipe_stack). */
void bs_gcm128_clear(bs_gcm128_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
