/*
 * bitslice bench: keystream throughput of one cipher, in-process (one thread) and through the
 * daemon: one large KEYSTREAM request, and the prefetching stream read 4 KiB at a time the way
 * `openssl enc` feeds the provider. A benchmark prints; it asserts nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bs_cli.h"
#include "bs_cpu.h"
#include "bs_num.h"
#include "bs_opt.h"
#include "bsd_client.h"
#include "bsd_source.h"
#include "bs_digest.h"
#include "bsd_stream.h"
#include "bsd_verify.h"
#include "modes/ctr.h"

#ifndef BS_VERSION
#define BS_VERSION "unknown"
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* All threads of this process, in ns steps (getrusage counts in scheduler ticks here). */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The daemon's pid, from SO_PEERCRED on a connection that sends nothing (the daemon drops it at
 * its hello timeout), so that --integrity-compare can add the daemon's CPU time to its own.
 */
static pid_t daemon_pid(const char *sock)
{
    char def[108];
    if (sock == NULL) {
        bsd_client_default_socket(def, sizeof def);
        sock = def;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct ucred cr = {0, 0, 0};
    socklen_t len = sizeof cr;
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
        cr.pid = 0;
    if (fd >= 0)
        close(fd);
    return cr.pid;
}

/* CPU seconds of every thread of a process (/proc/PID/task/N/schedstat, in ns); -1 if unreadable.
 */
static double proc_cpu_s(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = pid > 0 ? opendir(path) : NULL;
    if (d == NULL)
        return -1;
    double ns = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char f[384];
        int n = snprintf(f, sizeof f, "%.63s/%.255s/schedstat", path, e->d_name);
        FILE *fp = n > 0 && (size_t)n < sizeof f ? fopen(f, "r") : NULL;
        unsigned long long run = 0;
        if (fp != NULL) {
            if (fscanf(fp, "%llu", &run) == 1)
                ns += (double)run;
            fclose(fp);
        }
    }
    closedir(d);
    return ns / 1e9;
}

static pid_t bench_daemon = 0;

/* This process's and the daemon's CPU seconds together (the daemon's only in compare mode). */
static double all_cpu_s(void)
{
    double dc = bench_daemon > 0 ? proc_cpu_s(bench_daemon) : 0;
    return cpu_s() + (dc > 0 ? dc : 0);
}

/* The daemon whose CPU the rows report beside this process's (0: none known). */
static pid_t row_daemon = 0;
static double row_d0 = -1;

/* Marks the start of a row: the daemon's CPU so far. */
static void row_start(void)
{
    row_d0 = row_daemon > 0 ? proc_cpu_s(row_daemon) : -1;
}

/*
 * One row: throughput, and CPU time per byte of this process and (where its threads' schedstat
 * is readable) of the daemon, since row_start. CPU per byte hardly moves with what else runs on
 * a shared machine; wall-clock MB/s does.
 */
static void row(const char *what, size_t bytes, double wall, double cpu)
{
    double d1 = row_d0 >= 0 ? proc_cpu_s(row_daemon) : -1;
    printf("%-40s %10.1f MB/s   wall %7.3f s   this process cpu %7.3f s   %6.3f ns/B", what,
           (double)bytes / wall / 1e6, wall, cpu, cpu / (double)bytes * 1e9);
    if (d1 >= 0 && row_d0 >= 0)
        printf("   daemon %6.3f ns/B", (d1 - row_d0) / (double)bytes * 1e9);
    printf("\n");
    row_d0 = -1;
}

/*
 * The daemon's three paths: large requests, the prefetching stream read 4 KiB at a time, and the
 * provider's CTR path fed like openssl enc. Prints rows unless mbs is given (then fills it).
 */
static void daemon_rows(const bs_block_cipher *c, const char *sock, const uint8_t *key,
                        const uint8_t *ctr, uint8_t *out, size_t bytes, double *mbs, double *cpu)
{
    double a0;
    size_t nb = bytes / c->block_len;
    double t0, c0;
    static bs_key_schedule ks;
    c->set_key(&ks, key);
    bsd_client_opts o = {sock, 1000, 600000};
    bsd_client *cl;
    int r = bsd_client_connect(&o, &cl);
    if (r != 0) {
        printf("daemon: not reachable (%s); nothing more to measure\n", strerror(-r));
        return;
    }
    uint32_t sid;
    r = bsd_client_map_shm(cl, bytes);
    if (r == 0)
        r = bsd_client_open_session(cl, c->name, key, c->key_len, &sid, NULL);
    uint64_t max_req = bsd_client_info(cl)->max_request_bytes / c->block_len;
    t0 = now_s();
    c0 = cpu_s();
    a0 = all_cpu_s();
    row_start();
    for (uint64_t done = 0; r == 0 && done < nb;) {
        uint64_t n = nb - done < max_req ? nb - done : max_req;
        uint8_t cc[32];
        memcpy(cc, ctr, c->block_len);
        bs_ctr_add(cc, c->block_len, done);
        uint32_t id;
        uint64_t digest = 0;
        r = bsd_client_keystream_submit(cl, sid, cc, c->block_len, n, done * c->block_len, &id);
        if (r == 0)
            r = bsd_client_wait_keystream(cl, id, 600000, &digest);
        /*
         * What every client does before it uses a window: move it out of the shared memory into
         * its own (here the output buffer), checking it on the way (a plain copy and wipe when
         * unchecked).
         */
        if (r == 0)
            r = bsd_verify_move(cl, sid, c, &ks, cc, n, out + done * c->block_len,
                                bsd_client_shm(cl, NULL) + done * c->block_len, digest);
        done += n;
    }
    if (r != 0) {
        /* The daemon's own words where it refused (e.g. a mapping over its max_shm_bytes). */
        const char *why = "";
        if (r == -EREMOTEIO)
            bsd_client_last_error(cl, &why);
        printf("daemon: request failed (%s%s%s)\n", strerror(-r), *why ? ": " : "", why);
    } else {
        char what[64];
        snprintf(what, sizeof what, "daemon (%s), large requests", bsd_client_info(cl)->backend);
        if (mbs != NULL)
            mbs[0] = (double)bytes / (now_s() - t0) / 1e6;
        if (cpu != NULL)
            cpu[0] = (all_cpu_s() - a0) / (double)bytes * 1e9;
        if (mbs == NULL)
            row(what, bytes, now_s() - t0, cpu_s() - c0);
    }
    bsd_client_close(cl);

    bsd_stream_opts so = {sock, 1000, 60000, 0, 0, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s = NULL;
    /* The open in the row, as in the provider's row below (its first call opens the stream). */
    t0 = now_s();
    c0 = cpu_s();
    a0 = all_cpu_s();
    row_start();
    r = bsd_stream_open(&so, c, key, c->key_len, ctr, &s);
    const double open_cpu = cpu_s() - c0;
    for (size_t off = 0; r == 0 && off < bytes; off += 4096)
        r = bsd_stream_read(s, &ks, out + off, bytes - off < 4096 ? bytes - off : 4096);
    if (r == 0 && cpu != NULL)
        cpu[1] = (all_cpu_s() - a0) / (double)bytes * 1e9;
    if (r == 0 && mbs != NULL)
        mbs[1] = (double)bytes / (now_s() - t0) / 1e6;
    else if (r == 0) {
        row("daemon stream, 4 KiB reads", bytes, now_s() - t0, cpu_s() - c0);
        printf("  (of which the stream's open: %.3f ms of this process's CPU)\n", open_cpu * 1e3);
    } else
        printf("daemon stream failed (%s)\n", strerror(-r));
    bsd_stream_close(s);

    /* The provider's two paths, fed like openssl enc: 4 KiB XORs in place. */
    memset(out, 0, bytes);
    if (mbs == NULL) {
        static bs_ctr_ctx ref;
        bs_ctr_set_key(&ref, c, key, c->key_len);
        bs_ctr_set_iv(&ref, ctr, bs_ctr_iv_len(c));
        t0 = now_s();
        c0 = cpu_s();
        for (size_t off = 0; off < bytes; off += 4096)
            bs_ctr_crypt(&ref, out + off, out + off, bytes - off < 4096 ? bytes - off : 4096);
        row("provider path in-process, 4 KiB calls", bytes, now_s() - t0, cpu_s() - c0);
    }
    /* The same bs_ctr_ctx, pulling from the daemon's keystream source. */
    bsd_source_opts co = {sock, 0, 1000, 60000, 0, 0, BSD_OFFLOAD_ALWAYS};
    bs_keystream_source *src = bsd_source_new(&co);
    static bs_ctr_ctx dc;
    bs_ctr_set_source(&dc, src);
    r = src == NULL ? -ENOMEM : bs_ctr_set_key(&dc, c, key, c->key_len);
    if (r == 0)
        r = bs_ctr_set_iv(&dc, ctr, bs_ctr_iv_len(c));
    t0 = now_s();
    c0 = cpu_s();
    a0 = all_cpu_s();
    row_start();
    double first_cpu = 0;
    for (size_t off = 0; r == 0 && off < bytes; off += 4096) {
        r = bs_ctr_crypt(&dc, out + off, out + off, bytes - off < 4096 ? bytes - off : 4096);
        if (off == 0)
            first_cpu = cpu_s() - c0; /* the first call opens the stream */
    }
    uint64_t db = 0, lb = 0;
    if (src != NULL)
        bsd_source_counts(src, &db, &lb);
    if (cpu != NULL)
        cpu[2] = lb == 0 ? (all_cpu_s() - a0) / (double)bytes * 1e9 : 0;
    if (mbs != NULL) {
        mbs[2] = lb == 0 ? (double)bytes / (now_s() - t0) / 1e6 : 0;
    } else {
        row("provider path via daemon, 4 KiB calls", bytes, now_s() - t0, cpu_s() - c0);
        printf("  (%llu bytes from the daemon, %llu in-process%s; the first call, which opens "
               "the stream: %.3f ms of this process's CPU)\n",
               (unsigned long long)db, (unsigned long long)lb,
               src != NULL && bsd_source_fallback_reason(src) ? ", fell back" : "",
               first_cpu * 1e3);
    }
    bs_ctr_clear(&dc);
    if (src != NULL)
        src->ops->free(src);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * --integrity-compare: the same three daemon paths with the integrity checks on and off
 * (BENCHMARK ONLY: bsd_verify_bench_set_unchecked asks the daemon for unpoisoned, undigested
 * windows and skips the client's checks), alternating, reps times each; medians and ratios.
 */
static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_load(const char *when)
{
    char buf[64] = "?";
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fgets(buf, sizeof buf, f) == NULL)
            snprintf(buf, sizeof buf, "?");
        fclose(f);
    }
    buf[strcspn(buf, "\n")] = 0;
    printf("load average %s: %s\n", when, buf);
}

/*
 * --integrity-compare: the same three daemon paths with the integrity checks on and off
 * (BENCHMARK ONLY: bsd_verify_bench_set_unchecked asks the daemon for unpoisoned, undigested
 * windows and skips the client's checks), alternating, reps times each; medians and ratios.
 * Besides throughput, the CPU time this process and the daemon spent per byte: on a machine
 * whose cores are all busy (shared, or the daemon's threads filling them) throughput follows the
 * CPU cost, and the cost ratio does not move with what else runs, as the wall-clock one does.
 */
static void compare_checks(const bs_block_cipher *c, const char *sock, const uint8_t *key,
                           const uint8_t *ctr, uint8_t *out, size_t bytes, unsigned reps,
                           double core_ns)
{
    static const char *const what[3] = {"large requests", "stream, 4 KiB reads",
                                        "provider CTR path, 4 KiB calls"};
    double on[3][64], off[3][64], con[3][64], coff[3][64];
    bench_daemon = daemon_pid(sock);
    if (proc_cpu_s(bench_daemon) < 0)
        bench_daemon = 0;
    print_load("at start");
    for (unsigned i = 0; i < reps; i++) {
        double m[3] = {0, 0, 0}, cp[3] = {0, 0, 0};
        bsd_verify_bench_set_unchecked(0);
        daemon_rows(c, sock, key, ctr, out, bytes, m, cp);
        for (int k = 0; k < 3; k++) {
            on[k][i] = m[k];
            con[k][i] = cp[k];
        }
        bsd_verify_bench_set_unchecked(1);
        memset(m, 0, sizeof m);
        memset(cp, 0, sizeof cp);
        daemon_rows(c, sock, key, ctr, out, bytes, m, cp);
        for (int k = 0; k < 3; k++) {
            off[k][i] = m[k];
            coff[k][i] = cp[k];
        }
    }
    bsd_verify_bench_set_unchecked(0);
    print_load("at end");
    /* What one pass of the window digest costs on one core (the daemon and the client each do
     * one), in this process's CPU time: in cache (8 KiB, as the daemon's pieces) and over the
     * whole buffer (from memory, as the client's). */
    const size_t nw = bytes / 8, piece = 1024;
    uint64_t sink = 0;
    double t0 = cpu_s();
    for (unsigned i = 0; i < reps; i++)
        sink += bs_digest(ctr, c->block_len, bytes / c->block_len, out);
    double dt = cpu_s() - t0;
    t0 = cpu_s();
    uint64_t hits = 0;
    for (size_t i = 0; i < 16 * nw / piece; i++)
        sink += bs_digest_sum(1, 0, out, piece, 5, &hits);
    double dp = cpu_s() - t0;
    printf("window digest (%s), one core, CPU time: %.1f GB/s over %zu MiB, %.1f GB/s on 8 KiB "
           "in cache with the poison count (%s)\n",
           bs_cpu_level_name(bs_digest_level()), (double)bytes * reps / dt / 1e9, bytes >> 20,
           16.0 * (double)bytes / dp / 1e9, sink != 0 ? "measured" : "measured.");
    /* Each implementation this CPU has, on the same piece (bit-exact: tests/service). */
    printf("window digest on 8 KiB in cache, CPU time, GB/s, with / without the poison count:");
    for (int level = BS_CPU_PORTABLE; level <= BS_CPU_TOP; level++) {
        if (bs_digest_level_at(level) != level)
            continue;
        double g[2];
        for (int w = 0; w < 2; w++) {
            t0 = cpu_s();
            for (size_t i = 0; i < 4 * nw / piece; i++)
                sink += bs_digest_sum_at(level, 1, 0, out, piece, 5, w == 0 ? &hits : NULL);
            g[w] = 4.0 * (double)bytes / (cpu_s() - t0) / 1e9;
        }
        printf(" %s %.1f / %.1f", bs_cpu_level_name(level), g[0], g[1]);
    }
    printf("%s\n", sink != 0 ? "" : " ");
    /*
     * An estimate from the parts, each timed alone on one core in CPU time (steadier than the
     * end-to-end rows on a shared machine). The daemon's part: its CPU backend's work on one
     * thread, the keystream written over the whole buffer in 8 KiB pieces, each then digested
     * in cache with its zero words counted (bsd_job_seal_wiped), less the same without the
     * digest; alternating, best of reps, since both write the window's lines from memory alike.
     * The client's part: below. The keystream itself costs what the in-process row above took.
     */
    static bs_key_schedule ks;
    c->set_key(&ks, key);
    const size_t bl = c->block_len, pb = (8192 / bl + 63) / 64 * 64, nb = bytes / bl;
    double best[2] = {1e30, 1e30};
    for (unsigned i = 0; i < 2 * reps; i++) {
        const int checked = (int)(i % 2);
        t0 = cpu_s();
        for (size_t a = 0; a < nb; a += pb) {
            const size_t n = nb - a < pb ? nb - a : pb;
            uint8_t cc[BS_BLOCK_MAX];
            memcpy(cc, ctr, bl);
            bs_ctr_add(cc, bl, a);
            bs_ctr_keystream(c, &ks, cc, n, out + a * bl);
            if (checked)
                sink += bs_digest_sum(1, a * bl / 8, out + a * bl, n * bl / 8, 0, &hits);
        }
        const double dt = cpu_s() - t0;
        best[checked] = dt < best[checked] ? dt : best[checked];
    }
    bs_wipe(&ks, sizeof ks);
    const double dd_ns = best[1] > best[0] ? (best[1] - best[0]) / (double)(nb * bl) * 1e9 : 0;
    /*
     * The client digests as it moves each window (1 MiB, the stream's default) out of the shared
     * memory, a pass it makes with the checks off too: its cost is the move less the same move
     * without the sum (out's first half moved into its second, window by window).
     */
    const size_t win = bytes / 2 < (1u << 20) ? bytes / 2 : (1u << 20), nwin = bytes / 2 / win;
    double tm = 0, tc = 0;
    for (unsigned i = 0; i < 3; i++) {
        t0 = cpu_s();
        for (size_t k = 0; k < nwin; k++)
            sink +=
                bs_digest_move_sum(1, 0, out + bytes / 2 + k * win, out + k * win, win / 8, &hits);
        tm += cpu_s() - t0;
        t0 = cpu_s();
        for (size_t k = 0; k < nwin; k++)
            bs_digest_move_plain(out + bytes / 2 + k * win, out + k * win, win / 8);
        tc += cpu_s() - t0;
    }
    const double dc_ns = tm > tc ? (tm - tc) / (3.0 * (double)(nwin * win)) * 1e9 : 0;
    const double checks_ns = dd_ns + dc_ns;
    printf("the checks alone, one core, CPU time per byte: %.3f ns (daemon: its pieces written "
           "and digested with the zero count %.3f over written alone, client digest in its move "
           "%.3f); the keystream alone: %.3f ns%s\n",
           checks_ns, dd_ns, dc_ns, core_ns, sink != 0 ? "" : " ");
    printf("integrity checks on vs off (benchmark switch), %u runs each, alternating; medians\n",
           reps);
    printf("%-32s %11s %11s %7s %12s %12s %7s %7s\n", "daemon path", "checks MB/s", "none MB/s",
           "ratio", "checks cpu", "none cpu", "cost", "model");
    for (int k = 0; k < 3; k++) {
        double a = median(on[k], reps), b = median(off[k], reps);
        double ca = median(con[k], reps), cb = median(coff[k], reps);
        printf("%-32s %11.1f %11.1f %7.3f %9.3f ns/B %7.3f ns/B %7.3f %7.3f\n", what[k], a, b,
               b > 0 ? a / b : 0.0, ca, cb, ca > 0 ? cb / ca : 0.0,
               cb > 0 ? cb / (cb + checks_ns) : 0.0);
    }
    printf("cpu: this process and %s per byte; cost: none cpu / checks cpu (the throughput "
           "ratio where the CPUs are the limit); model: none cpu / (none cpu + the checks "
           "alone), an estimate\n",
           bench_daemon > 0 ? "the daemon's threads (/proc/PID/task/*/schedstat)"
                            : "(daemon not readable: this process only)");
}

static void bench_usage(FILE *f)
{
    char sock[108];
    bsd_client_default_socket(sock, sizeof sock);
    fprintf(
        f,
        "usage: bitslice bench [--cipher NAME] [--size-mib N] [--socket P]\n"
        "                      [--integrity-compare [--reps N]]\n"
        "Keystream throughput of one cipher, in-process (one thread) and through the daemon.\n"
        "  --cipher NAME        a block cipher (PRESENT-80) or a provider name (PRESENT-80-CTR,\n"
        "                       GIFT-CTR, RIJNDAEL256-CTR); default PRESENT-80\n"
        "  --size-mib N         MiB of keystream per measurement, 1..4096 (default 64)\n"
        "  --socket P           the daemon's socket (default %s)\n"
        "  --integrity-compare  measure the daemon paths with the keystream\n"
        "                       integrity checks on and, for this measurement\n"
        "                       only, off (never a way to run unchecked)\n"
        "  --reps N             repetitions of each compared row, 1..64 (default 5)\n",
        sock);
}

int bscli_cmd_bench(int argc, char **argv)
{
    const char *cipher = "PRESENT-80", *sock = NULL;
    uint64_t mib = 64;
    int compare = 0;
    unsigned reps = 5;
    static const struct option lo[] = {
        {"cipher", required_argument, 0, 'c'}, {"size-mib", required_argument, 0, 'n'},
        {"socket", required_argument, 0, 's'}, {"integrity-compare", no_argument, 0, 'I'},
        {"reps", required_argument, 0, 'r'},   {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {0, 0, 0, 0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":c:n:s:r:hV", lo, NULL)) != -1) {
        switch (c) {
        case 'c':
            cipher = optarg;
            break;
        case 'n':
            if (bs_parse_u64(optarg, 1, 4096, &mib) != 0) {
                fprintf(stderr, "bitslice bench: --size-mib wants 1..4096, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 's':
            sock = optarg;
            break;
        case 'I':
            compare = 1;
            break;
        case 'r':
            if (bs_parse_uint(optarg, 1, 64, &reps) != 0) {
                fprintf(stderr, "bitslice bench: --reps wants 1..64, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 'h':
            bench_usage(stdout);
            return 0;
        case 'V':
            printf("bitslice %s\n", BS_VERSION);
            return 0;
        default:
            return bs_opt_error("bitslice bench", "bitslice bench", c, argv);
        }
    }
    if (optind < argc)
        return bs_usage_error("bitslice bench", "bitslice bench", "unexpected argument",
                              argv[optind]);
    const bs_block_cipher *bc = bs_block_cipher_by_any_name(cipher);
    if (bc == NULL) {
        char names[512];
        bs_cipher_names(names, sizeof names);
        fprintf(stderr,
                "bitslice bench: unknown cipher '%s'; the ciphers: %s (or their provider names: "
                "PRESENT-80-CTR, GIFT-CTR, RIJNDAEL256-CTR, ...)\n",
                cipher, names);
        return 2;
    }
    size_t bytes = mib << 20, nb = bytes / bc->block_len;
    uint8_t key[64] = {1, 2, 3}, ctr[32] = {0};
    uint8_t *out = (uint8_t *)malloc(bytes);
    static bs_key_schedule ks;
    if (out == NULL)
        return 1;
    printf("cipher %s (%s), %zu MiB of keystream\n", bc->name, bc->impl, (size_t)mib);
    bc->set_key(&ks, key);
    /* Touched first: the row times the core, not the page faults of a fresh buffer. */
    memset(out, 0, bytes);
    double t0 = now_s(), c0 = cpu_s();
    bs_ctr_keystream(bc, &ks, ctr, nb, out);
    const double core_cpu = cpu_s() - c0;
    row("in-process, 1 thread", bytes, now_s() - t0, core_cpu);

    if (compare) {
        compare_checks(bc, sock, key, ctr, out, bytes, reps, core_cpu / (double)bytes * 1e9);
        free(out);
        return 0;
    }
    row_daemon = daemon_pid(sock);
    daemon_rows(bc, sock, key, ctr, out, bytes, NULL, NULL);
    free(out);
    return 0;
}
