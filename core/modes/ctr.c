#include "ctr.h"

void bs_ctr_add(uint8_t *counter, size_t len, uint64_t n)
{
    /* Public data only: the counter is not secret in CTR. */
    uint64_t carry = n;
    for (size_t i = len; i-- > 0 && carry != 0;) {
        uint64_t sum = (uint64_t)counter[i] + (carry & 0xff);
        counter[i] = (uint8_t)sum;
        carry = (carry >> 8) + (sum >> 8);
    }
}

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

int bs_ctr_set_key(bs_ctr_ctx *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                   size_t key_len)
{
    if (cipher == NULL || key == NULL)
        return BS_ERR_ARG;
    if (key_len != cipher->key_len)
        return BS_ERR_KEY_LENGTH;
    ctx->cipher = cipher;
    ctx->ctr32 = bs_ctr32_for(cipher);
    cipher->set_key(&ctx->ks, key);
    bs_wipe(ctx->stream, sizeof ctx->stream);
    ctx->num = 0;
    ctx->blocks_used = 0;
    ctx->block_limit = absolute_limit(cipher);
    ctx->wrap_left = bs_ctr_blocks_before_wrap(ctx->counter, cipher->block_len);
    ctx->keyed = 1;
    return BS_OK;
}

int bs_ctr_set_iv(bs_ctr_ctx *ctx, const uint8_t *iv, size_t iv_len)
{
    if (ctx->cipher == NULL)
        return BS_ERR_STATE;
    if (iv == NULL || iv_len != bs_ctr_iv_len(ctx->cipher))
        return BS_ERR_IV_LENGTH;
    memset(ctx->counter, 0, sizeof ctx->counter);
    memcpy(ctx->counter, iv, iv_len);
    bs_wipe(ctx->stream, sizeof ctx->stream);
    ctx->num = 0;
    ctx->wrap_left = bs_ctr_blocks_before_wrap(ctx->counter, ctx->cipher->block_len);
    return BS_OK;
}

void bs_ctr_set_block_limit(bs_ctr_ctx *ctx, uint64_t max_blocks)
{
    uint64_t abs = ctx->cipher != NULL ? absolute_limit(ctx->cipher) : BS_CTR_LIMIT64_DEFAULT;
    ctx->block_limit = max_blocks < abs ? max_blocks : abs;
}

/* Writes n consecutive counter blocks starting at ctr into out, and advances ctr by n. */
static void fill_counters(uint8_t *ctr, size_t bl, size_t n, uint8_t *out)
{
    uint64_t low = bs_load_be64(ctr + bl - 8);
    if (low <= UINT64_MAX - n) {
        /* No carry out of the low 64 bits inside this batch: write them directly. */
        for (size_t i = 0; i < n; i++) {
            memcpy(out + i * bl, ctr, bl - 8);
            bs_store_be64(out + i * bl + bl - 8, low + i);
        }
        bs_ctr_add(ctr, bl, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(out + i * bl, ctr, bl);
        bs_ctr_add(ctr, bl, 1);
    }
}

/*
 * n whole blocks through a core's own counter mode, which counts the last 4 bytes modulo 2^32:
 * split where they wrap, and carry here. Advances ctr by n. in NULL: keystream only.
 */
static void ctr32_blocks(bs_ctr32_fn f, const bs_key_schedule *ks, uint8_t *ctr, size_t bl,
                         const uint8_t *in, uint8_t *out, uint64_t n)
{
    while (n > 0) {
        uint64_t room = ((uint64_t)1 << 32) - bs_load_be32(ctr + bl - 4);
        size_t m = (size_t)(n < room ? n : room);
        f(ks, ctr, in, out, m);
        bs_ctr_add(ctr, bl, m);
        if (in != NULL)
            in += m * bl;
        out += m * bl;
        n -= m;
    }
}

void bs_ctr_keystream(const bs_block_cipher *cipher, const bs_key_schedule *ks,
                      const uint8_t *counter, uint64_t nblocks, uint8_t *out)
{
    const size_t bl = cipher->block_len;
    uint8_t ctr[BS_BLOCK_MAX];
    memcpy(ctr, counter, bl);
    bs_ctr32_fn f = bs_ctr32_for(cipher);
    if (f != NULL) {
        ctr32_blocks(f, ks, ctr, bl, NULL, out, nblocks);
        return;
    }
    while (nblocks > 0) {
        size_t n = nblocks < BS_LANES_MAX ? (size_t)nblocks : BS_LANES_MAX;
        fill_counters(ctr, bl, n, out);
        cipher->encrypt(ks, out, out, n);
        out += n * bl;
        nblocks -= n;
    }
}

static void xor_bytes(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, in + i, 8);
        memcpy(&b, ks + i, 8);
        a ^= b;
        memcpy(out + i, &a, 8);
    }
    for (; i < n; i++)
        out[i] = in[i] ^ ks[i];
}

static uint64_t limit_room(const bs_ctr_ctx *ctx)
{
    return ctx->block_limit > ctx->blocks_used ? ctx->block_limit - ctx->blocks_used : 0;
}

uint64_t bs_ctr_blocks_left(const bs_ctr_ctx *ctx)
{
    uint64_t room = limit_room(ctx);
    return room < ctx->wrap_left ? room : ctx->wrap_left;
}

/* Checks a whole request first, so that a refused request changes nothing. */
int bs_ctr_check(const bs_ctr_ctx *ctx, uint64_t len)
{
    const size_t bl = ctx->cipher->block_len;
    uint64_t pending = ctx->num ? bl - ctx->num : 0;
    if (len > pending) {
        uint64_t need = (len - pending) / bl + (((len - pending) % bl) != 0);
        if (need > ctx->wrap_left)
            return BS_ERR_COUNTER_WRAP;
        if (need > limit_room(ctx))
            return BS_ERR_DATA_LIMIT;
    }
    return BS_OK;
}

int bs_ctr_seek(bs_ctr_ctx *ctx, uint64_t nbytes)
{
    if (!ctx->keyed)
        return BS_ERR_STATE;
    int err = bs_ctr_check(ctx, nbytes);
    if (err != BS_OK)
        return err;
    const size_t bl = ctx->cipher->block_len;
    uint64_t pending = ctx->num ? bl - ctx->num : 0;
    uint64_t take = pending < nbytes ? pending : nbytes;
    ctx->num = (unsigned)((ctx->num + take) % bl);
    nbytes -= take;
    uint64_t full = nbytes / bl, rem = nbytes % bl;
    bs_ctr_add(ctx->counter, bl, full);
    ctx->blocks_used += full;
    ctx->wrap_left -= full;
    if (rem > 0) {
        bs_ctr_keystream(ctx->cipher, &ctx->ks, ctx->counter, 1, ctx->stream);
        bs_ctr_add(ctx->counter, bl, 1);
        ctx->blocks_used += 1;
        ctx->wrap_left -= 1;
        ctx->num = (unsigned)rem;
    }
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
    int err = bs_ctr_check(ctx, len);
    if (err != BS_OK)
        return err;
    size_t pending = ctx->num ? bl - ctx->num : 0;

    size_t take = pending < len ? pending : len;
    xor_bytes(out, in, ctx->stream + ctx->num, take);
    ctx->num = (unsigned)((ctx->num + take) % bl);
    out += take;
    in += take;
    len -= take;

    if (ctx->ctr32 != NULL && len >= bl) {
        /* The core's counter mode XORs in registers: no keystream buffer. */
        uint64_t n = len / bl;
        ctr32_blocks(ctx->ctr32, &ctx->ks, ctx->counter, bl, in, out, n);
        ctx->blocks_used += n;
        ctx->wrap_left -= n;
        out += n * bl;
        in += n * bl;
        len -= n * bl;
    }
    uint8_t buf[BS_LANES_MAX * BS_BLOCK_MAX];
    size_t used = 0;
    while (len >= bl) {
        size_t n = len / bl < ctx->cipher->lanes ? len / bl : ctx->cipher->lanes;
        if (n > BS_LANES_MAX)
            n = BS_LANES_MAX;
        bs_ctr_keystream(ctx->cipher, &ctx->ks, ctx->counter, n, buf);
        used = n * bl > used ? n * bl : used;
        bs_ctr_add(ctx->counter, bl, n);
        ctx->blocks_used += n;
        ctx->wrap_left -= n;
        xor_bytes(out, in, buf, n * bl);
        out += n * bl;
        in += n * bl;
        len -= n * bl;
    }
    if (len > 0) {
        bs_ctr_keystream(ctx->cipher, &ctx->ks, ctx->counter, 1, ctx->stream);
        bs_ctr_add(ctx->counter, bl, 1);
        ctx->blocks_used += 1;
        ctx->wrap_left -= 1;
        xor_bytes(out, in, ctx->stream, len);
        ctx->num = (unsigned)len;
    }
    bs_wipe(buf, used);
    return BS_OK;
}

void bs_ctr_clear(bs_ctr_ctx *ctx)
{
    bs_wipe(ctx, sizeof *ctx);
}
