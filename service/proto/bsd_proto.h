/*
 * bsd_proto.h: the bitsliced wire protocol (PROTOCOL.md), shared by the daemon and the blocking
 * client. Pure encode/decode over byte buffers: no allocation, no I/O, no libuv. Every decoder
 * checks every length and field before the caller may act on (or allocate for) a frame.
 */
#ifndef BSD_PROTO_H
#define BSD_PROTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 added the window digest to KEYSTREAM replies, the REPORT op and the integrity error. */
#define BSD_PROTO_VERSION 2
/* 'B' 'S' on the wire. */
#define BSD_PROTO_MAGIC 0x5342u
#define BSD_HDR_LEN 12
/* Largest request payload the daemon accepts (OPEN_SESSION is the largest request). */
#define BSD_MAX_REQUEST_PAYLOAD 256
/* Largest reply payload (STATUS text). */
#define BSD_MAX_REPLY_PAYLOAD 16384
#define BSD_CIPHER_NAME_LEN 24
#define BSD_KEY_MAX 64
#define BSD_COUNTER_LEN 32
#define BSD_BACKEND_NAME_LEN 16
#define BSD_ERROR_TEXT_MAX 200

/* Capability bits of HELLO's reply. */
#define BSD_CAP_SHM_KEYSTREAM 1u
/* KEYSTREAM answers per-piece digests when asked (BSD_KS_PIECE_LOG2). */
#define BSD_CAP_PIECES 2u
/* RATE answers the backend's measured keystream rate for a cipher. */
#define BSD_CAP_RATE 4u

typedef enum bsd_op {
    BSD_OP_HELLO = 1,
    BSD_OP_MAP_SHM = 2,
    BSD_OP_OPEN_SESSION = 3,
    BSD_OP_CLOSE_SESSION = 4,
    BSD_OP_KEYSTREAM = 5,
    BSD_OP_STATUS = 6,
    BSD_OP_REPORT = 7,
    BSD_OP_RATE = 8,
    BSD_OP_ERROR = 0x7f,
} bsd_op;
/* A reply carries the request's op with this bit set, or BSD_OP_ERROR | BSD_OP_REPLY. */
#define BSD_OP_REPLY 0x80u

/* Error codes carried by ERROR replies. */
typedef enum bsd_errc {
    BSD_E_OK = 0,
    BSD_E_MALFORMED = 1,       /* a field is out of range or a length does not match the op */
    BSD_E_VERSION = 2,         /* no common protocol version */
    BSD_E_UNKNOWN_OP = 3,      /* op not known */
    BSD_E_FRAME_TOO_LARGE = 4, /* payload length above the maximum */
    BSD_E_NO_SESSION = 5,      /* session id not open on this connection */
    BSD_E_TOO_MANY_SESSIONS = 6,
    BSD_E_UNKNOWN_CIPHER = 7,
    BSD_E_KEY_LENGTH = 8,
    BSD_E_NO_SHM = 9,        /* KEYSTREAM before MAP_SHM */
    BSD_E_RANGE = 10,        /* destination outside the shared memory, or too many blocks */
    BSD_E_COUNTER_WRAP = 11, /* the request would wrap the counter */
    BSD_E_BUSY = 12,         /* per-client or global queue bound reached; retry later */
    BSD_E_SHUTDOWN = 13,     /* the daemon is draining */
    BSD_E_NOT_ALLOWED = 14,  /* peer credentials refused */
    BSD_E_INTERNAL = 15,
    BSD_E_TIMEOUT = 16,   /* a frame stayed incomplete past the read timeout */
    BSD_E_STATE = 17,     /* op out of order (e.g. before HELLO) */
    BSD_E_INTEGRITY = 18, /* the backend's output failed the daemon's own check */
} bsd_errc;
#define BSD_E_MAX BSD_E_INTEGRITY

/* KEYSTREAM request flags. */
/* Benchmark only: no poisoning and no digest (the reply's digest is 0). Never set by clients. */
#define BSD_KS_UNCHECKED 1u
/*
 * Bits 8-12: log2 of a piece (BSD_KS_PIECE_LOG2_MIN..MAX bytes), or 0. When set, the reply also
 * carries the digest of each piece of the window (the last one may be short), so that a client
 * can release a piece as soon as it is checked; at most BSD_KS_MAX_PIECES pieces a request.
 */
#define BSD_KS_PIECE_SHIFT 8
#define BSD_KS_PIECE_MASK (0x1fu << BSD_KS_PIECE_SHIFT)
#define BSD_KS_PIECE_LOG2_MIN 12
#define BSD_KS_PIECE_LOG2_MAX 24
#define BSD_KS_MAX_PIECES ((BSD_MAX_REPLY_PAYLOAD - 16) / 8)
#define BSD_KS_PIECE_LOG2(flags) (((flags)&BSD_KS_PIECE_MASK) >> BSD_KS_PIECE_SHIFT)
/* Pieces of a window of bytes bytes (log2 not 0). */
#define BSD_KS_NPIECES(bytes, log2) (((bytes) + ((uint64_t)1 << (log2)) - 1) >> (log2))

/* REPORT kinds: what the client found wrong in a window the daemon said it wrote. */
#define BSD_REPORT_DIGEST 1u /* the window's digest did not match */
#define BSD_REPORT_SPOT 2u   /* a block recomputed in-process did not match */

const char *bsd_errc_str(uint32_t code);

typedef struct bsd_hdr {
    uint8_t version;
    uint8_t op;
    uint32_t id;  /* chosen by the client, echoed in the reply */
    uint32_t len; /* payload bytes following the header */
} bsd_hdr;

/* Results of the decoders: BSD_OK, BSD_NEED_MORE (header only), or -bsd_errc. */
#define BSD_OK 0
#define BSD_NEED_MORE 1

void bsd_hdr_encode(uint8_t out[BSD_HDR_LEN], const bsd_hdr *h);
/*
 * Decodes a header from buf (len bytes available). Checks magic, version and
 * len <= max_payload. Returns BSD_NEED_MORE when len < BSD_HDR_LEN.
 */
int bsd_hdr_decode(const uint8_t *buf, size_t len, uint32_t max_payload, bsd_hdr *h);

/* Request payloads. */
typedef struct bsd_hello_req {
    uint16_t min_version, max_version;
} bsd_hello_req;
typedef struct bsd_map_shm_req {
    uint64_t size; /* bytes; the memfd travels as SCM_RIGHTS with this frame */
} bsd_map_shm_req;
typedef struct bsd_open_req {
    char cipher[BSD_CIPHER_NAME_LEN + 1]; /* NUL-terminated after decoding */
    uint16_t key_len;
    uint8_t key[BSD_KEY_MAX];
} bsd_open_req;
typedef struct bsd_close_req {
    uint32_t session;
} bsd_close_req;
typedef struct bsd_rate_req {
    char cipher[BSD_CIPHER_NAME_LEN + 1]; /* NUL-terminated after decoding */
} bsd_rate_req;
typedef struct bsd_keystream_req {
    uint32_t session;
    uint32_t flags;                   /* BSD_KS_*; other bits must be zero */
    uint64_t shm_offset;              /* byte offset of the destination in the mapped memfd */
    uint64_t nblocks;                 /* >= 1 */
    uint8_t counter[BSD_COUNTER_LEN]; /* first block_len bytes used; the rest must be zero */
} bsd_keystream_req;

/* Reply payloads. */
typedef struct bsd_hello_rep {
    uint16_t version;
    uint32_t caps;
    uint32_t max_sessions;      /* per connection */
    uint64_t max_request_bytes; /* largest KEYSTREAM (nblocks * block_len) */
    uint64_t max_queued_bytes;  /* keystream bytes a connection may have outstanding */
    char backend[BSD_BACKEND_NAME_LEN + 1];
} bsd_hello_rep;
typedef struct bsd_open_rep {
    uint32_t session;
    uint16_t block_len;
} bsd_open_rep;
typedef struct bsd_keystream_rep {
    uint64_t nblocks;
    uint64_t digest; /* bs_digest.h over the window as the daemon left it */
} bsd_keystream_rep;
typedef struct bsd_rate_rep {
    uint64_t bytes_per_s;  /* keystream the backend delivered per second while busy; 0: unknown */
    uint64_t bytes;        /* the keystream that figure is measured over */
    uint32_t host_workers; /* threads of this host's CPUs that compute it; 0: a device does */
} bsd_rate_rep;
typedef struct bsd_report_req {
    uint32_t kind; /* BSD_REPORT_* */
    uint32_t session;
    uint64_t nblocks; /* size of the window that failed */
} bsd_report_req;
typedef struct bsd_error_rep {
    uint32_t code;
    char text[BSD_ERROR_TEXT_MAX + 1];
} bsd_error_rep;

/* Fixed payload sizes. */
#define BSD_HELLO_REQ_LEN 8
#define BSD_MAP_SHM_REQ_LEN 8
#define BSD_OPEN_REQ_FIXED_LEN (BSD_CIPHER_NAME_LEN + 4)
#define BSD_CLOSE_REQ_LEN 4
#define BSD_KEYSTREAM_REQ_LEN (4 + 4 + 8 + 8 + BSD_COUNTER_LEN)
#define BSD_HELLO_REP_LEN (2 + 2 + 4 + 4 + 8 + 8 + BSD_BACKEND_NAME_LEN)
#define BSD_OPEN_REP_LEN 8
#define BSD_KEYSTREAM_REP_LEN 16
#define BSD_REPORT_REQ_LEN 16
#define BSD_RATE_REQ_LEN BSD_CIPHER_NAME_LEN
#define BSD_RATE_REP_LEN 24
#define BSD_ERROR_REP_FIXED_LEN 8

/* Encoders write exactly the payload and return its length (out must be large enough). */
size_t bsd_hello_req_encode(uint8_t *out, const bsd_hello_req *m);
size_t bsd_map_shm_req_encode(uint8_t *out, const bsd_map_shm_req *m);
size_t bsd_open_req_encode(uint8_t *out, const bsd_open_req *m);
size_t bsd_close_req_encode(uint8_t *out, const bsd_close_req *m);
size_t bsd_keystream_req_encode(uint8_t *out, const bsd_keystream_req *m);
size_t bsd_hello_rep_encode(uint8_t *out, const bsd_hello_rep *m);
size_t bsd_open_rep_encode(uint8_t *out, const bsd_open_rep *m);
size_t bsd_keystream_rep_encode(uint8_t *out, const bsd_keystream_rep *m);
size_t bsd_report_req_encode(uint8_t *out, const bsd_report_req *m);
size_t bsd_rate_req_encode(uint8_t *out, const bsd_rate_req *m);
size_t bsd_rate_rep_encode(uint8_t *out, const bsd_rate_rep *m);
/* text is truncated to BSD_ERROR_TEXT_MAX bytes. */
size_t bsd_error_rep_encode(uint8_t *out, uint32_t code, const char *text);

/* Decoders: BSD_OK or -BSD_E_MALFORMED (exact lengths, reserved fields zero, ranges). */
int bsd_hello_req_decode(const uint8_t *p, size_t len, bsd_hello_req *m);
int bsd_map_shm_req_decode(const uint8_t *p, size_t len, bsd_map_shm_req *m);
int bsd_open_req_decode(const uint8_t *p, size_t len, bsd_open_req *m);
int bsd_close_req_decode(const uint8_t *p, size_t len, bsd_close_req *m);
int bsd_keystream_req_decode(const uint8_t *p, size_t len, bsd_keystream_req *m);
int bsd_hello_rep_decode(const uint8_t *p, size_t len, bsd_hello_rep *m);
int bsd_open_rep_decode(const uint8_t *p, size_t len, bsd_open_rep *m);
int bsd_keystream_rep_decode(const uint8_t *p, size_t len, bsd_keystream_rep *m);
/*
 * The reply with npieces piece digests after the fixed part (BSD_KS_PIECE_LOG2): encode returns
 * its length; decode requires exactly npieces of them.
 */
size_t bsd_keystream_rep_encode_pieces(uint8_t *out, const bsd_keystream_rep *m,
                                       const uint64_t *pieces, size_t npieces);
int bsd_keystream_rep_decode_pieces(const uint8_t *p, size_t len, bsd_keystream_rep *m,
                                    uint64_t *pieces, size_t npieces);
int bsd_error_rep_decode(const uint8_t *p, size_t len, bsd_error_rep *m);
int bsd_report_req_decode(const uint8_t *p, size_t len, bsd_report_req *m);
int bsd_rate_req_decode(const uint8_t *p, size_t len, bsd_rate_req *m);
int bsd_rate_rep_decode(const uint8_t *p, size_t len, bsd_rate_rep *m);

/* A decoded request, whatever its op. */
typedef struct bsd_request {
    bsd_hdr hdr;
    union {
        bsd_hello_req hello;
        bsd_map_shm_req map_shm;
        bsd_open_req open;
        bsd_close_req close;
        bsd_keystream_req keystream;
        bsd_report_req report;
        bsd_rate_req rate;
    } u;
} bsd_request;

/*
 * Decodes one whole request frame at the start of buf: header, then the payload for its op.
 * Returns BSD_OK and sets *consumed, BSD_NEED_MORE when the frame is not complete yet, or
 * -bsd_errc (the connection then gets an ERROR and is closed: framing is lost).
 */
int bsd_request_decode(const uint8_t *buf, size_t len, bsd_request *req, size_t *consumed);

#ifdef __cplusplus
}
#endif

#endif
