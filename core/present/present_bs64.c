/*
 * PRESENT-80 and PRESENT-128, 64 blocks per pass, one uint64_t per state bit (layout in
 * present.h). The key schedule holds the 32 round keys expanded to lane masks.
 */
#include "present.h"

#include "../bitslice.h"

#define PRESENT_KS_WORDS (BS_PRESENT_ROUND_KEYS * 64)

_Static_assert(PRESENT_KS_WORDS * sizeof(uint64_t) <= sizeof(bs_key_schedule),
               "PRESENT round-key masks exceed BS_KS_MAX");

/*
 * The three round shapes as separate functions: inlined all together into one body, gcc turns
 * the 64-word state into scalars and spends more on spills than on the S-boxes.
 */
#if defined(__GNUC__) || defined(__clang__)
#define PRESENT_NOINLINE __attribute__((noinline))
#else
#define PRESENT_NOINLINE
#endif

PRESENT_NOINLINE static void round0(uint64_t *x, const uint64_t *k)
{
    bs_present_round0_u64(x, k);
}

PRESENT_NOINLINE static void round1(uint64_t *x, const uint64_t *k)
{
    bs_present_round1_u64(x, k);
}

PRESENT_NOINLINE static void round2(uint64_t *x, const uint64_t *k)
{
    bs_present_round2_u64(x, k);
}

/*
 * bs_present_rounds_u64 with the rounds above, and the final key added while the words move back
 * to their logical order: y[i] = logical bit i of the ciphertext.
 */
static void present_rounds(uint64_t *y, uint64_t *x, const uint64_t *rk)
{
    for (unsigned r = 0; r < 30; r += 3) {
        round0(x, rk + 64 * r);
        round1(x, rk + 64 * (r + 1));
        round2(x, rk + 64 * (r + 2));
    }
    round0(x, rk + 64 * 30);
    rk += 64 * 31;
    for (unsigned i = 0; i < 64; i++)
        y[i] = x[BS_PRESENT_POS(1, i)] ^ rk[BS_PRESENT_POS(1, i)];
}

static void present80_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint64_t K[BS_PRESENT_ROUND_KEYS];
    bs_present80_round_keys(K, key);
    bs_present_expand_keys_u64(ks->w, K);
    bs_wipe(K, sizeof K);
}

static void present128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint64_t K[BS_PRESENT_ROUND_KEYS];
    bs_present128_round_keys(K, key);
    bs_present_expand_keys_u64(ks->w, K);
    bs_wipe(K, sizeof K);
}

/* present.h's compact keys: bit 0 of each mask (every mask is 0 or all ones). */
static int present_export_round_keys(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    if (nwords < BS_PRESENT_COMPACT_WORDS)
        return -1;
    memset(out, 0, BS_PRESENT_COMPACT_WORDS * sizeof *out);
    for (unsigned r = 0; r < BS_PRESENT_ROUND_KEYS; r++)
        for (unsigned i = 0; i < 64; i++)
            out[2 * r + i / 32] |= (uint32_t)(ks->w[64 * r + BS_PRESENT_POS(r % 3, i)] & 1)
                                   << (i % 32);
    return 0;
}

/*
 * Big-endian block loads and stores as one byte swap and one 8-byte move where the compiler has
 * a byte-swap builtin: with the byte-wise forms, gcc at -O3 for baseline x86-64 vectorizes pairs
 * of adjacent stores into byte shuffles (about 900 cycles per 64 blocks here).
 */
static uint64_t load_block(const uint8_t *p)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) &&                        \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
#else
    return bs_load_be64(p);
#endif
}

static void store_block(uint8_t *p, uint64_t v)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) &&                        \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#else
    bs_store_be64(p, v);
#endif
}

/* 64 blocks from in, packed into x: bs_present_transpose64, its first stage fed by the loads. */
static void load_transpose(uint64_t *x, uint64_t *w, const uint8_t *in)
{
    for (unsigned k = 0; k < 32; k++) {
        uint64_t hi = load_block(in + 8 * (k + 32)), lo = load_block(in + 8 * k);
        uint64_t t = ((lo >> 32) ^ hi) & 0x00000000ffffffffULL;
        w[2 * k] = lo ^ (t << 32);
        w[2 * k + 1] = hi ^ t;
    }
    bs_present_transpose64_stage(x, w, 16, 0x0000ffff0000ffffULL);
    bs_present_transpose64_stage(w, x, 8, 0x00ff00ff00ff00ffULL);
    bs_present_transpose64_stage(x, w, 4, 0x0f0f0f0f0f0f0f0fULL);
    bs_present_transpose64_stage(w, x, 2, 0x3333333333333333ULL);
    bs_present_transpose64_stage(x, w, 1, 0x5555555555555555ULL);
}

/* The inverse: y unpacked into 64 blocks at out, the last stage feeding the stores. */
static void transpose_store(uint8_t *out, uint64_t *y, uint64_t *w)
{
    bs_present_transpose64_stage(w, y, 32, 0x00000000ffffffffULL);
    bs_present_transpose64_stage(y, w, 16, 0x0000ffff0000ffffULL);
    bs_present_transpose64_stage(w, y, 8, 0x00ff00ff00ff00ffULL);
    bs_present_transpose64_stage(y, w, 4, 0x0f0f0f0f0f0f0f0fULL);
    bs_present_transpose64_stage(w, y, 2, 0x3333333333333333ULL);
    for (unsigned k = 0; k < 32; k++) {
        uint64_t hi = w[k + 32], lo = w[k];
        uint64_t t = ((lo >> 1) ^ hi) & 0x5555555555555555ULL;
        store_block(out + 16 * k, lo ^ (t << 1));
        store_block(out + 16 * k + 8, hi ^ t);
    }
}

static void present_bs64_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                 size_t nblocks)
{
    BS_ALIGN(64) uint64_t x[64];
    BS_ALIGN(64) uint64_t y[64];

    for (; nblocks >= 64; nblocks -= 64, in += 512, out += 512) {
        load_transpose(x, y, in);
        present_rounds(y, x, ks->w);
        transpose_store(out, y, x);
    }
    if (nblocks > 0) {
        for (size_t l = 0; l < nblocks; l++)
            x[l] = load_block(in + 8 * l);
        for (size_t l = nblocks; l < 64; l++)
            x[l] = 0;
        bs_present_transpose64(x, y);
        present_rounds(y, x, ks->w);
        bs_present_transpose64(y, x);
        for (size_t l = 0; l < nblocks; l++)
            store_block(out + 8 * l, y[l]);
    }
    bs_wipe(x, sizeof x);
    bs_wipe(y, sizeof y);
}

const bs_block_cipher bs_present80_bs64 = {
    .name = "PRESENT-80",
    .impl = "bs64",
    .level = BS_CPU_PORTABLE,
    .key_len = 10,
    .block_len = 8,
    .lanes = 64,
    .set_key = present80_set_key,
    .encrypt = present_bs64_encrypt,
    .export_round_keys = present_export_round_keys,
};

const bs_block_cipher bs_present128_bs64 = {
    .name = "PRESENT-128",
    .impl = "bs64",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .set_key = present128_set_key,
    .encrypt = present_bs64_encrypt,
    .export_round_keys = present_export_round_keys,
};
