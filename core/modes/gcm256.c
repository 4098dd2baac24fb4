/*
 * gcm256.c: RIJNDAEL-256-GCM, incremental (docs/spec/rijndael256-gcm.md, limits of
 * docs/spec/algorithms.md). CTR with inc32 over the preferred Rijndael-256 core, its keystream
 * pulled from the context's source (keystream.h), GHASH-256 through the implementation chosen at
 * set_key. E_K(J0), the tag's mask, is always computed here. A refused call changes nothing.
 */
#include "gcm256.h"
#include "gcm256_bulk.h"

#define BL 32

/* ctx->state */
enum {
    ST_NONE = 0, /* no key */
    ST_KEYED,    /* key set; needs an IV (also after tag/verify) */
    ST_AAD,      /* IV set; AAD may follow */
    ST_ENC,      /* encrypting */
    ST_DEC,      /* decrypting */
};

/* AAD below 2^61 bytes (docs/spec/algorithms.md). */
#define AAD_MAX (((uint64_t)1 << 61) - 1)
#define DATA_MAX (BS_GCM256_MAX_BLOCKS * BL)

static void inc32(uint8_t *cb)
{
    bs_store_be32(cb + BL - 4, bs_load_be32(cb + BL - 4) + 1);
}

static void ghash_absorb(bs_gcm256_ctx *ctx, const uint8_t *p, size_t len)
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
static void ghash_pad(bs_gcm256_ctx *ctx)
{
    if (ctx->ghbuf_len > 0) {
        memset(ctx->ghbuf + ctx->ghbuf_len, 0, BL - ctx->ghbuf_len);
        ctx->ghash->mul_blocks(ctx->hkey, ctx->y, ctx->ghbuf, 1);
        ctx->ghbuf_len = 0;
    }
    bs_wipe(ctx->ghbuf, BL);
}

static void ghash_lengths(bs_gcm256_ctx *ctx, uint64_t a_bytes, uint64_t c_bytes)
{
    uint8_t lens[BL] = {0};
    bs_store_be64(lens + 8, a_bytes << 3);
    bs_store_be64(lens + 24, c_bytes << 3);
    ctx->ghash->mul_blocks(ctx->hkey, ctx->y, lens, 1);
}

static void ghash_key(bs_gcm256_ctx *ctx)
{
    uint8_t h[BL] = {0};
    ctx->cipher->encrypt(&ctx->ks, h, h, 1);
    ctx->ghash->init(ctx->hkey, h);
    bs_wipe(h, sizeof h);
}

int bs_gcm256_set_key(bs_gcm256_ctx *ctx, const uint8_t *key, size_t key_len)
{
    const bs_block_cipher *c = bs_block_cipher_by_name("RIJNDAEL-256");
    if (ctx == NULL || key == NULL)
        return BS_ERR_ARG;
    if (c == NULL || c->block_len != BL)
        return BS_ERR_STATE;
    if (key_len != c->key_len)
        return BS_ERR_KEY_LENGTH;
    bs_keystream_source *src = ctx->src;
    bs_gcm256_clear(ctx);
    ctx->src = src;
    ctx->cipher = c;
    ctx->ctr32 = bs_ctr32_for(c);
    ctx->ghash = bs_ghash256_default();
    c->set_key(&ctx->ks, key);
    ghash_key(ctx);
    ctx->state = ST_KEYED;
    if (src != NULL && src->ops->set_key != NULL)
        src->ops->set_key(src, c, key, key_len);
    return BS_OK;
}

void bs_gcm256_set_source(bs_gcm256_ctx *ctx, bs_keystream_source *src)
{
    ctx->src = src;
}

void bs_gcm256_set_ghash(bs_gcm256_ctx *ctx, const bs_ghash256_impl *impl)
{
    if (ctx->state == ST_NONE)
        return;
    ctx->ghash = impl != NULL ? impl : bs_ghash256_default();
    ghash_key(ctx);
    /* The accumulator of a message under way is lost: start over with a new IV. */
    ctx->state = ST_KEYED;
}

int bs_gcm256_set_iv(bs_gcm256_ctx *ctx, const uint8_t *iv, size_t iv_len)
{
    if (ctx->state == ST_NONE)
        return BS_ERR_STATE;
    if (iv == NULL || iv_len == 0 || ((uint64_t)iv_len >> 61) != 0)
        return BS_ERR_IV_LENGTH;
    memset(ctx->y, 0, BL);
    ctx->ghbuf_len = 0;
    if (iv_len == 28) {
        memcpy(ctx->j0, iv, 28);
        bs_store_be32(ctx->j0 + 28, 1);
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
    bs_wipe(ctx->ekj0, BL);
    ctx->ekj0_ready = 0;
    ctx->num = 0;
    ctx->aad_len = 0;
    ctx->data_len = 0;
    ctx->state = ST_AAD;
    return BS_OK;
}

int bs_gcm256_aad(bs_gcm256_ctx *ctx, const uint8_t *aad, size_t len)
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

/*
 * Keystream for n blocks from ctx->counter, into buf (room for n + 1 blocks); advances the
 * counter. E_K(J0), needed by the tag, rides along in a spare lane of the first pass, which
 * saves a whole pass of the core on short messages.
 */
static void keystream(bs_gcm256_ctx *ctx, uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + i * BL, ctx->counter, BL);
        inc32(ctx->counter);
    }
    if (!ctx->ekj0_ready && n < ctx->cipher->lanes) {
        memcpy(buf + n * BL, ctx->j0, BL);
        ctx->cipher->encrypt(&ctx->ks, buf, buf, n + 1);
        memcpy(ctx->ekj0, buf + n * BL, BL);
        bs_wipe(buf + n * BL, BL);
        ctx->ekj0_ready = 1;
    } else {
        ctx->cipher->encrypt(&ctx->ks, buf, buf, n);
    }
}

static int gcm_crypt(bs_gcm256_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len, int st)
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
        if (len == 0)
            return BS_OK;
    }

    const size_t lanes = ctx->cipher->lanes < BS_LANES_MAX ? ctx->cipher->lanes : BS_LANES_MAX;
    const size_t blocks = len / BL + (len % BL != 0);
    const int inproc = ctx->src == NULL || ctx->src == &bs_keystream_inproc;
    BS_ALIGN(32) uint8_t buf[(BS_LANES_MAX + 1) * BL];
    if (inproc && ctx->ctr32 == NULL && blocks <= lanes) {
        /* At most a pass in-process: one pass of the core (E_K(J0) in a spare lane if due). */
        keystream(ctx, buf, blocks);
        if (dec)
            ghash_absorb(ctx, in, len);
        bs_keystream_xor(out, in, buf, len);
        if (!dec)
            ghash_absorb(ctx, out, len);
        if (len % BL != 0) { /* the last block is partial: keep its keystream */
            memcpy(ctx->stream, buf + (blocks - 1) * BL, BL);
            ctx->num = (unsigned)(len % BL);
        }
        bs_wipe(buf, sizeof buf);
        return BS_OK;
    }
    if (inproc && ctx->ctr32 != NULL && len >= BL) {
        /* In-process, a stitched CTR + GHASH loop takes what it can (gcm256_bulk.h). */
        const bs_gcm256_bulk_fn bulk = bs_gcm256_bulk_for(ctx->cipher, ctx->ghash);
        const size_t done =
            bulk != NULL ? bulk(&ctx->ks, ctx->hkey, ctx->counter, ctx->y, in, out, len / BL, dec)
                         : 0;
        out += done * BL;
        in += done * BL;
        len -= done * BL;
    }
    /*
     * Whole blocks from the source (inc32 is the counting rule), in pieces small enough that
     * GHASH reads what CTR wrote, or decrypt's input, while in cache.
     */
    size_t whole = len / BL;
    while (whole > 0) {
        size_t n = whole < 128 ? whole : 128;
        if (dec)
            ctx->ghash->mul_blocks(ctx->hkey, ctx->y, in, n);
        bs_keystream_fill(ctx->src, ctx->cipher, &ctx->ks, ctx->counter, n, BS_KS_STEP_INC32, in,
                          out);
        if (!dec)
            ctx->ghash->mul_blocks(ctx->hkey, ctx->y, out, n);
        bs_keystream_advance(ctx->counter, BL, n, BS_KS_STEP_INC32);
        out += n * BL;
        in += n * BL;
        len -= n * BL;
        whole -= n;
    }
    if (len > 0) { /* a partial last block: keep its keystream */
        if (inproc) {
            keystream(ctx, buf, 1); /* E_K(J0) rides along if due */
            memcpy(ctx->stream, buf, BL);
            bs_wipe(buf, 2 * BL);
        } else {
            bs_keystream_fill(ctx->src, ctx->cipher, &ctx->ks, ctx->counter, 1, BS_KS_STEP_INC32,
                              NULL, ctx->stream);
            bs_keystream_advance(ctx->counter, BL, 1, BS_KS_STEP_INC32);
        }
        if (dec)
            ghash_absorb(ctx, in, len);
        bs_keystream_xor(out, in, ctx->stream, len);
        if (!dec)
            ghash_absorb(ctx, out, len);
        ctx->num = (unsigned)len;
    }
    return BS_OK;
}

int bs_gcm256_encrypt(bs_gcm256_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return gcm_crypt(ctx, out, in, len, ST_ENC);
}

int bs_gcm256_decrypt(bs_gcm256_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return gcm_crypt(ctx, out, in, len, ST_DEC);
}

static int tag_len_ok(size_t tag_len)
{
    return tag_len >= BS_GCM256_TAG_MIN && tag_len <= BS_GCM256_TAG_MAX && tag_len % 4 == 0;
}

/* T = E_K(J0) ^ GHASH(...); leaves the context keyed, waiting for an IV. */
static void finish(bs_gcm256_ctx *ctx, uint8_t full[BL])
{
    ghash_pad(ctx);
    ghash_lengths(ctx, ctx->aad_len, ctx->data_len);
    if (!ctx->ekj0_ready)
        ctx->cipher->encrypt(&ctx->ks, ctx->ekj0, ctx->j0, 1);
    for (int i = 0; i < BL; i++)
        full[i] = ctx->ekj0[i] ^ ctx->y[i];
    bs_wipe(ctx->ekj0, BL);
    ctx->ekj0_ready = 0;
    bs_wipe(ctx->y, BL);
    bs_wipe(ctx->stream, BL);
    ctx->num = 0;
    ctx->state = ST_KEYED;
}

int bs_gcm256_tag(bs_gcm256_ctx *ctx, uint8_t *tag, size_t tag_len)
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

int bs_gcm256_verify(bs_gcm256_ctx *ctx, const uint8_t *tag, size_t tag_len)
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

void bs_gcm256_clear(bs_gcm256_ctx *ctx)
{
    bs_wipe(ctx, sizeof *ctx);
}
