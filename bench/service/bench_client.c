/*
 * bench_client: the client's cost of one daemon path alone, in steady state, for profiles and
 * A/B runs (perf, callgrind): the stream read in calls of C bytes, or the provider's CTR path fed
 * like openssl enc (C-byte XORs into another buffer or in place). Buffers are reused and touched
 * first. Prints wall MB/s and this process's CPU time per byte. A benchmark: it asserts nothing.
 * Usage: bench_client SOCKET [stream|ctr|ctr-inplace] [cipher=PRESENT-80] [MiB=256] [C=4096]
 *        [threads=1]
 * With threads > 1, each thread runs its own stream (its own connection) of MiB; the line gives
 * their aggregate MB/s and the process's CPU time per byte over all of them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bitslice.h"
#include "bsd_source.h"
#include "bsd_stream.h"
#include "modes/ctr.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct run {
    const char *sock, *mode;
    const bs_block_cipher *c;
    size_t total, call;
    int r;
    double w0, c0; /* the clocks when this thread started its timed part */
} run;

/*
 * The streams are opened before the clock starts: the rows time the steady state. Each thread
 * reads the clocks as it leaves the barrier (the main thread may run only after they finished).
 */
static pthread_barrier_t started;

static void start_clock(run *a)
{
    pthread_barrier_wait(&started);
    a->w0 = clock_s(CLOCK_MONOTONIC);
    a->c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static void *one_run(void *arg)
{
    run *a = (run *)arg;
    const bs_block_cipher *c = a->c;
    const size_t call = a->call, total = a->total;
    uint8_t key[64] = {1, 2, 3}, ctr[32] = {0};
    uint8_t *in = (uint8_t *)malloc(call), *out = (uint8_t *)malloc(call);
    bs_key_schedule *ks = (bs_key_schedule *)aligned_alloc(64, sizeof *ks);
    int r = in == NULL || out == NULL || ks == NULL;
    if (r != 0)
        start_clock(a);
    if (r == 0) {
        memset(in, 0x5a, call);
        memset(out, 0, call);
        c->set_key(ks, key);
    }
    if (r == 0 && strcmp(a->mode, "stream") == 0) {
        bsd_stream_opts so = {a->sock, 1000, 60000, 0, 0, BSD_OFFLOAD_ALWAYS, NULL};
        bsd_stream *s = NULL;
        r = bsd_stream_open(&so, c, key, c->key_len, ctr, &s);
        start_clock(a);
        for (size_t off = 0; r == 0 && off < total; off += call)
            r = bsd_stream_xor(s, ks, out, in, call);
        bsd_stream_close(s);
    } else if (r == 0) {
        const int inplace = strcmp(a->mode, "ctr-inplace") == 0;
        bsd_source_opts co = {a->sock, 0, 1000, 60000, 0, 0, BSD_OFFLOAD_ALWAYS};
        bs_keystream_source *src = bsd_source_new(&co);
        bs_ctr_ctx *dc = (bs_ctr_ctx *)aligned_alloc(64, (sizeof *dc + 63) / 64 * 64);
        r = src == NULL || dc == NULL;
        if (r == 0) {
            memset(dc, 0, sizeof *dc);
            bs_ctr_set_source(dc, src);
            r = bs_ctr_set_key(dc, c, key, c->key_len);
        }
        if (r == 0)
            r = bs_ctr_set_iv(dc, ctr, bs_ctr_iv_len(c));
        start_clock(a);
        for (size_t off = 0; r == 0 && off < total; off += call)
            r = bs_ctr_crypt(dc, out, inplace ? out : in, call);
        uint64_t db = 0, lb = 0;
        if (src != NULL)
            bsd_source_counts(src, &db, &lb);
        if (lb != 0)
            printf("(%llu bytes in-process: the daemon did not serve it all)\n",
                   (unsigned long long)lb);
        if (dc != NULL) {
            bs_ctr_clear(dc);
            free(dc);
        }
        if (src != NULL)
            src->ops->free(src);
    }
    free(in);
    free(out);
    free(ks);
    a->r = r;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(
            stderr,
            "usage: bench_client SOCKET [stream|ctr|ctr-inplace] [cipher] [MiB] [C] [threads]\n");
        return 2;
    }
    run a = {argv[1], argc > 2 ? argv[2] : "stream", NULL, 0, 0, 0, 0, 0};
    a.c = bs_block_cipher_by_any_name(argc > 3 ? argv[3] : "PRESENT-80");
    a.total = (size_t)(argc > 4 ? atol(argv[4]) : 256) << 20;
    a.call = argc > 5 ? (size_t)atol(argv[5]) : 4096;
    long nt = argc > 6 ? atol(argv[6]) : 1;
    if (a.c == NULL || a.total == 0 || a.call == 0 || a.call > (16u << 20) || nt < 1 || nt > 64) {
        fprintf(stderr, "bench_client: bad cipher, size or thread count\n");
        return 2;
    }
    a.call = a.call / a.c->block_len * a.c->block_len;
    run runs[64];
    pthread_t th[64];
    pthread_barrier_init(&started, NULL, (unsigned)nt + 1);
    for (long i = 0; i < nt; i++) {
        runs[i] = a;
        if (pthread_create(&th[i], NULL, one_run, &runs[i]) != 0)
            return 1;
    }
    pthread_barrier_wait(&started);
    int bad = 0;
    for (long i = 0; i < nt; i++) {
        pthread_join(th[i], NULL);
        bad |= runs[i].r != 0;
    }
    double w0 = runs[0].w0, c0 = runs[0].c0;
    for (long i = 1; i < nt; i++) {
        w0 = runs[i].w0 < w0 ? runs[i].w0 : w0;
        c0 = runs[i].c0 < c0 ? runs[i].c0 : c0;
    }
    double wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (bad) {
        fprintf(stderr, "bench_client: failed\n");
        return 1;
    }
    const double all = (double)a.total * (double)nt;
    printf("%s %s %ld x %zu MiB in %zu-byte calls: %.1f MB/s wall, client cpu %.3f ns/B\n", a.mode,
           a.c->name, nt, a.total >> 20, a.call, all / wall / 1e6, cpu / all * 1e9);
    return 0;
}
