/*
 * gcm128.c: AES-GCM (SP 800-38D), incremental, shaped like gcm256.c: CTR with inc32 over the
 * AES core (or its FACE-cached keystream), GHASH-128 through the implementation chosen at
 * set_key. A refused call changes nothing.
 */
#include "gcm128.h"
#include "keystream.h"

#ifdef BS_HAVE_AES
#include "../aes/aes_ctr_face.h"
#endif

#define BL 16

/* ctx->state */
enum {
    ST_NONE = 0, /* no key */
    ST_KEYED,    /* key set; needs an IV (also after tag/verify) */
    ST_AAD,      /* IV set; AAD may follow */
    ST_ENC,      /* encrypting */
    ST_DEC,      /* decrypting */
};

#define AAD_MAX (((uint64_t)1 << 61) - 1)
#define DATA_MAX (BS_GCM128_MAX_BLOCKS * BL)
/* Blocks of keystream per pass through the core (a stack buffer of this many blocks). */
#define PASS 32

static void inc32(uint8_t *cb)
{
    bs_store_be32(cb + BL - 4, bs_load_be32(cb + BL - 4) + 1);
}

static void ghash_absorb(bs_gcm128_ctx *ctx, const uint8_t *p, size_t len)
{
    if (ctx->ghbuf_len > 0) {
        size_t take = BL - ctx->ghbuf_len < len ? BL - ctx->ghbuf_len : len;
        memcpy(ctx->ghbuf + ctx->ghbuf_len, p, take);
        ctx->ghbuf_len += (unsigned)take;
        p += take;
        len -= take;
        if (ctx->ghbuf_len < BL)
            return;
        ctx->ghash->mul_blocks(ctx->hkey, ctx->y, ctx->ghbuf, 1);
        ctx->ghbuf_len = 0;
    }
    if (len >= BL) {
        ctx->ghash->mul_blocks(ctx->hkey, ctx->y, p, len / BL);
        p += len - len % BL;
        len %= BL;
    }
    memcpy(ctx->ghbuf, p, len);
    ctx->ghbuf_len = (unsigned)len;
}

/* Zero-pads a pending partial block into GHASH. */
static void ghash_pad(bs_gcm128_ctx *ctx)
{
    if (ctx->ghbuf_len > 0) {
        memset(ctx->ghbuf + ctx->ghbuf_len, 0, BL - ctx->ghbuf_len);
        ctx->ghash->mul_blocks(ctx->hkey, ctx->y, ctx->ghbuf, 1);
        ctx->ghbuf_len = 0;
    }
    bs_wipe(ctx->ghbuf, BL);
}

static void ghash_lengths(bs_gcm128_ctx *ctx, uint64_t a_bytes, uint64_t c_bytes)
{
    uint8_t lens[BL];
    bs_store_be64(lens, a_bytes << 3);
    bs_store_be64(lens + 8, c_bytes << 3);
    ctx->ghash->mul_blocks(ctx->hkey, ctx->y, lens, 1);
}

static void ghash_key(bs_gcm128_ctx *ctx)
{
    uint8_t h[BL] = {0};
    ctx->cipher->encrypt(&ctx->ks, h, h, 1);
    ctx->ghash->init(ctx->hkey, h);
    bs_wipe(h, sizeof h);
}

int bs_gcm128_set_key(bs_gcm128_ctx *ctx, const uint8_t *key, size_t key_len)
{
    if (ctx == NULL || key == NULL)
        return BS_ERR_ARG;
    if (key_len != 16 && key_len != 32)
        return BS_ERR_KEY_LENGTH;
    const bs_block_cipher *c = bs_block_cipher_by_name(key_len == 16 ? "AES-128" : "AES-256");
    if (c == NULL || c->block_len != BL)
        return BS_ERR_STATE;
    bs_gcm128_clear(ctx);
    ctx->cipher = c;
    ctx->ghash = bs_ghash128_default();
    c->set_key(&ctx->ks, key);
    ghash_key(ctx);
    ctx->state = ST_KEYED;
    return BS_OK;
}

void bs_gcm128_set_ghash(bs_gcm128_ctx *ctx, const bs_ghash128_impl *impl)
{
    if (ctx->state == ST_NONE)
        return;
    ctx->ghash = impl != NULL ? impl : bs_ghash128_default();
    ghash_key(ctx);
    /* The accumulator of a message under way is lost: start over with a new IV. */
    ctx->state = ST_KEYED;
}

int bs_gcm128_set_face(bs_gcm128_ctx *ctx, struct bs_aes_face_ctx *face)
{
    if (ctx->state == ST_NONE)
        return BS_ERR_STATE;
#ifdef BS_HAVE_AES
    if (face != NULL && (!face->ctr.keyed || face->ctr.cipher->key_len != ctx->cipher->key_len))
        return BS_ERR_ARG;
    ctx->face = face;
    ctx->state = ST_KEYED;
    return BS_OK;
#else
    return face == NULL ? BS_OK : BS_ERR_STATE;
#endif
}

int bs_gcm128_set_iv(bs_gcm128_ctx *ctx, const uint8_t *iv, size_t iv_len)
{
    if (ctx->state == ST_NONE)
        return BS_ERR_STATE;
    if (iv == NULL || iv_len == 0 || ((uint64_t)iv_len >> 61) != 0)
        return BS_ERR_IV_LENGTH;
    memset(ctx->y, 0, BL);
    ctx->ghbuf_len = 0;
    if (iv_len == 12) {
        memcpy(ctx->j0, iv, 12);
        bs_store_be32(ctx->j0 + 12, 1);
    } else {
        ghash_absorb(ctx, iv, iv_len);
        ghash_pad(ctx);
        ghash_lengths(ctx, 0, (uint64_t)iv_len);
        memcpy(ctx->j0, ctx->y, BL);
        memset(ctx->y, 0, BL);
    }
    memcpy(ctx->counter, ctx->j0, BL);
    inc32(ctx->counter);
    bs_wipe(ctx->stream, BL);
    ctx->num = 0;
    ctx->aad_len = 0;
    ctx->data_len = 0;
    ctx->state = ST_AAD;
    return BS_OK;
}

int bs_gcm128_aad(bs_gcm128_ctx *ctx, const uint8_t *aad, size_t len)
{
    if (ctx->state != ST_AAD)
        return BS_ERR_STATE;
    if (len == 0)
        return BS_OK;
    if (aad == NULL)
        return BS_ERR_ARG;
    if ((uint64_t)len > AAD_MAX - ctx->aad_len)
        return BS_ERR_DATA_LIMIT;
    ghash_absorb(ctx, aad, len);
    ctx->aad_len += len;
    return BS_OK;
}

/* Keystream for n <= PASS blocks from ctx->counter into buf; advances the counter. ahead: the
 * blocks left in this request (n included), for FACE's refresh decision. */
static void keystream(bs_gcm128_ctx *ctx, uint8_t *buf, size_t n, size_t ahead)
{
#ifdef BS_HAVE_AES
    if (ctx->face != NULL) {
        bs_aes_face_keystream(ctx->face, ctx->counter, n, ahead, 1, buf);
        return;
    }
#else
    (void)ahead;
#endif
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + i * BL, ctx->counter, BL);
        inc32(ctx->counter);
    }
    ctx->cipher->encrypt(&ctx->ks, buf, buf, n);
}

static int gcm_crypt(bs_gcm128_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len, int st)
{
    if (ctx->state != ST_AAD && ctx->state != st)
        return BS_ERR_STATE;
    if (len == 0)
        return BS_OK;
    if (out == NULL || in == NULL)
        return BS_ERR_ARG;
    if ((uint64_t)len > DATA_MAX - ctx->data_len)
        return BS_ERR_DATA_LIMIT;
    if (ctx->state == ST_AAD) {
        ghash_pad(ctx);
        ctx->state = st;
    }
    const int dec = st == ST_DEC;
    ctx->data_len += len;

    if (ctx->num > 0) {
        size_t take = BL - ctx->num < len ? BL - ctx->num : len;
        if (dec)
            ghash_absorb(ctx, in, take);
        bs_keystream_xor(out, in, ctx->stream + ctx->num, take);
        if (!dec)
            ghash_absorb(ctx, out, take);
        ctx->num = (unsigned)((ctx->num + take) % BL);
        out += take;
        in += take;
        len -= take;
    }
    BS_ALIGN(16) uint8_t buf[PASS * BL];
    size_t used = 0;
    while (len > 0) {
        size_t blocks = len / BL + (len % BL != 0);
        size_t n = blocks < PASS ? blocks : PASS;
        size_t bytes = n * BL < len ? n * BL : len;
        keystream(ctx, buf, n, blocks);
        used = n * BL > used ? n * BL : used;
        if (dec)
            ghash_absorb(ctx, in, bytes);
        bs_keystream_xor(out, in, buf, bytes);
        if (!dec)
            ghash_absorb(ctx, out, bytes);
        if (bytes % BL != 0) { /* the last block is partial: keep its keystream */
            memcpy(ctx->stream, buf + (n - 1) * BL, BL);
            ctx->num = (unsigned)(bytes % BL);
        }
        out += bytes;
        in += bytes;
        len -= bytes;
    }
    bs_wipe(buf, used);
    return BS_OK;
}

int bs_gcm128_encrypt(bs_gcm128_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return gcm_crypt(ctx, out, in, len, ST_ENC);
}

int bs_gcm128_decrypt(bs_gcm128_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return gcm_crypt(ctx, out, in, len, ST_DEC);
}

static int tag_len_ok(size_t tag_len)
{
    return tag_len >= BS_GCM128_TAG_MIN && tag_len <= BS_GCM128_TAG_MAX;
}

/* T = E_K(J0) ^ GHASH(...); leaves the context keyed, waiting for an IV. */
static void finish(bs_gcm128_ctx *ctx, uint8_t full[BL])
{
    uint8_t ekj0[BL];
    ghash_pad(ctx);
    ghash_lengths(ctx, ctx->aad_len, ctx->data_len);
    ctx->cipher->encrypt(&ctx->ks, ekj0, ctx->j0, 1);
    for (int i = 0; i < BL; i++)
        full[i] = ekj0[i] ^ ctx->y[i];
    bs_wipe(ekj0, BL);
    bs_wipe(ctx->y, BL);
    bs_wipe(ctx->stream, BL);
    ctx->num = 0;
    ctx->state = ST_KEYED;
}

int bs_gcm128_tag(bs_gcm128_ctx *ctx, uint8_t *tag, size_t tag_len)
{
    if (ctx->state < ST_AAD)
        return BS_ERR_STATE;
    if (!tag_len_ok(tag_len))
        return BS_ERR_TAG_LENGTH;
    if (tag == NULL)
        return BS_ERR_ARG;
    uint8_t full[BL];
    finish(ctx, full);
    memcpy(tag, full, tag_len);
    bs_wipe(full, sizeof full);
    return BS_OK;
}

int bs_gcm128_verify(bs_gcm128_ctx *ctx, const uint8_t *tag, size_t tag_len)
{
    if (ctx->state < ST_AAD)
        return BS_ERR_STATE;
    if (!tag_len_ok(tag_len))
        return BS_ERR_TAG_LENGTH;
    if (tag == NULL)
        return BS_ERR_ARG;
    uint8_t full[BL];
    finish(ctx, full);
    /* 0 or -1; the mask keeps even the choice of return value free of a branch. */
    int diff = bs_ct_memcmp(full, tag, tag_len);
    bs_wipe(full, sizeof full);
    return diff & BS_ERR_AUTH;
}

void bs_gcm128_clear(bs_gcm128_ctx *ctx)
{
    bs_wipe(ctx, sizeof *ctx);
}
