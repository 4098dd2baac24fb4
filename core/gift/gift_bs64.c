/*
 * GIFT-64 and GIFT-128, 64 blocks per pass in uint64_t words (layout: gift.h). The key schedule
 * holds every round key pre-expanded to lane masks, so a round key addition is a plain XOR.
 */
#include "bitslice.h"
#include "gift/gift.h"

_Static_assert(BS_GIFT64_ROUNDS * BS_GIFT64_RK_WORDS * sizeof(uint64_t) <= BS_KS_MAX,
               "GIFT-64 key schedule does not fit bs_key_schedule");
_Static_assert(BS_GIFT128_ROUNDS * BS_GIFT128_RK_WORDS * sizeof(uint64_t) <= BS_KS_MAX,
               "GIFT-128 key schedule does not fit bs_key_schedule");
_Static_assert(BS_GIFT64_ROUNDS % 2 == 0 && BS_GIFT128_ROUNDS % 2 == 0,
               "the round loops alternate two buffers");

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
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r++)
        bs_gift128_expand_u64(ks->w + r * BS_GIFT128_RK_WORDS, rk[2 * r], rk[2 * r + 1], rc[r]);
    bs_wipe(rk, sizeof rk);
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

/*
 * Loads 64 words x[L] = be64(in + L * stride) and transposes them into s[0..63] (bit i of every
 * lane in s[i]); the first three stages run on the way in.
 */
static void load_transpose(uint64_t *s, const uint8_t *in, size_t stride)
{
    uint64_t w[8];
    for (unsigned j = 0; j < 8; j++) {
        for (unsigned k = 0; k < 8; k++)
            w[k] = bs_load_be64(in + (j + 8 * k) * stride);
        bs_gift_ortho8_hi(w);
        for (unsigned k = 0; k < 8; k++)
            s[j + 8 * k] = w[k];
    }
    for (unsigned g = 0; g < 8; g++) {
        for (unsigned k = 0; k < 8; k++)
            w[k] = s[8 * g + k];
        bs_gift_ortho8_lo(w);
        for (unsigned k = 0; k < 8; k++)
            s[8 * g + k] = w[k];
    }
}

/* The inverse of load_transpose: s[0..63] back to 64 words stored big-endian at out + L * stride. */
static void transpose_store(uint8_t *out, size_t stride, uint64_t *s)
{
    uint64_t w[8];
    for (unsigned g = 0; g < 8; g++) {
        for (unsigned k = 0; k < 8; k++)
            w[k] = s[8 * g + k];
        bs_gift_ortho8_lo(w);
        for (unsigned k = 0; k < 8; k++)
            s[8 * g + k] = w[k];
    }
    for (unsigned j = 0; j < 8; j++) {
        for (unsigned k = 0; k < 8; k++)
            w[k] = s[j + 8 * k];
        bs_gift_ortho8_hi(w);
        for (unsigned k = 0; k < 8; k++)
            store_be64(out + (j + 8 * k) * stride, w[k]);
    }
}

/* Exactly 64 blocks; out may equal in. */
static void gift64_pass(const uint64_t *m, uint8_t *out, const uint8_t *in)
{
    BS_ALIGN(64) uint64_t a[64], b[64];
    load_transpose(a, in, 8);
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r += 2) {
        bs_gift64_round_u64(b, a, m);
        bs_gift64_round_u64(a, b, m + BS_GIFT64_RK_WORDS);
        m += 2 * BS_GIFT64_RK_WORDS;
    }
    transpose_store(out, 8, a);
}

/* Lane L: a[L] = bits 63..0 of its block (bytes 8..15), a[64 + L] = bits 127..64 (bytes 0..7). */
static void gift128_pass(const uint64_t *m, uint8_t *out, const uint8_t *in)
{
    BS_ALIGN(64) uint64_t a[128], b[128];
    load_transpose(a, in + 8, 16);
    load_transpose(a + 64, in, 16);
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r += 2) {
        bs_gift128_round_u64(b, a, m);
        bs_gift128_round_u64(a, b, m + BS_GIFT128_RK_WORDS);
        m += 2 * BS_GIFT128_RK_WORDS;
    }
    transpose_store(out + 8, 16, a);
    transpose_store(out, 16, a + 64);
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
        bs_wipe(buf, nblocks * bl);
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
    "GIFT-64", "bs64", 16, 8, 64, gift64_set_key, gift64_encrypt,
};

const bs_block_cipher bs_gift128_bs64 = {
    "GIFT-128", "bs64", 16, 16, 64, gift128_set_key, gift128_encrypt,
};
