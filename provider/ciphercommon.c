/*
 * ciphercommon.c: the generic glue of every CTR cipher (params, init, streaming update,
 * dup), written once over the core's bs_ctr_ctx, plus what CTR and GCM share: the algorithm
 * params and the contexts' memory and keystream source.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "bsprov.h"
#include "modes/ctr.h"

/*
 * The core context owns position, num, the read-ahead, the block count and the limit; it pulls
 * keystream from src, the source chosen at newctx (bsprov_source_open, source.c), as OpenSSL's
 * contexts hold their hw.
 */
typedef struct bsprov_ctr_cctx {
    bs_ctr_ctx c;             /* 64-byte aligned: the context is (bsprov_cctx_alloc) */
    bs_keystream_source *src; /* owned; NULL: the in-process core */
    const bsprov_ctx *prov;
    const bsprov_cipher_info *info;
    const bs_block_cipher *core;
    uint8_t iv[16];
    uint8_t updated_iv[BS_BLOCK_MAX]; /* what an octet_ptr updated-iv points at */
    uint64_t limit;                   /* blocks per key (a key-only re-init keeps the count) */
    unsigned padding;
    int enc, key_set, iv_set;
} bsprov_ctr_cctx;

/* ---- the contexts' memory, shared with GCM ---- */

void *bsprov_cctx_alloc(size_t n)
{
    const size_t rounded = (n + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, rounded);
    if (p != NULL)
        memset(p, 0, rounded);
    return p;
}

void bsprov_cctx_free(void *p, size_t n)
{
    if (p == NULL)
        return;
    OPENSSL_cleanse(p, n);
    free(p);
}

/* ---- algorithm params, shared with GCM ---- */

static const OSSL_PARAM cipher_known_gettable_params[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
    OSSL_PARAM_END,
};

const OSSL_PARAM *bsprov_cipher_gettable_params(void *provctx)
{
    (void)provctx;
    return cipher_known_gettable_params;
}

int bsprov_cipher_get_params(const bsprov_cipher_info *info, OSSL_PARAM params[])
{
    const int aead = info->mode == EVP_CIPH_GCM_MODE;
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != NULL &&
        !OSSL_PARAM_set_uint(p, info->mode))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, info->key_len))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != NULL &&
        !OSSL_PARAM_set_size_t(p, info->iv_len))
        return 0;
    /* Both modes are stream modes to EVP: any length in, the same length out. */
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != NULL &&
        !OSSL_PARAM_set_size_t(p, 1))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) != NULL &&
        !OSSL_PARAM_set_int(p, aead))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) != NULL &&
        !OSSL_PARAM_set_int(p, aead))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) != NULL && !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) != NULL &&
        !OSSL_PARAM_set_int(p, 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) != NULL &&
        !OSSL_PARAM_set_int(p, 0))
        return 0;
    return 1;
}

/* ---- CTR ---- */

static int is_block64(const bsprov_ctr_cctx *ctx)
{
    return ctx->core->block_len == 8;
}

/* Reports a core error in words, with the algorithm's name and what can be done. */
static int ctr_fail(const bsprov_ctr_cctx *ctx, int rc)
{
    const char *name = ctx->info->name;
    switch (rc) {
    case BS_ERR_DATA_LIMIT:
        BSPROV_RAISE(ctx->prov, BSPROV_R_DATA_LIMIT,
                     "%s: data limit reached: at most %llu blocks of %u bytes per key "
                     "(" BSPROV_PARAM_LIMIT64_BLOCKS "); use a new key",
                     name, (unsigned long long)ctx->limit, ctx->core->block_len);
        break;
    case BS_ERR_COUNTER_WRAP:
        BSPROV_RAISE(ctx->prov, BSPROV_R_COUNTER_WRAP, "%s: the counter would wrap; use a new IV",
                     name);
        break;
    default:
        BSPROV_RAISE(ctx->prov, bsprov_reason_of(rc), "%s: %s", name, bs_strerror(rc));
        break;
    }
    return 0;
}

const bs_block_cipher *bsprov_newctx_core(const bsprov_ctx *prov, const bsprov_cipher_info *info,
                                          unsigned block_len)
{
    const bs_block_cipher *core = bs_block_cipher_by_name(info->core);
    if (!bsprov_usable(prov))
        return NULL;
    if (core == NULL || (block_len != 0 && core->block_len != block_len)) {
        BSPROV_RAISE(prov, BSPROV_R_ARG, "%s: core %s is not compiled in", info->name, info->core);
        return NULL;
    }
    return core;
}

void *bsprov_newctx_nomem(const bsprov_ctx *prov, const bsprov_cipher_info *info, void *ctx,
                          size_t n)
{
    BSPROV_RAISE(prov, BSPROV_R_ALLOC, "%s: out of memory", info->name);
    bsprov_cctx_free(ctx, n);
    return NULL;
}

void bsprov_params_find(const OSSL_PARAM params[], const char *const names[], size_t n,
                        const OSSL_PARAM *found[])
{
    for (size_t i = 0; i < n; i++)
        found[i] = NULL;
    for (const OSSL_PARAM *p = params; p != NULL && p->key != NULL; p++)
        for (size_t i = 0; i < n; i++)
            if (found[i] == NULL && p->key[0] == names[i][0] && strcmp(p->key, names[i]) == 0) {
                found[i] = p;
                break;
            }
}

int bsprov_set_size(const OSSL_PARAM *p, size_t v)
{
    /* A get call's params are the caller's to write (OSSL_PARAM_locate drops const too). */
    return p == NULL || OSSL_PARAM_set_size_t((OSSL_PARAM *)p, v);
}

int bsprov_set_octets(OSSL_PARAM *p, const void *data, size_t len)
{
    if (p->data_type == OSSL_PARAM_OCTET_PTR)
        return OSSL_PARAM_set_octet_ptr(p, data, len);
    return OSSL_PARAM_set_octet_string(p, data, len);
}

void *bsprov_ctr_newctx(void *provctx, const bsprov_cipher_info *info)
{
    const bsprov_ctx *prov = (const bsprov_ctx *)provctx;
    const bs_block_cipher *core = bsprov_newctx_core(prov, info, 0);
    bsprov_ctr_cctx *ctx;

    if (core == NULL)
        return NULL;
    if ((ctx = bsprov_cctx_alloc(sizeof *ctx)) == NULL || !bsprov_source_open(prov, &ctx->src))
        return bsprov_newctx_nomem(prov, info, ctx, sizeof *ctx);
    ctx->prov = prov;
    ctx->info = info;
    ctx->core = core;
    ctx->limit = core->block_len == 8 ? prov->limit64_blocks : UINT64_MAX;
    bs_ctr_set_source(&ctx->c, ctx->src);
    return ctx;
}

static void ctr_freectx_unwiped(void *vctx)
{
    bsprov_ctr_cctx *ctx = (bsprov_ctr_cctx *)vctx;
    if (ctx == NULL)
        return;
    bsprov_source_close(ctx->src);
    bs_ctr_clear(&ctx->c);
    bsprov_cctx_free(ctx, sizeof *ctx);
}

/*
 * The copy gets a copy of the source, which starts afresh where the copy is asked to, and of the
 * core context what bs_ctr_copy gives: the stream goes on from the same place, but of the
 * keystream read ahead only a partly used block is copied (the copy computes the rest again).
 */
static void *ctr_dupctx_unwiped(void *vctx)
{
    const bsprov_ctr_cctx *src = (const bsprov_ctr_cctx *)vctx;
    bsprov_ctr_cctx *ctx = bsprov_cctx_alloc(sizeof *ctx);
    if (ctx == NULL)
        return NULL;
    bs_ctr_copy(&ctx->c, &src->c);
    _Static_assert(offsetof(bsprov_ctr_cctx, c) == 0, "the core context comes first");
    memcpy((uint8_t *)ctx + sizeof ctx->c, (const uint8_t *)src + sizeof src->c,
           sizeof *ctx - sizeof ctx->c);
    if (!bsprov_source_copy(src->src, &ctx->src)) {
        bsprov_cctx_free(ctx, sizeof *ctx);
        return NULL;
    }
    bs_ctr_set_source(&ctx->c, ctx->src);
    return ctx;
}

/* The keys set_ctx_params (and init's params) understand, in the order of ctr_set_names. */
enum { CS_KEYLEN, CS_IVLEN, CS_PADDING, CS_LIMIT64, CS_NUM, CS_OFFLOAD, CS_N };
static const char *const ctr_set_names[CS_N] = {
    OSSL_CIPHER_PARAM_KEYLEN,    OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_PADDING,
    BSPROV_PARAM_LIMIT64_BLOCKS, OSSL_CIPHER_PARAM_NUM,   BSPROV_PARAM_OFFLOAD};

static int ctr_check_params(const bsprov_ctr_cctx *ctx, const OSSL_PARAM *const f[CS_N], int ready);
static int ctr_apply_params(bsprov_ctr_cctx *ctx, const OSSL_PARAM *const f[CS_N]);

/*
 * As OpenSSL's CTR: a new IV restarts the stream there; an init without one keeps the counter
 * and moves to the next block boundary (num = 0), under the new key if one is given. Nothing is
 * changed until every length and param has been checked.
 */
static int ctr_init(bsprov_ctr_cctx *ctx, int enc, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    const bsprov_cipher_info *info = ctx->info;
    int rc;

    if (key != NULL && keylen != info->key_len) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_KEY_LENGTH, "%s: key length %zu not allowed (%zu)",
                     info->name, keylen, info->key_len);
        return 0;
    }
    if (iv != NULL && ivlen != info->iv_len) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_IV_LENGTH, "%s: IV length %zu not allowed (%zu)",
                     info->name, ivlen, info->iv_len);
        return 0;
    }
    const OSSL_PARAM *f[CS_N];
    bsprov_params_find(params, ctr_set_names, CS_N, f);
    if (!ctr_check_params(ctx, f, (ctx->key_set || key != NULL) && (ctx->iv_set || iv != NULL)))
        return 0;

    const int running = ctx->key_set && ctx->iv_set;
    if (key != NULL) {
        /*
         * A key-only re-init continues the stream, and so its count: the blocks so far are
         * charged to the new key (bs_ctr_rekey). A key with an IV starts afresh.
         */
        rc = running && iv == NULL ? bs_ctr_rekey(&ctx->c, ctx->core, key, keylen)
                                   : bs_ctr_set_key(&ctx->c, ctx->core, key, keylen);
        if (rc != BS_OK)
            return ctr_fail(ctx, rc);
        bs_ctr_set_block_limit(&ctx->c, ctx->limit);
        ctx->key_set = 1;
    } else if (running && iv == NULL) {
        if ((rc = bs_ctr_set_num(&ctx->c, 0)) != BS_OK)
            return ctr_fail(ctx, rc);
    }
    if (iv != NULL) {
        memcpy(ctx->iv, iv, ivlen);
        ctx->iv_set = 1;
    }
    /* A new IV, or one that came before the first key: the stream starts at it now. */
    if (ctx->key_set && (iv != NULL || (key != NULL && ctx->iv_set && !running)) &&
        (rc = bs_ctr_set_iv(&ctx->c, ctx->iv, info->iv_len)) != BS_OK)
        return ctr_fail(ctx, rc);
    ctx->enc = enc;
    return ctr_apply_params(ctx, f);
}

static int ctr_einit_unwiped(void *vctx, const unsigned char *key, size_t keylen,
                             const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return ctr_init((bsprov_ctr_cctx *)vctx, 1, key, keylen, iv, ivlen, params);
}

static int ctr_dinit_unwiped(void *vctx, const unsigned char *key, size_t keylen,
                             const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return ctr_init((bsprov_ctr_cctx *)vctx, 0, key, keylen, iv, ivlen, params);
}

static int ctr_ready(const bsprov_ctr_cctx *ctx)
{
    if (!ctx->key_set) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_STATE, "%s: no key set", ctx->info->name);
        return 0;
    }
    if (!ctx->iv_set) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_STATE, "%s: no IV set", ctx->info->name);
        return 0;
    }
    return 1;
}

static int ctr_update_unwiped(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                              const unsigned char *in, size_t inl)
{
    bsprov_ctr_cctx *ctx = (bsprov_ctr_cctx *)vctx;
    int rc;

    if (!ctr_ready(ctx))
        return 0;
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (outsize < inl || out == NULL || in == NULL) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_BUFFER, "%s: output buffer of %zu bytes for %zu bytes",
                     ctx->info->name, out == NULL ? 0 : outsize, inl);
        return 0;
    }
    if ((rc = bs_ctr_crypt(&ctx->c, out, in, inl)) != BS_OK)
        return ctr_fail(ctx, rc);
    *outl = inl;
    return 1;
}

static int ctr_final_unwiped(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    (void)out;
    (void)outsize;
    if (!ctr_ready((bsprov_ctr_cctx *)vctx))
        return 0;
    *outl = 0;
    return 1;
}

static int ctr_cipher_unwiped(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                              const unsigned char *in, size_t inl)
{
    return ctr_update_unwiped(vctx, out, outl, outsize, in, inl);
}

static const OSSL_PARAM ctr_known_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_uint64(BSPROV_PARAM_LIMIT64_BLOCKS, NULL),
    BSPROV_OFFLOAD_GETTABLE,
    OSSL_PARAM_END,
};

const OSSL_PARAM *bsprov_ctr_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    return ctr_known_gettable_ctx_params;
}

static const OSSL_PARAM ctr_known_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    BSPROV_OFFLOAD_SETTABLE,
    OSSL_PARAM_END,
};

static const OSSL_PARAM ctr64_known_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_uint64(BSPROV_PARAM_LIMIT64_BLOCKS, NULL),
    BSPROV_OFFLOAD_SETTABLE,
    OSSL_PARAM_END,
};

const OSSL_PARAM *bsprov_ctr_settable_ctx_params(const bsprov_cipher_info *info)
{
    const bs_block_cipher *core = bs_block_cipher_by_name(info->core);
    return core != NULL && core->block_len == 8 ? ctr64_known_settable_ctx_params
                                                : ctr_known_settable_ctx_params;
}

int bsprov_ctr_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    bsprov_ctr_cctx *ctx = (bsprov_ctr_cctx *)vctx;
    const char *name = ctx->info->name;
    enum {
        G_KEYLEN,
        G_IVLEN,
        G_PADDING,
        G_LIMIT64,
        G_NUM,
        G_IV,
        G_UPDATED_IV,
        G_OFFLOAD,
        G_WHY,
        G_N
    };
    static const char *const names[G_N] = {
        OSSL_CIPHER_PARAM_KEYLEN,     OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_PADDING,
        BSPROV_PARAM_LIMIT64_BLOCKS,  OSSL_CIPHER_PARAM_NUM,   OSSL_CIPHER_PARAM_IV,
        OSSL_CIPHER_PARAM_UPDATED_IV, BSPROV_PARAM_OFFLOAD,    BSPROV_PARAM_OFFLOAD_REASON};
    const OSSL_PARAM *f[G_N];
    bsprov_params_find(params, names, G_N, f);
    /* A get call's params are the caller's to write. */
    OSSL_PARAM *p;

    if (!bsprov_set_size(f[G_KEYLEN], ctx->info->key_len) ||
        !bsprov_set_size(f[G_IVLEN], ctx->info->iv_len))
        return 0;
    if ((p = (OSSL_PARAM *)f[G_PADDING]) != NULL && !OSSL_PARAM_set_uint(p, ctx->padding))
        return 0;
    if ((p = (OSSL_PARAM *)f[G_LIMIT64]) != NULL && !OSSL_PARAM_set_uint64(p, ctx->limit))
        return 0;
    if (!bsprov_source_get_params(ctx->prov, ctx->src, f[G_OFFLOAD], f[G_WHY]))
        return 0;

    OSSL_PARAM *pnum = (OSSL_PARAM *)f[G_NUM];
    OSSL_PARAM *piv = (OSSL_PARAM *)f[G_IV];
    OSSL_PARAM *pupd = (OSSL_PARAM *)f[G_UPDATED_IV];
    if (pnum == NULL && piv == NULL && pupd == NULL)
        return 1;

    /* Before key and IV, the position is the start of the (possibly unset) IV. */
    uint8_t counter[BS_BLOCK_MAX] = {0};
    unsigned num = 0;
    const size_t bl = ctx->core->block_len;
    if (ctx->key_set && ctx->iv_set)
        bs_ctr_position(&ctx->c, counter, &num);
    else
        memcpy(counter, ctx->iv, ctx->info->iv_len);

    if (pnum != NULL && !OSSL_PARAM_set_uint(pnum, num))
        return 0;
    if (piv != NULL && !bsprov_set_octets(piv, ctx->iv, ctx->info->iv_len)) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_BUFFER, "%s: the IV is %zu bytes", name,
                     ctx->info->iv_len);
        return 0;
    }
    /* For Rijndael-256 the next counter block is 32 bytes (IV || block count). */
    memcpy(ctx->updated_iv, counter, bl);
    OPENSSL_cleanse(counter, sizeof counter);
    if (pupd != NULL && !bsprov_set_octets(pupd, ctx->updated_iv, bl)) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_BUFFER,
                     "%s: updated-iv is the %zu-byte counter block; buffer of %zu bytes", name, bl,
                     pupd->data_size);
        return 0;
    }
    return 1;
}

/* Every check of set_ctx_params, changing nothing; ready: key and IV will be set. */
static int ctr_check_params(const bsprov_ctr_cctx *ctx, const OSSL_PARAM *const f[CS_N], int ready)
{
    const bsprov_cipher_info *info = ctx->info;
    const OSSL_PARAM *p;

    if ((p = f[CS_KEYLEN]) != NULL) {
        size_t v;
        if (!OSSL_PARAM_get_size_t(p, &v) || v != info->key_len) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_KEY_LENGTH, "%s: key length %zu not allowed (%zu)",
                         info->name, OSSL_PARAM_get_size_t(p, &v) ? v : 0, info->key_len);
            return 0;
        }
    }
    if ((p = f[CS_IVLEN]) != NULL) {
        size_t v;
        if (!OSSL_PARAM_get_size_t(p, &v) || v != info->iv_len) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_IV_LENGTH, "%s: IV length %zu not allowed (%zu)",
                         info->name, OSSL_PARAM_get_size_t(p, &v) ? v : 0, info->iv_len);
            return 0;
        }
    }
    if ((p = f[CS_PADDING]) != NULL) {
        unsigned v;
        if (!OSSL_PARAM_get_uint(p, &v)) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_ARG, "%s: padding must be an unsigned integer",
                         info->name);
            return 0;
        }
    }
    if ((p = f[CS_LIMIT64]) != NULL && is_block64(ctx)) {
        uint64_t v;
        if (!OSSL_PARAM_get_uint64(p, &v) || v == 0 || v > ctx->prov->limit64_blocks) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_ARG,
                         "%s: " BSPROV_PARAM_LIMIT64_BLOCKS
                         " must be 1..%llu (the provider's limit)",
                         info->name, (unsigned long long)ctx->prov->limit64_blocks);
            return 0;
        }
    }
    if (!bsprov_source_set_params(ctx->prov, info->name, ctx->src, f[CS_OFFLOAD], 0))
        return 0;
    if ((p = f[CS_NUM]) != NULL) {
        unsigned v;
        if (!OSSL_PARAM_get_uint(p, &v) || v >= ctx->core->block_len) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_ARG, "%s: num must be below the block length %u",
                         info->name, ctx->core->block_len);
            return 0;
        }
        if (!ready)
            return ctr_ready(ctx);
    }
    return 1;
}

/* Applies params already checked by ctr_check_params. */
static int ctr_apply_params(bsprov_ctr_cctx *ctx, const OSSL_PARAM *const f[CS_N])
{
    const OSSL_PARAM *p;
    int rc;

    if ((p = f[CS_PADDING]) != NULL)
        OSSL_PARAM_get_uint(p, &ctx->padding);
    bsprov_source_set_params(ctx->prov, ctx->info->name, ctx->src, f[CS_OFFLOAD], 1);
    if ((p = f[CS_LIMIT64]) != NULL && is_block64(ctx)) {
        OSSL_PARAM_get_uint64(p, &ctx->limit);
        if (ctx->key_set)
            bs_ctr_set_block_limit(&ctx->c, ctx->limit);
    }
    if ((p = f[CS_NUM]) != NULL) {
        unsigned v = 0;
        OSSL_PARAM_get_uint(p, &v);
        if ((rc = bs_ctr_set_num(&ctx->c, v)) != BS_OK)
            return ctr_fail(ctx, rc);
    }
    return 1;
}

int bsprov_ctr_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    bsprov_ctr_cctx *ctx = (bsprov_ctr_cctx *)vctx;
    const OSSL_PARAM *f[CS_N];
    bsprov_params_find(params, ctr_set_names, CS_N, f);
    if (!ctr_check_params(ctx, f, ctx->key_set && ctx->iv_set))
        return 0;
    return ctr_apply_params(ctx, f);
}

BSPROV_WIPED_ENTRY_POINTS(ctr)
