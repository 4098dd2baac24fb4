/*
 * bs_digest.h: the keystream window digest of protocol version 2 (PROTOCOL.md, "Integrity").
 * The daemon computes it right after its backend wrote a KEYSTREAM window and sends it in the
 * reply; the client recomputes it as it moves the window out of the shared memory into its own
 * (bs_digest_move), before it uses a byte of the window.
 *
 * It guards against faults, not against an adversary (the daemon is trusted with the keys
 * anyway): the window's 64-bit little-endian words w_j (j counted from the request's first
 * block) are mixed one by one with a bijective 64-bit finalizer and summed,
 *
 *     digest = fmix64(nwords ^ sum_j fmix64(w_j ^ (seed + j * G)) mod 2^64),
 *
 * seed derived from the request's counter block and block count, G the 64-bit golden ratio.
 * Because fmix64 is a bijection, a change of any one word always changes the digest (certain
 * detection of a flipped bit or byte, or of one overwritten word); changes of several words cancel
 * with probability about 2^-64 (fmix64 has full avalanche, so the differences behave as random);
 * the seed makes the digest of one request useless for another (a stale window or a digest
 * replayed for another counter does not match). The sum can be taken over any split of the
 * window in any order, so backend threads digest the slices they just wrote, while they are
 * still in cache. No secret-dependent branch or index: only xor, shift, multiply and add.
 *
 * The sum runs on the best of three bit-exact implementations the CPU and the bs_cpu level
 * (bs_cpu.h, $BITSLICE_CPU) allow: eight scalar lanes (portable), four-word AVX2 vectors with the
 * 64-bit multiply made of three 32-bit ones, and eight-word AVX-512 vectors (VPMULLQ, which also
 * needs AVX-512DQ); chosen once, at the first call.
 *
 * It lives in core/ because the daemon's backends (right after they wrote a piece), the clients
 * (before they use a window) and the GPU's self-check (bs_digest_mix.h, on the device) all
 * compute it; the wire protocol (service/proto/PROTOCOL.md) only carries the result.
 *
 * Unwritten words: a word that nobody wrote for this request must not pass as written, so the
 * digest pass also counts the words equal to what the window held before the backend ran. The
 * client zeroes each window as it moves it out (and a new memfd is zeroes), so a window is zero
 * when it is asked for: the CPU backend writes straight into it and counts zero words as it
 * digests each piece (a real keystream word is zero with probability 2^-64), with no pass of its
 * own over the window first. The CUDA backend, whose results reach the window over PCIe, fills
 * it with a per-request poison word first and counts that. The client counts zero words again
 * in its move (bs_digest_move_sum) and refuses a window that holds any.
 */
#ifndef BS_DIGEST_H
#define BS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The seed of one request: its first counter block (block_len bytes) and its block count. */
uint64_t bs_digest_seed(const uint8_t *counter, size_t block_len, uint64_t nblocks);
/* The request's poison word (never equal to the seed; both public, neither secret). */
uint64_t bs_digest_poison(uint64_t seed);
/*
 * The partial sum over words [word0, word0 + nwords) of the request, p pointing at word word0.
 * Partial sums of disjoint ranges add (mod 2^64). If poison_hits is not NULL, it receives the
 * number of those words equal to poison.
 */
uint64_t bs_digest_sum(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                       uint64_t poison, uint64_t *poison_hits);
/* The same at a given bs_cpu level (capped at what this CPU runs): for the tests. */
uint64_t bs_digest_sum_at(int level, uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                          uint64_t poison, uint64_t *poison_hits);
/* The level bs_digest_sum runs at (BS_CPU_PORTABLE, BS_CPU_AVX2 or BS_CPU_AVX512). */
int bs_digest_level(void);
/* The level bs_digest_sum_at(level, ...) runs at on this CPU. */
int bs_digest_level_at(int level);
/* The x86-64 implementations (bs_digest_x86.c), behind the dispatch. */
uint64_t bs_digest_sum_avx2(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                            uint64_t poison, uint64_t *hits);
uint64_t bs_digest_sum_avx512(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                              uint64_t poison, uint64_t *hits);
/*
 * The client's one pass over a window (bsd_windows.c): moves nwords words from src (the shared
 * window) to dst (this process's private copy), zeroes them at src, and returns their sum as
 * bs_digest_sum(seed, word0, dst, ...) would after the move; *zero_words receives the number
 * of words that were zero (never stored by the daemon: the client zeroed the window last). Each
 * word is read from src once; the value stored at dst is the value summed (it is held in a
 * register between the two, never read again from src), so a write to src during the move cannot
 * make the copy differ from what was checked. dst and src must not overlap.
 */
uint64_t bs_digest_move_sum(uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src,
                            size_t nwords, uint64_t *zero_words);
uint64_t bs_digest_move_sum_at(int level, uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src,
                               size_t nwords, uint64_t *zero_words);
uint64_t bs_digest_move_sum_avx2(uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src,
                                 size_t nwords, uint64_t *zero_words);
uint64_t bs_digest_move_sum_avx512(uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src,
                                   size_t nwords, uint64_t *zero_words);
/*
 * The client's fused pass over one piece of a window (bsd_stream.c, PROTOCOL.md "Integrity"):
 * each word w is read from src (the shared window) once, src is zeroed, out receives in ^ w (w
 * itself when in is NULL) and keep, when not NULL, receives w; the return value is the sum of the
 * words as bs_digest_move_sum's, and *zero_words counts the words that were zero. What reaches
 * out (and keep) is the value summed, held in a register in between, so a write to src during the
 * pass cannot make the output differ from what is checked. in may equal out; no other overlap.
 */
uint64_t bs_digest_xor_move_sum(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in,
                                uint8_t *keep, uint8_t *src, size_t nwords, uint64_t *zero_words);
uint64_t bs_digest_xor_move_sum_at(int level, uint64_t seed, uint64_t word0, uint8_t *out,
                                   const uint8_t *in, uint8_t *keep, uint8_t *src, size_t nwords,
                                   uint64_t *zero_words);
/* One word at a time (the tails of the vector ones use it too). */
uint64_t bs_digest_xor_move_sum_portable(uint64_t seed, uint64_t word0, uint8_t *out,
                                         const uint8_t *in, uint8_t *keep, uint8_t *src,
                                         size_t nwords, uint64_t *zero_words);
uint64_t bs_digest_xor_move_sum_avx2(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in,
                                     uint8_t *keep, uint8_t *src, size_t nwords,
                                     uint64_t *zero_words);
uint64_t bs_digest_xor_move_sum_avx512(uint64_t seed, uint64_t word0, uint8_t *out,
                                       const uint8_t *in, uint8_t *keep, uint8_t *src,
                                       size_t nwords, uint64_t *zero_words);
/*
 * The same move without the sum (copy and zero in one pass): what a client does without the
 * checks (the benchmark switch), so that a comparison measures the digest alone.
 */
void bs_digest_move_plain(uint8_t *dst, uint8_t *src, size_t nwords);
void bs_digest_move_plain_at(int level, uint8_t *dst, uint8_t *src, size_t nwords);
void bs_digest_move_plain_avx2(uint8_t *dst, uint8_t *src, size_t nwords);
void bs_digest_move_plain_avx512(uint8_t *dst, uint8_t *src, size_t nwords);
/*
 * bs_digest's value for the window moved from src to dst (block_len a multiple of 8), and in
 * *zero_words the number of its words that were zero.
 */
uint64_t bs_digest_move(const uint8_t *counter, size_t block_len, uint64_t nblocks, uint8_t *dst,
                        uint8_t *src, uint64_t *zero_words);
/* The digest from the sum of all partial sums of a request of nwords words. */
uint64_t bs_digest_final(uint64_t sum, uint64_t nwords);
/* All of it at once, for nblocks blocks of block_len bytes (a multiple of 8) at p. */
uint64_t bs_digest(const uint8_t *counter, size_t block_len, uint64_t nblocks, const uint8_t *p);
/* Fills nwords words at p with the poison word (little-endian), at bs_digest_level(). */
void bs_digest_poison_fill(uint8_t *p, size_t nwords, uint64_t poison);
/* The same at a given level (capped at what this CPU runs): for the tests. */
void bs_digest_poison_fill_at(int level, uint8_t *p, size_t nwords, uint64_t poison);
void bs_digest_poison_fill_avx2(uint8_t *p, size_t nwords, uint64_t poison);
void bs_digest_poison_fill_avx512(uint8_t *p, size_t nwords, uint64_t poison);

#ifdef __cplusplus
}
#endif

#endif
