/*
 * 64 concurrent clients, mixed ciphers and sizes, each a prefetching stream read in pieces:
 * every byte equals the in-process keystream. Then STATUS must show that the batcher put
 * several clients' requests into one batch (the daemon runs one batch at a time here, so
 * requests that arrive meanwhile must coalesce).
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "bsd_stream.h"
#include "modes/ctr.h"
#include "svc_util.h"

#define NCLIENTS 64

static svc_daemon dmn;
static const bs_block_cipher *ciphers[16];
static size_t nciphers;
static pthread_barrier_t start_line;

typedef struct client {
    int index;
    int ok;
    char why[160];
} client;

static void *run_client(void *arg)
{
    client *cl = (client *)arg;
    const bs_block_cipher *c = ciphers[cl->index % nciphers];
    size_t size = 200000 + (size_t)cl->index * 13001; /* 0.2 .. 1 MB, no two alike */
    uint8_t key[64], ctr[32] = {0};
    svc_fill(key, sizeof key, (uint32_t)cl->index + 1000);
    svc_fill(ctr + 1, c->block_len - 1, (uint32_t)cl->index + 2000);
    uint8_t *got = (uint8_t *)malloc(size), *want = (uint8_t *)malloc(size + 32);
    /* The schedule's type is 64-byte aligned (bitslice.h), which malloc does not promise. */
    bs_key_schedule *ks = (bs_key_schedule *)aligned_alloc(64, sizeof *ks);
    cl->ok = 0;
    if (got == NULL || want == NULL || ks == NULL) {
        snprintf(cl->why, sizeof cl->why, "out of memory");
        pthread_barrier_wait(&start_line);
        return NULL;
    }
    bsd_stream_opts so = {dmn.socket, 5000, 60000, 32768, 3, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s = NULL;
    c->set_key(ks, key); /* the stream's checks use it; so does the expected keystream below */
    pthread_barrier_wait(&start_line);
    int r = bsd_stream_open(&so, c, key, c->key_len, ctr, &s);
    size_t piece = 1 + (size_t)cl->index * 97 % 8192;
    for (size_t off = 0; r == 0 && off < size; off += piece)
        r = bsd_stream_read(s, ks, got + off, size - off < piece ? size - off : piece);
    if (r != 0) {
        const char *t = "";
        if (s != NULL)
            bsd_stream_error(s, &t);
        snprintf(cl->why, sizeof cl->why, "client %d (%s): stream error %d %s", cl->index, c->name,
                 r, t);
    } else {
        bs_ctr_keystream(c, ks, ctr, (size + c->block_len - 1) / c->block_len, want);
        cl->ok = memcmp(got, want, size) == 0;
        if (!cl->ok)
            snprintf(cl->why, sizeof cl->why, "client %d (%s): bytes differ", cl->index, c->name);
    }
    bsd_stream_close(s);
    free(got);
    free(want);
    free(ks);
    return NULL;
}

int main(void)
{
    nciphers = svc_ciphers(ciphers, 16);
    if (nciphers == 0)
        return SVC_SKIP;
    svc_init(&dmn);
    static const char *const sets[] = {"max_inflight_batches=1", "batch_deadline_us=1000",
                                       "max_sessions_total=128", NULL};
    svc_start(&dmn, NULL, sets);
    pthread_t th[NCLIENTS];
    static client cls[NCLIENTS];
    pthread_barrier_init(&start_line, NULL, NCLIENTS);
    for (int i = 0; i < NCLIENTS; i++) {
        cls[i].index = i;
        CHECK(pthread_create(&th[i], NULL, run_client, &cls[i]) == 0);
    }
    int failures = 0;
    for (int i = 0; i < NCLIENTS; i++) {
        pthread_join(th[i], NULL);
        if (!cls[i].ok) {
            fprintf(stderr, "%s\n", cls[i].why);
            failures++;
        }
    }
    CHECK(failures == 0);
    char st[16384];
    CHECK(svc_status(&dmn, st, sizeof st) == 0);
    long long batches = svc_status_value(st, "batches_total");
    long long jobs = svc_status_value(st, "batched_jobs_total");
    long long bmax = svc_status_value(st, "batch_max");
    long long median = svc_status_value(st, "batch_median");
    printf("batches=%lld jobs=%lld mean=%.1f median=%lld max=%lld\n", batches, jobs,
           batches > 0 ? (double)jobs / (double)batches : 0.0, median, bmax);
    CHECK(svc_status_value(st, "errors_total") == 0);
    CHECK(batches > 0 && jobs >= 2 * batches); /* on average two or more requests per batch */
    CHECK(bmax >= 8);
    /*
     * Only the STATUS client is left once the daemon has seen every disconnect: those arrive
     * on its loop after the clients' close() returned, so ask again for a while.
     */
    for (int i = 0;
         i < 200 && (svc_status_value(st, "clients") != 1 || svc_status_value(st, "sessions") != 0);
         i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        CHECK(svc_status(&dmn, st, sizeof st) == 0);
    }
    CHECK(svc_status_value(st, "clients") == 1);
    CHECK(svc_status_value(st, "sessions") == 0);
    CHECK(svc_stop(&dmn) == 0);
    svc_cleanup(&dmn);
    return 0;
}
