/*
 * gcm256.h: RIJNDAEL-256-GCM (docs/spec/rijndael256-gcm.md): SP 800-38D with a 256-bit block,
 * CTR over the Rijndael-256 core plus GHASH-256 over GF(2^256) / (x^256 + x^10 + x^5 + x^2 + 1).
 *
 * One GCM over both block sizes (gcm.inc.h, instantiated here and in gcm128.c). Incremental:
 * set_key, set_iv (any length >= 1), aad* , encrypt*|decrypt*, then tag or verify.
 * GHASH is chosen once at set_key (bs_ghash256_default): PCLMULQDQ when the CPU has it, else
 * the portable constant-time implementation that suits the target (ctmul64, ctmul32 or
 * ctshift32); all are bit-exact. A refused call changes nothing.
 */
#ifndef BS_GCM256_H
#define BS_GCM256_H

#include <stdint.h>

#include "../bitslice.h"
#include "keystream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of docs/spec/algorithms.md. */
#define BS_GCM256_MAX_BLOCKS (((uint64_t)1 << 32) - 2)
#define BS_GCM256_TAG_MIN 16
#define BS_GCM256_TAG_MAX 32
/*
 * Single GHASH blocks a context keeps back to absorb together (gcm.inc.h, GCM_GHASH_DEFER), on
 * 64-bit hosts (whose GHASHs have key powers to aggregate with); none on the MCUs.
 */
#if UINTPTR_MAX > 0xffffffffu
#define BS_GCM256_DEFER 4
#endif

/*
 * Room for any implementation's key form: 3584 bytes on x86-64 (VPCLMULQDQ's 16 pairs of powers
 * with their Karatsuba words and a chunk's middle form take 2560 of them, ghash256_vpclmul.h;
 * the room is kept, the context's layout with it), else 2304 (ctmul64 keeps H^1..H^4).
 */
#if defined(__x86_64__)
#define BS_GHASH256_HKEY_WORDS 448
#else
#define BS_GHASH256_HKEY_WORDS 288
#endif

/*
 * A GHASH-256 implementation: init turns H (32 bytes) into its own key form;
 * mul_blocks absorbs nblocks 32-byte blocks into the accumulator y (32 bytes, GCM byte order):
 * y = (y ^ X_i) * H for each block.
 */
typedef struct bs_ghash256_impl {
    const char *name;
    int constant_time; /* 0 for a table-based variant, which must be opt-in */
    void (*init)(uint64_t hkey[BS_GHASH256_HKEY_WORDS], const uint8_t h[32]);
    void (*mul_blocks)(const uint64_t hkey[BS_GHASH256_HKEY_WORDS], uint8_t y[32],
                       const uint8_t *blocks, size_t nblocks);
    /*
     * Optional, for re-keying at the cost of what a message uses (NULL / 0: init computes the
     * whole key form). The key form is then a run of max_powers entries of power_words words,
     * entry p - 1 built from H^p (and those before it): init_first writes entry 0 from H, extend
     * entries have..want - 1 (1 <= have < want <= max_powers) from the entries before them; a
     * mul_blocks call over n blocks reads only entries 0..min(n, max_powers) - 1, and with
     * max_powers made, the first form_words words (the entries and what follows them). init is
     * init_first then extend(1, max_powers).
     */
    void (*init_first)(uint64_t hkey[BS_GHASH256_HKEY_WORDS], const uint8_t h[32]);
    void (*extend)(uint64_t hkey[BS_GHASH256_HKEY_WORDS], unsigned have, unsigned want);
    unsigned max_powers;
    unsigned power_words;
    unsigned form_words; /* the whole key form, every power made (>= max_powers * power_words) */
    bs_level level;      /* the CPU level it needs (bitslice.h); BS_CPU_NONE: never chosen */
} bs_ghash256_impl;

/* Portable, constant-time where 64 x 64 -> 64 integer multiplies take constant time. */
extern const bs_ghash256_impl bs_ghash256_ctmul64;
/*
 * Portable over 32 x 32 -> 32 multiplies only: constant-time where those are (Cortex-M3, whose
 * 64-bit UMULL is not); constant_time is 0 on RISC-V without M, where they are library loops.
 */
extern const bs_ghash256_impl bs_ghash256_ctmul32;
/* Portable without any multiply (shifts and masks): for cores without a multiplier. */
extern const bs_ghash256_impl bs_ghash256_ctshift32;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BS_GHASH256_HAVE_PCLMUL 1
/* PCLMULQDQ + SSE4.1 (ghash256_pclmul.c); usable only where the CPU has them. */
extern const bs_ghash256_impl bs_ghash256_pclmul_impl;
#ifdef BS_HAVE_X86
#define BS_GHASH256_HAVE_VPCLMUL 1
/* VPCLMULQDQ on zmm (ghash256_vpclmul.c); usable only at CPU level avx512. */
extern const bs_ghash256_impl bs_ghash256_vpclmul_impl;
#endif
#endif
/* The PCLMULQDQ implementation, or NULL when the build or the CPU lacks it. */
const bs_ghash256_impl *bs_ghash256_pclmul(void);
/* VPCLMULQDQ on zmm, eight blocks per reduction; NULL without AVX-512 (level avx512). */
const bs_ghash256_impl *bs_ghash256_vpclmul(void);
/*
 * Every GHASH-256 implementation compiled in, NULL-terminated (ghash256.c), beside
 * bs_block_ciphers: the portable ones, then the CPU-specific ones. An entry may need features
 * this CPU lacks; the unit, taint and firmware suites run every entry bs_ghash256_usable says
 * runs here.
 */
extern const bs_ghash256_impl *const bs_ghash256_impls[];
/* 1 if impl runs on this CPU (the portable ones everywhere). */
int bs_ghash256_usable(const bs_ghash256_impl *impl);
/*
 * What set_key picks, within the CPU level (bs_cpu.h): bs_ghash256_vpclmul() at avx512,
 * bs_ghash256_pclmul() at aesni and avx2; else ctshift32 on RISC-V without M,
 * ctmul32 on other 32-bit targets (ARM M-profile among them), ctmul64 on 64-bit ones.
 */
const bs_ghash256_impl *bs_ghash256_default(void);

typedef struct bs_gcm256_ctx {
    const bs_block_cipher *cipher;
    const bs_ghash256_impl *ghash;
    bs_ctr32_fn ctr32; /* the core's own counter mode (bs_block_cipher.ctr32), or NULL */
    bs_key_schedule ks;
    BS_ALIGN(32) uint64_t hkey[BS_GHASH256_HKEY_WORDS];
    uint8_t j0[32];
    uint8_t y[32];       /* GHASH accumulator */
    uint8_t counter[32]; /* next counter block */
    uint8_t stream[32];  /* keystream of the current partial block */
    uint8_t ghbuf[32];   /* GHASH input waiting for a full block */
#ifdef BS_GCM256_DEFER
    uint8_t ghpend[BS_GCM256_DEFER * 32]; /* whole blocks waiting to go into GHASH together */
    unsigned npend;
#endif
    uint8_t ekj0[32]; /* E_K(J0), once computed (ekj0_ready) */
    int ekj0_ready;
    bs_keystream_source *src; /* data keystream; not owned; NULL: in-process (keystream.h) */
    unsigned ghbuf_len;
    unsigned num; /* bytes of stream[] used */
    uint64_t aad_len, data_len;
    int state;      /* see gcm.inc.h */
    unsigned hpow;  /* key powers in hkey so far (0: H not made yet, it comes with the IV) */
    int pre;        /* stream[] holds the unused keystream of the next block (made with the IV) */
    int ctr_secret; /* J0 came by GHASH: the counter depends on the key (nothing branches on it) */
    unsigned ctr_bytes, direct_iv; /* bs_gcm256_set_profile (0: 4 and 28) */
} bs_gcm256_ctx;

/*
 * The context must be zeroed (static, calloc) or cleared before its first use.
 *
 * Key (cipher->key_len bytes) over cipher, a 32-byte-block core: bs_block_cipher_by_name(
 * "RIJNDAEL-256") for the preferred one at this CPU level, or any entry of bs_block_ciphers.
 * BS_ERR_ARG for NULL or another block length, BS_ERR_KEY_LENGTH for another key length. As
 * bs_ctr_set_key, the caller chooses the core. Computes H = E_K(0^256) and picks
 * bs_ghash256_default().
 */
int bs_gcm256_set_key(bs_gcm256_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                      size_t key_len);
/*
 * Where the data keystream comes from (NULL: the in-process core). Set it before the key, which
 * the source is told; kept across set_key (clear forgets it). E_K(J0), the tag's mask, never comes
 * from it: a faulty producer can garble data but cannot choose the mask of a tag.
 */
void bs_gcm256_set_source(bs_gcm256_ctx *ctx, bs_keystream_source *src);
/*
 * Uses impl for GHASH (NULL: bs_ghash256_default()). Call after set_key; a message under way
 * is dropped (set the IV again).
 */
void bs_gcm256_set_ghash(bs_gcm256_ctx *ctx, const bs_ghash256_impl *impl);
/*
 * The one GCM-256 core's two open parameters (docs/spec/rijndael256-gcm.md, "wGCM"): the counter
 * field's width in bits (a multiple of 8 from 8 to 128; default 32, SP 800-38D's inc32) and the
 * IV length in bytes that gives J0 directly as IV || 0..0 || 1 (1 .. 32 - ctr_bits / 8; default
 * 28). Any other IV length goes by GHASH. Other widths than 32 take the in-process passes (no
 * stitched loop, no daemon source: BS_ERR_ARG with one set); data per IV is limited to
 * min(2^32, 2^ctr_bits) - 2 blocks. Kept across set_key; clear restores the defaults. A message
 * under way needs its IV again. BS_ERR_ARG for a value out of range.
 */
int bs_gcm256_set_profile(bs_gcm256_ctx *ctx, unsigned ctr_bits, size_t direct_iv_len);
/*
 * Starts a message: 28 bytes (the profile's direct length) gives J0 = IV || 00000001, any other
 * length >= 1 goes by GHASH.
 */
int bs_gcm256_set_iv(bs_gcm256_ctx *ctx, const uint8_t *iv, size_t iv_len);
/*
 * set_key then set_iv, as one call (a re-key with each message, as `openssl speed -evp` and
 * many protocols do): where the core can (bs_block_cipher.set_key_encrypt, in-process, the
 * direct IV length), the key schedule runs beside H, E_K(J0) and the first keystream block.
 * Same results and errors as the two calls; a refused call changes nothing.
 */
int bs_gcm256_set_key_iv(bs_gcm256_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                         size_t key_len, const uint8_t *iv, size_t iv_len);
/* Any number of calls, before any data; BS_ERR_DATA_LIMIT at 2^61 bytes. */
int bs_gcm256_aad(bs_gcm256_ctx *ctx, const uint8_t *aad, size_t len);
/*
 * Any split of the stream; in may equal out. One direction per message (else BS_ERR_STATE);
 * BS_ERR_DATA_LIMIT past (2^32 - 2) blocks per IV.
 */
int bs_gcm256_encrypt(bs_gcm256_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len);
int bs_gcm256_decrypt(bs_gcm256_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len);
/*
 * Finishes and writes the first tag_len bytes of the tag (16..32, step 4, else
 * BS_ERR_TAG_LENGTH). The context keeps its key and needs a new IV.
 */
int bs_gcm256_tag(bs_gcm256_ctx *ctx, uint8_t *tag, size_t tag_len);
/* Finishes and compares in constant time: BS_OK or BS_ERR_AUTH. */
int bs_gcm256_verify(bs_gcm256_ctx *ctx, const uint8_t *tag, size_t tag_len);
/* Wipes everything, key schedule included, and the stack the cores used (bs_wipe_stack). */
void bs_gcm256_clear(bs_gcm256_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
