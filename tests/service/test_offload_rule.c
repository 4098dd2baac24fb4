/*
 * Offload by cost (service/client/bsd_offload.h), nothing timed: the rule on injected figures
 * (every branch, the margin's edge, the reason strings), the mode names and $BITSLICE_OFFLOAD,
 * the injection of $BITSLICE_OFFLOAD_FIGURES, RATE against a real daemon (a figure after its
 * calibration, its workers, STATUS's rate line, an unknown cipher refused), and
 * bsd_windows_open_by_cost: a stream kept in-process sends no key and maps nothing; the
 * per-process figures asked by many threads at once: one measurement per cipher, the same figures
 * for every thread and every later call.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "bsd_client.h"
#include "bsd_offload.h"
#include "bsd_windows.h"
#include "svc_util.h"

static void expect(int mode, const bsd_offload_figures *f, int daemon, const char *reason)
{
    bsd_offload_decision d;
    memset(&d, 0x55, sizeof d);
    bsd_offload_decide(mode, "GIFT-128", f, &d);
    if (d.daemon != daemon || strcmp(d.reason, reason) != 0)
        fprintf(stderr, "got %d \"%s\"\nwant %d \"%s\"\n", d.daemon, d.reason, daemon, reason);
    CHECK(d.decided == 1 && d.daemon == daemon && strcmp(d.reason, reason) == 0);
}

static void rule(void)
{
    bsd_offload_figures f = {1.0, 0.1, 0.2, 0, 16};
    expect(BSD_OFFLOAD_AUTO, &f, 1,
           "daemon: GIFT-128 in-process 1.000 ns/B, through the daemon 0.200 ns/B (this thread "
           "0.100, device backend 0.200)");
    /* The margin: 0.2 * 1.25 = 0.25 must be below the in-process figure. */
    f.local_ns = 0.25;
    expect(BSD_OFFLOAD_AUTO, &f, 0,
           "in-process: GIFT-128 in-process 0.250 ns/B, through the daemon 0.200 ns/B (this "
           "thread 0.100, device backend 0.200)");
    f.local_ns = 0.2501;
    expect(BSD_OFFLOAD_AUTO, &f, 1,
           "daemon: GIFT-128 in-process 0.250 ns/B, through the daemon 0.200 ns/B (this thread "
           "0.100, device backend 0.200)");
    /* This thread's own pass bounds the path, however fast the backend. */
    bsd_offload_figures g = {0.11, 0.1, 0.01, 0, 16};
    expect(BSD_OFFLOAD_AUTO, &g, 0,
           "in-process: GIFT-128 in-process 0.110 ns/B, through the daemon 0.100 ns/B (this "
           "thread 0.100, device backend 0.010)");
    /*
     * A CPU backend shares this host's CPUs with this thread: 4 workers at 0.2 ns/B together
     * need 0.8 ns/B of CPU, this thread 0.1 more, over the 3 CPUs: 0.3 ns/B.
     */
    bsd_offload_figures h = {0.6, 0.1, 0.2, 4, 3};
    expect(BSD_OFFLOAD_AUTO, &h, 1,
           "daemon: GIFT-128 in-process 0.600 ns/B, through the daemon 0.300 ns/B (this thread "
           "0.100, cpu backend 0.200 with 4 workers: 0.900 ns/B of CPU on 3 CPUs)");
    h.local_ns = 0.375; /* the margin again: 0.3 * 1.25 */
    expect(BSD_OFFLOAD_AUTO, &h, 0,
           "in-process: GIFT-128 in-process 0.375 ns/B, through the daemon 0.300 ns/B (this "
           "thread 0.100, cpu backend 0.200 with 4 workers: 0.900 ns/B of CPU on 3 CPUs)");
    h.local_ns = 0.6;
    h.cpus = 64; /* more CPUs than the workers and this thread: the daemon's own time */
    expect(BSD_OFFLOAD_AUTO, &h, 1,
           "daemon: GIFT-128 in-process 0.600 ns/B, through the daemon 0.200 ns/B (this thread "
           "0.100, cpu backend 0.200 with 4 workers: 0.900 ns/B of CPU on 5 CPUs)");
    h.cpus = 1; /* one CPU: the CPU time of both, more than in-process */
    expect(BSD_OFFLOAD_AUTO, &h, 0,
           "in-process: GIFT-128 in-process 0.600 ns/B, through the daemon 0.900 ns/B (this "
           "thread 0.100, cpu backend 0.200 with 4 workers: 0.900 ns/B of CPU on 1 CPU)");
    bsd_offload_figures u = {0.6, 0.1, 0, 0, 16};
    expect(BSD_OFFLOAD_AUTO, &u, 0,
           "in-process: the daemon gives no rate for GIFT-128 (in-process 0.600 ns/B)");
    /* Forced either way, whatever the figures (none needed). */
    expect(BSD_OFFLOAD_ALWAYS, &u, 1, "daemon: forced (offload=always)");
    expect(BSD_OFFLOAD_NEVER, &f, 0, "in-process: forced (offload=never)");
    expect(BSD_OFFLOAD_NEVER, NULL, 0, "in-process: forced (offload=never)");
    printf("rule: every branch and the margin's edge\n");
}

static void modes(void)
{
    CHECK(bsd_offload_mode_by_name("auto") == BSD_OFFLOAD_AUTO);
    CHECK(bsd_offload_mode_by_name("always") == BSD_OFFLOAD_ALWAYS);
    CHECK(bsd_offload_mode_by_name("never") == BSD_OFFLOAD_NEVER);
    CHECK(bsd_offload_mode_by_name("Auto") == -1 && bsd_offload_mode_by_name("") == -1 &&
          bsd_offload_mode_by_name(NULL) == -1);
    CHECK(strcmp(bsd_offload_mode_name(BSD_OFFLOAD_AUTO), "auto") == 0);
    int bad = 7;
    unsetenv(BSD_OFFLOAD_ENV);
    CHECK(bsd_offload_mode_env(BSD_OFFLOAD_AUTO, &bad) == BSD_OFFLOAD_AUTO && bad == 0);
    setenv(BSD_OFFLOAD_ENV, "never", 1);
    CHECK(bsd_offload_mode_env(BSD_OFFLOAD_AUTO, &bad) == BSD_OFFLOAD_NEVER && bad == 0);
    setenv(BSD_OFFLOAD_ENV, "sometimes", 1);
    CHECK(bsd_offload_mode_env(BSD_OFFLOAD_AUTO, &bad) == BSD_OFFLOAD_AUTO && bad == 1);
    unsetenv(BSD_OFFLOAD_ENV);

    /* Injected figures replace the measured ones (all named here: nothing is measured). */
    const bs_block_cipher *c = bs_block_cipher_by_name("PRESENT-80");
    CHECK(c != NULL);
    setenv(BSD_OFFLOAD_FIGURES_ENV, "local=0.5,path=0.25,daemon=0.125,workers=3,cpus=9,x=1", 1);
    bsd_offload_figures f;
    bsd_offload_local_figures(c, &f);
    CHECK(f.local_ns == 0.5 && f.path_ns == 0.25 && f.daemon_ns == 0.125 && f.workers == 3 &&
          f.cpus == 9);
    unsetenv(BSD_OFFLOAD_FIGURES_ENV);
    printf("modes, $BITSLICE_OFFLOAD and injected figures\n");
}

/*
 * Per-process figures asked by THREADS threads at once, all starting together, for every cipher
 * (distinct names): each cipher is measured once, so every thread gets the very same figures, and
 * later calls get them again (every cipher stays cached: nothing is measured twice).
 */
#define THREADS 8
#define MAX_NAMES 64
static const bs_block_cipher *names[MAX_NAMES];
static int nnames;
static bsd_offload_figures got[THREADS][MAX_NAMES];
static pthread_barrier_t start_line;

static void *ask_all(void *arg)
{
    const int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&start_line);
    for (int i = 0; i < nnames; i++) /* half the threads from the other end */
        if (t % 2 == 0)
            bsd_offload_local_figures(names[i], &got[t][i]);
        else
            bsd_offload_local_figures(names[nnames - 1 - i], &got[t][nnames - 1 - i]);
    return NULL;
}

static void figures_threads(void)
{
    unsetenv(BSD_OFFLOAD_FIGURES_ENV);
    for (int i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *c = bs_block_cipher_by_name(bs_block_ciphers[i]->name);
        int seen = c == NULL;
        for (int k = 0; k < nnames && !seen; k++)
            seen = names[k] == c;
        if (!seen && nnames < MAX_NAMES)
            names[nnames++] = c;
    }
    CHECK(nnames > 1);
    CHECK(pthread_barrier_init(&start_line, NULL, THREADS) == 0);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, ask_all, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    pthread_barrier_destroy(&start_line);
    for (int i = 0; i < nnames; i++) {
        CHECK(got[0][i].local_ns > 0 && got[0][i].path_ns > 0);
        for (int t = 1; t < THREADS; t++)
            CHECK(memcmp(&got[t][i], &got[0][i], sizeof got[0][i]) == 0);
        bsd_offload_figures again;
        bsd_offload_local_figures(names[i], &again);
        CHECK(memcmp(&again, &got[0][i], sizeof again) == 0);
    }
    printf("figures: %d threads at once, %d ciphers: one measurement each, the same figures for "
           "all and later\n",
           THREADS, nnames);
}

static void against_daemon(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"threads=2", NULL};
    svc_start(&d, NULL, sets);
    bsd_client_opts o = {d.socket, 1000, 20000};
    bsd_client *cl;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK((bsd_client_info(cl)->caps & BSD_CAP_RATE) != 0);
    bsd_rate_rep r;
    CHECK(bsd_client_rate(cl, "PRESENT-80", &r) == 0);
    /* Calibrated on its first RATE: the best of four 1 MiB jobs, 2 workers of the CPU backend. */
    CHECK(r.bytes_per_s > 0 && r.bytes == ((uint64_t)4 << 20) && r.host_workers == 2);
    bsd_rate_rep again;
    CHECK(bsd_client_rate(cl, "present-80", &again) == 0 && again.bytes_per_s == r.bytes_per_s);
    CHECK(bsd_client_rate(cl, "NO-SUCH-CIPHER", &again) == -EREMOTEIO);
    CHECK(bsd_client_last_error(cl, NULL) == BSD_E_UNKNOWN_CIPHER);
    static char text[16384];
    CHECK(bsd_client_status(cl, text, sizeof text) == 0);
    char line[96];
    snprintf(line, sizeof line, "rate.PRESENT-80=%llu bytes/s over 4194304 bytes\n",
             (unsigned long long)r.bytes_per_s);
    CHECK(strstr(text, line) != NULL && svc_status_value(text, "backend_workers") == 2);
    /* RATE (the calibration's wait) and STATUS waits are not a stream's stalls. */
    CHECK(bsd_client_stalls(cl) == 0);
    bsd_client_close(cl);
    printf("RATE: PRESENT-80 calibrated at %llu bytes/s over %llu bytes, 2 workers\n",
           (unsigned long long)r.bytes_per_s, (unsigned long long)r.bytes);

    /* Declined by the rule: connected and asked, but no memory mapped and no session opened. */
    const bs_block_cipher *c = bs_block_cipher_by_name("PRESENT-80");
    uint8_t key[BS_KEY_MAX];
    svc_fill(key, sizeof key, 3);
    setenv(BSD_OFFLOAD_FIGURES_ENV, "local=0.1,path=0.1", 1);
    bsd_windows w;
    bsd_offload_decision dec;
    long long conns = svc_status_of(&d, "connections_total");
    CHECK(bsd_windows_open_by_cost(&w, &o, c, key, c->key_len, 65536, 2, BSD_OFFLOAD_AUTO, &dec) ==
          -ECANCELED);
    CHECK(dec.decided && !dec.daemon && strncmp(dec.reason, "in-process: PRESENT-80", 22) == 0);
    bsd_windows_close(&w);
    CHECK(svc_status_of(&d, "connections_total") == conns + 2); /* ours and the STATUS before */
    CHECK(svc_status_of(&d, "sessions") == 0);
    /* The same figures, forced: it opens. */
    CHECK(bsd_windows_open_by_cost(&w, &o, c, key, c->key_len, 65536, 2, BSD_OFFLOAD_ALWAYS,
                                   &dec) == 0);
    CHECK(dec.decided && dec.daemon && svc_status_of(&d, "sessions") == 1);
    bsd_windows_close(&w);
    /* A daemon much faster than this thread: auto opens too. */
    setenv(BSD_OFFLOAD_FIGURES_ENV, "local=1000,path=0.1,cpus=4", 1);
    CHECK(bsd_windows_open_by_cost(&w, &o, c, key, c->key_len, 65536, 2, BSD_OFFLOAD_AUTO, &dec) ==
          0);
    CHECK(dec.decided && dec.daemon && strncmp(dec.reason, "daemon: PRESENT-80", 18) == 0);
    bsd_windows_close(&w);
    CHECK(bsd_windows_open_by_cost(&w, &o, c, key, c->key_len, 65536, 2, BSD_OFFLOAD_NEVER, &dec) ==
          -ECANCELED);
    CHECK(dec.decided && !dec.daemon);
    bsd_windows_close(&w);
    unsetenv(BSD_OFFLOAD_FIGURES_ENV);
    printf("bsd_windows_open_by_cost: declined (no session), forced, offloaded, never\n");
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

/*
 * A backend that leaves words unwritten (the daemon's test hook BSD_TEST_FAULT=unwritten): its
 * calibration is checked like any job, so RATE gives no figure, and the job is counted as an
 * integrity event; a cipher whose rate is unknown stays in-process under auto.
 */
static void calibration_checked(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"threads=2", NULL};
    setenv("BSD_TEST_FAULT", "unwritten", 1);
    svc_start(&d, NULL, sets);
    unsetenv("BSD_TEST_FAULT");
    bsd_client_opts o = {d.socket, 1000, 20000};
    bsd_client *cl;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    bsd_rate_rep r;
    CHECK(bsd_client_rate(cl, "PRESENT-80", &r) == 0);
    CHECK(r.bytes_per_s == 0 && r.bytes == 0);
    bsd_client_close(cl);
    CHECK(svc_status_of(&d, "integrity.unwritten_jobs") == 1);
    static char text[16384];
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_status(cl, text, sizeof text) == 0);
    CHECK(strstr(text, "rate.PRESENT-80=") == NULL);
    bsd_client_close(cl);
    printf("RATE: a calibration with words left unwritten gives no figure and counts "
           "integrity.unwritten_jobs\n");
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

int main(void)
{
    rule();
    modes();
    figures_threads();
    if (getenv("BITSLICED") == NULL) {
        printf("BITSLICED not set: the daemon part skipped\n");
        return 0;
    }
    against_daemon();
    calibration_checked();
    return 0;
}
