/*
 * bitslice seal / open (docs/stream-format.md). Output goes to a temporary file beside the
 * destination (symlinks followed) and is renamed only when everything succeeded ("-", a FIFO or
 * a device is written in place instead, verified chunks only); `open` writes a chunk's plaintext
 * only after that chunk's tag verified. A failure it sees (or SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * removes the temporary file; a SIGKILL or a crash during `open` cannot, and leaves OUT.tmp-XXXXXX
 * (mode 0600) holding the chunks verified so far.
 * An existing regular output is replaced only with --force, and never when it is the input
 * itself (the rename would destroy what is being read).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bs_cli.h"
#include "bs_kdf.h"
#include "bs_keysrc.h"
#include "bs_num.h"
#include "bs_opt.h"
#include "bs_pipe.h"
#include "bs_progress.h"
#include "bs_stream_format.h"
#include "bsd_client.h"

#ifndef BS_VERSION
#define BS_VERSION "unknown"
#endif

/* --threads: its bound, and the most the default (one per online CPU) takes. */
#define BSCLI_THREADS_MAX 64
#define BSCLI_THREADS_DEFAULT_MAX 16
/* The most the default worker count lets the chunk buffers take. */
#define BSCLI_BUFFERS_DEFAULT_MAX ((size_t)256 << 20)

static char tmp_path[4096];
static char out_path[4096]; /* what tmp_path is renamed to (symlinks followed) */

static void on_fatal_signal(int sig)
{
    if (tmp_path[0] != 0)
        unlink(tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

typedef struct opts {
    const char *in, *out, *key_file, *pass_file, *socket;
    int passphrase, no_daemon, quiet, verbose, force;
    unsigned chunk_log2, scrypt_log_n;
    unsigned threads; /* chunk workers; 0: one per online CPU */
} opts;

static void usage(FILE *f, const char *cmd)
{
    char sock[108];
    bsd_client_default_socket(sock, sizeof sock);
    fprintf(f,
            "usage: bitslice %s (-k KEYFILE | -p | --passphrase-file FILE) -o OUTPUT [-f] [INPUT]\n"
            "%s"
            "  INPUT                    default, or '-': standard input\n"
            "  -k, --key-file FILE      32 raw bytes or 64 hex digits (bitslice keygen)\n"
            "  -p, --passphrase         ask on the terminal (scrypt)\n"
            "      --passphrase-file F  first line of F is the passphrase\n"
            "  -o, --output FILE        a regular file is written via a temporary file renamed at\n"
            "                           the end; -, a FIFO or a device is written in place%s\n"
            "  -f, --force              replace an existing OUTPUT (never the INPUT itself)%s\n"
            "      --no-daemon          compute in-process only\n"
            "      --socket PATH        bitsliced socket (default %s)\n"
            "      --threads N          chunks sealed or opened at once, 1..%d (default: one\n"
            "                           per CPU, at most %d and 256 MiB of buffers)\n"
            "  -q, --quiet              no progress bar\n"
            "  -v, --verbose            say which backend served the keystream\n"
            "%s",
            cmd,
            cmd[0] == 's' ? "Encrypts INPUT with RIJNDAEL-256-GCM in authenticated chunks.\n"
                          : "Decrypts and verifies a sealed file.\n",
            cmd[0] == 's' ? "" : "\n                           (each chunk once it verified)",
            cmd[0] == 's' ? ";\n                           with seal, also write to a terminal"
                          : "",
            sock, BSCLI_THREADS_MAX, BSCLI_THREADS_DEFAULT_MAX,
            cmd[0] == 's'
                ? "      --chunk-log2 N       chunk size 2^N bytes (10..24, default 20: 1 MiB)\n"
                  "      --scrypt-log-n N     scrypt cost N = 2^N (10..20, default 16)\n"
                : "");
}

static void usage_error(const char *cmd, const char *what, const char *arg)
{
    fprintf(stderr, "bitslice %s: %s%s%s%s\nRun 'bitslice %s --help' for the options.\n", cmd, what,
            arg != NULL ? " '" : "", arg != NULL ? arg : "", arg != NULL ? "'" : "", cmd);
}

static int parse(int argc, char **argv, opts *o, const char *cmd)
{
    static const struct option lo[] = {
        {"key-file", required_argument, 0, 'k'},
        {"passphrase", no_argument, 0, 'p'},
        {"passphrase-file", required_argument, 0, 'P'},
        {"output", required_argument, 0, 'o'},
        {"no-daemon", no_argument, 0, 'N'},
        {"socket", required_argument, 0, 'S'},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"chunk-log2", required_argument, 0, 'C'},
        {"scrypt-log-n", required_argument, 0, 'L'},
        {"threads", required_argument, 0, 'T'},
        {"force", no_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->chunk_log2 = BSF_CHUNK_LOG2_DEFAULT;
    o->scrypt_log_n = 16;
    int c;
    optind = 1;
    opterr = 0; /* our own messages, with the command's name */
    while ((c = getopt_long(argc, argv, ":k:po:fqvhV", lo, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout, cmd);
            return 1;
        case 'f':
            o->force = 1;
            break;
        case 'V':
            printf("bitslice %s\n", BS_VERSION);
            return 1;
        case 'k':
            o->key_file = optarg;
            break;
        case 'p':
            o->passphrase = 1;
            break;
        case 'P':
            o->pass_file = optarg;
            break;
        case 'o':
            o->out = optarg;
            break;
        case 'N':
            o->no_daemon = 1;
            break;
        case 'S':
            o->socket = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'C':
            if (bs_parse_uint(optarg, BSF_CHUNK_LOG2_MIN, BSF_CHUNK_LOG2_MAX, &o->chunk_log2) !=
                0) {
                fprintf(stderr, "bitslice %s: --chunk-log2 wants %d..%d, got '%s'\n", cmd,
                        BSF_CHUNK_LOG2_MIN, BSF_CHUNK_LOG2_MAX, optarg);
                return -1;
            }
            break;
        case 'T':
            if (bs_parse_uint(optarg, 1, BSCLI_THREADS_MAX, &o->threads) != 0) {
                fprintf(stderr, "bitslice %s: --threads wants 1..%d, got '%s'\n", cmd,
                        BSCLI_THREADS_MAX, optarg);
                return -1;
            }
            break;
        case 'L':
            if (bs_parse_uint(optarg, BSF_SCRYPT_LOG_N_MIN, BSF_SCRYPT_LOG_N_MAX,
                              &o->scrypt_log_n) != 0) {
                fprintf(stderr, "bitslice %s: --scrypt-log-n wants %d..%d, got '%s'\n", cmd,
                        BSF_SCRYPT_LOG_N_MIN, BSF_SCRYPT_LOG_N_MAX, optarg);
                return -1;
            }
            break;
        default: /* '?' unknown, ':' missing argument */
            bs_opt_error(cmd[0] == 's' ? "bitslice seal" : "bitslice open",
                         cmd[0] == 's' ? "bitslice seal" : "bitslice open", c, argv);
            return -1;
        }
    }
    if (optind < argc)
        o->in = argv[optind++];
    int nkeys = (o->key_file != NULL) + o->passphrase + (o->pass_file != NULL);
    if (optind != argc) {
        usage_error(cmd, "one INPUT at most; unexpected", argv[optind]);
        return -1;
    }
    if (o->out == NULL) {
        usage_error(cmd, "-o OUTPUT is required ('-o -': standard output)", NULL);
        return -1;
    }
    if (nkeys != 1) {
        usage_error(cmd, "give exactly one of -k KEYFILE, -p, --passphrase-file FILE", NULL);
        return -1;
    }
    return 0;
}

/* ---- files ---- */

typedef struct io {
    int in_fd;
    FILE *out;
    int tmp_fd;
    uint64_t in_size; /* 0 when unknown */
    int in_regular;
    int direct; /* the output is not a regular file: written in place, no temporary file */
} io;

static int open_files(const opts *o, io *f)
{
    memset(f, 0, sizeof *f);
    f->in_fd = -1;
    f->tmp_fd = -1;
    f->in_fd =
        o->in == NULL || strcmp(o->in, "-") == 0 ? STDIN_FILENO : open(o->in, O_RDONLY | O_CLOEXEC);
    if (f->in_fd < 0) {
        fprintf(stderr, "bitslice: %s: %s\n", o->in, strerror(errno));
        return -1;
    }
    struct stat st, ost;
    const int have_in = fstat(f->in_fd, &st) == 0;
    if (have_in && S_ISREG(st.st_mode)) {
        f->in_regular = 1;
        f->in_size = (uint64_t)st.st_size;
    }
    /* The output must never be the input: replacing it would destroy what is being read. */
    if (have_in && S_ISREG(st.st_mode) &&
        (strcmp(o->out, "-") == 0 ? fstat(STDOUT_FILENO, &ost) : stat(o->out, &ost)) == 0 &&
        st.st_dev == ost.st_dev && st.st_ino == ost.st_ino) {
        fprintf(stderr, "bitslice: the output %s is the input file: refused\n", o->out);
        return -1;
    }
    /*
     * Where the output really goes. "-", or an existing file that is not a regular one (a FIFO,
     * a terminal, /dev/stdout, /dev/null) is written in place: a temporary file renamed over it
     * would replace the device or the link (as root, /dev/stdout itself) instead of writing to
     * it. An existing symlink to a regular file is followed, so that the link stays a link and
     * the file it names is replaced.
     */
    const char *dest = o->out;
    static char resolved[4096];
    if (strcmp(o->out, "-") == 0 || (stat(o->out, &ost) == 0 && !S_ISREG(ost.st_mode))) {
        int fd = strcmp(o->out, "-") == 0 ? dup(STDOUT_FILENO)
                                          : open(o->out, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
            fprintf(stderr, "bitslice: %s: %s\n", o->out, strerror(errno));
            return -1;
        }
        f->direct = 1;
        f->tmp_fd = fd;
        f->out = fdopen(fd, "wb");
        return f->out != NULL ? 0 : -1;
    }
    if (!o->force && lstat(o->out, &ost) == 0) {
        fprintf(stderr, "bitslice: %s exists: refused (--force replaces it)\n", o->out);
        return -1;
    }
    if (lstat(o->out, &ost) == 0 && S_ISLNK(ost.st_mode)) {
        if (realpath(o->out, resolved) == NULL) {
            fprintf(stderr, "bitslice: %s: %s\n", o->out, strerror(errno));
            return -1;
        }
        dest = resolved;
    }
    snprintf(out_path, sizeof out_path, "%s", dest);
    if (snprintf(tmp_path, sizeof tmp_path, "%s.tmp-XXXXXX", dest) >= (int)sizeof tmp_path) {
        fprintf(stderr, "bitslice: output path too long\n");
        return -1;
    }
    f->tmp_fd = mkstemp(tmp_path);
    if (f->tmp_fd < 0) {
        fprintf(stderr, "bitslice: cannot create a temporary file beside %s: %s\n", dest,
                strerror(errno));
        tmp_path[0] = 0;
        return -1;
    }
    /* SIGQUIT too (Ctrl-\\): its default would leave open's plaintext temporary file behind. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (signal(sigs[i], on_fatal_signal) == SIG_ERR) {
            fprintf(stderr, "bitslice: cannot handle signal %d: %s\n", sigs[i], strerror(errno));
            return -1;
        }
    f->out = fdopen(f->tmp_fd, "wb");
    return f->out != NULL ? 0 : -1;
}

/*
 * The directory holding path, fsynced: after a rename, so that the new name survives a power
 * loss (the file's own fsync does not make its directory entry durable). 0 or -1 (errno).
 */
static int fsync_dir_of(const char *path)
{
    char dir[sizeof out_path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0; /* "/name" */
    else
        *slash = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return r;
}

/* ok: flush, fsync, rename over the destination, fsync its directory; else remove the temporary
 * file. */
static int close_files(io *f, const opts *o, int ok)
{
    if (f->in_fd > STDIN_FILENO)
        close(f->in_fd);
    f->in_fd = -1;
    if (f->out != NULL) {
        if (ok && (fflush(f->out) != 0 || (!f->direct && fsync(fileno(f->out)) != 0))) {
            fprintf(stderr, "bitslice: writing %s: %s\n", o->out, strerror(errno));
            ok = 0;
        }
        if (fclose(f->out) != 0 && ok) {
            fprintf(stderr, "bitslice: writing %s: %s\n", o->out, strerror(errno));
            ok = 0;
        }
    } else if (f->tmp_fd >= 0) {
        close(f->tmp_fd);
    }
    if (tmp_path[0] != 0) {
        if (ok && rename(tmp_path, out_path) != 0) {
            fprintf(stderr, "bitslice: rename to %s: %s\n", o->out, strerror(errno));
            ok = 0;
        }
        if (!ok)
            unlink(tmp_path);
        /* The output is complete and in place; only its name's durability is at stake here. */
        else if (fsync_dir_of(out_path) != 0 && errno != EINVAL) {
            fprintf(stderr, "bitslice: fsync of the directory of %s: %s\n", o->out,
                    strerror(errno));
            ok = 0;
        }
        tmp_path[0] = 0;
    }
    return ok ? 0 : 1;
}

/* Reads up to n bytes; short only at end of input or on error (*err). */
static size_t read_full(int fd, uint8_t *p, size_t n, int *err)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            *err = errno;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

/* The master key: a key file, or scrypt of the passphrase with the header's parameters. */
static int master_key(const opts *o, const bsf_header *h, int confirm, uint8_t key[32])
{
    char err[256];
    if (o->key_file != NULL) {
        if (h->kdf != BSF_KDF_KEYFILE) {
            fprintf(stderr, "bitslice: this file was sealed with a passphrase, not a key file\n");
            return -1;
        }
        if (bscli_read_key_file(o->key_file, key, err, sizeof err) != 0) {
            fprintf(stderr, "bitslice: %s\n", err);
            return -1;
        }
        return 0;
    }
    if (h->kdf != BSF_KDF_SCRYPT) {
        fprintf(stderr, "bitslice: this file was sealed with a key file, not a passphrase\n");
        return -1;
    }
    char pass[1024];
    int n = bscli_read_passphrase(o->pass_file, confirm, pass, sizeof pass, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "bitslice: %s\n", err);
        return -1;
    }
    int r = bscli_kdf_scrypt(pass, (size_t)n, h->salt, sizeof h->salt, h->scrypt_log_n, h->scrypt_r,
                             h->scrypt_p, key, 32);
    explicit_bzero(pass, sizeof pass);
    if (r != 0)
        fprintf(stderr, "bitslice: scrypt failed (OpenSSL KDF)\n");
    return r;
}

static void report(const opts *o, const bscli_keysrc *ks)
{
    if (o->verbose)
        fprintf(stderr, "bitslice: keystream: %llu chunks from %s, %llu in-process\n",
                (unsigned long long)ks->daemon_chunks,
                ks->daemon_chunks ? ks->daemon_backend : "the daemon",
                (unsigned long long)ks->local_chunks);
}

/* Whether OUTPUT ('-': standard output) is a terminal. */
static int out_is_terminal(const char *out)
{
    if (strcmp(out, "-") == 0)
        return isatty(STDOUT_FILENO);
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISCHR(st.st_mode))
        return 0;
    int fd = open(out, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    int tty = fd >= 0 && isatty(fd);
    if (fd >= 0)
        close(fd);
    return tty;
}

/*
 * ---- the chunk workers (--threads N) ----
 *
 * Chunks are independent by the format's design (each its own J0 and tag), so N workers seal
 * or open them at once, each with its own keys (a GCM context is one thread's at a time) and
 * its own buffer for keystream computed in-process. The calling thread takes the chunks in
 * order from the pipeline, gets each one's keystream source in order (the daemon's window, or
 * "in-process"), and hands it to the workers; each chunk goes back to the pipeline when done,
 * and the writer writes chunks in order only, so `open` never writes a chunk after one that
 * failed. With one thread the calling thread does the work itself. A daemon window's slot is
 * asked for again only once the chunk that used it is done, so at most the key source's depth
 * (two a worker and two more, within 64 MiB of windows) of chunks are in flight through the
 * daemon.
 */
enum { FAIL_NONE = 0, FAIL_AUTH, FAIL_TRUNCATED, FAIL_EMPTY };

typedef struct crew_job {
    bscli_pipe_slot *s;
    const uint8_t *k; /* the daemon's window, or NULL: in-process */
    size_t len;       /* plaintext bytes */
    int last;
} crew_job;

typedef struct crew {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open; /* 0: seal */
    unsigned n;
    pthread_t *th;
    bsf_keys *keys;  /* one per worker, and [0] for the calling thread when n == 1 */
    uint8_t **ksbuf; /* likewise: keystream computed in-process */
    size_t ksbuf_len;
    bscli_pipe *pipe;
    crew_job *jobs; /* a ring of ring entries */
    unsigned ring;
    uint64_t posted, claimed;
    uint8_t *fin;  /* ring flags: chunk done */
    uint64_t nfin; /* chunks done with every one before them */
    unsigned started;
    int quit;
    uint64_t fail_index; /* the first chunk that failed (FAIL_*), UINT64_MAX: none */
    int fail_kind;
} crew;

/* Works on one chunk with worker w's keys and buffer; FAIL_NONE or why it was refused. */
static int crew_work(crew *c, unsigned w, const crew_job *j)
{
    bsf_keys *keys = &c->keys[w];
    uint8_t *buf = j->s->buf;
    const uint64_t i = j->s->index;
    const uint8_t *k = j->k;
    if (k == NULL) {
        bsf_chunk_keystream(keys, i, j->last, j->len, c->ksbuf[w]);
        k = c->ksbuf[w];
    }
    if (!c->open) {
        bsf_chunk_seal(keys, i, j->last, k, buf, buf, j->len, buf + j->len);
        bscli_pipe_put(c->pipe, j->s, j->len + BSF_TAG_LEN);
        return FAIL_NONE;
    }
    if (bsf_chunk_open(keys, i, j->last, k, buf, buf, j->len, buf + j->len) != 0) {
        /* Say what most likely happened: a whole-chunk truncation verifies as not-last. */
        if (!j->last)
            return FAIL_AUTH;
        bsf_chunk_keystream(keys, i, 0, j->len, c->ksbuf[w]);
        return bsf_chunk_open(keys, i, 0, c->ksbuf[w], buf, buf, j->len, buf + j->len) == 0
                   ? FAIL_TRUNCATED
                   : FAIL_AUTH;
    }
    if (j->len == 0 && !(j->last && i == 0))
        return FAIL_EMPTY;
    bscli_pipe_put(c->pipe, j->s, j->len);
    return FAIL_NONE;
}

/* The chunk is done (failed or not): recorded, and the calling thread told. Holds c->mu. */
static void crew_done_locked(crew *c, uint64_t i, int fail)
{
    if (fail != FAIL_NONE && i < c->fail_index) {
        c->fail_index = i;
        c->fail_kind = fail;
        /*
         * Nothing from this chunk on is written, so the reader would wait for ring slots that
         * are never freed while the calling thread waits for its next chunk: stop it all now.
         */
        bscli_pipe_stop(c->pipe);
    }
    c->fin[i % c->ring] = 1;
    while (c->nfin < c->posted && c->fin[c->nfin % c->ring]) {
        c->fin[c->nfin % c->ring] = 0;
        c->nfin++;
    }
    pthread_cond_broadcast(&c->cv);
}

typedef struct crew_arg {
    crew *c;
    unsigned w;
} crew_arg;

static void *crew_main(void *arg)
{
    crew *c = ((crew_arg *)arg)->c;
    const unsigned w = ((crew_arg *)arg)->w;
    free(arg);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->quit && c->claimed == c->posted)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->claimed == c->posted)
            break; /* quit, and nothing left */
        crew_job j = c->jobs[c->claimed % c->ring];
        c->claimed++;
        /* After a failed chunk nothing more is written: the work would be thrown away. */
        int skip = c->fail_index != UINT64_MAX;
        pthread_mutex_unlock(&c->mu);
        int fail = skip ? FAIL_NONE : crew_work(c, w, &j);
        pthread_mutex_lock(&c->mu);
        crew_done_locked(c, j.s->index, fail);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/*
 * The worker count: threads, or one per online CPU (at most BSCLI_THREADS_DEFAULT_MAX), fewer
 * where the buffers of big chunks would pass BSCLI_BUFFERS_DEFAULT_MAX (three chunks a worker
 * and two more: the pipeline's two and the worker's keystream).
 */
static unsigned crew_size(unsigned threads, size_t chunk_size)
{
    if (threads != 0)
        return threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned t = n < 1                           ? 1
                 : n > BSCLI_THREADS_DEFAULT_MAX ? BSCLI_THREADS_DEFAULT_MAX
                                                 : (unsigned)n;
    const size_t fit = BSCLI_BUFFERS_DEFAULT_MAX / chunk_size;
    const unsigned most = fit > 5 ? (unsigned)((fit - 2) / 3) : 1;
    return t < most ? t : most;
}

/*
 * Keys for n workers from the master key (each its own GCM context), and their buffers for
 * chunks of chunk_size bytes. 0, or -1 with everything freed.
 */
static int crew_init(crew *c, unsigned n, int open, const uint8_t master[32],
                     const uint8_t nonce[16], size_t chunk_size)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->open = open;
    c->fail_index = UINT64_MAX;
    c->ksbuf_len = (size_t)bsf_chunk_ks_blocks(chunk_size) * 32;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    const size_t kbytes = (sizeof(bsf_keys) + 63) / 64 * 64;
    c->keys = (bsf_keys *)aligned_alloc(64, kbytes * n);
    c->ksbuf = (uint8_t **)calloc(n, sizeof *c->ksbuf);
    c->th = (pthread_t *)calloc(n, sizeof *c->th);
    if (c->keys == NULL || c->ksbuf == NULL || c->th == NULL)
        goto fail;
    memset(c->keys, 0, kbytes * n);
    for (unsigned w = 0; w < n; w++)
        if (bsf_keys_derive(&c->keys[w], master, nonce) != 0 ||
            (c->ksbuf[w] = (uint8_t *)malloc(c->ksbuf_len)) == NULL)
            goto fail;
    return 0;
fail:
    for (unsigned w = 0; c->ksbuf != NULL && w < n; w++)
        free(c->ksbuf[w]);
    if (c->keys != NULL)
        for (unsigned w = 0; w < n; w++)
            bsf_keys_wipe(&c->keys[w]);
    free(c->keys);
    free(c->ksbuf);
    free(c->th);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    memset(c, 0, sizeof *c);
    return -1;
}

/* Starts the workers on pipe (with ring >= its slots); with n == 1, none. 0 or -1. */
static int crew_start(crew *c, bscli_pipe *pipe, unsigned ring)
{
    c->pipe = pipe;
    c->ring = ring;
    c->jobs = (crew_job *)calloc(ring, sizeof *c->jobs);
    c->fin = (uint8_t *)calloc(ring, 1);
    if (c->jobs == NULL || c->fin == NULL)
        return -1;
    for (unsigned w = 0; c->n > 1 && w < c->n; w++) {
        crew_arg *a = (crew_arg *)malloc(sizeof *a);
        if (a == NULL)
            return -1;
        a->c = c;
        a->w = w;
        if (pthread_create(&c->th[w], NULL, crew_main, a) != 0) {
            free(a);
            return -1;
        }
        c->started++;
    }
    return 0;
}

/* Waits until every chunk before first is done (then its daemon window may be reused). */
static void crew_wait_done(crew *c, uint64_t first)
{
    pthread_mutex_lock(&c->mu);
    while (c->nfin < first)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

/* Hands chunk j to a worker (or works on it here, with one thread). */
static void crew_post(crew *c, const crew_job *j)
{
    if (c->n == 1) {
        int fail = crew_work(c, 0, j);
        pthread_mutex_lock(&c->mu);
        c->posted++;
        c->claimed++;
        crew_done_locked(c, j->s->index, fail);
        pthread_mutex_unlock(&c->mu);
        return;
    }
    pthread_mutex_lock(&c->mu);
    c->jobs[c->posted % c->ring] = *j;
    c->posted++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static int crew_failed(crew *c)
{
    pthread_mutex_lock(&c->mu);
    int f = c->fail_index != UINT64_MAX;
    pthread_mutex_unlock(&c->mu);
    return f;
}

/* Lets the workers finish what was posted, joins them, says a failure, wipes and frees. */
static int crew_finish(crew *c)
{
    pthread_mutex_lock(&c->mu);
    c->quit = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    for (unsigned w = 0; w < c->started; w++)
        pthread_join(c->th[w], NULL);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    const unsigned long long i = (unsigned long long)c->fail_index;
    if (c->fail_kind == FAIL_TRUNCATED)
        fprintf(stderr,
                "bitslice: truncated: the file ends after chunk %llu without its final chunk\n", i);
    else if (c->fail_kind == FAIL_AUTH)
        fprintf(stderr,
                "bitslice: chunk %llu failed authentication: the file is corrupted, tampered "
                "with, reordered or truncated\n",
                i);
    else if (c->fail_kind == FAIL_EMPTY)
        fprintf(stderr, "bitslice: chunk %llu is empty but not the only chunk\n", i);
    const int failed = c->fail_kind != FAIL_NONE;
    for (unsigned w = 0; w < c->n; w++) {
        bs_wipe(c->ksbuf[w], c->ksbuf_len);
        free(c->ksbuf[w]);
        bsf_keys_wipe(&c->keys[w]);
    }
    free(c->keys);
    free(c->ksbuf);
    free(c->th);
    free(c->jobs);
    free(c->fin);
    memset(c, 0, sizeof *c);
    return failed;
}

/*
 * Requests the daemon windows of the chunks after `index` whose slots are free (the chunk that
 * last used each is done), up to ks->nslots ahead; *next is the first not yet
 * requested, nchunks the count when known (0: unknown; then none is the last).
 */
static void crew_prefetch(crew *c, bscli_keysrc *ks, uint64_t index, uint64_t nchunks,
                          uint64_t *next, size_t cs)
{
    pthread_mutex_lock(&c->mu);
    const uint64_t nfin = c->nfin;
    pthread_mutex_unlock(&c->mu);
    while (*next < index + ks->nslots && *next < nfin + ks->nslots &&
           (nchunks == 0 || *next < nchunks)) {
        bscli_keysrc_request(ks, *next, nchunks != 0 && *next + 1 == nchunks, cs);
        (*next)++;
    }
}

/*
 * The keys from the master key (wiped here) and the nonce: keys, the calling thread's, for the
 * header, and the crew's, nthreads workers for chunks of chunk_size bytes. 0, or -1 having said
 * why (keys then still to be wiped; the crew needs nothing).
 */
static int crew_keys(crew *c, bsf_keys *keys, unsigned nthreads, int open, uint8_t master[32],
                     const uint8_t nonce[16], size_t chunk_size)
{
    int kr = bsf_keys_derive(keys, master, nonce);
    if (kr == 0)
        kr = crew_init(c, nthreads, open, master, nonce, chunk_size);
    bs_wipe(master, 32);
    if (kr != 0)
        fprintf(stderr, "bitslice: RIJNDAEL-256 is not compiled in, HKDF failed, or out of "
                        "memory\n");
    return kr;
}

/*
 * The chunks of seal or open, once the header is written or checked: each record (a chunk, and
 * its tag when opening) goes from the reader to the crew in order with its keystream source
 * (the daemon's window, or in-process), and on to the writer. cs: the chunk size; nchunks: the
 * chunk count when the input's size is known (0: unknown); total: the bytes after the header
 * for the progress line (0: unknown). Finishes the crew and the writer and closes the keystream
 * source whatever happens; 1 when every chunk was written, 0 having said why not.
 */
static int crew_run(crew *c, const opts *o, io *f, const bsf_keys *keys, size_t cs,
                    uint64_t nchunks, uint64_t total)
{
    const int opening = c->open;
    /* Buffers for the chunks being read, worked on and written: two a worker, and two more. */
    const unsigned nslots = c->n == 1 ? BS_PIPE_SLOTS : 2 * c->n + 2;
    bscli_keysrc ks;
    bscli_pipe io_pipe;
    int have_ks = 0, ok = 0;
    if (bscli_keysrc_init(&ks, keys, cs, !o->no_daemon, o->socket, o->verbose, nslots) != 0) {
        fprintf(stderr, "bitslice: out of memory\n");
        goto fail;
    }
    have_ks = 1;
    if (bscli_pipe_start(&io_pipe, f->in_fd, f->out, opening ? cs + BSF_TAG_LEN : cs,
                         cs + BSF_TAG_LEN, nslots) != 0) {
        fprintf(stderr, "bitslice: out of memory or threads\n");
        goto fail;
    }
    ok = crew_start(c, &io_pipe, nslots) == 0;
    if (!ok)
        fprintf(stderr, "bitslice: out of memory or threads\n");
    bs_progress pr;
    uint64_t done = 0, next_req = 0;
    bs_progress_start(&pr, isatty(2) && !o->quiet && ok, (double)total, BS_PROGRESS_BYTES);
    if (ok)
        crew_prefetch(c, &ks, 0, nchunks, &next_req, cs);
    /* Chunks go to the workers in order; the first that fails stops the output before it. */
    for (uint64_t i = 0; ok; i++) {
        bscli_pipe_slot *s = bscli_pipe_next(&io_pipe);
        if (s == NULL) {
            ok = 0; /* a write failed: bscli_pipe_finish says why */
            break;
        }
        if (s->rerr != 0) {
            fprintf(stderr, "bitslice: reading input: %s\n", strerror(s->rerr));
            ok = 0;
            break;
        }
        size_t n = s->n;
        if (opening && n < BSF_TAG_LEN) {
            fprintf(stderr, "bitslice: truncated: %s after chunk %llu\n",
                    n == 0 ? "the file ends without its final chunk" : "a partial chunk",
                    (unsigned long long)i);
            ok = 0;
            break;
        }
        crew_job j = {s, NULL, opening ? n - BSF_TAG_LEN : n, s->last};
        /* Chunk i's daemon window is free once chunk i - SLOTS is done. */
        if (ks.daemon && i >= ks.nslots)
            crew_wait_done(c, i - ks.nslots + 1);
        if (crew_failed(c)) { /* only open's chunks can fail */
            ok = 0;
            break;
        }
        if (!j.last)
            crew_prefetch(c, &ks, i, nchunks, &next_req, cs);
        j.k = bscli_keysrc_take(&ks, i, j.last, j.len);
        crew_post(c, &j);
        done += n;
        bs_progress_update(&pr, (double)done, j.last);
        if (j.last)
            break;
    }
    bs_progress_end(&pr);
    if (crew_finish(c) != 0)
        ok = 0;
    int werr = bscli_pipe_finish(&io_pipe, ok);
    if (werr != 0) {
        fprintf(stderr, "bitslice: writing %s: %s\n", o->out, strerror(werr));
        ok = 0;
    }
    if (ok || !opening)
        report(o, &ks);
    bscli_keysrc_close(&ks);
    return ok;
fail:
    crew_finish(c);
    if (have_ks)
        bscli_keysrc_close(&ks);
    return 0;
}

/*
 * seal and open leave through one exit: "out" finishes the crew when it was made but not run,
 * wipes the derived keys (harmless when there are none yet) and, once open_files ran, finishes
 * or removes the output (close_files). ok says whether the output is to be kept.
 */
int bscli_cmd_seal(int argc, char **argv)
{
    opts o;
    int pr_ = parse(argc, argv, &o, "seal");
    if (pr_ != 0)
        return pr_ > 0 ? 0 : 2;
    /* Ciphertext on a terminal is of no use to anyone and can upset it (as age refuses). */
    if (!o.force && out_is_terminal(o.out)) {
        fprintf(stderr, "bitslice seal: refusing to write ciphertext to a terminal\n"
                        "Redirect it ('-o - > FILE', or a pipe), give -o FILE, or --force.\n");
        return 2;
    }
    static bsf_keys keys;
    io f;
    crew cw;
    int files = 0, have_crew = 0, ok = 0;
    const size_t cs = (size_t)1 << o.chunk_log2;
    bsf_header h;
    memset(&h, 0, sizeof h);
    h.kdf = o.key_file != NULL ? BSF_KDF_KEYFILE : BSF_KDF_SCRYPT;
    h.chunk_log2 = (uint8_t)o.chunk_log2;
    if (h.kdf == BSF_KDF_SCRYPT) {
        h.scrypt_log_n = (uint8_t)o.scrypt_log_n;
        h.scrypt_r = BSF_SCRYPT_R;
        h.scrypt_p = BSF_SCRYPT_P;
    }
    if (bscli_random(h.salt, sizeof h.salt) != 0 || bscli_random(h.nonce, sizeof h.nonce) != 0) {
        fprintf(stderr, "bitslice: no randomness from the kernel\n");
        goto out;
    }
    uint8_t master[32];
    if (master_key(&o, &h, 1, master) != 0)
        goto out;
    if (crew_keys(&cw, &keys, crew_size(o.threads, cs), 0, master, h.nonce, cs) != 0)
        goto out;
    have_crew = 1;
    files = 1;
    if (open_files(&o, &f) != 0)
        goto out;
    uint8_t hdr[BSF_HEADER_LEN];
    bsf_header_encode(hdr, &h);
    bsf_header_tag(&keys, hdr, h.tag);
    bsf_header_encode(hdr, &h);
    if (fwrite(hdr, 1, sizeof hdr, f.out) != sizeof hdr) {
        fprintf(stderr, "bitslice: writing %s: %s\n", o.out, strerror(errno));
        goto out;
    }
    /* Known size: the last chunk is known in advance; otherwise prefetches guess "not last". */
    uint64_t nchunks = f.in_regular ? (f.in_size + cs - 1) / cs : 0;
    if (f.in_regular && nchunks == 0)
        nchunks = 1;
    have_crew = 0;
    ok = crew_run(&cw, &o, &f, &keys, cs, nchunks, f.in_regular ? f.in_size : 0);
out:
    if (have_crew)
        crew_finish(&cw);
    bsf_keys_wipe(&keys);
    return files ? close_files(&f, &o, ok) : 1;
}

int bscli_cmd_open(int argc, char **argv)
{
    opts o;
    int pr_ = parse(argc, argv, &o, "open");
    if (pr_ != 0)
        return pr_ > 0 ? 0 : 2;
    static bsf_keys keys;
    io f;
    crew cw;
    int have_crew = 0, ok = 0;
    if (open_files(&o, &f) != 0)
        goto out;
    uint8_t hdr[BSF_HEADER_LEN];
    bsf_header h;
    char err[256];
    int rerr = 0;
    if (read_full(f.in_fd, hdr, sizeof hdr, &rerr) != sizeof hdr) {
        fprintf(stderr, "bitslice: %s\n", rerr ? strerror(rerr) : "input too short for a header");
        goto out;
    }
    if (bsf_header_decode(hdr, &h, err, sizeof err) != 0) {
        fprintf(stderr, "bitslice: %s\n", err);
        goto out;
    }
    const size_t cs = (size_t)1 << h.chunk_log2, rec = cs + BSF_TAG_LEN;
    uint8_t master[32], tag[32];
    if (master_key(&o, &h, 0, master) != 0)
        goto out;
    if (crew_keys(&cw, &keys, crew_size(o.threads, cs), 1, master, h.nonce, cs) != 0)
        goto out;
    have_crew = 1;
    bsf_header_tag(&keys, hdr, tag);
    if (bs_ct_memcmp(tag, h.tag, 32) != 0) {
        fprintf(stderr, "bitslice: wrong key or passphrase, or the header is corrupted "
                        "(header authentication failed)\n");
        goto out;
    }
    uint64_t body = f.in_regular && f.in_size >= BSF_HEADER_LEN ? f.in_size - BSF_HEADER_LEN : 0;
    uint64_t nchunks = f.in_regular ? (body + rec - 1) / rec : 0;
    have_crew = 0;
    ok = crew_run(&cw, &o, &f, &keys, cs, nchunks, body);
out:
    if (have_crew)
        crew_finish(&cw);
    bsf_keys_wipe(&keys);
    return close_files(&f, &o, ok);
}
