/*
 * AES-CTR with FACE-style caching over the fully fixsliced core: what is cached and why it is
 * exact is in aes_ctr_face.h; the layout and representations in aes.h.
 */
#include "aes_ctr_face.h"

#include "aes.h"
/* the generated straight-line AES (aes_fix32.c) */
#if !defined(BS_AES_NO_UNROLLED) && defined(__thumb2__)
#include "aes/aes_fix32_t2.h"
#elif !defined(BS_AES_NO_UNROLLED) && defined(__riscv) && __riscv_xlen == 32
#include "aes/aes_fix32_rv32.h"
#endif

#include <stddef.h>

/* GF(2^8) doubling of four bytes at once (constant time: shifts and masks). */
static inline uint32_t xtime4(uint32_t x)
{
    uint32_t hi = (x >> 7) & 0x01010101u;
    return ((x & 0x7f7f7f7fu) << 1) ^ hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);
}

/* The S-box (without its 0x63) in place of n pieces of 32 bytes, at buf, buf + 128, buf + 256,
 * ... (the refresh's layout below), one pass each. */
static void sbox_pieces(uint8_t *buf, size_t n)
{
#ifdef BS_AES_FIX_T2
    /* Cortex-M3/M4: generated Thumb-2 (the same circuit as the rounds), every pass in one call */
    bs_aes_sbox_t2(buf, NULL, buf, n);
    return;
#endif
#ifdef BS_AES_FIX_RV32
    /* RV32I: the same from the RV32I generator, for word-aligned pieces (an address test) */
    if ((uintptr_t)buf % 4 == 0) {
        bs_aes_sbox_rv32(buf, NULL, buf, n);
        return;
    }
#endif
    uint32_t q[8];
    for (size_t i = 0; i < n; i++) {
        bs_aes_pack(q, buf + 128 * i, buf + 128 * i + 16);
        bs_aes_sbox_nonot(q);
        bs_aes_unpack(buf + 128 * i, buf + 128 * i + 16, q);
    }
    bs_wipe(q, sizeof q);
}

/*
 * Little-endian words of the refresh's tables (ctx->p, ctx->sb_k15: word-aligned): one load or
 * store where words are little-endian anyway (RV32I's bs_load_le32 is four byte loads).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint32_t __attribute__((may_alias, aligned(4))) tab_word;
#define TAB_LOAD(p) (*(const tab_word *)(const void *)(p))
#define TAB_STORE(p, v) (*(tab_word *)(void *)(p) = (v))
#else
#define TAB_LOAD(p) bs_load_le32(p)
#define TAB_STORE(p, v) bs_store_le32((p), (v))
#endif
_Static_assert(offsetof(bs_aes_face_ctx, sb_k15) % 4 == 0 && offsetof(bs_aes_face_ctx, p) % 4 == 0,
               "FACE's tables must be word-aligned");

/* Word c of the entries p[0..3]: the transposition of the 4 x 4 matrix of bytes w0..w3 (entry j
 * gets byte j of each, w0's in its byte 0). */
static inline void put4(uint32_t (*p)[4], unsigned c, uint32_t w0, uint32_t w1, uint32_t w2,
                        uint32_t w3)
{
    uint32_t t = ((w0 >> 8) ^ w1) & 0x00ff00ffu;
    w1 ^= t, w0 ^= t << 8;
    t = ((w2 >> 8) ^ w3) & 0x00ff00ffu;
    w3 ^= t, w2 ^= t << 8;
    t = ((w0 >> 16) ^ w2) & 0x0000ffffu;
    w2 ^= t, w0 ^= t << 16;
    t = ((w1 >> 16) ^ w3) & 0x0000ffffu;
    w3 ^= t, w1 ^= t << 16;
    p[0][c] = w0, p[1][c] = w1, p[2][c] = w2, p[3][c] = w3;
}

/* The entries of four v from their diagonal words x (the differences are x ^ e); out of line:
 * inlined twice in the loop, GCC -O3 spent more on RV32I (0.6 instr./B of 16 KiB AES-CTR). */
static __attribute__((noinline)) void put_group(uint32_t (*p)[4], const uint32_t e[4], uint32_t x0,
                                                uint32_t x1, uint32_t x2, uint32_t x3)
{
    const uint32_t a0 = x0 ^ e[0], a1 = x1 ^ e[1], a2 = x2 ^ e[2], a3 = x3 ^ e[3];
    const uint32_t b0 = xtime4(a0), b1 = xtime4(a1), b2 = xtime4(a2), b3 = xtime4(a3);
    put4(p, 0, b0, b2 ^ a2, a0, a2);
    put4(p, 1, a3, b1, b3 ^ a3, a1);
    put4(p, 2, a2, a0, b2, b0 ^ a0);
    put4(p, 3, b1 ^ a1, a3, a1, b3);
}

int bs_aes_face_set_key(bs_aes_face_ctx *ctx, const uint8_t *key, size_t key_len)
{
    if (key == NULL)
        return BS_ERR_ARG;
    const bs_block_cipher *c = key_len == 16   ? &bs_aes128_fix32
                               : key_len == 32 ? &bs_aes256_fix32
                                               : NULL;
    if (c == NULL)
        return BS_ERR_KEY_LENGTH;
    int err = bs_ctr_set_key(&ctx->ctr, c, key, key_len);
    if (err != BS_OK)
        return err;
    ctx->ngroups = key_len == 16 ? 2 : 3;
    /* round key 0 is the key's first 16 bytes: byte 15 of block ^ key is v ^ key[15] */
    for (unsigned v = 0; v < 256; v++)
        ctx->sb_k15[v] = (uint8_t)(v ^ key[15]);
    for (unsigned i = 0; i < sizeof ctx->sb_k15; i += 32)
        sbox_pieces(ctx->sb_k15 + i, 1);
    ctx->cached = 0;
    ctx->refreshes = 0;
    return BS_OK;
}

int bs_aes_face_set_iv(bs_aes_face_ctx *ctx, const uint8_t *iv, size_t iv_len)
{
    return bs_ctr_set_iv(&ctx->ctr, iv, iv_len);
}

/* The tables of aes_ctr_face.h for the epoch of counter bytes cb[0..14]. */
static void refresh(bs_aes_face_ctx *ctx, const uint8_t *cb)
{
    const uint32_t *rk = (const uint32_t *)ctx->ctr.ks.w;
    uint8_t blk[16], r1[16], s2[16], spare[16];
    static const uint8_t zero16[16];
    uint32_t q[8];
    /*
     * The diagonal bytes of all v (1024 bytes) live in the table they make, four v to a word,
     * diagonal r of v = 4m + j in byte j of word r of "plane group" m; groups 2i and 2i + 1 at
     * the table's words 32i..32i + 7 (32i + 4 + r: group 2i + 1), inside the entries
     * p[8i..8i + 7] that the last loop writes from them, after it has read them. So nothing
     * else holds them (no buffer to wipe), and the S-box runs on 32 bytes of every 128.
     */
    uint8_t *buf = (uint8_t *)ctx->p;

    /* rounds 1 and 2 of the block with v = 0 */
    memcpy(blk, cb, 15);
    blk[15] = 0;
    bs_aes_pack(q, blk, zero16);
    bs_aes_addroundkey(q, rk);
    bs_aes_sbox_nonot(q);
    bs_aes_mixcolumns1(q);
    bs_aes_addroundkey(q, rk + 8);
    bs_aes_unpack(r1, spare, q);
    bs_aes_sbox_nonot(q);
    bs_aes_mixcolumns2(q);
    bs_aes_addroundkey(q, rk + 16);
    bs_aes_unpack(s2, spare, q);
    for (unsigned c = 0; c < 4; c++)
        ctx->base2[c] = bs_load_le32(s2 + 4 * c);

    /* round 1's diagonal T[r][r] (byte 5r) for every v: coefficients 1, 1, 3, 2 for r = 0..3,
     * four v at a time */
    const uint32_t s0 = 0x01010101u * ctx->sb_k15[0];
    for (unsigned m = 0; m < 64; m++) {
        uint32_t d = TAB_LOAD(ctx->sb_k15 + 4 * m) ^ s0, d2 = xtime4(d), d3 = d2 ^ d;
        uint8_t *g = buf + 128 * (m / 2) + 16 * (m % 2);
        TAB_STORE(g, d ^ 0x01010101u * r1[0]);
        TAB_STORE(g + 4, d ^ 0x01010101u * r1[5]);
        TAB_STORE(g + 8, d3 ^ 0x01010101u * r1[10]);
        TAB_STORE(g + 12, d2 ^ 0x01010101u * r1[15]);
    }
    /* round 2's S-box on them, then MixColumns in representation 2 of the differences: byte
     * (r, c) gets coefficient {2, 3, 1, 1}[j] times diagonal byte r + j, j = (r - c) mod 4;
     * for four v at a time, word c of their entries is the transposition of four words of
     * the diagonal planes x1 (the differences), x2 = 2 x1 and x3 = 3 x1 */
    sbox_pieces(buf, 32);
    uint32_t e[4];
    for (unsigned r = 0; r < 4; r++)
        e[r] = 0x01010101u * buf[4 * r];
    for (unsigned i = 0; i < 32; i++) {
        /* groups g = 2i and 2i + 1 (v = 4g..4g + 3): group 2i + 1's words are read first,
         * before p[8i..8i + 3] overwrites them (in scalars: a copy loop to an array became a
         * memcpy call, about 200 instructions a time on RV32I) */
        const uint8_t *w = buf + 128 * i;
        const uint32_t y0 = TAB_LOAD(w + 16), y1 = TAB_LOAD(w + 20), y2 = TAB_LOAD(w + 24),
                       y3 = TAB_LOAD(w + 28);
        put_group(ctx->p + 8 * i, e, TAB_LOAD(w), TAB_LOAD(w + 4), TAB_LOAD(w + 8),
                  TAB_LOAD(w + 12));
        put_group(ctx->p + 8 * i + 4, e, y0, y1, y2, y3);
    }
    memcpy(ctx->epoch, cb, 15);
    ctx->cached = 1;
    ctx->refreshes++;
    bs_wipe(q, sizeof q);
    bs_wipe(r1, sizeof r1);
    bs_wipe(s2, sizeof s2);
    bs_wipe(spare, sizeof spare);
}

#if !defined(BS_AES_FIX_T2) && !defined(BS_AES_FIX_RV32)
/* Blocks with byte 15 = v and v + 1 of the cached epoch, from round 3 on, into out[0..32). */
static void cached_pair(const bs_aes_face_ctx *ctx, unsigned v, uint8_t *out)
{
    const uint32_t *rk = (const uint32_t *)ctx->ctr.ks.w;
    uint32_t x[8], q[8];
    for (unsigned c = 0; c < 4; c++) {
        x[c] = ctx->base2[c] ^ ctx->p[v][c];
        x[c + 4] = ctx->base2[c] ^ ctx->p[v + 1][c];
    }
    bs_aes_transpose(x);
    for (unsigned i = 0; i < 8; i++)
        q[i] = x[(i >> 1) + 4 * (i & 1)];
    /* rounds 3 and 4 end in representations 3 and 0; then as fix_encrypt in aes_fix32.c */
    bs_aes_sbox_nonot(q);
    bs_aes_mixcolumns3(q);
    bs_aes_addroundkey(q, rk + 24);
    bs_aes_sbox_nonot(q);
    bs_aes_mixcolumns0(q);
    bs_aes_addroundkey(q, rk + 32);
    rk += 40;
    for (unsigned g = 1; g < ctx->ngroups; g++, rk += 32)
        BS_AES_FIX_4ROUNDS(q, rk);
    BS_AES_LAST_2ROUNDS(out, q, rk);
}

#endif

/* Pairs of blocks with byte 15 = v + 2k and v + 2k + 1 of the cached epoch, from round 3 on,
 * into out[0..32 * npairs). */
static void cached_pairs(const bs_aes_face_ctx *ctx, unsigned v, uint8_t *out, size_t npairs)
{
#ifdef BS_AES_FIX_T2
    /* Cortex-M3/M4: generated Thumb-2 from the cached state on (the XORs, the packing and
     * rounds 3.. of every pair in one call) */
    const uint32_t *rk = (const uint32_t *)ctx->ctr.ks.w;
    if (ctx->ngroups == 2)
        bs_aes128_fix_face_t2(out, rk, ctx->base2, ctx->p[v], npairs);
    else
        bs_aes256_fix_face_t2(out, rk, ctx->base2, ctx->p[v], npairs);
#elif defined(BS_AES_FIX_RV32)
    /* RV32I: the same from the RV32I generator; it stores words, so an unaligned out takes
     * its pairs one by one through an aligned buffer (the test is on the address only) */
    void (*fn)(uint8_t *, const uint32_t *, const uint32_t *, const uint32_t *, size_t) =
        ctx->ngroups == 2 ? bs_aes128_fix_face_rv32 : bs_aes256_fix_face_rv32;
    const uint32_t *rk = (const uint32_t *)ctx->ctr.ks.w;
    if ((uintptr_t)out % 4 == 0) {
        fn(out, rk, ctx->base2, ctx->p[v], npairs);
        return;
    }
    uint32_t buf[8];
    for (; npairs > 0; npairs--, v += 2, out += 32) {
        fn((uint8_t *)buf, rk, ctx->base2, ctx->p[v], 1);
        memcpy(out, buf, 32);
    }
    bs_wipe(buf, sizeof buf);
#else
    for (; npairs > 0; npairs--, v += 2, out += 32)
        cached_pair(ctx, v, out);
#endif
}

/* counter += n: GCM's inc32 (the low 32 bits wrap) or the whole block. */
static void add_blocks(uint8_t c[16], size_t n, int inc32)
{
    if (inc32)
        bs_store_be32(c + 12, bs_load_be32(c + 12) + (uint32_t)n);
    else
        bs_ctr_add(c, 16, n);
}

/* See aes_ctr_face.h; `ahead` counts down with the blocks produced. */
void bs_aes_face_keystream(bs_aes_face_ctx *ctx, uint8_t c[16], size_t n, size_t ahead, int inc32,
                           uint8_t *out)
{
    const bs_block_cipher *cipher = ctx->ctr.cipher;
    while (n > 0) {
        unsigned v = c[15];
        size_t in_epoch = 256 - v;
        int match = ctx->cached && memcmp(ctx->epoch, c, 15) == 0;
        if (n >= 2 && v < 255 &&
            (match || (in_epoch < ahead ? in_epoch : ahead) >= BS_AES_FACE_MIN_BLOCKS)) {
            if (!match)
                refresh(ctx, c);
            /* the pairs (v + 2k, v + 2k + 1) with v + 2k + 1 <= 255 that n covers */
            size_t pairs = (254 - v) / 2 + 1 < n / 2 ? (254 - v) / 2 + 1 : n / 2;
            cached_pairs(ctx, v, out, pairs);
            n -= 2 * pairs;
            ahead -= 2 * pairs;
            out += 32 * pairs;
            add_blocks(c, 2 * pairs, inc32);
            continue;
        }
        /* the plain path: one or two blocks through the core */
        size_t nb = n >= 2 ? 2 : 1;
        memcpy(out, c, 16);
        add_blocks(c, 1, inc32);
        if (nb == 2) {
            memcpy(out + 16, c, 16);
            add_blocks(c, 1, inc32);
        }
        cipher->encrypt(&ctx->ctr.ks, out, out, nb);
        out += 16 * nb;
        n -= nb;
        ahead -= nb;
    }
}

/*
 * The keystream source (modes/keystream.h) CTR pulls from: bs_ctr_ctx keeps the position,
 * partial block and limits; whole blocks come here. ahead = the blocks asked for, so a refresh
 * is paid only where enough of them fall into one epoch.
 */
static uint64_t face_fill(bs_keystream_source *src, const bs_block_cipher *cipher,
                          const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                          int step, const uint8_t *in, uint8_t *out)
{
    (void)cipher;
    (void)ks;
    bs_aes_face_ctx *ctx =
        (bs_aes_face_ctx *)(void *)((char *)src - offsetof(bs_aes_face_ctx, src));
    uint8_t c[16];
    BS_ALIGN(32) uint8_t buf[32 * 16]; /* word stores of the generated rounds (RV32I) */
    memcpy(c, counter, 16);
    size_t used = 0;
    for (uint64_t left = nblocks; left > 0;) {
        size_t n = left < 32 ? (size_t)left : 32;
        uint8_t *ksb = in != NULL ? buf : out;
        bs_aes_face_keystream(ctx, c, n, (size_t)(left < SIZE_MAX ? left : SIZE_MAX),
                              step == BS_KS_STEP_INC32, ksb);
        if (in != NULL) {
            bs_keystream_xor(out, in, buf, 16 * n);
            used = 16 * n > used ? 16 * n : used;
            in += 16 * n;
        }
        out += 16 * n;
        left -= n;
    }
    bs_wipe(buf, used);
    return nblocks;
}

/* The context is its own source's storage: no copy of its own (the caller copies the context). */
static bs_keystream_source *face_copy(const bs_keystream_source *src)
{
    (void)src;
    return NULL;
}

static void face_free(bs_keystream_source *src)
{
    (void)src;
}

static const bs_keystream_ops face_ops = {"aes-face", NULL, face_fill, face_copy, face_free};

int bs_aes_face_crypt(bs_aes_face_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len)
{
    /* Pointed at again on every call: the context may have been copied by value. */
    ctx->src.ops = &face_ops;
    bs_ctr_set_source(&ctx->ctr, &ctx->src);
    return bs_ctr_crypt(&ctx->ctr, out, in, len);
}

void bs_aes_face_clear(bs_aes_face_ctx *ctx)
{
    bs_wipe(ctx, sizeof *ctx);
    bs_wipe_stack(BS_STACK_WIPE_BYTES); /* what the cores' frames left (bitslice.h) */
}
