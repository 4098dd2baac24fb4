/*
 * A host stand-in for bsgpu.cu, for testing the daemon's CUDA backend without a GPU: "devices"
 * that run each launch with bsgpu_launch_host (the kernels' own per-thread code), and a switch
 * that makes the next calls fail after scribbling over the output, as a faulting device might.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsd_digest_mix.h"
#include "bsgpu.h"
#include "fake_bsgpu.h"

int bsgpu_fake_devices = 2;
int bsgpu_fake_fail;
int bsgpu_fake_silent;
unsigned bsgpu_fake_calls[8];

struct bsgpu_ctx {
    int device;
    char err[128];
};

static char open_err[128];

int bsgpu_device_count(void)
{
    return bsgpu_fake_devices;
}

int bsgpu_open(bsgpu_ctx **ctx, int device, unsigned nstreams, size_t chunk_bytes)
{
    (void)nstreams;
    (void)chunk_bytes;
    if (device >= bsgpu_fake_devices)
        return BSGPU_E_NODEV;
    *ctx = (bsgpu_ctx *)calloc(1, sizeof **ctx);
    if (*ctx == NULL)
        return BSGPU_E_ARG;
    (*ctx)->device = device;
    return 0;
}

void bsgpu_close(bsgpu_ctx *ctx)
{
    free(ctx);
}

void bsgpu_describe(const bsgpu_ctx *ctx, char *out, size_t len)
{
    snprintf(out, len, "device=%d name=\"fake\"", ctx->device);
}

const char *bsgpu_last_error(const bsgpu_ctx *ctx)
{
    return ctx != NULL ? ctx->err : open_err;
}

int bsgpu_register_host(bsgpu_ctx *ctx, void *p, size_t len)
{
    (void)ctx;
    (void)p;
    (void)len;
    return 0;
}

int bsgpu_unregister_host(bsgpu_ctx *ctx, void *p)
{
    (void)ctx;
    (void)p;
    return 0;
}

int bsgpu_keystream(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                    const bsgpu_job *jobs, size_t njobs)
{
    enum { CHUNK = 64 * 1024, MAXSEG = 64 };
    static __thread uint8_t dev[CHUNK];
    bsgpu_segment seg[MAXSEG];
    bsgpu_copy copy[MAXSEG];
    bsgpu_cursor cur = {0, 0};
    uint64_t ngroups;
    uint32_t n;
    bsgpu_fake_calls[ctx->device]++;
    if (bsgpu_fake_fail) {
        for (size_t j = 0; j < njobs; j++)
            memset(jobs[j].dst, 0xee, jobs[j].nblocks * bsgpu_block_len(c));
        snprintf(ctx->err, sizeof ctx->err, "fake device %d: injected failure", ctx->device);
        return BSGPU_E_CUDA;
    }
    (void)nkeys;
    while ((n = bsgpu_plan_launch(c, jobs, njobs, &cur, CHUNK, MAXSEG, seg, copy, &ngroups)) > 0) {
        if (bsgpu_launch_host(c, seg, n, keys, ngroups, dev) != 0)
            return BSGPU_E_ARG;
        for (uint32_t i = 0; i < n; i++)
            memcpy(copy[i].dst, dev + copy[i].src_offset, copy[i].len);
    }
    return 0;
}

/*
 * The self-check: the keystream as bsgpu_keystream, then every launch again into a second
 * buffer, digested per job. bsgpu_fake_silent flips one byte of the first job's output after
 * the copy and says nothing, as a faulting device or bus might.
 */
int bsgpu_keystream_checked(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys,
                            const bsgpu_job *jobs, size_t njobs, const uint64_t *seeds,
                            const uint64_t *word0s, uint64_t *sums)
{
    enum { CHUNK = 64 * 1024, MAXSEG = 64 };
    static __thread uint8_t dev2[CHUNK];
    int rc = bsgpu_keystream(ctx, c, keys, nkeys, jobs, njobs);
    if (rc != 0)
        return rc;
    const unsigned bl = bsgpu_block_len(c);
    bsgpu_segment seg[MAXSEG];
    bsgpu_copy copy[MAXSEG];
    bsgpu_cursor cur = {0, 0};
    uint64_t ngroups;
    uint32_t n;
    size_t job = 0;
    memset(sums, 0, njobs * sizeof *sums);
    while ((n = bsgpu_plan_launch(c, jobs, njobs, &cur, CHUNK, MAXSEG, seg, copy, &ngroups)) > 0) {
        if (bsgpu_launch_host(c, seg, n, keys, ngroups, dev2) != 0)
            return BSGPU_E_ARG;
        for (uint32_t i = 0; i < n; i++) {
            while (job < njobs && !(copy[i].dst >= jobs[job].dst &&
                                    copy[i].dst < jobs[job].dst + jobs[job].nblocks * bl))
                job++;
            if (job == njobs)
                return BSGPU_E_ARG;
            uint64_t w0 = word0s[job] + (uint64_t)(copy[i].dst - jobs[job].dst) / 8;
            for (uint64_t j = 0; j < copy[i].len / 8; j++) {
                uint64_t w;
                memcpy(&w, dev2 + copy[i].src_offset + 8 * j, 8);
                sums[job] += bsd_digest_word(seeds[job], w0 + j, w);
            }
        }
    }
    if (bsgpu_fake_silent && njobs > 0)
        jobs[0].dst[jobs[0].nblocks * bl / 2] ^= 0x10;
    return 0;
}

int bsgpu_time_kernel(bsgpu_ctx *ctx, bsgpu_cipher c, const bsgpu_key *key, uint64_t bytes,
                      unsigned reps, float *ms)
{
    (void)ctx, (void)c, (void)key, (void)bytes, (void)reps, (void)ms;
    return BSGPU_E_ARG;
}

int bsgpu_time_copies(bsgpu_ctx *ctx, size_t bytes, unsigned reps, float *h2d_ms, float *d2h_ms)
{
    (void)ctx, (void)bytes, (void)reps, (void)h2d_ms, (void)d2h_ms;
    return BSGPU_E_ARG;
}
