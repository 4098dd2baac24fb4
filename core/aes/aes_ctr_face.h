/*
 * aes_ctr_face.h: AES-CTR over the fully fixsliced core with FACE-style caching (after Park et
 * al., "FACE: Fast AES CTR mode Encryption Techniques based on the Reuse of Repetitive Data",
 * TCHES 2018/3), in the fixsliced domain. Output is bit for bit that of bs_ctr_crypt over
 * bs_aes128_fix32 / bs_aes256_fix32 (same counter rule, limits and refusals: the bookkeeping
 * is bs_ctr_ctx's own, which pulls whole blocks from this context as its keystream source).
 *
 * What is cached. While counter bytes 0..14 stay the same (an "epoch" of up to 256 blocks),
 * only byte 15 (v) changes. After round 1 (representation 1) only the four diagonal bytes
 * T[r][r] depend on v, each through one MixColumns coefficient times SB(v ^ k15); after
 * round 2 (representation 2) every byte depends on v, but only through the S-box of those four
 * bytes, again linearly: state2(v) = state2(0) ^ P[v], where P[v] puts c * (SB(d_r(v)) ^
 * SB(d_r(0))) (c in {2, 3, 1, 1} by position) at each byte. The epoch's refresh computes
 * state2(0) and the 256 P[v] (the S-boxes of 1024 bytes, bitsliced, 32 bytes a pass); a pair
 * of blocks then starts at round 3 from two XORs and the packing. SB(v ^ k15) for all v is
 * computed once per key.
 *
 * Constant time: the tables are indexed by counter bytes only (public in CTR; AES-GCM uses FACE
 * only where J0 comes from the IV, gcm.inc.h, not by GHASH under H); their contents
 * are computed with the bitsliced S-box and shifts, never indexed by key or data. The refresh
 * costs about as much as 30 pairs of blocks, so the cached path runs only where at least
 * BS_AES_FACE_MIN_BLOCKS blocks remain in the epoch (a public length decision).
 */
#ifndef BS_AES_CTR_FACE_H
#define BS_AES_CTR_FACE_H

#include "../modes/ctr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BS_AES_FACE_MIN_BLOCKS 64

typedef struct bs_aes_face_ctx {
    bs_ctr_ctx ctr;          /* key schedule, counter, partial block, limits */
    bs_keystream_source src; /* this context as CTR's keystream source (keystream.h) */
    unsigned ngroups;        /* 2 (AES-128) or 3 (AES-256): see aes_fix32.c */
    uint8_t sb_k15[256];     /* SB(v ^ k15) without the 0x63 (only differences are used) */
    uint8_t epoch[15];       /* counter bytes 0..14 the cache below holds */
    int cached;              /* epoch[] and the tables are valid */
    uint32_t base2[4];       /* state after round 2 for v = 0 (rep. 2), little-endian words */
    uint32_t p[256][4];      /* state2(v) ^ state2(0) */
    unsigned long refreshes; /* epochs computed (for the tests and the benchmark) */
} bs_aes_face_ctx;

/* Key of 16 or 32 bytes (AES-128 or AES-256 over the fixsliced core). */
int bs_aes_face_set_key(bs_aes_face_ctx *ctx, const uint8_t *key, size_t key_len);
/* 16-byte initial counter block, as bs_ctr_set_iv. */
int bs_aes_face_set_iv(bs_aes_face_ctx *ctx, const uint8_t *iv, size_t iv_len);
/*
 * As bs_ctr_crypt (all or nothing, in may equal out). The context may be copied by value (the
 * copy goes on by itself: each call points ctr at this context's own source, src); so use this
 * call, never bs_ctr_crypt on ctx->ctr, whose source may still be the original's.
 */
int bs_aes_face_crypt(bs_aes_face_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len);
/* Wipes the context and the stack the cores used (bs_wipe_stack). */
void bs_aes_face_clear(bs_aes_face_ctx *ctx);
/*
 * Stateless use of the cache (GCM): nblocks blocks of keystream from counter (advanced by
 * nblocks) into out; ahead >= nblocks blocks remain in the caller's request (a refresh is paid
 * only when enough of them fall into the epoch). inc32: the counter rule of GCM (the low 32
 * bits wrap), else the whole block increments. No limit check: the caller does it.
 */
void bs_aes_face_keystream(bs_aes_face_ctx *ctx, uint8_t counter[16], size_t nblocks, size_t ahead,
                           int inc32, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
