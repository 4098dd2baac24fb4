/*
 * bitslice.h: the public API of the cores.
 *
 * A block cipher is a descriptor (bs_block_cipher) with a key schedule and an encrypt function
 * that takes any number of blocks and runs them through the bitsliced core, `lanes` at a time.
 * Modes (core/modes/) run over any descriptor. Every function here is constant-time in the
 * key and the data; only lengths and counts (public) decide branches.
 */
#ifndef BITSLICE_H
#define BITSLICE_H

#include "bs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Errors: every failure in core/ is one of these; bs_strerror() says it in words. */
typedef enum bs_err {
    BS_OK = 0,
    BS_ERR_KEY_LENGTH = -1,   /* key length does not match the cipher */
    BS_ERR_IV_LENGTH = -2,    /* IV/nonce length not allowed */
    BS_ERR_TAG_LENGTH = -3,   /* tag length not allowed */
    BS_ERR_DATA_LIMIT = -4,   /* the configured or absolute data limit per key/IV is reached */
    BS_ERR_COUNTER_WRAP = -5, /* the counter would wrap */
    BS_ERR_STATE = -6,        /* call out of order (e.g. AAD after data, no key) */
    BS_ERR_AUTH = -7,         /* tag mismatch */
    BS_ERR_ARG = -8,          /* other invalid argument */
} bs_err;

const char *bs_strerror(int err);

/*
 * The largest key schedule any core needs, in bytes (each core checks at compile time). Host
 * cores may store round keys pre-expanded to all-zero/all-one lane masks, hence the size. A
 * build with only the MCU variants (-Dhost_cores=disabled) passes its own, smaller value; every
 * file that uses these types must then see the same value (bs_core_dep carries it).
 */
#ifndef BS_KS_MAX
#define BS_KS_MAX 32768
#endif
/* The longest key, in bytes (SKINNY-128-384's whole tweakey). */
#define BS_KEY_MAX 48
/* The largest block, in bytes. */
#define BS_BLOCK_MAX 32
/* The most blocks any core processes in one bitsliced pass. */
#define BS_LANES_MAX 64
/* The largest batch (bs_block_cipher.batch): the widest x86 cores' 512-block zmm pass. */
#define BS_BATCH_MAX 512

typedef struct bs_key_schedule {
    BS_ALIGN(64) uint64_t w[BS_KS_MAX / 8];
} bs_key_schedule;

/*
 * The CPU level an implementation needs (bs_cpu.h says what each includes and how the one in
 * force is found). Each level includes the one before; BS_CPU_NONE, what a descriptor that
 * names no level holds, is no level at all: no CPU runs it, so it is never chosen.
 */
typedef enum bs_level {
    BS_CPU_NONE = 0,
    BS_CPU_PORTABLE = 1,
    BS_CPU_AESNI = 2,
    BS_CPU_AVX2 = 3,
    BS_CPU_AVX512 = 4,
} bs_level;
/* The highest level. */
#define BS_CPU_TOP BS_CPU_AVX512
/*
 * The x86-64 levels with wide bitsliced cores (ymm and zmm words), best first, as X(name) with
 * the level's name (bs_cpu_level_name). Each cipher folder with wide cores has <cipher>_<name>.c
 * for each: its meson.build compiles them (core/meson.build reads this list through the
 * compiler) and its header declares and lists their descriptors, bs_<cipher>_<name>.
 */
#define BS_X86_WIDE_LEVELS(X) X(avx512) X(avx2)

/*
 * Counter mode over whole blocks, for implementations that have a faster one than
 * encrypt(): out[i] = in[i] ^ E(counter_i), where counter_0 = counter (block_len bytes) and
 * counter_i adds i to its last 4 bytes as a big-endian integer modulo 2^32 (GCM's inc32); the
 * caller handles carries past them (bs_ctr_crypt splits a call where they wrap). in NULL: out
 * receives the keystream. in and out may be equal, need no alignment.
 */
typedef void (*bs_ctr32_fn)(const bs_key_schedule *ks, const uint8_t *counter, const uint8_t *in,
                            uint8_t *out, size_t nblocks);

typedef struct bs_block_cipher {
    const char *name;   /* as in docs/spec/vectors.md: "PRESENT-80", "GIFT-128", "RIJNDAEL-256" */
    const char *impl;   /* implementation strategy, e.g. "bs64" */
    unsigned key_len;   /* bytes */
    unsigned block_len; /* bytes */
    unsigned lanes;     /* blocks per bitsliced pass; encrypt() is fastest for multiples */
    /* Expands key (key_len bytes) into ks. Constant-time. */
    void (*set_key)(bs_key_schedule *ks, const uint8_t *key);
    /* ECB-encrypts nblocks blocks; in and out may be equal, need no alignment. */
    void (*encrypt)(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
    /*
     * The round keys that set_key expanded into ks, back in compact form (one bit per key bit) as
     * 32-bit words, in the layout that the cipher's header documents (the CUDA kernels' key);
     * callers need not know how the schedule stores them. Returns 0, or -1 when nwords is too
     * small. NULL where a core's schedule has no such form. Constant-time.
     */
    int (*export_round_keys)(const bs_key_schedule *ks, uint32_t *out, size_t nwords);
    /* The CPU level the code needs; BS_CPU_NONE (none given) is never chosen (bs_impl_usable). */
    bs_level level;
    /* The implementation's own counter mode where it is faster than encrypt(); NULL: none. */
    bs_ctr32_fn ctr32;
    /*
     * set_key, then encrypt of nblocks blocks under the new key, as one call: where a core can
     * run the first blocks beside its key schedule (a re-key with a short message: GCM's H and
     * E_K(J0)). Same results as the two calls; NULL: none (callers make the two calls).
     */
    void (*set_key_encrypt)(bs_key_schedule *ks, const uint8_t *key, uint8_t *out,
                            const uint8_t *in, size_t nblocks);
    /*
     * Where the core has passes wider than lanes (the x86 wide cores: 256 or 512 blocks, up to
     * BS_BATCH_MAX), the blocks of its widest pass: a call of fewer costs about what that pass
     * does, or more. CTR then computes keystream whole batches at a time and keeps what a call
     * does not use for the next (ctr.h): always once a stream goes on, and on its first call from
     * batch_from blocks on (the fewest for which the whole batch costs no more than the call's
     * own narrower passes, measured on the cores' development machine). 0: no batch (lanes).
     */
    unsigned batch;
    unsigned batch_from;
} bs_block_cipher;

/*
 * Some implementations by name, for programs that link one directly (the installed API). Each
 * cipher folder's header (core/<cipher>/<cipher>.h) declares all of its own, and the registry
 * below finds every one by name: a new implementation is added there, not here.
 */
extern const bs_block_cipher bs_present80_bs64;
extern const bs_block_cipher bs_present128_bs64;
extern const bs_block_cipher bs_gift64_bs64;
extern const bs_block_cipher bs_gift128_bs64;
extern const bs_block_cipher bs_rijndael256_bs64;
/* The 32-bit variants for microcontrollers (one or two blocks in flight), beside their ciphers. */
extern const bs_block_cipher bs_present80_bs32;
extern const bs_block_cipher bs_present128_bs32;
extern const bs_block_cipher bs_gift64_fix32;
extern const bs_block_cipher bs_gift128_fix32;
extern const bs_block_cipher bs_rijndael256_ct32;
/* SPEEDY-r-192 (core/speedy/): 64 lanes on the host, one block in the 6x32 layout on MCUs. */
extern const bs_block_cipher bs_speedy5_bs64;
extern const bs_block_cipher bs_speedy6_bs64;
extern const bs_block_cipher bs_speedy7_bs64;
extern const bs_block_cipher bs_speedy5_bs32;
extern const bs_block_cipher bs_speedy6_bs32;
extern const bs_block_cipher bs_speedy7_bs32;

/*
 * Every compiled-in implementation, NULL-terminated. Several may share a name (x86-64 SIMD
 * cores, the host's 64-lane cores and the 32-bit MCU variants); the preferred one for the build
 * comes first. A SIMD core may need more than this CPU has: check bs_impl_usable (bs_cpu.h)
 * before calling one from this list.
 */
extern const bs_block_cipher *const bs_block_ciphers[];
/*
 * The preferred implementation of a cipher (case-insensitive name) that the CPU level allows
 * (bs_cpu.h: the best the CPU has, capped by $BITSLICE_CPU); NULL if absent.
 */
const bs_block_cipher *bs_block_cipher_by_name(const char *name);
/*
 * The same for any name the OpenSSL provider accepts (docs/spec/algorithms.md): the block
 * cipher of "PRESENT-80-CTR", "PRESENT80-CTR", "PRESENT-CTR" (PRESENT-128), "gift-ctr",
 * "RIJNDAEL256-GCM" ..., or a block-cipher name itself; NULL if none.
 */
const bs_block_cipher *bs_block_cipher_by_any_name(const char *name);

/* Overwrites n bytes in a way the compiler may not remove. */
void bs_wipe(void *p, size_t n);
/*
 * The same for a few hundred bytes and more (a key form, a context): 64-byte stores on x86-64
 * with AVX-512, 32-byte ones with AVX, else bs_wipe. The C library's memset starts such sizes
 * with `rep stosb`, whose start-up cost a re-keyed short GCM message more than the stores.
 */
void bs_wipe_large(void *p, size_t n);
/*
 * Zeroes about `bytes` of the calling thread's stack below the caller's frame: what the cores'
 * frames left there once they returned (spilled cipher state, key-schedule words, keystream).
 * The cores wipe their own state buffers, but not the compiler's spills; this clears both.
 * bs_ctr_clear, bs_gcm256_clear, bs_gcm128_clear, bs_aes_face_clear and the daemon's CPU
 * workers call it with BS_STACK_WIPE_BYTES, so a context's secrets leave the stack when the
 * context is cleared, if it is cleared at about the depth it was used at
 * (tests/unit/test_stack_wipe.c checks every implementation). Writes `bytes` of stack: the caller
 * must have that much to spare.
 */
void bs_wipe_stack(size_t bytes);
/*
 * Zeroes the vector registers that the cores and the C library may leave key, round-key or
 * keystream material in, so that a later signal frame or lazy-binding save (both store the whole
 * register file on the caller's stack) cannot copy it there. x86-64: xmm/ymm/zmm 0-31 and the
 * AVX-512 mask registers, as far as the CPU and OS have them, and the caller-saved general
 * registers (the stitched GCM loop's GHASH reductions run there); elsewhere nothing. The provider
 * calls it before each call that touched a key or data returns. About 10 ns.
 */
void bs_wipe_vector_regs(void);
/*
 * How deep bs_*_clear wipes: the x86-64 cores' deepest call is about 57 KiB (SPEEDY AVX-512); on
 * 64-bit hosts 128 KiB leaves room for other compilers and levels. 32-bit targets (the MCUs)
 * default to none, since their stacks are the application's and often smaller than that; a
 * firmware that knows its stack can define it (the 32-bit cores use under 3 KiB).
 */
#ifndef BS_STACK_WIPE_BYTES
#if defined(UINTPTR_MAX) && UINTPTR_MAX > 0xffffffffu
#define BS_STACK_WIPE_BYTES ((size_t)128 * 1024)
#else
#define BS_STACK_WIPE_BYTES ((size_t)0)
#endif
#endif
/* Constant-time comparison of n bytes: 0 if equal, -1 otherwise. */
int bs_ct_memcmp(const void *a, const void *b, size_t n);

#ifdef __cplusplus
}
#endif

#endif
