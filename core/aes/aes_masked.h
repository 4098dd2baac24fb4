/*
 * aes_masked.h: first-order masked AES-128, fully fixsliced, two blocks per call in eight
 * 32-bit words per share (the layout of aes.h), Boolean masking with two shares.
 *
 * Every secret word x is held as two shares x0, x1 with x = x0 ^ x1. The linear layers
 * (packing, MixColumns in its four representations, SR^2, AddRoundKey) run on each share
 * alone. The S-box is aes.h's circuit (Boyar and Peralta, 34 ANDs) with every AND replaced by
 * a domain-oriented masked AND (DOM-indep, Gross et al. 2016) that takes one fresh random word:
 *     c0 = a0 b0 ^ (a0 b1 ^ r),   c1 = a1 b1 ^ (a1 b0 ^ r),
 * the bracketed sum computed first and hidden from the compiler, so that it cannot factor
 * a0 (b0 ^ b1) = a0 b, an unmasked value. Each AND output is freshly masked by its r, which is
 * the refreshing between the circuit's nonlinear layers. The key schedule runs masked too
 * (SubWord through the same masked circuit), so that round keys exist only as shares.
 *
 * Randomness: the application supplies an RNG callback (a deterministic PRNG under QEMU,
 * getrandom() or the board's TRNG elsewhere) that fills n 32-bit words. Each call draws
 * fresh words: BS_AES128_MASKED_RAND_ENC words per two-block call (8 input masks, then 34 per
 * S-box layer, asked for one layer at a time) and BS_AES128_MASKED_RAND_KEY per set_key.
 * Masking is only as good as those words: they must be unpredictable and never reused.
 *
 * What is and is not claimed. tests/leak/ checks the value model: every share word this C code
 * names, recorded by an instrumented build, passes a fixed-versus-random Welch t-test at
 * first order while the same code with zero randomness fails it. Transitions between values
 * sharing a register or bus (Hamming distance), glitches, and what a compiler makes of the C
 * on a given target are outside that model; a device needs its own measurement.
 *
 * Constant time: straight-line logic; branches and indices depend only on round numbers.
 */
#ifndef BS_AES_MASKED_H
#define BS_AES_MASKED_H

#include "aes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef BS_AES_MASKED_TRACE
/* The instrumented build's entry points have their own names, so that it links beside the
 * normal core. */
#define bs_aes128_masked_set_key bs_aes128_masked_trace_set_key
#define bs_aes128_masked_2blocks bs_aes128_masked_trace_2blocks
#define bs_aes128_masked_clear bs_aes128_masked_trace_clear
#endif

/* Fills out[0..nwords) with fresh random words. */
typedef void (*bs_aes_rng_fn)(void *rng_ctx, uint32_t *out, size_t nwords);

#define BS_AES_MASKED_SBOX_RAND 34 /* one word per AND of the S-box circuit */
#define BS_AES128_MASKED_RAND_ENC (8 + 10 * BS_AES_MASKED_SBOX_RAND)
#define BS_AES128_MASKED_RAND_KEY (4 + 10 * BS_AES_MASKED_SBOX_RAND)

/* Round keys as two shares: rk[0][i] ^ rk[1][i] is bs_aes_key_schedule(.., 4, 4)'s word i. */
typedef struct bs_aes128_masked_key {
    uint32_t rk[2][BS_AES128_RK_WORDS];
} bs_aes128_masked_key;

void bs_aes128_masked_set_key(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                              void *rng_ctx);

/* Two blocks in (in, in + 16) -> (out, out + 16); plaintext in, ciphertext out, the state
 * masked in between. in and out may be the same buffer. */
void bs_aes128_masked_2blocks(const bs_aes128_masked_key *k, uint8_t out[32], const uint8_t in[32],
                              bs_aes_rng_fn rng, void *rng_ctx);

void bs_aes128_masked_clear(bs_aes128_masked_key *k);

#ifdef BS_AES_MASKED_TRACE
/*
 * The instrumented build (tests only, never linked into a library that ships): every word the
 * masked code computes is appended to bs_aes_masked_trace (up to bs_aes_masked_trace_cap
 * words; bs_aes_masked_trace_len counts them all). The plaintext and key as loaded, and the
 * ciphertext as stored, are inputs and outputs and are not recorded. bs_aes_masked_trace_no_r
 * set to 1 zeroes the AND gadgets' randomness (input masks stay): a broken-gadget control.
 */
extern uint32_t *bs_aes_masked_trace;
extern size_t bs_aes_masked_trace_cap, bs_aes_masked_trace_len;
extern int bs_aes_masked_trace_no_r;
#endif

#ifdef __cplusplus
}
#endif

#endif
