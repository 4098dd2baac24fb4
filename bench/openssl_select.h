/*
 * openssl_select.h: which OpenSSL a benchmark measures against. The benchmarks link the system
 * libcrypto (libcrypto.so.3); `--openssl DIR` on the command line, or BS_BENCH_OPENSSL=DIR in the
 * environment, runs the same binary again over DIR/lib's libcrypto.so.3 (any OpenSSL 3.x install
 * prefix, e.g. OpenSSL 3.5.3 built from its release tag as bench/README.md says), so that a 3.0
 * system and a 3.5 build are compared by the same code. bs_openssl_describe names the library
 * actually loaded (version and file), which every benchmark prints in its header.
 */
#ifndef BS_BENCH_OPENSSL_SELECT_H
#define BS_BENCH_OPENSSL_SELECT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#define BS_BENCH_OPENSSL_ENV "BS_BENCH_OPENSSL"
#define BS_BENCH_OPENSSL_DONE "BS_BENCH_OPENSSL_LOADED"

/*
 * Takes `--openssl DIR` out of argv (argc updated). If a DIR is given there or in the environment
 * and this process does not run over it yet, re-executes itself with DIR/lib first in
 * LD_LIBRARY_PATH; returns only where nothing is to be done (or exits on failure).
 */
static inline void bs_openssl_select(int *argc, char **argv)
{
    const char *dir = getenv(BS_BENCH_OPENSSL_ENV);
    int n = 0;
    for (int i = 0; i < *argc; i++) {
        if (i > 0 && strcmp(argv[i], "--openssl") == 0 && i + 1 < *argc) {
            dir = argv[++i];
            continue;
        }
        argv[n++] = argv[i];
    }
    argv[n] = NULL;
    *argc = n;
    if (dir == NULL || *dir == '\0' || getenv(BS_BENCH_OPENSSL_DONE) != NULL)
        return;
    char lib[4096], path[8192];
    const char *old = getenv("LD_LIBRARY_PATH");
    snprintf(lib, sizeof lib, "%s/lib", dir);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "--openssl %s: no %s\n", dir, lib);
        exit(2);
    }
    snprintf(path, sizeof path, "%s%s%s", lib, old != NULL && *old ? ":" : "", old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
    setenv(BS_BENCH_OPENSSL_DONE, dir, 1);
    execv("/proc/self/exe", argv);
    perror("execv /proc/self/exe");
    exit(2);
}

/* "OpenSSL 3.5.3 16 Sep 2025 (/opt/openssl-3.5.3/lib/libcrypto.so.3)": what is loaded. */
static inline const char *bs_openssl_describe(void)
{
    static char out[1200];
    Dl_info info;
    const char *file = "?";
    if (dladdr((void *)OpenSSL_version, &info) != 0 && info.dli_fname != NULL)
        file = info.dli_fname;
    snprintf(out, sizeof out, "%s (%s)", OpenSSL_version(OPENSSL_VERSION), file);
    return out;
}

#endif
