/*
 * SPEEDY-r-192, 64 blocks per pass in uint64_t words (the 192x64 layout of speedy.h:
 * s[32 j + i] is x[6i + j] of every lane). ShiftColumns and MixColumns move no bits: they are
 * the read offsets of the next step. Each column is kept twice over (64 words, rows 0..31 then
 * 0..31 again), so that a rotated read is a contiguous one and the loops vectorize. The key
 * schedule holds rk_0 .. rk_R as lane masks (all-zero or all-one words), in the same order.
 *
 * Dispatch seam for SIMD variants (x86 fast paths): a variant keeps this key schedule
 * (bs_speedy_bs64_set_key, lane masks) and supplies its own pass; its descriptor goes before
 * these in bs_block_ciphers, where bs_block_cipher_by_name takes the first one the CPU level
 * allows (bs_cpu.h: the level follows from the impl name).
 */
#include "bitslice.h"
#include "speedy/speedy.h"

_Static_assert(sizeof(uint64_t[BS_SPEEDY_BS64_RK_WORDS]) <= BS_KS_MAX,
               "SPEEDY bs64 key schedule does not fit bs_key_schedule");

void bs_speedy_bs64_set_key(uint64_t *m, const uint8_t *key, unsigned rounds)
{
    uint8_t rk[(BS_SPEEDY_MAX_ROUNDS + 1) * BS_SPEEDY_BLOCK];
    bs_speedy_round_keys(key, rounds, rk);
    for (unsigned r = 0; r <= rounds; r++)
        for (unsigned j = 0; j < 6; j++)
            for (unsigned i = 0; i < 32; i++)
                m[192 * r + 32 * j + i] =
                    (uint64_t)0 - (uint64_t)bs_speedy_bit(rk + r * BS_SPEEDY_BLOCK, 6 * i + j);
    bs_wipe(rk, sizeof rk);
}

/* Word of the transposed input that holds x[n]: chunk n / 64, bit 63 - n % 64 of its integer. */
#define SPEEDY_TWORD(n) (64 * ((n) / 64) + 63 - (n) % 64)

/* SubBox on the 32 rows of a (column j at a + 64 j + off), into b (doubled columns). */
static inline void subbox_rows(uint64_t *restrict b, const uint64_t *restrict a,
                               const unsigned *off)
{
    for (unsigned i = 0; i < 32; i++) {
        uint64_t x[6], y[6];
        for (unsigned j = 0; j < 6; j++)
            x[j] = a[64 * j + off[j] + i];
        BS_SPEEDY_SUBBOX(uint64_t, y, x);
        for (unsigned j = 0; j < 6; j++) {
            b[64 * j + i] = y[j];
            b[64 * j + 32 + i] = y[j];
        }
    }
}

static const unsigned speedy_off0[6] = {0, 0, 0, 0, 0, 0};
static const unsigned speedy_off_sc[6] = {0, 1, 2, 3, 4, 5};

/* Exactly 64 blocks; out may equal in. */
static void speedy_pass(const uint64_t *m, unsigned rounds, uint8_t *out, const uint8_t *in)
{
    BS_ALIGN(64) uint64_t t[192], a[6 * 64], b[6 * 64];
    for (unsigned c = 0; c < 3; c++) {
        for (unsigned l = 0; l < 64; l++)
            t[64 * c + l] = bs_load_be64(in + BS_SPEEDY_BLOCK * l + 8 * c);
        bs_transpose64(t + 64 * c);
    }
    for (unsigned j = 0; j < 6; j++)
        for (unsigned i = 0; i < 32; i++)
            a[64 * j + i] = t[SPEEDY_TWORD(6 * i + j)] ^ m[32 * j + i];
    /* x: the state (doubled columns where a SubBox wrote it); y: the other buffer. */
    uint64_t *x = a, *y = b;
    for (unsigned r = 1; r < rounds; r++) {
        m += 192;
        subbox_rows(y, x, speedy_off0);
        subbox_rows(x, y, speedy_off_sc);
        /* ShiftColumns, MixColumns, round key: y[i,j] = XOR over alpha of x[i + alpha + j, j]. */
        for (unsigned j = 0; j < 6; j++) {
            const uint64_t *u = x + 64 * j + j;
            uint64_t *v = y + 64 * j;
            for (unsigned i = 0; i < 32; i++)
                v[i] = u[i] ^ u[i + 1] ^ u[i + 5] ^ u[i + 9] ^ u[i + 15] ^ u[i + 21] ^ u[i + 26] ^
                       m[32 * j + i];
        }
        uint64_t *sw = x;
        x = y;
        y = sw;
    }
    m += 192;
    subbox_rows(y, x, speedy_off0);
    subbox_rows(x, y, speedy_off_sc);
    for (unsigned j = 0; j < 6; j++)
        for (unsigned i = 0; i < 32; i++)
            t[SPEEDY_TWORD(6 * i + j)] = x[64 * j + i] ^ m[32 * j + i];
    for (unsigned c = 0; c < 3; c++) {
        bs_transpose64(t + 64 * c);
        for (unsigned l = 0; l < 64; l++)
            bs_store_be64(out + BS_SPEEDY_BLOCK * l + 8 * c, t[64 * c + l]);
    }
}

/* Full passes in place of the caller's buffers; a last partial pass through a padded copy. */
static void speedy_encrypt(const bs_key_schedule *ks, unsigned rounds, uint8_t *out,
                           const uint8_t *in, size_t nblocks)
{
    for (; nblocks >= 64; nblocks -= 64) {
        speedy_pass(ks->w, rounds, out, in);
        in += 64 * BS_SPEEDY_BLOCK;
        out += 64 * BS_SPEEDY_BLOCK;
    }
    if (nblocks > 0) {
        uint8_t buf[64 * BS_SPEEDY_BLOCK];
        memcpy(buf, in, nblocks * BS_SPEEDY_BLOCK);
        memset(buf + nblocks * BS_SPEEDY_BLOCK, 0, (64 - nblocks) * BS_SPEEDY_BLOCK);
        speedy_pass(ks->w, rounds, buf, buf);
        memcpy(out, buf, nblocks * BS_SPEEDY_BLOCK);
        bs_wipe(buf, sizeof buf);
    }
}

#define SPEEDY_BS64_CIPHER(R)                                                                      \
    static void speedy##R##_bs64_set_key(bs_key_schedule *ks, const uint8_t *key)                  \
    {                                                                                              \
        bs_speedy_bs64_set_key(ks->w, key, R);                                                     \
    }                                                                                              \
    static void speedy##R##_bs64_encrypt(const bs_key_schedule *ks, uint8_t *out,                  \
                                         const uint8_t *in, size_t nblocks)                        \
    {                                                                                              \
        speedy_encrypt(ks, R, out, in, nblocks);                                                   \
    }                                                                                              \
    const bs_block_cipher bs_speedy##R##_bs64 = {                                                  \
        .name = "SPEEDY-" #R "-192",                                                               \
        .impl = "bs64",                                                                            \
        .level = BS_CPU_PORTABLE,                                                                  \
        .key_len = 24,                                                                             \
        .block_len = 24,                                                                           \
        .lanes = 64,                                                                               \
        .set_key = speedy##R##_bs64_set_key,                                                       \
        .encrypt = speedy##R##_bs64_encrypt,                                                       \
    };

SPEEDY_BS64_CIPHER(5)
SPEEDY_BS64_CIPHER(6)
SPEEDY_BS64_CIPHER(7)
