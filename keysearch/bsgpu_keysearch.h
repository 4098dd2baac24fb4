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
 * bsks_engine.inc.h (a template include, instantiated below) defines, for word type BS_W with
 * 2^BSKS_LOG2 lanes and name suffix SFX:
 *   bsks_kwtab_make_SFX(tab, pb, qbase)  the key-word table of chunks qbase + t (host, once);
 *   bsks_key_words_tab_SFX(kw, tab, t)   the candidates of chunk qbase + t from it;
 *   bsks_key_words_SFX(kw, pb, q)        the candidates of chunk q (both of the above);
 *   bsks_present_SFX(y, kw, pb)          PRESENT-80/128 (pb->key_bits) with per-lane keys;
 *   bsks_gift64_SFX(y, kw, pb), bsks_gift128_SFX(y, kw, pb);
 *   bsks_chunk_tab_SFX(pb, tab, t), bsks_chunk_SFX(pb, q)
 *                                        the lanes of chunk q whose encryption of the first
 *                                        plaintext equals the first ciphertext (0 when none).
 */
#define BS_W uint64_t
#define BSKS_SW int64_t
#define BS_SFX u64
#define BSKS_LOG2 6
#define BSKS_LANEBIT BSKS_LANE_BIT64
#include "bsks_engine.inc.h"

#define BS_W uint32_t
#define BSKS_SW int32_t
#define BS_SFX u32
#define BSKS_LOG2 5
#define BSKS_LANEBIT BSGPU_LANE_BIT
#include "bsks_engine.inc.h"

#endif
