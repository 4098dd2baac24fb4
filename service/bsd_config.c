#include "bsd_config.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bsd_backend.h"
#include "bsd_peer.h"
#include "bsd_paths.h"

void bsd_default_socket_path(char *out, size_t outlen)
{
    bsd_default_socket(out, outlen, 0);
}

void bsd_config_defaults(bsd_config *c)
{
    memset(c, 0, sizeof *c);
    bsd_default_socket_path(c->socket_path, sizeof c->socket_path);
    snprintf(c->backend, sizeof c->backend, "auto");
    c->threads = 0;
    c->max_clients = 256;
    c->max_sessions_per_client = 16;
    c->max_sessions_total = 96;
    c->max_request_bytes = (uint64_t)64 << 20;
    c->max_queued_bytes = (uint64_t)256 << 20;
    c->max_shm_bytes = (uint64_t)1 << 30;
    c->max_inflight_jobs = 4096;
    c->max_inflight_batches = 2;
    c->read_timeout_ms = 5000;
    c->hello_timeout_ms = 5000;
    c->idle_timeout_ms = 600000;
    c->batch_deadline_us = 200;
    c->batch_when_idle = 1;
    c->batch_max_bytes = (uint64_t)32 << 20;
    c->batch_max_requests = 256;
    c->drain_timeout_ms = 5000;
    c->memlock = BSD_MEMLOCK_TRY;
}

/* Unsigned integer with an optional K/M/G (binary) suffix, within [lo, hi]. */
static int parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)v[0]))
        return -1;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno != 0)
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift != 0)
        end++;
    if (*end != 0)
        return -1;
    if (shift != 0 && x > (UINT64_MAX >> shift))
        return -1;
    x <<= shift;
    if (x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* Numeric ids or user (uids) / group names, resolved once when the setting is read. */
static int parse_id_list(const char *v, int uids, unsigned *ids, size_t *n)
{
    char buf[BSD_CONF_VALUE_MAX + 1];
    if (strlen(v) >= sizeof buf)
        return -1; /* bsd_config_set refused it already: never parse a cut list */
    memcpy(buf, v, strlen(v) + 1);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t != NULL;
         t = strtok_r(NULL, ", ", &save)) {
        uint64_t x;
        if (*n == BSD_MAX_ALLOW)
            return -1;
        if (isdigit((unsigned char)t[0])) {
            if (parse_u64(t, 0, 0xfffffffeu, &x) != 0)
                return -1;
        } else if (uids) {
            const struct passwd *pw = getpwnam(t);
            if (pw == NULL)
                return -1;
            x = pw->pw_uid;
        } else {
            const struct group *gr = getgrnam(t);
            if (gr == NULL)
                return -1;
            x = gr->gr_gid;
        }
        ids[(*n)++] = (unsigned)x;
    }
    return 0;
}

int bsd_config_set(bsd_config *c, const char *key, const char *v, char *err, size_t errlen)
{
    uint64_t x = 0;
    /* A value is taken whole or refused: never cut to fit a buffer. */
    if (strlen(v) > BSD_CONF_VALUE_MAX) {
        snprintf(err, errlen, "%s: value of %zu bytes, longer than %d", key, strlen(v),
                 BSD_CONF_VALUE_MAX);
        return -1;
    }
    struct {
        const char *name;
        uint64_t lo, hi;
        int is64;
        void *field;
    } nums[] = {
        {"threads", 0, 256, 0, &c->threads},
        {"max_clients", 1, 65536, 0, &c->max_clients},
        {"max_clients_per_uid", 0, 65536, 0, &c->max_clients_per_uid},
        {"max_sessions_per_uid", 0, 65536, 0, &c->max_sessions_per_uid},
        {"max_inflight_jobs_per_uid", 0, 1u << 20, 0, &c->max_inflight_jobs_per_uid},
        {"max_queued_bytes_per_uid", 0, (uint64_t)1 << 42, 1, &c->max_queued_bytes_per_uid},
        {"max_shm_bytes_per_uid", 0, (uint64_t)1 << 42, 1, &c->max_shm_bytes_per_uid},
        {"hello_timeout_ms", 1, 3600000, 0, &c->hello_timeout_ms},
        {"idle_timeout_ms", 0, 86400000, 0, &c->idle_timeout_ms},
        {"max_sessions_per_client", 1, 1024, 0, &c->max_sessions_per_client},
        {"max_sessions_total", 1, 65536, 0, &c->max_sessions_total},
        {"max_request_bytes", 32, (uint64_t)1 << 36, 1, &c->max_request_bytes},
        {"max_queued_bytes", 32, (uint64_t)1 << 40, 1, &c->max_queued_bytes},
        {"max_shm_bytes", 4096, (uint64_t)1 << 40, 1, &c->max_shm_bytes},
        {"max_inflight_jobs", 1, 1u << 20, 0, &c->max_inflight_jobs},
        {"max_inflight_batches", 1, 1024, 0, &c->max_inflight_batches},
        {"read_timeout_ms", 1, 3600000, 0, &c->read_timeout_ms},
        {"batch_deadline_us", 0, 1000000, 0, &c->batch_deadline_us},
        {"batch_when_idle", 0, 1, 0, &c->batch_when_idle},
        {"batch_max_bytes", 32, (uint64_t)1 << 36, 1, &c->batch_max_bytes},
        {"batch_max_requests", 1, 65536, 0, &c->batch_max_requests},
        {"drain_timeout_ms", 0, 600000, 0, &c->drain_timeout_ms},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (strcmp(key, nums[i].name) != 0)
            continue;
        if (parse_u64(v, nums[i].lo, nums[i].hi, &x) != 0) {
            snprintf(err, errlen, "%s: expected an integer in %llu..%llu, got '%s'", key,
                     (unsigned long long)nums[i].lo, (unsigned long long)nums[i].hi, v);
            return -1;
        }
        if (nums[i].is64)
            *(uint64_t *)nums[i].field = x;
        else
            *(unsigned *)nums[i].field = (unsigned)x;
        return 0;
    }
    if (strcmp(key, "socket") == 0) {
        if (v[0] != '/' || strlen(v) >= sizeof c->socket_path) {
            snprintf(err, errlen, "socket: an absolute path under %zu bytes",
                     sizeof c->socket_path);
            return -1;
        }
        memcpy(c->socket_path, v, strlen(v) + 1);
        return 0;
    }
    if (strcmp(key, "backend") == 0) {
        if (!bsd_backend_known(v)) {
            char names[64] = "auto";
            for (const bsd_backend_kind *k = bsd_backend_kinds; k->name != NULL; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", k->name);
            snprintf(err, errlen, "backend: one of %s (this build), got '%s'", names, v);
            return -1;
        }
        snprintf(c->backend, sizeof c->backend, "%s", v);
        return 0;
    }
    if (strcmp(key, "allow_uids") == 0 || strcmp(key, "allow_gids") == 0) {
        int uids = key[6] == 'u';
        unsigned ids[BSD_MAX_ALLOW];
        size_t n;
        if (parse_id_list(v, uids, ids, &n) != 0) {
            snprintf(err, errlen,
                     "%s: up to %d ids or existing %s names, comma-separated, got '%s'", key,
                     BSD_MAX_ALLOW, uids ? "user" : "group", v);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            if (uids)
                c->allow_uids[i] = (uid_t)ids[i];
            else
                c->allow_gids[i] = (gid_t)ids[i];
        }
        *(uids ? &c->n_allow_uids : &c->n_allow_gids) = n;
        return 0;
    }
    if (strcmp(key, "memlock") == 0) {
        if (strcmp(v, "off") == 0)
            c->memlock = BSD_MEMLOCK_OFF;
        else if (strcmp(v, "try") == 0)
            c->memlock = BSD_MEMLOCK_TRY;
        else if (strcmp(v, "required") == 0)
            c->memlock = BSD_MEMLOCK_REQUIRED;
        else {
            snprintf(err, errlen, "memlock: off, try or required");
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "log_level") == 0) {
        if (strcmp(v, "info") != 0 && strcmp(v, "debug") != 0) {
            snprintf(err, errlen, "log_level: info or debug");
            return -1;
        }
        c->log_debug = strcmp(v, "debug") == 0;
        return 0;
    }
    snprintf(err, errlen, "unknown setting '%s'", key);
    return -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

int bsd_config_set_kv(bsd_config *c, const char *kv, char *err, size_t errlen)
{
    const char *eq = strchr(kv, '=');
    char key[64];
    if (eq == NULL) {
        snprintf(err, errlen, "--set wants KEY=VALUE, got '%s'", kv);
        return -1;
    }
    if ((size_t)(eq - kv) >= sizeof key) {
        snprintf(err, errlen, "unknown setting '%.*s...'", 32, kv);
        return -1;
    }
    memcpy(key, kv, (size_t)(eq - kv));
    key[eq - kv] = 0;
    return bsd_config_set(c, key, eq + 1, err, errlen);
}

/*
 * Whole lines of any length are read (getline), then checked: a line over BSD_CONF_LINE_MAX
 * bytes or holding a NUL byte is refused with the file and line, never cut or split (with a
 * fixed buffer, the tail of a long comment was parsed as a line of its own, and "1<NUL>2" read
 * as 1).
 */
int bsd_config_load(bsd_config *c, const char *path, char *err, size_t errlen)
{
    /* "-": the settings come on standard input (e.g. from a here-document or a pipe). */
    const int from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    unsigned lineno = 0;
    int rc = 0;
    errno = 0;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = 0;
        if (len > 0 && line[len - 1] == '\r') /* CRLF files */
            line[--len] = 0;
        if (strlen(line) != len) {
            snprintf(err, errlen, "%s:%u: the line holds a NUL byte", path, lineno);
            rc = -1;
            break;
        }
        if (len > BSD_CONF_LINE_MAX) {
            snprintf(err, errlen, "%s:%u: line of %zu bytes, longer than %d", path, lineno, len,
                     BSD_CONF_LINE_MAX);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = 0;
        char *s = trim(line);
        if (*s == 0)
            continue;
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            snprintf(err, errlen, "%s:%u: expected key = value", path, lineno);
            rc = -1;
            break;
        }
        *eq = 0;
        char msg[256];
        if (bsd_config_set(c, trim(s), trim(eq + 1), msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s:%u: %s", path, lineno + 1, strerror(errno ? errno : EIO));
        rc = -1;
    }
    if (line != NULL)
        explicit_bzero(line, cap);
    free(line);
    if (!from_stdin)
        fclose(f);
    return rc;
}

static void print_ids(FILE *out, const char *key, const unsigned *ids, size_t n, int uids)
{
    fprintf(out, "%s=", key);
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        if (uids) {
            const struct passwd *pw = getpwuid((uid_t)ids[i]);
            name = pw != NULL ? pw->pw_name : NULL;
        } else {
            const struct group *gr = getgrgid((gid_t)ids[i]);
            name = gr != NULL ? gr->gr_name : NULL;
        }
        fprintf(out, "%s%u", i ? "," : "", ids[i]);
        if (name != NULL)
            fprintf(out, "(%s)", name);
    }
    fputc('\n', out);
}

uint64_t bsd_config_shm_per_uid(const bsd_config *c)
{
    return c->max_shm_bytes_per_uid != 0 ? c->max_shm_bytes_per_uid : c->max_shm_bytes * 4;
}

void bsd_config_print_shares(const bsd_config *c, FILE *out)
{
    const uint64_t q =
        c->max_queued_bytes_per_uid != 0 ? c->max_queued_bytes_per_uid : c->max_queued_bytes * 4;
    fprintf(
        out,
        "per_uid=clients %llu of %u, key slots %llu of %u, jobs in flight %llu of %u, "
        "queued bytes %llu, mapped bytes %llu\n",
        (unsigned long long)bsd_peer_cap(c->max_clients_per_uid, c->max_clients), c->max_clients,
        (unsigned long long)bsd_peer_cap(c->max_sessions_per_uid, c->max_sessions_total),
        c->max_sessions_total,
        (unsigned long long)bsd_peer_cap(c->max_inflight_jobs_per_uid, c->max_inflight_jobs),
        c->max_inflight_jobs, (unsigned long long)q, (unsigned long long)bsd_config_shm_per_uid(c));
}

void bsd_config_print_allow(const bsd_config *c, FILE *out)
{
    unsigned ids[BSD_MAX_ALLOW];
    if (c->n_allow_uids == 0 && c->n_allow_gids == 0) {
        ids[0] = (unsigned)geteuid();
        print_ids(out, "allow_uids", ids, 1, 1);
        fprintf(out, "allow_gids=\n"
                     "allowed=the daemon's own uid only (allow_uids and allow_gids unset)\n");
        return;
    }
    for (size_t i = 0; i < c->n_allow_uids; i++)
        ids[i] = (unsigned)c->allow_uids[i];
    print_ids(out, "allow_uids", ids, c->n_allow_uids, 1);
    for (size_t i = 0; i < c->n_allow_gids; i++)
        ids[i] = (unsigned)c->allow_gids[i];
    print_ids(out, "allow_gids", ids, c->n_allow_gids, 0);
    fprintf(out, "allowed=%s\n",
            c->n_allow_gids != 0 ? "a listed uid, or a listed gid as primary or supplementary group"
                                 : "a listed uid");
}
