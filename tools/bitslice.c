/* bitslice: seal/open files (RIJNDAEL-256-GCM, chunked), daemon status, keystream bench. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bs_cli.h"
#include "bs_json.h"
#include "bs_opt.h"
#include "bs_kdf.h"
#include "bsd_client.h"
#include "bsd_offload.h"

#ifndef BS_VERSION
#define BS_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    char sock[108];
    bsd_client_default_socket(sock, sizeof sock);
    fprintf(f,
            "usage: bitslice COMMAND [options]      bitslice --help | --version\n"
            "  seal       encrypt a file (RIJNDAEL-256-GCM, chunked; the format: bitslice(1))\n"
            "  open       decrypt and verify a sealed file\n"
            "  keygen     write a new random 32-byte key file (mode 0600)\n"
            "  status     print the daemon's status\n"
            "  bench      keystream throughput: in-process and through the daemon\n"
            "  keysearch  exhaustive key search over unknown key bits (GPU or CPU), shardable\n"
            "Run 'bitslice COMMAND --help' for its options. A file argument '-' is standard\n"
            "input or output. The daemon's socket: %s\n"
            "($BITSLICE_SOCKET, else $XDG_RUNTIME_DIR/bitslice/bitsliced.sock, else\n"
            "/run/bitslice/bitsliced.sock). Manual: bitslice(1).\n",
            sock);
}

static int is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/*
 * keysearch lives in its own program (keysearch/bitslice_keysearch.c: it links the CUDA runtime
 * when built with it, which seal/open must not need). It is found beside this executable, in the
 * build tree's keysearch/ folder, or on PATH.
 */
static int cmd_keysearch(char **argv)
{
    char self[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = 0;
            const char *candidates[] = {"%s/bitslice-keysearch",
                                        "%s/../keysearch/bitslice-keysearch"};
            for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
                snprintf(path, sizeof path, candidates[i], self);
                if (access(path, X_OK) == 0) {
                    argv[0] = path;
                    execv(path, argv);
                }
            }
        }
    }
    argv[0] = (char *)"bitslice-keysearch";
    execvp(argv[0], argv);
    fprintf(stderr, "bitslice: keysearch: cannot run bitslice-keysearch: %s\n", strerror(errno));
    return 127;
}

/* --version of every subcommand: the program's version on standard output, exit 0. */
static int version(void)
{
    printf("bitslice %s\n", BS_VERSION);
    return 0;
}

/* Status as one JSON object: the daemon's key=value lines, unsigned integers as numbers. */
static void print_json(const char *sock, const char *text)
{
    printf("{\"socket\": ");
    bs_json_string(stdout, sock);
    for (const char *line = text; *line != 0;) {
        const char *nl = strchr(line, '\n'), *eq = strchr(line, '=');
        const size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
        if (eq != NULL && eq < line + len) {
            const char *v = eq + 1;
            size_t vlen = len - (size_t)(v - line), digits = 0;
            while (digits < vlen && v[digits] >= '0' && v[digits] <= '9')
                digits++;
            printf(", ");
            bs_json_string_n(stdout, line, (size_t)(eq - line));
            printf(": ");
            if (vlen > 0 && digits == vlen && vlen < 20 && (v[0] != '0' || vlen == 1))
                printf("%.*s", (int)vlen, v);
            else
                bs_json_string_n(stdout, v, vlen);
        }
        line += len + (nl != NULL);
    }
    printf("}\n");
}

/*
 * What to do about a daemon that cannot be reached, by errno: the socket's directory or file
 * refuses this user (a system daemon's group), nothing there, or nothing listening.
 */
static void unreachable(const char *sock, int err)
{
    const char *hint = "";
    if (err == EACCES || err == EPERM)
        hint = "; are you in the daemon's group (bitslice for the system daemon: "
               "'adduser $USER bitslice', then log in again)?";
    else if (err == ENOENT)
        hint = "; is bitsliced running (systemctl status bitsliced.socket, or "
               "systemctl --user status bitsliced.socket)? $BITSLICE_SOCKET or --socket names "
               "another socket";
    else if (err == ECONNREFUSED)
        hint = "; the socket exists but no daemon listens on it (stale: restart bitsliced)";
    char what[64];
    snprintf(what, sizeof what, "%s", strerror(err));
    if (what[0] >= 'A' && what[0] <= 'Z')
        what[0] = (char)(what[0] - 'A' + 'a');
    fprintf(stderr, "bitslice: cannot reach the daemon at %s: %s%s\n", sock, what, hint);
}

/*
 * Appends to the status text this machine's offload decision (bsd_offload.h, the rule the
 * provider and seal/open apply) for each cipher the daemon reports a rate for, and for also.
 */
static void offload_lines(bsd_client *cl, char *text, size_t cap, const bs_block_cipher *also)
{
    int bad = 0;
    const int mode = bsd_offload_mode_env(BSD_OFFLOAD_AUTO, &bad);
    const bs_block_cipher *todo[64];
    size_t n = 0;
    if (also != NULL)
        todo[n++] = also;
    for (const char *line = text; line != NULL && *line != 0 && n < 64;) {
        const char *nl = strchr(line, '\n');
        if (strncmp(line, "rate.", 5) == 0) {
            char name[BSD_CIPHER_NAME_LEN + 1];
            size_t k = strcspn(line + 5, "=\n");
            if (k < sizeof name) {
                memcpy(name, line + 5, k);
                name[k] = 0;
                const bs_block_cipher *bc = bs_block_cipher_by_name(name);
                if (bc != NULL && bc != also)
                    todo[n++] = bc;
            }
        }
        line = nl != NULL ? nl + 1 : NULL;
    }
    size_t len = strlen(text);
    if (len + 1 < cap)
        len += (size_t)snprintf(text + len, cap - len, "offload_mode=%s%s\n",
                                bsd_offload_mode_name(mode),
                                bad ? " ($BITSLICE_OFFLOAD ignored)" : "");
    for (size_t i = 0; i < n && len + 1 < cap; i++) {
        bsd_offload_decision d;
        bsd_offload_check(mode, cl, todo[i], &d);
        len += (size_t)snprintf(text + len, cap - len, "offload.%s=%s\n", todo[i]->name, d.reason);
    }
}

static void status_usage(FILE *f)
{
    char path[108];
    bsd_client_default_socket(path, sizeof path);
    fprintf(f,
            "usage: bitslice status [--socket PATH] [--cipher NAME] [--json]\n"
            "Prints the daemon's status (backend, queues, batch sizes, bytes served), and for\n"
            "each cipher it has a rate for, whether this machine offloads a stream of it\n"
            "(offload.CIPHER: daemon or in-process, and why; $BITSLICE_OFFLOAD forces it).\n"
            "  -s, --socket PATH   the daemon's socket (default %s)\n"
            "  -c, --cipher NAME   decide for this cipher too (the daemon measures it if need be)\n"
            "  -j, --json          one JSON object (integers as numbers), for monitoring\n"
            "Exit status 0, or 1 when the daemon cannot be reached.\n",
            path);
}

static int cmd_status(int argc, char **argv)
{
    static const struct option lo[] = {
        {"socket", required_argument, 0, 's'}, {"json", no_argument, 0, 'j'},
        {"cipher", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {0, 0, 0, 0},
    };
    const char *sock = NULL;
    const bs_block_cipher *also = NULL;
    int json = 0, c;
    char path[108];
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":s:c:jhV", lo, NULL)) != -1) {
        switch (c) {
        case 's':
            sock = optarg;
            break;
        case 'c':
            also = bs_block_cipher_by_name(optarg);
            if (also == NULL)
                return bs_usage_error("bitslice status", "bitslice status", "unknown cipher",
                                      optarg);
            break;
        case 'j':
            json = 1;
            break;
        case 'h':
            status_usage(stdout);
            return 0;
        case 'V':
            return version();
        default:
            return bs_opt_error("bitslice status", "bitslice status", c, argv);
        }
    }
    if (optind < argc)
        return bs_usage_error("bitslice status", "bitslice status", "unexpected argument",
                              argv[optind]);
    if (sock == NULL) {
        bsd_client_default_socket(path, sizeof path);
        sock = path;
    }
    bsd_client_opts o = {sock, 1000, 5000};
    bsd_client *cl;
    int r = bsd_client_connect(&o, &cl);
    if (r == -EPERM) {
        fprintf(stderr,
                "bitslice: the daemon at %s runs as another user (not you, not root): refused\n",
                sock);
        return 1;
    }
    if (r != 0) {
        unreachable(sock, -r);
        return 1;
    }
    static char text[BSD_MAX_REPLY_PAYLOAD + 1];
    r = bsd_client_status(cl, text, sizeof text);
    if (r != 0) {
        const char *t = "";
        if (r == -EREMOTEIO)
            bsd_client_last_error(cl, &t);
        fprintf(stderr, "bitslice: STATUS failed: %s %s\n", strerror(-r), t);
        bsd_client_close(cl);
        return 1;
    }
    offload_lines(cl, text, sizeof text, also);
    if (json)
        print_json(sock, text);
    else
        printf("socket=%s\n%s", sock, text);
    bsd_client_close(cl);
    return 0;
}

/* The temporary key file while it exists: removed by a fatal signal as by a failure. */
static char keygen_tmp[4200];

static void keygen_signal(int sig)
{
    if (keygen_tmp[0] != 0)
        unlink(keygen_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int write_all(int fd, const char *p, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

/*
 * The key goes to a temporary file beside KEYFILE (mode 0600), is synced, and only then takes
 * KEYFILE's name, never replacing a file there (link(2) fails on an existing name). A failure
 * at any step (a full disk, a read-only directory, a signal) leaves no KEYFILE and no
 * temporary file.
 */
static int write_key_file(const char *dest, const char *hex, size_t n)
{
    struct stat st;
    if (lstat(dest, &st) == 0) {
        fprintf(stderr, "bitslice: %s exists: refused (a key file is never replaced)\n", dest);
        return 1;
    }
    if (snprintf(keygen_tmp, sizeof keygen_tmp, "%s.tmp-XXXXXX", dest) >= (int)sizeof keygen_tmp) {
        fprintf(stderr, "bitslice: %s: path too long\n", dest);
        return 1;
    }
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], keygen_signal);
    int fd = mkstemp(keygen_tmp);
    if (fd < 0) {
        fprintf(stderr, "bitslice: cannot create a temporary file beside %s: %s\n", dest,
                strerror(errno));
        keygen_tmp[0] = 0;
        return 1;
    }
    const char *step = "writing";
    int ok =
        fchmod(fd, 0600) == 0 && write_all(fd, hex, n) == 0 && (step = "syncing", fsync(fd) == 0);
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        err = errno;
        step = "closing";
    }
    if (ok && link(keygen_tmp, dest) != 0) {
        ok = 0;
        err = errno;
        step = "naming";
    }
    unlink(keygen_tmp);
    keygen_tmp[0] = 0;
    if (!ok) {
        if (err == EEXIST)
            fprintf(stderr, "bitslice: %s exists: refused (a key file is never replaced)\n", dest);
        else
            fprintf(stderr, "bitslice: %s %s: %s\n", step, dest, strerror(err));
        return 1;
    }
    /* The name itself on disk, so that a crash cannot lose a key already used to seal. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", dest);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash != NULL)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

static int cmd_keygen(int argc, char **argv)
{
    static const struct option lo[] = {
        {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    const char *out = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:hV", lo, NULL)) != -1) {
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case 'h':
            printf("usage: bitslice keygen -o KEYFILE\n"
                   "Writes a new random 32-byte key as 64 hex digits, mode 0600; never over an\n"
                   "existing file, and nothing at all when it fails (a full disk).\n"
                   "  -o, --output KEYFILE   the new key file; '-': standard output\n");
            return 0;
        case 'V':
            return version();
        default:
            return bs_opt_error("bitslice keygen", "bitslice keygen", c, argv);
        }
    }
    if (optind < argc)
        return bs_usage_error("bitslice keygen", "bitslice keygen", "unexpected argument",
                              argv[optind]);
    if (out == NULL)
        return bs_usage_error("bitslice keygen", "bitslice keygen", "-o KEYFILE is required", NULL);
    uint8_t key[32];
    if (bscli_random(key, sizeof key) != 0)
        return 1;
    char hex[66];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", key[i]);
    hex[64] = '\n';
    hex[65] = 0;
    explicit_bzero(key, sizeof key);
    /* write(2), not stdio: no library buffer is left holding the key. */
    int rc = 0;
    if (strcmp(out, "-") == 0) {
        if (write_all(STDOUT_FILENO, hex, 65) != 0) {
            fprintf(stderr, "bitslice: writing the key to standard output: %s\n", strerror(errno));
            rc = 1;
        }
    } else {
        rc = write_key_file(out, hex, 65);
    }
    explicit_bzero(hex, sizeof hex);
    return rc;
}

/*
 * Like bitsliced: a core of seal/open would hold the derived payload key and plaintext, and a
 * ptrace-capable process of the same uid could read them; keys are never worth a core file.
 * A command that handles keys does not run when this fails.
 */
static int harden(void)
{
    struct rlimit rl = {0, 0};
    if (setrlimit(RLIMIT_CORE, &rl) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        fprintf(stderr, "bitslice: cannot turn core dumps off: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (harden() != 0)
        return 1;
    if (argc < 2) {
        fprintf(stderr, "bitslice: no command given\n");
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0)
        return version();
    if (strcmp(cmd, "seal") == 0)
        return bscli_cmd_seal(argc - 1, argv + 1);
    if (strcmp(cmd, "open") == 0)
        return bscli_cmd_open(argc - 1, argv + 1);
    if (strcmp(cmd, "status") == 0)
        return cmd_status(argc - 1, argv + 1);
    if (strcmp(cmd, "keygen") == 0)
        return cmd_keygen(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return bscli_cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "keysearch") == 0)
        return cmd_keysearch(argv + 1);
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "bitslice: unknown %s '%s'\nRun 'bitslice --help' for the commands.\n",
            cmd[0] == '-' ? "option" : "command", cmd);
    return 2;
}
