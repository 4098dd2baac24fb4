#include "ctr.h"

uint64_t bs_ctr_blocks_before_wrap(const uint8_t *counter, size_t len)
{
    for (size_t i = 0; i + 8 < len; i++)
        if (counter[i] != 0xff)
            return UINT64_MAX;
    uint64_t low = bs_load_be64(counter + len - 8);
    /* 2^64 - low; low == 0 means 2^64, capped. */
    return low == 0 ? UINT64_MAX : (uint64_t)0 - low;
}

size_t bs_ctr_iv_len(const bs_block_cipher *cipher)
{
    /* Blocks wider than 128 bits count from IV(16) || 0 (Rijndael-256, SPEEDY). */
    return cipher->block_len > 16 ? 16 : cipher->block_len;
}

static uint64_t absolute_limit(const bs_block_cipher *cipher)
{
    return cipher->block_len == 8 ? BS_CTR_LIMIT64_DEFAULT : UINT64_MAX;
}

void bs_ctr_set_source(bs_ctr_ctx *ctx, bs_keystream_source *src)
{
    ctx->src = src;
}

/*
 * x / bl for the per-call paths: a shift for the blocks of 8, 16 and 32 bytes (every cipher but
 * SPEEDY's 24), where a division was a third of bs_ctr_crypt's own time on 4 KiB calls
 * (perf, PRESENT-80 through the daemon). Lengths only.
 */
static inline uint64_t per_block(uint64_t x, size_t bl)
{
    switch (bl) {
    case 8:
        return x >> 3;
    case 16:
        return x >> 4;
    case 32:
        return x >> 5;
    default:
        return x / bl;
    }
}

/* Blocks of ahead[] started (partly or wholly used) and generated. */
static uint64_t ahead_started(const bs_ctr_ctx *ctx)
{
    const size_t bl = ctx->cipher->block_len;
    return (ctx->ahead_pos + bl - 1) / bl;
}

/*
 * Gives the blocks of ahead[] not started back (counter, block count, wrap budget) and keeps
 * only a partly used block, at ahead[0]: the state of a context that never read ahead.
 */
static void settle(bs_ctr_ctx *ctx)
{
    if (ctx->ahead_len == 0)
        return;
    const size_t bl = ctx->cipher->block_len;
    const uint64_t generated = ctx->ahead_len / bl, started = ahead_started(ctx);
    const uint64_t unused = generated - started;
    memcpy(ctx->counter, ctx->ahead_ctr, bl);
    bs_ctr_add(ctx->counter, bl, started);
    ctx->blocks_used -= unused;
    ctx->wrap_left += unused; /* it was at least `generated` before: no overflow */
    unsigned num = (unsigned)(ctx->ahead_pos % bl);
    if (num != 0) {
        memmove(ctx->ahead, ctx->ahead + (started - 1) * bl, bl);
        bs_ctr_add(ctx->ahead_ctr, bl, started - 1);
        bs_wipe(ctx->ahead + bl, ctx->ahead_len - bl);
        ctx->ahead_len = (unsigned)bl;
        ctx->ahead_pos = num;
    } else {
        bs_wipe(ctx->ahead, ctx->ahead_len);
        ctx->ahead_len = ctx->ahead_pos = 0;
    }
}

int bs_ctr_set_key(bs_ctr_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                   size_t key_len)
{
    if (cipher == NULL || key == NULL)
        return BS_ERR_ARG;
    if (key_len != cipher->key_len)
        return BS_ERR_KEY_LENGTH;
    /*
     * A new key goes on at the next counter block, past a partial one, whatever the cipher of
     * the old key was (settle works in the old cipher's blocks, ctx->cipher until below).
     */
    /*
     * The counter does not move with a key, and neither does the wrap: a stream that reached it
     * needs a new IV whatever key comes next (the same key again would go on from the counter's
     * first value). A core of another block length reads the counter anew.
     */
    const int same_counter = ctx->keyed && ctx->cipher->block_len == cipher->block_len;
    if (ctx->keyed)
        settle(ctx);
    const uint64_t wrap_left = ctx->wrap_left;
    ctx->cipher = cipher;
    cipher->set_key(&ctx->ks, key);
    bs_wipe(ctx->ahead, ctx->ahead_len); /* past ahead_len: zero already (ctr.h) */
    ctx->ahead_len = ctx->ahead_pos = 0;
    ctx->streaming = 0;
    ctx->blocks_used = 0;
    ctx->block_limit = absolute_limit(cipher);
    ctx->wrap_left =
        same_counter ? wrap_left : bs_ctr_blocks_before_wrap(ctx->counter, cipher->block_len);
    ctx->keyed = 1;
    if (ctx->src != NULL && ctx->src->ops->set_key != NULL)
        ctx->src->ops->set_key(ctx->src, cipher, key, key_len);
    return BS_OK;
}

int bs_ctr_rekey(bs_ctr_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key, size_t key_len)
{
    if (!ctx->keyed)
        return bs_ctr_set_key(ctx, cipher, key, key_len);
    if (cipher == NULL || key == NULL)
        return BS_ERR_ARG;
    if (key_len != cipher->key_len)
        return BS_ERR_KEY_LENGTH;
    settle(ctx); /* the count of blocks started, not of blocks read ahead */
    const uint64_t used = ctx->blocks_used, limit = ctx->block_limit;
    const int streaming = ctx->streaming;
    bs_ctr_set_key(ctx, cipher, key, key_len); /* checked above: cannot fail */
    ctx->blocks_used = used;
    ctx->streaming = streaming;   /* the stream goes on */
    if (limit < ctx->block_limit) /* ctx->block_limit: the new cipher's absolute limit */
        ctx->block_limit = limit;
    return BS_OK;
}

int bs_ctr_set_iv(bs_ctr_ctx *ctx, const uint8_t *iv, size_t iv_len)
{
    if (ctx->cipher == NULL)
        return BS_ERR_STATE;
    if (iv == NULL || iv_len != bs_ctr_iv_len(ctx->cipher))
        return BS_ERR_IV_LENGTH;
    if (ctx->keyed)
        settle(ctx); /* the block count stays exact */
    memset(ctx->counter, 0, sizeof ctx->counter);
    memcpy(ctx->counter, iv, iv_len);
    bs_wipe(ctx->ahead, ctx->ahead_len); /* past ahead_len: zero already (ctr.h) */
    ctx->ahead_len = ctx->ahead_pos = 0;
    ctx->streaming = 0;
    ctx->wrap_left = bs_ctr_blocks_before_wrap(ctx->counter, ctx->cipher->block_len);
    return BS_OK;
}

void bs_ctr_set_block_limit(bs_ctr_ctx *ctx, uint64_t max_blocks)
{
    uint64_t abs = ctx->cipher != NULL ? absolute_limit(ctx->cipher) : BS_CTR_LIMIT64_DEFAULT;
    if (ctx->keyed)
        settle(ctx);
    if (max_blocks < ctx->blocks_used)
        max_blocks = ctx->blocks_used;
    ctx->block_limit = max_blocks < abs ? max_blocks : abs;
}

void bs_ctr_keystream(const bs_block_cipher *cipher, const bs_key_schedule *ks,
                      const uint8_t *counter, uint64_t nblocks, uint8_t *out)
{
    bs_keystream_local(cipher, ks, counter, nblocks, BS_KS_STEP_BLOCK, NULL, out);
}

static uint64_t limit_room(const bs_ctr_ctx *ctx)
{
    return ctx->block_limit > ctx->blocks_used ? ctx->block_limit - ctx->blocks_used : 0;
}

uint64_t bs_ctr_blocks_left(const bs_ctr_ctx *ctx)
{
    const size_t bl = ctx->cipher->block_len;
    /* blocks generated ahead but not started are still "left" */
    uint64_t unused = ctx->ahead_len / bl - ahead_started(ctx);
    uint64_t room = limit_room(ctx);
    uint64_t left = room < ctx->wrap_left ? room : ctx->wrap_left;
    return left > UINT64_MAX - unused ? UINT64_MAX : left + unused;
}

uint64_t bs_ctr_blocks_used(const bs_ctr_ctx *ctx)
{
    const size_t bl = ctx->cipher->block_len;
    return ctx->blocks_used - (ctx->ahead_len / bl - ahead_started(ctx));
}

/* Checks a whole request first, so that a refused request changes nothing. */
static int check(const bs_ctr_ctx *ctx, uint64_t len)
{
    const size_t bl = ctx->cipher->block_len;
    uint64_t avail = ctx->ahead_len - ctx->ahead_pos;
    if (len > avail) {
        const uint64_t rest = len - avail, whole = per_block(rest, bl);
        const uint64_t need = whole + (whole * bl != rest);
        if (need > ctx->wrap_left)
            return BS_ERR_COUNTER_WRAP;
        if (need > limit_room(ctx))
            return BS_ERR_DATA_LIMIT;
    }
    return BS_OK;
}

/* n blocks from ctx->counter, XORed with in (NULL: keystream), counted as used. */
static void generate(bs_ctr_ctx *ctx, const uint8_t *in, uint8_t *out, uint64_t n)
{
    bs_keystream_fill(ctx->src, ctx->cipher, &ctx->ks, ctx->counter, n, BS_KS_STEP_BLOCK, in, out);
    bs_ctr_add(ctx->counter, ctx->cipher->block_len, n);
    ctx->blocks_used += n;
    ctx->wrap_left -= n;
}

/* Fills ahead[] with n blocks from the counter (ahead[] was used up). */
static void read_ahead(bs_ctr_ctx *ctx, uint64_t n)
{
    memcpy(ctx->ahead_ctr, ctx->counter, ctx->cipher->block_len);
    generate(ctx, NULL, ctx->ahead, n);
    ctx->ahead_len = (unsigned)(n * ctx->cipher->block_len);
    ctx->ahead_pos = 0;
}

/*
 * What is left of a call after ahead[] (len > 0, ahead[] used up), for a core with a batch:
 * whole batches straight through (the core XORs in registers), then the rest as one batch read
 * ahead (a stream's first call under batch_from blocks: what it needs, straight through where
 * that is whole blocks, else in whole passes of lanes read ahead, as cheap as the core's
 * narrower passes make either). The used keystream in ahead[] is wiped before
 * the call returns, where the new read-ahead does not overwrite it. Lengths and counts decide;
 * nothing secret.
 */
static int crypt_batched(bs_ctr_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len,
                         uint64_t lanes)
{
    const size_t bl = ctx->cipher->block_len;
    uint64_t batch = ctx->cipher->batch;
    if (batch > per_block(BS_CTR_AHEAD_BYTES, bl))
        batch = per_block(BS_CTR_AHEAD_BYTES, bl);
    const size_t used = ctx->ahead_len;
    ctx->ahead_len = ctx->ahead_pos = 0;
    const int streaming = ctx->streaming;
    ctx->streaming = 1;
    const uint64_t whole = per_block(len, bl);
    const uint64_t direct =
        (batch & (batch - 1)) == 0 ? whole & ~(batch - 1) : whole / batch * batch;
    if (direct > 0) {
        generate(ctx, in, out, direct);
        out += direct * bl;
        in += direct * bl;
        len -= direct * bl;
        if (len == 0) {
            bs_wipe(ctx->ahead, used);
            return BS_OK;
        }
    }
    const uint64_t need = per_block(len + bl - 1, bl); /* <= batch; check() left room for it */
    if (!streaming && need < ctx->cipher->batch_from && need * bl == len) {
        /* A first call of whole blocks under batch_from: straight through, nothing kept. */
        generate(ctx, in, out, need);
        bs_wipe(ctx->ahead, used);
        return BS_OK;
    }
    uint64_t n =
        streaming || need >= ctx->cipher->batch_from ? batch : (need + lanes - 1) / lanes * lanes;
    if (n > batch)
        n = batch;
    const uint64_t left = bs_ctr_blocks_left(ctx);
    read_ahead(ctx, n < left ? n : left);
    if (used > ctx->ahead_len)
        bs_wipe(ctx->ahead + ctx->ahead_len, used - ctx->ahead_len);
    bs_keystream_xor(out, in, ctx->ahead, len);
    ctx->ahead_pos = (unsigned)len;
    return BS_OK;
}

int bs_ctr_crypt(bs_ctr_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    if (!ctx->keyed)
        return BS_ERR_STATE;
    if (len == 0)
        return BS_OK;
    if (out == NULL || in == NULL)
        return BS_ERR_ARG;
    const size_t bl = ctx->cipher->block_len;
    int err = check(ctx, len);
    if (err != BS_OK)
        return err;

    size_t avail = ctx->ahead_len - ctx->ahead_pos;
    if (avail > 0) {
        size_t take = avail < len ? avail : len;
        bs_keystream_xor(out, in, ctx->ahead + ctx->ahead_pos, take);
        ctx->ahead_pos += (unsigned)take;
        out += take;
        in += take;
        len -= take;
        if (len == 0)
            return BS_OK;
    }
    uint64_t lanes = ctx->cipher->lanes < BS_LANES_MAX ? ctx->cipher->lanes : BS_LANES_MAX;
    if (lanes > per_block(BS_CTR_AHEAD_BYTES, bl))
        lanes = per_block(BS_CTR_AHEAD_BYTES, bl);
    if (ctx->cipher->batch > lanes)
        return crypt_batched(ctx, out, in, len, lanes); /* it drops the used ahead[] */
    if (ctx->ahead_len != 0) {                          /* ahead[] is used up: drop it */
        bs_wipe(ctx->ahead, ctx->ahead_len);
        ctx->ahead_len = ctx->ahead_pos = 0;
    }
    if (len < lanes * bl) {
        /* Less than a pass: take a whole pass (check() left room for the blocks needed). */
        uint64_t left = bs_ctr_blocks_left(ctx);
        read_ahead(ctx, left < lanes ? left : lanes);
        bs_keystream_xor(out, in, ctx->ahead, len);
        ctx->ahead_pos = (unsigned)len;
        return BS_OK;
    }
    uint64_t whole = per_block(len, bl);
    generate(ctx, in, out, whole);
    out += whole * bl;
    in += whole * bl;
    len -= whole * bl;
    if (len > 0) {
        read_ahead(ctx, 1);
        bs_keystream_xor(out, in, ctx->ahead, len);
        ctx->ahead_pos = (unsigned)len;
    }
    return BS_OK;
}

void bs_ctr_position(const bs_ctr_ctx *ctx, uint8_t *counter, unsigned *num)
{
    const size_t bl = ctx->cipher->block_len;
    if (ctx->ahead_len == 0) {
        memcpy(counter, ctx->counter, bl);
        *num = 0;
        return;
    }
    memcpy(counter, ctx->ahead_ctr, bl);
    bs_ctr_add(counter, bl, ahead_started(ctx));
    *num = (unsigned)(ctx->ahead_pos % bl);
}

/* Forward moves go through bs_ctr_crypt, so that the limits are checked as for data. */
int bs_ctr_set_num(bs_ctr_ctx *ctx, unsigned num)
{
    if (!ctx->keyed)
        return BS_ERR_STATE;
    const unsigned bl = ctx->cipher->block_len;
    if (num >= bl)
        return BS_ERR_ARG;
    settle(ctx);
    const unsigned cur = ctx->ahead_pos; /* after settle: the partial block's num, or 0 */
    uint8_t scratch[BS_BLOCK_MAX] = {0};
    int rc = BS_OK;
    if (cur != 0 && num != 0 && num < cur)
        ctx->ahead_pos = num; /* the pending keystream block stays valid */
    else if (cur != 0 && num == 0)
        rc = bs_ctr_crypt(ctx, scratch, scratch, bl - cur);
    else if (num > cur)
        rc = bs_ctr_crypt(ctx, scratch, scratch, num - cur);
    bs_wipe(scratch, sizeof scratch);
    /* a forward move may have read ahead: keep the state canonical */
    settle(ctx);
    return rc;
}

void bs_ctr_copy(bs_ctr_ctx *dst, const bs_ctr_ctx *src)
{
    if (dst == src)
        return;
    /* Every field but ahead[], then of ahead[] the blocks started (settle keeps the last). */
    _Static_assert(offsetof(bs_ctr_ctx, ahead_len) ==
                       offsetof(bs_ctr_ctx, ahead) + sizeof(((bs_ctr_ctx *)0)->ahead),
                   "ahead[] is followed by the rest of the fields");
    memcpy(dst, src, offsetof(bs_ctr_ctx, ahead));
    memset(dst->ahead, 0, sizeof dst->ahead);
    memcpy(&dst->ahead_len, &src->ahead_len, sizeof *dst - offsetof(bs_ctr_ctx, ahead_len));
    if (src->ahead_len == 0)
        return;
    const size_t bl = src->cipher->block_len;
    const size_t started = (size_t)ahead_started(src) * bl;
    memcpy(dst->ahead, src->ahead, started);
    /* settle reads only the started blocks (the last of them, if partly used) */
    settle(dst);
}

void bs_ctr_clear(bs_ctr_ctx *ctx)
{
    bs_wipe(ctx, sizeof *ctx);
    bs_wipe_stack(BS_STACK_WIPE_BYTES); /* what the cores' frames left (bitslice.h) */
}
