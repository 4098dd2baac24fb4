/* bitslice: seal/open files (RIJNDAEL-256-GCM, chunked), daemon status, keystream bench. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bs_cli.h"
#include "bs_kdf.h"
#include "bsd_client.h"

#ifndef BS_VERSION
#define BS_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    char sock[108];
    bsd_client_default_socket(sock, sizeof sock);
    fprintf(f,
            "usage: bitslice COMMAND [options]      bitslice --help | --version\n"
            "  seal       encrypt a file (RIJNDAEL-256-GCM, chunked; docs/stream-format.md)\n"
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

static int cmd_status(int argc, char **argv)
{
    const char *sock = NULL;
    char path[108];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) {
            sock = argv[++i];
        } else if (is_help(argv[i])) {
            bsd_client_default_socket(path, sizeof path);
            printf("usage: bitslice status [--socket PATH]\n"
                   "Prints the daemon's status (backend, queues, batch sizes, bytes served).\n"
                   "  --socket PATH   the daemon's socket (default %s)\n",
                   path);
            return 0;
        } else {
            fprintf(stderr,
                    "bitslice status: unknown option '%s'\n"
                    "usage: bitslice status [--socket PATH]\n",
                    argv[i]);
            return 2;
        }
    }
    if (sock == NULL) {
        bsd_client_default_socket(path, sizeof path);
        sock = path;
    }
    bsd_client_opts o = {sock, 1000, 5000};
    bsd_client *c;
    int r = bsd_client_connect(&o, &c);
    if (r == -EPERM) {
        fprintf(stderr,
                "bitslice: the daemon at %s runs as another user (not you, not root): refused\n",
                sock);
        return 1;
    }
    if (r != 0) {
        fprintf(stderr, "bitslice: no daemon at %s: %s\n", sock, strerror(-r));
        return 1;
    }
    static char text[BSD_MAX_REPLY_PAYLOAD + 1];
    r = bsd_client_status(c, text, sizeof text);
    if (r != 0) {
        const char *t = "";
        if (r == -EREMOTEIO)
            bsd_client_last_error(c, &t);
        fprintf(stderr, "bitslice: STATUS failed: %s %s\n", strerror(-r), t);
        bsd_client_close(c);
        return 1;
    }
    printf("socket=%s\n%s", sock, text);
    bsd_client_close(c);
    return 0;
}

static int cmd_keygen(int argc, char **argv)
{
    if (argc == 2 && is_help(argv[1])) {
        printf("usage: bitslice keygen -o KEYFILE\n"
               "Writes a new random 32-byte key as 64 hex digits, mode 0600; never over an\n"
               "existing file. '-o -' writes it to standard output.\n");
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "-o") != 0) {
        fprintf(stderr, "bitslice keygen: %s\nusage: bitslice keygen -o KEYFILE\n",
                argc < 3 ? "-o KEYFILE is required" : "unexpected arguments");
        return 2;
    }
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
    const int to_stdout = strcmp(argv[2], "-") == 0;
    int fd = to_stdout ? dup(STDOUT_FILENO)
                       : open(argv[2], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    int ok = fd >= 0;
    for (size_t off = 0; ok && off < 65;) {
        ssize_t n = write(fd, hex + off, 65 - off);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        off += ok ? (size_t)n : 0;
    }
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    explicit_bzero(hex, sizeof hex);
    if (!ok) {
        fprintf(stderr, "bitslice: %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    return 0;
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
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("bitslice %s\n", BS_VERSION);
        return 0;
    }
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
