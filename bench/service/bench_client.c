/*
 * bench_client: the client's cost of one daemon path alone, in steady state, for profiles and
 * A/B runs (perf, callgrind): the stream read in calls of C bytes, or the provider's CTR path fed
 * like openssl enc (C-byte XORs into another buffer or in place). Buffers are reused and touched
 * first. Prints wall MB/s and this process's CPU time per byte. A benchmark: it asserts nothing.
 * Usage: bench_client SOCKET [stream|ctr|ctr-inplace] [cipher=PRESENT-80] [MiB=256] [C=4096]
 */
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_client SOCKET [stream|ctr|ctr-inplace] [cipher] [MiB] [C]\n");
        return 2;
    }
    const char *sock = argv[1], *mode = argc > 2 ? argv[2] : "stream";
    const bs_block_cipher *c = bs_block_cipher_by_any_name(argc > 3 ? argv[3] : "PRESENT-80");
    size_t total = (size_t)(argc > 4 ? atol(argv[4]) : 256) << 20;
    size_t call = argc > 5 ? (size_t)atol(argv[5]) : 4096;
    if (c == NULL || total == 0 || call == 0 || call > (16u << 20)) {
        fprintf(stderr, "bench_client: bad cipher or size\n");
        return 2;
    }
    call = call / c->block_len * c->block_len;
    uint8_t key[64] = {1, 2, 3}, ctr[32] = {0};
    uint8_t *in = (uint8_t *)malloc(call), *out = (uint8_t *)malloc(call);
    static bs_key_schedule ks;
    if (in == NULL || out == NULL)
        return 1;
    memset(in, 0x5a, call);
    memset(out, 0, call);
    c->set_key(&ks, key);
    int r = 0;
    double w0, c0;
    if (strcmp(mode, "stream") == 0) {
        bsd_stream_opts so = {sock, 1000, 60000, 0, 0};
        bsd_stream *s = NULL;
        r = bsd_stream_open(&so, c, key, c->key_len, ctr, &s);
        w0 = clock_s(CLOCK_MONOTONIC);
        c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        for (size_t off = 0; r == 0 && off < total; off += call)
            r = bsd_stream_xor(s, &ks, out, in, call);
        bsd_stream_close(s);
    } else {
        const int inplace = strcmp(mode, "ctr-inplace") == 0;
        bsd_source_opts co = {sock, 0, 1000, 60000, 0, 0};
        bs_keystream_source *src = bsd_source_new(&co);
        static bs_ctr_ctx dc;
        bs_ctr_set_source(&dc, src);
        r = src == NULL ? 1 : bs_ctr_set_key(&dc, c, key, c->key_len);
        if (r == 0)
            r = bs_ctr_set_iv(&dc, ctr, bs_ctr_iv_len(c));
        w0 = clock_s(CLOCK_MONOTONIC);
        c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        for (size_t off = 0; r == 0 && off < total; off += call)
            r = bs_ctr_crypt(&dc, out, inplace ? out : in, call);
        uint64_t db = 0, lb = 0;
        if (src != NULL)
            bsd_source_counts(src, &db, &lb);
        if (lb != 0)
            printf("(%llu bytes in-process: the daemon did not serve it all)\n",
                   (unsigned long long)lb);
        bs_ctr_clear(&dc);
        if (src != NULL)
            src->ops->free(src);
    }
    double wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (r != 0) {
        fprintf(stderr, "bench_client: failed (%d)\n", r);
        return 1;
    }
    printf("%s %s %zu MiB in %zu-byte calls: %.1f MB/s wall, client cpu %.3f ns/B\n", mode, c->name,
           total >> 20, call, (double)total / wall / 1e6, cpu / (double)total * 1e9);
    return 0;
}
