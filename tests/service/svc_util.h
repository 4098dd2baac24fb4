/* svc_util.h: helpers for the 'service' suite: a real bitsliced on a temporary socket. */
#ifndef SVC_UTIL_H
#define SVC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "bitslice.h"

#define SVC_SKIP 77

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            svc_fail_hook();                                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct svc_daemon {
    pid_t pid;
    char dir[64];     /* temporary directory, removed by svc_cleanup */
    char socket[100]; /* dir/run/bitsliced.sock (fits sun_path) */
    char log[256];
} svc_daemon;

/* Called before a failing CHECK exits: prints the daemon log of the current daemon. */
void svc_fail_hook(void);

/* Makes a temporary directory for one test. */
void svc_init(svc_daemon *d);
/*
 * Starts bitsliced ($BITSLICED) on d->socket with extra "--set k=v" arguments (NULL-terminated),
 * and waits until it accepts connections. prefix: argv words before the daemon (e.g. setpriv
 * ...), or NULL.
 */
void svc_start(svc_daemon *d, const char *const *prefix, const char *const *sets);
/* SIGTERM, wait; returns the exit status (or 128 + signal). */
int svc_stop(svc_daemon *d);
void svc_kill9(svc_daemon *d);
/* Removes the temporary directory. */
void svc_cleanup(svc_daemon *d);
/* The value of key in the daemon's STATUS text, as an integer (-1 if absent). */
long long svc_status_value(const char *status, const char *key);
/* Fetches STATUS through a fresh client; returns 0 on success. */
int svc_status(const svc_daemon *d, char *out, size_t len);
/* Deterministic test bytes. */
void svc_fill(uint8_t *p, size_t n, uint32_t seed);
/* c's key schedule of key, in a static buffer (the last call's): what bsd_stream reads check with.
 */
const bs_key_schedule *svc_schedule(const bs_block_cipher *c, const uint8_t *key);
/* The distinct cipher names compiled in (preferred implementation of each). */
size_t svc_ciphers(const bs_block_cipher **out, size_t max);
/* Sleeps ms milliseconds; the monotonic clock in milliseconds. */
void svc_sleep_ms(long ms);
long long svc_now_ms(void);
/* One integer of the daemon's STATUS (CHECKs that STATUS answered; -1 if the key is absent). */
long long svc_status_of(const svc_daemon *d, const char *key);
/* This process's mapping of the keystream windows (the memfd it shares with the daemon), or NULL.
 */
uint8_t *svc_shared_windows(size_t *len);
/* Resident set size of a process, in KiB. */
long svc_rss_kib(pid_t pid);

#endif
