/*
 * backend_inproc.c: the in-process backends, over core/modes/ctr.h and core/modes/gcm256.h.
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
 * The CTR context: the core's bs_ctr_ctx, plus keystream generated ahead for small requests.
 * Every update that needs new keystream costs at least one bitsliced pass of `lanes` blocks, so
 * a request shorter than a pass takes a whole pass of keystream (within the block limit and the
 * counter wrap) and later small requests are XORs from it. Only crypt() reads ahead: every other
 * operation first calls ctr_settle(), which gives the unused blocks back to the core (counter,
 * block count, wrap budget, partial block), so positions, limits and copies are exactly those of
 * bs_ctr_ctx.
 */
typedef struct inproc_ctr {
    bs_ctr_ctx c;
    uint8_t ahead[BS_LANES_MAX * BS_BLOCK_MAX]; /* keystream of the blocks from ahead_ctr on */
    uint8_t ahead_ctr[BS_BLOCK_MAX];
    size_t ahead_len; /* bytes in ahead[]; 0 when not reading ahead */
    size_t ahead_pos; /* bytes of ahead[] already used */
} inproc_ctr;

static void ctr_settle(inproc_ctr *x)
{
    bs_ctr_ctx *c = &x->c;
    if (x->ahead_len == 0)
        return;
    const size_t bl = c->cipher->block_len;
    const uint64_t generated = x->ahead_len / bl;
    const uint64_t started = (x->ahead_pos + bl - 1) / bl;
    const uint64_t unused = generated - started;

    memcpy(c->counter, x->ahead_ctr, bl);
    bs_ctr_add(c->counter, bl, started);
    c->blocks_used -= unused;
    c->wrap_left += unused; /* it was at least `generated` before: no overflow */
    c->num = (unsigned)(x->ahead_pos % bl);
    if (c->num != 0)
        memcpy(c->stream, x->ahead + (started - 1) * bl, bl);
    OPENSSL_cleanse(x->ahead, sizeof x->ahead);
    x->ahead_len = x->ahead_pos = 0;
}

static void ctr_free(void *bctx)
{
    if (bctx == NULL)
        return;
    bs_ctr_clear(&((inproc_ctr *)bctx)->c);
    OPENSSL_cleanse(bctx, sizeof(inproc_ctr));
    free(bctx);
}

static void *ctr_newctx(const bs_block_cipher *cipher, const struct bsprov_ctx *prov)
{
    (void)prov;
    inproc_ctr *x = (inproc_ctr *)aligned_zalloc(sizeof *x);
    if (x != NULL)
        x->c.cipher = cipher;
    return x;
}

static int ctr_set_key(void *bctx, const uint8_t *key, size_t key_len, uint64_t block_limit)
{
    inproc_ctr *x = (inproc_ctr *)bctx;
    ctr_settle(x);
    int rc = bs_ctr_set_key(&x->c, x->c.cipher, key, key_len);
    if (rc == BS_OK)
        bs_ctr_set_block_limit(&x->c, block_limit);
    return rc;
}

static int ctr_set_iv(void *bctx, const uint8_t *iv, size_t iv_len)
{
    inproc_ctr *x = (inproc_ctr *)bctx;
    ctr_settle(x);
    return bs_ctr_set_iv(&x->c, iv, iv_len);
}

static int ctr_set_block_limit(void *bctx, uint64_t block_limit)
{
    inproc_ctr *x = (inproc_ctr *)bctx;
    ctr_settle(x);
    /* A limit below what was already used must stop the stream, not wrap the subtraction. */
    bs_ctr_set_block_limit(&x->c, block_limit < x->c.blocks_used ? x->c.blocks_used : block_limit);
    return BS_OK;
}

static void xor_bytes(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] ^ ks[i];
}

static int ctr_crypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    inproc_ctr *x = (inproc_ctr *)bctx;
    bs_ctr_ctx *c = &x->c;

    if (x->ahead_len != 0) {
        if (len <= x->ahead_len - x->ahead_pos) {
            xor_bytes(out, in, x->ahead + x->ahead_pos, len);
            x->ahead_pos += len;
            return BS_OK;
        }
        ctr_settle(x); /* the core takes it from the exact position, all or nothing */
    }
    if (!c->keyed || len == 0 || out == NULL || in == NULL || c->num != 0)
        return bs_ctr_crypt(c, out, in, len);

    const size_t bl = c->cipher->block_len;
    const uint64_t lanes = c->cipher->lanes < BS_LANES_MAX ? c->cipher->lanes : BS_LANES_MAX;
    uint64_t room = bs_ctr_blocks_left(c);
    if (room > lanes)
        room = lanes;
    if (len >= lanes * bl || (len + bl - 1) / bl > room)
        return bs_ctr_crypt(c, out, in, len); /* a whole pass or more, or a refusal */

    uint8_t start[BS_BLOCK_MAX];
    memcpy(start, c->counter, bl);
    memset(x->ahead, 0, (size_t)room * bl);
    int rc = bs_ctr_crypt(c, x->ahead, x->ahead, (size_t)room * bl);
    if (rc != BS_OK) {
        OPENSSL_cleanse(x->ahead, sizeof x->ahead);
        return rc;
    }
    memcpy(x->ahead_ctr, start, bl);
    x->ahead_len = (size_t)room * bl;
    xor_bytes(out, in, x->ahead, len);
    x->ahead_pos = len;
    return BS_OK;
}

static void ctr_get_position(const void *bctx, uint8_t *counter, unsigned *num)
{
    const inproc_ctr *x = (const inproc_ctr *)bctx;
    const bs_ctr_ctx *c = &x->c;
    const size_t bl = c->cipher->block_len;
    if (x->ahead_len == 0) {
        memcpy(counter, c->counter, bl);
        *num = c->num;
        return;
    }
    memcpy(counter, x->ahead_ctr, bl);
    bs_ctr_add(counter, bl, (x->ahead_pos + bl - 1) / bl);
    *num = (unsigned)(x->ahead_pos % bl);
}

/* Forward moves go through bs_ctr_crypt so that the core checks its limits. */
static int ctr_set_num(void *bctx, unsigned num)
{
    inproc_ctr *x = (inproc_ctr *)bctx;
    bs_ctr_ctx *c = &x->c;
    const unsigned bl = c->cipher->block_len;
    uint8_t scratch[BS_BLOCK_MAX] = {0};
    int rc = BS_OK;

    if (num >= bl)
        return BS_ERR_ARG;
    ctr_settle(x);
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
    return aligned_dup(bctx, sizeof(inproc_ctr));
}

const bsprov_ctr_backend bsprov_ctr_inproc = {
    "in-process", ctr_newctx,       ctr_set_key, ctr_set_iv, ctr_set_block_limit,
    ctr_crypt,    ctr_get_position, ctr_set_num, ctr_dup,    ctr_free,
};

const bsprov_ctr_backend *bsprov_ctr_backend_for(const struct bsprov_ctx *prov,
                                                 const bs_block_cipher *cipher)
{
    (void)cipher;
    return prov->daemon_socket != NULL ? &bsprov_ctr_daemon : &bsprov_ctr_inproc;
}

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
    return prov->daemon_socket != NULL ? &bsprov_gcm_daemon : &bsprov_gcm_inproc;
}
