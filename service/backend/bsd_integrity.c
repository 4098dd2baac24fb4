#include "bsd_integrity.h"

#include <stdlib.h>
#include <string.h>

#include "bs_digest.h"

static int fault_mode;

const char *bsd_fault_init(void)
{
    const char *f = getenv("BSD_TEST_FAULT");
    fault_mode = BSD_FAULT_NONE;
    if (f == NULL || f[0] == 0)
        return NULL;
    if (strcmp(f, "skip") == 0)
        fault_mode = BSD_FAULT_SKIP;
    else if (strcmp(f, "unwritten") == 0)
        fault_mode = BSD_FAULT_UNWRITTEN;
    else if (strcmp(f, "wrong") == 0)
        fault_mode = BSD_FAULT_WRONG;
    else if (strcmp(f, "window") == 0)
        fault_mode = BSD_FAULT_WINDOW;
    else if (strcmp(f, "nomem") == 0)
        fault_mode = BSD_FAULT_NOMEM;
    else
        return NULL;
    return f;
}

int bsd_fault_mode(void)
{
    return fault_mode;
}

void bsd_job_integrity_init(bsd_job *job, int unchecked)
{
    const size_t bl = job->cipher->block_len;
    job->unchecked = unchecked;
    job->seed = bs_digest_seed(job->counter, bl, job->nblocks);
    job->poison = bs_digest_poison(job->seed);
    job->sum = job->poison_hits = 0;
}

void bsd_job_poison(bsd_job *job, uint64_t lo, uint64_t hi)
{
    if (job->unchecked || lo >= hi)
        return;
    const size_t bl = job->cipher->block_len;
    bs_digest_poison_fill(job->dst + lo * bl, (size_t)((hi - lo) * bl / 8), job->poison);
}

/*
 * The test faults, applied to blocks [lo, hi) that the backend has just written into a window it
 * poisoned first (CUDA's CPU redo): "skip" and "unwritten" leave the middle block as it was,
 * poisoned.
 */
static void inject(bsd_job *job, uint64_t lo, uint64_t hi)
{
    const size_t bl = job->cipher->block_len;
    const uint64_t mid = job->nblocks / 2;
    if ((fault_mode == BSD_FAULT_SKIP || fault_mode == BSD_FAULT_UNWRITTEN) && mid >= lo &&
        mid < hi)
        bs_digest_poison_fill(job->dst + mid * bl, bl / 8, job->poison);
    /* Every block but the first and the last: what a check of those two alone cannot see. */
    if (fault_mode == BSD_FAULT_WRONG)
        for (uint64_t b = lo; b < hi; b++)
            if (b != 0 && b + 1 != job->nblocks)
                job->dst[b * bl] ^= 0x5a;
}

/*
 * Sums blocks [lo, hi) of the job's window, counting the words equal to poison into *hits, and
 * when the client asked for pieces adds each piece's share into its sum, split at the piece
 * boundaries: the same words summed once, only cut into more calls. Returns the total.
 */
static uint64_t sum_pieces(bsd_job *job, uint64_t lo, uint64_t hi, uint64_t poison, uint64_t *hits)
{
    const size_t bl = job->cipher->block_len;
    uint64_t total = 0;
    *hits = 0;
    if (job->piece_log2 == 0)
        return bs_digest_sum(job->seed, lo * bl / 8, job->dst + lo * bl,
                             (size_t)((hi - lo) * bl / 8), poison, hits);
    uint64_t a = lo * bl, end = hi * bl; /* bytes */
    while (a < end) {
        uint64_t p = a >> job->piece_log2;
        uint64_t b = (p + 1) << job->piece_log2;
        if (b > end)
            b = end;
        uint64_t h = 0;
        uint64_t s =
            bs_digest_sum(job->seed, a / 8, job->dst + a, (size_t)((b - a) / 8), poison, &h);
        __atomic_fetch_add(&job->piece_sums[p], s, __ATOMIC_RELAXED);
        total += s;
        *hits += h;
        a = b;
    }
    return total;
}

uint64_t bsd_job_device_sum(bsd_job *job, uint64_t lo, uint64_t hi, uint64_t *hits)
{
    /* The client's zero is the poison: what the device's copies did not reach is still zero. */
    return sum_pieces(job, lo, hi, 0, hits);
}

void bsd_job_add(bsd_job *job, uint64_t sum, uint64_t hits)
{
    __atomic_fetch_add(&job->sum, sum, __ATOMIC_RELAXED);
    if (hits != 0)
        __atomic_fetch_add(&job->poison_hits, hits, __ATOMIC_RELAXED);
}

void bsd_job_pieces_stale(bsd_job *job)
{
    if (job->piece_log2 != 0)
        __atomic_store_n(&job->pieces_stale, 1, __ATOMIC_RELAXED);
}

/* Sums blocks [lo, hi) into job->sum and the pieces (sum_pieces). */
static void sum_range(bsd_job *job, uint64_t lo, uint64_t hi, uint64_t poison)
{
    uint64_t hits;
    const uint64_t sum = sum_pieces(job, lo, hi, poison, &hits);
    bsd_job_add(job, sum, hits);
}

void bsd_job_seal(bsd_job *job, uint64_t lo, uint64_t hi)
{
    if (job->unchecked || lo >= hi)
        return;
    if (fault_mode == BSD_FAULT_SKIP || fault_mode == BSD_FAULT_UNWRITTEN ||
        fault_mode == BSD_FAULT_WRONG)
        inject(job, lo, hi);
    sum_range(job, lo, hi, job->poison);
}

/*
 * The faults of a backend that writes straight into the client's wiped window (CPU): the
 * middle block's bytes as they were before the backend ran, put back after it ("skip": its
 * stores did not land; "unwritten": the backend did not write it). One piece at a time per
 * worker thread, so a thread's own copy suffices.
 */
static __thread uint8_t saved_block[BS_BLOCK_MAX];

static int hits_middle(const bsd_job *job, uint64_t lo, uint64_t hi)
{
    const uint64_t mid = job->nblocks / 2;
    return (fault_mode == BSD_FAULT_SKIP || fault_mode == BSD_FAULT_UNWRITTEN) && mid >= lo &&
           mid < hi;
}

void bsd_job_begin_wiped(bsd_job *job, uint64_t lo, uint64_t hi)
{
    if (job->unchecked || !hits_middle(job, lo, hi))
        return;
    const size_t bl = job->cipher->block_len;
    memcpy(saved_block, job->dst + job->nblocks / 2 * bl, bl);
}

void bsd_job_seal_wiped(bsd_job *job, uint64_t lo, uint64_t hi)
{
    if (job->unchecked || lo >= hi)
        return;
    const size_t bl = job->cipher->block_len;
    if (hits_middle(job, lo, hi))
        memcpy(job->dst + job->nblocks / 2 * bl, saved_block, bl);
    if (fault_mode == BSD_FAULT_WRONG)
        for (uint64_t b = lo; b < hi; b++)
            if (b != 0 && b + 1 != job->nblocks)
                job->dst[b * bl] ^= 0x5a;
    /* A word the backend did not write still holds the zero the client's move left there. */
    sum_range(job, lo, hi, 0);
}

int bsd_job_verdict(const bsd_job *job, uint64_t *digest, uint64_t *unwritten)
{
    /* The backend's completion reached the loop thread through libuv's queue: a full barrier. */
    uint64_t hits = __atomic_load_n(&job->poison_hits, __ATOMIC_ACQUIRE);
    *unwritten = hits;
    *digest = job->unchecked ? 0
                             : bs_digest_final(__atomic_load_n(&job->sum, __ATOMIC_ACQUIRE),
                                               job->nblocks * job->cipher->block_len / 8);
    return hits == 0 ? 0 : -1;
}

void bsd_job_piece_digests(const bsd_job *job, uint64_t *out, size_t npieces)
{
    const uint64_t bytes = job->nblocks * job->cipher->block_len;
    const int stale = __atomic_load_n(&job->pieces_stale, __ATOMIC_ACQUIRE);
    for (size_t p = 0; p < npieces; p++) {
        uint64_t a = (uint64_t)p << job->piece_log2;
        uint64_t b = a + ((uint64_t)1 << job->piece_log2);
        if (b > bytes)
            b = bytes;
        uint64_t sum =
            stale ? bs_digest_sum(job->seed, a / 8, job->dst + a, (size_t)((b - a) / 8), 0, NULL)
                  : __atomic_load_n(&job->piece_sums[p], __ATOMIC_ACQUIRE);
        out[p] = bs_digest_final(sum, (b - a) / 8);
    }
}
