/*
 * libFuzzer target for the frame decoders: whatever the bytes, decoding never reads out of
 * bounds, and a frame it accepts re-encodes to the same bytes (so every field was checked
 * rather than skipped).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bsd_proto.h"

static void check_reencode(const bsd_request *r, const uint8_t *frame, size_t len)
{
    uint8_t buf[BSD_HDR_LEN + BSD_MAX_REQUEST_PAYLOAD];
    size_t n = 0;
    switch (r->hdr.op) {
    case BSD_OP_HELLO:
        n = bsd_hello_req_encode(buf + BSD_HDR_LEN, &r->u.hello);
        break;
    case BSD_OP_MAP_SHM:
        n = bsd_map_shm_req_encode(buf + BSD_HDR_LEN, &r->u.map_shm);
        break;
    case BSD_OP_OPEN_SESSION:
        n = bsd_open_req_encode(buf + BSD_HDR_LEN, &r->u.open);
        break;
    case BSD_OP_CLOSE_SESSION:
        n = bsd_close_req_encode(buf + BSD_HDR_LEN, &r->u.close);
        break;
    case BSD_OP_KEYSTREAM:
        n = bsd_keystream_req_encode(buf + BSD_HDR_LEN, &r->u.keystream);
        break;
    case BSD_OP_REPORT:
        n = bsd_report_req_encode(buf + BSD_HDR_LEN, &r->u.report);
        break;
    case BSD_OP_RATE:
        n = bsd_rate_req_encode(buf + BSD_HDR_LEN, &r->u.rate);
        break;
    case BSD_OP_STATUS:
        n = 0;
        break;
    default:
        abort(); /* the decoder accepted an op it does not know */
    }
    bsd_hdr h = r->hdr;
    h.len = (uint32_t)n;
    bsd_hdr_encode(buf, &h);
    if (BSD_HDR_LEN + n != len || memcmp(buf, frame, len) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A stream of requests, as the daemon consumes its input buffer. */
    size_t off = 0;
    while (off < size) {
        bsd_request r;
        size_t used = 0;
        int rc = bsd_request_decode(data + off, size - off, &r, &used);
        if (rc != BSD_OK)
            break;
        if (used < BSD_HDR_LEN || used > size - off)
            abort();
        check_reencode(&r, data + off, used);
        off += used;
    }
    /* The client's side: reply payloads. */
    bsd_hello_rep hr;
    bsd_open_rep orp;
    bsd_keystream_rep kr;
    bsd_error_rep er;
    (void)bsd_hello_rep_decode(data, size, &hr);
    (void)bsd_open_rep_decode(data, size, &orp);
    (void)bsd_keystream_rep_decode(data, size, &kr);
    if (bsd_error_rep_decode(data, size, &er) == BSD_OK && strlen(er.text) > BSD_ERROR_TEXT_MAX)
        abort();
    return 0;
}
