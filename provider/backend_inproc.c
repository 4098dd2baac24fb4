/*
 * backend_inproc.c: the in-process backends, over core/modes/ctr.h and core/modes/gcm256.h.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "backend.h"
#include "bsprov.h"
#include "modes/ctr.h"
#ifdef BSPROV_HAVE_GCM256
#include "modes/gcm256.h"
#endif

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

static void ctr_free(void *bctx)
{
    if (bctx == NULL)
        return;
    bs_ctr_clear((bs_ctr_ctx *)bctx);
    OPENSSL_cleanse(bctx, sizeof(bs_ctr_ctx));
    free(bctx);
}

static void *ctr_newctx(const bs_block_cipher *cipher, const struct bsprov_ctx *prov)
{
    (void)prov;
    bs_ctr_ctx *c = (bs_ctr_ctx *)aligned_zalloc(sizeof *c);
    if (c != NULL)
        c->cipher = cipher;
    return c;
}

static int ctr_set_key(void *bctx, const uint8_t *key, size_t key_len, uint64_t block_limit)
{
    bs_ctr_ctx *c = (bs_ctr_ctx *)bctx;
    int rc = bs_ctr_set_key(c, c->cipher, key, key_len);
    if (rc == BS_OK)
        bs_ctr_set_block_limit(c, block_limit);
    return rc;
}

static int ctr_set_iv(void *bctx, const uint8_t *iv, size_t iv_len)
{
    return bs_ctr_set_iv((bs_ctr_ctx *)bctx, iv, iv_len);
}

static int ctr_set_block_limit(void *bctx, uint64_t block_limit)
{
    bs_ctr_ctx *c = (bs_ctr_ctx *)bctx;
    /* A limit below what was already used must stop the stream, not wrap the subtraction. */
    bs_ctr_set_block_limit(c, block_limit < c->blocks_used ? c->blocks_used : block_limit);
    return BS_OK;
}

static int ctr_crypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return bs_ctr_crypt((bs_ctr_ctx *)bctx, out, in, len);
}

static void ctr_get_position(const void *bctx, uint8_t *counter, unsigned *num)
{
    const bs_ctr_ctx *c = (const bs_ctr_ctx *)bctx;
    memcpy(counter, c->counter, c->cipher->block_len);
    *num = c->num;
}

/* Forward moves go through bs_ctr_crypt so that the core checks its limits. */
static int ctr_set_num(void *bctx, unsigned num)
{
    bs_ctr_ctx *c = (bs_ctr_ctx *)bctx;
    const unsigned bl = c->cipher->block_len;
    uint8_t scratch[BS_BLOCK_MAX] = {0};
    int rc = BS_OK;

    if (num >= bl)
        return BS_ERR_ARG;
    if (c->num != 0 && num != 0 && num < c->num)
        c->num = num; /* the pending keystream block stays valid */
    else if (c->num != 0 && num == 0)
        rc = bs_ctr_crypt(c, scratch, scratch, bl - c->num);
    else if (num > c->num)
        rc = bs_ctr_crypt(c, scratch, scratch, num - c->num);
    OPENSSL_cleanse(scratch, sizeof scratch);
    return rc;
}

static void *ctr_dup(const void *bctx)
{
    return aligned_dup(bctx, sizeof(bs_ctr_ctx));
}

const bsprov_ctr_backend bsprov_ctr_inproc = {
    "in-process", ctr_newctx,       ctr_set_key, ctr_set_iv, ctr_set_block_limit,
    ctr_crypt,    ctr_get_position, ctr_set_num, ctr_dup,    ctr_free,
};

const bsprov_ctr_backend *bsprov_ctr_backend_for(const struct bsprov_ctx *prov,
                                                 const bs_block_cipher *cipher)
{
    (void)prov;
    (void)cipher;
    return &bsprov_ctr_inproc;
}

#ifdef BSPROV_HAVE_GCM256
static void *gcm_newctx(const struct bsprov_ctx *prov)
{
    (void)prov;
    return aligned_zalloc(sizeof(bs_gcm256_ctx));
}

static int gcm_set_key(void *bctx, const uint8_t *key, size_t key_len)
{
    return bs_gcm256_set_key((bs_gcm256_ctx *)bctx, key, key_len);
}

static int gcm_set_iv(void *bctx, const uint8_t *iv, size_t iv_len)
{
    return bs_gcm256_set_iv((bs_gcm256_ctx *)bctx, iv, iv_len);
}

static int gcm_aad(void *bctx, const uint8_t *aad, size_t len)
{
    return bs_gcm256_aad((bs_gcm256_ctx *)bctx, aad, len);
}

static int gcm_encrypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return bs_gcm256_encrypt((bs_gcm256_ctx *)bctx, out, in, len);
}

static int gcm_decrypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return bs_gcm256_decrypt((bs_gcm256_ctx *)bctx, out, in, len);
}

static int gcm_tag(void *bctx, uint8_t *tag, size_t tag_len)
{
    return bs_gcm256_tag((bs_gcm256_ctx *)bctx, tag, tag_len);
}

static int gcm_verify(void *bctx, const uint8_t *tag, size_t tag_len)
{
    return bs_gcm256_verify((bs_gcm256_ctx *)bctx, tag, tag_len);
}

static void *gcm_dup(const void *bctx)
{
    return aligned_dup(bctx, sizeof(bs_gcm256_ctx));
}

static void gcm_free(void *bctx)
{
    if (bctx == NULL)
        return;
    bs_gcm256_clear((bs_gcm256_ctx *)bctx);
    OPENSSL_cleanse(bctx, sizeof(bs_gcm256_ctx));
    free(bctx);
}

const bsprov_gcm_backend bsprov_gcm_inproc = {
    "in-process", gcm_newctx, gcm_set_key, gcm_set_iv, gcm_aad,  gcm_encrypt,
    gcm_decrypt,  gcm_tag,    gcm_verify,  gcm_dup,    gcm_free,
};

const bsprov_gcm_backend *bsprov_gcm_backend_for(const struct bsprov_ctx *prov)
{
    (void)prov;
    return &bsprov_gcm_inproc;
}
#endif
