/*
 * The daemon's STATUS text (service/bsd_status.c) on its own: the backend's describe line reaches
 * the client whole. A backend line as long as the CUDA backend's on an H200 (~330 bytes, its
 * counters last) must keep its last field; with the 128-byte buffer the daemon once had, the
 * counters after "batches=" were cut off and STATUS could not say whether the GPU failed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bsd_proto.h"
#include "bsd_status.h"

#define LONG_LINE                                                                                  \
    "device=cuda gpus=1 gpus_failed=0 device=0 name=\"NVIDIA H200\" sm=90 sms=132 "                \
    "mem_mb=143155 streams=3 chunk_mb=64 batches=2844 blocks=279460097 cpu_fallbacks=0 "           \
    "cuda_errors=0 copy_refusals=0 self_check_failures=0 device_keys=1000/4096 "                   \
    "device_key_loads=123456 "                                                                     \
    "device_key_wipes=122456 device_keys_full=0 last_cuda_error=\"a CUDA error message of some "   \
    "length, as the runtime writes them\""

static void long_describe(bsd_backend *be, char *out, size_t len)
{
    (void)be;
    snprintf(out, len, "%s", LONG_LINE);
}

static const bsd_backend_ops long_ops = {.name = "cuda", .describe = long_describe};

static void test_backend_line_whole(void **state)
{
    (void)state;
    static bsd_daemon d; /* zeroes: no connections, sessions, queues or counters */
    bsd_backend be = {.ops = &long_ops};
    d.backend = &be;
    d.listen_fd = -1;
    static char text[BSD_MAX_REPLY_PAYLOAD];
    size_t n = bsd_status_text(&d, text, sizeof text);
    assert_true(n > 0 && n < sizeof text);
    assert_non_null(strstr(text, "\nbackend=cuda\n"));
    assert_non_null(strstr(text, "\nbackend_info=" LONG_LINE "\n"));
    assert_non_null(strstr(text, "\nbytes_served=0\n"));
    /* The daemon's own costs: this process's wakeups (read from /proc) and page faults. */
    const char *wk = strstr(text, "\nwakeups_total=");
    assert_non_null(wk);
    assert_true(atoll(wk + 15) >= 0); /* read (-1: /proc unreadable) */
    const char *pf = strstr(text, "\npage_faults_minor=");
    assert_non_null(pf);
    assert_true(atoll(pf + 19) > 0);
    assert_null(strstr(text, "\nwakeups_per_request=")); /* no request yet */
    assert_non_null(strstr(text, "\nsyscalls_total=0\n"));
    assert_null(strstr(text, "\nsyscalls_per_request="));
    /* The loop's count and the backend's add up, per KEYSTREAM request. */
    d.stats.syscalls = 30;
    d.stats.keystream_requests = 8;
    bsd_backend_syscalls = 12;
    bsd_status_text(&d, text, sizeof text);
    assert_non_null(strstr(text, "\nsyscalls_total=42\n"));
    assert_non_null(strstr(text, "\nsyscalls_per_request=5.25\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_backend_line_whole)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
