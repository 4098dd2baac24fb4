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
#include "bsgpu_types.h"
#include "gift/gift.h"
#include "present/present.h"
#include "rijndael256/rijndael256.h"

#if defined(__CUDACC__)
#define BSGPU_UNROLL _Pragma("unroll")
#else
#define BSGPU_UNROLL
#endif

/* bsgpu_cipher and bsgpu_key (the compact key above): bsgpu_types.h. */
#define BSGPU_GROUP_BLOCKS 32
#define BSGPU_WARP 32

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

/*
 * The output of the warp whose first group is segment group g0 (PRESENT, GIFT): its bytes
 * (0 for a warp of padding groups) from byte offset *off of the launch's output. A warp never
 * serves two segments, and its groups' outputs are contiguous.
 */
BS_FN unsigned bsgpu_warp_bytes(const bsgpu_segment *seg, uint64_t g0, unsigned bl, uint64_t *off)
{
    *off = seg->out_offset + g0 * BSGPU_GROUP_BLOCKS * bl;
    const uint64_t first = g0 * BSGPU_GROUP_BLOCKS, n = seg->nblocks;
    if (first >= n)
        return 0;
    const uint64_t left = n - first, most = (uint64_t)BSGPU_WARP * BSGPU_GROUP_BLOCKS;
    return (unsigned)((left < most ? left : most) * bl);
}

/* Stores one 32-bit word little-endian (the RIJNDAEL-256 columns); 4-byte aligned on the device. */
BS_FN void bsgpu_put_le32(uint8_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
    *(uint32_t *)p = v;
#else
    bs_store_le32(p, v);
#endif
}

/* __byte_perm(a, b, s) for selectors whose nibbles are below 8: byte k of the result is byte
 * (s >> 4k) & 7 of b:a. One PRMT on the device. */
BS_FN uint32_t bsgpu_prmt(uint32_t a, uint32_t b, unsigned s)
{
#if defined(__CUDA_ARCH__)
    return __byte_perm(a, b, s);
#else
    const uint64_t v = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    for (unsigned k = 0; k < 4; k++)
        r |= (uint32_t)((v >> (8 * ((s >> (4 * k)) & 7))) & 0xffu) << (8 * k);
    return r;
#endif
}

/* One bit-select stage of the transpose: rows i and i + j exchange their off-diagonal bits. */
BS_FN void bsgpu_transpose_stage(uint32_t *x, unsigned j, uint32_t lo)
{
    BSGPU_UNROLL
    for (unsigned i = 0; i < 32; i++) {
        if (i & j)
            continue;
        const uint32_t a = x[i], b = x[i + j];
        x[i] = (a & lo) | ((b << j) & ~lo);
        x[i + j] = ((a >> j) & lo) | (b & ~lo);
    }
}

/*
 * 32x32 bit transpose in place (x[l] bit i = old x[i] bit l, as bs_present_transpose32). The
 * 16- and 8-bit stages move whole bytes: one byte permute per output word instead of a
 * five-operation swap-move per pair.
 */
BS_FN void bsgpu_transpose32(uint32_t *x)
{
    BSGPU_UNROLL
    for (unsigned i = 0; i < 16; i++) {
        const uint32_t a = x[i], b = x[i + 16];
        x[i] = bsgpu_prmt(a, b, 0x5410);
        x[i + 16] = bsgpu_prmt(a, b, 0x7632);
    }
    BSGPU_UNROLL
    for (unsigned i = 0; i < 32; i++) {
        if (i & 8)
            continue;
        const uint32_t a = x[i], b = x[i + 8];
        x[i] = bsgpu_prmt(a, b, 0x6240);
        x[i + 8] = bsgpu_prmt(a, b, 0x7351);
    }
    bsgpu_transpose_stage(x, 4, 0x0f0f0f0fu);
    bsgpu_transpose_stage(x, 2, 0x33333333u);
    bsgpu_transpose_stage(x, 1, 0x55555555u);
}

/*
 * The transpose with the byte swap of big-endian output folded in: x[l] = bswap32 of the
 * transposed word l. Swapping bytes moves bit i to i ^ 24, so it is the transpose of the rows
 * renamed i -> i ^ 24: a renaming of registers, no instruction.
 */
BS_FN void bsgpu_transpose32_be(uint32_t *x)
{
    uint32_t t[32];
    BSGPU_UNROLL
    for (unsigned i = 0; i < 32; i++)
        t[i] = x[i ^ 24];
    bsgpu_transpose32(t);
    BSGPU_UNROLL
    for (unsigned i = 0; i < 32; i++)
        x[i] = t[i];
}

/*
 * Output through the warp's shared-memory slot (PRESENT, GIFT), so that global stores are whole
 * 512-byte warp rows (16 bytes a lane) instead of one 4-byte word per lane 256 bytes apart.
 *
 * Lane t's output is R = 8 nw chunks of 16 bytes (nw = 2 or 4 words a block). After
 * bsgpu_transpose32_be of each plane set, y[32 k + l] is word k of block l with its bytes in
 * memory order, so chunk q holds blocks 2q, 2q + 1 (nw = 2: words hi, lo, hi, lo) or block q
 * (nw = 4: words 3, 2, 1, 0). Chunk q of lane t sits at slot chunk t R + (q ^ (t mod R)): the
 * XOR spreads both the writes (8 lanes, same q) and the reads (8 consecutive chunks of one lane)
 * over all banks.
 */
BS_FN unsigned bsgpu_stage_index(unsigned t, unsigned q, unsigned R)
{
    return t * R + (q ^ (t & (R - 1)));
}

BS_FN void bsgpu_stage_write(uint32_t *slot, unsigned t, const uint32_t *y, unsigned nw)
{
    const unsigned R = 8 * nw;
    BSGPU_UNROLL
    for (unsigned q = 0; q < R; q++) {
        uint32_t *p = slot + 4 * bsgpu_stage_index(t, q, R);
        uint32_t c0, c1, c2, c3;
        if (nw == 2) {
            c0 = y[32 + 2 * q];
            c1 = y[2 * q];
            c2 = y[32 + 2 * q + 1];
            c3 = y[2 * q + 1];
        } else {
            c0 = y[96 + q];
            c1 = y[64 + q];
            c2 = y[32 + q];
            c3 = y[q];
        }
#if defined(__CUDA_ARCH__)
        *(uint4 *)p = make_uint4(c0, c1, c2, c3);
#else
        p[0] = c0;
        p[1] = c1;
        p[2] = c2;
        p[3] = c3;
#endif
    }
}

/*
 * Lane i's part of the warp's output (nbytes, a multiple of the block length, at out, 16-byte
 * aligned on the device): chunks i, i + 32, ... of the warp's contiguous output, read back from
 * the slot; the last one may be half a chunk (an odd number of 8-byte blocks).
 */
BS_FN void bsgpu_stage_store(uint8_t *out, const uint32_t *slot, unsigned i, unsigned nw,
                             unsigned nbytes)
{
    const unsigned R = 8 * nw, nfull = nbytes / 16, half = nbytes % 16 != 0;
    /* A fixed trip count (unrolled on the device), so the chunk's index math folds. */
    BSGPU_UNROLL
    for (unsigned it = 0; it < R; it++) {
        const unsigned p = it * BSGPU_WARP + i;
        if (p > nfull || (p == nfull && !half))
            continue;
        const uint32_t *s = slot + 4 * bsgpu_stage_index(p / R, p % R, R);
#if defined(__CUDA_ARCH__)
        const uint4 v = *(const uint4 *)s;
        if (p < nfull)
            *(uint4 *)(out + 16 * p) = v;
        else
            *(uint2 *)(out + 16 * p) = make_uint2(v.x, v.y);
#else
        for (unsigned w = 0; w < (p < nfull ? 4u : 2u); w++)
            bs_store_le32(out + 16 * p + 4 * w, s[w]);
#endif
    }
}

/* ---- PRESENT and GIFT: round keys expanded to lane masks, once per key ---- */

/*
 * Each key of a launch is expanded once, by one warp of a small pre-kernel, from its compact
 * form into the cores' mask layouts (present.h: 64 words a round, 32 rounds; gift.h: 38 or 70
 * words a round, round constants included) in global memory, bsgpu_xkey_stride words apart.
 * Every warp of the keystream kernel then copies its key into its shared-memory slot with 16-byte
 * loads, so that a round reads its key words instead of making them (2 operations a bit), and no
 * warp repeats the expansion or the GIFT round-constant LFSR. RIJNDAEL-256 keeps the compact key
 * (bsgpu_xkey_words 0).
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

/* Words between two expanded keys: a whole number of 16-byte loads (RIJNDAEL-256: the compact
 * key). */
BS_FN unsigned bsgpu_xkey_stride(bsgpu_cipher c)
{
    return c == BSGPU_RIJNDAEL256 ? BSGPU_KEY_WORDS : (bsgpu_xkey_words(c) + 3) / 4 * 4;
}

/*
 * Shared words per warp: the key, and later (PRESENT, GIFT) the warp's output, 32 lanes of
 * 8 nw chunks of 16 bytes.
 */
#define BSGPU_SLOT_PRESENT 2048
#define BSGPU_SLOT_GIFT64 2048
#define BSGPU_SLOT_GIFT128 4096
#define BSGPU_SLOT_R256 BSGPU_KEY_WORDS
/* The largest stride (GIFT-128). */
#define BSGPU_XKEY_STRIDE_MAX ((BSGPU_XKEY_GIFT128 + 3) / 4 * 4)

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

/*
 * A change to a device-resident key slot (BSGPU_XKEY_STRIDE_MAX words, bsgpu_keyop): words
 * first, first + step, ... (a warp's lanes: lane, 32; the host: 0, 1). A load writes the key's
 * device form (PRESENT, GIFT: bsgpu_key_expand; RIJNDAEL-256: the compact key w) and zeroes the
 * slot's other words, so that nothing of the slot's earlier key (of any cipher) stays behind; a
 * wipe zeroes every word. The words a lane writes are its own: no synchronisation is needed.
 */
BS_FN void bsgpu_keyop_apply(uint32_t *slot, const bsgpu_keyop *op, const uint32_t *w,
                             unsigned first, unsigned step)
{
    const bsgpu_cipher c = (bsgpu_cipher)op->cipher;
    const int r256 = c == BSGPU_RIJNDAEL256;
    const unsigned n = !op->load ? 0u : r256 ? (unsigned)BSGPU_KEY_WORDS : bsgpu_xkey_words(c);
    if (op->load && !r256)
        bsgpu_key_expand(slot, c, w, first, step);
    for (unsigned idx = first; idx < BSGPU_XKEY_STRIDE_MAX; idx += step)
        if (idx >= n)
            slot[idx] = 0;
        else if (r256)
            slot[idx] = w[idx];
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

/*
 * One group's keystream blocks B .. B + 31 (B: 2 limbs), rk expanded, as y for
 * bsgpu_stage_write (transposed, bytes in memory order).
 */
BS_FN void bsgpu_present_y(uint32_t *y, const uint32_t *rk, const uint32_t *B)
{
    uint32_t x[64];
    bsgpu_ctr_bitslice(x, B, 0, 2);
    bsgpu_present_encrypt(y, x, rk);
    bsgpu_transpose32_be(y);
    bsgpu_transpose32_be(y + 32);
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

BS_FN void bsgpu_gift64_y(uint32_t *a, const uint32_t *m, const uint32_t *B)
{
    bsgpu_ctr_bitslice(a, B, 0, 2);
    bsgpu_gift64_encrypt(a, m);
    bsgpu_transpose32_be(a);
    bsgpu_transpose32_be(a + 32);
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

BS_FN void bsgpu_gift128_y(uint32_t *a, const uint32_t *m, const uint32_t *B)
{
    bsgpu_ctr_bitslice(a, B, 0, 4);
    bsgpu_gift128_encrypt(a, m);
    BSGPU_UNROLL
    for (unsigned k = 0; k < 4; k++)
        bsgpu_transpose32_be(a + 32 * k);
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
    bsgpu_transpose32(col);
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
