/*
 * bsprov.h: what the provider's files share: the provider context, the error path, and the
 * descriptor every algorithm file fills in for the generic glue.
 */
#ifndef BSPROV_H
#define BSPROV_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/evp.h>

#include "bitslice.h"
#include "modes/keystream.h"

/* Provider config key and context parameter: the block limit of 64-bit-block ciphers. */
#define BSPROV_PARAM_LIMIT64_BLOCKS "limit64-blocks"
/* Config keys of the daemon offload (docs/provider.md, "Daemon offload"). */
#define BSPROV_CONF_DAEMON_SOCKET "daemon-socket"
#define BSPROV_CONF_OFFLOAD_THRESHOLD "offload-threshold"
#define BSPROV_CONF_DAEMON_TIMEOUT "daemon-timeout-ms"
#define BSPROV_CONF_DAEMON_CONNECT_TIMEOUT "daemon-connect-timeout-ms"
/*
 * Config key: auto (default: offload only where the daemon path is cheaper, bsd_offload.h),
 * always or never; $BITSLICE_OFFLOAD overrides it. Gettable context params: the decision of the
 * context's last stream ("daemon", "in-process", or "undecided" before any) and its reason;
 * BSPROV_PARAM_OFFLOAD is settable too (auto, always, never: this context, from its next
 * message).
 */
#define BSPROV_CONF_OFFLOAD "offload"
#define BSPROV_PARAM_OFFLOAD "bitslice-offload"
#define BSPROV_PARAM_OFFLOAD_REASON "bitslice-offload-reason"
/* Environment: overrides daemon-socket (a path; "off" or empty: no offload). */
#define BSPROV_ENV_SOCKET "BITSLICE_SOCKET"
/*
 * Config key: the highest CPU level the cores may use (a name of BS_CPU_LEVEL_NAMES,
 * core/bs_cpu.h; $BITSLICE_CPU caps it further). Also a gettable provider param, the level in
 * force, and BSPROV_PARAM_IMPLS lists the implementation each algorithm runs.
 */
#define BSPROV_CONF_CPU "cpu"
#define BSPROV_PARAM_CPU "bitslice-cpu"
#define BSPROV_PARAM_IMPLS "bitslice-implementations"
/* Default offload threshold: below a whole prefetch window the socket round trip cannot pay. */
#define BSPROV_OFFLOAD_THRESHOLD_DEFAULT ((uint64_t)1 << 20)

typedef struct bsprov_ctx {
    const OSSL_CORE_HANDLE *handle;
    uint64_t limit64_blocks;       /* from the config; at most BS_CTR_LIMIT64_DEFAULT */
    char *daemon_socket;           /* resolved path; NULL: no offload (in-process only) */
    uint64_t offload_threshold;    /* bytes under one IV before offload starts */
    int offload_mode;              /* BSD_OFFLOAD_* (bsd_offload.h) */
    int daemon_timeout_ms;         /* per prefetch window; 0: the client's default (5000) */
    int daemon_connect_timeout_ms; /* 0: the client's default (1000) */
    OSSL_ALGORITHM *ciphers;       /* the algorithms whose cores are compiled in */
    char (*descriptions)[96];      /* per algorithm: "NAME, implementation IMPL" */
    char impls[512];               /* "NAME=IMPL ..." for BSPROV_PARAM_IMPLS */
    char buildinfo[768];
    /*
     * A refused config value. OpenSSL 3.0 drops errors raised while a provider starts, so the
     * provider starts with status 0 and every new context fails with this message instead.
     */
    char config_error[256];
} bsprov_ctx;

/* Reason codes of the provider's error library (texts in prov.c). */
enum {
    BSPROV_R_KEY_LENGTH = 1,
    BSPROV_R_IV_LENGTH,
    BSPROV_R_TAG_LENGTH,
    BSPROV_R_DATA_LIMIT,
    BSPROV_R_COUNTER_WRAP,
    BSPROV_R_STATE,
    BSPROV_R_AUTH,
    BSPROV_R_ARG,
    BSPROV_R_CONFIG,
    BSPROV_R_BUFFER,
    BSPROV_R_ALLOC,
};

/* Raises an error in the provider's library; fmt gives the full sentence. */
void bsprov_raise(const bsprov_ctx *prov, int reason, const char *file, int line, const char *func,
                  const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#define BSPROV_RAISE(prov, reason, ...)                                                            \
    bsprov_raise((prov), (reason), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* 1 if the provider may create contexts; otherwise raises the config error. */
int bsprov_usable(const bsprov_ctx *prov);
/* The reason code for a core error. */
int bsprov_reason_of(int bs_err);

/* What an algorithm file tells the glue. */
typedef struct bsprov_cipher_info {
    const char *name;  /* canonical name, used in error messages */
    const char *names; /* OSSL_ALGORITHM names: canonical first, then aliases */
    const char *core;  /* bs_block_cipher_by_name() name */
    unsigned mode;     /* EVP_CIPH_CTR_MODE or EVP_CIPH_GCM_MODE */
    size_t key_len;
    size_t iv_len; /* default IV length */
} bsprov_cipher_info;

typedef struct bsprov_algorithm {
    const bsprov_cipher_info *info;
    const OSSL_DISPATCH *dispatch;
} bsprov_algorithm;

/* Generic glue shared by every cipher (ciphercommon.c). */
int bsprov_cipher_get_params(const bsprov_cipher_info *info, OSSL_PARAM params[]);
OSSL_FUNC_cipher_gettable_params_fn bsprov_cipher_gettable_params;

/*
 * A provider context holds its core mode context (bs_ctr_ctx, bs_gcm256_ctx), whose key
 * schedule is 64-byte aligned, which OPENSSL_zalloc does not promise: bsprov_cctx_alloc gives n
 * zeroed bytes so aligned (NULL: no memory), bsprov_cctx_free cleanses them and frees (accepts
 * NULL). ciphercommon.c.
 */
void *bsprov_cctx_alloc(size_t n);
void bsprov_cctx_free(void *p, size_t n);

/*
 * The keystream source a new context pulls from (source.c): the daemon's when
 * prov->daemon_socket is set, else NULL (the in-process core). The context owns it: it gives
 * it to the core context before the key, copies it for dupctx and closes it when freed. open
 * and copy return 1, or 0 on allocation failure (*src, *dst NULL); copy copies NULL as NULL,
 * close accepts NULL.
 */
int bsprov_source_open(const bsprov_ctx *prov, bs_keystream_source **src);
int bsprov_source_copy(const bs_keystream_source *src, bs_keystream_source **dst);
void bsprov_source_close(bs_keystream_source *src);
/*
 * Sets the caller's BSPROV_PARAM_OFFLOAD and BSPROV_PARAM_OFFLOAD_REASON params (each NULL when
 * not asked for; bsprov_params_find) to src's last decision (a NULL src: in-process, no daemon
 * configured or offload=never). 0: a param cannot take it.
 */
int bsprov_source_get_params(const bsprov_ctx *prov, const bs_keystream_source *src,
                             const OSSL_PARAM *what, const OSSL_PARAM *why);
/*
 * The settable BSPROV_PARAM_OFFLOAD param p (NULL: not given): checks it (auto, always or
 * never; else raises an error naming alg and returns 0) and, with apply, sets src's mode for
 * its next message (nothing without a source: no daemon socket configured).
 */
int bsprov_source_set_params(const bsprov_ctx *prov, const char *alg,
                             const bs_keystream_source *src, const OSSL_PARAM *p, int apply);
#define BSPROV_OFFLOAD_SETTABLE OSSL_PARAM_utf8_string(BSPROV_PARAM_OFFLOAD, NULL, 0)
#define BSPROV_OFFLOAD_GETTABLE                                                                    \
    OSSL_PARAM_utf8_ptr(BSPROV_PARAM_OFFLOAD, NULL, 0),                                            \
        OSSL_PARAM_utf8_ptr(BSPROV_PARAM_OFFLOAD_REASON, NULL, 0)

/*
 * What newctx and the params of both kinds share (ciphercommon.c). bsprov_newctx_core: the core
 * info names, or NULL when the provider is unusable or the core is not compiled in or (block_len
 * not 0) has another block length, with the error raised. bsprov_newctx_nomem raises the
 * allocation error, frees a context of n bytes (bsprov_cctx_free) and returns NULL.
 * bsprov_set_octets sets an octet_string or octet_ptr param, as OpenSSL's ciphers do for IVs.
 * bsprov_params_find looks up n keys in one pass over params: found[i] is the first param named
 * names[i], or NULL (an EVP call passes one or two params, and a lookup per key compared each
 * with every key: `openssl speed -evp` re-inits every message).
 * bsprov_set_size sets p to v where p is not NULL (0: it cannot take v).
 */
const bs_block_cipher *bsprov_newctx_core(const bsprov_ctx *prov, const bsprov_cipher_info *info,
                                          unsigned block_len);
void *bsprov_newctx_nomem(const bsprov_ctx *prov, const bsprov_cipher_info *info, void *ctx,
                          size_t n);
int bsprov_set_octets(OSSL_PARAM *p, const void *data, size_t len);
void bsprov_params_find(const OSSL_PARAM params[], const char *const names[], size_t n,
                        const OSSL_PARAM *found[]);
int bsprov_set_size(const OSSL_PARAM *p, size_t v);

/* Generic CTR glue (ciphercommon.c). */
void *bsprov_ctr_newctx(void *provctx, const bsprov_cipher_info *info);
const OSSL_PARAM *bsprov_ctr_settable_ctx_params(const bsprov_cipher_info *info);
OSSL_FUNC_cipher_freectx_fn bsprov_ctr_freectx;
OSSL_FUNC_cipher_dupctx_fn bsprov_ctr_dupctx;
OSSL_FUNC_cipher_encrypt_init_fn bsprov_ctr_einit;
OSSL_FUNC_cipher_decrypt_init_fn bsprov_ctr_dinit;
OSSL_FUNC_cipher_update_fn bsprov_ctr_update;
OSSL_FUNC_cipher_final_fn bsprov_ctr_final;
OSSL_FUNC_cipher_cipher_fn bsprov_ctr_cipher;
OSSL_FUNC_cipher_get_ctx_params_fn bsprov_ctr_get_ctx_params;
OSSL_FUNC_cipher_set_ctx_params_fn bsprov_ctr_set_ctx_params;
OSSL_FUNC_cipher_gettable_ctx_params_fn bsprov_ctr_gettable_ctx_params;

/* Generic GCM glue (ciphercommon_gcm.c). */
void *bsprov_gcm_newctx(void *provctx, const bsprov_cipher_info *info);
OSSL_FUNC_cipher_freectx_fn bsprov_gcm_freectx;
OSSL_FUNC_cipher_dupctx_fn bsprov_gcm_dupctx;
OSSL_FUNC_cipher_encrypt_init_fn bsprov_gcm_einit;
OSSL_FUNC_cipher_decrypt_init_fn bsprov_gcm_dinit;
OSSL_FUNC_cipher_update_fn bsprov_gcm_update;
OSSL_FUNC_cipher_final_fn bsprov_gcm_final;
OSSL_FUNC_cipher_cipher_fn bsprov_gcm_cipher;
OSSL_FUNC_cipher_get_ctx_params_fn bsprov_gcm_get_ctx_params;
OSSL_FUNC_cipher_set_ctx_params_fn bsprov_gcm_set_ctx_params;
OSSL_FUNC_cipher_gettable_ctx_params_fn bsprov_gcm_gettable_ctx_params;
OSSL_FUNC_cipher_settable_ctx_params_fn bsprov_gcm_settable_ctx_params;

/*
 * The entry points of a kind (ctr, gcm) that touch a key or data, defined over the kind's
 * KIND_NAME_unwiped functions: each returns with no key, round key or keystream left in a vector
 * register, where a signal frame or lazy binding would copy it onto the caller's stack (review
 * F5; tests/provider/test_regs.c).
 */
#define BSPROV_WIPED_ENTRY_POINTS(kind)                                                            \
    void bsprov_##kind##_freectx(void *vctx)                                                       \
    {                                                                                              \
        kind##_freectx_unwiped(vctx);                                                              \
        bs_wipe_vector_regs();                                                                     \
    }                                                                                              \
    void *bsprov_##kind##_dupctx(void *vctx)                                                       \
    {                                                                                              \
        void *r = kind##_dupctx_unwiped(vctx);                                                     \
        bs_wipe_vector_regs();                                                                     \
        return r;                                                                                  \
    }                                                                                              \
    int bsprov_##kind##_einit(void *vctx, const unsigned char *key, size_t keylen,                 \
                              const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])    \
    {                                                                                              \
        int r = kind##_einit_unwiped(vctx, key, keylen, iv, ivlen, params);                        \
        bs_wipe_vector_regs();                                                                     \
        return r;                                                                                  \
    }                                                                                              \
    int bsprov_##kind##_dinit(void *vctx, const unsigned char *key, size_t keylen,                 \
                              const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])    \
    {                                                                                              \
        int r = kind##_dinit_unwiped(vctx, key, keylen, iv, ivlen, params);                        \
        bs_wipe_vector_regs();                                                                     \
        return r;                                                                                  \
    }                                                                                              \
    int bsprov_##kind##_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,       \
                               const unsigned char *in, size_t inl)                                \
    {                                                                                              \
        int r = kind##_update_unwiped(vctx, out, outl, outsize, in, inl);                          \
        bs_wipe_vector_regs();                                                                     \
        return r;                                                                                  \
    }                                                                                              \
    int bsprov_##kind##_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)        \
    {                                                                                              \
        int r = kind##_final_unwiped(vctx, out, outl, outsize);                                    \
        bs_wipe_vector_regs();                                                                     \
        return r;                                                                                  \
    }                                                                                              \
    int bsprov_##kind##_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,       \
                               const unsigned char *in, size_t inl)                                \
    {                                                                                              \
        int r = kind##_cipher_unwiped(vctx, out, outl, outsize, in, inl);                          \
        bs_wipe_vector_regs();                                                                     \
        return r;                                                                                  \
    }

#define BSPROV_FN(id, fn)                                                                          \
    {                                                                                              \
        OSSL_FUNC_CIPHER_##id, (void (*)(void))(fn)                                                \
    }

/*
 * Defines `const bsprov_algorithm sym`: the generic functions of its kind (ctr or gcm) plus the
 * wrappers that must know the algorithm. OpenSSL 3.0 passes no provctx to get_params and may
 * pass no context to settable_ctx_params (the CTR list differs for 64-bit blocks).
 */
#define BSPROV_ALGORITHM_COMMON(sym, kind, mode_, canon, names_, core_, key_len_, iv_len_)         \
    static const bsprov_cipher_info sym##_info = {canon, names_, core_, mode_, key_len_, iv_len_}; \
    static void *sym##_newctx(void *provctx)                                                       \
    {                                                                                              \
        return bsprov_##kind##_newctx(provctx, &sym##_info);                                       \
    }                                                                                              \
    static int sym##_get_params(OSSL_PARAM params[])                                               \
    {                                                                                              \
        return bsprov_cipher_get_params(&sym##_info, params);                                      \
    }

#define BSPROV_GENERIC_FUNCTIONS(kind)                                                             \
    BSPROV_FN(FREECTX, bsprov_##kind##_freectx), BSPROV_FN(DUPCTX, bsprov_##kind##_dupctx),        \
        BSPROV_FN(ENCRYPT_INIT, bsprov_##kind##_einit),                                            \
        BSPROV_FN(DECRYPT_INIT, bsprov_##kind##_dinit), BSPROV_FN(UPDATE, bsprov_##kind##_update), \
        BSPROV_FN(FINAL, bsprov_##kind##_final), BSPROV_FN(CIPHER, bsprov_##kind##_cipher),        \
        BSPROV_FN(GET_CTX_PARAMS, bsprov_##kind##_get_ctx_params),                                 \
        BSPROV_FN(SET_CTX_PARAMS, bsprov_##kind##_set_ctx_params),                                 \
        BSPROV_FN(GETTABLE_CTX_PARAMS, bsprov_##kind##_gettable_ctx_params),                       \
        BSPROV_FN(GETTABLE_PARAMS, bsprov_cipher_gettable_params)

#define BSPROV_CTR_ALGORITHM(sym, canon, names_, core_, key_len_, iv_len_)                         \
    BSPROV_ALGORITHM_COMMON(sym, ctr, EVP_CIPH_CTR_MODE, canon, names_, core_, key_len_, iv_len_)  \
    static const OSSL_PARAM *sym##_settable(void *cctx, void *provctx)                             \
    {                                                                                              \
        (void)cctx;                                                                                \
        (void)provctx;                                                                             \
        return bsprov_ctr_settable_ctx_params(&sym##_info);                                        \
    }                                                                                              \
    static const OSSL_DISPATCH sym##_dispatch[] = {                                                \
        BSPROV_FN(NEWCTX, sym##_newctx),                                                           \
        BSPROV_FN(GET_PARAMS, sym##_get_params),                                                   \
        BSPROV_FN(SETTABLE_CTX_PARAMS, sym##_settable),                                            \
        BSPROV_GENERIC_FUNCTIONS(ctr),                                                             \
        {0, NULL},                                                                                 \
    };                                                                                             \
    const bsprov_algorithm sym = {&sym##_info, sym##_dispatch}

#define BSPROV_GCM_ALGORITHM(sym, canon, names_, core_, key_len_, iv_len_)                         \
    BSPROV_ALGORITHM_COMMON(sym, gcm, EVP_CIPH_GCM_MODE, canon, names_, core_, key_len_, iv_len_)  \
    static const OSSL_DISPATCH sym##_dispatch[] = {                                                \
        BSPROV_FN(NEWCTX, sym##_newctx),                                                           \
        BSPROV_FN(GET_PARAMS, sym##_get_params),                                                   \
        BSPROV_FN(SETTABLE_CTX_PARAMS, bsprov_gcm_settable_ctx_params),                            \
        BSPROV_GENERIC_FUNCTIONS(gcm),                                                             \
        {0, NULL},                                                                                 \
    };                                                                                             \
    const bsprov_algorithm sym = {&sym##_info, sym##_dispatch}

/*
 * A cipher's file (cipher_<name>.c) lists its algorithms in the order the provider offers them:
 * BSPROV_CIPHER(name, &algorithm, ...) defines bsprov_<name>_algorithms, NULL-terminated.
 * provider/meson.build names the files (bsprov_ciphers) and joins their lists in that order
 * (bsprov_ciphers.h, made by the build, for prov.c): a new cipher is its file and that one line.
 */
#define BSPROV_CIPHER(name, ...)                                                                   \
    const bsprov_algorithm *const bsprov_##name##_algorithms[] = {__VA_ARGS__, NULL}

#endif
