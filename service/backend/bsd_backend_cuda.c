/*
 * The CUDA backend. A batch is cut, by block ranges over its jobs, into one part per healthy
 * device (parts of at least 2^20 blocks); each part runs on libuv's pool, where it turns the
 * jobs' key schedules into compact device keys (one per distinct schedule),
 * calls bsgpu_keystream_checked (the device computes everything twice; the digest of the second
 * result must match the digest of what reached the shared memory), and on any failure or
 * mismatch redoes its whole part with bs_ctr_keystream, so a job is never answered with
 * unchecked output. A device that failed or gave a wrong result is taken out of service; its
 * error is logged and shown in STATUS. A wrong result is the device's only when it is wrong again
 * in memory the client cannot write (device_agrees): a client that writes into its own window
 * while the device's copy lands fails its part, not the device. A copy that CUDA refused into the
 * jobs' memory (BSGPU_E_DEST, the device found working after it) is the part's fault: the part is
 * redone on the CPU and the device stays. Each job names its mapping (bsd_job.region), so that
 * copies into two clients' mappings, adjacent or not, are never merged into one.
 *
 * Keys stay on the devices: at OPEN (open_key) a session's compact key takes a slot of the
 * host's table (bsgpu_keytab) and a sync on the pool loads it into every device's table, expanded
 * there once; at CLOSE (close_key) the slot is zeroed on every device the same way. A part first
 * applies whatever its device still has pending (under the device's lock, so a load is always
 * in place before a job names its slot), then names resident slots (BSGPU_KEY_RESIDENT) for the
 * jobs of such sessions and passes only the other jobs' keys with the call. A full table, or a
 * device without one, leaves those sessions' keys going with each call, as before. A device
 * taken out of service has its table zeroed and freed; destroy zeroes every table.
 */
#include "bsd_backend_cuda.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bs_digest.h"
#include "bsd_integrity.h"
#include "bsd_log.h"
#include "bsgpu.h"
#include "bsgpu_keytab.h"
#include "modes/ctr.h"

#define CUDA_MAX_DEV 16
/* Per device: streams that overlap kernels and copies, and the output buffer of each. */
#define CUDA_STREAMS 3
#define CUDA_CHUNK ((size_t)64 << 20)
#define CUDA_MIN_PART ((uint64_t)1 << 20)
/* Sessions whose keys stay on the devices (11 KiB of device memory each, 45 MiB a device); more
 * than this at once, and the others' keys go with each call. Changes applied per update call. */
#define CUDA_KEY_SLOTS 4096u
#define CUDA_KEYOPS 256u

typedef struct cuda_backend {
    unsigned ndev;
    bsgpu_ctx *dev[CUDA_MAX_DEV];
    pthread_mutex_t lock[CUDA_MAX_DEV];
    atomic_int failed[CUDA_MAX_DEV];
    unsigned next; /* loop thread only */
    /* Loop thread only (updated in after-work callbacks). */
    uint64_t batches, blocks, fallbacks, errors, check_failures;
    uint64_t copy_refusals;  /* parts whose copy into the jobs' memory CUDA refused */
    uint64_t window_changes; /* parts whose shared window changed under them (not the device) */
    char last_error[256];
    /* Keys that stay on the devices: the host's table (keytab_ok: it exists), each device's
     * staging of one update (under its lock), and the sync that applies OPEN's and CLOSE's
     * changes (one at a time: sync_busy, loop thread; its findings in sync_err). */
    bsgpu_keytab keytab;
    int keytab_ok;
    bsgpu_keyop *ops[CUDA_MAX_DEV];
    bsgpu_key *opkeys[CUDA_MAX_DEV];
    uv_work_t sync;
    int sync_busy, sync_again;
    uint64_t keys_refused;           /* loop thread */
    atomic_ullong key_wipe_failures; /* tables whose zeroing CUDA refused (any thread) */
    char sync_err[256];
    unsigned sync_failed_dev;
} cuda_backend;

typedef struct cuda_part {
    uv_work_t work;
    bsd_batch *batch;
    cuda_backend *cb;
    unsigned dev;
    uint64_t first, last; /* block range over the concatenated jobs */
    int cpu_only;         /* no healthy device at submit */
    int status;           /* 0 GPU, 1 CPU fallback */
    int cuda_failed;      /* the device failed (not only this batch's keys) */
    int dest_refused;     /* CUDA refused a copy into the jobs' memory; the device still works */
    int check_failed;     /* the device's result failed its self-check */
    int window_changed;   /* the shared window differed, the device's private recheck agreed */
    char err[256];
} cuda_part;

typedef struct cuda_batch {
    unsigned pending;
    cuda_part parts[];
} cuda_batch;

/*
 * Applies device d's pending key changes (its lock held). A failure takes the device's keys out of
 * service: its table is zeroed and freed, and nothing more is pending for it.
 */
static int flush_keys(cuda_backend *cb, unsigned d, char *err, size_t errlen)
{
    if (!cb->keytab_ok || !bsgpu_keytab_serves(&cb->keytab, d))
        return 0;
    uint32_t n;
    while ((n = bsgpu_keytab_take(&cb->keytab, d, cb->ops[d], cb->opkeys[d], CUDA_KEYOPS)) > 0) {
        const int rc = bsgpu_keys_update(cb->dev[d], cb->ops[d], cb->opkeys[d], n);
        bs_wipe(cb->opkeys[d], n * sizeof(bsgpu_key));
        if (rc != 0) {
            snprintf(err, errlen, "device keys: %s", bsgpu_last_error(cb->dev[d]));
            return rc;
        }
    }
    return 0;
}

/*
 * Device d's table is zeroed and freed (its lock held, or at exit). A zeroing that CUDA refused
 * (after a sticky error) leaves the keys in device memory until the context is torn down: logged
 * (event=cuda_keys wiped=0) and counted (STATUS device_key_wipe_failures).
 */
static void release_keys(cuda_backend *cb, unsigned d)
{
    if (bsgpu_keys_release(cb->dev[d]) == 0)
        return;
    atomic_fetch_add(&cb->key_wipe_failures, 1);
    BSD_ERR("cuda_keys", "device=%u wiped=0 reason=\"%s\"", d, bsgpu_last_error(cb->dev[d]));
}

/* Device d's keys leave service (it failed): zeroed and freed on the device (its lock held). */
static void retire_keys(cuda_backend *cb, unsigned d)
{
    if (!cb->keytab_ok)
        return;
    bsgpu_keytab_drop_device(&cb->keytab, d);
    release_keys(cb, d);
}

/* Daemon-private memory for the recheck, a piece at a time. */
#define CUDA_RECHECK_BYTES ((size_t)1 << 20)

/*
 * The shared window of one piece (job, the device job gj, its digest sums want) did not match the
 * device's sums. The client can write its window at any time, so that is no evidence against the
 * device: the piece is computed again on the device (device d, its lock held), with the job's own
 * key (not its resident slot), into memory only the daemon can write, a piece at a time, with the
 * self-check. Returns 1 when the device agrees with itself there (each private copy digests to the
 * device's sums and those add up to want: the window was changed by someone else), 0 when it does
 * not (the device's fault, as before), -1 when it could not be told (out of memory: not blamed).
 */
static int device_agrees(cuda_part *p, bsgpu_cipher c, const bsd_job *job, const bsgpu_job *gj,
                         uint64_t word0, uint64_t want)
{
    cuda_backend *cb = p->cb;
    bsgpu_ctx *ctx = cb->dev[p->dev];
    const size_t bl = job->cipher->block_len;
    const uint64_t per = CUDA_RECHECK_BYTES / bl;
    uint8_t *buf = (uint8_t *)malloc(CUDA_RECHECK_BYTES);
    bsgpu_key key;
    if (buf == NULL)
        return -1;
    if (bsgpu_key_from_schedule(&key, job->cipher, job->ks) != 0) {
        free(buf);
        return -1;
    }
    int agrees = 1;
    uint64_t total = 0;
    for (uint64_t off = 0; agrees == 1 && off < gj->nblocks; off += per) {
        bsgpu_job sub;
        memset(&sub, 0, sizeof sub);
        memcpy(sub.counter, gj->counter, bl);
        bs_ctr_add(sub.counter, bl, off);
        sub.nblocks = gj->nblocks - off < per ? gj->nblocks - off : per;
        sub.key_index = 0;
        sub.dst = buf;
        sub.region = buf;
        const uint64_t w0 = word0 + off * bl / 8;
        uint64_t dev_sum = 0;
        const int rc = bsgpu_keystream_checked(ctx, c, &key, 1, &sub, 1, &job->seed, &w0, &dev_sum);
        if (rc != 0) {
            snprintf(p->err, sizeof p->err, "self-check recheck: %s", bsgpu_last_error(ctx));
            p->cuda_failed = rc == BSGPU_E_CUDA;
            agrees = 0;
            break;
        }
        const uint64_t host =
            bs_digest_sum(job->seed, w0, buf, (size_t)(sub.nblocks * bl / 8), job->poison, NULL);
        if (host != dev_sum)
            agrees = 0;
        total += dev_sum;
    }
    if (agrees == 1 && total != want)
        agrees = 0;
    bs_wipe(&key, sizeof key);
    bs_wipe(buf, CUDA_RECHECK_BYTES);
    free(buf);
    return agrees;
}

/*
 * The part's jobs as bsgpu jobs (counters advanced to the range, keys deduplicated), computed
 * with the device's self-check: the device computes each launch twice and returns the digest
 * sums of its second result; they must equal the sums of what reached the shared memory,
 * computed here in one pass per window (the window digests of the replies and, for a client
 * that asked for pieces, its piece sums, so the check costs nothing extra), words still zero
 * counted as unwritten. A difference fails the part (it is redone on the CPU). It is the device's
 * fault (it leaves service) only when the device disagrees again in daemon-private memory
 * (device_agrees); otherwise the window was written by someone else and the device stays.
 */
static int run_on_gpu(cuda_part *p, bsgpu_cipher c)
{
    bsd_batch *b = p->batch;
    cuda_backend *cb = p->cb;
    const size_t n = b->njobs;
    bsgpu_job *jobs = (bsgpu_job *)calloc(n, sizeof *jobs);
    bsgpu_key *keys = (bsgpu_key *)calloc(n, sizeof *keys);
    const bs_key_schedule **from = (const bs_key_schedule **)calloc(n, sizeof *from);
    uint64_t *seeds = (uint64_t *)calloc(3 * n, sizeof *seeds);
    bsd_job **owner = (bsd_job **)calloc(n, sizeof *owner);
    uint64_t *lo_of = (uint64_t *)calloc(2 * n, sizeof *lo_of);
    int rc = -1;
    size_t nj = 0;
    uint32_t nk = 0;
    if (jobs == NULL || keys == NULL || from == NULL || seeds == NULL || owner == NULL ||
        lo_of == NULL) {
        snprintf(p->err, sizeof p->err, "out of memory");
        goto out;
    }
    uint64_t *word0s = seeds + n, *sums = seeds + 2 * n, *hi_of = lo_of + n;
    uint64_t base = 0;
    /* From here to the call, the device is ours: its pending key changes are applied first, and
     * whether it serves resident keys cannot change until the call is done. */
    pthread_mutex_lock(&cb->lock[p->dev]);
    if (flush_keys(cb, p->dev, p->err, sizeof p->err) != 0) {
        p->cuda_failed = 1;
        retire_keys(cb, p->dev);
        pthread_mutex_unlock(&cb->lock[p->dev]);
        goto out;
    }
    const int resident = cb->keytab_ok && bsgpu_keytab_serves(&cb->keytab, p->dev);
    for (size_t j = 0; j < b->njobs && base < p->last; j++) {
        bsd_job *job = b->jobs[j];
        const uint64_t js = base, je = base + job->nblocks;
        base = je;
        const uint64_t lo = js > p->first ? js : p->first, hi = je < p->last ? je : p->last;
        if (lo >= hi)
            continue;
        uint32_t k = 0;
        if (resident && job->dev_key != 0) {
            k = (job->dev_key - 1) | BSGPU_KEY_RESIDENT; /* on the device since OPEN */
        } else {
            while (k < nk && from[k] != job->ks)
                k++;
            if (k == nk) {
                if (bsgpu_key_from_schedule(&keys[nk], job->cipher, job->ks) != 0) {
                    snprintf(p->err, sizeof p->err, "no device key for %s/%s", job->cipher->name,
                             job->cipher->impl);
                    pthread_mutex_unlock(&cb->lock[p->dev]);
                    goto out;
                }
                from[nk++] = job->ks;
            }
        }
        const size_t bl = job->cipher->block_len;
        memcpy(jobs[nj].counter, job->counter, bl);
        bs_ctr_add(jobs[nj].counter, bl, lo - js);
        jobs[nj].nblocks = hi - lo;
        jobs[nj].key_index = k;
        jobs[nj].dst = job->dst + (lo - js) * bl;
        jobs[nj].region = job->region;
        seeds[nj] = job->seed;
        word0s[nj] = (lo - js) * bl / 8;
        owner[nj] = job;
        lo_of[nj] = lo - js;
        hi_of[nj] = hi - js;
        nj++;
    }
    rc = bsgpu_keystream_checked(cb->dev[p->dev], c, keys, nk, jobs, nj, seeds, word0s, sums);
    if (rc != 0) {
        snprintf(p->err, sizeof p->err, "%s", bsgpu_last_error(cb->dev[p->dev]));
        /* A refused destination (BSGPU_E_DEST) is this part's fault, not the device's: the
         * part goes to the CPU and the device stays in service (bsgpu checked that it still
         * works). Any other CUDA failure takes it out. */
        p->cuda_failed = rc == BSGPU_E_CUDA;
        p->dest_refused = rc == BSGPU_E_DEST;
        if (p->cuda_failed)
            retire_keys(cb, p->dev);
    }
    pthread_mutex_unlock(&cb->lock[p->dev]);
    if (rc != 0)
        goto out;
    /* Test hook (BSD_TEST_FAULT=window): someone else (the client) wrote into the window after
     * the device's copy. */
    if (bsd_fault_mode() == BSD_FAULT_WINDOW && nj > 0)
        jobs[0].dst[jobs[0].nblocks * b->cipher->block_len / 2] ^= 0x01;
    uint64_t *host = (uint64_t *)calloc(2 * nj + 1, sizeof *host);
    if (host == NULL) {
        snprintf(p->err, sizeof p->err, "out of memory");
        rc = -1;
        goto out;
    }
    for (size_t i = 0; i < nj; i++)
        if (!owner[i]->unchecked)
            host[2 * i] = bsd_job_device_sum(owner[i], lo_of[i], hi_of[i], &host[2 * i + 1]);
    for (size_t i = 0; i < nj && !p->check_failed; i++) {
        if (owner[i]->unchecked || host[2 * i] == sums[i])
            continue;
        rc = -1;
        pthread_mutex_lock(&cb->lock[p->dev]);
        const int agrees = device_agrees(p, c, owner[i], &jobs[i], word0s[i], sums[i]);
        if (agrees == 0) {
            if (!p->cuda_failed)
                snprintf(p->err, sizeof p->err,
                         "self-check: the device's result for %llu blocks differs from its "
                         "redundant computation",
                         (unsigned long long)jobs[i].nblocks);
            p->check_failed = 1;
            retire_keys(cb, p->dev);
        } else {
            p->window_changed = 1;
            snprintf(p->err, sizeof p->err,
                     "self-check: the shared window of %llu blocks changed after the device's copy "
                     "(%s); the device stays in service",
                     (unsigned long long)jobs[i].nblocks,
                     agrees == 1 ? "its private recheck agrees" : "no memory for a recheck");
        }
        pthread_mutex_unlock(&cb->lock[p->dev]);
    }
    if (p->check_failed)
        p->window_changed = 0;
    /* The piece sums are in already; a part redone on the CPU leaves the reply to sum them from
     * the window. */
    for (size_t i = 0; i < nj; i++)
        if (!owner[i]->unchecked) {
            if (rc == 0)
                bsd_job_add(owner[i], host[2 * i], host[2 * i + 1]);
            else
                bsd_job_pieces_stale(owner[i]);
        }
    free(host);
out:
    if (keys != NULL)
        bs_wipe(keys, n * sizeof *keys);
    free(keys);
    free(jobs);
    free(from);
    free(seeds);
    free(owner);
    free(lo_of);
    return rc;
}

/* Calls fn(job, lo, hi) for each job's share [lo, hi) of the part's block range. */
static void each_piece(cuda_part *p, void (*fn)(bsd_job *job, uint64_t lo, uint64_t hi))
{
    bsd_batch *b = p->batch;
    uint64_t base = 0;
    for (size_t j = 0; j < b->njobs && base < p->last; j++) {
        bsd_job *job = b->jobs[j];
        const uint64_t js = base, je = base + job->nblocks;
        base = je;
        const uint64_t lo = js > p->first ? js : p->first, hi = je < p->last ? je : p->last;
        if (lo < hi)
            fn(job, lo - js, hi - js);
    }
}

static void cpu_piece(bsd_job *job, uint64_t lo, uint64_t hi)
{
    const size_t bl = job->cipher->block_len;
    uint8_t ctr[BS_BLOCK_MAX];
    memcpy(ctr, job->counter, bl);
    bs_ctr_add(ctr, bl, lo);
    bs_ctr_keystream(job->cipher, job->ks, ctr, hi - lo, job->dst + lo * bl);
}

static void part_work(uv_work_t *w)
{
    cuda_part *p = (cuda_part *)w->data;
    bsd_batch *b = p->batch;
    const int c = bsgpu_cipher_of(b->cipher);
    p->status = 0;
    /*
     * No fill pass: the window is zero as the client's move left it (PROTOCOL.md "Integrity"),
     * and a block that the device's copy never reached is still zero: run_on_gpu's digest then
     * differs from the device's own sum, and the part fails its self-check and is redone below
     * (were the device's sum wrong alike, the zero words it counts refuse the job). A block that
     * held anything else fails the same comparison. Either way it is never answered with what
     * the memory held before.
     */
    if (!p->cpu_only && c >= 0 && run_on_gpu(p, (bsgpu_cipher)c) == 0)
        return; /* checked and sealed */
    /*
     * Whatever the GPU wrote is overwritten: the part is redone in full on the CPU, on a window
     * poisoned first (it may hold the device's output now, no longer the zero), so that a block
     * the redo misses is not answered with the device's output.
     */
    p->status = 1;
    each_piece(p, bsd_job_poison);
    each_piece(p, cpu_piece);
    each_piece(p, bsd_job_seal);
}

static void part_after(uv_work_t *w, int status)
{
    cuda_part *p = (cuda_part *)w->data;
    bsd_batch *b = p->batch;
    cuda_backend *cb = p->cb;
    cuda_batch *cbt = (cuda_batch *)b->backend_data;
    (void)status; /* uv_cancel is never called */
    if (p->status != 0) {
        cb->fallbacks++;
        if (p->window_changed) {
            /* Not the device's fault: the part is redone, the device stays, no CUDA error. */
            cb->window_changes++;
            BSD_WARN("window_changed",
                     "device=%u cipher=%s blocks=%llu fallback=cpu device_in_service=1 "
                     "reason=\"%s\"",
                     p->dev, b->cipher->name, (unsigned long long)(p->last - p->first), p->err);
        } else if (p->err[0] != '\0') {
            cb->errors++;
            snprintf(cb->last_error, sizeof cb->last_error, "%s", p->err);
            /* A device that failed once, or gave a wrong result, is not trusted again. */
            if (p->cuda_failed || p->check_failed)
                atomic_store(&cb->failed[p->dev], 1);
            if (p->check_failed)
                cb->check_failures++;
            if (p->dest_refused)
                cb->copy_refusals++;
            BSD_ERR("cuda_error",
                    "device=%u cipher=%s blocks=%llu fallback=cpu device_in_service=%d "
                    "reason=\"%s\"",
                    p->dev, b->cipher->name, (unsigned long long)(p->last - p->first),
                    !atomic_load(&cb->failed[p->dev]), p->err);
        }
    }
    cb->blocks += p->last - p->first;
    if (--cbt->pending == 0) {
        cb->batches++;
        b->backend_data = NULL;
        free(cbt);
        b->done(b, 0);
    }
}

static int cuda_submit(bsd_backend *be, bsd_batch *b)
{
    cuda_backend *cb = (cuda_backend *)be->priv;
    unsigned healthy[CUDA_MAX_DEV], nh = 0;
    for (unsigned d = 0; d < cb->ndev; d++)
        if (!atomic_load(&cb->failed[d]))
            healthy[nh++] = d;
    uint64_t n = b->nblocks / CUDA_MIN_PART;
    unsigned nparts = nh == 0 || n < 1 ? 1 : (n < nh ? (unsigned)n : nh);
    cuda_batch *cbt = (cuda_batch *)calloc(1, sizeof *cbt + nparts * sizeof(cuda_part));
    if (cbt == NULL)
        return -ENOMEM;
    cbt->pending = nparts;
    b->backend_data = cbt;
    const uint64_t per = (b->nblocks + nparts - 1) / nparts;
    for (unsigned i = 0; i < nparts; i++) {
        cuda_part *p = &cbt->parts[i];
        p->batch = b;
        p->cb = cb;
        p->first = (uint64_t)i * per;
        p->last = p->first + per < b->nblocks ? p->first + per : b->nblocks;
        p->work.data = p;
        /* No healthy device: the part goes straight to the CPU path (a fallback, no error). */
        p->cpu_only = nh == 0;
        p->dev = nh == 0 ? 0 : healthy[(cb->next + i) % nh];
    }
    cb->next++;
    for (unsigned i = 0; i < nparts; i++) {
        if (uv_queue_work(be->loop, &cbt->parts[i].work, part_work, part_after) != 0)
            abort(); /* only for a NULL callback: a bug */
    }
    return 0;
}

static void cuda_describe(bsd_backend *be, char *out, size_t len)
{
    cuda_backend *cb = (cuda_backend *)be->priv;
    char dev[512] = "";
    unsigned failed = 0;
    for (unsigned d = 0; d < cb->ndev; d++)
        failed += (unsigned)atomic_load(&cb->failed[d]);
    if (cb->ndev > 0)
        bsgpu_describe(cb->dev[0], dev, sizeof dev);
    uint32_t used = 0;
    uint64_t loads = 0, wipes = 0, full = 0;
    if (cb->keytab_ok) {
        used = bsgpu_keytab_used(&cb->keytab);
        pthread_mutex_lock(&cb->keytab.lock);
        loads = cb->keytab.loads;
        wipes = cb->keytab.wipes;
        full = cb->keytab.full;
        pthread_mutex_unlock(&cb->keytab.lock);
    }
    snprintf(out, len,
             "device=cuda gpus=%u gpus_failed=%u %s batches=%llu blocks=%llu cpu_fallbacks=%llu "
             "cuda_errors=%llu copy_refusals=%llu self_check_failures=%llu window_changes=%llu "
             "device_keys=%u/%u device_key_loads=%llu "
             "device_key_wipes=%llu device_key_wipe_failures=%llu device_keys_full=%llu "
             "last_cuda_error=\"%s\"",
             cb->ndev, failed, dev, (unsigned long long)cb->batches, (unsigned long long)cb->blocks,
             (unsigned long long)cb->fallbacks, (unsigned long long)cb->errors,
             (unsigned long long)cb->copy_refusals, (unsigned long long)cb->check_failures,
             (unsigned long long)cb->window_changes, used, cb->keytab_ok ? CUDA_KEY_SLOTS : 0,
             (unsigned long long)loads, (unsigned long long)wipes,
             (unsigned long long)atomic_load(&cb->key_wipe_failures), (unsigned long long)full,
             cb->last_error);
}

/* The sync of OPEN's and CLOSE's key changes, on the pool: every device in service catches up. */
static void sync_work(uv_work_t *w)
{
    cuda_backend *cb = (cuda_backend *)w->data;
    cb->sync_err[0] = '\0';
    for (unsigned d = 0; d < cb->ndev; d++) {
        if (atomic_load(&cb->failed[d]) || bsgpu_keytab_pending(&cb->keytab, d) == 0)
            continue;
        pthread_mutex_lock(&cb->lock[d]);
        char err[256];
        if (flush_keys(cb, d, err, sizeof err) != 0) {
            retire_keys(cb, d);
            atomic_store(&cb->failed[d], 1);
            if (cb->sync_err[0] == '\0') {
                snprintf(cb->sync_err, sizeof cb->sync_err, "%s", err);
                cb->sync_failed_dev = d;
            }
        }
        pthread_mutex_unlock(&cb->lock[d]);
    }
}

static void schedule_sync(cuda_backend *cb, uv_loop_t *loop);

static void sync_after(uv_work_t *w, int status)
{
    cuda_backend *cb = (cuda_backend *)w->data;
    (void)status; /* uv_cancel is never called */
    cb->sync_busy = 0;
    if (cb->sync_err[0] != '\0') {
        cb->errors++;
        snprintf(cb->last_error, sizeof cb->last_error, "%s", cb->sync_err);
        BSD_ERR("cuda_error", "device=%u keys=1 fallback=cpu reason=\"%s\"", cb->sync_failed_dev,
                cb->sync_err);
    }
    if (cb->sync_again) {
        cb->sync_again = 0;
        schedule_sync(cb, w->loop);
    }
}

/* Loop thread: one sync at a time; a change made while one runs gets another after it. */
static void schedule_sync(cuda_backend *cb, uv_loop_t *loop)
{
    if (cb->sync_busy) {
        cb->sync_again = 1;
        return;
    }
    cb->sync_busy = 1;
    cb->sync.data = cb;
    if (uv_queue_work(loop, &cb->sync, sync_work, sync_after) != 0)
        abort(); /* only for a NULL callback: a bug */
}

static uint32_t cuda_open_key(bsd_backend *be, const bs_block_cipher *cipher,
                              const bs_key_schedule *ks)
{
    cuda_backend *cb = (cuda_backend *)be->priv;
    const int c = bsgpu_cipher_of(cipher);
    bsgpu_key k;
    uint32_t slot;
    if (!cb->keytab_ok || c < 0 || bsgpu_key_from_schedule(&k, cipher, ks) != 0)
        return 0;
    const int rc = bsgpu_keytab_open(&cb->keytab, (bsgpu_cipher)c, &k, &slot);
    bs_wipe(&k, sizeof k);
    if (rc == BSGPU_E_NODEV)
        return 0; /* no device in service (its failure is logged): keys go with each call */
    if (rc != 0) {
        /* Full (STATUS device_keys_full): this session's key goes with each call. Said in the
         * log at the 1st, 2nd, 4th, ... refusal. */
        cb->keys_refused++;
        if ((cb->keys_refused & (cb->keys_refused - 1)) == 0)
            BSD_WARN("cuda_keys",
                     "reason=\"device key table full\" slots=%u refused=%llu keys=per_call",
                     CUDA_KEY_SLOTS, (unsigned long long)cb->keys_refused);
        return 0;
    }
    schedule_sync(cb, be->loop);
    return slot + 1;
}

static void cuda_close_key(bsd_backend *be, uint32_t handle)
{
    cuda_backend *cb = (cuda_backend *)be->priv;
    if (!cb->keytab_ok || handle == 0)
        return;
    bsgpu_keytab_close(&cb->keytab, handle - 1);
    schedule_sync(cb, be->loop);
}

static void cuda_destroy(bsd_backend *be)
{
    cuda_backend *cb = (cuda_backend *)be->priv;
    for (unsigned d = 0; d < cb->ndev; d++) {
        release_keys(cb, d); /* bsgpu_close would too, without saying whether it could */
        bsgpu_close(cb->dev[d]);
        pthread_mutex_destroy(&cb->lock[d]);
        if (cb->opkeys[d] != NULL)
            bs_wipe(cb->opkeys[d], CUDA_KEYOPS * sizeof(bsgpu_key));
        free(cb->opkeys[d]);
        free(cb->ops[d]);
    }
    if (cb->keytab_ok)
        bsgpu_keytab_destroy(&cb->keytab);
    free(cb);
    free(be);
}

static int cuda_register(bsd_backend *be, void *p, size_t len)
{
    cuda_backend *cb = (cuda_backend *)be->priv;
    /* Portable registration: one call serves every device. */
    return cb->ndev > 0 && bsgpu_register_host(cb->dev[0], p, len) == 0 ? 0 : -1;
}

static int cuda_unregister(bsd_backend *be, void *p)
{
    cuda_backend *cb = (cuda_backend *)be->priv;
    return cb->ndev > 0 && bsgpu_unregister_host(cb->dev[0], p) == 0 ? 0 : -1;
}

static const bsd_backend_ops cuda_ops = {
    "cuda",        cuda_submit,     cuda_describe, cuda_destroy,
    cuda_register, cuda_unregister, cuda_open_key, cuda_close_key,
};

bsd_backend *bsd_backend_cuda_create(uv_loop_t *loop, unsigned threads)
{
    int n = bsgpu_device_count();
    if (n <= 0)
        return NULL;
    if (n > CUDA_MAX_DEV)
        n = CUDA_MAX_DEV;
    bsd_backend *be = (bsd_backend *)calloc(1, sizeof *be);
    cuda_backend *cb = (cuda_backend *)calloc(1, sizeof *cb);
    if (be == NULL || cb == NULL) {
        free(be);
        free(cb);
        return NULL;
    }
    for (int d = 0; d < n; d++) {
        if (bsgpu_open(&cb->dev[cb->ndev], d, CUDA_STREAMS, CUDA_CHUNK) != 0) {
            BSD_WARN("cuda_open", "device=%d reason=\"%s\"", d, bsgpu_last_error(NULL));
            continue;
        }
        pthread_mutex_init(&cb->lock[cb->ndev], NULL);
        atomic_init(&cb->failed[cb->ndev], 0);
        cb->ndev++;
    }
    if (cb->ndev == 0) {
        free(cb);
        free(be);
        return NULL;
    }
    /* The key tables; a device without one (or without memory for its staging) computes with
     * the keys of each call, as every device did before. */
    atomic_init(&cb->key_wipe_failures, 0);
    cb->keytab_ok = bsgpu_keytab_init(&cb->keytab, CUDA_KEY_SLOTS, cb->ndev) == 0;
    if (!cb->keytab_ok)
        BSD_WARN("cuda_keys", "reason=\"no memory for the key table\" keys=per_call");
    for (unsigned d = 0; d < cb->ndev && cb->keytab_ok; d++) {
        cb->ops[d] = (bsgpu_keyop *)calloc(CUDA_KEYOPS, sizeof(bsgpu_keyop));
        cb->opkeys[d] = (bsgpu_key *)calloc(CUDA_KEYOPS, sizeof(bsgpu_key));
        if (cb->ops[d] == NULL || cb->opkeys[d] == NULL ||
            bsgpu_keys_reserve(cb->dev[d], CUDA_KEY_SLOTS) != 0) {
            BSD_WARN("cuda_keys", "device=%u reason=\"%s\" keys=per_call", d,
                     cb->ops[d] == NULL || cb->opkeys[d] == NULL ? "out of memory"
                                                                 : bsgpu_last_error(cb->dev[d]));
            bsgpu_keytab_drop_device(&cb->keytab, d);
        }
    }
    /* Each part holds a pool thread while its device works, plus the CPU fallback's needs. */
    char v[16];
    snprintf(v, sizeof v, "%u", (threads == 0 ? 4 : threads) + cb->ndev);
    setenv("UV_THREADPOOL_SIZE", v, 1);
    be->ops = &cuda_ops;
    be->loop = loop;
    be->priv = cb;
    return be;
}
