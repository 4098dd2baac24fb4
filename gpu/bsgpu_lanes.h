/*
 * bsgpu_lanes.h: what one GPU thread computes, as BS_FN functions that the host compiles too, so
 * that tests/gpu checks them against bs_ctr_keystream without a GPU. C/C++ common subset.
 *
 * Unit of work: a group of 32 consecutive blocks of one segment (one key, one counter run).
 *
 * PRESENT, GIFT-64, GIFT-128: one thread per group. The state is the core's 32-lane layout
 * (x[i] bit l = bit i of block l, block = big-endian integer), so lane l holds block
 * base + l. The counters are made in that layout directly: bit i of (B + l) over the lanes is a
 * ripple-carry addition of the uniform B (each bit a mask, 0 or all ones) and the lane index l
 * (bit b < 5 of l over 32 lanes is the constant BSGPU_LANE_BIT(b)), two 3-input operations per
 * bit, carry through the whole block width.
 *
 * RIJNDAEL-256: eight threads per group, thread c (0..7) owning column c (bytes 4c..4c+3) of the
 * 32 blocks: col[8 r + j] bit l = bit j of byte 4c + r of block l. SubBytes and MixColumns never
 * leave a column, so they run on 32 registers per thread; ShiftRows brings row r from column
 * c + (0, 1, 3, 4)[r] mod 8, 24 word exchanges per round (__shfl_sync on the device, the
 * bsgpu_r256_shift_rows_host emulation here). The counter limb of column c is 32 (7 - c).
 *
 * Keys (bsgpu_key), compact so that a warp's key fits shared memory; a bit becomes a lane mask
 * when used (bsgpu_mask: 2 operations):
 *   PRESENT: w[2r] = low, w[2r + 1] = high half of K(r+1) ^ (r ? BS_PRESENT_KEY_NOT : 0), r < 32;
 *   GIFT-64: w[r] = U << 16 | V of round r; GIFT-128: w[2r] = U, w[2r + 1] = V;
 *   RIJNDAEL-256: w[8n + c] = le32(round key n, bytes 4c..4c+3) ^ (n ? 0x63636363 : 0), the S-box
 *   constant folded in as in rijndael256.h.
 */
#ifndef BSGPU_LANES_H
#define BSGPU_LANES_H

#include "bs_common.h"
#include "gift/gift.h"
#include "present/present.h"
#include "rijndael256/rijndael256.h"

#if defined(__CUDACC__)
#define BSGPU_UNROLL _Pragma("unroll")
#else
#define BSGPU_UNROLL
#endif

typedef enum bsgpu_cipher {
    BSGPU_PRESENT80 = 0,
    BSGPU_PRESENT128 = 1,
    BSGPU_GIFT64 = 2,
    BSGPU_GIFT128 = 3,
    BSGPU_RIJNDAEL256 = 4,
    BSGPU_NCIPHERS = 5
} bsgpu_cipher;

#define BSGPU_GROUP_BLOCKS 32
#define BSGPU_KEY_WORDS 120
#define BSGPU_WARP 32

typedef struct bsgpu_key {
    uint32_t w[BSGPU_KEY_WORDS];
} bsgpu_key;

/*
 * One run of keystream: nblocks blocks from counter (32-bit limbs, least significant first,
 * block_len / 4 of them), key keys[key_index], written at out_offset bytes. first_group is set by
 * bsgpu_plan: the launch-wide index of the segment's first group, a multiple of the groups per
 * warp, so that a warp never serves two segments and its key is uniform.
 */
typedef struct bsgpu_segment {
    uint32_t counter[8];
    uint64_t nblocks;
    uint64_t out_offset;
    uint32_t key_index;
    uint32_t first_group;
} bsgpu_segment;

BS_FN unsigned bsgpu_block_len(bsgpu_cipher c)
{
    return c == BSGPU_RIJNDAEL256 ? 32u : (c == BSGPU_GIFT128 ? 16u : 8u);
}

/* Threads per 32-block group, and groups per warp. */
BS_FN unsigned bsgpu_group_threads(bsgpu_cipher c)
{
    return c == BSGPU_RIJNDAEL256 ? 8u : 1u;
}

BS_FN unsigned bsgpu_warp_groups(bsgpu_cipher c)
{
    return BSGPU_WARP / bsgpu_group_threads(c);
}

BS_FN uint32_t bsgpu_mask(uint32_t w, unsigned i)
{
    return (uint32_t)0 - ((w >> i) & 1u);
}

/* Bit b (< 5) of the lane index l, over the 32 lanes. */
#define BSGPU_LANE_BIT(b)                                                                          \
    ((b) == 0   ? 0xaaaaaaaau                                                                      \
     : (b) == 1 ? 0xccccccccu                                                                      \
     : (b) == 2 ? 0xf0f0f0f0u                                                                      \
     : (b) == 3 ? 0xff00ff00u                                                                      \
                : 0xffff0000u)

/* limbs (n of them) += v, modulo 2^(32 n). */
BS_FN void bsgpu_limbs_add(uint32_t *limbs, unsigned n, uint64_t v)
{
    uint64_t carry = v;
    for (unsigned i = 0; i < n; i++) {
        uint64_t s = (uint64_t)limbs[i] + (carry & 0xffffffffu);
        limbs[i] = (uint32_t)s;
        carry = (carry >> 32) + (s >> 32);
    }
}

/* Big-endian counter block (4 n bytes) to limbs, least significant first. */
BS_FN void bsgpu_limbs_from_be(uint32_t *limbs, const uint8_t *ctr, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        limbs[i] = bs_load_be32(ctr + 4 * (n - 1 - i));
}

/*
 * Bitsliced counters: x[32 k + b] (k < nout) = bit b of limb first + k of (B + l) in lane l,
 * B given by its limbs (least significant first, at least first + nout of them). The carry out of
 * limb 0 is a lane mask; limbs 1 .. first - 1 pass it on only where they are all ones.
 */
BS_FN void bsgpu_ctr_bitslice(uint32_t *x, const uint32_t *B, unsigned first, unsigned nout)
{
    uint32_t carry = 0;
    const uint32_t b0 = B[0];
    BSGPU_UNROLL
    for (unsigned b = 0; b < 32; b++) {
        const uint32_t m = bsgpu_mask(b0, b);
        const uint32_t j = b < 5 ? BSGPU_LANE_BIT(b) : 0u;
        const uint32_t s = m ^ j ^ carry;
        carry = (m & j) | (carry & (m ^ j));
        if (first == 0)
            x[b] = s;
    }
    for (unsigned k = 1; k < first; k++)
        carry &= B[k] == 0xffffffffu ? 0xffffffffu : 0u;
    for (unsigned k = first == 0 ? 1 : first; k < first + nout; k++) {
        const uint32_t bk = B[k];
        BSGPU_UNROLL
        for (unsigned b = 0; b < 32; b++) {
            const uint32_t m = bsgpu_mask(bk, b);
            x[32 * (k - first) + b] = m ^ carry;
            carry &= m;
        }
    }
}

/* The counter limbs of group g of a segment: its start counter + 32 g. */
BS_FN void bsgpu_group_counter(uint32_t *B, const bsgpu_segment *seg, unsigned nlimbs, uint64_t g)
{
    for (unsigned i = 0; i < nlimbs; i++)
        B[i] = seg->counter[i];
    bsgpu_limbs_add(B, nlimbs, g * BSGPU_GROUP_BLOCKS);
}

/*
 * The segment serving launch-wide group `group`: the last one whose first_group is at most
 * group (empty segments share their successor's start and lose to it). nseg >= 1.
 */
BS_FN uint32_t bsgpu_segment_find(const bsgpu_segment *seg, uint32_t nseg, uint32_t group)
{
    uint32_t lo = 0, hi = nseg; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (seg[mid].first_group <= group)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/*
 * Where launch-wide group `group` writes: its segment *s, its group index g within the segment,
 * and how many of its 32 blocks are real (0 for the padding groups that end a warp).
 */
BS_FN unsigned bsgpu_group_locate(const bsgpu_segment *seg, uint32_t nseg, uint32_t group,
                                  uint32_t *s, uint64_t *g)
{
    *s = bsgpu_segment_find(seg, nseg, group);
    *g = (uint64_t)(group - seg[*s].first_group);
    const uint64_t first = *g * BSGPU_GROUP_BLOCKS, n = seg[*s].nblocks;
    if (seg[*s].first_group > group || first >= n)
        return 0;
    return n - first < BSGPU_GROUP_BLOCKS ? (unsigned)(n - first) : BSGPU_GROUP_BLOCKS;
}

/*
 * Fills first_group for every segment, each start a multiple of the groups per warp; returns
 * the launch's group count (a multiple of it too).
 */
BS_FN uint64_t bsgpu_plan(bsgpu_segment *seg, uint32_t nseg, bsgpu_cipher c)
{
    const uint64_t wg = bsgpu_warp_groups(c);
    uint64_t next = 0;
    for (uint32_t s = 0; s < nseg; s++) {
        seg[s].first_group = (uint32_t)next;
        const uint64_t groups = (seg[s].nblocks + BSGPU_GROUP_BLOCKS - 1) / BSGPU_GROUP_BLOCKS;
        next += (groups + wg - 1) / wg * wg;
    }
    return next;
}

/* Stores one 32-bit word big-endian; the device's output buffer is 4-byte aligned. */
BS_FN void bsgpu_put_be32(uint8_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
    *(uint32_t *)p = __byte_perm(v, 0, 0x0123);
#else
    bs_store_be32(p, v);
#endif
}

BS_FN void bsgpu_put_le32(uint8_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
    *(uint32_t *)p = v;
#else
    bs_store_le32(p, v);
#endif
}

/*
 * From the bitsliced output y (nw = 2 or 4 words of 32 planes: y[32 k + b] = bit 32 k + b of
 * every block) to nvalid big-endian blocks of 4 nw bytes at out. Transposes in place.
 */
BS_FN void bsgpu_store_blocks(uint8_t *out, uint32_t *y, unsigned nw, unsigned nvalid)
{
    BSGPU_UNROLL
    for (unsigned k = 0; k < nw; k++)
        bs_present_transpose32(y + 32 * k);
    const unsigned bl = 4 * nw;
    /* A fixed trip count, so that the device keeps y in registers (constant indices). */
    BSGPU_UNROLL
    for (unsigned l = 0; l < 32; l++) {
        if (l >= nvalid)
            continue;
        BSGPU_UNROLL
        for (unsigned k = 0; k < nw; k++)
            bsgpu_put_be32(out + bl * l + 4 * (nw - 1 - k), y[32 * k + l]);
    }
}

/* ---- PRESENT and GIFT: round keys expanded to lane masks, per warp ---- */

/*
 * A warp expands its compact key once into the cores' mask layouts (present.h: 64 words a
 * round, 32 rounds; gift.h: 38 or 70 words a round, round constants included), in shared memory
 * on the device, so that a round reads its key words instead of making them (2 operations a
 * bit). RIJNDAEL-256 keeps the compact key (BSGPU_XKEY_WORDS 0).
 */
#define BSGPU_XKEY_PRESENT (64 * BS_PRESENT_ROUND_KEYS)
#define BSGPU_XKEY_GIFT64 (BS_GIFT64_RK_WORDS * BS_GIFT64_ROUNDS)
#define BSGPU_XKEY_GIFT128 (BS_GIFT128_RK_WORDS * BS_GIFT128_ROUNDS)
#define BSGPU_XKEY_MAX BSGPU_XKEY_GIFT128

BS_FN unsigned bsgpu_xkey_words(bsgpu_cipher c)
{
    return c == BSGPU_GIFT64        ? BSGPU_XKEY_GIFT64
           : c == BSGPU_GIFT128     ? BSGPU_XKEY_GIFT128
           : c == BSGPU_RIJNDAEL256 ? 0u
                                    : BSGPU_XKEY_PRESENT;
}

/* Round constant of GIFT round r (0-based), from the LFSR; public. */
BS_FN unsigned bsgpu_gift_rc(unsigned r)
{
    unsigned c = 0;
    for (unsigned i = 0; i <= r; i++)
        c = bs_gift_rc_next(c);
    return c;
}

/*
 * Words idx = first, first + step, ... of the expanded key of c from the compact key w (a warp's
 * lanes split the work with first = lane, step = 32; the host uses 0, 1).
 */
BS_FN void bsgpu_key_expand(uint32_t *m, bsgpu_cipher c, const uint32_t *w, unsigned first,
                            unsigned step)
{
    const unsigned n = bsgpu_xkey_words(c);
    for (unsigned idx = first; idx < n; idx += step) {
        if (c == BSGPU_GIFT64) {
            const unsigned r = idx / BS_GIFT64_RK_WORDS, j = idx % BS_GIFT64_RK_WORDS;
            /* gift.h: m[n] = ~V bit n, m[16 + n] = U bit n, m[32 + i] = c_i */
            m[idx] = j < 16   ? ~bsgpu_mask(w[r], j)
                     : j < 32 ? bsgpu_mask(w[r], j)
                              : bsgpu_mask(bsgpu_gift_rc(r), j - 32);
        } else if (c == BSGPU_GIFT128) {
            const unsigned r = idx / BS_GIFT128_RK_WORDS, j = idx % BS_GIFT128_RK_WORDS;
            /* gift.h: m[n] = V bit n, m[32 + n] = U bit n, m[64 + i] = c_i */
            m[idx] = j < 32   ? bsgpu_mask(w[2 * r + 1], j)
                     : j < 64 ? bsgpu_mask(w[2 * r], j - 32)
                              : bsgpu_mask(bsgpu_gift_rc(r), j - 64);
        } else {
            /* present.h: word p of round r holds logical bit i = POS^-1(r mod 3, p). */
            const unsigned r = idx / 64, p = idx % 64, ph = r % 3;
            const unsigned i = BS_PRESENT_POS((3 - ph) % 3, p);
            m[idx] = bsgpu_mask(w[2 * r + i / 32], i % 32);
        }
    }
}

/* 31 rounds and the final key on x (64 words, 32 lanes); y[i] = bit i of the ciphertexts. */
BS_FN void bsgpu_present_encrypt(uint32_t *y, uint32_t *x, const uint32_t *rk)
{
    for (unsigned r = 0; r < 30; r += 3) {
        bs_present_round0_u32(x, rk + 64 * r);
        bs_present_round1_u32(x, rk + 64 * (r + 1));
        bs_present_round2_u32(x, rk + 64 * (r + 2));
    }
    bs_present_round0_u32(x, rk + 64 * 30);
    rk += 64 * 31;
    BSGPU_UNROLL
    for (unsigned i = 0; i < 64; i++)
        y[i] = x[BS_PRESENT_POS(1, i)] ^ rk[BS_PRESENT_POS(1, i)];
}

/* One group: keystream blocks B .. B + nvalid - 1 (B: 2 limbs) to out; rk expanded. */
BS_FN void bsgpu_present_group(uint8_t *out, const uint32_t *rk, const uint32_t *B, unsigned nvalid)
{
    uint32_t x[64], y[64];
    bsgpu_ctr_bitslice(x, B, 0, 2);
    bsgpu_present_encrypt(y, x, rk);
    bsgpu_store_blocks(out, y, 2, nvalid);
}

BS_FN void bsgpu_gift64_encrypt(uint32_t *a, const uint32_t *m)
{
    uint32_t b[64];
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r += 2) {
        bs_gift64_round_u32(b, a, m);
        bs_gift64_round_u32(a, b, m + BS_GIFT64_RK_WORDS);
        m += 2 * BS_GIFT64_RK_WORDS;
    }
}

BS_FN void bsgpu_gift64_group(uint8_t *out, const uint32_t *m, const uint32_t *B, unsigned nvalid)
{
    uint32_t a[64];
    bsgpu_ctr_bitslice(a, B, 0, 2);
    bsgpu_gift64_encrypt(a, m);
    bsgpu_store_blocks(out, a, 2, nvalid);
}

BS_FN void bsgpu_gift128_encrypt(uint32_t *a, const uint32_t *m)
{
    uint32_t b[128];
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r += 2) {
        bs_gift128_round_u32(b, a, m);
        bs_gift128_round_u32(a, b, m + BS_GIFT128_RK_WORDS);
        m += 2 * BS_GIFT128_RK_WORDS;
    }
}

BS_FN void bsgpu_gift128_group(uint8_t *out, const uint32_t *m, const uint32_t *B, unsigned nvalid)
{
    uint32_t a[128];
    bsgpu_ctr_bitslice(a, B, 0, 4);
    bsgpu_gift128_encrypt(a, m);
    bsgpu_store_blocks(out, a, 4, nvalid);
}

/* ---- RIJNDAEL-256, one column per thread ---- */

/*
 * bsgpu_ctr_bitslice(x, B, L, 1) for a limb L known only at run time (B: 8 limbs), written so
 * that every array index is a constant: both ripples run, L selects.
 */
BS_FN void bsgpu_ctr_limb8(uint32_t *x, const uint32_t *B, unsigned L)
{
    uint32_t x0[32], carry = 0, bl = B[0];
    BSGPU_UNROLL
    for (unsigned b = 0; b < 32; b++) {
        const uint32_t m = bsgpu_mask(B[0], b);
        const uint32_t j = b < 5 ? BSGPU_LANE_BIT(b) : 0u;
        x0[b] = m ^ j ^ carry;
        carry = (m & j) | (carry & (m ^ j));
    }
    BSGPU_UNROLL
    for (unsigned k = 1; k < 8; k++) {
        if (k < L)
            carry &= B[k] == 0xffffffffu ? 0xffffffffu : 0u;
        if (k == L)
            bl = B[k];
    }
    BSGPU_UNROLL
    for (unsigned b = 0; b < 32; b++) {
        const uint32_t m = bsgpu_mask(bl, b);
        x[b] = L == 0 ? x0[b] : m ^ carry;
        carry &= m;
    }
}

/* Column c of the counters: byte 4c + r plane j is bit 8 (3 - r) + j of limb 7 - c. */
BS_FN void bsgpu_r256_ctr_column(uint32_t *col, const uint32_t *B, unsigned c)
{
    uint32_t t[32];
    bsgpu_ctr_limb8(t, B, 7 - c);
    BSGPU_UNROLL
    for (unsigned r = 0; r < 4; r++)
        BSGPU_UNROLL
    for (unsigned j = 0; j < 8; j++)
        col[8 * r + j] = t[8 * (3 - r) + j];
}

BS_FN void bsgpu_r256_add_key(uint32_t *col, uint32_t kw)
{
    BSGPU_UNROLL
    for (unsigned i = 0; i < 32; i++)
        col[i] ^= bsgpu_mask(kw, i);
}

/* SubBytes of the column's 4 bytes (without the constant 0x63, which the keys carry). */
BS_FN void bsgpu_r256_sub_column(uint32_t *col)
{
    BSGPU_UNROLL
    for (unsigned r = 0; r < 4; r++)
        bs_r256_sbox32(col + 8 * r, 1, col + 8 * r, 1);
}

/*
 * MixColumns and AddRoundKey on one column: out_r = a_r ^ t ^ xtime(a_r ^ a_(r+1)),
 * t = a0 ^ a1 ^ a2 ^ a3; xtime on planes is plane j - 1 to plane j plus plane 7 into 0, 1, 3, 4.
 */
BS_FN void bsgpu_r256_mix_column(uint32_t *col, uint32_t kw)
{
    uint32_t v[4][8], t[8];
    BSGPU_UNROLL
    for (unsigned r = 0; r < 4; r++)
        BSGPU_UNROLL
    for (unsigned j = 0; j < 8; j++)
        v[r][j] = col[8 * r + j] ^ col[8 * ((r + 1) & 3) + j];
    BSGPU_UNROLL
    for (unsigned j = 0; j < 8; j++)
        t[j] = v[0][j] ^ v[2][j];
    BSGPU_UNROLL
    for (unsigned r = 0; r < 4; r++)
        BSGPU_UNROLL
    for (unsigned j = 0; j < 8; j++) {
        uint32_t xt = j == 0 ? v[r][7] : v[r][j - 1];
        if (j == 1 || j == 3 || j == 4)
            xt ^= v[r][7];
        col[8 * r + j] ^= t[j] ^ xt ^ bsgpu_mask(kw, 8 * r + j);
    }
}

/* ShiftRows offsets of Rijndael with Nb = 8. */
BS_FN unsigned bsgpu_r256_shift(unsigned r)
{
    return r == 0 ? 0u : (r == 1 ? 1u : (r == 2 ? 3u : 4u));
}

/* Column c of nvalid blocks to out (blocks of 32 bytes): transposes col in place. */
BS_FN void bsgpu_r256_store_column(uint8_t *out, uint32_t *col, unsigned c, unsigned nvalid)
{
    bs_present_transpose32(col);
    BSGPU_UNROLL
    for (unsigned l = 0; l < 32; l++)
        if (l < nvalid)
            bsgpu_put_le32(out + 32 * l + 4 * c, col[l]);
}

/* The host's stand-in for the device's ShiftRows exchange: row r of column c from c + shift. */
BS_FN void bsgpu_r256_shift_rows_host(uint32_t cols[8][32])
{
    uint32_t t[8][32];
    memcpy(t, cols, sizeof t);
    for (unsigned c = 0; c < 8; c++)
        for (unsigned r = 1; r < 4; r++)
            for (unsigned j = 0; j < 8; j++)
                cols[c][8 * r + j] = t[(c + bsgpu_r256_shift(r)) & 7][8 * r + j];
}

/* The 8 threads of one group, run one after another on the host. */
BS_FN void bsgpu_r256_group_host(uint8_t *out, const uint32_t *w, const uint32_t *B,
                                 unsigned nvalid)
{
    uint32_t cols[8][32];
    for (unsigned c = 0; c < 8; c++) {
        bsgpu_r256_ctr_column(cols[c], B, c);
        bsgpu_r256_add_key(cols[c], w[c]);
    }
    for (unsigned n = 1; n <= BS_R256_ROUNDS; n++) {
        for (unsigned c = 0; c < 8; c++)
            bsgpu_r256_sub_column(cols[c]);
        bsgpu_r256_shift_rows_host(cols);
        for (unsigned c = 0; c < 8; c++) {
            if (n != BS_R256_ROUNDS)
                bsgpu_r256_mix_column(cols[c], w[8 * n + c]);
            else
                bsgpu_r256_add_key(cols[c], w[8 * n + c]);
        }
    }
    for (unsigned c = 0; c < 8; c++)
        bsgpu_r256_store_column(out, cols[c], c, nvalid);
}

/* ---- keys ---- */

/* Compact key from the raw key bytes (bs_block_cipher key_len bytes). */
BS_FN void bsgpu_key_from_bytes(bsgpu_key *k, bsgpu_cipher c, const uint8_t *key)
{
    memset(k, 0, sizeof *k);
    if (c == BSGPU_PRESENT80 || c == BSGPU_PRESENT128) {
        uint64_t K[BS_PRESENT_ROUND_KEYS];
        if (c == BSGPU_PRESENT80)
            bs_present80_round_keys(K, key);
        else
            bs_present128_round_keys(K, key);
        for (unsigned r = 0; r < BS_PRESENT_ROUND_KEYS; r++) {
            const uint64_t kr = K[r] ^ (r != 0 ? BS_PRESENT_KEY_NOT : 0);
            k->w[2 * r] = (uint32_t)kr;
            k->w[2 * r + 1] = (uint32_t)(kr >> 32);
        }
        memset(K, 0, sizeof K);
    } else if (c == BSGPU_GIFT64) {
        uint8_t rc[BS_GIFT64_ROUNDS];
        bs_gift64_key_schedule(key, k->w, rc);
    } else if (c == BSGPU_GIFT128) {
        uint8_t rc[BS_GIFT128_ROUNDS];
        bs_gift128_key_schedule(key, k->w, rc);
    } else {
        uint8_t w[120 * 4];
        bs_r256_key_expand(w, key);
        for (unsigned n = 0; n <= BS_R256_ROUNDS; n++)
            for (unsigned c8 = 0; c8 < 8; c8++)
                k->w[8 * n + c8] = bs_load_le32(w + 32 * n + 4 * c8) ^ (n ? 0x63636363u : 0u);
        memset(w, 0, sizeof w);
    }
}

#endif
