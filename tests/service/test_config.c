/*
 * The daemon's config parser (service/bsd_config.c) on its own: every numeric key at and past
 * both ends of its range, size suffixes and their overflow, malformed numbers, the socket path
 * limit, backend names, id lists (count limit, names, a refused list keeping the old one),
 * memlock and log_level words, unknown keys; files with comments, blank lines and spacing,
 * errors naming file and line and stopping there; and the shipped conf/bitsliced.conf, whose
 * values must be the compiled-in defaults it documents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bsd_config.h"
#include "bsd_peer.h"

static char err[256];

static int set(bsd_config *c, const char *key, const char *value)
{
    err[0] = 0;
    return bsd_config_set(c, key, value, err, sizeof err);
}

/* Where each numeric key lives and its documented range (bsd_config_set's table). */
typedef struct num_key {
    const char *name;
    uint64_t lo, hi;
    size_t off;
    int is64;
} num_key;

static const num_key num_keys[] = {
    {"threads", 0, 256, offsetof(bsd_config, threads), 0},
    {"max_clients", 1, 65536, offsetof(bsd_config, max_clients), 0},
    {"max_clients_per_uid", 0, 65536, offsetof(bsd_config, max_clients_per_uid), 0},
    {"max_sessions_per_uid", 0, 65536, offsetof(bsd_config, max_sessions_per_uid), 0},
    {"max_inflight_jobs_per_uid", 0, 1u << 20, offsetof(bsd_config, max_inflight_jobs_per_uid), 0},
    {"max_queued_bytes_per_uid", 0, (uint64_t)1 << 42,
     offsetof(bsd_config, max_queued_bytes_per_uid), 1},
    {"max_shm_bytes_per_uid", 0, (uint64_t)1 << 42, offsetof(bsd_config, max_shm_bytes_per_uid), 1},
    {"hello_timeout_ms", 1, 3600000, offsetof(bsd_config, hello_timeout_ms), 0},
    {"idle_timeout_ms", 0, 86400000, offsetof(bsd_config, idle_timeout_ms), 0},
    {"max_sessions_per_client", 1, 1024, offsetof(bsd_config, max_sessions_per_client), 0},
    {"max_sessions_total", 1, 65536, offsetof(bsd_config, max_sessions_total), 0},
    {"max_request_bytes", 32, (uint64_t)1 << 36, offsetof(bsd_config, max_request_bytes), 1},
    {"max_queued_bytes", 32, (uint64_t)1 << 40, offsetof(bsd_config, max_queued_bytes), 1},
    {"max_shm_bytes", 4096, (uint64_t)1 << 40, offsetof(bsd_config, max_shm_bytes), 1},
    {"max_inflight_jobs", 1, 1u << 20, offsetof(bsd_config, max_inflight_jobs), 0},
    {"max_inflight_batches", 1, 1024, offsetof(bsd_config, max_inflight_batches), 0},
    {"read_timeout_ms", 1, 3600000, offsetof(bsd_config, read_timeout_ms), 0},
    {"batch_deadline_us", 0, 1000000, offsetof(bsd_config, batch_deadline_us), 0},
    {"batch_when_idle", 0, 1, offsetof(bsd_config, batch_when_idle), 0},
    {"batch_max_bytes", 32, (uint64_t)1 << 36, offsetof(bsd_config, batch_max_bytes), 1},
    {"batch_max_requests", 1, 65536, offsetof(bsd_config, batch_max_requests), 0},
    {"drain_timeout_ms", 0, 600000, offsetof(bsd_config, drain_timeout_ms), 0},
};

static uint64_t get_num(const bsd_config *c, const num_key *k)
{
    const char *p = (const char *)c + k->off;
    if (k->is64)
        return *(const uint64_t *)(const void *)p;
    return *(const unsigned *)(const void *)p;
}

static void test_numbers_ranges(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof num_keys / sizeof num_keys[0]; i++) {
        const num_key *k = &num_keys[i];
        bsd_config c;
        char v[32];
        bsd_config_defaults(&c);
        snprintf(v, sizeof v, "%llu", (unsigned long long)k->lo);
        assert_int_equal(set(&c, k->name, v), 0);
        assert_int_equal(get_num(&c, k), k->lo);
        snprintf(v, sizeof v, "%llu", (unsigned long long)k->hi);
        assert_int_equal(set(&c, k->name, v), 0);
        assert_int_equal(get_num(&c, k), k->hi);
        /* Past either end: refused, the value stays, and the message names key and range. */
        snprintf(v, sizeof v, "%llu", (unsigned long long)k->hi + 1);
        assert_int_equal(set(&c, k->name, v), -1);
        assert_int_equal(get_num(&c, k), k->hi);
        assert_non_null(strstr(err, k->name));
        char range[64];
        snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)k->lo,
                 (unsigned long long)k->hi);
        assert_non_null(strstr(err, range));
        if (k->lo > 0) {
            snprintf(v, sizeof v, "%llu", (unsigned long long)k->lo - 1);
            assert_int_equal(set(&c, k->name, v), -1);
            assert_int_equal(get_num(&c, k), k->hi);
        }
    }
}

static void test_numbers_syntax(void **state)
{
    (void)state;
    bsd_config c;
    bsd_config_defaults(&c);
    /* Binary suffixes, either case. */
    assert_int_equal(set(&c, "max_shm_bytes", "4k"), 0);
    assert_int_equal(c.max_shm_bytes, 4096);
    assert_int_equal(set(&c, "max_shm_bytes", "4K"), 0);
    assert_int_equal(c.max_shm_bytes, 4096);
    assert_int_equal(set(&c, "max_shm_bytes", "3m"), 0);
    assert_int_equal(c.max_shm_bytes, (uint64_t)3 << 20);
    assert_int_equal(set(&c, "max_shm_bytes", "1024G"), 0);
    assert_int_equal(c.max_shm_bytes, (uint64_t)1 << 40);
    assert_int_equal(set(&c, "max_shm_bytes", "1025G"), -1); /* past 2^40 */
    assert_int_equal(set(&c, "max_clients", "2K"), 0);
    assert_int_equal(c.max_clients, 2048);

    /* Not numbers, or more than a number. */
    static const char *bad[] = {
        "",
        " 1",
        "-1",
        "+1",
        "1 ",
        "0x10",
        "1KB",
        "1K1",
        "1T",
        "K",
        "1.5M",
        "4096\n",
        /* 2^64: strtoull's overflow */
        "18446744073709551616",
        /* fits 64 bits, but not after the G shift */
        "17179869184G",
        /* (2^54 + 4) << 10 wraps to 4096, inside the range: only the shift check refuses it */
        "18014398509481988K",
        /* 2^64 - 1: the shift check alone would pass it; the range does not */
        "18446744073709551615",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bsd_config_defaults(&c);
        assert_int_equal(set(&c, "max_shm_bytes", bad[i]), -1);
        assert_int_equal(c.max_shm_bytes, (uint64_t)1 << 30); /* default unchanged */
    }
    /* An unsigned field never takes a value that would be cut to 32 bits. */
    bsd_config_defaults(&c);
    assert_int_equal(set(&c, "max_inflight_jobs", "4294967297"), -1);
    assert_int_equal(c.max_inflight_jobs, 4096);
}

static void test_words(void **state)
{
    (void)state;
    bsd_config c;
    bsd_config_defaults(&c);
    assert_int_equal(c.memlock, BSD_MEMLOCK_TRY);
    assert_int_equal(set(&c, "memlock", "off"), 0);
    assert_int_equal(c.memlock, BSD_MEMLOCK_OFF);
    assert_int_equal(set(&c, "memlock", "required"), 0);
    assert_int_equal(c.memlock, BSD_MEMLOCK_REQUIRED);
    assert_int_equal(set(&c, "memlock", "try"), 0);
    assert_int_equal(c.memlock, BSD_MEMLOCK_TRY);
    assert_int_equal(set(&c, "memlock", "yes"), -1);
    assert_int_equal(set(&c, "memlock", "TRY"), -1);
    assert_int_equal(c.memlock, BSD_MEMLOCK_TRY);

    assert_int_equal(set(&c, "log_level", "debug"), 0);
    assert_int_equal(c.log_debug, 1);
    assert_int_equal(set(&c, "log_level", "info"), 0);
    assert_int_equal(c.log_debug, 0);
    assert_int_equal(set(&c, "log_level", "warn"), -1);

    assert_int_equal(set(&c, "backend", "cpu"), 0);
    assert_string_equal(c.backend, "cpu");
    assert_int_equal(set(&c, "backend", "auto"), 0);
    assert_string_equal(c.backend, "auto");
    assert_int_equal(set(&c, "backend", "gpu"), -1);
    assert_string_equal(c.backend, "auto");
    /* The message lists what this build has. */
    assert_non_null(strstr(err, "auto"));
    assert_non_null(strstr(err, "cpu"));

    /* Unknown keys are errors (a typo must not keep a default silently). */
    assert_int_equal(set(&c, "max_client", "10"), -1);
    assert_non_null(strstr(err, "unknown setting 'max_client'"));
    assert_int_equal(set(&c, "", "1"), -1);
    assert_int_equal(set(&c, "Threads", "1"), -1);
}

static void test_socket(void **state)
{
    (void)state;
    bsd_config c;
    bsd_config_defaults(&c);
    char def[sizeof c.socket_path];
    snprintf(def, sizeof def, "%s", c.socket_path);
    assert_int_equal(set(&c, "socket", "relative/x.sock"), -1);
    assert_int_equal(set(&c, "socket", ""), -1);
    assert_string_equal(c.socket_path, def);

    /* sun_path holds 107 bytes and the NUL. */
    char p[sizeof c.socket_path + 1];
    memset(p, 'a', sizeof p);
    p[0] = '/';
    p[sizeof c.socket_path - 1] = 0; /* 107 characters */
    assert_int_equal(set(&c, "socket", p), 0);
    assert_string_equal(c.socket_path, p);
    p[sizeof c.socket_path - 1] = 'a';
    p[sizeof c.socket_path] = 0; /* 108 characters */
    assert_int_equal(set(&c, "socket", p), -1);
    assert_int_equal(strlen(c.socket_path), sizeof c.socket_path - 1);
}

static void test_default_socket(void **state)
{
    (void)state;
    char out[108];
    const char *saved = getenv("XDG_RUNTIME_DIR");
    char keep[256] = "";
    if (saved != NULL)
        snprintf(keep, sizeof keep, "%s", saved);
    setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
    bsd_default_socket_path(out, sizeof out);
    assert_string_equal(out, "/run/user/4242/bitslice/bitsliced.sock");
    setenv("XDG_RUNTIME_DIR", "relative", 1); /* not absolute: ignored */
    bsd_default_socket_path(out, sizeof out);
    assert_string_equal(out, "/run/bitslice/bitsliced.sock");
    unsetenv("XDG_RUNTIME_DIR");
    bsd_default_socket_path(out, sizeof out);
    assert_string_equal(out, "/run/bitslice/bitsliced.sock");
    if (saved != NULL)
        setenv("XDG_RUNTIME_DIR", keep, 1);
}

static void test_id_lists(void **state)
{
    (void)state;
    bsd_config c;
    bsd_config_defaults(&c);
    assert_int_equal(c.n_allow_uids, 0);
    assert_int_equal(set(&c, "allow_uids", "1000, 1001,0"), 0);
    assert_int_equal(c.n_allow_uids, 3);
    assert_int_equal(c.allow_uids[0], 1000);
    assert_int_equal(c.allow_uids[1], 1001);
    assert_int_equal(c.allow_uids[2], 0);
    assert_int_equal(c.n_allow_gids, 0);

    /* Names are resolved when read: root is uid 0 and group 0 on every system. */
    assert_int_equal(set(&c, "allow_gids", "root"), 0);
    assert_int_equal(c.n_allow_gids, 1);
    assert_int_equal(c.allow_gids[0], 0);

    /* A refused list leaves the previous one as it was. */
    static const char *bad[] = {"no-such-user-bitslice-test", "4294967295", "12x", "1,-2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(set(&c, "allow_uids", bad[i]), -1);
        assert_int_equal(c.n_allow_uids, 3);
        assert_int_equal(c.allow_uids[0], 1000);
    }
    assert_int_equal(set(&c, "allow_uids", "4294967294"), 0);
    assert_int_equal(c.allow_uids[0], (uid_t)4294967294u);

    /* BSD_MAX_ALLOW ids, and one more. */
    char list[512] = "";
    for (int i = 0; i < BSD_MAX_ALLOW; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", 100 + i);
    assert_int_equal(set(&c, "allow_uids", list), 0);
    assert_int_equal(c.n_allow_uids, BSD_MAX_ALLOW);
    assert_int_equal(c.allow_uids[BSD_MAX_ALLOW - 1], 100 + BSD_MAX_ALLOW - 1);
    snprintf(list + strlen(list), sizeof list - strlen(list), ",999");
    assert_int_equal(set(&c, "allow_uids", list), -1);
    assert_int_equal(c.n_allow_uids, BSD_MAX_ALLOW);
    assert_int_equal(c.allow_uids[0], 100);
}

/* The error text never runs past the buffer the caller gave (AddressSanitizer watches). */
static void test_small_error_buffer(void **state)
{
    (void)state;
    bsd_config c;
    bsd_config_defaults(&c);
    char *small = (char *)malloc(8);
    assert_non_null(small);
    assert_int_equal(bsd_config_set(&c, "max_clients", "99999999", small, 8), -1);
    assert_int_equal(strlen(small), 7);
    assert_int_equal(bsd_config_set(&c, "nonsense", "1", small, 8), -1);
    assert_int_equal(strlen(small), 7);
    free(small);
}

static char tmp_path[64];

static void write_file(const char *text)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/bsd-config-test-XXXXXX");
    int fd = mkstemp(tmp_path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void write_bytes(const char *text, size_t n)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/bsd-config-test-XXXXXX");
    int fd = mkstemp(tmp_path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    close(fd);
}

/* Loads text (n bytes) and requires a refusal that names the file and line (and says why). */
static void refused_at(const char *text, size_t n, unsigned line, const char *why)
{
    bsd_config c, def;
    bsd_config_defaults(&c);
    bsd_config_defaults(&def);
    write_bytes(text, n);
    err[0] = 0;
    int r = bsd_config_load(&c, tmp_path, err, sizeof err);
    char want[128];
    snprintf(want, sizeof want, "%s:%u: ", tmp_path, line);
    unlink(tmp_path);
    if (r != -1 || strncmp(err, want, strlen(want)) != 0 || strstr(err, why) == NULL)
        fail_msg("expected a refusal at %s ...%s, got %d: '%s'", want, why, r, err);
    /* Nothing before the refused line is lost, nothing of it or after it is taken. */
    assert_int_equal(c.max_clients, line > 1 ? 7 : def.max_clients);
    assert_int_equal(c.n_allow_uids, 0);
}

/*
 * The review's probes (F4): a line or value that does not fit, or holds a NUL, is refused with
 * file and line, never cut or split. Before, each of these loaded: the tail of the long comment
 * became a setting, both lists were cut (the second admitting uid 6, never listed), "1<NUL>2"
 * read as 1.
 */
static void test_no_cut(void **state)
{
    (void)state;
    static char text[4096];
    /* 1. A comment line whose tail, past byte 1023, is a setting (1038 and 1041 bytes). */
    for (int k = 0; k < 2; k++) {
        const char *tail = k == 0 ? "max_clients = 3" : "allow_uids = 65534";
        int n = snprintf(text, sizeof text, "max_clients = 7\n#");
        memset(text + n, 'x', 1022);
        n += 1022;
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\n", tail);
        refused_at(text, (size_t)n, 2, "longer than 1023");
    }
    /* 2. and 3. allow_uids values of 512 and 515 characters. */
    static const char *const lists[][2] = {{"6", ", 0"}, {"0", ",65534"}};
    for (int k = 0; k < 2; k++) {
        int n = snprintf(text, sizeof text, "max_clients = 7\nallow_uids = %s", lists[k][0]);
        memset(text + n, ' ', 508);
        n += 508;
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\n", lists[k][1]);
        refused_at(text, (size_t)n, 2, "longer than 511");
    }
    /* 4. A NUL byte in a value, and in a comment. */
    refused_at("max_clients = 1\0"
               "2\n",
               17, 1, "NUL");
    refused_at("max_clients = 7\n# a\0\nallow_uids = 65534\n", 41, 2, "NUL");

    /* What fits is taken whole: a 1023-byte line, a 511-byte list, CRLF endings. */
    bsd_config c;
    bsd_config_defaults(&c);
    int n = snprintf(text, sizeof text, "allow_uids = 6");
    memset(text + n, ' ', 511 - 13 - 3);
    n += 511 - 13 - 3;
    n += snprintf(text + n, sizeof text - (size_t)n, ", 0");
    memset(text + n, ' ', 1023 - (size_t)n);
    n = 1023;
    n += snprintf(text + n, sizeof text - (size_t)n, "\r\nmax_clients = 5\r\n");
    write_bytes(text, (size_t)n);
    int r = bsd_config_load(&c, tmp_path, err, sizeof err);
    unlink(tmp_path);
    if (r != 0)
        fail_msg("%s", err);
    assert_int_equal(c.n_allow_uids, 2);
    assert_int_equal(c.allow_uids[0], 6);
    assert_int_equal(c.allow_uids[1], 0);
    assert_int_equal(c.max_clients, 5);

    /* The command line's --set takes a value whole or refuses it as well. */
    char kv[600];
    n = snprintf(kv, sizeof kv, "allow_uids=0");
    memset(kv + n, ' ', 508);
    snprintf(kv + n + 508, sizeof kv - (size_t)n - 508, ",65534");
    bsd_config_defaults(&c);
    assert_int_equal(bsd_config_set_kv(&c, kv, err, sizeof err), -1);
    assert_non_null(strstr(err, "longer than 511"));
    assert_int_equal(c.n_allow_uids, 0);
    assert_int_equal(bsd_config_set_kv(&c, "allow_uids=0,65534", err, sizeof err), 0);
    assert_int_equal(c.n_allow_uids, 2);
    assert_int_equal(bsd_config_set_kv(&c, "allow_uids", err, sizeof err), -1);
}

/* A uid's share of a global bound (bsd_peer.h): never the whole bound (review F2). */
static void test_shares(void **state)
{
    (void)state;
    assert_int_equal(bsd_peer_cap(0, 8), 6);
    assert_int_equal(bsd_peer_cap(0, 96), 72);
    assert_int_equal(bsd_peer_cap(3, 8), 3);
    assert_int_equal(bsd_peer_cap(8, 8), 7);
    assert_int_equal(bsd_peer_cap(1000, 8), 7);
    assert_int_equal(bsd_peer_cap(0, 2), 1);
    assert_int_equal(bsd_peer_cap(0, 1), 1);
    assert_int_equal(bsd_peer_cap(5, 1), 1);
}

static void test_load(void **state)
{
    (void)state;
    bsd_config c;
    bsd_config_defaults(&c);
    write_file("# a comment\n"
               "\n"
               "   \t\n"
               "max_clients=12\n"
               "  threads   =   3   # trailing comment\n"
               "\tmemlock = off\n"
               "socket = /tmp/x.sock#not part of the path\n"
               "max_request_bytes = 1M\n");
    assert_int_equal(bsd_config_load(&c, tmp_path, err, sizeof err), 0);
    assert_int_equal(c.max_clients, 12);
    assert_int_equal(c.threads, 3);
    assert_int_equal(c.memlock, BSD_MEMLOCK_OFF);
    assert_string_equal(c.socket_path, "/tmp/x.sock");
    assert_int_equal(c.max_request_bytes, 1u << 20);
    unlink(tmp_path);

    /* The first error names file and line and stops the load there. */
    bsd_config_defaults(&c);
    write_file("threads = 2\n"
               "# two\n"
               "max_clients = 0\n"
               "threads = 5\n");
    assert_int_equal(bsd_config_load(&c, tmp_path, err, sizeof err), -1);
    char want[128];
    snprintf(want, sizeof want, "%s:3: max_clients", tmp_path);
    assert_non_null(strstr(err, want));
    assert_int_equal(c.threads, 2);
    unlink(tmp_path);

    /* A line without '=' is an error too; so is an unknown key. */
    bsd_config_defaults(&c);
    write_file("threads 2\n");
    assert_int_equal(bsd_config_load(&c, tmp_path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1: expected key = value", tmp_path);
    assert_string_equal(err, want);
    unlink(tmp_path);
    write_file("\n\nthreds = 2\n");
    assert_int_equal(bsd_config_load(&c, tmp_path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: unknown setting 'threds'", tmp_path);
    assert_string_equal(err, want);
    unlink(tmp_path);

    /* A missing file says so. */
    assert_int_equal(bsd_config_load(&c, "/nonexistent/bitsliced.conf", err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/bitsliced.conf: "));
}

/* conf/bitsliced.conf documents the defaults: loading it must change nothing. */
static void test_shipped_file(void **state)
{
    (void)state;
    const char *path = getenv("BSD_CONF");
    if (path == NULL)
        skip();
    bsd_config def, c;
    bsd_config_defaults(&def);
    bsd_config_defaults(&c);
    int r = bsd_config_load(&c, path, err, sizeof err);
    if (r != 0)
        fail_msg("%s", err);
    for (size_t i = 0; i < sizeof num_keys / sizeof num_keys[0]; i++)
        if (get_num(&c, &num_keys[i]) != get_num(&def, &num_keys[i]))
            fail_msg("%s: %s = %llu, the compiled-in default is %llu", path, num_keys[i].name,
                     (unsigned long long)get_num(&c, &num_keys[i]),
                     (unsigned long long)get_num(&def, &num_keys[i]));
    assert_memory_equal(&c, &def, sizeof c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_ranges),
        cmocka_unit_test(test_numbers_syntax),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_socket),
        cmocka_unit_test(test_default_socket),
        cmocka_unit_test(test_id_lists),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_shares),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_no_cut),
        cmocka_unit_test(test_shipped_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
