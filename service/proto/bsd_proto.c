#include "bsd_proto.h"

#include <string.h>

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | ((uint64_t)get32(p + 4) << 32);
}
static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* A fixed-width name field: printable ASCII, then NUL padding only; at least one character. */
static int decode_name(const uint8_t *p, size_t width, char *out)
{
    size_t n = 0;
    while (n < width && p[n] != 0) {
        if (p[n] < 0x21 || p[n] > 0x7e)
            return -BSD_E_MALFORMED;
        n++;
    }
    if (n == 0 || !all_zero(p + n, width - n))
        return -BSD_E_MALFORMED;
    memcpy(out, p, n);
    out[n] = 0;
    return BSD_OK;
}

static void encode_name(uint8_t *p, size_t width, const char *name)
{
    size_t n = strlen(name);
    if (n > width)
        n = width;
    memset(p, 0, width);
    memcpy(p, name, n);
}

const char *bsd_errc_str(uint32_t code)
{
    switch (code) {
    case BSD_E_OK:
        return "ok";
    case BSD_E_MALFORMED:
        return "malformed frame";
    case BSD_E_VERSION:
        return "no common protocol version";
    case BSD_E_UNKNOWN_OP:
        return "unknown op";
    case BSD_E_FRAME_TOO_LARGE:
        return "frame too large";
    case BSD_E_NO_SESSION:
        return "no such session";
    case BSD_E_TOO_MANY_SESSIONS:
        return "too many sessions";
    case BSD_E_UNKNOWN_CIPHER:
        return "unknown cipher";
    case BSD_E_KEY_LENGTH:
        return "wrong key length";
    case BSD_E_NO_SHM:
        return "no shared memory mapped";
    case BSD_E_RANGE:
        return "request out of range";
    case BSD_E_COUNTER_WRAP:
        return "counter would wrap";
    case BSD_E_BUSY:
        return "busy: queue bound reached";
    case BSD_E_SHUTDOWN:
        return "daemon shutting down";
    case BSD_E_NOT_ALLOWED:
        return "peer not allowed";
    case BSD_E_INTERNAL:
        return "internal error";
    case BSD_E_TIMEOUT:
        return "read timeout";
    case BSD_E_STATE:
        return "operation out of order";
    case BSD_E_INTEGRITY:
        return "keystream failed the daemon's integrity check";
    default:
        return "unknown error";
    }
}

void bsd_hdr_encode(uint8_t out[BSD_HDR_LEN], const bsd_hdr *h)
{
    put16(out, BSD_PROTO_MAGIC);
    out[2] = h->version;
    out[3] = h->op;
    put32(out + 4, h->id);
    put32(out + 8, h->len);
}

int bsd_hdr_decode(const uint8_t *buf, size_t len, uint32_t max_payload, bsd_hdr *h)
{
    if (len < BSD_HDR_LEN)
        return BSD_NEED_MORE;
    if (get16(buf) != BSD_PROTO_MAGIC)
        return -BSD_E_MALFORMED;
    h->version = buf[2];
    h->op = buf[3];
    h->id = get32(buf + 4);
    h->len = get32(buf + 8);
    if (h->version != BSD_PROTO_VERSION)
        return -BSD_E_VERSION;
    if (h->len > max_payload)
        return -BSD_E_FRAME_TOO_LARGE;
    return BSD_OK;
}

size_t bsd_hello_req_encode(uint8_t *out, const bsd_hello_req *m)
{
    put16(out, m->min_version);
    put16(out + 2, m->max_version);
    put32(out + 4, 0);
    return BSD_HELLO_REQ_LEN;
}

int bsd_hello_req_decode(const uint8_t *p, size_t len, bsd_hello_req *m)
{
    if (len != BSD_HELLO_REQ_LEN || !all_zero(p + 4, 4))
        return -BSD_E_MALFORMED;
    m->min_version = get16(p);
    m->max_version = get16(p + 2);
    if (m->min_version == 0 || m->min_version > m->max_version)
        return -BSD_E_MALFORMED;
    return BSD_OK;
}

size_t bsd_map_shm_req_encode(uint8_t *out, const bsd_map_shm_req *m)
{
    put64(out, m->size);
    return BSD_MAP_SHM_REQ_LEN;
}

int bsd_map_shm_req_decode(const uint8_t *p, size_t len, bsd_map_shm_req *m)
{
    if (len != BSD_MAP_SHM_REQ_LEN)
        return -BSD_E_MALFORMED;
    m->size = get64(p);
    /* At least one page, and small enough that size arithmetic never overflows. */
    if (m->size == 0 || m->size > ((uint64_t)1 << 40))
        return -BSD_E_MALFORMED;
    return BSD_OK;
}

size_t bsd_open_req_encode(uint8_t *out, const bsd_open_req *m)
{
    encode_name(out, BSD_CIPHER_NAME_LEN, m->cipher);
    put16(out + BSD_CIPHER_NAME_LEN, m->key_len);
    put16(out + BSD_CIPHER_NAME_LEN + 2, 0);
    memcpy(out + BSD_OPEN_REQ_FIXED_LEN, m->key, m->key_len);
    return BSD_OPEN_REQ_FIXED_LEN + (size_t)m->key_len;
}

int bsd_open_req_decode(const uint8_t *p, size_t len, bsd_open_req *m)
{
    if (len < BSD_OPEN_REQ_FIXED_LEN)
        return -BSD_E_MALFORMED;
    if (decode_name(p, BSD_CIPHER_NAME_LEN, m->cipher) != BSD_OK)
        return -BSD_E_MALFORMED;
    m->key_len = get16(p + BSD_CIPHER_NAME_LEN);
    if (!all_zero(p + BSD_CIPHER_NAME_LEN + 2, 2))
        return -BSD_E_MALFORMED;
    if (m->key_len == 0 || m->key_len > BSD_KEY_MAX ||
        len != BSD_OPEN_REQ_FIXED_LEN + (size_t)m->key_len)
        return -BSD_E_MALFORMED;
    memcpy(m->key, p + BSD_OPEN_REQ_FIXED_LEN, m->key_len);
    return BSD_OK;
}

size_t bsd_close_req_encode(uint8_t *out, const bsd_close_req *m)
{
    put32(out, m->session);
    return BSD_CLOSE_REQ_LEN;
}

int bsd_close_req_decode(const uint8_t *p, size_t len, bsd_close_req *m)
{
    if (len != BSD_CLOSE_REQ_LEN)
        return -BSD_E_MALFORMED;
    m->session = get32(p);
    return BSD_OK;
}

size_t bsd_keystream_req_encode(uint8_t *out, const bsd_keystream_req *m)
{
    put32(out, m->session);
    put32(out + 4, m->flags);
    put64(out + 8, m->shm_offset);
    put64(out + 16, m->nblocks);
    memcpy(out + 24, m->counter, BSD_COUNTER_LEN);
    return BSD_KEYSTREAM_REQ_LEN;
}

int bsd_keystream_req_decode(const uint8_t *p, size_t len, bsd_keystream_req *m)
{
    if (len != BSD_KEYSTREAM_REQ_LEN)
        return -BSD_E_MALFORMED;
    m->session = get32(p);
    m->flags = get32(p + 4);
    if (m->flags & ~(BSD_KS_UNCHECKED | BSD_KS_PIECE_MASK))
        return -BSD_E_MALFORMED;
    unsigned pl = BSD_KS_PIECE_LOG2(m->flags);
    if (pl != 0 && (pl < BSD_KS_PIECE_LOG2_MIN || pl > BSD_KS_PIECE_LOG2_MAX))
        return -BSD_E_MALFORMED;
    m->shm_offset = get64(p + 8);
    m->nblocks = get64(p + 16);
    memcpy(m->counter, p + 24, BSD_COUNTER_LEN);
    /* Bounded so that nblocks * 32 and offset + bytes cannot overflow 64 bits. */
    if (m->nblocks == 0 || m->nblocks > ((uint64_t)1 << 40) || m->shm_offset > ((uint64_t)1 << 40))
        return -BSD_E_MALFORMED;
    return BSD_OK;
}

size_t bsd_hello_rep_encode(uint8_t *out, const bsd_hello_rep *m)
{
    put16(out, m->version);
    put16(out + 2, 0);
    put32(out + 4, m->caps);
    put32(out + 8, m->max_sessions);
    put64(out + 12, m->max_request_bytes);
    put64(out + 20, m->max_queued_bytes);
    encode_name(out + 28, BSD_BACKEND_NAME_LEN, m->backend);
    return BSD_HELLO_REP_LEN;
}

int bsd_hello_rep_decode(const uint8_t *p, size_t len, bsd_hello_rep *m)
{
    if (len != BSD_HELLO_REP_LEN)
        return -BSD_E_MALFORMED;
    m->version = get16(p);
    m->caps = get32(p + 4);
    m->max_sessions = get32(p + 8);
    m->max_request_bytes = get64(p + 12);
    m->max_queued_bytes = get64(p + 20);
    if (decode_name(p + 28, BSD_BACKEND_NAME_LEN, m->backend) != BSD_OK)
        return -BSD_E_MALFORMED;
    return BSD_OK;
}

size_t bsd_open_rep_encode(uint8_t *out, const bsd_open_rep *m)
{
    put32(out, m->session);
    put16(out + 4, m->block_len);
    put16(out + 6, 0);
    return BSD_OPEN_REP_LEN;
}

int bsd_open_rep_decode(const uint8_t *p, size_t len, bsd_open_rep *m)
{
    if (len != BSD_OPEN_REP_LEN)
        return -BSD_E_MALFORMED;
    m->session = get32(p);
    m->block_len = get16(p + 4);
    if (m->block_len == 0 || m->block_len > BSD_COUNTER_LEN)
        return -BSD_E_MALFORMED;
    return BSD_OK;
}

size_t bsd_keystream_rep_encode(uint8_t *out, const bsd_keystream_rep *m)
{
    put64(out, m->nblocks);
    put64(out + 8, m->digest);
    return BSD_KEYSTREAM_REP_LEN;
}

int bsd_keystream_rep_decode(const uint8_t *p, size_t len, bsd_keystream_rep *m)
{
    if (len != BSD_KEYSTREAM_REP_LEN)
        return -BSD_E_MALFORMED;
    m->nblocks = get64(p);
    m->digest = get64(p + 8);
    return BSD_OK;
}

size_t bsd_keystream_rep_encode_pieces(uint8_t *out, const bsd_keystream_rep *m,
                                       const uint64_t *pieces, size_t npieces)
{
    size_t n = bsd_keystream_rep_encode(out, m);
    for (size_t i = 0; i < npieces; i++, n += 8)
        put64(out + n, pieces[i]);
    return n;
}

int bsd_keystream_rep_decode_pieces(const uint8_t *p, size_t len, bsd_keystream_rep *m,
                                    uint64_t *pieces, size_t npieces)
{
    if (npieces > BSD_KS_MAX_PIECES || len != BSD_KEYSTREAM_REP_LEN + 8 * npieces)
        return -BSD_E_MALFORMED;
    m->nblocks = get64(p);
    m->digest = get64(p + 8);
    for (size_t i = 0; i < npieces; i++)
        pieces[i] = get64(p + BSD_KEYSTREAM_REP_LEN + 8 * i);
    return BSD_OK;
}

size_t bsd_report_req_encode(uint8_t *out, const bsd_report_req *m)
{
    put32(out, m->kind);
    put32(out + 4, m->session);
    put64(out + 8, m->nblocks);
    return BSD_REPORT_REQ_LEN;
}

int bsd_report_req_decode(const uint8_t *p, size_t len, bsd_report_req *m)
{
    if (len != BSD_REPORT_REQ_LEN)
        return -BSD_E_MALFORMED;
    m->kind = get32(p);
    m->session = get32(p + 4);
    m->nblocks = get64(p + 8);
    if (m->kind != BSD_REPORT_DIGEST && m->kind != BSD_REPORT_SPOT)
        return -BSD_E_MALFORMED;
    return BSD_OK;
}

size_t bsd_rate_req_encode(uint8_t *out, const bsd_rate_req *m)
{
    encode_name(out, BSD_CIPHER_NAME_LEN, m->cipher);
    return BSD_RATE_REQ_LEN;
}

int bsd_rate_req_decode(const uint8_t *p, size_t len, bsd_rate_req *m)
{
    if (len != BSD_RATE_REQ_LEN || decode_name(p, BSD_CIPHER_NAME_LEN, m->cipher) != BSD_OK)
        return -BSD_E_MALFORMED;
    return BSD_OK;
}

size_t bsd_rate_rep_encode(uint8_t *out, const bsd_rate_rep *m)
{
    put64(out, m->bytes_per_s);
    put64(out + 8, m->bytes);
    put32(out + 16, m->host_workers);
    put32(out + 20, 0);
    return BSD_RATE_REP_LEN;
}

int bsd_rate_rep_decode(const uint8_t *p, size_t len, bsd_rate_rep *m)
{
    if (len != BSD_RATE_REP_LEN || !all_zero(p + 20, 4))
        return -BSD_E_MALFORMED;
    m->bytes_per_s = get64(p);
    m->bytes = get64(p + 8);
    m->host_workers = get32(p + 16);
    return BSD_OK;
}

size_t bsd_error_rep_encode(uint8_t *out, uint32_t code, const char *text)
{
    size_t n = text != NULL ? strlen(text) : 0;
    if (n > BSD_ERROR_TEXT_MAX)
        n = BSD_ERROR_TEXT_MAX;
    put32(out, code);
    put32(out + 4, 0);
    if (n > 0)
        memcpy(out + BSD_ERROR_REP_FIXED_LEN, text, n);
    return BSD_ERROR_REP_FIXED_LEN + n;
}

int bsd_error_rep_decode(const uint8_t *p, size_t len, bsd_error_rep *m)
{
    if (len < BSD_ERROR_REP_FIXED_LEN || len > BSD_ERROR_REP_FIXED_LEN + BSD_ERROR_TEXT_MAX)
        return -BSD_E_MALFORMED;
    m->code = get32(p);
    size_t n = len - BSD_ERROR_REP_FIXED_LEN;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[BSD_ERROR_REP_FIXED_LEN + i];
        m->text[i] = (c >= 0x20 && c <= 0x7e) ? (char)c : '?';
    }
    m->text[n] = 0;
    return BSD_OK;
}

int bsd_request_decode(const uint8_t *buf, size_t len, bsd_request *req, size_t *consumed)
{
    int r = bsd_hdr_decode(buf, len, BSD_MAX_REQUEST_PAYLOAD, &req->hdr);
    if (r != BSD_OK)
        return r;
    if (len - BSD_HDR_LEN < req->hdr.len)
        return BSD_NEED_MORE;
    const uint8_t *p = buf + BSD_HDR_LEN;
    size_t n = req->hdr.len;
    *consumed = BSD_HDR_LEN + n;
    switch (req->hdr.op) {
    case BSD_OP_HELLO:
        return bsd_hello_req_decode(p, n, &req->u.hello);
    case BSD_OP_MAP_SHM:
        return bsd_map_shm_req_decode(p, n, &req->u.map_shm);
    case BSD_OP_OPEN_SESSION:
        return bsd_open_req_decode(p, n, &req->u.open);
    case BSD_OP_CLOSE_SESSION:
        return bsd_close_req_decode(p, n, &req->u.close);
    case BSD_OP_KEYSTREAM:
        return bsd_keystream_req_decode(p, n, &req->u.keystream);
    case BSD_OP_STATUS:
        return n == 0 ? BSD_OK : -BSD_E_MALFORMED;
    case BSD_OP_REPORT:
        return bsd_report_req_decode(p, n, &req->u.report);
    case BSD_OP_RATE:
        return bsd_rate_req_decode(p, n, &req->u.rate);
    default:
        return -BSD_E_UNKNOWN_OP;
    }
}
