/*
 * The provider's daemon offload end to end: the real `openssl enc` and an EVP program with this
 * build's bitslice.so, against a real bitsliced on a temporary socket (CPU backend).
 *
 *  - every CTR cipher through the daemon ($BITSLICE_SOCKET, default threshold): the same bytes
 *    as the in-process provider and as bs_ctr in this process, and STATUS shows the daemon
 *    served the stream; the CTR known answers with offload-threshold = 0 (config keys);
 *  - offload-threshold: a message one byte short never connects; one at the threshold does;
 *  - daemon absent, daemon refusing every window, daemon stopped (SIGSTOP, short timeouts from
 *    the config): in-process, same bytes, promptly;
 *  - daemon SIGKILLed in the middle of a 256 MiB `openssl enc` (fed through pipes): exit 0
 *    and the right bytes; the restarted daemon serves again;
 *  - EVP: fork() mid-stream (the child reconnects) and EVP_CIPHER_CTX_copy mid-stream;
 *  - RIJNDAEL-256-GCM with a 28-byte IV: ciphertext and tag equal to bs_gcm256, keystream
 *    served by the daemon, also when it is SIGKILLed mid-message; a 12-byte IV stays
 *    in-process.
 *
 * Environment: BITSLICED, OPENSSL (the openssl binary), BSPROV_DIR (the built provider).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "kat.h"
#include "modes/ctr.h"
#include "modes/gcm256.h"
#include "svc_util.h"

static svc_daemon dmn;
static const char *openssl_bin, *prov_dir;

static const char *const ctr_names[] = {
    "RIJNDAEL-256-CTR", "GIFT-128-CTR",       "GIFT-64-CTR",        "PRESENT-128-CTR",
    "PRESENT-80-CTR",   "SKINNY-128-384-CTR", "SKINNY-128-256-CTR", "SKINNY-128-128-CTR",
    "SPEEDY-7-192-CTR", "SPEEDY-6-192-CTR",   "SPEEDY-5-192-CTR",
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The core of "PRESENT-80-CTR". */
static const bs_block_cipher *core_of(const char *ctr_name)
{
    char core[32];
    snprintf(core, sizeof core, "%.*s", (int)(strlen(ctr_name) - 4), ctr_name);
    const bs_block_cipher *c = bs_block_cipher_by_name(core);
    CHECK(c != NULL);
    return c;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * n] = '\0';
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(n == 0 || fwrite(p, 1, n, f) == n);
    CHECK(fclose(f) == 0);
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    long len = ftell(f);
    CHECK(len >= 0);
    rewind(f);
    uint8_t *p = (uint8_t *)malloc((size_t)len + 1);
    CHECK(p != NULL);
    CHECK(len == 0 || fread(p, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return p;
}

/* A config that loads default and this build's bitslice.so with the given [bitslice_sect] keys. */
static void write_conf(const char *path, const char *keys)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fprintf(f,
            "openssl_conf = openssl_init\n[openssl_init]\nproviders = provider_sect\n"
            "[provider_sect]\ndefault = default_sect\nbitslice = bitslice_sect\n"
            "[default_sect]\nactivate = 1\n[bitslice_sect]\nmodule = %s/bitslice.so\n"
            "activate = 1\n%s",
            prov_dir, keys);
    CHECK(fclose(f) == 0);
}

/* STATUS connections this test made to the current daemon (each counts in connections_total). */
static long long status_conns;

static void daemon_start(const char *const *sets)
{
    svc_start(&dmn, NULL, sets);
    status_conns = 0;
}

typedef struct status_snap {
    long long served, conns, errors, keystream_requests;
} status_snap;

static status_snap snap(void)
{
    static char text[8192];
    CHECK(svc_status(&dmn, text, sizeof text) == 0);
    status_snap s = {
        svc_status_value(text, "bytes_served"), svc_status_value(text, "connections_total"),
        svc_status_value(text, "errors_total"), svc_status_value(text, "keystream_requests")};
    CHECK(s.served >= 0 && s.conns >= 0 && s.errors >= 0 && s.keystream_requests >= 0);
    s.conns -= ++status_conns;
    return s;
}

/*
 * Runs `openssl enc -e -<cipher> -K -iv` on in_path. conf: OPENSSL_CONF (NULL: /dev/null and
 * -provider-path/-provider flags). sock: $BITSLICE_SOCKET (NULL: unset). stdin/stdout from the
 * given fds when in_path/out_path are NULL. Returns the pid when wait is 0, else the status.
 */
static int run_enc(const char *conf, const char *sock, const char *cipher, const char *key,
                   const char *iv, const char *in_path, const char *out_path, int in_fd, int out_fd,
                   int wait, pid_t *pid_out)
{
    char lc[40];
    snprintf(lc, sizeof lc, "-%s", cipher);
    const char *argv[32];
    int n = 0;
    argv[n++] = openssl_bin;
    argv[n++] = "enc";
    if (conf == NULL) {
        argv[n++] = "-provider-path";
        argv[n++] = prov_dir;
        argv[n++] = "-provider";
        argv[n++] = "bitslice";
        argv[n++] = "-provider";
        argv[n++] = "default";
    }
    argv[n++] = "-e";
    argv[n++] = lc;
    argv[n++] = "-K";
    argv[n++] = key;
    argv[n++] = "-iv";
    argv[n++] = iv;
    if (in_path != NULL) {
        argv[n++] = "-in";
        argv[n++] = in_path;
    }
    if (out_path != NULL) {
        argv[n++] = "-out";
        argv[n++] = out_path;
    }
    argv[n] = NULL;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        setenv("OPENSSL_CONF", conf != NULL ? conf : "/dev/null", 1);
        unsetenv("OPENSSL_MODULES");
        if (sock != NULL)
            setenv("BITSLICE_SOCKET", sock, 1);
        else
            unsetenv("BITSLICE_SOCKET");
        /* Sanitizer builds: the system openssl needs the runtime preloaded (31-asan.sh). */
        const char *preload = getenv("BS_OPENSSL_PRELOAD");
        if (preload != NULL && *preload != 0)
            setenv("LD_PRELOAD", preload, 1);
        if (in_fd >= 0)
            dup2(in_fd, 0);
        if (out_fd >= 0)
            dup2(out_fd, 1);
        execv(openssl_bin, (char *const *)argv);
        _exit(127);
    }
    if (!wait) {
        *pid_out = pid;
        return 0;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Expected CTR output, from the core in this process. */
static void expect_ctr(const bs_block_cipher *c, const uint8_t *key, const uint8_t *iv,
                       const uint8_t *pt, uint8_t *out, size_t len)
{
    static bs_ctr_ctx x;
    CHECK(bs_ctr_set_key(&x, c, key, c->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(&x, iv, bs_ctr_iv_len(c)) == BS_OK);
    CHECK(bs_ctr_crypt(&x, out, pt, len) == BS_OK);
    bs_ctr_clear(&x);
}

typedef struct job {
    const char *name;
    const bs_block_cipher *c;
    uint8_t key[BS_KEY_MAX], iv[16];
    char khex[2 * BS_KEY_MAX + 1], ivhex[33];
} job;

static void job_init(job *j, const char *name, uint32_t seed)
{
    j->name = name;
    j->c = core_of(name);
    svc_fill(j->key, sizeof j->key, seed);
    svc_fill(j->iv, sizeof j->iv, seed + 1);
    j->iv[0] = 0; /* far from the counter wrap */
    hex(j->khex, j->key, j->c->key_len);
    hex(j->ivhex, j->iv, bs_ctr_iv_len(j->c));
}

static char pt_path[300], path_a[300], path_b[300];

/* Every CTR cipher: through the daemon = in-process = bs_ctr; the daemon served it. */
static void every_cipher(const uint8_t *pt, size_t len)
{
    uint8_t *want = (uint8_t *)malloc(len);
    CHECK(want != NULL);
    for (size_t i = 0; i < sizeof ctr_names / sizeof ctr_names[0]; i++) {
        job j;
        job_init(&j, ctr_names[i], 100 + (uint32_t)i);
        expect_ctr(j.c, j.key, j.iv, pt, want, len);

        status_snap s0 = snap();
        CHECK(run_enc(NULL, "off", j.name, j.khex, j.ivhex, pt_path, path_a, -1, -1, 1, NULL) == 0);
        status_snap s1 = snap();
        CHECK(s1.conns == s0.conns && s1.served == s0.served); /* in-process: no socket */
        CHECK(run_enc(NULL, dmn.socket, j.name, j.khex, j.ivhex, pt_path, path_b, -1, -1, 1,
                      NULL) == 0);
        status_snap s2 = snap();
        size_t na, nb;
        uint8_t *a = read_file(path_a, &na), *b = read_file(path_b, &nb);
        CHECK(na == len && nb == len);
        CHECK(memcmp(a, want, len) == 0);
        CHECK(memcmp(b, want, len) == 0);
        /* Default threshold 1 MiB: every byte after the first MiB came from the daemon. */
        CHECK(s2.conns == s1.conns + 1);
        CHECK(s2.served - s1.served >= (long long)(len - (1u << 20)));
        CHECK(s2.errors == s1.errors);
        printf("%s: %zu bytes, daemon served %lld keystream bytes, output = in-process = core\n",
               j.name, len, s2.served - s1.served);
        free(a);
        free(b);
    }
    free(want);
}

/*
 * Whether the bitslice provider offers a cipher: ctr.kat also holds ciphers that only the cores
 * have (AES-CTR, which openssl enc takes from OpenSSL's own providers, never the daemon).
 */
static int provider_offers(const char *cipher)
{
    OSSL_LIB_CTX *ctx = OSSL_LIB_CTX_new();
    CHECK(ctx != NULL);
    CHECK(OSSL_PROVIDER_set_default_search_path(ctx, prov_dir) == 1);
    OSSL_PROVIDER *p = OSSL_PROVIDER_load(ctx, "bitslice");
    CHECK(p != NULL);
    EVP_CIPHER *c = EVP_CIPHER_fetch(ctx, cipher, NULL);
    int offered = c != NULL;
    EVP_CIPHER_free(c);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(ctx);
    ERR_clear_error();
    return offered;
}

/* tests/kat/ctr.kat through openssl enc with offload-threshold = 0: every byte from the daemon. */
static void kats(const char *conf0)
{
    bs_kat_reader r;
    bs_kat k;
    int n = 0;
    long long bytes = 0;
    status_snap s0 = snap();
    CHECK(bs_kat_open(&r, bs_kat_path("ctr.kat")) == 0);
    while (bs_kat_next(&r, &k) == 1) {
        size_t kl, ivl, pl, cl;
        const char *cipher = bs_kat_text(&k, "Cipher");
        const uint8_t *key = bs_kat_bytes(&k, "Key", &kl), *iv = bs_kat_bytes(&k, "IV", &ivl);
        const uint8_t *p = bs_kat_bytes(&k, "Plaintext", &pl);
        const uint8_t *want = bs_kat_bytes(&k, "Ciphertext", &cl);
        if (bs_kat_bytes(&k, "Counter", NULL) != NULL) {
            bs_kat_free(&k); /* a whole first counter block: no openssl enc equivalent */
            continue;
        }
        CHECK(cipher != NULL && key != NULL && iv != NULL && p != NULL && want != NULL);
        CHECK(pl == cl && pl > 0);
        if (!provider_offers(cipher)) {
            bs_kat_free(&k);
            continue;
        }
        char khex[130], ivhex[130];
        hex(khex, key, kl);
        hex(ivhex, iv, ivl);
        write_file(pt_path, p, pl);
        CHECK(run_enc(conf0, NULL, cipher, khex, ivhex, pt_path, path_a, -1, -1, 1, NULL) == 0);
        size_t n_out;
        uint8_t *got = read_file(path_a, &n_out);
        CHECK(n_out == cl && memcmp(got, want, cl) == 0);
        free(got);
        bytes += (long long)pl;
        n++;
        bs_kat_free(&k);
    }
    bs_kat_close(&r);
    status_snap s1 = snap();
    CHECK(n >= 5);
    CHECK(s1.conns - s0.conns == n); /* one connection per openssl run */
    CHECK(s1.served - s0.served >= bytes);
    printf("ctr.kat: %d known answers through the daemon (offload-threshold = 0)\n", n);
}

/*
 * offload-threshold = T: a message of T - BS_CTR_AHEAD_BYTES bytes never connects; one of T
 * bytes is served. The count is of keystream asked for, in whole blocks, and an update may ask
 * for keystream ahead of it (a whole pass, or a wide core's whole batch: at most
 * BS_CTR_AHEAD_BYTES, ctr.h): below T - BS_CTR_AHEAD_BYTES nothing can reach T.
 */
static void threshold(const char *conf_t, size_t t, const uint8_t *pt)
{
    job j;
    job_init(&j, "PRESENT-128-CTR", 7);
    uint8_t *want = (uint8_t *)malloc(t);
    CHECK(want != NULL);
    expect_ctr(j.c, j.key, j.iv, pt, want, t);
    for (int at = 0; at < 2; at++) {
        size_t len = at ? t : t - BS_CTR_AHEAD_BYTES;
        write_file(pt_path, pt, len);
        status_snap s0 = snap();
        CHECK(run_enc(conf_t, NULL, j.name, j.khex, j.ivhex, pt_path, path_a, -1, -1, 1, NULL) ==
              0);
        status_snap s1 = snap();
        size_t n;
        uint8_t *got = read_file(path_a, &n);
        CHECK(n == len && memcmp(got, want, len) == 0);
        free(got);
        if (at) {
            CHECK(s1.conns == s0.conns + 1 && s1.served > s0.served);
        } else {
            CHECK(s1.conns == s0.conns && s1.served == s0.served);
        }
        printf("offload-threshold %zu: %zu bytes -> %s\n", t, len,
               at ? "daemon" : "in-process, no connection");
    }
    free(want);
}

/* No daemon on the socket, and a daemon that refuses every window: in-process, same bytes. */
static void absent_and_refused(const uint8_t *pt, size_t len)
{
    job j;
    job_init(&j, "GIFT-64-CTR", 9);
    uint8_t *want = (uint8_t *)malloc(len);
    CHECK(want != NULL);
    expect_ctr(j.c, j.key, j.iv, pt, want, len);
    write_file(pt_path, pt, len);

    char nosock[200];
    snprintf(nosock, sizeof nosock, "%s/absent.sock", dmn.dir);
    double t0 = now_s();
    CHECK(run_enc(NULL, nosock, j.name, j.khex, j.ivhex, pt_path, path_a, -1, -1, 1, NULL) == 0);
    double dt = now_s() - t0;
    size_t n;
    uint8_t *got = read_file(path_a, &n);
    CHECK(n == len && memcmp(got, want, len) == 0);
    free(got);
    printf("daemon absent: in-process, same bytes (%.2f s)\n", dt);

    /* Windows of 256 KiB are over this daemon's request limit: every KEYSTREAM is refused. */
    svc_stop(&dmn);
    const char *sets[] = {"max_request_bytes=4096", NULL};
    daemon_start(sets);
    status_snap s0 = snap();
    CHECK(run_enc(NULL, dmn.socket, j.name, j.khex, j.ivhex, pt_path, path_a, -1, -1, 1, NULL) ==
          0);
    status_snap s1 = snap();
    got = read_file(path_a, &n);
    CHECK(n == len && memcmp(got, want, len) == 0);
    free(got);
    CHECK(s1.conns == s0.conns + 1 && s1.errors > s0.errors);
    printf("daemon refusing (%lld errors): in-process, same bytes\n", s1.errors - s0.errors);
    svc_stop(&dmn);
    daemon_start(NULL);

    /* A stopped daemon accepts connections but never answers: the timeouts end every wait. */
    char conf[300], keys[400];
    snprintf(conf, sizeof conf, "%s/stalled.cnf", dmn.dir);
    snprintf(keys, sizeof keys,
             "daemon-socket = %s\noffload-threshold = 0\ndaemon-timeout-ms = 300\n"
             "daemon-connect-timeout-ms = 300\n",
             dmn.socket);
    write_conf(conf, keys);
    kill(dmn.pid, SIGSTOP);
    t0 = now_s();
    CHECK(run_enc(conf, NULL, j.name, j.khex, j.ivhex, pt_path, path_a, -1, -1, 1, NULL) == 0);
    dt = now_s() - t0;
    kill(dmn.pid, SIGCONT);
    got = read_file(path_a, &n);
    CHECK(n == len && memcmp(got, want, len) == 0);
    free(got);
    CHECK(dt < 5.0);
    printf("daemon stopped (SIGSTOP), 300 ms timeouts: in-process after %.2f s, same bytes\n", dt);
    free(want);
}

/*
 * SIGKILL in the middle of a 256 MiB openssl enc: plaintext in through a pipe, ciphertext out
 * through another, both generated and checked here piece by piece.
 */
static void killed_mid_stream(void)
{
    const size_t total = (size_t)256 << 20, piece = 1 << 20, kill_at = (size_t)64 << 20;
    job j;
    job_init(&j, "PRESENT-128-CTR", 11);
    static bs_ctr_ctx ref;
    CHECK(bs_ctr_set_key(&ref, j.c, j.key, j.c->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(&ref, j.iv, bs_ctr_iv_len(j.c)) == BS_OK);

    int to[2], from[2];
    CHECK(pipe2(to, O_CLOEXEC) == 0 && pipe2(from, O_CLOEXEC) == 0);
    pid_t pid;
    run_enc(NULL, dmn.socket, j.name, j.khex, j.ivhex, NULL, NULL, to[0], from[1], 0, &pid);
    close(to[0]);
    close(from[1]);
    fcntl(to[1], F_SETFL, O_NONBLOCK);
    signal(SIGPIPE, SIG_IGN);

    uint8_t *in = (uint8_t *)malloc(piece), *exp = (uint8_t *)malloc(piece);
    uint8_t *out = (uint8_t *)malloc(piece);
    CHECK(in != NULL && exp != NULL && out != NULL);
    size_t sent = 0, in_off = piece, recvd = 0, out_have = 0;
    uint64_t gen_seed = 0;
    uint8_t *gen = (uint8_t *)malloc(piece);
    CHECK(gen != NULL);
    long long served_before_kill = -1;
    /* Plaintext piece k is svc_fill(seed k); the expected output is made as it is read. */
    while (recvd < total) {
        struct pollfd p[2] = {{sent < total ? to[1] : -1, POLLOUT, 0}, {from[0], POLLIN, 0}};
        CHECK(poll(p, 2, 20000) > 0);
        if (sent < total && (p[0].revents & (POLLOUT | POLLERR))) {
            if (in_off == piece) {
                svc_fill(in, piece, (uint32_t)(sent / piece) + 1000);
                in_off = 0;
            }
            ssize_t w = write(to[1], in + in_off, piece - in_off);
            CHECK(w > 0 || errno == EAGAIN);
            if (w > 0) {
                in_off += (size_t)w;
                sent += (size_t)w;
                if (sent == total)
                    close(to[1]);
            }
        }
        if (p[1].revents & (POLLIN | POLLHUP)) {
            ssize_t r = read(from[0], out + out_have, piece - out_have);
            CHECK(r > 0);
            out_have += (size_t)r;
            if (out_have == piece) {
                svc_fill(gen, piece, (uint32_t)gen_seed++ + 1000);
                CHECK(bs_ctr_crypt(&ref, exp, gen, piece) == BS_OK);
                CHECK(memcmp(out, exp, piece) == 0);
                recvd += piece;
                out_have = 0;
                if (recvd >= kill_at && served_before_kill < 0) {
                    served_before_kill = snap().served;
                    svc_kill9(&dmn);
                    printf("daemon SIGKILLed after %zu MiB of output (%lld bytes served)\n",
                           recvd >> 20, served_before_kill);
                }
            }
        }
    }
    close(from[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(served_before_kill >= (long long)(kill_at - (1u << 20)));
    printf("SIGKILL mid-stream: all %zu MiB correct, openssl exit 0\n", total >> 20);
    bs_ctr_clear(&ref);
    free(in);
    free(exp);
    free(out);
    free(gen);
    /* The restart removes the stale socket and serves again. */
    daemon_start(NULL);
}

/* ---- EVP in this process ---- */

static OSSL_LIB_CTX *libctx;
static OSSL_PROVIDER *bsprov;

static void evp_load(void)
{
    setenv("BITSLICE_SOCKET", dmn.socket, 1);
    libctx = OSSL_LIB_CTX_new();
    CHECK(libctx != NULL);
    CHECK(OSSL_PROVIDER_set_default_search_path(libctx, prov_dir) == 1);
    bsprov = OSSL_PROVIDER_load(libctx, "bitslice");
    CHECK(bsprov != NULL);
}

static void evp_update(EVP_CIPHER_CTX *e, uint8_t *out, const uint8_t *in, size_t len)
{
    /* The way openssl enc feeds it: at most 4 KiB a call (here with an odd piece too). */
    while (len > 0) {
        int n = len < 4096 ? (int)len : 4096, outl = 0;
        CHECK(EVP_EncryptUpdate(e, out, &outl, in, n) == 1 && outl == n);
        out += n;
        in += n;
        len -= (size_t)n;
    }
}

static void evp_fork_and_copy(const uint8_t *pt, size_t half)
{
    job j;
    job_init(&j, "GIFT-128-CTR", 13);
    const size_t len = 2 * half;
    uint8_t *want = (uint8_t *)malloc(len), *got = (uint8_t *)malloc(len);
    CHECK(want != NULL && got != NULL);
    expect_ctr(j.c, j.key, j.iv, pt, want, len);
    EVP_CIPHER *ciph = EVP_CIPHER_fetch(libctx, j.name, NULL);
    CHECK(ciph != NULL);
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    CHECK(e != NULL && EVP_EncryptInit_ex2(e, ciph, j.key, j.iv, NULL) == 1);

    status_snap s0 = snap();
    evp_update(e, got, pt, half - 3);
    status_snap s1 = snap();
    CHECK(s1.conns == s0.conns + 1 && s1.served > s0.served);

    /* fork(): the child goes on with the same context over a connection of its own. */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        evp_update(e, got + half - 3, pt + half - 3, half + 3);
        _exit(memcmp(got, want, len) == 0 ? 0 : 1);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    status_snap s2 = snap();
    CHECK(s2.conns == s1.conns + 1 && s2.served > s1.served);
    printf("EVP fork mid-stream: the child reconnected and finished correctly\n");

    /* EVP_CIPHER_CTX_copy mid-stream: both go on from the same position. */
    EVP_CIPHER_CTX *c2 = EVP_CIPHER_CTX_new();
    CHECK(c2 != NULL && EVP_CIPHER_CTX_copy(c2, e) == 1);
    uint8_t *got2 = (uint8_t *)malloc(len);
    CHECK(got2 != NULL);
    memcpy(got2, got, half - 3);
    evp_update(e, got + half - 3, pt + half - 3, half + 3);
    evp_update(c2, got2 + half - 3, pt + half - 3, half + 3);
    CHECK(memcmp(got, want, len) == 0);
    CHECK(memcmp(got2, want, len) == 0);
    status_snap s3 = snap();
    CHECK(s3.errors == s0.errors);
    printf("EVP parent after fork and EVP_CIPHER_CTX_copy mid-stream: both correct\n");
    EVP_CIPHER_CTX_free(c2);
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_free(ciph);
    free(got2);
    free(want);
    free(got);
}

/*
 * RIJNDAEL-256-GCM through EVP: a 28-byte IV is offloaded (ciphertext and tag equal to
 * bs_gcm256 in this process; decryption through the daemon verifies); a 12-byte IV stays
 * in-process (no keystream served) with the right output.
 */
static void evp_gcm(const uint8_t *pt, size_t len, size_t cap)
{
    EVP_CIPHER *ciph = EVP_CIPHER_fetch(libctx, "RIJNDAEL-256-GCM", NULL);
    if (ciph == NULL) {
        printf("RIJNDAEL-256-GCM not built: GCM offload not tested\n");
        ERR_clear_error();
        return;
    }
    static bs_gcm256_ctx ref;
    uint8_t key[32], iv[28], aad[13], tag[32], tag_want[32];
    svc_fill(key, sizeof key, 21);
    svc_fill(iv, sizeof iv, 22);
    svc_fill(aad, sizeof aad, 23);
    uint8_t *want = (uint8_t *)malloc(cap), *got = (uint8_t *)malloc(cap);
    CHECK(want != NULL && got != NULL);
    const size_t iv_lens[] = {28, 12};
    for (size_t v = 0; v < 2; v++) {
        size_t ivl = iv_lens[v];
        CHECK(bs_gcm256_set_key(&ref, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32) == BS_OK);
        CHECK(bs_gcm256_set_iv(&ref, iv, ivl) == BS_OK);
        /* data blocks the daemon's whole-block count can serve before inc32 wraps */
        uint64_t no_wrap = ((uint64_t)1 << 32) - bs_load_be32(ref.j0 + 28) - 1;
        CHECK(bs_gcm256_aad(&ref, aad, sizeof aad) == BS_OK);
        CHECK(bs_gcm256_encrypt(&ref, want, pt, len) == BS_OK);
        CHECK(bs_gcm256_tag(&ref, tag_want, 32) == BS_OK);

        OSSL_PARAM ivp[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivl),
                            OSSL_PARAM_END};
        status_snap s0 = snap();
        EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
        int outl;
        CHECK(e != NULL && EVP_EncryptInit_ex2(e, ciph, NULL, NULL, ivp) == 1);
        CHECK(EVP_EncryptInit_ex2(e, NULL, key, iv, NULL) == 1);
        CHECK(EVP_EncryptUpdate(e, NULL, &outl, aad, (int)sizeof aad) == 1);
        evp_update(e, got, pt, len);
        CHECK(EVP_EncryptFinal_ex(e, got, &outl) == 1 && outl == 0);
        CHECK(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, 32, tag) == 1);
        status_snap s1 = snap();
        CHECK(memcmp(got, want, len) == 0);
        CHECK(memcmp(tag, tag_want, 32) == 0);

        /* Decryption through the same path, in place, and the tag verifies. */
        CHECK(EVP_DecryptInit_ex2(e, ciph, NULL, NULL, ivp) == 1);
        CHECK(EVP_DecryptInit_ex2(e, NULL, key, iv, NULL) == 1);
        CHECK(EVP_DecryptUpdate(e, NULL, &outl, aad, (int)sizeof aad) == 1);
        size_t off = 0;
        while (off < len) {
            int n = len - off < 4096 ? (int)(len - off) : 4096;
            CHECK(EVP_DecryptUpdate(e, got + off, &outl, got + off, n) == 1 && outl == n);
            off += (size_t)n;
        }
        CHECK(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_SET_TAG, 32, tag) == 1);
        CHECK(EVP_DecryptFinal_ex(e, got, &outl) == 1);
        CHECK(memcmp(got, pt, len) == 0);
        status_snap s2 = snap();
        EVP_CIPHER_CTX_free(e);
        /*
         * Any IV length: the source serves inc32 blocks until the last 4 bytes would wrap (never
         * for a 28-byte IV, whose J0 ends in 1), and the mode computes the rest in-process.
         */
        if (no_wrap >= len / 32 + 1) {
            CHECK(s1.served - s0.served >= (long long)(len - (1u << 20)));
            CHECK(s2.served - s1.served >= (long long)(len - (1u << 20)));
        } else {
            CHECK(s1.served - s0.served <= (long long)(no_wrap * 32 + (4u << 20)));
        }
        printf("RIJNDAEL-256-GCM, %zu-byte IV, %zu bytes: = bs_gcm256, tag verifies; daemon "
               "served %lld bytes\n",
               ivl, len, s2.served - s0.served);
    }

    /*
     * The daemon SIGKILLed in the middle of a message: it finishes in-process, same bytes. The
     * stream never asks for more than (depth x window = 4 MiB) ahead of the reader, so past
     * half + 4 MiB the keystream cannot have come from the daemon.
     */
    const size_t klen = (size_t)6 << 20, half = ((size_t)5 << 18) + 7;
    CHECK(klen <= cap && klen > half + ((size_t)4 << 20));
    len = klen;
    size_t ivl = 28;
    OSSL_PARAM ivp[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivl),
                        OSSL_PARAM_END};
    CHECK(bs_gcm256_set_key(&ref, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32) == BS_OK);
    CHECK(bs_gcm256_set_iv(&ref, iv, ivl) == BS_OK);
    CHECK(bs_gcm256_encrypt(&ref, want, pt, len) == BS_OK);
    CHECK(bs_gcm256_tag(&ref, tag_want, 32) == BS_OK);
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    int outl;
    CHECK(e != NULL && EVP_EncryptInit_ex2(e, ciph, key, iv, ivp) == 1);
    status_snap s0 = snap();
    evp_update(e, got, pt, half);
    status_snap s1 = snap();
    CHECK(s1.served - s0.served >= (long long)(half - (1u << 20)));
    svc_kill9(&dmn);
    evp_update(e, got + half, pt + half, len - half);
    CHECK(EVP_EncryptFinal_ex(e, got, &outl) == 1);
    CHECK(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, 32, tag) == 1);
    CHECK(memcmp(got, want, len) == 0 && memcmp(tag, tag_want, 32) == 0);
    printf("RIJNDAEL-256-GCM: daemon SIGKILLed after %zu bytes; ciphertext and tag correct\n",
           half);
    EVP_CIPHER_CTX_free(e);
    daemon_start(NULL);

    bs_gcm256_clear(&ref);
    EVP_CIPHER_free(ciph);
    free(want);
    free(got);
}

/* The context's offload decision and reason (EVP_CIPHER_CTX_get_params, utf8 pointers). */
static void offload_param(EVP_CIPHER_CTX *e, const char **what, const char **why)
{
    OSSL_PARAM ps[] = {OSSL_PARAM_utf8_ptr("bitslice-offload", (char **)what, 0),
                       OSSL_PARAM_utf8_ptr("bitslice-offload-reason", (char **)why, 0),
                       OSSL_PARAM_END};
    CHECK(EVP_CIPHER_CTX_get_params(e, ps) == 1);
    CHECK(*what != NULL && *why != NULL);
}

/*
 * One message of len bytes of cipher through a provider loaded with $BITSLICE_OFFLOAD = mode
 * and $BITSLICE_OFFLOAD_FIGURES = figures (NULL: unset): output equal to the core's, the context's
 * decision and reason (the reason must start with want_why; want_what NULL: either decision),
 * and the daemon served it exactly when the decision says so.
 */
static void offload_case_set(const char *mode, const char *figures, const char *set,
                             const char *want_what, const char *want_why, const uint8_t *pt,
                             size_t len);
static void offload_case(const char *mode, const char *figures, const char *want_what,
                         const char *want_why, const uint8_t *pt, size_t len)
{
    offload_case_set(mode, figures, NULL, want_what, want_why, pt, len);
}

/* The same, the context's own bitslice-offload param set to set (NULL: not) after its init. */
static void offload_case_set(const char *mode, const char *figures, const char *set,
                             const char *want_what, const char *want_why, const uint8_t *pt,
                             size_t len)
{
    setenv("BITSLICE_OFFLOAD", mode, 1);
    if (figures != NULL)
        setenv("BITSLICE_OFFLOAD_FIGURES", figures, 1);
    else
        unsetenv("BITSLICE_OFFLOAD_FIGURES");
    setenv("BITSLICE_SOCKET", dmn.socket, 1);
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    CHECK(lc != NULL && OSSL_PROVIDER_set_default_search_path(lc, prov_dir) == 1);
    OSSL_PROVIDER *pv = OSSL_PROVIDER_load(lc, "bitslice");
    CHECK(pv != NULL);
    job j;
    job_init(&j, "PRESENT-80-CTR", 29);
    uint8_t *want = (uint8_t *)malloc(len), *got = (uint8_t *)malloc(len);
    CHECK(want != NULL && got != NULL);
    expect_ctr(j.c, j.key, j.iv, pt, want, len);
    EVP_CIPHER *ciph = EVP_CIPHER_fetch(lc, j.name, NULL);
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    CHECK(ciph != NULL && e != NULL && EVP_EncryptInit_ex2(e, ciph, j.key, j.iv, NULL) == 1);
    const char *what = NULL, *why = NULL;
    if (set != NULL) {
        OSSL_PARAM bad[] = {OSSL_PARAM_utf8_string("bitslice-offload", (char *)"sometimes", 0),
                            OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_set_params(e, bad) == 0); /* refused, nothing changed */
        ERR_clear_error();
        OSSL_PARAM ps[] = {OSSL_PARAM_utf8_string("bitslice-offload", (char *)set, 0),
                           OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_set_params(e, ps) == 1);
    }
    const char *eff = set != NULL ? set : mode;
    offload_param(e, &what, &why);
    CHECK(strcmp(what, strcmp(eff, "never") == 0 ? "in-process" : "undecided") == 0);
    status_snap s0 = snap();
    evp_update(e, got, pt, len);
    status_snap s1 = snap();
    CHECK(memcmp(got, want, len) == 0);
    offload_param(e, &what, &why);
    printf("offload=%s figures=%s: %s (%s)\n", mode, figures != NULL ? figures : "-", what, why);
    if (want_what == NULL) /* measured figures: either, and the reason says which */
        CHECK((strcmp(what, "daemon") == 0 || strcmp(what, "in-process") == 0) &&
              strncmp(why, what, strlen(what)) == 0 && why[strlen(what)] == ':');
    else
        CHECK(strcmp(what, want_what) == 0 && strncmp(why, want_why, strlen(want_why)) == 0);
    const int daemon = strcmp(what, "daemon") == 0;
    CHECK(daemon ? s1.served > s0.served : s1.served == s0.served);
    /* RIJNDAEL-256-GCM contexts answer the same params (before any data: nothing decided). */
    EVP_CIPHER *gcm = EVP_CIPHER_fetch(lc, "RIJNDAEL-256-GCM", NULL);
    if (gcm != NULL) {
        EVP_CIPHER_CTX *g = EVP_CIPHER_CTX_new();
        uint8_t k32[32], iv28[28];
        svc_fill(k32, sizeof k32, 31);
        svc_fill(iv28, sizeof iv28, 32);
        CHECK(g != NULL && EVP_EncryptInit_ex2(g, gcm, k32, iv28, NULL) == 1);
        const char *gw = NULL, *gy = NULL;
        offload_param(g, &gw, &gy);
        CHECK(strcmp(mode, "never") == 0
                  ? strcmp(gw, "in-process") == 0 &&
                        strcmp(gy, "in-process: forced (offload=never)") == 0
                  : strcmp(gw, "undecided") == 0 && strncmp(gy, "undecided: ", 11) == 0);
        EVP_CIPHER_CTX_free(g);
        EVP_CIPHER_free(gcm);
    }
    /* never opens no connection; auto connects to ask RATE, and sends no key when it declines. */
    CHECK(strcmp(eff, "never") == 0 ? s1.conns == s0.conns : s1.conns == s0.conns + 1);
    CHECK(s1.errors == s0.errors);
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_free(ciph);
    OSSL_PROVIDER_unload(pv);
    OSSL_LIB_CTX_free(lc);
    free(want);
    free(got);
}

/*
 * Offload by cost (bsd_offload.h), decided from injected figures (nothing is timed): auto
 * offloads where the daemon path is cheaper by the margin and not otherwise, always and never
 * force it, and the decision and its reason are the context's gettable params.
 */
static void offload_rule(const uint8_t *pt, size_t len)
{
    offload_case("auto", "local=1,path=0.1,daemon=0.2,workers=0", "daemon",
                 "daemon: PRESENT-80 in-process 1.000 ns/B, through the daemon 0.200 ns/B "
                 "(this thread 0.100, device backend 0.200)",
                 pt, len);
    offload_case("auto", "local=0.24,path=0.1,daemon=0.2,workers=0", "in-process",
                 "in-process: PRESENT-80 in-process 0.240 ns/B, through the daemon 0.200 ns/B", pt,
                 len);
    offload_case("auto", "local=0.37,path=0.1,daemon=0.2,workers=4,cpus=3", "in-process",
                 "in-process: PRESENT-80 in-process 0.370 ns/B, through the daemon 0.300 ns/B "
                 "(this thread 0.100, cpu backend 0.200 with 4 workers: 0.900 ns/B of CPU on 3 "
                 "CPUs)",
                 pt, len);
    offload_case("always", "local=0.1,path=1,daemon=1,workers=0", "daemon",
                 "daemon: forced (offload=always)", pt, len);
    offload_case("never", "local=1,path=0.1,daemon=0.1,workers=0", "in-process",
                 "in-process: forced (offload=never)", pt, len);
    /* The context's own param forces it either way, whatever the provider's mode. */
    offload_case_set("auto", "local=0.1,path=1,daemon=1,workers=0", "always", "daemon",
                     "daemon: forced (offload=always)", pt, len);
    offload_case_set("never", NULL, "always", "daemon", "daemon: forced (offload=always)", pt, len);
    offload_case_set("always", NULL, "never", "in-process", "in-process: forced (offload=never)",
                     pt, len);
    offload_case_set("always", "local=1,path=0.1,daemon=0.2,workers=0", "auto", "daemon",
                     "daemon: PRESENT-80 in-process 1.000 ns/B", pt, len);
    /* Measured figures (the decision depends on the machine): either, with its reason. */
    offload_case("auto", NULL, NULL, NULL, pt, len);
    setenv("BITSLICE_OFFLOAD", "always", 1);
    unsetenv("BITSLICE_OFFLOAD_FIGURES");
    unsetenv("BITSLICE_SOCKET");
}

int main(void)
{
    openssl_bin = getenv("OPENSSL");
    prov_dir = getenv("BSPROV_DIR");
    if (openssl_bin == NULL || prov_dir == NULL || access(openssl_bin, X_OK) != 0) {
        printf("OPENSSL or BSPROV_DIR not set: skipped\n");
        return SVC_SKIP;
    }
    unsetenv("BITSLICE_SOCKET");
    svc_init(&dmn);
    daemon_start(NULL);
    snprintf(pt_path, sizeof pt_path, "%s/pt", dmn.dir);
    snprintf(path_a, sizeof path_a, "%s/a", dmn.dir);
    snprintf(path_b, sizeof path_b, "%s/b", dmn.dir);

    const size_t len = ((size_t)6 << 20) + 13;
    uint8_t *pt = (uint8_t *)malloc(len);
    CHECK(pt != NULL);
    svc_fill(pt, len, 1);
    write_file(pt_path, pt, len);
    every_cipher(pt, len);

    char conf0[300], conf_t[300], keys[400];
    snprintf(conf0, sizeof conf0, "%s/zero.cnf", dmn.dir);
    snprintf(keys, sizeof keys, "daemon-socket = %s\noffload-threshold = 0\n", dmn.socket);
    write_conf(conf0, keys);
    kats(conf0);

    const size_t t = 300000;
    snprintf(conf_t, sizeof conf_t, "%s/t.cnf", dmn.dir);
    snprintf(keys, sizeof keys, "daemon-socket = %s\noffload-threshold = %zu\n", dmn.socket, t);
    write_conf(conf_t, keys);
    threshold(conf_t, t, pt);

    absent_and_refused(pt, (size_t)3 << 20);
    killed_mid_stream();
    offload_rule(pt, (size_t)2 << 20);

    evp_load();
    evp_fork_and_copy(pt, (size_t)2 << 20);
    evp_gcm(pt, ((size_t)3 << 20) + 5, len);

    OSSL_PROVIDER_unload(bsprov);
    OSSL_LIB_CTX_free(libctx);
    free(pt);
    CHECK(svc_stop(&dmn) == 0);
    svc_cleanup(&dmn);
    return 0;
}
