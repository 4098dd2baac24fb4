/*
 * aes_masked.h: first-order masked AES-128 and AES-256, fully fixsliced, two blocks per call
 * in eight 32-bit words (the layout of aes.h), Boolean masking.
 *
 * Encryption: 10 fresh random words per two-block call, whatever the key length.
 *   - m0, m1 (and m2 = m0 ^ m1): every slice of the state is one word, the true slice XOR one
 *     of m0, m1, m2, in a fixed pattern per slice (aes_masked_sbox.h). The S-box is aes.h's
 *     circuit with each XOR's operands re-masked where their masks would cancel, and each AND
 *     computed from operands masked by two different masks without fresh randomness (the
 *     gadget of "Masking the AES with Only Two Random Bits", Gross et al., IACR eprint 2018/1007):
 * every one of its values is, bit by bit, independent of the S-box input, and different bits of a
 * word use different, independent bits of m0 and m1, so a word is too. MixColumns runs on the
 *     masked state (its values that mix slices are grouped so that each one is independent of
 *     the state: checked by the generator, aes_masked_gen.py, with a rank test over GF(2)); a
 *     per-call correction word per slice (computed from m0, m1 alone) brings the masks back
 *     to the pattern before the next S-box.
 *   - r[0..8): the plaintext words are masked by r before packing, the packed r is traded for
 *     the pattern, and before unpacking the state is traded back to the (SR^2 of the) packed
 *     r, so that packing and unpacking, which move bits of different slices into one word,
 *     only ever see words masked by eight independent uniform words.
 * Which values could combine: at first order none. Two values together can: a slice and
 * another slice with the same mask, a slice and its mask word, the two round-key shares. That
 * is the second order the scheme does not claim. The masks of a call are reused by all its
 * rounds and both blocks (where the DOM core drew 348 words), which is why the arguments above
 * are per value, and why the code hides each intermediate from the compiler (BS_HIDE) so that
 * it cannot regroup a XOR chain into an unmasked partial sum.
 *
 * Key schedule: the round keys exist only as two shares (rk[0][i] ^ rk[1][i] is
 * bs_aes_key_schedule's word i). SubWord runs an S-box circuit on the four bytes of one word,
 * slice b holding bit b of each at bits 0, 8, 16 and 24 only, and every step is bitwise: the
 * other 28 bits of every value are zero and each of the four positions is a computation of its
 * own. Two key schedules give the same shares:
 *   - The default (bs_aes128_masked_set_key / bs_aes256_masked_set_key, the masked32
 *     descriptors): SubWord through the encryption's pattern S-box, 2 fresh words each,
 *     BS_AES128_MASKED_RAND_KEY / BS_AES256_MASKED_RAND_KEY (24 / 34) words per set_key. One
 *     word R gives m0 and m1 at the four positions (bits 8j and 8j + 1 of R: eight independent
 *     uniform bits); the trade in adds to slice b of share 0 the word (slice b of share 1) ^
 *     mi[b], mask bits only (share 1 is uniform and independent of the key), which gives slice
 *     b of the key word under the S-box's input pattern; the S-box is the encryption's, whose
 *     argument above holds at the four positions (each value, bit by bit, independent of the
 *     input, its four bits under different independent mask bits, so the word is too: the
 *     other bits are zero); the trade out adds (slice b of a second fresh word r1) ^ mo[b],
 *     mask bits only, so that share 0 is the S-box's output ^ r1 and share 1 is r1 (the 0x63
 *     on one of them). Every value is independent of the key at first order, at word level,
 *     and the masks are fresh in every SubWord, so no value of one combines with one of
 *     another. Its randomness is therefore R's eight bits and r1 (the pattern S-box's ANDs
 *     need none), 2 words where the DOM circuit draws 5. What
 *     it does not keep: inside SubWord the key word is one value under a mask (as the state
 *     is in the encryption), not two shares whose values are each, all together, independent of
 *     the key (the DOM schedule's property below, which a first-order claim does not need).
 *     Off Cortex-M3/M4 it is the value-model variant's C (below); on Cortex-M3/M4 the trades and
 *     the S-box are generated Thumb-2 under the transition rule (below).
 *   - The DOM one (bs_aes128_masked_set_key_dom / bs_aes256_masked_set_key_dom): the S-box
 *     with the DOM-indep AND (Gross et al., 2016) on the two shares, fresh randomness for every
 *     AND: BS_AES128_MASKED_DOM_RAND_KEY / BS_AES256_MASKED_DOM_RAND_KEY (54 / 73) words per
 *     set_key. An AND's fresh word therefore needs only those four bits, and eight ANDs share
 *     one random word: AND i takes bits i % 8 (+ 0, 8, 16, 24) of word i / 8, masked to the
 *     four positions. At every position the ANDs get independent uniform bits, as with a word
 *     each, and every value is the one a word each would give with its 28 unused bits
 *     cleared, so whatever it held of the secret (nothing at first order) it holds the same:
 *     5 words an S-box where there were 34. A DOM AND's outputs are a fresh sharing, so each
 *     share's values, all together, are independent of the key.
 *
 * Randomness: the application supplies an RNG callback (a deterministic PRNG under QEMU,
 * getrandom() or the board's TRNG elsewhere) that fills n 32-bit words. Masking is only as
 * good as those words: they must be unpredictable and never reused.
 *
 * What is and is not claimed. tests/leak/ checks the value model: every word the C code names,
 * recorded by an instrumented build, passes a fixed-versus-random Welch t-test on its Hamming
 * weight at first order while the same code with zero randomness or with m1 = m0 fails it;
 * the S-box's values are checked exhaustively bit by bit and the linear layers' values by the
 * rank test on the recorded words; the S-box the Cortex-M builds run is checked the same way
 * on its machine code (tests/leak/check_sbox_thumb.py).
 * Transitions (Hamming distance between old and new contents of a register or a store): with
 * the masks reused across slices, two values under one mask XOR to an unmasked word, so the
 * order in which values share a register matters. On Cortex-M3/M4 the whole data path is
 * generated Thumb-2: packing of the masked plaintext and unpacking (aes_masked_lin_t2.h), the
 * S-box (aes_masked_t2.h, embedded/gen/aes_masked_thumb2.py, a bit-level model over all
 * inputs and masks), and the linear layers of a round (MixColumns, the correction word, the
 * two key shares) with the first and last key additions (aes_masked_lin_t2.h,
 * embedded/gen/aes_masked_lin_thumb2.py, a word-level model: each bit a GF(2) linear form in
 * masks and secrets, a rank test), the rounds run by a generated driver. Their allocators never
 * write a register, a stack slot or a q[] word over contents that would make old ^ new depend
 * on the state, the plaintext or the key; each function clears the registers that hold data
 * before it returns, the S-box also the stack slots whose last value would combine with the
 * next call's first; the driver clears the C's registers on entry and zeroes the S-box's
 * stack slots once per call before the first S-box (the C's locals, the RNG callback's or
 * call_masks_init's, were there), packing and unpacking clear the C's registers before they
 * write them, so that every function starts as its model assumes. Checked by the generators
 * and on the compiled objects (tests/leak/check_sbox_thumb.py --transitions-zero,
 * tests/leak/check_lin_thumb.py: values, transitions, no data left in a register at exit; the
 * driver: r4..r12 constant and r0..r3 pointers at every call, only pointers and zeros stored,
 * the S-box's slots zero at its first call; stage 40-embedded); the slots across S-box calls
 * within an encryption by the S-box's generator only. The plaintext as
 * loaded and the ciphertext as stored are inputs and outputs (their values are not tested,
 * their transitions are, but for the old contents of the output buffer). The C handles
 * only the masks (their set-up and the wipes) and pointers between the generated functions.
 * The default key schedule's SubWord on Cortex-M3/M4 (subword_pat_t2, aes_masked_lin_t2.h,
 * generated by embedded/gen/aes_masked_lin_thumb2.py): the trade in (subword_tin_t2), the
 * encryption's transition-aware S-box (sbox_masked_t2) and the trade out (subword_tout_t2),
 * the trades allocated under the linear layers' rule (no register write, load or store whose
 * old ^ new depends on the key, in a word-level model where m0 and m1 are independent
 * variables at the four positions, the shares K ^ S1 and S1, and q's old contents the last
 * SubWord's S-box output under that SubWord's masks, which nothing else uses), each function
 * clearing its registers on the way out; the driver clears r4..r12 on entry and zeroes the
 * S-box's stack slots before its call, as the rounds' driver does, and subword_pat_wipe_t2
 * zeroes them once more at the end of set_key; the C computes only the mask words m0, m1,
 * m0 ^ m1, m0 | m1 and wipes the work area (the word pair, q, the masks). Checked by the
 * generator and on the compiled objects (tests/leak/check_lin_thumb.py: values, transitions,
 * no data left, the controls m1 = m0, r1 = 0 and share 1 loaded over share 0 failing; the
 * driver's clears and slot stores and the wipe's slots; check_sbox_thumb.py for the S-box).
 * The DOM key schedule's SubWord on Cortex-M3/M4 (subword_dom_t2, aes_masked_dom_t2.h, generated
 * by embedded/gen/aes_masked_dom_thumb2.py from sbox_dom's lines here): slices, the DOM circuit
 * and the output words as straight-line Thumb-2 that computes only the C's values, allocated
 * so that no register write, load or store puts a value of one share over one of the other,
 * a cross product (a0 b1) over anything but an operand of its own AND or fresh bits it does
 * not contain, or a word carrying fresh bits over a value that depends on them. The model (the
 * generator's docstring): a DOM AND's outputs are a fresh sharing of its product (d1 = a1 b1 ^
 * a1 b0 ^ r uniform, independent of all computed without r), so all of share 0's values, in
 * one SubWord or across the key schedule, are together independent of the key, and likewise
 * share 1's. Its spill slots are in a work area of set_key's, zeroed once a key and holding one
 * share's values each in every call; it clears the caller's registers before writing them and
 * its own before it returns. Checked by the generator (two calls in a row, every write) and on
 * the compiled objects (tests/leak/check_dom_thumb.py, stage 40; its control without the
 * clears between values fails).
 * Not transition-aware: the host and RV32I cores (C; the C S-box as GCC compiles it has about
 * 150 such transitions on the M4), the rest of the key schedule (its C: RotWord, the word
 * XORs, the round keys' packing; and SubWord off Cortex-M), exception entry (an interrupt
 * stacks the registers it finds). So this is first-order in the Hamming-distance model only
 * within those boundaries; glitches and other buses (operand buses, the load data path) are
 * outside every check; a device needs its own measurement.
 *
 * The value-model variant (bs_aes128_maskedv_2blocks / bs_aes256_maskedv_2blocks, descriptors
 * impl "masked32v"; the same keys, key schedule and rounds): the claim of aadomn's first-order
 * masked fixsliced AES (after Gross et al.'s "two random bits"), first order in the value model
 * bit by bit, and no more, from ONE random word v per two-block call (BS_AES_MASKEDV_RAND_ENC),
 * where the default draws ten:
 *   - m0 = v, m1 = ror(v, 1). The S-box computes bit by bit and its argument above needs, at
 *     every bit position i, two independent uniform mask bits: (v_i, v_{i+1}) are.
 *   - MixColumns (byte rotations by 2, 4, 6 and word rotations by 8, 16, 24), SR^2 and the
 *     key additions move bits only by even distances, so in every bit of their values the
 *     m0 bits come from positions of one parity and the m1 bits (v one position further) from
 *     the other: a bit that had a mask with independent m0, m1 (every value has, the rank test
 *     above) still has one, and its m0 and m1 parts cannot cancel.
 *   - The plaintext words are all masked by v (packing's SWAPMOVEs only ever XOR bits 1, 2 or
 *     4 apart), the ciphertext words 0, 1, 4, 5 by v and 2, 3, 6, 7 by ror(v, 8) (one v for
 *     all would leave 24 values of the SR^2 before unpacking with two bits under one mask
 *     bit). On Cortex-M3/M4 the call leaves in memory only its masks (cm, v among them, not
 *     wiped): its S-box's stack slots are zeroed by its driver and the state q (the ciphertext
 *     under masks computed from v, which with v would give the output: H, E_K(J0) or
 *     keystream) by the unpacking, 9 instructions where wiping masks and state cost about 80
 *     cycles (tests/leak/check_lin_thumb.py checks both on the objects). Elsewhere the C wipes
 *     its masks and state as the default's.
 *   So every bit of every value is its data bit XOR at least one bit of v: each bit, and the
 *   mean of a word's Hamming weight, is independent of the data (what the t-test measures).
 *   A whole word is not (its bits can share mask bits: m2 = v ^ ror(v, 1) has 31 independent
 *   bits), so a probe that sees a word at once, or the variance of its Hamming weight, can
 *   depend on the data: aadomn's words share 2 bits per block. Transitions are not claimed:
 *   the Cortex-M3/M4 S-box and linear layers of this variant (sbox_masked_v_t2, the _v_t2
 *   functions of aes_masked_lin_t2.h) are allocated without the transition rule. Checked:
 *   tests/leak/test_aes_masked_exact.c (the S-box exhaustively per bit as above; every other
 *   recorded value of AES-128 and AES-256 bit by bit: affine in v, and no data difference in a
 *   bit whose mask row is zero; a planted control), test_aes_masked_tvla.c (both experiments
 *   and all controls, as the default), check_sbox_thumb.py --func sbox_masked_v_t2 on the
 *   objects. The price of the default's wider claim (word level, transitions on Cortex-M, ten
 *   words): bench/RESULTS.md (masked32 against masked32v).
 *   Its key setup (bs_aes128_maskedv_set_key / bs_aes256_maskedv_set_key; the masked32v
 *   descriptors use it) gives the same two shares by the same schedule, SubWord through the
 *   encryption's pattern S-box instead of the DOM circuit: share 0's bits are traded for the
 *   pattern masks by adding a mask-only word (share 1's bits ^ the pattern mask, hidden from
 *   the compiler), m0 and m1 at the four positions SubWord uses from bits 0, 8, 16, 24 and 1,
 *   9, 17, 25 of one fresh word, and the output back to two shares the same way with a second
 *   fresh word as share 1: every value its data bit XOR a mask bit, as in the encryption, for
 *   BS_AES128_MASKEDV_RAND_KEY / BS_AES256_MASKEDV_RAND_KEY (24 / 34) words a key, as the
 *   default's (the DOM one draws 54 / 73; aadomn's: 2). Off Cortex-M3/M4 it is the default's
 *   code; on Cortex-M3/M4 it runs the value-model S-box between trades in C, without the
 *   transition rule. The t-test records it (both experiments).
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
#define bs_aes128_masked_set_key_dom bs_aes128_masked_trace_set_key_dom
#define bs_aes256_masked_set_key_dom bs_aes256_masked_trace_set_key_dom
#define bs_aes128_masked_2blocks bs_aes128_masked_trace_2blocks
#define bs_aes128_masked_clear bs_aes128_masked_trace_clear
#define bs_aes256_masked_set_key bs_aes256_masked_trace_set_key
#define bs_aes256_masked_2blocks bs_aes256_masked_trace_2blocks
#define bs_aes256_masked_clear bs_aes256_masked_trace_clear
#define bs_aes128_masked32 bs_aes128_masked32_trace
#define bs_aes256_masked32 bs_aes256_masked32_trace
#define bs_aes_masked_set_rng bs_aes_masked_trace_set_rng
#define bs_aes128_maskedv_2blocks bs_aes128_maskedv_trace_2blocks
#define bs_aes128_maskedv_set_key bs_aes128_maskedv_trace_set_key
#define bs_aes256_maskedv_set_key bs_aes256_maskedv_trace_set_key
#define bs_aes256_maskedv_2blocks bs_aes256_maskedv_trace_2blocks
#define bs_aes128_masked32v bs_aes128_masked32v_trace
#define bs_aes256_masked32v bs_aes256_masked32v_trace
#endif

/* Fills out[0..nwords) with fresh random words. */
typedef void (*bs_aes_rng_fn)(void *rng_ctx, uint32_t *out, size_t nwords);

/* The key schedule's S-box: 34 ANDs, eight a fresh word (four bits each, see above). */
#define BS_AES_MASKED_SBOX_ANDS 34
#define BS_AES_MASKED_SBOX_RAND ((BS_AES_MASKED_SBOX_ANDS + 7) / 8)
#define BS_AES_MASKED_RAND_ENC 10 /* per two-block call: m0, m1 and eight words r */
#define BS_AES128_MASKED_RAND_ENC BS_AES_MASKED_RAND_ENC
#define BS_AES256_MASKED_RAND_ENC BS_AES_MASKED_RAND_ENC
#define BS_AES_MASKEDV_RAND_ENC 1 /* the value-model variant: one word per two-block call */
/* Its key setup: the encryption's S-box on SubWord, two words each (below). */
#define BS_AES_MASKEDV_SBOX_RAND 2
#define BS_AES128_MASKEDV_RAND_KEY (4 + 10 * BS_AES_MASKEDV_SBOX_RAND)
#define BS_AES256_MASKEDV_RAND_KEY (8 + 13 * BS_AES_MASKEDV_SBOX_RAND)
/* The default key setup: the encryption's S-box on SubWord, two words each (as the value-model
 * variant's, with the transition-aware S-box and trades on Cortex-M3/M4; above). The DOM key
 * setup (the _dom entry points): BS_AES_MASKED_SBOX_RAND words a SubWord. */
#define BS_AES_MASKED_KS_SBOX_RAND 2
#define BS_AES128_MASKED_RAND_KEY (4 + 10 * BS_AES_MASKED_KS_SBOX_RAND)
#define BS_AES256_MASKED_RAND_KEY (8 + 13 * BS_AES_MASKED_KS_SBOX_RAND)
#define BS_AES128_MASKED_DOM_RAND_KEY (4 + 10 * BS_AES_MASKED_SBOX_RAND)
#define BS_AES256_MASKED_DOM_RAND_KEY (8 + 13 * BS_AES_MASKED_SBOX_RAND)

/* Round keys as two shares: rk[0][i] ^ rk[1][i] is bs_aes_key_schedule(.., nk, 4)'s word i. */
typedef struct bs_aes128_masked_key {
    uint32_t rk[2][BS_AES128_RK_WORDS];
} bs_aes128_masked_key;

typedef struct bs_aes256_masked_key {
    uint32_t rk[2][BS_AES256_RK_WORDS];
} bs_aes256_masked_key;

void bs_aes128_masked_set_key(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                              void *rng_ctx);
void bs_aes256_masked_set_key(bs_aes256_masked_key *k, const uint8_t key[32], bs_aes_rng_fn rng,
                              void *rng_ctx);
/* The same shares by the DOM key schedule (above): BS_AES128_MASKED_DOM_RAND_KEY /
 * BS_AES256_MASKED_DOM_RAND_KEY words a key, each share's values jointly independent of the
 * key. */
void bs_aes128_masked_set_key_dom(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                                  void *rng_ctx);
void bs_aes256_masked_set_key_dom(bs_aes256_masked_key *k, const uint8_t key[32], bs_aes_rng_fn rng,
                                  void *rng_ctx);

/* Two blocks in (in, in + 16) -> (out, out + 16); plaintext in, ciphertext out, the state
 * masked in between. in and out may be the same buffer. */
void bs_aes128_masked_2blocks(const bs_aes128_masked_key *k, uint8_t out[32], const uint8_t in[32],
                              bs_aes_rng_fn rng, void *rng_ctx);
void bs_aes256_masked_2blocks(const bs_aes256_masked_key *k, uint8_t out[32], const uint8_t in[32],
                              bs_aes_rng_fn rng, void *rng_ctx);

/* The value-model variant (above): the same key shares (either set_key gives them; the
 * maskedv one with the variant's own claim and cost), one random word per call. */
void bs_aes128_maskedv_set_key(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                               void *rng_ctx);
void bs_aes256_maskedv_set_key(bs_aes256_masked_key *k, const uint8_t key[32], bs_aes_rng_fn rng,
                               void *rng_ctx);
void bs_aes128_maskedv_2blocks(const bs_aes128_masked_key *k, uint8_t out[32], const uint8_t in[32],
                               bs_aes_rng_fn rng, void *rng_ctx);
void bs_aes256_maskedv_2blocks(const bs_aes256_masked_key *k, uint8_t out[32], const uint8_t in[32],
                               bs_aes_rng_fn rng, void *rng_ctx);

void bs_aes128_masked_clear(bs_aes128_masked_key *k);
void bs_aes256_masked_clear(bs_aes256_masked_key *k);

/* The larger key's two shares: what a bs_key_schedule must hold for the descriptors below. */
#define BS_AES_MASKED_KS_BYTES (2 * 4 * BS_AES256_RK_WORDS)

#if BS_KS_MAX >= BS_AES_MASKED_KS_BYTES
/*
 * The masked cores as descriptors (name "AES-128" / "AES-256", impl "masked32", two blocks per
 * pass), so that the modes run over them: bs_ctr_set_key(&ctx, &bs_aes128_masked32, key, 16)
 * is masked AES-CTR. bs_gcm128_set_key(&gcm, &bs_aes128_masked32, key, 16) runs AES-GCM with
 * the block cipher masked, but GHASH, its key H = E_K(0) and the tag are computed unmasked:
 * that is no masked GCM. Their randomness comes from the callback that bs_aes_masked_set_rng set
 * (process-wide; set it before set_key; without one, set_key and encrypt abort rather than
 * run unmasked). Not in bs_block_ciphers[]: bs_block_cipher_by_name never returns them. Absent
 * where BS_KS_MAX is below BS_AES_MASKED_KS_BYTES (a -Dhost_cores=disabled build, 512-byte
 * schedules: call the functions above directly there). bs_aes128_masked32v / _256_ (impl
 * "masked32v") are the value-model variant over the same key schedules, one word per two blocks;
 * FACE is refused over both (gcm128.h).
 */
extern const bs_block_cipher bs_aes128_masked32;
extern const bs_block_cipher bs_aes256_masked32;
extern const bs_block_cipher bs_aes128_masked32v;
extern const bs_block_cipher bs_aes256_masked32v;
void bs_aes_masked_set_rng(bs_aes_rng_fn rng, void *rng_ctx);
#endif

#ifdef BS_AES_MASKED_TRACE
/*
 * The instrumented build (tests only, never linked into a library that ships): every word the
 * masked code computes from the data or the key is appended to bs_aes_masked_trace (up to
 * bs_aes_masked_trace_cap words; bs_aes_masked_trace_len counts them all). The plaintext and
 * key as loaded, and the ciphertext as stored, are inputs and outputs and are not recorded.
 * bs_aes_masked_trace_same_masks set to 1 makes m1 = m0 (so m2 = 0): a broken-mask control.
 * bs_aes_masked_trace_sbox runs the pattern S-box alone on q (slice b masked by mask number
 * bs_aes_masked_trace_pattern_in[b]: 1 = m0, 2 = m1, 3 = m0 ^ m1) with
 * mw = {m0, m1, m0 ^ m1, m0 | m1}.
 */
extern uint32_t *bs_aes_masked_trace;
extern size_t bs_aes_masked_trace_cap, bs_aes_masked_trace_len;
extern int bs_aes_masked_trace_same_masks;
extern const unsigned char *const bs_aes_masked_trace_pattern_in;
void bs_aes_masked_trace_sbox(uint32_t q[8], const uint32_t mw[4]);
#endif

#ifdef __cplusplus
}
#endif

#endif
