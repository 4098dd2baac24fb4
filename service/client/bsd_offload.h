/*
 * bsd_offload.h: whether a stream goes to bitsliced or stays in-process, one rule for the
 * provider (bsd_source, through bsd_stream) and for bitslice seal/open (tools/bs_keysrc.c), both
 * of which decide in bsd_windows_open_by_cost; docs/provider.md "Offload by cost" states the
 * rule.
 *
 * Modes: "always" (offload whenever the daemon answers: what a caller that names no mode gets),
 * "never" (in-process), "auto" (offload only where the daemon path is estimated to be cheaper for
 * this cipher on this machine). The figures of "auto":
 *  - local_ns: what this process spends per byte computing the keystream in-process and XORing
 *    it, measured once per process and cipher (a few passes over a small buffer, the best taken);
 *  - path_ns: what this process spends per byte on the daemon path: its one pass over the
 *    window (XOR, digest, zeroing: bs_digest_xor_move_sum, measured once per process) plus the
 *    blocks it recomputes to check each piece (one block per 4 KiB, at local_ns);
 *  - daemon_ns: 1e9 / the daemon's measured rate for the cipher (RATE, PROTOCOL.md: all its
 *    workers together), and the daemon's workers on this host's CPUs (0 for a device);
 *  - cpus: the CPUs this process may run on (sched_getaffinity: a container's or cgroup's
 *    cpuset, not the host's count).
 * $BITSLICE_OFFLOAD_FIGURES (for tests; "local=0.11,path=0.05,daemon=0.02,workers=0,cpus=16",
 * any subset) replaces the figures it names, so a test decides without timing anything.
 */
#ifndef BSD_OFFLOAD_H
#define BSD_OFFLOAD_H

#include "bitslice.h"
#include "bsd_client.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BSD_OFFLOAD_ALWAYS = 0, BSD_OFFLOAD_AUTO = 1, BSD_OFFLOAD_NEVER = 2 };

/* Environment: overrides the provider's offload config key and the tool's default. */
#define BSD_OFFLOAD_ENV "BITSLICE_OFFLOAD"
#define BSD_OFFLOAD_FIGURES_ENV "BITSLICE_OFFLOAD_FIGURES"

/* "auto", "always", "never" -> the mode; -1 for anything else. */
int bsd_offload_mode_by_name(const char *name);
const char *bsd_offload_mode_name(int mode);
/*
 * $BITSLICE_OFFLOAD when set to a mode name (secure_getenv), else dflt. *bad (may be NULL) is
 * set to 1 when it is set to something else (the caller says so; dflt is returned).
 */
int bsd_offload_mode_env(int dflt, int *bad);

typedef struct bsd_offload_figures {
    double local_ns;  /* in-process ns per byte, this thread */
    double path_ns;   /* this thread's ns per byte through the daemon */
    double daemon_ns; /* the daemon's ns per byte for the cipher, all its backend; 0: unknown */
    unsigned workers; /* the daemon's threads on this host's CPUs (0: a device computes) */
    unsigned cpus;    /* the CPUs this process may run on (its affinity mask) */
} bsd_offload_figures;

/*
 * "auto" offloads where the daemon path's time per byte, times this margin, is still below the
 * in-process time: the figures are estimates, and a connection, a session and the key leaving
 * the process are worth a clear gain only.
 */
#define BSD_OFFLOAD_MARGIN 1.25

#define BSD_OFFLOAD_REASON_MAX 224
typedef struct bsd_offload_decision {
    int decided; /* 0: no decision yet (e.g. a message still below the threshold) */
    int daemon;  /* 1: offload */
    char reason[BSD_OFFLOAD_REASON_MAX];
} bsd_offload_decision;

/*
 * The rule, pure and deterministic (tests inject f). mode "always" and "never" decide without f
 * (f may be NULL). "auto": the daemon path's time per byte of this thread is
 *   path = max(path_ns, daemon_ns), and for workers on this host's CPUs at least
 *          (path_ns + daemon_ns * workers) / min(cpus, workers + 1): the CPU time this thread and
 *          the workers need per byte, over the CPUs they can use together;
 * offload iff path * BSD_OFFLOAD_MARGIN < local_ns. An unknown daemon rate stays in-process.
 * d->reason says which and the figures, e.g. "in-process: RIJNDAEL-256 in-process 0.059 ns/B,
 * through the daemon 0.083 ns/B (this thread 0.018, cpu backend 0.074 with 2 workers: 0.166 ns/B
 * of CPU on 2 CPUs)".
 */
void bsd_offload_decide(int mode, const char *cipher, const bsd_offload_figures *f,
                        bsd_offload_decision *d);

/*
 * This process's figures for bc (local_ns, path_ns, cpus), measured once per process and
 * cipher, then those $BITSLICE_OFFLOAD_FIGURES names. daemon_ns and workers are left 0 unless
 * that variable names them.
 */
void bsd_offload_local_figures(const bs_block_cipher *bc, bsd_offload_figures *f);

/*
 * The whole decision for a stream of bc on the connected client c: the figures above plus the
 * daemon's (bsd_client_rate, unless injected), then bsd_offload_decide. Returns d->daemon.
 */
int bsd_offload_check(int mode, bsd_client *c, const bs_block_cipher *bc, bsd_offload_decision *d);

#ifdef __cplusplus
}
#endif

#endif
