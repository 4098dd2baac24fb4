/*
 * Keystream integrity (PROTOCOL.md "Integrity"; issue: a faulty daemon or GPU must never corrupt
 * or expose data). A corrupting stand-in sits between the clients and a real bitsliced: it relays
 * every frame and memfd, maps the shared memory too, and right before it forwards each KEYSTREAM
 * reply it alters the window the daemon has just written:
 *   flip   one byte of the middle block,
 *   zero   the middle half of the blocks (unwritten memory),
 *   stale  the middle half replaced by keystream of the connection's previous window (or, for
 *          the first window, of this window's first quarter): valid keystream, wrong place.
 * For each, every user-visible output is byte-identical to in-process: the prefetching stream
 * refuses the window before delivering a byte; the provider's CTR offload (bs_ctr over bsd_source)
 * equals bs_ctr in-process; `openssl enc` with RIJNDAEL-256-CTR, GIFT-64-CTR and PRESENT-80-CTR
 * equals in-process; EVP RIJNDAEL-256-GCM encryption equals bs_gcm256 and decryption of a good
 * message gives its plaintext; `bitslice seal` writes a file that opens in-process to the input and
 * shows no plaintext; `bitslice open` of a good file gives its plaintext and exits 0, and -v names
 * the true source of every chunk. The fault is counted: the clients' counters, and the daemon's
 * STATUS (the clients REPORT the mismatch through the stand-in), and the stand-in really corrupted.
 * Then the daemon's own checks, with its test hook BSD_TEST_FAULT: "unwritten" (the backend leaves
 * a block unwritten) and "skip" (the backend's stores of a block do not land: the block is put
 * back as it was before the backend ran): the window still holds the zeroes the client's move
 * left there, the daemon's digest pass counts them and refuses the job; and "wrong" (a backend
 * consistently wrong everywhere but in the first and last block: the client's blocks recomputed
 * at random positions catch it).
 *
 * Environment: BITSLICED, BITSLICE, OPENSSL, BSPROV_DIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "bsd_source.h"
#include "bsd_proto.h"
#include "bsd_stream.h"
#include "modes/ctr.h"
#include "modes/gcm256.h"
#include "svc_util.h"

enum { MODE_FLIP, MODE_ZERO, MODE_STALE, NMODES };
static const char *const mode_names[NMODES] = {"flip", "zero", "stale"};

static svc_daemon dmn;
static char proxy_path[100];
static pid_t proxy_pid = -1;
/* Windows the stand-in altered, over all its processes (shared anonymous memory). */
static uint64_t *corrupted;
static const char *openssl_bin, *prov_dir, *bitslice_bin;

/* ---- the corrupting stand-in ---- */

typedef struct pend {
    uint32_t id;
    uint32_t session;
    uint64_t off, nblocks;
} pend;

typedef struct relay {
    int mode;
    uint8_t *shm;
    size_t shm_size;
    /* OPEN_SESSION requests by id (their block length), then sessions by id. */
    uint32_t open_id[64];
    unsigned open_bl[64], nopen;
    uint32_t sess_id[64];
    unsigned sess_bl[64], nsess;
    pend ks[256];
    unsigned nks;
    uint8_t *prev; /* the previous window, as the daemon wrote it */
    size_t prev_len;
} relay;

static void send_all_fd(int fd, const uint8_t *p, size_t n, int pass_fd)
{
    size_t off = 0;
    while (off < n) {
        struct iovec iov = {(void *)(p + off), n - off};
        struct msghdr msg;
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(sizeof(int))];
        } ctl;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        if (pass_fd >= 0 && off == 0) {
            memset(&ctl, 0, sizeof ctl);
            msg.msg_control = ctl.buf;
            msg.msg_controllen = sizeof ctl.buf;
            struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
        }
        ssize_t r = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            _exit(0);
        off += (size_t)r;
    }
}

static unsigned session_bl(const relay *r, uint32_t session)
{
    for (unsigned i = 0; i < r->nsess; i++)
        if (r->sess_id[i] == session)
            return r->sess_bl[i];
    return 0;
}

/* Requests from the client: note OPEN_SESSION's block length and each KEYSTREAM's window. */
static void note_request(relay *r, const bsd_request *q)
{
    if (q->hdr.op == BSD_OP_OPEN_SESSION && r->nopen < 64) {
        const bs_block_cipher *bc = bs_block_cipher_by_name(q->u.open.cipher);
        r->open_id[r->nopen] = q->hdr.id;
        r->open_bl[r->nopen++] = bc != NULL ? bc->block_len : 0;
    } else if (q->hdr.op == BSD_OP_KEYSTREAM && r->nks < 256) {
        pend *p = &r->ks[r->nks++];
        p->id = q->hdr.id;
        p->session = q->u.keystream.session;
        p->off = q->u.keystream.shm_offset;
        p->nblocks = q->u.keystream.nblocks;
    }
}

/* The daemon's window w of nblocks blocks of bl bytes, altered before the client sees it. */
static void corrupt(relay *r, uint8_t *w, uint64_t nblocks, unsigned bl)
{
    const size_t len = (size_t)(nblocks * bl);
    uint8_t *save = (uint8_t *)malloc(len);
    CHECK(save != NULL);
    memcpy(save, w, len);
    /* The middle half: blocks [n/4, 3n/4), q bytes a quarter. */
    const size_t q = (size_t)(nblocks / 4) * bl;
    if (r->mode == MODE_FLIP) {
        w[(size_t)(nblocks / 2) * bl + 1] ^= 0x04;
    } else if (r->mode == MODE_ZERO) {
        memset(w + q, 0, 2 * q);
    } else if (r->prev != NULL && r->prev_len >= 3 * q) {
        memcpy(w + q, r->prev + q, 2 * q);
    } else {
        memcpy(w + q, w, q);
        memcpy(w + 2 * q, w, q);
    }
    free(r->prev);
    r->prev = save;
    r->prev_len = len;
    __atomic_add_fetch(corrupted, 1, __ATOMIC_RELAXED);
}

/* Replies from the daemon: sessions, and the KEYSTREAM windows to alter. */
static void note_reply(relay *r, const bsd_hdr *h, const uint8_t *payload)
{
    if (h->op == (BSD_OP_OPEN_SESSION | BSD_OP_REPLY)) {
        bsd_open_rep o;
        for (unsigned i = 0; i < r->nopen; i++)
            if (r->open_id[i] == h->id && bsd_open_rep_decode(payload, h->len, &o) == BSD_OK &&
                r->nsess < 64) {
                r->sess_id[r->nsess] = o.session;
                r->sess_bl[r->nsess++] = r->open_bl[i];
            }
        return;
    }
    if (h->op != (BSD_OP_KEYSTREAM | BSD_OP_REPLY) && h->op != (BSD_OP_ERROR | BSD_OP_REPLY))
        return;
    for (unsigned i = 0; i < r->nks; i++) {
        if (r->ks[i].id != h->id)
            continue;
        pend p = r->ks[i];
        r->ks[i] = r->ks[--r->nks];
        unsigned bl = session_bl(r, p.session);
        if (h->op == (BSD_OP_KEYSTREAM | BSD_OP_REPLY) && bl != 0 && p.nblocks >= 8 &&
            r->shm != NULL && p.off + p.nblocks * bl <= r->shm_size)
            corrupt(r, r->shm + p.off, p.nblocks, bl);
        return;
    }
}

static void serve(int cfd, int mode)
{
    int dfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", dmn.socket);
    if (dfd < 0 || connect(dfd, (struct sockaddr *)&sa, sizeof sa) != 0)
        _exit(0);
    static relay r;
    memset(&r, 0, sizeof r);
    r.mode = mode;
    static uint8_t cin[1 << 16], din[1 << 16];
    size_t clen = 0, dlen = 0;
    for (;;) {
        struct pollfd pf[2] = {{cfd, POLLIN, 0}, {dfd, POLLIN, 0}};
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            _exit(0);
        }
        if (pf[0].revents) {
            union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(4 * sizeof(int))];
            } ctl;
            struct iovec iov = {cin + clen, sizeof cin - clen};
            struct msghdr msg;
            memset(&msg, 0, sizeof msg);
            msg.msg_iov = &iov;
            msg.msg_iovlen = 1;
            msg.msg_control = ctl.buf;
            msg.msg_controllen = sizeof ctl.buf;
            ssize_t n = recvmsg(cfd, &msg, MSG_CMSG_CLOEXEC);
            if (n <= 0)
                _exit(0);
            int passed = -1;
            for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm))
                if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
                    memcpy(&passed, CMSG_DATA(cm), sizeof passed);
            if (passed >= 0) {
                struct stat st;
                if (r.shm != NULL)
                    munmap(r.shm, r.shm_size);
                r.shm = NULL;
                if (fstat(passed, &st) == 0 && st.st_size > 0) {
                    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                                   passed, 0);
                    if (m != MAP_FAILED) {
                        r.shm = (uint8_t *)m;
                        r.shm_size = (size_t)st.st_size;
                    }
                }
            }
            send_all_fd(dfd, cin + clen, (size_t)n, passed);
            if (passed >= 0)
                close(passed);
            clen += (size_t)n;
            for (;;) {
                bsd_request q;
                size_t used = 0;
                memset(&q, 0, sizeof q);
                int d = bsd_request_decode(cin, clen, &q, &used);
                if (d == BSD_NEED_MORE)
                    break;
                if (d != BSD_OK) {
                    clen = 0; /* the daemon closes; nothing more to follow */
                    break;
                }
                note_request(&r, &q);
                memmove(cin, cin + used, clen - used);
                clen -= used;
            }
        }
        if (pf[1].revents) {
            ssize_t n = recv(dfd, din + dlen, sizeof din - dlen, 0);
            if (n <= 0)
                _exit(0);
            dlen += (size_t)n;
            /* Whole frames only: a window is altered before its reply goes on. */
            for (;;) {
                bsd_hdr h;
                if (bsd_hdr_decode(din, dlen, BSD_MAX_REPLY_PAYLOAD, &h) != BSD_OK ||
                    dlen < BSD_HDR_LEN + h.len)
                    break;
                note_reply(&r, &h, din + BSD_HDR_LEN);
                send_all_fd(cfd, din, BSD_HDR_LEN + h.len, -1);
                memmove(din, din + BSD_HDR_LEN + h.len, dlen - BSD_HDR_LEN - h.len);
                dlen -= BSD_HDR_LEN + h.len;
            }
        }
    }
}

static void proxy_start(int mode)
{
    snprintf(proxy_path, sizeof proxy_path, "%s/proxy.sock", dmn.dir);
    unlink(proxy_path);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(l >= 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", proxy_path);
    CHECK(bind(l, (struct sockaddr *)&sa, sizeof sa) == 0);
    CHECK(listen(l, 64) == 0);
    proxy_pid = fork();
    CHECK(proxy_pid >= 0);
    if (proxy_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGCHLD, SIG_IGN);
        for (;;) {
            int c = accept(l, NULL, NULL);
            if (c < 0)
                continue;
            if (fork() == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(l);
                serve(c, mode);
                _exit(0);
            }
            close(c);
        }
    }
    close(l);
}

static void proxy_stop(void)
{
    kill(proxy_pid, SIGKILL);
    waitpid(proxy_pid, NULL, 0);
    unlink(proxy_path);
}

/* ---- helpers ---- */

static long long status_of(const char *key)
{
    static char text[16384];
    CHECK(svc_status(&dmn, text, sizeof text) == 0);
    return svc_status_value(text, key);
}

static long long client_reports(void)
{
    return status_of("integrity.client_digest_mismatches") +
           status_of("integrity.client_spot_mismatches");
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && fwrite(p, 1, n, f) == n && fclose(f) == 0);
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
    CHECK(p != NULL && (len == 0 || fread(p, 1, (size_t)len, f) == (size_t)len));
    fclose(f);
    *n = (size_t)len;
    return p;
}

/* Runs argv with the environment changes given ("K=V", or "K" to unset); stderr to err_path. */
static int run(const char *const *argv, const char *const *env, const char *err_path)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        for (int i = 0; env != NULL && env[i] != NULL; i++) {
            char kv[512];
            snprintf(kv, sizeof kv, "%s", env[i]);
            char *eq = strchr(kv, '=');
            if (eq == NULL) {
                unsetenv(kv);
            } else {
                *eq = 0;
                setenv(kv, eq + 1, 1);
            }
        }
        const char *preload = getenv("BS_OPENSSL_PRELOAD");
        if (preload != NULL && *preload != 0 && argv[0] == openssl_bin)
            setenv("LD_PRELOAD", preload, 1);
        int fd =
            open(err_path != NULL ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            dup2(fd, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Runs fn in a child (its own back-off state, its own provider), which must exit 0. */
static void in_child(void (*fn)(const char *sock), const char *sock)
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        fn(sock);
        fflush(stdout);
        _exit(0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Text whose sentences would show in a "ciphertext" made with unwritten keystream. */
static uint8_t *sentences(size_t len)
{
    uint8_t *p = (uint8_t *)malloc(len);
    CHECK(p != NULL);
    size_t off = 0;
    for (unsigned i = 0; off < len; i++) {
        char s[80];
        int n =
            snprintf(s, sizeof s, "Sentence %07u: the plaintext must never reach the disk.\n", i);
        size_t k = len - off < (size_t)n ? len - off : (size_t)n;
        memcpy(p + off, s, k);
        off += k;
    }
    return p;
}

static size_t count_sentences(const uint8_t *p, size_t n)
{
    static const char needle[] = ": the plaintext must never reach the disk.";
    size_t hits = 0;
    for (size_t i = 0; i + sizeof needle - 1 <= n; i++)
        if (p[i] == ':' && memcmp(p + i, needle, sizeof needle - 1) == 0)
            hits++;
    return hits;
}

static char dir_file[8][300];
static uint8_t *pt;
static size_t pt_len = ((size_t)3 << 20) + 4097;

/* ---- the clients, in this process (run in children) ---- */

/* 1 where the client itself must find the fault (0: the daemon refuses the window first). */
static int client_detects = 1;

static void stream_refuses(const char *sock)
{
    const bs_block_cipher *bc = bs_block_cipher_by_name("RIJNDAEL-256");
    if (bc == NULL)
        return;
    uint8_t key[BS_KEY_MAX], ctr[32] = {0}, out[65536];
    svc_fill(key, sizeof key, 1);
    bsd_stream_opts so = {sock, 1000, 5000, 65536, 2, BSD_OFFLOAD_ALWAYS, NULL};
    bsd_stream *s = NULL;
    uint64_t before = bsd_stream_mismatches();
    CHECK(bsd_stream_open(&so, bc, key, bc->key_len, ctr, &s) == 0);
    CHECK(bsd_stream_read(s, svc_schedule(bc, key), out, sizeof out) == -EBADMSG);
    CHECK(bsd_stream_position(s) == 0);
    CHECK(bsd_stream_mismatches() == before + (uint64_t)client_detects);
    bsd_stream_close(s);
}

static void ctr_same_bytes(const char *sock)
{
    const bs_block_cipher *cs[16];
    size_t nc = svc_ciphers(cs, 16);
    CHECK(nc > 0);
    /* The first cipher meets the fault; the back-off then keeps later contexts in-process. */
    for (size_t i = 0; i < nc; i++) {
        const bs_block_cipher *bc = cs[i];
        uint8_t key[BS_KEY_MAX], iv[32] = {0};
        svc_fill(key, sizeof key, 2 + (uint32_t)i);
        svc_fill(iv, bs_ctr_iv_len(bc), 3);
        iv[0] = 0;
        bsd_source_opts o = {sock, 0, 1000, 5000, 65536, 3, BSD_OFFLOAD_ALWAYS};
        bs_keystream_source *src = bsd_source_new(&o);
        static bs_ctr_ctx off_ctx;
        bs_ctr_ctx *off = &off_ctx;
        CHECK(src != NULL);
        bs_ctr_set_source(off, src);
        CHECK(bs_ctr_set_key(off, bc, key, bc->key_len) == BS_OK);
        CHECK(bs_ctr_set_iv(off, iv, bs_ctr_iv_len(bc)) == BS_OK);
        static bs_ctr_ctx ref;
        CHECK(bs_ctr_set_key(&ref, bc, key, bc->key_len) == BS_OK);
        CHECK(bs_ctr_set_iv(&ref, iv, bs_ctr_iv_len(bc)) == BS_OK);
        uint8_t *a = (uint8_t *)malloc(pt_len), *b = (uint8_t *)malloc(pt_len);
        CHECK(a != NULL && b != NULL);
        for (size_t at = 0; at < pt_len; at += 4096) {
            size_t n = pt_len - at < 4096 ? pt_len - at : 4096;
            CHECK(bs_ctr_crypt(off, a + at, pt + at, n) == BS_OK);
        }
        CHECK(bs_ctr_crypt(&ref, b, pt, pt_len) == BS_OK);
        CHECK(memcmp(a, b, pt_len) == 0);
        /* Later contexts skip the daemon while the back-off lasts (1 s: it may run out). */
        int why = bsd_source_fallback_reason(src);
        CHECK(why == -EBADMSG || (i > 0 && why == -EAGAIN));
        if (i == 0)
            CHECK(bsd_source_backoff_ms() > 0);
        bs_ctr_clear(off);
        src->ops->free(src);
        bs_ctr_clear(&ref);
        free(a);
        free(b);
    }
}

static OSSL_LIB_CTX *evp_load(const char *sock)
{
    setenv("BITSLICE_SOCKET", sock, 1);
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    CHECK(lc != NULL);
    CHECK(OSSL_PROVIDER_set_default_search_path(lc, prov_dir) == 1);
    CHECK(OSSL_PROVIDER_load(lc, "bitslice") != NULL);
    return lc;
}

static const uint8_t gcm_aad[] = "integrity";

static void gcm_reference(const uint8_t *key, const uint8_t *iv, uint8_t *ct, uint8_t *tag)
{
    static bs_gcm256_ctx ref;
    CHECK(bs_gcm256_set_key(&ref, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32) == BS_OK);
    CHECK(bs_gcm256_set_iv(&ref, iv, 28) == BS_OK);
    CHECK(bs_gcm256_aad(&ref, gcm_aad, sizeof gcm_aad) == BS_OK);
    CHECK(bs_gcm256_encrypt(&ref, ct, pt, pt_len) == BS_OK);
    CHECK(bs_gcm256_tag(&ref, tag, 32) == BS_OK);
    bs_gcm256_clear(&ref);
}

static void gcm_common(const char *sock, int decrypt)
{
    OSSL_LIB_CTX *lc = evp_load(sock);
    EVP_CIPHER *ciph = EVP_CIPHER_fetch(lc, "RIJNDAEL-256-GCM", NULL);
    CHECK(ciph != NULL);
    uint8_t key[BS_KEY_MAX], iv[28], tag_want[32], tag[32];
    svc_fill(key, sizeof key, 21);
    svc_fill(iv, sizeof iv, 22);
    uint8_t *want = (uint8_t *)malloc(pt_len), *got = (uint8_t *)malloc(pt_len);
    CHECK(want != NULL && got != NULL);
    gcm_reference(key, iv, want, tag_want);
    size_t ivl = sizeof iv;
    OSSL_PARAM ivp[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivl),
                        OSSL_PARAM_END};
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    CHECK(e != NULL);
    int outl = 0;
    if (!decrypt) {
        CHECK(EVP_EncryptInit_ex2(e, ciph, key, iv, ivp) == 1);
        CHECK(EVP_EncryptUpdate(e, NULL, &outl, gcm_aad, (int)sizeof gcm_aad) == 1);
        for (size_t off = 0; off < pt_len; off += 4096) {
            int n = pt_len - off < 4096 ? (int)(pt_len - off) : 4096;
            CHECK(EVP_EncryptUpdate(e, got + off, &outl, pt + off, n) == 1 && outl == n);
        }
        CHECK(EVP_EncryptFinal_ex(e, got, &outl) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, 32, tag) == 1);
        CHECK(memcmp(got, want, pt_len) == 0);
        CHECK(memcmp(tag, tag_want, 32) == 0);
    } else {
        CHECK(EVP_DecryptInit_ex2(e, ciph, key, iv, ivp) == 1);
        CHECK(EVP_DecryptUpdate(e, NULL, &outl, gcm_aad, (int)sizeof gcm_aad) == 1);
        for (size_t off = 0; off < pt_len; off += 4096) {
            int n = pt_len - off < 4096 ? (int)(pt_len - off) : 4096;
            CHECK(EVP_DecryptUpdate(e, got + off, &outl, want + off, n) == 1 && outl == n);
        }
        CHECK(EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_SET_TAG, 32, tag_want) == 1);
        CHECK(EVP_DecryptFinal_ex(e, got, &outl) == 1);
        CHECK(memcmp(got, pt, pt_len) == 0);
    }
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_free(ciph);
    OSSL_LIB_CTX_free(lc);
    free(want);
    free(got);
}

static void gcm_encrypt(const char *sock)
{
    gcm_common(sock, 0);
}

static void gcm_decrypt(const char *sock)
{
    gcm_common(sock, 1);
}

/* ---- the programs ---- */

static const char *const enc_ciphers[] = {"RIJNDAEL-256-CTR", "GIFT-64-CTR", "PRESENT-80-CTR"};

static int enc(const char *cipher, const char *sock, const char *out)
{
    char lc[40], khex[65], ivhex[33];
    snprintf(lc, sizeof lc, "-%s", cipher);
    uint8_t key[BS_KEY_MAX], iv[16];
    svc_fill(key, sizeof key, 31);
    svc_fill(iv, sizeof iv, 32);
    iv[0] = 0;
    char core[32];
    snprintf(core, sizeof core, "%.*s", (int)(strlen(cipher) - 4), cipher);
    const bs_block_cipher *bc = bs_block_cipher_by_name(core);
    CHECK(bc != NULL);
    for (size_t i = 0; i < bc->key_len; i++)
        sprintf(khex + 2 * i, "%02x", key[i]);
    for (size_t i = 0; i < bs_ctr_iv_len(bc); i++)
        sprintf(ivhex + 2 * i, "%02x", iv[i]);
    char sockenv[200];
    snprintf(sockenv, sizeof sockenv, "BITSLICE_SOCKET=%s", sock);
    const char *env[] = {"OPENSSL_CONF=/dev/null", "OPENSSL_MODULES", sockenv, NULL};
    const char *argv[] = {openssl_bin, "enc",       "-provider-path",
                          prov_dir,    "-provider", "bitslice",
                          "-provider", "default",   "-e",
                          lc,          "-K",        khex,
                          "-iv",       ivhex,       "-in",
                          dir_file[0], "-out",      out,
                          NULL};
    return run(argv, env, NULL);
}

static void openssl_enc_same(int mode)
{
    for (size_t i = 0; i < sizeof enc_ciphers / sizeof enc_ciphers[0]; i++) {
        char core[32];
        snprintf(core, sizeof core, "%.*s", (int)(strlen(enc_ciphers[i]) - 4), enc_ciphers[i]);
        if (bs_block_cipher_by_name(core) == NULL)
            continue;
        uint64_t c0 = __atomic_load_n(corrupted, __ATOMIC_RELAXED);
        long long r0 = client_reports();
        CHECK(enc(enc_ciphers[i], "off", dir_file[1]) == 0);
        CHECK(enc(enc_ciphers[i], proxy_path, dir_file[2]) == 0);
        size_t na, nb;
        uint8_t *a = read_file(dir_file[1], &na), *b = read_file(dir_file[2], &nb);
        CHECK(na == pt_len && nb == pt_len && memcmp(a, b, na) == 0);
        CHECK(count_sentences(b, nb) == 0);
        CHECK(__atomic_load_n(corrupted, __ATOMIC_RELAXED) > c0);
        CHECK(client_reports() > r0);
        printf("%s: openssl enc %s through the stand-in = in-process; fault reported\n",
               mode_names[mode], enc_ciphers[i]);
        free(a);
        free(b);
    }
}

static int bitslice(const char *cmd, const char *sock, const char *in, const char *out,
                    const char *err_path)
{
    const char *argv[16];
    int n = 0;
    argv[n++] = bitslice_bin;
    argv[n++] = cmd;
    argv[n++] = "-q";
    argv[n++] = "-v";
    if (sock != NULL) {
        argv[n++] = "--socket";
        argv[n++] = sock;
    } else {
        argv[n++] = "--no-daemon";
    }
    argv[n++] = "-k";
    argv[n++] = dir_file[3];
    if (strcmp(cmd, "seal") == 0) {
        argv[n++] = "--chunk-log2";
        argv[n++] = "16";
    }
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n++] = in;
    argv[n] = NULL;
    unlink(out);
    int rc = run(argv, NULL, err_path);
    if (rc != 0 && err_path != NULL) {
        size_t n;
        char *t = (char *)read_file(err_path, &n);
        fprintf(stderr, "bitslice %s exited %d; it said:\n%.*s", cmd, rc, (int)n, t);
        free(t);
    }
    return rc;
}

/* The -v lines name a source for every chunk: no chunk is said to come from the daemon. */
static void sources_in_process(const char *err_path, size_t nchunks)
{
    size_t n;
    char *t = (char *)read_file(err_path, &n);
    t[n] = 0;
    CHECK(strstr(t, "failed the in-process check") != NULL);
    CHECK(strstr(t, ": daemon:") == NULL);
    /* Runs cover 0..nchunks-1: the last line ends with its last chunk. */
    char want[64];
    snprintf(want, sizeof want, "-%zu: in-process", nchunks - 1);
    if (strstr(t, want) == NULL) {
        fprintf(stderr, "bitslice -v said:\n%s", t);
        CHECK(0);
    }
    free(t);
}

static void seal_open_same(int mode)
{
    const size_t nchunks = (pt_len + 65535) / 65536;
    uint64_t c0 = __atomic_load_n(corrupted, __ATOMIC_RELAXED);
    long long r0 = client_reports();
    CHECK(bitslice("seal", proxy_path, dir_file[0], dir_file[4], dir_file[7]) == 0);
    sources_in_process(dir_file[7], nchunks);
    size_t n;
    uint8_t *sealed = read_file(dir_file[4], &n);
    CHECK(count_sentences(sealed, n) == 0);
    free(sealed);
    CHECK(bitslice("open", NULL, dir_file[4], dir_file[5], NULL) == 0);
    uint8_t *back = read_file(dir_file[5], &n);
    CHECK(n == pt_len && memcmp(back, pt, n) == 0);
    free(back);
    printf("%s: bitslice seal through the stand-in: opens in-process to the input, no plaintext, "
           "-v names in-process\n",
           mode_names[mode]);
    /* A good file (sealed in-process) opened through the stand-in. */
    CHECK(bitslice("seal", NULL, dir_file[0], dir_file[4], NULL) == 0);
    CHECK(bitslice("open", proxy_path, dir_file[4], dir_file[5], dir_file[7]) == 0);
    sources_in_process(dir_file[7], nchunks);
    back = read_file(dir_file[5], &n);
    CHECK(n == pt_len && memcmp(back, pt, n) == 0);
    free(back);
    CHECK(__atomic_load_n(corrupted, __ATOMIC_RELAXED) > c0);
    CHECK(client_reports() >= r0 + 2);
    printf("%s: bitslice open through the stand-in: the plaintext, exit 0; faults reported\n",
           mode_names[mode]);
}

/* ---- the daemon's own checks (BSD_TEST_FAULT) ---- */

static void daemon_fault(const char *fault)
{
    svc_stop(&dmn);
    setenv("BSD_TEST_FAULT", fault, 1);
    svc_start(&dmn, NULL, NULL);
    unsetenv("BSD_TEST_FAULT");
    long long unwritten0 = status_of("integrity.unwritten_jobs");
    long long spot0 = status_of("integrity.client_spot_mismatches");
    client_detects = strcmp(fault, "wrong") == 0;
    in_child(stream_refuses, dmn.socket);
    in_child(ctr_same_bytes, dmn.socket);
    CHECK(enc("RIJNDAEL-256-CTR", "off", dir_file[1]) == 0);
    CHECK(enc("RIJNDAEL-256-CTR", dmn.socket, dir_file[2]) == 0);
    size_t na, nb;
    uint8_t *a = read_file(dir_file[1], &na), *b = read_file(dir_file[2], &nb);
    CHECK(na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);
    CHECK(bitslice("open", dmn.socket, dir_file[4], dir_file[5], NULL) == 0);
    b = read_file(dir_file[5], &nb);
    CHECK(nb == pt_len && memcmp(b, pt, nb) == 0);
    free(b);
    if (!client_detects) {
        /*
         * The daemon itself found the zero the client's move had left in the window (no store
         * of the backend replaced it) and refused: the clients never saw the window.
         */
        CHECK(status_of("integrity.unwritten_jobs") > unwritten0);
        printf("daemon fault '%s': unwritten words found by the daemon's zero count, job "
               "refused, output = in-process (integrity.unwritten_jobs=%lld)\n",
               fault, status_of("integrity.unwritten_jobs"));
    } else {
        CHECK(status_of("integrity.client_spot_mismatches") > spot0);
        printf("daemon fault 'wrong': random blocks recomputed in-process caught it, output = "
               "in-process (integrity.client_spot_mismatches=%lld)\n",
               status_of("integrity.client_spot_mismatches"));
    }
}

int main(void)
{
    openssl_bin = getenv("OPENSSL");
    prov_dir = getenv("BSPROV_DIR");
    bitslice_bin = getenv("BITSLICE");
    CHECK(openssl_bin != NULL && prov_dir != NULL && bitslice_bin != NULL);
    if (bs_block_cipher_by_name("RIJNDAEL-256") == NULL) {
        printf("RIJNDAEL-256 not built: skipped\n");
        return SVC_SKIP;
    }
    corrupted = (uint64_t *)mmap(NULL, sizeof *corrupted, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(corrupted != MAP_FAILED);
    svc_init(&dmn);
    svc_start(&dmn, NULL, NULL);
    const char *names[8] = {"pt", "a", "b", "key", "sealed", "back", "unused", "err"};
    for (int i = 0; i < 8; i++)
        snprintf(dir_file[i], sizeof dir_file[i], "%s/%s", dmn.dir, names[i]);
    pt = sentences(pt_len);
    write_file(dir_file[0], pt, pt_len);
    uint8_t key[32]; /* a sealed-file key: 32 raw bytes */
    svc_fill(key, sizeof key, 40);
    write_file(dir_file[3], key, sizeof key);

    for (int mode = 0; mode < NMODES; mode++) {
        proxy_start(mode);
        long long r0 = client_reports();
        in_child(stream_refuses, proxy_path);
        in_child(ctr_same_bytes, proxy_path);
        CHECK(client_reports() >= r0 + 2);
        printf("%s: the stream refuses the window before a byte; bs_ctr over the daemon source = "
               "bs_ctr in-process; reported\n",
               mode_names[mode]);
        openssl_enc_same(mode);
        /* The provider's client REPORTs through the stand-in: not a silent in-process run. */
        r0 = client_reports();
        in_child(gcm_encrypt, proxy_path);
        CHECK(client_reports() > r0);
        r0 = client_reports();
        in_child(gcm_decrypt, proxy_path);
        CHECK(client_reports() > r0);
        printf("%s: EVP RIJNDAEL-256-GCM through the stand-in: ciphertext and tag = bs_gcm256, "
               "a good message decrypts and verifies\n",
               mode_names[mode]);
        seal_open_same(mode);
        proxy_stop();
    }
    daemon_fault("unwritten");
    daemon_fault("skip");
    daemon_fault("wrong");
    svc_stop(&dmn);
    svc_cleanup(&dmn);
    free(pt);
    munmap(corrupted, sizeof *corrupted);
    return 0;
}
