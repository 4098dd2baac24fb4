/*
 * seccomp_fail: runs a program with chosen system calls failing for real, to test that it checks
 * what they return (the daemon's and bitslice's start-up hardening).
 *
 *   seccomp_fail [-e ERRNO] RULE... -- PROGRAM [ARG]...
 *   RULE: NAME or NAME:I=V (only when argument I, its low 32 bits, equals V)
 *
 * A seccomp filter (no_new_privs, then SECCOMP_SET_MODE_FILTER) makes each matching call return
 * -1 with ERRNO (default EXFULL, which none of these calls returns by itself, so that a message
 * naming it proves the failure came from here); every other call runs. The filter survives
 * execve. Exit 77 (skip) where seccomp filters are not available.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

static const struct {
    const char *name;
    long nr;
} calls[] = {
    {"prctl", SYS_prctl},
    {"prlimit64", SYS_prlimit64},
/* Not on every architecture (aarch64 has prlimit64 only): a rule for it then matches nothing. */
#ifdef SYS_setrlimit
    {"setrlimit", SYS_setrlimit},
#else
    {"setrlimit", -2},
#endif
#ifdef SYS_getrlimit
    {"getrlimit", SYS_getrlimit},
#else
    {"getrlimit", -2},
#endif
    {"rt_sigaction", SYS_rt_sigaction},
    {"mlock", SYS_mlock},
    {"mlock2", SYS_mlock2},
    {"madvise", SYS_madvise},
    {"fchmod", SYS_fchmod},
    {"fchmodat", SYS_fchmodat},
    {"listen", SYS_listen},
};

#define MAX_INSNS 256

int main(int argc, char **argv)
{
#ifndef ARCH
    (void)argc;
    (void)argv;
    fprintf(stderr, "seccomp_fail: no seccomp architecture constant for this target\n");
    return 77;
#else
    static struct sock_filter f[MAX_INSNS];
    unsigned n = 0, err = EXFULL;
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "-e") == 0) {
        err = (unsigned)atoi(argv[i + 1]);
        i += 2;
    }
    f[n++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    unsigned rules = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        char name[32];
        int arg = -1;
        unsigned long val = 0;
        const char *colon = strchr(argv[i], ':');
        size_t len = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
        if (len >= sizeof name || (colon && sscanf(colon + 1, "%d=%lu", &arg, &val) != 2) ||
            arg > 5 || n + 8 > MAX_INSNS) {
            fprintf(stderr, "seccomp_fail: bad rule %s\n", argv[i]);
            return 2;
        }
        memcpy(name, argv[i], len);
        name[len] = 0;
        long nr = -1;
        for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++)
            if (strcmp(calls[k].name, name) == 0)
                nr = calls[k].nr;
        if (nr == -1) {
            fprintf(stderr, "seccomp_fail: unknown system call %s\n", name);
            return 2;
        }
        if (nr < 0) {
            rules++;
            continue;
        }
        /* Each rule: load nr; if it differs, skip the rule; [load arg; if it differs, skip]; fail.
         */
        f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                              offsetof(struct seccomp_data, nr));
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0,
                                              arg < 0 ? 1 : 3);
        if (arg >= 0) {
            /* The low half of the 64-bit argument (both targets are little-endian). */
            f[n++] = (struct sock_filter)BPF_STMT(
                BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args) + 8 * (unsigned)arg);
            f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)val, 0, 1);
        }
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                              SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA));
        rules++;
    }
    if (i >= argc - 1 || rules == 0) {
        fprintf(stderr, "usage: seccomp_fail [-e ERRNO] RULE... -- PROGRAM [ARG]...\n");
        return 2;
    }
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {(unsigned short)n, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        fprintf(stderr, "seccomp_fail: cannot install the filter: %s\n", strerror(errno));
        return 77;
    }
    execv(argv[i + 1], argv + i + 1);
    fprintf(stderr, "seccomp_fail: %s: %s\n", argv[i + 1], strerror(errno));
    return 127;
#endif
}
