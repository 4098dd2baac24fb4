/*
 * ciphercommon_gcm.c: the generic AEAD glue (OpenSSL's GCM state machine: IV length, AAD, data,
 * final, tag) over the core's bs_gcm256_ctx.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "bsprov.h"
#include "modes/gcm256.h"

#define GCM_IV_MAX 256

/* The core context over the keystream source chosen at newctx, as CTR's (ciphercommon.c). */
typedef struct bsprov_gcm_cctx {
    bs_gcm256_ctx g;          /* 64-byte aligned: the context is (bsprov_cctx_alloc) */
    bs_keystream_source *src; /* owned; NULL: the in-process core */
    const bsprov_ctx *prov;
    const bsprov_cipher_info *info;
    const bs_block_cipher *core;
    uint8_t iv[GCM_IV_MAX];
    size_t iv_len;
    uint8_t tag[BS_GCM256_TAG_MAX]; /* encryption: the tag after final; decryption: expected */
    size_t tag_len;                 /* requested (encryption) or given (decryption) */
    int enc;
    int key_set;
    int iv_pending; /* an IV was given that no message has used yet */
    int active;     /* a message is started */
    int data_seen;  /* data was processed: no more AAD */
    int used;       /* AAD or data was processed under this IV */
    int finished;   /* final was called: the IV is spent */
    int tag_set;    /* decryption: the expected tag is set */
    int need_iv;    /* an encryption re-init without an IV wiped the used IV */
    int enc_spent;  /* an encryption released AAD, data or a tag under this IV: until an init
                       passes an IV, it never encrypts again, whatever the inits in between */
} bsprov_gcm_cctx;

static int tag_len_ok(size_t n)
{
    return n >= BS_GCM256_TAG_MIN && n <= BS_GCM256_TAG_MAX && n % 4 == 0;
}

static int tag_len_error(const bsprov_gcm_cctx *ctx, size_t n)
{
    BSPROV_RAISE(ctx->prov, BSPROV_R_TAG_LENGTH, "%s: tag length %zu not allowed (%d..%d, step 4)",
                 ctx->info->name, n, BS_GCM256_TAG_MIN, BS_GCM256_TAG_MAX);
    return 0;
}

static int gcm_fail(const bsprov_gcm_cctx *ctx, int rc)
{
    const char *name = ctx->info->name;
    switch (rc) {
    case BS_ERR_DATA_LIMIT:
        BSPROV_RAISE(ctx->prov, BSPROV_R_DATA_LIMIT,
                     "%s: data limit reached: at most 2^32 - 2 blocks of plaintext and 2^61 - 1 "
                     "bytes of AAD per key and IV",
                     name);
        break;
    case BS_ERR_AUTH:
        BSPROV_RAISE(ctx->prov, BSPROV_R_AUTH, "%s: tag mismatch: authentication failed", name);
        break;
    default:
        BSPROV_RAISE(ctx->prov, bsprov_reason_of(rc), "%s: %s", name, bs_strerror(rc));
        break;
    }
    return 0;
}

void *bsprov_gcm_newctx(void *provctx, const bsprov_cipher_info *info)
{
    const bsprov_ctx *prov = (const bsprov_ctx *)provctx;
    const bs_block_cipher *core = bsprov_newctx_core(prov, info, 32);
    bsprov_gcm_cctx *ctx;

    if (core == NULL)
        return NULL;
    if ((ctx = bsprov_cctx_alloc(sizeof *ctx)) == NULL || !bsprov_source_open(prov, &ctx->src))
        return bsprov_newctx_nomem(prov, info, ctx, sizeof *ctx);
    ctx->prov = prov;
    ctx->info = info;
    ctx->core = core;
    ctx->iv_len = info->iv_len;
    ctx->tag_len = BS_GCM256_TAG_MAX;
    bs_gcm256_set_source(&ctx->g, ctx->src);
    return ctx;
}

static void gcm_freectx_unwiped(void *vctx)
{
    bsprov_gcm_cctx *ctx = (bsprov_gcm_cctx *)vctx;
    if (ctx == NULL)
        return;
    bsprov_source_close(ctx->src);
    bs_gcm256_clear(&ctx->g);
    bsprov_cctx_free(ctx, sizeof *ctx);
}

static void *gcm_dupctx_unwiped(void *vctx)
{
    const bsprov_gcm_cctx *src = (const bsprov_gcm_cctx *)vctx;
    bsprov_gcm_cctx *ctx = bsprov_cctx_alloc(sizeof *ctx);
    if (ctx == NULL)
        return NULL;
    *ctx = *src;
    if (!bsprov_source_copy(src->src, &ctx->src)) {
        bsprov_cctx_free(ctx, sizeof *ctx);
        return NULL;
    }
    bs_gcm256_set_source(&ctx->g, ctx->src);
    return ctx;
}

/*
 * A message starts when both a key and an unused IV are known. iv_set: the core has the IV
 * already (an init with both, bs_gcm256_set_key_iv).
 */
static int gcm_start(bsprov_gcm_cctx *ctx, int iv_set)
{
    int rc;
    if (!ctx->key_set || !ctx->iv_pending)
        return 1;
    if (!iv_set && (rc = bs_gcm256_set_iv(&ctx->g, ctx->iv, ctx->iv_len)) != BS_OK)
        return gcm_fail(ctx, rc);
    ctx->iv_pending = 0;
    ctx->active = 1;
    ctx->data_seen = 0;
    ctx->used = 0;
    ctx->finished = 0;
    /* The last message's tag is public: a store clears it (final writes the whole tag). */
    if (ctx->enc)
        memset(ctx->tag, 0, sizeof ctx->tag);
    return 1;
}

/* The keys set_ctx_params (and init's params) understand, in the order of gcm_set_names. */
enum { GS_KEYLEN, GS_IVLEN, GS_TAGLEN, GS_TAG, GS_OFFLOAD, GS_N };
static const char *const gcm_set_names[GS_N] = {
    OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_AEAD_IVLEN, OSSL_CIPHER_PARAM_AEAD_TAGLEN,
    OSSL_CIPHER_PARAM_AEAD_TAG, BSPROV_PARAM_OFFLOAD};

static int gcm_check_params(const bsprov_gcm_cctx *ctx, int enc, const OSSL_PARAM *const f[GS_N]);
static void gcm_apply_params(bsprov_gcm_cctx *ctx, const OSSL_PARAM *const f[GS_N]);

/*
 * An IV encrypts one message. An init without an IV, once AAD or data was given under the IV
 * (or final was called), wipes it when encrypting: a re-keyed or restarted message under it would
 * reuse the nonce. It re-arms the IV only for decryption under a new key, or for an encryption
 * that was given nothing yet. Once an encryption released anything under the IV (enc_spent), no
 * init without an IV encrypts under it again, even after decryption re-inits re-armed it (review
 * F1: decrypt with the key, then encrypt with no IV, restarted the keystream). Nothing changes
 * until every length and param is checked.
 */
static int gcm_init(bsprov_gcm_cctx *ctx, int enc, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    const bsprov_cipher_info *info = ctx->info;
    int rc;

    if (iv != NULL && (ivlen == 0 || ivlen > GCM_IV_MAX)) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_IV_LENGTH, "%s: IV length %zu not allowed (1..%d)",
                     info->name, ivlen, GCM_IV_MAX);
        return 0;
    }
    if (key != NULL && keylen != info->key_len) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_KEY_LENGTH, "%s: key length %zu not allowed (%zu)",
                     info->name, keylen, info->key_len);
        return 0;
    }
    /* speed -evp's each message, and most inits, pass no params: nothing to find or check. */
    const int has_params = params != NULL && params->key != NULL;
    const OSSL_PARAM *f[GS_N];
    if (has_params) {
        bsprov_params_find(params, gcm_set_names, GS_N, f);
        if (!gcm_check_params(ctx, enc, f))
            return 0;
    }

    /*
     * Key and IV together (the usual init, and `openssl speed -evp`'s each message): one call of
     * the core, which runs the key schedule beside H and E_K(J0); the IV then starts the message
     * below exactly as set_iv would have.
     */
    const int both = key != NULL && iv != NULL;
    if (both) {
        if ((rc = bs_gcm256_set_key_iv(&ctx->g, ctx->core, key, keylen, iv, ivlen)) != BS_OK)
            return gcm_fail(ctx, rc);
        ctx->key_set = 1;
    } else if (key != NULL) {
        if ((rc = bs_gcm256_set_key(&ctx->g, ctx->core, key, keylen)) != BS_OK)
            return gcm_fail(ctx, rc);
        ctx->key_set = 1;
    }
    ctx->enc = enc;
    if (iv != NULL) {
        memcpy(ctx->iv, iv, ivlen);
        ctx->iv_len = ivlen;
        ctx->iv_pending = 1;
        ctx->active = 0;
        ctx->need_iv = 0;
        ctx->enc_spent = 0;
    } else if (enc && ctx->enc_spent) {
        OPENSSL_cleanse(ctx->iv, sizeof ctx->iv);
        ctx->iv_pending = 0;
        ctx->active = 0;
        ctx->need_iv = 1;
    } else if (enc && ctx->active && !ctx->used && !ctx->finished) {
        /* Nothing was given under this IV yet: the message may go on (or restart). */
        if (key != NULL) {
            ctx->active = 0;
            ctx->iv_pending = 1;
        }
    } else if (ctx->active || ctx->finished || ctx->need_iv) {
        if (enc) {
            OPENSSL_cleanse(ctx->iv, sizeof ctx->iv);
            ctx->iv_pending = 0;
            ctx->active = 0;
            ctx->need_iv = 1;
        } else if (key != NULL && ctx->active) {
            /* Decryption may repeat an IV: the core's message state went with the old key. */
            ctx->active = 0;
            ctx->iv_pending = 1;
        }
    }
    if (!gcm_start(ctx, both))
        return 0;
    if (has_params)
        gcm_apply_params(ctx, f);
    return 1;
}

static int gcm_einit_unwiped(void *vctx, const unsigned char *key, size_t keylen,
                             const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init((bsprov_gcm_cctx *)vctx, 1, key, keylen, iv, ivlen, params);
}

static int gcm_dinit_unwiped(void *vctx, const unsigned char *key, size_t keylen,
                             const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
    return gcm_init((bsprov_gcm_cctx *)vctx, 0, key, keylen, iv, ivlen, params);
}

static int gcm_ready(const bsprov_gcm_cctx *ctx)
{
    const char *name = ctx->info->name;
    if (!ctx->key_set) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_STATE, "%s: no key set", name);
        return 0;
    }
    if (ctx->need_iv && !ctx->active) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_STATE,
                     "%s: a new IV is needed before encrypting again (initialise with a new IV)",
                     name);
        return 0;
    }
    if (ctx->finished) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_STATE,
                     "%s: this IV is spent (final was called); initialise with a new IV", name);
        return 0;
    }
    if (!ctx->active) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_STATE, "%s: no IV set", name);
        return 0;
    }
    return 1;
}

static int gcm_update_unwiped(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                              const unsigned char *in, size_t inl)
{
    bsprov_gcm_cctx *ctx = (bsprov_gcm_cctx *)vctx;
    int rc;

    if (!gcm_ready(ctx))
        return 0;
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (in == NULL) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_ARG, "%s: no input", ctx->info->name);
        return 0;
    }
    if (out == NULL) { /* EVP passes AAD with a NULL output */
        if (ctx->data_seen) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_STATE,
                         "%s: AAD after data is not allowed (give all AAD first)", ctx->info->name);
            return 0;
        }
        if ((rc = bs_gcm256_aad(&ctx->g, in, inl)) != BS_OK)
            return gcm_fail(ctx, rc);
        ctx->used = 1;
        ctx->enc_spent |= ctx->enc;
        *outl = inl;
        return 1;
    }
    if (outsize < inl) {
        BSPROV_RAISE(ctx->prov, BSPROV_R_BUFFER, "%s: output buffer of %zu bytes for %zu bytes",
                     ctx->info->name, outsize, inl);
        return 0;
    }
    rc = ctx->enc ? bs_gcm256_encrypt(&ctx->g, out, in, inl)
                  : bs_gcm256_decrypt(&ctx->g, out, in, inl);
    if (rc != BS_OK)
        return gcm_fail(ctx, rc);
    ctx->data_seen = 1;
    ctx->used = 1;
    ctx->enc_spent |= ctx->enc;
    *outl = inl;
    return 1;
}

static int gcm_final_unwiped(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
    bsprov_gcm_cctx *ctx = (bsprov_gcm_cctx *)vctx;
    int rc;

    (void)out;
    (void)outsize;
    if (!gcm_ready(ctx))
        return 0;
    if (ctx->enc) {
        rc = bs_gcm256_tag(&ctx->g, ctx->tag, BS_GCM256_TAG_MAX);
    } else {
        if (!ctx->tag_set) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_STATE,
                         "%s: no tag set: set the expected tag (AEAD_TAG) before "
                         "EVP_DecryptFinal_ex",
                         ctx->info->name);
            return 0;
        }
        rc = bs_gcm256_verify(&ctx->g, ctx->tag, ctx->tag_len);
        ctx->tag_set = 0;
    }
    ctx->finished = 1;
    ctx->active = 0;
    ctx->enc_spent |= ctx->enc;
    if (rc != BS_OK)
        return gcm_fail(ctx, rc);
    *outl = 0;
    return 1;
}

/* EVP_Cipher(): NULL input finishes, NULL output is AAD, as in OpenSSL's GCM. */
static int gcm_cipher_unwiped(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
                              const unsigned char *in, size_t inl)
{
    if (in == NULL)
        return gcm_final_unwiped(vctx, out, outl, outsize);
    return gcm_update_unwiped(vctx, out, outl, outsize, in, inl);
}

static const OSSL_PARAM gcm_known_gettable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    BSPROV_OFFLOAD_GETTABLE,
    OSSL_PARAM_END,
};

const OSSL_PARAM *bsprov_gcm_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    return gcm_known_gettable_ctx_params;
}

static const OSSL_PARAM gcm_known_settable_ctx_params[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    BSPROV_OFFLOAD_SETTABLE,
    OSSL_PARAM_END,
};

const OSSL_PARAM *bsprov_gcm_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    return gcm_known_settable_ctx_params;
}

int bsprov_gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    bsprov_gcm_cctx *ctx = (bsprov_gcm_cctx *)vctx;
    const char *name = ctx->info->name;
    enum { G_KEYLEN, G_IVLEN, G_TAGLEN, G_IV, G_UPDATED_IV, G_TAG, G_OFFLOAD, G_WHY, G_N };
    static const char *const names[G_N] = {
        OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_IVLEN,      OSSL_CIPHER_PARAM_AEAD_TAGLEN,
        OSSL_CIPHER_PARAM_IV,     OSSL_CIPHER_PARAM_UPDATED_IV, OSSL_CIPHER_PARAM_AEAD_TAG,
        BSPROV_PARAM_OFFLOAD,     BSPROV_PARAM_OFFLOAD_REASON};
    const OSSL_PARAM *f[G_N];
    bsprov_params_find(params, names, G_N, f);

    if (!bsprov_set_size(f[G_KEYLEN], ctx->info->key_len) ||
        !bsprov_set_size(f[G_IVLEN], ctx->iv_len) || !bsprov_set_size(f[G_TAGLEN], ctx->tag_len))
        return 0;
    if (!bsprov_source_get_params(ctx->prov, ctx->src, f[G_OFFLOAD], f[G_WHY]))
        return 0;
    /* GCM never changes its IV: updated-iv is the IV, as in OpenSSL's GCM. */
    for (int i = G_IV; i <= G_UPDATED_IV; i++) {
        OSSL_PARAM *p = (OSSL_PARAM *)f[i]; /* the caller's, to write */
        if (p != NULL && !bsprov_set_octets(p, ctx->iv, ctx->iv_len)) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_BUFFER, "%s: the IV is %zu bytes; buffer of %zu", name,
                         ctx->iv_len, p->data_size);
            return 0;
        }
    }
    OSSL_PARAM *p = (OSSL_PARAM *)f[G_TAG];
    if (p != NULL) {
        /* As in OpenSSL, the caller's buffer size is the tag length it asks for. */
        size_t n = p->data_size;
        if (!ctx->enc) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_STATE, "%s: the tag can only be read after encryption",
                         name);
            return 0;
        }
        if (!ctx->finished) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_STATE,
                         "%s: tag requested before final (call EVP_EncryptFinal_ex first)", name);
            return 0;
        }
        if (!tag_len_ok(n))
            return tag_len_error(ctx, n);
        if (!OSSL_PARAM_set_octet_string(p, ctx->tag, n))
            return 0;
    }
    return 1;
}

/* Every check of set_ctx_params for direction enc, changing nothing (f: gcm_set_names found). */
static int gcm_check_params(const bsprov_gcm_cctx *ctx, int enc, const OSSL_PARAM *const f[GS_N])
{
    const char *name = ctx->info->name;
    const OSSL_PARAM *p;
    size_t v;

    if ((p = f[GS_KEYLEN]) != NULL) {
        if (!OSSL_PARAM_get_size_t(p, &v) || v != ctx->info->key_len) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_KEY_LENGTH, "%s: key length %zu not allowed (%zu)",
                         name, OSSL_PARAM_get_size_t(p, &v) ? v : 0, ctx->info->key_len);
            return 0;
        }
    }
    if ((p = f[GS_IVLEN]) != NULL) {
        if (!OSSL_PARAM_get_size_t(p, &v) || v == 0 || v > GCM_IV_MAX) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_IV_LENGTH, "%s: IV length %zu not allowed (1..%d)",
                         name, OSSL_PARAM_get_size_t(p, &v) ? v : 0, GCM_IV_MAX);
            return 0;
        }
    }
    if ((p = f[GS_TAGLEN]) != NULL) {
        if (!OSSL_PARAM_get_size_t(p, &v))
            return tag_len_error(ctx, 0);
        if (!tag_len_ok(v))
            return tag_len_error(ctx, v);
    }
    if ((p = f[GS_TAG]) != NULL) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_ARG, "%s: the tag must be an octet string", name);
            return 0;
        }
        if (!tag_len_ok(p->data_size))
            return tag_len_error(ctx, p->data_size);
        if (p->data != NULL && enc) {
            BSPROV_RAISE(ctx->prov, BSPROV_R_STATE,
                         "%s: the expected tag can only be set for decryption", name);
            return 0;
        }
    }
    return bsprov_source_set_params(ctx->prov, name, ctx->src, f[GS_OFFLOAD], 0);
}

/* Applies params already checked by gcm_check_params. */
static void gcm_apply_params(bsprov_gcm_cctx *ctx, const OSSL_PARAM *const f[GS_N])
{
    const OSSL_PARAM *p;
    size_t v;

    if ((p = f[GS_IVLEN]) != NULL && OSSL_PARAM_get_size_t(p, &v) && v != ctx->iv_len) {
        ctx->iv_len = v;
        ctx->iv_pending = 0;
        ctx->active = 0;
    }
    if ((p = f[GS_TAGLEN]) != NULL && OSSL_PARAM_get_size_t(p, &v))
        ctx->tag_len = v;
    bsprov_source_set_params(ctx->prov, ctx->info->name, ctx->src, f[GS_OFFLOAD], 1);
    if ((p = f[GS_TAG]) != NULL) {
        if (p->data != NULL) {
            memcpy(ctx->tag, p->data, p->data_size);
            ctx->tag_set = 1;
        }
        ctx->tag_len = p->data_size;
    }
}

int bsprov_gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    bsprov_gcm_cctx *ctx = (bsprov_gcm_cctx *)vctx;
    const OSSL_PARAM *f[GS_N];
    bsprov_params_find(params, gcm_set_names, GS_N, f);
    if (!gcm_check_params(ctx, ctx->enc, f))
        return 0;
    gcm_apply_params(ctx, f);
    return 1;
}

BSPROV_WIPED_ENTRY_POINTS(gcm)
