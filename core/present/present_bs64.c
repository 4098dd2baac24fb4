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
 * Runs on every call, so it must be cheap: bs_wipe stores byte by byte, about 1000 cycles for
 * these 1 KiB against about 2300 for a whole 64-block call. memset, then a compiler barrier
 * that claims to read the memory so that the memset is kept.
 */
static void wipe_state(void *p, size_t n)
{
    memset(p, 0, n);
#if defined(__GNUC__) || defined(__clang__)
    __asm__ __volatile__("" : : "r"(p) : "memory");
#endif
}

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

static void present_bs64_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                 size_t nblocks)
{
    BS_ALIGN(64) uint64_t x[64];
    BS_ALIGN(64) uint64_t y[64];

    while (nblocks > 0) {
        size_t n = nblocks < 64 ? nblocks : 64;
        for (size_t l = 0; l < n; l++)
            x[l] = bs_load_be64(in + 8 * l);
        for (size_t l = n; l < 64; l++)
            x[l] = 0;
        bs_present_transpose64(x, y);
        present_rounds(y, x, ks->w);
        bs_present_transpose64(y, x);
        for (size_t l = 0; l < n; l++)
            bs_store_be64(out + 8 * l, y[l]);
        in += 8 * n;
        out += 8 * n;
        nblocks -= n;
    }
    wipe_state(x, sizeof x);
    wipe_state(y, sizeof y);
}

const bs_block_cipher bs_present80_bs64 = {
    "PRESENT-80", "bs64", 10, 8, 64, present80_set_key, present_bs64_encrypt,
};

const bs_block_cipher bs_present128_bs64 = {
    "PRESENT-128", "bs64", 16, 8, 64, present128_set_key, present_bs64_encrypt,
};
