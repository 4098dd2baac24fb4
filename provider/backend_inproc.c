/*
 * backend_inproc.c: the provider's CTR and GCM tables, over core/modes/ctr.h and gcm256.h; the
 * keystream source each context pulls from is chosen at newctx (backend_daemon.c).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "backend.h"
#include "bsprov.h"
#include "modes/ctr.h"
#include "modes/gcm256.h"

/* The core contexts carry 64-byte-aligned key schedules: malloc's alignment is not enough. */
static void *aligned_zalloc(size_t n)
{
    size_t rounded = (n + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, rounded);
    if (p != NULL)
        memset(p, 0, rounded);
    return p;
}

static void *aligned_dup(const void *src, size_t n)
{
    void *p = aligned_zalloc(n);
    if (p != NULL)
        memcpy(p, src, n);
    return p;
}

/*
 * The CTR context: the core's bs_ctr_ctx, which owns position, limits, num and the read-ahead,
 * over the keystream source chosen at newctx (bsprov_source_new: the daemon's when a socket is
 * configured, else NULL, the in-process core). The context owns its source.
 */
typedef struct prov_ctr {
    bs_ctr_ctx c; /* first: 64-byte aligned with the allocation */
    bs_keystream_source *src;
} prov_ctr;

static void ctr_free(void *bctx)
{
    prov_ctr *x = (prov_ctr *)bctx;
    if (x == NULL)
        return;
    if (x->src != NULL)
        x->src->ops->free(x->src);
    bs_ctr_clear(&x->c);
    OPENSSL_cleanse(x, sizeof *x);
    free(x);
}

static void *ctr_newctx(const bs_block_cipher *cipher, const struct bsprov_ctx *prov)
{
    prov_ctr *x = (prov_ctr *)aligned_zalloc(sizeof *x);
    if (x == NULL)
        return NULL;
    x->c.cipher = cipher;
    if (prov->daemon_socket != NULL && (x->src = bsprov_source_new(prov)) == NULL) {
        free(x);
        return NULL;
    }
    bs_ctr_set_source(&x->c, x->src);
    return x;
}

static int ctr_set_key(void *bctx, const uint8_t *key, size_t key_len, uint64_t block_limit)
{
    prov_ctr *x = (prov_ctr *)bctx;
    int rc = bs_ctr_set_key(&x->c, x->c.cipher, key, key_len);
    if (rc == BS_OK)
        bs_ctr_set_block_limit(&x->c, block_limit);
    return rc;
}

static int ctr_set_iv(void *bctx, const uint8_t *iv, size_t iv_len)
{
    return bs_ctr_set_iv(&((prov_ctr *)bctx)->c, iv, iv_len);
}

static int ctr_set_block_limit(void *bctx, uint64_t block_limit)
{
    bs_ctr_set_block_limit(&((prov_ctr *)bctx)->c, block_limit);
    return BS_OK;
}

static int ctr_crypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return bs_ctr_crypt(&((prov_ctr *)bctx)->c, out, in, len);
}

static void ctr_get_position(const void *bctx, uint8_t *counter, unsigned *num)
{
    bs_ctr_position(&((const prov_ctr *)bctx)->c, counter, num);
}

static int ctr_set_num(void *bctx, unsigned num)
{
    return bs_ctr_set_num(&((prov_ctr *)bctx)->c, num);
}

static uint64_t ctr_blocks_used(const void *bctx)
{
    return bs_ctr_blocks_used(&((const prov_ctr *)bctx)->c);
}

/* The copy gets a copy of the source, which starts afresh where the copy is asked to. */
static void *ctr_dup(const void *bctx)
{
    const prov_ctr *x = (const prov_ctr *)bctx;
    prov_ctr *d = (prov_ctr *)aligned_dup(x, sizeof *x);
    if (d == NULL)
        return NULL;
    if (x->src != NULL && (d->src = x->src->ops->copy(x->src)) == NULL) {
        OPENSSL_cleanse(d, sizeof *d);
        free(d);
        return NULL;
    }
    bs_ctr_set_source(&d->c, d->src);
    return d;
}

const bsprov_ctr_backend bsprov_ctr_modes = {
    "modes",   ctr_newctx,       ctr_set_key, ctr_set_iv,      ctr_set_block_limit,
    ctr_crypt, ctr_get_position, ctr_set_num, ctr_blocks_used, ctr_dup,
    ctr_free,
};

const bsprov_ctr_backend *bsprov_ctr_backend_for(const struct bsprov_ctx *prov,
                                                 const bs_block_cipher *cipher)
{
    (void)prov;
    (void)cipher;
    return &bsprov_ctr_modes;
}

/* The GCM context: the core's bs_gcm256_ctx over the source chosen at newctx, as CTR. */
typedef struct prov_gcm {
    bs_gcm256_ctx g; /* first: 64-byte aligned with the allocation */
    const bs_block_cipher *cipher;
    bs_keystream_source *src;
} prov_gcm;

static void gcm_free(void *bctx)
{
    prov_gcm *x = (prov_gcm *)bctx;
    if (x == NULL)
        return;
    if (x->src != NULL)
        x->src->ops->free(x->src);
    bs_gcm256_clear(&x->g);
    OPENSSL_cleanse(x, sizeof *x);
    free(x);
}

static void *gcm_newctx(const bs_block_cipher *cipher, const struct bsprov_ctx *prov)
{
    prov_gcm *x = (prov_gcm *)aligned_zalloc(sizeof *x);
    if (x == NULL)
        return NULL;
    x->cipher = cipher;
    if (prov->daemon_socket != NULL && (x->src = bsprov_source_new(prov)) == NULL) {
        free(x);
        return NULL;
    }
    bs_gcm256_set_source(&x->g, x->src);
    return x;
}

static int gcm_set_key(void *bctx, const uint8_t *key, size_t key_len)
{
    prov_gcm *x = (prov_gcm *)bctx;
    return bs_gcm256_set_key(&x->g, x->cipher, key, key_len);
}

static int gcm_set_iv(void *bctx, const uint8_t *iv, size_t iv_len)
{
    return bs_gcm256_set_iv(&((prov_gcm *)bctx)->g, iv, iv_len);
}

static int gcm_aad(void *bctx, const uint8_t *aad, size_t len)
{
    return bs_gcm256_aad(&((prov_gcm *)bctx)->g, aad, len);
}

static int gcm_encrypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return bs_gcm256_encrypt(&((prov_gcm *)bctx)->g, out, in, len);
}

static int gcm_decrypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return bs_gcm256_decrypt(&((prov_gcm *)bctx)->g, out, in, len);
}

static int gcm_tag(void *bctx, uint8_t *tag, size_t tag_len)
{
    return bs_gcm256_tag(&((prov_gcm *)bctx)->g, tag, tag_len);
}

static int gcm_verify(void *bctx, const uint8_t *tag, size_t tag_len)
{
    return bs_gcm256_verify(&((prov_gcm *)bctx)->g, tag, tag_len);
}

static void *gcm_dup(const void *bctx)
{
    const prov_gcm *x = (const prov_gcm *)bctx;
    prov_gcm *d = (prov_gcm *)aligned_dup(x, sizeof *x);
    if (d == NULL)
        return NULL;
    if (x->src != NULL && (d->src = x->src->ops->copy(x->src)) == NULL) {
        OPENSSL_cleanse(d, sizeof *d);
        free(d);
        return NULL;
    }
    bs_gcm256_set_source(&d->g, d->src);
    return d;
}

const bsprov_gcm_backend bsprov_gcm_modes = {
    "modes",     gcm_newctx, gcm_set_key, gcm_set_iv, gcm_aad,  gcm_encrypt,
    gcm_decrypt, gcm_tag,    gcm_verify,  gcm_dup,    gcm_free,
};

const bsprov_gcm_backend *bsprov_gcm_backend_for(const struct bsprov_ctx *prov)
{
    (void)prov;
    return &bsprov_gcm_modes;
}
