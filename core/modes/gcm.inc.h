/*
 * gcm.inc.h: GCM (NIST SP 800-38D) over any block size, a template include: gcm128.c (AES-GCM,
 * 16-byte blocks, GHASH-128) and gcm256.c (RIJNDAEL-256-GCM, 32-byte blocks, GHASH-256,
 * docs/spec/rijndael256-gcm.md) each instantiate it once. Incremental: set_key, set_iv, aad*,
 * encrypt*|decrypt*, then tag or verify; a refused call changes nothing.
 *
 * The includer defines, and #undefs after:
 *   GCM_BL            the block length in bytes (16 or 32)
 *   GCM_CTX           the context type (the fields named below, gcm128.h / gcm256.h)
 *   GCM_GHASH         the GHASH implementation type ({name, constant_time, init, mul_blocks})
 *   GCM_GHASH_DEFAULT what set_key picks, a function of no argument
 *   GCM_FN(x)         the public name of function x (bs_gcm128_x, bs_gcm256_x)
 *   GCM_MAX_BLOCKS    blocks of data per IV
 *   GCM_TAG_MIN, GCM_TAG_MAX, GCM_TAG_STEP  the tag lengths accepted
 *   GCM_PASS          blocks per pass of the in-process keystream buffer (at least the widest
 *                     core's lanes, so that a pass is a full pass of the core)
 * and optionally
 *   GCM_FACE          the context has a `face` (core/aes/aes_ctr_face.h) that, when set,
 *                     produces the in-process keystream of the passes
 *   GCM_BULK_FOR      (cipher, ghash) -> a stitched CTR + GHASH loop (gcm256_bulk.h) or NULL,
 *   GCM_START_FOR     (cipher, ghash) -> an in-register start for IVs that go by GHASH
 *                     (gcm256_bulk.h: J0 alone) or NULL; optional, with GCM_GHASH_LAZY,
 *                     used in-process where the core has its own counter mode
 *   GCM_BULK_BLOCKS   the key powers that loop uses (with GCM_BULK_FOR and GCM_GHASH_LAZY)
 *   GCM_BULK_MASK_FOR (cipher, ghash) -> the same loop that also makes E_K(J0) (gcm256_bulk.h)
 *                     or NULL: taken for a message's first data while E_K(J0) is due
 *   GCM_PROFILE       the context has `ctr_bytes` and `direct_iv` (0: the defaults 4 and
 *                     GCM_BL - 4): the counter field's width in bytes (incremented modulo
 *                     2^(8 ctr_bytes), the fast paths only at 4) and the IV length that gives J0
 *                     directly (IV || 0..0 || 1); GCM_FN(set_profile) sets them
 *   GCM_GHASH_DEFER   (with GCM_GHASH_LAZY) up to this many single blocks wait in the context's
 *                     `ghpend` (`npend` of them) and go into GHASH in one call (ghash_mul)
 *   GCM_GHASH_LAZY    the GHASH type has init_first / extend / max_powers / power_words and the
 *                     context `hpow` and `pre`: H is made with the first IV under a key (with
 *                     E_K(J0) and the first keystream block in one call of the core where the
 *                     core has its own counter mode in-process); where an implementation has
 *                     them, only the first key power, and each GHASH call extends the key form to
 *                     the powers it uses (a 16-byte message under a fresh key needs H alone)
 *
 * Re-keying wipes what the previous key wrote and the new one does not overwrite, once: the key
 * schedule only where the core changes (a core's set_key writes the same words for every key),
 * the GHASH key form as far as it was computed, and the per-message fields. The context must be
 * zeroed (static, calloc) or cleared before its first set_key, as set_source already requires.
 *
 * Where the data keystream comes from (gcm_crypt):
 *   - in-process without the core's own counter mode (or through FACE): passes of GCM_PASS
 *     blocks into a stack buffer, GHASH over each pass while it is in cache; E_K(J0), the tag's
 *     mask, rides along in a spare lane of the first pass (a whole pass of the core saved on
 *     short messages);
 *   - else whole blocks from the context's source (keystream.h: the in-process core's counter
 *     mode, or the daemon), after a stitched loop if there is one, and the partial last block
 *     on its own. E_K(J0) never comes from a source: a faulty producer can garble data but
 *     cannot choose the mask of a tag.
 * No include guard, on purpose.
 */

#define BL GCM_BL

/*
 * The wipes written in place on 64-bit hosts: 64 bytes at a time, each piece's stores kept by an
 * empty asm that reads the pointer and clobbers memory. The compiler then writes vector stores,
 * where a memset call (a dozen a re-keyed short message) or a `rep stos` (which it chose for the
 * key setup's few hundred bytes, and whose start-up cost more than the whole wipe: perf gave it
 * three quarters of set_key_iv's time on a re-keyed 16-byte message) cost more. From 256 bytes
 * (the key form, the fields after it) bs_wipe_large's wider stores: the key form of a message of
 * 16 blocks or more is 3.5 KiB. 32-bit targets keep bs_wipe (its word stores: picolibc's memset
 * is a byte loop).
 */
#if UINTPTR_MAX > 0xffffffffu && (defined(__GNUC__) || defined(__clang__))
static inline void gcm_wipe(void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    if (n >= 256) {
        bs_wipe_large(p, n);
        return;
    }
    for (; n >= 64; n -= 64, b += 64) {
        __builtin_memset(b, 0, 64);
        __asm__ __volatile__("" : : "r"(b) : "memory");
    }
    if (n > 0) {
        __builtin_memset(b, 0, n);
        __asm__ __volatile__("" : : "r"(b) : "memory");
    }
}
#define GCM_WIPE(p, n) gcm_wipe((p), (n))
#else
#define GCM_WIPE(p, n) bs_wipe((p), (n))
#endif

/* ctx->state */
enum {
    ST_NONE = 0, /* no key */
    ST_KEYED,    /* key set; needs an IV (also after tag/verify) */
    ST_AAD,      /* IV set; AAD may follow */
    ST_ENC,      /* encrypting */
    ST_DEC,      /* decrypting */
};

/* AAD below 2^61 bytes (SP 800-38D, docs/spec/algorithms.md). */
#define AAD_MAX (((uint64_t)1 << 61) - 1)
#define DATA_MAX (GCM_MAX_BLOCKS * BL)
/* Whole blocks per source call: small enough that GHASH reads what CTR wrote while in cache. */
#define SOURCE_PIECE 128

static void inc32(uint8_t *cb)
{
    bs_store_be32(cb + BL - 4, bs_load_be32(cb + BL - 4) + 1);
}

#ifdef GCM_PROFILE
static unsigned ctr_bytes(const GCM_CTX *ctx)
{
    return ctx->ctr_bytes != 0 ? ctx->ctr_bytes : 4;
}

static size_t direct_iv(const GCM_CTX *ctx)
{
    return ctx->direct_iv != 0 ? ctx->direct_iv : BL - 4;
}

/* cb's counter field (its last w bytes, big-endian) plus v, modulo 2^(8w); no branch on it (a
 * counter from a J0 made by GHASH depends on the key). */
static void ctr_add(uint8_t *cb, unsigned w, uint64_t v)
{
    unsigned carry = 0;
    for (unsigned i = 0; i < w; i++) {
        unsigned sum = cb[BL - 1 - i] + (unsigned)(v & 0xff) + carry;
        cb[BL - 1 - i] = (uint8_t)sum;
        carry = sum >> 8;
        v >>= 8;
    }
}

/* Blocks of data per IV: GCM_MAX_BLOCKS, or the counter field's room where it is narrower. */
static uint64_t max_blocks(const GCM_CTX *ctx)
{
    const unsigned w = ctr_bytes(ctx);
    return w >= 4 ? GCM_MAX_BLOCKS : ((uint64_t)1 << (8 * w)) - 2;
}

int GCM_FN(set_profile)(GCM_CTX *ctx, unsigned ctr_bits, size_t direct_iv_len)
{
    const unsigned w = ctr_bits / 8;
    if (ctx == NULL || ctr_bits % 8 != 0 || w < 1 || w > BL / 2 || direct_iv_len == 0 ||
        direct_iv_len > BL - w)
        return BS_ERR_ARG;
    /* The daemon's keystream counts by inc32 only. */
    if (w != 4 && ctx->src != NULL && ctx->src != &bs_keystream_inproc)
        return BS_ERR_ARG;
    ctx->ctr_bytes = w;
    ctx->direct_iv = (unsigned)direct_iv_len;
    if (ctx->state > ST_KEYED)
        ctx->state = ST_KEYED; /* a message under way needs its IV again */
    return BS_OK;
}
#define CTR_WIDE(ctx) (ctr_bytes(ctx) != 4)
#define DIRECT_IV(ctx) direct_iv(ctx)
#else
#define CTR_WIDE(ctx) 0
#define DIRECT_IV(ctx) (BL - 4)
#endif

/* The key form as far as it is computed: words that hold key material. */
static size_t hkey_words(const GCM_CTX *ctx)
{
#ifdef GCM_GHASH_LAZY
    if (ctx->ghash != NULL && ctx->ghash->extend != NULL) {
        /* With every power made, the words that follow the entries too (form_words). */
        const size_t w = ctx->hpow >= ctx->ghash->max_powers
                             ? ctx->ghash->form_words
                             : (size_t)ctx->hpow * ctx->ghash->power_words;
        return w < sizeof ctx->hkey / sizeof ctx->hkey[0] ? w
                                                          : sizeof ctx->hkey / sizeof ctx->hkey[0];
    }
#endif
    (void)ctx;
    return sizeof ctx->hkey / sizeof ctx->hkey[0];
}

/* Extends the key form to the powers a GHASH call over n blocks uses (n is public). */
static inline void ghash_powers(GCM_CTX *ctx, size_t n)
{
#ifdef GCM_GHASH_LAZY
    if (n > ctx->hpow && ctx->ghash->extend != NULL && ctx->hpow < ctx->ghash->max_powers) {
        const unsigned want = n < ctx->ghash->max_powers ? (unsigned)n : ctx->ghash->max_powers;
        ctx->ghash->extend(ctx->hkey, ctx->hpow, want);
        ctx->hpow = want;
    }
#else
    (void)ctx;
    (void)n;
#endif
}

#ifdef GCM_GHASH_DEFER
/* The blocks waiting in ghpend go into y, in one call (one reduction where GHASH aggregates). */
static void ghash_flush(GCM_CTX *ctx)
{
    const size_t n = ctx->npend;
    if (n > 0) {
        ctx->npend = 0;
        ghash_powers(ctx, n);
        ctx->ghash->mul_blocks(ctx->hkey, ctx->y, ctx->ghpend, n);
    }
}

/*
 * Whether single blocks wait: where the key form holds GCM_GHASH_DEFER powers, or can be extended
 * to them when they go in (ghash_flush: then only to as many as wait).
 */
static inline int ghash_defers(const GCM_CTX *ctx)
{
    return ctx->hpow >= GCM_GHASH_DEFER || (ctx->hpow > 0 && ctx->ghash->extend != NULL &&
                                            ctx->ghash->max_powers >= GCM_GHASH_DEFER);
}
#else
static inline void ghash_flush(GCM_CTX *ctx)
{
    (void)ctx;
}
#endif

/*
 * y = GHASH update over n whole blocks, the key form extended first where it is lazy. With
 * GCM_GHASH_DEFER, where the key form holds that many powers or can be extended to them (made
 * then only as far as the waiting blocks need: a re-keyed 16-byte message makes H^2, not H^4
 * at the IV), single blocks (a padded partial block, the lengths) wait in ghpend and go in
 * together: a short message's AAD, data and lengths blocks are one product level by H^3, H^2, H
 * instead of three products one after another. Whatever reads y flushes them first.
 */
static void ghash_mul(GCM_CTX *ctx, const uint8_t *blocks, size_t n)
{
#ifdef GCM_GHASH_DEFER
    if (n == 1 && ghash_defers(ctx)) {
        if (ctx->npend == GCM_GHASH_DEFER)
            ghash_flush(ctx);
        memcpy(ctx->ghpend + BL * ctx->npend, blocks, BL);
        ctx->npend++;
        return;
    }
    ghash_flush(ctx);
#endif
    ghash_powers(ctx, n);
    ctx->ghash->mul_blocks(ctx->hkey, ctx->y, blocks, n);
}

static void ghash_absorb(GCM_CTX *ctx, const uint8_t *p, size_t len)
{
    if (ctx->ghbuf_len > 0) {
        size_t take = BL - ctx->ghbuf_len < len ? BL - ctx->ghbuf_len : len;
        memcpy(ctx->ghbuf + ctx->ghbuf_len, p, take);
        ctx->ghbuf_len += (unsigned)take;
        p += take;
        len -= take;
        if (ctx->ghbuf_len < BL)
            return;
        ghash_mul(ctx, ctx->ghbuf, 1);
        ctx->ghbuf_len = 0;
    }
    if (len >= BL) {
        ghash_mul(ctx, p, len / BL);
        p += len - len % BL;
        len %= BL;
    }
    memcpy(ctx->ghbuf, p, len);
    ctx->ghbuf_len = (unsigned)len;
}

/* Zero-pads a pending partial block into GHASH. */
static void ghash_pad(GCM_CTX *ctx)
{
    if (ctx->ghbuf_len > 0) {
        memset(ctx->ghbuf + ctx->ghbuf_len, 0, BL - ctx->ghbuf_len);
        ghash_mul(ctx, ctx->ghbuf, 1);
        ctx->ghbuf_len = 0;
    }
    GCM_WIPE(ctx->ghbuf, BL);
}

/* The lengths block: the bit lengths as 64-bit big-endian integers ending each half block. */
static void ghash_lengths(GCM_CTX *ctx, uint64_t a_bytes, uint64_t c_bytes)
{
    uint8_t lens[BL] = {0};
    bs_store_be64(lens + BL / 2 - 8, a_bytes << 3);
    bs_store_be64(lens + BL - 8, c_bytes << 3);
    ghash_mul(ctx, lens, 1);
}

#ifdef GCM_GHASH_LAZY
/* The key form of H under ctx->ghash: its first power where it is lazy; hpow > 0 after. */
static void ghash_key_from(GCM_CTX *ctx, const uint8_t h[BL])
{
    if (ctx->ghash->extend != NULL) {
        ctx->ghash->init_first(ctx->hkey, h);
        ctx->hpow = 1;
    } else {
        ctx->ghash->init(ctx->hkey, h);
        ctx->hpow = 1; /* made (hkey_words counts the whole form) */
    }
}
#else
/* The key form of H = E_K(0) under ctx->ghash. */
static void ghash_key(GCM_CTX *ctx)
{
    uint8_t h[BL] = {0};
    ctx->cipher->encrypt(&ctx->ks, h, h, 1);
    ctx->ghash->init(ctx->hkey, h);
    GCM_WIPE(h, sizeof h);
}
#endif

/* set_key's checks: BS_OK or the error set_key returns. */
static int key_args(const GCM_CTX *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                    size_t key_len)
{
    if (ctx == NULL || cipher == NULL || key == NULL || cipher->block_len != BL)
        return BS_ERR_ARG;
    if (key_len != cipher->key_len)
        return BS_ERR_KEY_LENGTH;
    return BS_OK;
}

/* Everything set_key does but expand the key and tell the source (checked already). */
static void rekey(GCM_CTX *ctx, const bs_block_cipher *cipher)
{
    bs_keystream_source *src = ctx->src;
#ifdef GCM_PROFILE
    const unsigned keep_ctr = ctx->ctr_bytes, keep_iv = ctx->direct_iv;
#endif
    /*
     * Not clear() (a new key needs no stack wipe), and not the whole context: the old key's
     * schedule is overwritten word for word by the same core's set_key, so it is wiped only where
     * the core changes; the key form as far as it was computed; every other field.
     */
    if (ctx->state != ST_NONE) {
        if (ctx->cipher != cipher)
            GCM_WIPE(&ctx->ks, sizeof ctx->ks);
        GCM_WIPE(ctx->hkey, hkey_words(ctx) * sizeof ctx->hkey[0]);
    }
    GCM_WIPE(ctx, offsetof(GCM_CTX, ks));
    GCM_WIPE((uint8_t *)ctx + offsetof(GCM_CTX, hkey) + sizeof ctx->hkey,
             sizeof *ctx - offsetof(GCM_CTX, hkey) - sizeof ctx->hkey);
    ctx->src = src;
#ifdef GCM_PROFILE
    ctx->ctr_bytes = keep_ctr;
    ctx->direct_iv = keep_iv;
#endif
    ctx->cipher = cipher;
    ctx->ctr32 = cipher->ctr32;
    ctx->ghash = GCM_GHASH_DEFAULT();
}

int GCM_FN(set_key)(GCM_CTX *ctx, const bs_block_cipher *cipher, const uint8_t *key, size_t key_len)
{
    const int rc = key_args(ctx, cipher, key, key_len);
    if (rc != BS_OK)
        return rc;
    rekey(ctx, cipher);
    cipher->set_key(&ctx->ks, key);
#ifdef GCM_GHASH_LAZY
    /* H comes with the first IV (hpow 0: not yet), in the same call of the core as E_K(J0). */
#else
    ghash_key(ctx);
#endif
    ctx->state = ST_KEYED;
    if (ctx->src != NULL && ctx->src->ops->set_key != NULL)
        ctx->src->ops->set_key(ctx->src, cipher, key, key_len);
    return BS_OK;
}

void GCM_FN(set_source)(GCM_CTX *ctx, bs_keystream_source *src)
{
    ctx->src = src;
}

void GCM_FN(set_ghash)(GCM_CTX *ctx, const GCM_GHASH *impl)
{
    if (ctx->state == ST_NONE)
        return;
    GCM_WIPE(ctx->hkey, hkey_words(ctx) * sizeof ctx->hkey[0]);
    ctx->ghash = impl != NULL ? impl : GCM_GHASH_DEFAULT();
#ifdef GCM_GHASH_LAZY
    ctx->hpow = 0; /* made again with the next IV */
    ctx->pre = 0;
#else
    ghash_key(ctx);
#endif
    /* The accumulator of a message under way is lost: start over with a new IV. */
    ctx->state = ST_KEYED;
}

static int iv_args(const uint8_t *iv, size_t iv_len)
{
    return iv == NULL || iv_len == 0 || ((uint64_t)iv_len >> 61) != 0 ? BS_ERR_IV_LENGTH : BS_OK;
}

/*
 * set_iv once checked. key not NULL (set_key_iv, with H still due): the key is expanded now, by
 * the core's set_key_encrypt, beside H (and, on the early path, E_K(J0) and E_K(J0 + 1)).
 */
static void start_iv(GCM_CTX *ctx, const uint8_t *iv, size_t iv_len, const uint8_t *key)
{
#ifndef GCM_GHASH_LAZY
    (void)key;
#endif
    memset(ctx->y, 0, BL);
#ifdef GCM_GHASH_DEFER
    ctx->npend = 0;
#endif
    ctx->ghbuf_len = 0;
    if (ctx->ekj0_ready) { /* the mask of a message left unfinished (finish wipes it) */
        GCM_WIPE(ctx->ekj0, BL);
        ctx->ekj0_ready = 0;
    }
    GCM_WIPE(ctx->stream, BL);
#ifdef GCM_GHASH_LAZY
    /*
     * In-process over the core's own counter mode, one call of the core makes H (first IV under
     * the key), E_K(J0) (the tag's mask) and E_K(J0 + 1) (the first block's keystream, ctx->pre):
     * the blocks run side by side, at the latency of one. Elsewhere (passes, a source) H alone,
     * and the rest as before.
     */
    const int direct = iv_len == DIRECT_IV(ctx);
    const int inproc = ctx->src == NULL || ctx->src == &bs_keystream_inproc;
    const int early = inproc && ctx->ctr32 != NULL && !CTR_WIDE(ctx);
#ifdef GCM_START_FOR
    /*
     * J0 by GHASH in one call, in registers (and H with the key). E_K(J0) waits for the first
     * data, whose keystream it joins (ride_j0; before a stitched loop, beside its first batch):
     * made here, its rounds ran after J0 on the message's critical path.
     */
    const bs_gcm256_start_fn fast =
        early && !direct ? GCM_START_FOR(ctx->cipher, ctx->ghash) : NULL;
#else
    const void *fast = NULL;
#endif
    ctx->pre = 0;
    if (ctx->hpow == 0 && !(early && direct) && !(fast != NULL && key != NULL)) {
        uint8_t h[BL] = {0};
        if (key != NULL)
            ctx->cipher->set_key_encrypt(&ctx->ks, key, h, h, 1);
        else
            ctx->cipher->encrypt(&ctx->ks, h, h, 1);
        ghash_key_from(ctx, h);
        GCM_WIPE(h, sizeof h);
    }
#ifdef GCM_START_FOR
    if (fast != NULL) {
        fast(&ctx->ks, key, ctx->hkey, iv, iv_len, ctx->j0);
        if (key != NULL)
            ctx->hpow = 1;
        memcpy(ctx->counter, ctx->j0, BL);
        inc32(ctx->counter);
        ctx->ctr_secret = 1;
        /* E_K(J0) rides with the message's first keystream (gcm_crypt, ride_j0). */
        ctx->num = 0;
        ctx->aad_len = 0;
        ctx->data_len = 0;
        ctx->state = ST_AAD;
        return;
    }
#endif
#endif
    if (iv_len == DIRECT_IV(ctx)) { /* J0 = IV || 0..0 || 1 (28 bytes: IV || 00000001) */
        memcpy(ctx->j0, iv, iv_len);
        memset(ctx->j0 + iv_len, 0, BL - iv_len);
        ctx->j0[BL - 1] = 1;
    } else {
        ghash_absorb(ctx, iv, iv_len);
        ghash_pad(ctx);
        ghash_lengths(ctx, 0, (uint64_t)iv_len);
        ghash_flush(ctx);
        memcpy(ctx->j0, ctx->y, BL);
        memset(ctx->y, 0, BL);
    }
    memcpy(ctx->counter, ctx->j0, BL);
    ctx->ctr_secret = iv_len != DIRECT_IV(ctx);
#ifdef GCM_PROFILE
    if (CTR_WIDE(ctx))
        ctr_add(ctx->counter, ctr_bytes(ctx), 1);
    else
#endif
        inc32(ctx->counter);
#ifdef GCM_GHASH_LAZY
    if (early) {
        BS_ALIGN(32) uint8_t b[3 * BL];
        const size_t hb = ctx->hpow == 0; /* block 0 is H's where it is still due */
        memset(b, 0, BL);
        memcpy(b + hb * BL, ctx->j0, BL);
        memcpy(b + (hb + 1) * BL, ctx->counter, BL);
        if (key != NULL)
            ctx->cipher->set_key_encrypt(&ctx->ks, key, b, b, hb + 2);
        else
            ctx->cipher->encrypt(&ctx->ks, b, b, hb + 2);
        if (hb)
            ghash_key_from(ctx, b);
        memcpy(ctx->ekj0, b + hb * BL, BL);
        memcpy(ctx->stream, b + (hb + 1) * BL, BL);
        GCM_WIPE(b, sizeof b);
        ctx->ekj0_ready = 1;
        ctx->pre = 1; /* the keystream of ctx->counter, which stays the next block's */
    }
#endif
    ctx->num = 0;
    ctx->aad_len = 0;
    ctx->data_len = 0;
    ctx->state = ST_AAD;
}

int GCM_FN(set_iv)(GCM_CTX *ctx, const uint8_t *iv, size_t iv_len)
{
    if (ctx->state == ST_NONE)
        return BS_ERR_STATE;
    const int rc = iv_args(iv, iv_len);
    if (rc != BS_OK)
        return rc;
    start_iv(ctx, iv, iv_len, NULL);
    return BS_OK;
}

int GCM_FN(set_key_iv)(GCM_CTX *ctx, const bs_block_cipher *cipher, const uint8_t *key,
                       size_t key_len, const uint8_t *iv, size_t iv_len)
{
    int rc = key_args(ctx, cipher, key, key_len);
    if (rc == BS_OK)
        rc = iv_args(iv, iv_len);
    if (rc != BS_OK)
        return rc;
#ifdef GCM_GHASH_LAZY
    /*
     * In-process, the key is expanded in set_iv's first call of the core: H's (with E_K(J0) and
     * E_K(J0 + 1) on its early path).
     */
    const int inproc = ctx->src == NULL || ctx->src == &bs_keystream_inproc;
    if (cipher->set_key_encrypt != NULL && inproc) {
        rekey(ctx, cipher);
        ctx->state = ST_KEYED;
        start_iv(ctx, iv, iv_len, key);
        return BS_OK;
    }
#endif
    if ((rc = GCM_FN(set_key)(ctx, cipher, key, key_len)) != BS_OK)
        return rc;
    return GCM_FN(set_iv)(ctx, iv, iv_len);
}

int GCM_FN(aad)(GCM_CTX *ctx, const uint8_t *aad, size_t len)
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
 * In-process keystream for n <= GCM_PASS blocks from ctx->counter through the core, into buf
 * (room for n + 1 blocks); advances the counter. E_K(J0) rides along in a spare lane if it is
 * still due.
 */
static void keystream(GCM_CTX *ctx, uint8_t *buf, size_t n)
{
#ifdef GCM_PROFILE
    if (CTR_WIDE(ctx)) { /* the profile's counter field, modulo 2^(8w) */
        for (size_t i = 0; i < n; i++) {
            memcpy(buf + i * BL, ctx->counter, BL);
            ctr_add(buf + i * BL, ctr_bytes(ctx), i);
        }
        ctr_add(ctx->counter, ctr_bytes(ctx), n);
    } else
#endif
    {
        /* inc32: only the last 4 bytes count, modulo 2^32. */
        const uint32_t low = bs_load_be32(ctx->counter + BL - 4);
        for (size_t i = 0; i < n; i++) {
            memcpy(buf + i * BL, ctx->counter, BL - 4);
            bs_store_be32(buf + i * BL + BL - 4, low + (uint32_t)i);
        }
        bs_store_be32(ctx->counter + BL - 4, low + (uint32_t)n);
    }
    if (!ctx->ekj0_ready && n < ctx->cipher->lanes) {
        memcpy(buf + n * BL, ctx->j0, BL);
        ctx->cipher->encrypt(&ctx->ks, buf, buf, n + 1);
        memcpy(ctx->ekj0, buf + n * BL, BL);
        GCM_WIPE(buf + n * BL, BL);
        ctx->ekj0_ready = 1;
    } else {
        ctx->cipher->encrypt(&ctx->ks, buf, buf, n);
    }
}

/* XORs len bytes through ks and absorbs the ciphertext (decrypt's input, encrypt's output). */
static void crypt_absorb(GCM_CTX *ctx, uint8_t *out, const uint8_t *in, const uint8_t *ks,
                         size_t len, int dec)
{
    if (dec)
        ghash_absorb(ctx, in, len);
    bs_keystream_xor(out, in, ks, len);
    if (!dec)
        ghash_absorb(ctx, out, len);
}

/* The rest of a message in passes of the in-process keystream (any len > 0). */
static void crypt_passes(GCM_CTX *ctx, uint8_t *out, const uint8_t *in, size_t len, int dec)
{
    BS_ALIGN(32) uint8_t buf[(GCM_PASS + 1) * BL];
    size_t used = 0;
    while (len > 0) {
        size_t blocks = len / BL + (len % BL != 0);
        size_t n = blocks < GCM_PASS ? blocks : GCM_PASS;
        size_t bytes = n * BL < len ? n * BL : len;
#ifdef GCM_FACE
        /*
         * blocks: what is left of the request, for FACE's refresh decision. FACE's cache is
         * indexed by counter bytes: only where they are public (J0 from the IV, not by GHASH).
         */
        if (ctx->face != NULL && !ctx->ctr_secret)
            bs_aes_face_keystream(ctx->face, ctx->counter, n, blocks, 1, buf);
        else
#endif
            keystream(ctx, buf, n);
        used = n * BL > used ? n * BL : used;
        crypt_absorb(ctx, out, in, buf, bytes, dec);
        if (bytes % BL != 0) { /* the last block is partial: keep its keystream */
            memcpy(ctx->stream, buf + (n - 1) * BL, BL);
            ctx->num = (unsigned)(bytes % BL);
        }
        out += bytes;
        in += bytes;
        len -= bytes;
    }
    GCM_WIPE(buf, used);
}

#ifdef GCM_START_FOR
/* Blocks of data whose keystream ride_j0 makes in one call of the core beside E_K(J0). */
#define RIDE_BLOCKS 14

/*
 * The first data of a message whose E_K(J0) is still due (set_iv's in-register start makes J0
 * alone), len <= RIDE_BLOCKS blocks: the keystream from J0 (E_K(J0), then the data's blocks) in
 * one call of the core's counter mode, the blocks side by side.
 */
static void ride_j0(GCM_CTX *ctx, uint8_t *out, const uint8_t *in, size_t len, int dec)
{
    BS_ALIGN(64) uint8_t buf[(RIDE_BLOCKS + 1) * BL];
    const size_t blocks = len / BL + (len % BL != 0);
    ctx->ctr32(&ctx->ks, ctx->j0, NULL, buf, blocks + 1);
    memcpy(ctx->ekj0, buf, BL);
    ctx->ekj0_ready = 1;
    crypt_absorb(ctx, out, in, buf + BL, len, dec);
    if (len % BL != 0) { /* the last block is partial: keep its keystream */
        memcpy(ctx->stream, buf + blocks * BL, BL);
        ctx->num = (unsigned)(len % BL);
    }
    bs_store_be32(ctx->counter + BL - 4, bs_load_be32(ctx->counter + BL - 4) + (uint32_t)blocks);
    GCM_WIPE(buf, (blocks + 1) * BL);
}
#endif

static int gcm_crypt(GCM_CTX *ctx, uint8_t *out, const uint8_t *in, size_t len, int st)
{
    if (ctx->state != ST_AAD && ctx->state != st)
        return BS_ERR_STATE;
    if (len == 0)
        return BS_OK;
    if (out == NULL || in == NULL)
        return BS_ERR_ARG;
#ifdef GCM_PROFILE
    if ((uint64_t)len > max_blocks(ctx) * BL - ctx->data_len)
#else
    if ((uint64_t)len > DATA_MAX - ctx->data_len)
#endif
        return BS_ERR_DATA_LIMIT;
    if (ctx->state == ST_AAD) {
        ghash_pad(ctx);
        ctx->state = st;
    }
    const int dec = st == ST_DEC;
#ifdef GCM_START_FOR
    /* No data of this message before this call (ride_j0 makes the keystream from J0 on). */
    const int first = ctx->data_len == 0;
#endif
    ctx->data_len += len;

#ifdef GCM_GHASH_LAZY
#ifdef GCM_BULK_FOR
    if (ctx->pre && len >= GCM_BULK_BLOCKS * BL && GCM_BULK_FOR(ctx->cipher, ctx->ghash) != NULL) {
        /* Whole batches from the stitched loop, from the first block: the one made is dropped. */
        GCM_WIPE(ctx->stream, BL);
        ctx->pre = 0;
    }
#endif
    if (ctx->pre) { /* the first block's keystream, made with the IV */
        size_t take = BL < len ? BL : len;
        crypt_absorb(ctx, out, in, ctx->stream, take, dec);
        ctx->num = (unsigned)(take % BL);
        ctx->pre = 0;
        inc32(ctx->counter);
        out += take;
        in += take;
        len -= take;
        if (len == 0)
            return BS_OK;
    } else
#endif
        if (ctx->num > 0) { /* the rest of the partial block of the previous call */
        size_t take = BL - ctx->num < len ? BL - ctx->num : len;
        crypt_absorb(ctx, out, in, ctx->stream + ctx->num, take, dec);
        ctx->num = (unsigned)((ctx->num + take) % BL);
        out += take;
        in += take;
        len -= take;
        if (len == 0)
            return BS_OK;
    }

    const int inproc = ctx->src == NULL || ctx->src == &bs_keystream_inproc;
#ifdef GCM_START_FOR
    /* Only for a message's first data: E_K(J0) can also be due after data that went through
     * another source (set_source changed mid-message), where the counter is past J0 + 1. */
    if (first && !ctx->ekj0_ready && inproc && ctx->ctr32 != NULL && !CTR_WIDE(ctx) &&
        len <= RIDE_BLOCKS * BL) {
        ride_j0(ctx, out, in, len, dec);
        return BS_OK;
    }
#endif
#ifdef GCM_FACE
    const int passes = inproc && (ctx->ctr32 == NULL || ctx->face != NULL);
#else
    const int passes = inproc && (ctx->ctr32 == NULL || CTR_WIDE(ctx));
#endif
    if (passes) {
        crypt_passes(ctx, out, in, len, dec);
        return BS_OK;
    }
#ifdef GCM_BULK_FOR
    if (inproc && len >= BL) {
        /* In-process, a stitched CTR + GHASH loop takes what it can (gcm256_bulk.h). */
        const bs_gcm256_bulk_fn bulk = GCM_BULK_FOR(ctx->cipher, ctx->ghash);
        /* E_K(J0) still due: where the loop has a form that makes it too, beside its rounds. */
#ifdef GCM_BULK_MASK_FOR
        const bs_gcm256_bulk_mask_fn bulk_mask =
            !ctx->ekj0_ready && !CTR_WIDE(ctx) ? GCM_BULK_MASK_FOR(ctx->cipher, ctx->ghash) : NULL;
#else
        const bs_gcm256_bulk_fn bulk_mask = NULL;
#endif
        if (bulk != NULL || bulk_mask != NULL)
            ghash_flush(ctx); /* the loop reads and writes y */
        if (!ctx->ekj0_ready && bulk_mask == NULL && ctx->ctr32 != NULL && !CTR_WIDE(ctx)) {
            ctx->ctr32(&ctx->ks, ctx->j0, NULL, ctx->ekj0, 1);
            ctx->ekj0_ready = 1;
        }
        /* The loop makes the key powers it uses (ctx->hpow counts them). */
        size_t done = 0;
#ifdef GCM_BULK_MASK_FOR
        if (bulk_mask != NULL) {
            done = bulk_mask(&ctx->ks, ctx->hkey, &ctx->hpow, ctx->counter, ctx->ctr_secret, ctx->y,
                             in, out, len / BL, dec, ctx->j0, ctx->ekj0);
            ctx->ekj0_ready = 1;
        } else
#endif
            if (bulk != NULL)
            done = bulk(&ctx->ks, ctx->hkey, &ctx->hpow, ctx->counter, ctx->ctr_secret, ctx->y, in,
                        out, len / BL, dec);
        out += done * BL;
        in += done * BL;
        len -= done * BL;
    }
#endif
    /* Whole blocks from the source (inc32 is the counting rule), a piece at a time. */
    size_t whole = len / BL;
    while (whole > 0) {
        size_t n = whole < SOURCE_PIECE ? whole : SOURCE_PIECE;
        if (dec)
            ghash_mul(ctx, in, n);
        bs_keystream_fill(ctx->src, ctx->cipher, &ctx->ks, ctx->counter, n, BS_KS_STEP_INC32, in,
                          out);
        if (!dec)
            ghash_mul(ctx, out, n);
        bs_keystream_advance(ctx->counter, BL, n, BS_KS_STEP_INC32);
        out += n * BL;
        in += n * BL;
        len -= n * BL;
        whole -= n;
    }
    if (len > 0) { /* a partial last block: keep its keystream */
        if (inproc) {
            uint8_t buf[2 * BL];
            keystream(ctx, buf, 1); /* E_K(J0) rides along if due */
            memcpy(ctx->stream, buf, BL);
            GCM_WIPE(buf, sizeof buf);
        } else {
            bs_keystream_fill(ctx->src, ctx->cipher, &ctx->ks, ctx->counter, 1, BS_KS_STEP_INC32,
                              NULL, ctx->stream);
            bs_keystream_advance(ctx->counter, BL, 1, BS_KS_STEP_INC32);
        }
        crypt_absorb(ctx, out, in, ctx->stream, len, dec);
        ctx->num = (unsigned)len;
    }
    return BS_OK;
}

int GCM_FN(encrypt)(GCM_CTX *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return gcm_crypt(ctx, out, in, len, ST_ENC);
}

int GCM_FN(decrypt)(GCM_CTX *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return gcm_crypt(ctx, out, in, len, ST_DEC);
}

static int tag_len_ok(size_t tag_len)
{
    return tag_len >= GCM_TAG_MIN && tag_len <= GCM_TAG_MAX && tag_len % GCM_TAG_STEP == 0;
}

/* T = E_K(J0) ^ GHASH(...); leaves the context keyed, waiting for an IV. */
static void finish(GCM_CTX *ctx, uint8_t full[BL])
{
    ghash_pad(ctx);
    ghash_lengths(ctx, ctx->aad_len, ctx->data_len);
    ghash_flush(ctx);
    if (!ctx->ekj0_ready)
        ctx->cipher->encrypt(&ctx->ks, ctx->ekj0, ctx->j0, 1);
    for (int i = 0; i < BL; i++)
        full[i] = ctx->ekj0[i] ^ ctx->y[i];
    GCM_WIPE(ctx->ekj0, BL);
    ctx->ekj0_ready = 0;
    GCM_WIPE(ctx->y, BL);
    GCM_WIPE(ctx->stream, BL);
    ctx->num = 0;
#ifdef GCM_GHASH_LAZY
    ctx->pre = 0;
#endif
    ctx->state = ST_KEYED;
}

/* What tag and verify check first (the message, the tag's length, the buffer), then finish. */
static int finish_checked(GCM_CTX *ctx, const uint8_t *tag, size_t tag_len, uint8_t full[BL])
{
    if (ctx->state < ST_AAD)
        return BS_ERR_STATE;
    if (!tag_len_ok(tag_len))
        return BS_ERR_TAG_LENGTH;
    if (tag == NULL)
        return BS_ERR_ARG;
    finish(ctx, full);
    return BS_OK;
}

int GCM_FN(tag)(GCM_CTX *ctx, uint8_t *tag, size_t tag_len)
{
    /* A whole tag is written in place: no copy, and no stack copy left to wipe. */
    if (tag_len == BL)
        return finish_checked(ctx, tag, tag_len, tag);
    uint8_t full[BL];
    int rc = finish_checked(ctx, tag, tag_len, full);
    if (rc != BS_OK)
        return rc;
    memcpy(tag, full, tag_len);
    GCM_WIPE(full, sizeof full);
    return BS_OK;
}

int GCM_FN(verify)(GCM_CTX *ctx, const uint8_t *tag, size_t tag_len)
{
    uint8_t full[BL];
    int rc = finish_checked(ctx, tag, tag_len, full);
    if (rc != BS_OK)
        return rc;
    /* 0 or -1; the mask keeps even the choice of return value free of a branch. */
    int diff = bs_ct_memcmp(full, tag, tag_len);
    GCM_WIPE(full, sizeof full);
    return diff & BS_ERR_AUTH;
}

void GCM_FN(clear)(GCM_CTX *ctx)
{
    GCM_WIPE(ctx, sizeof *ctx);
    bs_wipe_stack(BS_STACK_WIPE_BYTES); /* what the cores' frames left (bitslice.h) */
}

#undef BL
#undef GCM_WIPE
#undef AAD_MAX
#undef DATA_MAX
#undef CTR_WIDE
#undef DIRECT_IV
#undef SOURCE_PIECE
#undef RIDE_BLOCKS
