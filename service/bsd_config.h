/* bsd_config.h: the daemon's settings, from conf/bitsliced.conf (key = value) and the command line.
 */
#ifndef BSD_CONFIG_H
#define BSD_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define BSD_MAX_ALLOW 16
/* Longest config line and value (bytes, without the newline): longer ones are refused whole. */
#define BSD_CONF_LINE_MAX 1023
#define BSD_CONF_VALUE_MAX 511

typedef enum bsd_memlock { BSD_MEMLOCK_OFF, BSD_MEMLOCK_TRY, BSD_MEMLOCK_REQUIRED } bsd_memlock;

typedef struct bsd_config {
    char socket_path[108]; /* sun_path size */
    uid_t allow_uids[BSD_MAX_ALLOW];
    size_t n_allow_uids; /* 0: the daemon's own uid only */
    gid_t allow_gids[BSD_MAX_ALLOW];
    size_t n_allow_gids;
    char backend[16]; /* "cpu" */
    unsigned threads; /* CPU backend workers; 0: one per online CPU */
    unsigned max_clients;
    /* Fair share between allowed users: 0 means three quarters of max_clients / of the key
     * slots, so one uid can never take everything. */
    unsigned max_clients_per_uid;
    unsigned max_sessions_per_uid;
    unsigned max_inflight_jobs_per_uid; /* 0: three quarters of max_inflight_jobs */
    uint64_t max_queued_bytes_per_uid;  /* 0: four times max_queued_bytes */
    uint64_t max_shm_bytes_per_uid;     /* mapped by all its connections; 0: 4 x max_shm_bytes */
    unsigned hello_timeout_ms;          /* a connection must say HELLO within this */
    unsigned idle_timeout_ms; /* closed after this long without a request or a job; 0: never */
    unsigned max_sessions_per_client;
    unsigned max_sessions_total; /* slots in the locked key pool */
    uint64_t max_request_bytes;  /* one KEYSTREAM */
    uint64_t max_queued_bytes;   /* outstanding keystream per client */
    uint64_t max_shm_bytes;      /* one client's mapping */
    unsigned max_inflight_jobs;  /* KEYSTREAM requests accepted and not yet answered, all clients */
    unsigned max_inflight_batches;
    unsigned read_timeout_ms; /* a started frame must complete within this */
    unsigned batch_deadline_us;
    unsigned batch_when_idle; /* 1: a backend with no batch in flight takes a group at once */
    uint64_t batch_max_bytes;
    unsigned batch_max_requests;
    unsigned drain_timeout_ms;
    bsd_memlock memlock;
    int log_debug;
} bsd_config;

void bsd_config_defaults(bsd_config *c);
/*
 * Applies one "key = value" setting; returns 0, or -1 with a message in err (errlen bytes).
 * Unknown keys are errors: a typo must not silently keep a default.
 */
int bsd_config_set(bsd_config *c, const char *key, const char *value, char *err, size_t errlen);
/* One "KEY=VALUE" (the command line's --set): as bsd_config_set. */
int bsd_config_set_kv(bsd_config *c, const char *kv, char *err, size_t errlen);
/*
 * Reads a config file: '#' comments, blank lines, "key = value". A line over BSD_CONF_LINE_MAX
 * bytes, a value over BSD_CONF_VALUE_MAX or a NUL byte is refused with "file:line: ...".
 */
int bsd_config_load(bsd_config *c, const char *path, char *err, size_t errlen);
/* The resolved allow lists, one "key=value" a line (ids, with names where known): --check. */
void bsd_config_print_allow(const bsd_config *c, FILE *out);
/* The shared memory one uid may have mapped (max_shm_bytes_per_uid, or its default). */
uint64_t bsd_config_shm_per_uid(const bsd_config *c);
/* Each uid's share of the global bounds, as the daemon applies them (bsd_peer_cap): --check. */
void bsd_config_print_shares(const bsd_config *c, FILE *out);
/* The default socket: $XDG_RUNTIME_DIR/bitslice/bitsliced.sock, else /run/bitslice/bitsliced.sock.
 */
void bsd_default_socket_path(char *out, size_t outlen);

#endif
