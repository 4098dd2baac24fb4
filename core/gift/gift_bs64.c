/*
 * GIFT-64 and GIFT-128, 64 blocks per pass in uint64_t words (layout: gift.h). The key schedule
 * holds every round key pre-expanded to lane masks, so a round key addition is a plain XOR.
 */
#include "bitslice.h"
#include "gift/gift.h"

_Static_assert(sizeof(uint64_t) * BS_GIFT64_ROUNDS * BS_GIFT64_RK_WORDS <= BS_KS_MAX,
               "GIFT-64 key schedule does not fit bs_key_schedule");
_Static_assert(sizeof(uint64_t) * BS_GIFT128_ROUNDS * BS_GIFT128_RK_WORDS <= BS_KS_MAX,
               "GIFT-128 key schedule does not fit bs_key_schedule");

/*
 * Where an and-not is one instruction (x86 BMI1, AArch64 BIC), GIFT-128 runs the rounds that keep
 * bits 0 and 3 complemented (bs_gift128_round_andn: no NOT per S-box); elsewhere the plain ones.
 */
#if defined(__BMI__) || defined(__aarch64__)
#define GIFT128_ANDN 1
#else
#define GIFT128_ANDN 0
#endif

static void gift64_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t rk[BS_GIFT64_ROUNDS];
    uint8_t rc[BS_GIFT64_ROUNDS];
    bs_gift64_key_schedule(key, rk, rc);
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r++)
        bs_gift64_expand_u64(ks->w + r * BS_GIFT64_RK_WORDS, rk[r], rc[r]);
    bs_wipe(rk, sizeof rk);
}

static void gift128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint32_t rk[2 * BS_GIFT128_ROUNDS];
    uint8_t rc[BS_GIFT128_ROUNDS];
    bs_gift128_key_schedule(key, rk, rc);
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r++) {
        uint64_t *m = ks->w + r * BS_GIFT128_RK_WORDS;
#if GIFT128_ANDN
        bs_gift128_expand_andn_u64(m, rk[2 * r], rk[2 * r + 1], rc[r]);
#else
        bs_gift128_expand_u64(m, rk[2 * r], rk[2 * r + 1], rc[r]);
#endif
    }
    bs_wipe(rk, sizeof rk);
}

/* gift.h's compact keys: bit 0 of each mask (every mask is 0 or all ones). */
static int gift64_export_round_keys(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    if (nwords < BS_GIFT64_COMPACT_WORDS)
        return -1;
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r++) {
        const uint64_t *m = ks->w + r * BS_GIFT64_RK_WORDS;
        uint32_t w = 0;
        for (unsigned n = 0; n < 16; n++)
            w |= (uint32_t)(~m[n] & 1) << n | (uint32_t)(m[16 + n] & 1) << (16 + n);
        out[r] = w;
    }
    return 0;
}

static int gift128_export_round_keys(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    if (nwords < BS_GIFT128_COMPACT_WORDS)
        return -1;
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r++) {
        const uint64_t *m = ks->w + r * BS_GIFT128_RK_WORDS;
        uint32_t u = 0, v = 0;
        for (unsigned n = 0; n < 32; n++) {
            v |= (uint32_t)(m[n] & 1) << n;
            u |= (uint32_t)(m[32 + n] & 1) << n;
        }
        out[2 * r] = u;
        out[2 * r + 1] = v;
    }
    return 0;
}

/* Big-endian 64-bit store; GCC's store merging misses bs_store_be64 in the strided loops below. */
static inline void store_be64(uint8_t *p, uint64_t v)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#else
    bs_store_be64(p, v);
#endif
}

/* s[L] = be64(in + L * stride), then transposed: bit i of every lane in s[i]. */
static void load_transpose(uint64_t *s, const uint8_t *in, size_t stride)
{
    for (unsigned g = 0; g < 64; g += 4) {
        uint64_t w0 = bs_load_be64(in + g * stride), w1 = bs_load_be64(in + (g + 1) * stride);
        uint64_t w2 = bs_load_be64(in + (g + 2) * stride), w3 = bs_load_be64(in + (g + 3) * stride);
        bs_ortho4(&w0, &w1, &w2, &w3);
        s[g] = w0;
        s[g + 1] = w1;
        s[g + 2] = w2;
        s[g + 3] = w3;
    }
    bs_ortho_wide(s);
}

/* The inverse of load_transpose. */
static void transpose_store(uint8_t *out, size_t stride, uint64_t *s)
{
    bs_ortho_wide(s);
    for (unsigned g = 0; g < 64; g += 4) {
        uint64_t w0 = s[g], w1 = s[g + 1], w2 = s[g + 2], w3 = s[g + 3];
        bs_ortho4(&w0, &w1, &w2, &w3);
        store_be64(out + g * stride, w0);
        store_be64(out + (g + 1) * stride, w1);
        store_be64(out + (g + 2) * stride, w2);
        store_be64(out + (g + 3) * stride, w3);
    }
}

/* Exactly 64 blocks; out may equal in. */
static void gift64_pass(const uint64_t *m, uint8_t *out, const uint8_t *in)
{
    BS_ALIGN(64) uint64_t a[64], b[64];
    load_transpose(a, in, 8);
    uint64_t *src = a, *dst = b;
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r++) {
        bs_gift64_round_u64(dst, src, m);
        m += BS_GIFT64_RK_WORDS;
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    transpose_store(out, 8, src);
}

/* Lane L: a[L] = bits 63..0 of its block (bytes 8..15), a[64 + L] = bits 127..64 (bytes 0..7). */
static void gift128_pass(const uint64_t *m, uint8_t *out, const uint8_t *in)
{
    BS_ALIGN(64) uint64_t a[128], b[128];
    load_transpose(a, in + 8, 16);
    load_transpose(a + 64, in, 16);
    uint64_t *src = a, *dst = b;
#if GIFT128_ANDN
    bs_gift128_flip03_u64(src);
#endif
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r++) {
#if GIFT128_ANDN
        bs_gift128_round_andn_u64(dst, src, m);
#else
        bs_gift128_round_u64(dst, src, m);
#endif
        m += BS_GIFT128_RK_WORDS;
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
#if GIFT128_ANDN
    bs_gift128_flip03_u64(src);
#endif
    transpose_store(out + 8, 16, src);
    transpose_store(out, 16, src + 64);
}

typedef void (*pass_fn)(const uint64_t *m, uint8_t *out, const uint8_t *in);

/* Full passes in place of the caller's buffers; a last partial pass through a padded copy. */
static void encrypt_blocks(pass_fn pass, size_t bl, const bs_key_schedule *ks, uint8_t *out,
                           const uint8_t *in, size_t nblocks)
{
    for (; nblocks >= 64; nblocks -= 64) {
        pass(ks->w, out, in);
        in += 64 * bl;
        out += 64 * bl;
    }
    if (nblocks > 0) {
        uint8_t buf[64 * 16];
        memcpy(buf, in, nblocks * bl);
        memset(buf + nblocks * bl, 0, (64 - nblocks) * bl);
        pass(ks->w, buf, buf);
        memcpy(out, buf, nblocks * bl);
        bs_wipe(buf, sizeof buf);
    }
}

static void gift64_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                           size_t nblocks)
{
    encrypt_blocks(gift64_pass, 8, ks, out, in, nblocks);
}

static void gift128_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                            size_t nblocks)
{
    encrypt_blocks(gift128_pass, 16, ks, out, in, nblocks);
}

const bs_block_cipher bs_gift64_bs64 = {
    .name = "GIFT-64",
    .impl = "bs64",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .set_key = gift64_set_key,
    .encrypt = gift64_encrypt,
    .export_round_keys = gift64_export_round_keys,
};

const bs_block_cipher bs_gift128_bs64 = {
    .name = "GIFT-128",
    .impl = "bs64",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 16,
    .lanes = 64,
    .set_key = gift128_set_key,
    .encrypt = gift128_encrypt,
    .export_round_keys = gift128_export_round_keys,
};
