/*
 * REPORT and the log (review F3): one connection pipelined half a million REPORTs, and each was
 * logged at error level and counted as an integrity failure, naming windows never served.
 *  - A REPORT counts only for a window the daemon answered on that connection (same session,
 *    same length), once per window; any other is answered and counted apart
 *    (integrity.client_unmatched_reports), and logs nothing at info level.
 *  - The log lines one uid causes are bounded per unit time: a burst, then a steady rate, and
 *    an "event=log_suppressed uid=U suppressed=N" line for what was left out.
 * The daemon runs at log_level=info (debug lines are not limited).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bsd_client.h"
#include "svc_util.h"

/* Lines of the daemon log holding needle; with sum, the total of the numbers after it. */
static long long count_log(const svc_daemon *d, const char *needle, long long *sum)
{
    FILE *f = fopen(d->log, "r");
    CHECK(f != NULL);
    char line[1024];
    long long n = 0;
    if (sum != NULL)
        *sum = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        const char *p = strstr(line, needle);
        if (p == NULL)
            continue;
        n++;
        if (sum != NULL)
            *sum += strtoll(p + strlen(needle), NULL, 10);
    }
    fclose(f);
    return n;
}

/*
 * Sends n REPORT frames (pipelined, in rounds) and reads their n empty answers off the socket
 * itself, so that the client's own reply parking is not involved. Frame i names windows[i % nw].
 */
typedef struct named {
    uint32_t session;
    uint64_t nblocks;
} named;

static void flood(bsd_client *cl, const named *w, size_t nw, size_t n)
{
    enum { ROUND = 512 };
    static uint8_t buf[ROUND * (BSD_HDR_LEN + BSD_REPORT_REQ_LEN)];
    size_t sent = 0, answered = 0;
    const int fd = bsd_client_fd(cl);
    while (answered < n) {
        size_t k = n - sent < ROUND ? n - sent : ROUND, len = 0;
        for (size_t i = 0; i < k; i++, sent++) {
            bsd_report_req m = {sent % 2 ? BSD_REPORT_SPOT : BSD_REPORT_DIGEST,
                                w[sent % nw].session, w[sent % nw].nblocks};
            bsd_hdr h = {BSD_PROTO_VERSION, BSD_OP_REPORT, 0x40000000u + (uint32_t)sent,
                         BSD_REPORT_REQ_LEN};
            bsd_hdr_encode(buf + len, &h);
            CHECK(bsd_report_req_encode(buf + len + BSD_HDR_LEN, &m) == BSD_REPORT_REQ_LEN);
            len += BSD_HDR_LEN + BSD_REPORT_REQ_LEN;
        }
        if (len > 0)
            CHECK(bsd_client_send_raw(cl, buf, len, -1) == 0);
        /* Read this round's answers: each an empty REPORT reply (12 bytes). */
        static uint8_t in[ROUND * BSD_HDR_LEN];
        size_t want = (sent - answered) * BSD_HDR_LEN, got = 0;
        while (got < want) {
            struct pollfd pf = {fd, POLLIN, 0};
            CHECK(poll(&pf, 1, 10000) == 1);
            ssize_t r = recv(fd, in + got, want - got, 0);
            if (r < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            CHECK(r > 0);
            got += (size_t)r;
        }
        for (size_t off = 0; off < got; off += BSD_HDR_LEN) {
            bsd_hdr h;
            CHECK(bsd_hdr_decode(in + off, BSD_HDR_LEN, 0, &h) == BSD_OK);
            CHECK(h.op == (BSD_OP_REPORT | BSD_OP_REPLY) && h.len == 0);
        }
        answered = sent;
    }
}

static void reports(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"log_level=info", NULL};
    svc_start(&d, NULL, sets);
    const bs_block_cipher *cs[16];
    CHECK(svc_ciphers(cs, 16) > 0);
    const bs_block_cipher *c = cs[0];
    bsd_client_opts o = {d.socket, 1000, 10000};
    bsd_client *cl, *other;
    CHECK(bsd_client_connect(&o, &cl) == 0);
    CHECK(bsd_client_map_shm(cl, 1 << 20) == 0);
    uint8_t key[BS_KEY_MAX] = {1}, ctr[32] = {0};
    uint32_t sid;
    CHECK(bsd_client_open_session(cl, c->name, key, c->key_len, &sid, NULL) == 0);
    /* Three windows served on this connection: 64, 64 and 128 blocks. */
    CHECK(bsd_client_keystream(cl, sid, ctr, c->block_len, 64, 0) == 0);
    ctr[0] = 1;
    CHECK(bsd_client_keystream(cl, sid, ctr, c->block_len, 64, 65536) == 0);
    ctr[0] = 2;
    CHECK(bsd_client_keystream(cl, sid, ctr, c->block_len, 128, 131072) == 0);
    const long long digest0 = svc_status_of(&d, "integrity.client_digest_mismatches");
    const long long spot0 = svc_status_of(&d, "integrity.client_spot_mismatches");
    CHECK(digest0 == 0 && spot0 == 0);

    /* Never served: another session, another length, and another connection's window. */
    const named never[] = {{sid + 7, 64}, {sid, 65}, {sid, 0}, {0, 64}};
    const long long t0 = svc_now_ms();
    flood(cl, never, 4, 20000);
    CHECK(bsd_client_connect(&o, &other) == 0);
    const named theirs[] = {{sid, 64}, {sid, 128}};
    flood(other, theirs, 2, 1000);
    CHECK(svc_status_of(&d, "integrity.client_digest_mismatches") == 0);
    CHECK(svc_status_of(&d, "integrity.client_spot_mismatches") == 0);
    CHECK(svc_status_of(&d, "integrity.client_unmatched_reports") == 21000);
    CHECK(count_log(&d, "event=integrity", NULL) == 0);
    printf("21000 REPORTs naming windows never served to their connection: none counted, none "
           "logged (integrity.client_unmatched_reports=21000)\n");

    /* The served windows, each named 10000 times: each counts once, and is logged once. */
    const named served[] = {{sid, 64}, {sid, 128}};
    flood(cl, served, 2, 20000);
    const long long counted = svc_status_of(&d, "integrity.client_digest_mismatches") +
                              svc_status_of(&d, "integrity.client_spot_mismatches");
    const long long logged = count_log(&d, "event=integrity", NULL);
    printf("20000 REPORTs naming the 3 windows served on the connection: %lld counted, %lld "
           "logged, in %lld ms\n",
           counted, logged, svc_now_ms() - t0);
    CHECK(counted == 3);
    CHECK(logged == 3);
    CHECK(svc_status_of(&d, "integrity.client_unmatched_reports") == 21000 + 20000 - 3);
    /* Served again: one more window to name. */
    ctr[0] = 3;
    CHECK(bsd_client_keystream(cl, sid, ctr, c->block_len, 64, 0) == 0);
    flood(cl, served, 1, 100);
    CHECK(svc_status_of(&d, "integrity.client_digest_mismatches") +
              svc_status_of(&d, "integrity.client_spot_mismatches") ==
          4);
    bsd_client_close(other);
    bsd_client_close(cl);
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

/*
 * One uid opens and closes connections as fast as it can: the lines it causes (accept,
 * disconnect) stay within its budget (BSD_PEER_LOG_BURST at once, BSD_PEER_LOG_RATE a second,
 * one suppressed-count line a second), and what was left out is said with its count.
 */
static void connection_flood(void)
{
    svc_daemon d;
    svc_init(&d);
    static const char *const sets[] = {"log_level=info", NULL};
    svc_start(&d, NULL, sets);
    bsd_client_opts o = {d.socket, 1000, 10000};
    /* 600 connections, 1200 lines asked for: more than the burst, whatever the speed. */
    const long long t0 = svc_now_ms();
    const int n = 600;
    for (int i = 0; i < n; i++) {
        bsd_client *cl;
        CHECK(bsd_client_connect(&o, &cl) == 0);
        bsd_client_close(cl);
    }
    const long long elapsed = svc_now_ms() - t0;
    /* The suppressed count is said once the bucket has room (bounded poll). */
    for (int i = 0; i < 500 && count_log(&d, "event=log_suppressed uid=0 suppressed=", NULL) == 0;
         i++)
        svc_sleep_ms(10);
    const long long waited = svc_now_ms() - t0;
    long long said = 0;
    const long long lines = count_log(&d, "event=accept ", NULL) +
                            count_log(&d, "event=disconnect ", NULL) +
                            count_log(&d, "event=log_suppressed uid=0 suppressed=", &said);
    /* The budget: a burst of 200, then 10 a second, all lines of this uid included. */
    const long long bound = 200 + 10 * (waited / 1000 + 1);
    const long long status_said = svc_status_of(&d, "log_suppressed");
    printf("%d connections opened and closed in %lld ms: %lld log lines in %lld ms (bound %lld), "
           "%lld said suppressed; STATUS log_suppressed=%lld\n",
           n, elapsed, lines, waited, bound, said, status_said);
    CHECK(lines <= bound);
    CHECK(said > 0);
    CHECK(status_said >= said);
    CHECK(svc_stop(&d) == 0);
    svc_cleanup(&d);
}

int main(void)
{
    reports();
    connection_flood();
    return 0;
}
