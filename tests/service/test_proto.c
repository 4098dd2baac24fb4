/*
 * The wire codec (service/proto/bsd_proto.c) on its own, against PROTOCOL.md: the header's byte
 * layout, every truncated prefix of a frame (BSD_NEED_MORE, never a decode), oversize lengths
 * refused from the header alone, other versions, unknown ops, every op's exact payload length,
 * reserved fields, ranges at and past their bounds, and encode/decode round trips. The daemon
 * and the client both trust these checks before they act on or allocate for a frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bsd_proto.h"

/* A whole request frame: header (version 2, op, id) and payload. Returns its length. */
static size_t frame(uint8_t *out, uint8_t op, uint32_t id, const uint8_t *payload, size_t n)
{
    bsd_hdr h = {.version = BSD_PROTO_VERSION, .op = op, .id = id, .len = (uint32_t)n};
    bsd_hdr_encode(out, &h);
    if (n > 0 && n <= BSD_MAX_REQUEST_PAYLOAD)
        memcpy(out + BSD_HDR_LEN, payload, n);
    return BSD_HDR_LEN + n;
}

static void test_header_layout(void **state)
{
    (void)state;
    /* PROTOCOL.md "Frame": magic 42 53, version, op, id and len little-endian. */
    static const uint8_t want[BSD_HDR_LEN] = {0x42, 0x53, 2,    0x85, 0x04, 0x03,
                                              0x02, 0x01, 0x30, 0x00, 0x00, 0x00};
    bsd_hdr h = {.version = 2, .op = 0x85, .id = 0x01020304u, .len = 0x30};
    uint8_t out[BSD_HDR_LEN];
    bsd_hdr_encode(out, &h);
    assert_memory_equal(out, want, sizeof want);

    bsd_hdr d;
    assert_int_equal(bsd_hdr_decode(want, sizeof want, BSD_MAX_REPLY_PAYLOAD, &d), BSD_OK);
    assert_int_equal(d.version, 2);
    assert_int_equal(d.op, 0x85);
    assert_int_equal(d.id, 0x01020304u);
    assert_int_equal(d.len, 0x30);
}

static void test_header_checks(void **state)
{
    (void)state;
    uint8_t buf[BSD_HDR_LEN];
    bsd_hdr h = {.version = BSD_PROTO_VERSION, .op = BSD_OP_STATUS, .id = 7, .len = 0};
    bsd_hdr d;
    bsd_hdr_encode(buf, &h);
    for (size_t n = 0; n < BSD_HDR_LEN; n++)
        assert_int_equal(bsd_hdr_decode(buf, n, BSD_MAX_REQUEST_PAYLOAD, &d), BSD_NEED_MORE);

    /* Magic: either byte wrong. */
    for (int i = 0; i < 2; i++) {
        uint8_t bad[BSD_HDR_LEN];
        memcpy(bad, buf, sizeof bad);
        bad[i] ^= 0x01;
        assert_int_equal(bsd_hdr_decode(bad, sizeof bad, BSD_MAX_REQUEST_PAYLOAD, &d),
                         -BSD_E_MALFORMED);
    }
    /* Version: only 2 (a version-1 peer's first frame fails here, PROTOCOL.md "Versions"). */
    static const uint8_t versions[] = {0, 1, 3, 0x82, 0xff};
    for (size_t i = 0; i < sizeof versions; i++) {
        h.version = versions[i];
        bsd_hdr_encode(buf, &h);
        assert_int_equal(bsd_hdr_decode(buf, sizeof buf, BSD_MAX_REQUEST_PAYLOAD, &d),
                         -BSD_E_VERSION);
    }
    /* len: up to the maximum the caller gives, then FRAME_TOO_LARGE (before any payload). */
    h.version = BSD_PROTO_VERSION;
    const uint32_t lens[] = {BSD_MAX_REQUEST_PAYLOAD, BSD_MAX_REQUEST_PAYLOAD + 1, 0xffffffffu};
    const int want[] = {BSD_OK, -BSD_E_FRAME_TOO_LARGE, -BSD_E_FRAME_TOO_LARGE};
    for (size_t i = 0; i < 3; i++) {
        h.len = lens[i];
        bsd_hdr_encode(buf, &h);
        assert_int_equal(bsd_hdr_decode(buf, sizeof buf, BSD_MAX_REQUEST_PAYLOAD, &d), want[i]);
    }
    h.len = BSD_MAX_REPLY_PAYLOAD;
    bsd_hdr_encode(buf, &h);
    assert_int_equal(bsd_hdr_decode(buf, sizeof buf, BSD_MAX_REPLY_PAYLOAD, &d), BSD_OK);
    h.len = BSD_MAX_REPLY_PAYLOAD + 1;
    bsd_hdr_encode(buf, &h);
    assert_int_equal(bsd_hdr_decode(buf, sizeof buf, BSD_MAX_REPLY_PAYLOAD, &d),
                     -BSD_E_FRAME_TOO_LARGE);
}

static void keystream_payload(uint8_t *p, uint32_t session, uint64_t off, uint64_t nblocks)
{
    bsd_keystream_req m;
    memset(&m, 0, sizeof m);
    m.session = session;
    m.shm_offset = off;
    m.nblocks = nblocks;
    for (int i = 0; i < BSD_COUNTER_LEN; i++)
        m.counter[i] = (uint8_t)(0xa0 + i);
    assert_int_equal(bsd_keystream_req_encode(p, &m), BSD_KEYSTREAM_REQ_LEN);
}

/* Every proper prefix of a frame is "need more"; the whole frame decodes and says its size. */
static void test_request_truncated(void **state)
{
    (void)state;
    uint8_t pay[BSD_KEYSTREAM_REQ_LEN], buf[2 * (BSD_HDR_LEN + BSD_KEYSTREAM_REQ_LEN)];
    keystream_payload(pay, 9, 4096, 100);
    size_t n = frame(buf, BSD_OP_KEYSTREAM, 77, pay, sizeof pay);
    bsd_request req;
    for (size_t k = 0; k < n; k++) {
        size_t consumed = 12345;
        assert_int_equal(bsd_request_decode(buf, k, &req, &consumed), BSD_NEED_MORE);
        assert_int_equal(consumed, 12345); /* nothing consumed from an incomplete frame */
    }
    /* Two frames back to back: the first one only, then the second from where it starts. */
    keystream_payload(pay, 10, 0, 1);
    size_t n2 = frame(buf + n, BSD_OP_KEYSTREAM, 78, pay, sizeof pay);
    size_t consumed = 0;
    assert_int_equal(bsd_request_decode(buf, n + n2, &req, &consumed), BSD_OK);
    assert_int_equal(consumed, n);
    assert_int_equal(req.hdr.op, BSD_OP_KEYSTREAM);
    assert_int_equal(req.hdr.id, 77);
    assert_int_equal(req.u.keystream.session, 9);
    assert_int_equal(req.u.keystream.shm_offset, 4096);
    assert_int_equal(req.u.keystream.nblocks, 100);
    assert_int_equal(req.u.keystream.counter[31], 0xa0 + 31);
    assert_int_equal(bsd_request_decode(buf + n, n2, &req, &consumed), BSD_OK);
    assert_int_equal(consumed, n2);
    assert_int_equal(req.hdr.id, 78);
    assert_int_equal(req.u.keystream.session, 10);
}

/* An oversize len is refused from the 12 header bytes alone: the daemon never waits for it. */
static void test_request_oversize(void **state)
{
    (void)state;
    uint8_t buf[BSD_HDR_LEN];
    bsd_hdr h = {.version = BSD_PROTO_VERSION, .op = BSD_OP_OPEN_SESSION, .id = 1};
    bsd_request req;
    size_t consumed;
    h.len = BSD_MAX_REQUEST_PAYLOAD + 1;
    bsd_hdr_encode(buf, &h);
    assert_int_equal(bsd_request_decode(buf, sizeof buf, &req, &consumed), -BSD_E_FRAME_TOO_LARGE);
    h.len = BSD_MAX_REQUEST_PAYLOAD;
    bsd_hdr_encode(buf, &h);
    assert_int_equal(bsd_request_decode(buf, sizeof buf, &req, &consumed), BSD_NEED_MORE);
    /* A reply-sized STATUS frame is still too large as a request. */
    h.len = BSD_MAX_REPLY_PAYLOAD;
    bsd_hdr_encode(buf, &h);
    assert_int_equal(bsd_request_decode(buf, sizeof buf, &req, &consumed), -BSD_E_FRAME_TOO_LARGE);
}

static void test_request_ops(void **state)
{
    (void)state;
    uint8_t buf[BSD_HDR_LEN + BSD_MAX_REQUEST_PAYLOAD], pay[BSD_MAX_REQUEST_PAYLOAD];
    bsd_request req;
    size_t consumed, n;
    memset(pay, 0, sizeof pay);
    /* Unknown ops, replies and ERROR are not requests. */
    static const uint8_t bad_ops[] = {0, 9, 0x7e, BSD_OP_ERROR, BSD_OP_HELLO | BSD_OP_REPLY, 0xff};
    for (size_t i = 0; i < sizeof bad_ops; i++) {
        n = frame(buf, bad_ops[i], 1, pay, 0);
        assert_int_equal(bsd_request_decode(buf, n, &req, &consumed), -BSD_E_UNKNOWN_OP);
    }
    /* STATUS carries nothing. */
    n = frame(buf, BSD_OP_STATUS, 1, pay, 0);
    assert_int_equal(bsd_request_decode(buf, n, &req, &consumed), BSD_OK);
    n = frame(buf, BSD_OP_STATUS, 1, pay, 1);
    assert_int_equal(bsd_request_decode(buf, n, &req, &consumed), -BSD_E_MALFORMED);

    /* Each fixed-size op: its exact length decodes, one byte less or more is malformed. */
    struct {
        uint8_t op;
        size_t len;
    } fixed[] = {
        {BSD_OP_HELLO, BSD_HELLO_REQ_LEN},         {BSD_OP_MAP_SHM, BSD_MAP_SHM_REQ_LEN},
        {BSD_OP_CLOSE_SESSION, BSD_CLOSE_REQ_LEN}, {BSD_OP_KEYSTREAM, BSD_KEYSTREAM_REQ_LEN},
        {BSD_OP_REPORT, BSD_REPORT_REQ_LEN},       {BSD_OP_RATE, BSD_RATE_REQ_LEN},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        memset(pay, 0, sizeof pay);
        /* Smallest valid payload of each: HELLO 1..2, MAP_SHM 4096, KEYSTREAM 1 block, REPORT 1. */
        pay[0] = fixed[i].op == BSD_OP_MAP_SHM ? 0 : 1;
        pay[1] = fixed[i].op == BSD_OP_MAP_SHM ? 0x10 : 0;
        pay[2] = fixed[i].op == BSD_OP_HELLO ? 2 : 0;
        if (fixed[i].op == BSD_OP_KEYSTREAM)
            pay[16] = 1;
        if (fixed[i].op == BSD_OP_RATE) /* a one-letter cipher name */
            pay[0] = 'A';
        n = frame(buf, fixed[i].op, 5, pay, fixed[i].len);
        assert_int_equal(bsd_request_decode(buf, n, &req, &consumed), BSD_OK);
        assert_int_equal(consumed, n);
        n = frame(buf, fixed[i].op, 5, pay, fixed[i].len - 1);
        assert_int_equal(bsd_request_decode(buf, n, &req, &consumed), -BSD_E_MALFORMED);
        n = frame(buf, fixed[i].op, 5, pay, fixed[i].len + 1);
        assert_int_equal(bsd_request_decode(buf, n, &req, &consumed), -BSD_E_MALFORMED);
    }
}

static void test_hello(void **state)
{
    (void)state;
    uint8_t p[BSD_HELLO_REQ_LEN];
    bsd_hello_req m = {.min_version = 2, .max_version = 5}, d;
    assert_int_equal(bsd_hello_req_encode(p, &m), BSD_HELLO_REQ_LEN);
    assert_int_equal(bsd_hello_req_decode(p, sizeof p, &d), BSD_OK);
    assert_int_equal(d.min_version, 2);
    assert_int_equal(d.max_version, 5);
    for (int i = 4; i < 8; i++) { /* reserved */
        p[i] = 1;
        assert_int_equal(bsd_hello_req_decode(p, sizeof p, &d), -BSD_E_MALFORMED);
        p[i] = 0;
    }
    m.min_version = 0;
    bsd_hello_req_encode(p, &m);
    assert_int_equal(bsd_hello_req_decode(p, sizeof p, &d), -BSD_E_MALFORMED);
    m.min_version = 3;
    m.max_version = 2;
    bsd_hello_req_encode(p, &m);
    assert_int_equal(bsd_hello_req_decode(p, sizeof p, &d), -BSD_E_MALFORMED);
    m.min_version = m.max_version = 2;
    bsd_hello_req_encode(p, &m);
    assert_int_equal(bsd_hello_req_decode(p, sizeof p, &d), BSD_OK);

    uint8_t r[BSD_HELLO_REP_LEN];
    bsd_hello_rep rep = {.version = 2,
                         .caps = BSD_CAP_SHM_KEYSTREAM,
                         .max_sessions = 16,
                         .max_request_bytes = (uint64_t)64 << 20,
                         .max_queued_bytes = ((uint64_t)1 << 40) + 3},
                  back;
    snprintf(rep.backend, sizeof rep.backend, "%s", "0123456789abcdef"); /* all 16 bytes */
    assert_int_equal(bsd_hello_rep_encode(r, &rep), BSD_HELLO_REP_LEN);
    assert_int_equal(bsd_hello_rep_decode(r, sizeof r, &back), BSD_OK);
    assert_int_equal(back.version, 2);
    assert_int_equal(back.caps, BSD_CAP_SHM_KEYSTREAM);
    assert_int_equal(back.max_sessions, 16);
    assert_int_equal(back.max_request_bytes, (uint64_t)64 << 20);
    assert_int_equal(back.max_queued_bytes, ((uint64_t)1 << 40) + 3);
    assert_string_equal(back.backend, "0123456789abcdef");
    assert_int_equal(bsd_hello_rep_decode(r, sizeof r - 1, &back), -BSD_E_MALFORMED);
    memset(r + 28, 0, BSD_BACKEND_NAME_LEN); /* empty name */
    assert_int_equal(bsd_hello_rep_decode(r, sizeof r, &back), -BSD_E_MALFORMED);
}

static void test_map_shm(void **state)
{
    (void)state;
    uint8_t p[BSD_MAP_SHM_REQ_LEN];
    const uint64_t sizes[] = {0, 1, (uint64_t)1 << 40, ((uint64_t)1 << 40) + 1, UINT64_MAX};
    const int want[] = {-BSD_E_MALFORMED, BSD_OK, BSD_OK, -BSD_E_MALFORMED, -BSD_E_MALFORMED};
    for (size_t i = 0; i < 5; i++) {
        bsd_map_shm_req m = {.size = sizes[i]}, d;
        bsd_map_shm_req_encode(p, &m);
        assert_int_equal(bsd_map_shm_req_decode(p, sizeof p, &d), want[i]);
        if (want[i] == BSD_OK)
            assert_int_equal(d.size, sizes[i]);
    }
}

static size_t open_payload(uint8_t *p, const char *name, uint16_t key_len)
{
    bsd_open_req m;
    memset(&m, 0, sizeof m);
    snprintf(m.cipher, sizeof m.cipher, "%s", name);
    m.key_len = key_len;
    for (int i = 0; i < BSD_KEY_MAX; i++)
        m.key[i] = (uint8_t)(i * 7 + 1);
    return bsd_open_req_encode(p, &m);
}

static void test_open(void **state)
{
    (void)state;
    uint8_t p[BSD_OPEN_REQ_FIXED_LEN + BSD_KEY_MAX + 1];
    bsd_open_req d;
    size_t n = open_payload(p, "PRESENT-80", 10);
    assert_int_equal(n, BSD_OPEN_REQ_FIXED_LEN + 10);
    assert_int_equal(bsd_open_req_decode(p, n, &d), BSD_OK);
    assert_string_equal(d.cipher, "PRESENT-80");
    assert_int_equal(d.key_len, 10);
    assert_int_equal(d.key[9], 9 * 7 + 1);
    /* The payload length must be exactly fixed + key_len. */
    assert_int_equal(bsd_open_req_decode(p, n - 1, &d), -BSD_E_MALFORMED);
    assert_int_equal(bsd_open_req_decode(p, n + 1, &d), -BSD_E_MALFORMED);
    assert_int_equal(bsd_open_req_decode(p, BSD_OPEN_REQ_FIXED_LEN - 1, &d), -BSD_E_MALFORMED);

    /* key_len 1 and BSD_KEY_MAX are in range, 0 and BSD_KEY_MAX + 1 are not. */
    n = open_payload(p, "X", 1);
    assert_int_equal(bsd_open_req_decode(p, n, &d), BSD_OK);
    n = open_payload(p, "X", BSD_KEY_MAX);
    assert_int_equal(bsd_open_req_decode(p, n, &d), BSD_OK);
    n = open_payload(p, "X", 0);
    assert_int_equal(bsd_open_req_decode(p, n, &d), -BSD_E_MALFORMED);
    n = open_payload(p, "X", BSD_KEY_MAX);
    p[BSD_CIPHER_NAME_LEN] = BSD_KEY_MAX + 1; /* claims one byte more than the maximum */
    assert_int_equal(bsd_open_req_decode(p, n + 1, &d), -BSD_E_MALFORMED);

    /* Reserved u16 after key_len. */
    n = open_payload(p, "GIFT-64", 16);
    p[BSD_CIPHER_NAME_LEN + 3] = 1;
    assert_int_equal(bsd_open_req_decode(p, n, &d), -BSD_E_MALFORMED);

    /* Names: all 24 bytes used (no NUL) is fine; empty, a space, a control byte, a byte past
     * the NUL padding are not. */
    n = open_payload(p, "ABCDEFGHIJKLMNOPQRSTUVWX", 4);
    assert_int_equal(bsd_open_req_decode(p, n, &d), BSD_OK);
    assert_string_equal(d.cipher, "ABCDEFGHIJKLMNOPQRSTUVWX");
    n = open_payload(p, "", 4);
    assert_int_equal(bsd_open_req_decode(p, n, &d), -BSD_E_MALFORMED);
    n = open_payload(p, "AB CD", 4);
    assert_int_equal(bsd_open_req_decode(p, n, &d), -BSD_E_MALFORMED);
    n = open_payload(p, "AB\x01", 4);
    assert_int_equal(bsd_open_req_decode(p, n, &d), -BSD_E_MALFORMED);
    n = open_payload(p, "AB\x7f", 4);
    assert_int_equal(bsd_open_req_decode(p, n, &d), -BSD_E_MALFORMED);
    n = open_payload(p, "AB", 4);
    p[BSD_CIPHER_NAME_LEN - 1] = 'Z';
    assert_int_equal(bsd_open_req_decode(p, n, &d), -BSD_E_MALFORMED);
}

static void test_keystream(void **state)
{
    (void)state;
    uint8_t p[BSD_KEYSTREAM_REQ_LEN];
    bsd_keystream_req d;
    const uint64_t big = (uint64_t)1 << 40;
    keystream_payload(p, 0xfedcba98u, big, big);
    assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d), BSD_OK);
    assert_int_equal(d.session, 0xfedcba98u);
    assert_int_equal(d.flags, 0);
    assert_int_equal(d.shm_offset, big);
    assert_int_equal(d.nblocks, big);
    for (int i = 0; i < BSD_COUNTER_LEN; i++)
        assert_int_equal(d.counter[i], 0xa0 + i);

    keystream_payload(p, 1, 0, 0);
    assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d), -BSD_E_MALFORMED);
    keystream_payload(p, 1, 0, big + 1);
    assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d), -BSD_E_MALFORMED);
    keystream_payload(p, 1, big + 1, 1);
    assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d), -BSD_E_MALFORMED);
    keystream_payload(p, 1, UINT64_MAX, 1);
    assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d), -BSD_E_MALFORMED);

    /* Flags: UNCHECKED only; each other bit is malformed. */
    bsd_keystream_req m;
    memset(&m, 0, sizeof m);
    m.nblocks = 1;
    m.flags = BSD_KS_UNCHECKED;
    bsd_keystream_req_encode(p, &m);
    assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d), BSD_OK);
    assert_int_equal(d.flags, BSD_KS_UNCHECKED);
    for (int bit = 1; bit < 32; bit++) {
        m.flags = 1u << bit;
        bsd_keystream_req_encode(p, &m);
        /* Bits 8-12 are the piece size's log2: 16 (bit 12 alone) is one of 12..24. */
        assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d),
                         bit == 12 ? BSD_OK : -BSD_E_MALFORMED);
    }
    /* Piece sizes: 2^12 .. 2^24, else malformed. */
    for (unsigned l = 1; l < 32; l++) {
        m.flags = l << BSD_KS_PIECE_SHIFT;
        bsd_keystream_req_encode(p, &m);
        int ok = l >= BSD_KS_PIECE_LOG2_MIN && l <= BSD_KS_PIECE_LOG2_MAX;
        assert_int_equal(bsd_keystream_req_decode(p, sizeof p, &d), ok ? BSD_OK : -BSD_E_MALFORMED);
        if (ok)
            assert_int_equal(BSD_KS_PIECE_LOG2(d.flags), l);
    }
    /* A reply with pieces: exactly the count asked for decodes. */
    {
        uint8_t rp[BSD_KEYSTREAM_REP_LEN + 3 * 8];
        const uint64_t pc[3] = {1, 0xfedcba9876543210ull, 3};
        uint64_t got[3] = {0};
        bsd_keystream_rep kr = {7, 9}, kb;
        assert_int_equal(bsd_keystream_rep_encode_pieces(rp, &kr, pc, 3), sizeof rp);
        assert_int_equal(bsd_keystream_rep_decode_pieces(rp, sizeof rp, &kb, got, 3), BSD_OK);
        assert_true(kb.nblocks == 7 && kb.digest == 9 && memcmp(got, pc, sizeof pc) == 0);
        assert_int_equal(bsd_keystream_rep_decode_pieces(rp, sizeof rp, &kb, got, 2),
                         -BSD_E_MALFORMED);
        assert_int_equal(bsd_keystream_rep_decode(rp, sizeof rp, &kb), -BSD_E_MALFORMED);
    }

    uint8_t r[BSD_KEYSTREAM_REP_LEN];
    bsd_keystream_rep rep = {.nblocks = 123456789012ull, .digest = 0x0123456789abcdefull}, back;
    assert_int_equal(bsd_keystream_rep_encode(r, &rep), BSD_KEYSTREAM_REP_LEN);
    assert_int_equal(r[8], 0xef); /* little-endian */
    assert_int_equal(bsd_keystream_rep_decode(r, sizeof r, &back), BSD_OK);
    assert_int_equal(back.nblocks, rep.nblocks);
    assert_int_equal(back.digest, rep.digest);
    assert_int_equal(bsd_keystream_rep_decode(r, sizeof r - 1, &back), -BSD_E_MALFORMED);
}

static void test_small_ops(void **state)
{
    (void)state;
    uint8_t p[32];
    bsd_close_req c = {.session = 0x80000001u}, cd;
    assert_int_equal(bsd_close_req_encode(p, &c), BSD_CLOSE_REQ_LEN);
    assert_int_equal(bsd_close_req_decode(p, BSD_CLOSE_REQ_LEN, &cd), BSD_OK);
    assert_int_equal(cd.session, 0x80000001u);

    bsd_open_rep o = {.session = 3, .block_len = 32}, od;
    assert_int_equal(bsd_open_rep_encode(p, &o), BSD_OPEN_REP_LEN);
    assert_int_equal(bsd_open_rep_decode(p, BSD_OPEN_REP_LEN, &od), BSD_OK);
    assert_int_equal(od.session, 3);
    assert_int_equal(od.block_len, 32);
    o.block_len = 0;
    bsd_open_rep_encode(p, &o);
    assert_int_equal(bsd_open_rep_decode(p, BSD_OPEN_REP_LEN, &od), -BSD_E_MALFORMED);
    o.block_len = BSD_COUNTER_LEN + 1;
    bsd_open_rep_encode(p, &o);
    assert_int_equal(bsd_open_rep_decode(p, BSD_OPEN_REP_LEN, &od), -BSD_E_MALFORMED);

    /* REPORT: kinds 1 and 2 only. */
    for (uint32_t kind = 0; kind < 5; kind++) {
        bsd_report_req m = {.kind = kind, .session = 4, .nblocks = 99}, d;
        assert_int_equal(bsd_report_req_encode(p, &m), BSD_REPORT_REQ_LEN);
        int ok = kind == BSD_REPORT_DIGEST || kind == BSD_REPORT_SPOT;
        assert_int_equal(bsd_report_req_decode(p, BSD_REPORT_REQ_LEN, &d),
                         ok ? BSD_OK : -BSD_E_MALFORMED);
        if (ok) {
            assert_int_equal(d.session, 4);
            assert_int_equal(d.nblocks, 99);
        }
    }

    /* RATE: a cipher name as OPEN's; the reply's reserved word must be zero. */
    bsd_rate_req rq, rqd;
    memset(&rq, 0, sizeof rq);
    strcpy(rq.cipher, "RIJNDAEL-256");
    assert_int_equal(bsd_rate_req_encode(p, &rq), BSD_RATE_REQ_LEN);
    assert_int_equal(bsd_rate_req_decode(p, BSD_RATE_REQ_LEN, &rqd), BSD_OK);
    assert_string_equal(rqd.cipher, "RIJNDAEL-256");
    assert_int_equal(bsd_rate_req_decode(p, BSD_RATE_REQ_LEN - 1, &rqd), -BSD_E_MALFORMED);
    memset(p, 0, BSD_RATE_REQ_LEN);
    assert_int_equal(bsd_rate_req_decode(p, BSD_RATE_REQ_LEN, &rqd), -BSD_E_MALFORMED);
    bsd_rate_rep rr = {123456789012ull, 1u << 20, 16}, rrd;
    assert_int_equal(bsd_rate_rep_encode(p, &rr), BSD_RATE_REP_LEN);
    assert_int_equal(bsd_rate_rep_decode(p, BSD_RATE_REP_LEN, &rrd), BSD_OK);
    assert_true(rrd.bytes_per_s == rr.bytes_per_s && rrd.bytes == rr.bytes);
    assert_int_equal(rrd.host_workers, 16);
    p[23] = 1;
    assert_int_equal(bsd_rate_rep_decode(p, BSD_RATE_REP_LEN, &rrd), -BSD_E_MALFORMED);
    assert_int_equal(bsd_rate_rep_decode(p, BSD_RATE_REP_LEN + 8, &rrd), -BSD_E_MALFORMED);
}

static void test_error_rep(void **state)
{
    (void)state;
    uint8_t p[BSD_ERROR_REP_FIXED_LEN + BSD_ERROR_TEXT_MAX + 8];
    bsd_error_rep d;
    size_t n = bsd_error_rep_encode(p, BSD_E_BUSY, "busy");
    assert_int_equal(n, BSD_ERROR_REP_FIXED_LEN + 4);
    assert_int_equal(bsd_error_rep_decode(p, n, &d), BSD_OK);
    assert_int_equal(d.code, BSD_E_BUSY);
    assert_string_equal(d.text, "busy");
    n = bsd_error_rep_encode(p, BSD_E_STATE, NULL);
    assert_int_equal(n, BSD_ERROR_REP_FIXED_LEN);
    assert_int_equal(bsd_error_rep_decode(p, n, &d), BSD_OK);
    assert_string_equal(d.text, "");

    /* Text longer than the maximum is cut at it; a longer payload does not decode. */
    char longtext[BSD_ERROR_TEXT_MAX + 51];
    memset(longtext, 'x', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = 0;
    n = bsd_error_rep_encode(p, BSD_E_INTERNAL, longtext);
    assert_int_equal(n, BSD_ERROR_REP_FIXED_LEN + BSD_ERROR_TEXT_MAX);
    assert_int_equal(bsd_error_rep_decode(p, n, &d), BSD_OK);
    assert_int_equal(strlen(d.text), BSD_ERROR_TEXT_MAX);
    assert_int_equal(bsd_error_rep_decode(p, n + 1, &d), -BSD_E_MALFORMED);
    assert_int_equal(bsd_error_rep_decode(p, BSD_ERROR_REP_FIXED_LEN - 1, &d), -BSD_E_MALFORMED);

    /* What the peer sends is made printable before anyone logs it. */
    n = bsd_error_rep_encode(p, BSD_E_INTERNAL, "a\nb\x1b[0m");
    p[BSD_ERROR_REP_FIXED_LEN + 2] = 0x80;
    assert_int_equal(bsd_error_rep_decode(p, n, &d), BSD_OK);
    assert_string_equal(d.text, "a???[0m");
}

static void test_errc_str(void **state)
{
    (void)state;
    const char *unknown = bsd_errc_str(BSD_E_MAX + 1);
    assert_string_equal(unknown, "unknown error");
    assert_string_equal(bsd_errc_str(0xffffffffu), unknown);
    for (uint32_t a = 0; a <= BSD_E_MAX; a++) {
        assert_string_not_equal(bsd_errc_str(a), unknown);
        for (uint32_t b = 0; b < a; b++)
            assert_string_not_equal(bsd_errc_str(a), bsd_errc_str(b));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_layout),     cmocka_unit_test(test_header_checks),
        cmocka_unit_test(test_request_truncated), cmocka_unit_test(test_request_oversize),
        cmocka_unit_test(test_request_ops),       cmocka_unit_test(test_hello),
        cmocka_unit_test(test_map_shm),           cmocka_unit_test(test_open),
        cmocka_unit_test(test_keystream),         cmocka_unit_test(test_small_ops),
        cmocka_unit_test(test_error_rep),         cmocka_unit_test(test_errc_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
