/*
 * SKINNY-128-128/-256/-384, 64 blocks per pass in uint64_t bit planes (layout: skinny.h). The
 * key schedule holds every round tweakey pre-expanded to lane masks, so AddRoundTweakey is a
 * plain XOR; the state stays complemented between rounds (skinny.h), so the S-box is 16 logic
 * operations and MixColumns adds one NOT per bit of row 3.
 */
#include "skinny/skinny.h"

_Static_assert(sizeof(uint64_t) * BS_SKINNY_MAX_ROUNDS * BS_SKINNY_BS64_RK_WORDS <= BS_KS_MAX,
               "SKINNY-128 bs64 key schedule does not fit bs_key_schedule");

#if defined(__cplusplus)
#define SKINNY_RESTRICT __restrict__
#else
#define SKINNY_RESTRICT restrict
#endif

static void skinny_set_key(bs_key_schedule *ks, const uint8_t *key, unsigned key_len)
{
    uint8_t rtk[8 * BS_SKINNY_MAX_ROUNDS];
    unsigned rounds = bs_skinny_rounds(key_len);
    bs_skinny_tweakey_schedule(key, key_len, rtk);
    for (unsigned r = 0; r < rounds; r++) {
        uint64_t *m = ks->w + r * BS_SKINNY_BS64_RK_WORDS;
        for (unsigned b = 0; b < 8; b++)
            for (unsigned i = 0; i < 8; i++) {
                uint64_t bit = (uint64_t)((rtk[8 * r + i] >> b) & 1);
                /* row 1 (cells 4..7) leaves the key addition uncomplemented: skinny.h */
                m[8 * b + i] = ((uint64_t)0 - bit) ^ (i >= 4 ? ~(uint64_t)0 : 0);
            }
    }
    bs_wipe(rtk, sizeof rtk);
}

/*
 * Packing, in place in the state. Half h (cells 8h..8h+7) of lane L is the little-endian word
 * of bytes 8h..8h+7: bit i = 8c + b is bit b of cell 8h + c. It starts at s[POS(L, h)] and a
 * 64x64 bit-matrix transpose makes s[POS(W, h)] hold bit i of every lane with W = 8b + c,
 * which is s[16 b + 8 h + c], the layout of skinny.h. The transpose exchanges each bit-index
 * bit k with a word-index bit, one SWAPMOVE stage each; pairing the b bits (k = 0, 1, 2) with
 * word bits 3, 4, 5 and the c bits with 0, 1, 2 (rather than k with k) puts W = 8b + c straight
 * into place. It also permutes the lanes (bit position 8 (L % 8) + L / 8 holds lane L), which
 * the same stages undo on the way out. The stages commute and are involutions.
 */
#define POS(w, h) (16 * ((w) >> 3) + 8 * (h) + ((w)&7))

/*
 * One stage on both halves at once: words j and j + d of the state for every j with (j & d) == 0
 * (d = 1, 2, 4: word bits 0..2 inside a run of 8; d = 16, 32, 64: bits 3..5). Loops over
 * contiguous j, so that they vectorize.
 */
static inline void pack_stage(uint64_t s[128], unsigned d, unsigned shift, uint64_t m)
{
    for (unsigned i = 0; i < 128; i += 2 * d)
        for (unsigned j = i; j < i + d; j++)
            bs_swapmove64(&s[j + d], &s[j], m, shift);
}

static void transpose_planes(uint64_t s[128])
{
    pack_stage(s, 16, 1, 0x5555555555555555ull); /* bit-index bit 0 <-> word bit 3 */
    pack_stage(s, 32, 2, 0x3333333333333333ull); /* 1 <-> 4 */
    pack_stage(s, 64, 4, 0x0f0f0f0f0f0f0f0full); /* 2 <-> 5 */
    pack_stage(s, 1, 8, 0x00ff00ff00ff00ffull);  /* 3 <-> 0 */
    pack_stage(s, 2, 16, 0x0000ffff0000ffffull); /* 4 <-> 1 */
    pack_stage(s, 4, 32, 0x00000000ffffffffull); /* 5 <-> 2 */
}

/* 64 blocks in, complemented (the cores' polarity). */
static void load_planes(uint64_t s[128], const uint8_t *in)
{
    for (unsigned l = 0; l < 64; l++)
        for (unsigned h = 0; h < 2; h++)
            s[POS(l, h)] = ~bs_load_le64(in + 16 * l + 8 * h);
    transpose_planes(s);
}

static void store_planes(uint8_t *out, uint64_t s[128])
{
    transpose_planes(s);
    for (unsigned l = 0; l < 64; l++)
        for (unsigned h = 0; h < 2; h++)
            bs_store_le64(out + 16 * l + 8 * h, ~s[POS(l, h)]);
}

/* S-box of cell i from s into t, complemented in and out; y bits as in skinny.h. */
#define SKINNY_SBOX_CELL(t, s, i, KEYED)                                                           \
    do {                                                                                           \
        uint64_t x0 = s[i], x1 = s[16 + i], x2 = s[32 + i], x3 = s[48 + i];                        \
        uint64_t x4 = s[64 + i], x5 = s[80 + i], x6 = s[96 + i], x7 = s[112 + i];                  \
        BS_SKINNY_SBOX_STEPS(x0, x1, x2, x3, x4, x5, x6, x7);                                      \
        t[i] = x2 KEYED(0, i);                                                                     \
        t[16 + i] = x7 KEYED(1, i);                                                                \
        t[32 + i] = x6 KEYED(2, i);                                                                \
        t[48 + i] = x1 KEYED(3, i);                                                                \
        t[64 + i] = x3 KEYED(4, i);                                                                \
        t[80 + i] = x0 KEYED(5, i);                                                                \
        t[96 + i] = x4 KEYED(6, i);                                                                \
        t[112 + i] = x5 KEYED(7, i);                                                               \
    } while (0)
#define SKINNY_KEY(b, i) ^m[8 * (b) + (i)]
#define SKINNY_NOKEY(b, i)

/* One round: SubCells, AddConstants, AddRoundTweakey (m), ShiftRows, MixColumns; s -> d. */
static inline void skinny_round(uint64_t *SKINNY_RESTRICT d, const uint64_t *SKINNY_RESTRICT s,
                                const uint64_t *SKINNY_RESTRICT m)
{
    BS_ALIGN(64) uint64_t t[128];
    for (unsigned i = 0; i < 8; i++)
        SKINNY_SBOX_CELL(t, s, i, SKINNY_KEY);
    for (unsigned i = 8; i < 16; i++)
        SKINNY_SBOX_CELL(t, s, i, SKINNY_NOKEY);
    t[16 + 8] = ~t[16 + 8]; /* constant 0x2 of cell 8 */
    for (unsigned b = 0; b < 8; b++) {
        const uint64_t *p = t + 16 * b;
        uint64_t *q = d + 16 * b;
        for (unsigned j = 0; j < 4; j++) {
            /* ShiftRows: row r, column j reads column j - r */
            uint64_t a0 = p[j], a1 = p[4 + ((j + 3) & 3)], a2 = p[8 + ((j + 2) & 3)],
                     a3 = p[12 + ((j + 1) & 3)];
            uint64_t a02 = a0 ^ a2;
            q[j] = a02 ^ a3;
            q[4 + j] = a0;
            q[8 + j] = a1 ^ a2;
            q[12 + j] = ~a02;
        }
    }
}

static void skinny_pass(const uint64_t *m, unsigned rounds, uint8_t *out, const uint8_t *in)
{
    BS_ALIGN(64) uint64_t a[128], b[128];
    load_planes(a, in);
    for (unsigned r = 0; r < rounds; r += 2) {
        skinny_round(b, a, m);
        skinny_round(a, b, m + BS_SKINNY_BS64_RK_WORDS);
        m += 2 * BS_SKINNY_BS64_RK_WORDS;
    }
    store_planes(out, a);
    bs_wipe(a, sizeof a);
    bs_wipe(b, sizeof b);
}

/* Full passes in place of the caller's buffers; a last partial pass through a padded copy. */
static void skinny_encrypt(unsigned rounds, const bs_key_schedule *ks, uint8_t *out,
                           const uint8_t *in, size_t nblocks)
{
    for (; nblocks >= 64; nblocks -= 64) {
        skinny_pass(ks->w, rounds, out, in);
        in += 64 * 16;
        out += 64 * 16;
    }
    if (nblocks > 0) {
        uint8_t buf[64 * 16];
        memcpy(buf, in, nblocks * 16);
        memset(buf + nblocks * 16, 0, (64 - nblocks) * 16);
        skinny_pass(ks->w, rounds, buf, buf);
        memcpy(out, buf, nblocks * 16);
        bs_wipe(buf, sizeof buf);
    }
}

#define SKINNY_BS64_VARIANT(tag, cname, klen)                                                      \
    static void tag##_set_key(bs_key_schedule *ks, const uint8_t *key)                             \
    {                                                                                              \
        skinny_set_key(ks, key, klen);                                                             \
    }                                                                                              \
    static void tag##_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,          \
                              size_t nblocks)                                                      \
    {                                                                                              \
        skinny_encrypt(bs_skinny_rounds(klen), ks, out, in, nblocks);                              \
    }                                                                                              \
    const bs_block_cipher bs_##tag##_bs64 = {                                                      \
        .name = cname,                                                                             \
        .impl = "bs64",                                                                            \
        .level = BS_CPU_PORTABLE,                                                                  \
        .key_len = klen,                                                                           \
        .block_len = 16,                                                                           \
        .lanes = 64,                                                                               \
        .set_key = tag##_set_key,                                                                  \
        .encrypt = tag##_encrypt,                                                                  \
    };

SKINNY_BS64_VARIANT(skinny128_128, "SKINNY-128-128", 16)
SKINNY_BS64_VARIANT(skinny128_256, "SKINNY-128-256", 32)
SKINNY_BS64_VARIANT(skinny128_384, "SKINNY-128-384", 48)
