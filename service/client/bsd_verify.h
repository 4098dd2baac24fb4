/*
 * bsd_verify.h: the one check that every window of daemon keystream passes before any byte of it
 * is used (PROTOCOL.md "Integrity"), shared by every client of the daemon (the prefetching stream
 * under the provider's CTR and GCM offload, and bitslice seal/open).
 *
 * The daemon is trusted with keys, not with correctness. A window is accepted only if
 *  1. its digest (bs_digest.h), recomputed here as the window is moved out of the shared
 *     memory into this process's own (bsd_verify_move), equals the one in the daemon's reply,
 *     and no word of it is zero: a block the daemon's backend did not write for this request
 *     (the daemon poisons what its backend writes into and refuses to answer for poisoned words),
 *     a store of the daemon that never reached the window (the word is still the zero this client
 *     left there) or a word that changed after the daemon's backend computed it is caught here
 *     with certainty, at several GB/s (a real keystream word is zero with probability 2^-64: a
 *     false alarm costs only the in-process computation);
 *  2. its first and last block and BSD_VERIFY_SPOT blocks at positions drawn at random after the
 *     reply arrived equal blocks recomputed here from the key schedule (constant-time compare):
 *     this catches a backend that is consistently wrong, which a digest of its output cannot.
 * A mismatch is counted (bsd_verify_counts), said on stderr, reported to the daemon (REPORT,
 * so that its STATUS and log count it) and returned as -EBADMSG: the caller then drops the
 * daemon, computes the window in-process from the exact byte and backs off.
 */
#ifndef BSD_VERIFY_H
#define BSD_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "bsd_client.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Random blocks recomputed per window, besides the first and the last. */
#define BSD_VERIFY_SPOT 2

/*
 * Checks win, nblocks blocks of keystream from counter (block_len bytes) under ks, against the
 * reply's digest. c and session: where to report a mismatch (c may be NULL). 0 or -EBADMSG.
 */
int bsd_verify_window(bsd_client *c, uint32_t session, const bs_block_cipher *bc,
                      const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                      const uint8_t *win, uint64_t digest);

/*
 * The same check folded into the client's one pass over the shared window: moves the window
 * from src (shared memory) to dst (this process's own), zeroing src, and digests each word as it
 * passes (bs_digest_move); then the recomputed blocks, on dst. Only dst is checked and only dst
 * may be used, and only after a return of 0; src is wiped whatever the outcome. When unchecked
 * (the benchmark switch) it is the plain copy and wipe, so that the comparison measures the
 * checks alone.
 */
int bsd_verify_move(bsd_client *c, uint32_t session, const bs_block_cipher *bc,
                    const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                    uint8_t *dst, uint8_t *src, uint64_t digest);

/*
 * For a client that checks piece by piece (bsd_stream.c): a window counted as checked; a
 * failure of kind BSD_REPORT_* counted, said and reported as verdict does (returns -EBADMSG);
 * and the spot positions' random numbers (drawn after the reply, seeded from the kernel).
 */
void bsd_verify_count_window(void);
int bsd_verify_failed(bsd_client *c, uint32_t session, uint32_t kind, uint64_t nblocks);
uint64_t bsd_verify_random(void);

/* Process-wide: windows checked, and those that failed the digest or a recomputed block. */
void bsd_verify_counts(uint64_t *windows, uint64_t *digest_mismatches, uint64_t *spot_mismatches);

/*
 * BENCHMARK ONLY (bitslice bench --no-integrity-checks, to measure what the checks cost): when
 * on, this process asks the daemon for unchecked windows (no poison, no digest) and accepts them
 * unchecked. Nothing else may call it.
 */
void bsd_verify_bench_set_unchecked(int on);
int bsd_verify_bench_unchecked(void);

#ifdef __cplusplus
}
#endif

#endif
