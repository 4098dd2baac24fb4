/*
 * bsgpu_keysearch.h: exhaustive search over the unknown bits of a key, bitsliced with one
 * candidate key per lane (32 lanes on the GPU, 64 on the CPU), in the common subset so that the
 * CUDA kernel and the CPU engine run the same code.
 *
 * Key words: kw[i] = bit i of the key as a big-endian integer over the lanes (PRESENT-80: k79..k0,
 * 80 words; PRESENT-128 and GIFT: 128 words). The key schedule runs on these words: rotations
 * and word moves are renamings, the S-boxes of the PRESENT schedule are the core's circuit, and
 * the round counter is a NOT on public positions. The cipher state is the core's layout
 * (present.h, gift.h); the plaintext is the same in every lane, so its words are 0 or all ones.
 *
 * Candidates: with unknown key positions p_0 < ... < p_(n-1), candidate number v has bit u of v
 * at key bit p_u. Chunk q holds candidates q * LANES .. q * LANES + LANES - 1: unknown bits below
 * log2(LANES) take the lane-index patterns, the others are bits of q, the same in every lane.
 */
#ifndef BSGPU_KEYSEARCH_H
#define BSGPU_KEYSEARCH_H

#include "bsgpu_lanes.h"

#define BSKS_MAX_UNKNOWN 64
#define BSKS_MAX_PAIRS 4
/* Chunk bits a key-word table leaves to the thread (bsks_kwtab_*): a launch's chunks share the
 * others. */
#define BSKS_TBITS 22

/* A search, prepared on the host (bsks_prepare). Block and key bits as big-endian integers. */
typedef struct bsks_problem {
    int cipher; /* BSGPU_PRESENT80, BSGPU_PRESENT128, BSGPU_GIFT64/128 */
    unsigned key_bits, block_bits;
    uint8_t key_bit[128];             /* the known key bits (unknown ones 0) */
    uint8_t pt_bit[128], ct_bit[128]; /* first pair, the one the lanes compare against */
    unsigned nunknown;
    uint8_t pos[BSKS_MAX_UNKNOWN]; /* unknown key bit positions, ascending */
    int8_t unknown_index[128];     /* u where key bit i = pos[u], -1 for known bits */
} bsks_problem;

/* Bit b of the lane index over 64 lanes (b < 6). */
#define BSKS_LANE_BIT64(b)                                                                         \
    ((b) == 0   ? 0xaaaaaaaaaaaaaaaaull                                                            \
     : (b) == 1 ? 0xccccccccccccccccull                                                            \
     : (b) == 2 ? 0xf0f0f0f0f0f0f0f0ull                                                            \
     : (b) == 3 ? 0xff00ff00ff00ff00ull                                                            \
     : (b) == 4 ? 0xffff0000ffff0000ull                                                            \
                : 0xffffffff00000000ull)

/*
 * Bit i (0..127) of the GIFT key state after r updates, as a bit of the original key. Word j
 * (16 bits) then holds original word w = (j + 2r) mod 8, which has wrapped t = (j + 2r) / 8 times;
 * each wrap rotates it right by 12 (even w, through k0 -> k6) or 2 (odd w, through k1 -> k7).
 */
BS_FN unsigned bsks_gift_key_bit(unsigned r, unsigned i)
{
    const unsigned j = i / 16, w = (j + 2 * r) % 8, t = (j + 2 * r) / 8;
    const unsigned rot = (w % 2 == 0 ? 12u : 2u) * t;
    return 16 * w + (i % 16 + rot) % 16;
}

/*
 * BSKS_DEFINE(W, SFX, LOG2) defines, for word type W with 2^LOG2 lanes:
 *   bsks_kwtab_make_SFX(tab, pb, qbase)  the key-word table of chunks qbase + t (host, once);
 *   bsks_key_words_tab_SFX(kw, tab, t)   the candidates of chunk qbase + t from it;
 *   bsks_key_words_SFX(kw, pb, q)        the candidates of chunk q (both of the above);
 *   bsks_present_SFX(y, kw, pb)          PRESENT-80/128 (pb->key_bits) with per-lane keys;
 *   bsks_gift64_SFX(y, kw, pb), bsks_gift128_SFX(y, kw, pb);
 *   bsks_chunk_tab_SFX(pb, tab, t), bsks_chunk_SFX(pb, q)
 *                                        the lanes of chunk q whose encryption of the first
 *                                        plaintext equals the first ciphertext (0 when none).
 */
#define BSKS_DEFINE(W, SW, SFX, LOG2, LANEBIT)                                                     \
    BS_FN W bsks_bit_##SFX(unsigned v)                                                             \
    {                                                                                              \
        return (W)0 - (W)(v & 1u);                                                                 \
    }                                                                                              \
                                                                                                   \
    /*                                                                                             \
     * The key words of chunks qbase + t (qbase a multiple of 2^BSKS_TBITS, t below it), made      \
     * once on the host: kw[i] = base[i] ^ (bit 8 sizeof(W) - 1 - ls[i] of t << ls[i], as a mask). \
     * Known bits, lane patterns and the chunk bits above BSKS_TBITS are in base (ls 0: t has no   \
     * bit there); a thread only shifts its t: 3 operations a bit, no branch, no table index.      \
     */                                                                                            \
    typedef struct bsks_kwtab_##SFX {                                                              \
        W base[128];                                                                               \
        uint32_t ls[128];                                                                          \
    } bsks_kwtab_##SFX;                                                                            \
                                                                                                   \
    BS_FN void bsks_kwtab_make_##SFX(bsks_kwtab_##SFX *tab, const bsks_problem *pb,                \
                                     uint64_t qbase)                                               \
    {                                                                                              \
        for (unsigned i = 0; i < 128; i++) {                                                       \
            const int u = pb->unknown_index[i];                                                    \
            tab->ls[i] = 0;                                                                        \
            if (u < 0)                                                                             \
                tab->base[i] = bsks_bit_##SFX(pb->key_bit[i]);                                     \
            else if (u < (LOG2))                                                                   \
                tab->base[i] = (W)LANEBIT(u);                                                      \
            else if (u - (LOG2) >= BSKS_TBITS)                                                     \
                tab->base[i] = bsks_bit_##SFX((unsigned)(qbase >> (u - (LOG2))));                  \
            else {                                                                                 \
                tab->base[i] = 0;                                                                  \
                tab->ls[i] = 8 * sizeof(W) - 1 - (unsigned)(u - (LOG2));                           \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Every index a constant, so that the device keeps kw in registers. */                        \
    BS_FN void bsks_key_words_tab_##SFX(W *kw, const bsks_kwtab_##SFX *tab, uint32_t t)            \
    {                                                                                              \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 128; i++)                                                         \
            kw[i] = tab->base[i] ^ (W)((SW)((W)t << tab->ls[i]) >> (8 * sizeof(W) - 1));           \
    }                                                                                              \
                                                                                                   \
    /* The candidates of chunk q. */                                                               \
    BS_FN void bsks_key_words_##SFX(W *kw, const bsks_problem *pb, uint64_t q)                     \
    {                                                                                              \
        bsks_kwtab_##SFX tab;                                                                      \
        const uint64_t tmask = ((uint64_t)1 << BSKS_TBITS) - 1;                                    \
        bsks_kwtab_make_##SFX(&tab, pb, q & ~tmask);                                               \
        bsks_key_words_tab_##SFX(kw, &tab, (uint32_t)(q & tmask));                                 \
    }                                                                                              \
                                                                                                   \
    /* One PRESENT round in phase PH with round key K(r + 1) = kw[n - 64 .. n - 1]. */             \
    BS_FN void bsks_present_round_##SFX(W *x, const W *kw, unsigned n, unsigned r, unsigned ph)    \
    {                                                                                              \
        W k[64];                                                                                   \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 64; i++)                                                          \
            k[BS_PRESENT_POS(ph, i)] = kw[n - 64 + i] ^ (r != 0 && i >= 32 ? ~(W)0 : (W)0);        \
        if (ph == 0)                                                                               \
            bs_present_round0_##SFX(x, k);                                                         \
        else if (ph == 1)                                                                          \
            bs_present_round1_##SFX(x, k);                                                         \
        else                                                                                       \
            bs_present_round2_##SFX(x, k);                                                         \
    }                                                                                              \
                                                                                                   \
    /* The key register after round counter i: rotate left by 61, S-box(es), counter. */           \
    BS_FN void bsks_present_update_##SFX(W *kw, unsigned n, unsigned i)                            \
    {                                                                                              \
        W t[128];                                                                                  \
        BSGPU_UNROLL                                                                               \
        for (unsigned b = 0; b < n; b++)                                                           \
            t[b] = kw[(b + n - 61) % n];                                                           \
        bs_present_sbox_##SFX(&t[n - 1], &t[n - 2], &t[n - 3], &t[n - 4]);                         \
        if (n == 128)                                                                              \
            bs_present_sbox_##SFX(&t[123], &t[122], &t[121], &t[120]);                             \
        const unsigned c0 = n == 80 ? 15 : 62;                                                     \
        BSGPU_UNROLL                                                                               \
        for (unsigned b = 0; b < 5; b++)                                                           \
            t[c0 + b] ^= bsks_bit_##SFX(i >> b);                                                   \
        BSGPU_UNROLL                                                                               \
        for (unsigned b = 0; b < n; b++)                                                           \
            kw[b] = t[b];                                                                          \
    }                                                                                              \
                                                                                                   \
    BS_FN void bsks_present_n_##SFX(W *y, W *kw, const bsks_problem *pb, unsigned n)               \
    {                                                                                              \
        W x[64];                                                                                   \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 64; i++)                                                          \
            x[i] = bsks_bit_##SFX(pb->pt_bit[i]);                                                  \
        /* Unrolled: the key register's rotations become renamings. */                             \
        BSGPU_UNROLL                                                                               \
        for (unsigned r = 0; r < 30; r += 3) {                                                     \
            bsks_present_round_##SFX(x, kw, n, r, 0);                                              \
            bsks_present_update_##SFX(kw, n, r + 1);                                               \
            bsks_present_round_##SFX(x, kw, n, r + 1, 1);                                          \
            bsks_present_update_##SFX(kw, n, r + 2);                                               \
            bsks_present_round_##SFX(x, kw, n, r + 2, 2);                                          \
            bsks_present_update_##SFX(kw, n, r + 3);                                               \
        }                                                                                          \
        bsks_present_round_##SFX(x, kw, n, 30, 0);                                                 \
        bsks_present_update_##SFX(kw, n, 31);                                                      \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 64; i++)                                                          \
            y[i] = x[BS_PRESENT_POS(1, i)] ^ kw[n - 64 + i] ^ (i >= 32 ? ~(W)0 : (W)0);            \
    }                                                                                              \
                                                                                                   \
    BS_FN void bsks_present_##SFX(W *y, W *kw, const bsks_problem *pb)                             \
    {                                                                                              \
        if (pb->key_bits == 80)                                                                    \
            bsks_present_n_##SFX(y, kw, pb, 80);                                                   \
        else                                                                                       \
            bsks_present_n_##SFX(y, kw, pb, 128);                                                  \
    }                                                                                              \
                                                                                                   \
    /*                                                                                             \
     * PRESENT-128 with the key register in memory (the device's shared memory) as a ring:         \
     * logical bit i at kw[stride * ((i + off) mod 128)]; the rotation moves off, and only the     \
     * 8 S-box bits and 5 counter bits are rewritten in place.                                     \
     */                                                                                            \
    BS_FN void bsks_present128_ring_##SFX(W *y, W *kw, unsigned stride, const bsks_problem *pb)    \
    {                                                                                              \
        W x[64];                                                                                   \
        unsigned off = 0;                                                                          \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 64; i++)                                                          \
            x[i] = bsks_bit_##SFX(pb->pt_bit[i]);                                                  \
        for (unsigned r = 0; r < 31; r++) {                                                        \
            W k[64];                                                                               \
            const unsigned ph = r % 3;                                                             \
            BSGPU_UNROLL                                                                           \
            for (unsigned i = 0; i < 64; i++) {                                                    \
                const W v =                                                                        \
                    kw[stride * ((64 + i + off) & 127)] ^ (r != 0 && i >= 32 ? ~(W)0 : (W)0);      \
                if (ph == 0)                                                                       \
                    k[BS_PRESENT_POS(0, i)] = v;                                                   \
                else if (ph == 1)                                                                  \
                    k[BS_PRESENT_POS(1, i)] = v;                                                   \
                else                                                                               \
                    k[BS_PRESENT_POS(2, i)] = v;                                                   \
            }                                                                                      \
            if (ph == 0)                                                                           \
                bs_present_round0_##SFX(x, k);                                                     \
            else if (ph == 1)                                                                      \
                bs_present_round1_##SFX(x, k);                                                     \
            else                                                                                   \
                bs_present_round2_##SFX(x, k);                                                     \
            off = (off + 128 - 61) & 127;                                                          \
            W *a = kw + stride * ((127 + off) & 127), *b = kw + stride * ((126 + off) & 127);      \
            W *c = kw + stride * ((125 + off) & 127), *d = kw + stride * ((124 + off) & 127);      \
            bs_present_sbox_##SFX(a, b, c, d);                                                     \
            a = kw + stride * ((123 + off) & 127), b = kw + stride * ((122 + off) & 127);          \
            c = kw + stride * ((121 + off) & 127), d = kw + stride * ((120 + off) & 127);          \
            bs_present_sbox_##SFX(a, b, c, d);                                                     \
            BSGPU_UNROLL                                                                           \
            for (unsigned b5 = 0; b5 < 5; b5++)                                                    \
                kw[stride * ((62 + b5 + off) & 127)] ^= bsks_bit_##SFX((r + 1) >> b5);             \
        }                                                                                          \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 64; i++)                                                          \
            y[i] = x[BS_PRESENT_POS(1, i)] ^ kw[stride * ((64 + i + off) & 127)] ^                 \
                   (i >= 32 ? ~(W)0 : (W)0);                                                       \
    }                                                                                              \
                                                                                                   \
    /* kw[stride * bsks_gift_key_bit(r, i)] = bit i of the GIFT key state after r updates. */      \
    BS_FN void bsks_gift64_##SFX(W *y, const W *kw, unsigned stride, const bsks_problem *pb)       \
    {                                                                                              \
        W b[64], m[BS_GIFT64_RK_WORDS];                                                            \
        unsigned rc = 0;                                                                           \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 64; i++)                                                          \
            y[i] = bsks_bit_##SFX(pb->pt_bit[i]);                                                  \
        for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r += 2) {                                       \
            BSGPU_UNROLL                                                                           \
            for (unsigned h = 0; h < 2; h++) {                                                     \
                rc = bs_gift_rc_next(rc);                                                          \
                BSGPU_UNROLL                                                                       \
                for (unsigned i = 0; i < 16; i++) {                                                \
                    m[i] = ~kw[stride * bsks_gift_key_bit(r + h, i)];                              \
                    m[16 + i] = kw[stride * bsks_gift_key_bit(r + h, 16 + i)];                     \
                }                                                                                  \
                BSGPU_UNROLL                                                                       \
                for (unsigned i = 0; i < 6; i++)                                                   \
                    m[32 + i] = bsks_bit_##SFX(rc >> i);                                           \
                if (h == 0)                                                                        \
                    bs_gift64_round_##SFX(b, y, m);                                                \
                else                                                                               \
                    bs_gift64_round_##SFX(y, b, m);                                                \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    BS_FN void bsks_gift128_##SFX(W *y, const W *kw, unsigned stride, const bsks_problem *pb)      \
    {                                                                                              \
        W b[128], m[BS_GIFT128_RK_WORDS];                                                          \
        unsigned rc = 0;                                                                           \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < 128; i++)                                                         \
            y[i] = bsks_bit_##SFX(pb->pt_bit[i]);                                                  \
        for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r += 2) {                                      \
            BSGPU_UNROLL                                                                           \
            for (unsigned h = 0; h < 2; h++) {                                                     \
                rc = bs_gift_rc_next(rc);                                                          \
                BSGPU_UNROLL                                                                       \
                for (unsigned i = 0; i < 32; i++) {                                                \
                    m[i] = kw[stride * bsks_gift_key_bit(r + h, i)];                               \
                    m[32 + i] = kw[stride * bsks_gift_key_bit(r + h, 64 + i)];                     \
                }                                                                                  \
                BSGPU_UNROLL                                                                       \
                for (unsigned i = 0; i < 6; i++)                                                   \
                    m[64 + i] = bsks_bit_##SFX(rc >> i);                                           \
                if (h == 0)                                                                        \
                    bs_gift128_round_##SFX(b, y, m);                                               \
                else                                                                               \
                    bs_gift128_round_##SFX(y, b, m);                                               \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Lanes whose ciphertext (nbits, a constant) equals the first pair's; stops once every        \
     * lane differs. */                                                                            \
    BS_FN W bsks_compare_##SFX(const W *y, const bsks_problem *pb, unsigned nbits)                 \
    {                                                                                              \
        W diff = 0;                                                                                \
        BSGPU_UNROLL                                                                               \
        for (unsigned i = 0; i < nbits; i += 8) {                                                  \
            BSGPU_UNROLL                                                                           \
            for (unsigned b = 0; b < 8; b++)                                                       \
                diff |= y[i + b] ^ bsks_bit_##SFX(pb->ct_bit[i + b]);                              \
            if (diff == ~(W)0)                                                                     \
                return 0;                                                                          \
        }                                                                                          \
        /* Fewer unknown bits than lane bits: the upper lanes repeat candidates. */                \
        if (pb->nunknown < (LOG2))                                                                 \
            diff |= ~(((W)1 << (1u << pb->nunknown)) - 1);                                         \
        return ~diff;                                                                              \
    }                                                                                              \
                                                                                                   \
    BS_FN W bsks_chunk_tab_##SFX(const bsks_problem *pb, const bsks_kwtab_##SFX *tab, uint32_t t)  \
    {                                                                                              \
        W kw[128], y[128];                                                                         \
        bsks_key_words_tab_##SFX(kw, tab, t);                                                      \
        if (pb->cipher == BSGPU_GIFT64) {                                                          \
            bsks_gift64_##SFX(y, kw, 1, pb);                                                       \
            return bsks_compare_##SFX(y, pb, 64);                                                  \
        }                                                                                          \
        if (pb->cipher == BSGPU_GIFT128) {                                                         \
            bsks_gift128_##SFX(y, kw, 1, pb);                                                      \
            return bsks_compare_##SFX(y, pb, 128);                                                 \
        }                                                                                          \
        bsks_present_##SFX(y, kw, pb);                                                             \
        return bsks_compare_##SFX(y, pb, 64);                                                      \
    }                                                                                              \
                                                                                                   \
    BS_FN W bsks_chunk_##SFX(const bsks_problem *pb, uint64_t q)                                   \
    {                                                                                              \
        bsks_kwtab_##SFX tab;                                                                      \
        const uint64_t tmask = ((uint64_t)1 << BSKS_TBITS) - 1;                                    \
        bsks_kwtab_make_##SFX(&tab, pb, q & ~tmask);                                               \
        return bsks_chunk_tab_##SFX(pb, &tab, (uint32_t)(q & tmask));                              \
    }

BSKS_DEFINE(uint64_t, int64_t, u64, 6, BSKS_LANE_BIT64)
BSKS_DEFINE(uint32_t, int32_t, u32, 5, BSGPU_LANE_BIT)

#endif
