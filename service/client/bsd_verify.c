#include "bsd_verify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "bs_digest.h"
#include "modes/ctr.h"

static uint64_t n_windows, n_digest_bad, n_spot_bad;
/* The flag lives with the client, which puts it in each KEYSTREAM request. */
void bsd_verify_bench_set_unchecked(int on)
{
    bsd_client_bench_set_unchecked(on);
}

int bsd_verify_bench_unchecked(void)
{
    return bsd_client_bench_unchecked();
}

void bsd_verify_counts(uint64_t *windows, uint64_t *digest_mismatches, uint64_t *spot_mismatches)
{
    if (windows != NULL)
        *windows = __atomic_load_n(&n_windows, __ATOMIC_RELAXED);
    if (digest_mismatches != NULL)
        *digest_mismatches = __atomic_load_n(&n_digest_bad, __ATOMIC_RELAXED);
    if (spot_mismatches != NULL)
        *spot_mismatches = __atomic_load_n(&n_spot_bad, __ATOMIC_RELAXED);
}

/*
 * Positions of the spot checks: splitmix64 per thread, seeded from the kernel (and again in a
 * forked child). The daemon cannot know them when it writes the window; nothing else about them
 * needs to be secret.
 */
static __thread uint64_t rng_state;
static __thread pid_t rng_pid;

static uint64_t rng_next(void)
{
    if (rng_pid != bsd_client_getpid()) {
        uint64_t seed = 0;
        if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            seed ^=
                (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)bsd_client_getpid();
        }
        rng_state ^= seed;
        rng_pid = bsd_client_getpid();
    }
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t bsd_verify_random(void)
{
    return rng_next();
}

/* Recomputes block i of the window in-process and compares it in constant time (0 or 1). */
static int block_differs(const bs_block_cipher *bc, const bs_key_schedule *ks,
                         const uint8_t *counter, uint64_t i, const uint8_t *win)
{
    uint8_t ctr[BS_BLOCK_MAX], mine[BS_BLOCK_MAX];
    const size_t bl = bc->block_len;
    memcpy(ctr, counter, bl);
    bs_ctr_add(ctr, bl, i);
    bs_ctr_keystream(bc, ks, ctr, 1, mine);
    int bad = bs_ct_memcmp(mine, win + i * bl, bl) != 0;
    bs_wipe(mine, sizeof mine);
    return bad;
}

/* What follows the digest: the recomputed blocks, then the verdict (0 or -EBADMSG). */
static int verdict(bsd_client *c, uint32_t session, const bs_block_cipher *bc,
                   const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                   const uint8_t *win, int digest_ok)
{
    uint32_t kind = digest_ok ? 0 : BSD_REPORT_DIGEST;
    if (kind == 0) {
        int bad = block_differs(bc, ks, counter, 0, win);
        if (nblocks > 1)
            bad |= block_differs(bc, ks, counter, nblocks - 1, win);
        /* Drawn now, after the reply: the window was written before these were known. */
        for (int k = 0; nblocks > 2 && k < BSD_VERIFY_SPOT; k++)
            bad |= block_differs(bc, ks, counter, 1 + rng_next() % (nblocks - 2), win);
        if (bad)
            kind = BSD_REPORT_SPOT;
    }
    if (kind == 0)
        return 0;
    return bsd_verify_failed(c, session, kind, nblocks);
}

int bsd_verify_failed(bsd_client *c, uint32_t session, uint32_t kind, uint64_t nblocks)
{
    __atomic_add_fetch(kind == BSD_REPORT_DIGEST ? &n_digest_bad : &n_spot_bad, 1,
                       __ATOMIC_RELAXED);
    fprintf(stderr,
            "bitslice: the daemon's keystream failed the in-process check (%s); "
            "continuing in-process\n",
            kind == BSD_REPORT_DIGEST ? "window digest mismatch"
                                      : "a block recomputed in-process differs");
    if (c != NULL)
        (void)bsd_client_report(c, kind, session, nblocks);
    return -EBADMSG;
}

void bsd_verify_count_window(void)
{
    __atomic_add_fetch(&n_windows, 1, __ATOMIC_RELAXED);
}

int bsd_verify_window(bsd_client *c, uint32_t session, const bs_block_cipher *bc,
                      const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                      const uint8_t *win, uint64_t digest)
{
    if (bsd_verify_bench_unchecked())
        return 0;
    __atomic_add_fetch(&n_windows, 1, __ATOMIC_RELAXED);
    const size_t bl = bc->block_len;
    int ok = bl % 8 == 0 && nblocks != 0 && bs_digest(counter, bl, nblocks, win) == digest;
    return verdict(c, session, bc, ks, counter, nblocks, win, ok);
}

int bsd_verify_move(bsd_client *c, uint32_t session, const bs_block_cipher *bc,
                    const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                    uint8_t *dst, uint8_t *src, uint64_t digest)
{
    const size_t bl = bc->block_len, bytes = (size_t)nblocks * bl;
    if (bsd_verify_bench_unchecked() || bl % 8 != 0 || nblocks == 0) {
        if (bytes % 8 == 0) {
            bs_digest_move_plain(dst, src, bytes / 8); /* copy and wipe, one pass */
        } else {
            memcpy(dst, src, bytes);
            bs_wipe(src, bytes);
        }
        if (bsd_verify_bench_unchecked())
            return 0;
        __atomic_add_fetch(&n_windows, 1, __ATOMIC_RELAXED);
        return verdict(c, session, bc, ks, counter, nblocks, dst, 0);
    }
    __atomic_add_fetch(&n_windows, 1, __ATOMIC_RELAXED);
    /*
     * A word the daemon never stored is zero: this client zeroed the window when it last moved
     * it out (and a new memfd is zeroes), and the daemon writes only final keystream there.
     */
    uint64_t zeros = 0;
    int ok = bs_digest_move(counter, bl, nblocks, dst, src, &zeros) == digest;
    ok &= zeros == 0;
    return verdict(c, session, bc, ks, counter, nblocks, dst, ok);
}
