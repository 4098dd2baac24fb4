/*
 * bench_batch: N clients (threads) each send R KEYSTREAM requests of S bytes to bitsliced, one
 * at a time, and the daemon's STATUS afterwards says how the batcher grouped them. A benchmark:
 * it prints; it asserts nothing. Usage: bench_batch SOCKET [clients=64] [requests=16]
 * [bytes=1048576] [cipher=PRESENT-80]
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bsd_client.h"

static const char *sock, *cipher;
static int nreq;
static size_t bytes;
static pthread_barrier_t start_line;

static void *client(void *arg)
{
    long *err = (long *)arg;
    bsd_client_opts o = {sock, 5000, 120000};
    bsd_client *c = NULL;
    uint8_t key[32] = {1}, ctr[32] = {0};
    uint32_t sid;
    unsigned bl = 0;
    int r = bsd_client_connect(&o, &c);
    if (r == 0)
        r = bsd_client_map_shm(c, bytes);
    if (r == 0)
        r = bsd_client_open_session(c, cipher, key,
                                    strcmp(cipher, "PRESENT-80") == 0     ? 10
                                    : strcmp(cipher, "RIJNDAEL-256") == 0 ? 32
                                                                          : 16,
                                    &sid, &bl);
    pthread_barrier_wait(&start_line);
    for (int i = 0; r == 0 && i < nreq; i++) {
        ctr[0] = (uint8_t)i;
        r = bsd_client_keystream(c, sid, ctr, bl, bytes / bl, 0);
    }
    *err = r;
    bsd_client_close(c);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_batch SOCKET [clients] [requests] [bytes] [cipher]\n");
        return 2;
    }
    sock = argv[1];
    int n = argc > 2 ? atoi(argv[2]) : 64;
    nreq = argc > 3 ? atoi(argv[3]) : 16;
    bytes = argc > 4 ? (size_t)strtoull(argv[4], NULL, 10) : 1048576;
    cipher = argc > 5 ? argv[5] : "PRESENT-80";
    if (n < 1 || n > 1024 || nreq < 1 || bytes < 32)
        return 2;
    pthread_t *th = (pthread_t *)calloc((size_t)n, sizeof *th);
    long *errs = (long *)calloc((size_t)n, sizeof *errs);
    pthread_barrier_init(&start_line, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, client, &errs[i]);
    struct timespec t0, t1;
    pthread_barrier_wait(&start_line);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        failed += errs[i] != 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double total = (double)n * nreq * (double)bytes;
    printf("%d clients x %d requests x %zu bytes of %s: %.2f s, %.1f MB/s, %d clients failed\n", n,
           nreq, bytes, cipher, s, total / s / 1e6, failed);
    bsd_client_opts o = {sock, 1000, 5000};
    bsd_client *c;
    static char st[BSD_MAX_REPLY_PAYLOAD + 1];
    if (bsd_client_connect(&o, &c) == 0 && bsd_client_status(c, st, sizeof st) == 0) {
        for (char *line = strtok(st, "\n"); line != NULL; line = strtok(NULL, "\n"))
            if (strncmp(line, "batch", 5) == 0 || strncmp(line, "bytes_served", 12) == 0 ||
                strncmp(line, "backend_info", 12) == 0)
                printf("  %s\n", line);
        bsd_client_close(c);
    }
    free(th);
    free(errs);
    return failed ? 1 : 0;
}
