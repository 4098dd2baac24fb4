/*
 * backend_daemon.c: the CTR seam backed by bitsliced (service/client/bsd_ctr.h), chosen when a
 * daemon socket is configured (bsprov_ctx.daemon_socket, resolved in prov.c).
 *
 * bsd_ctr keeps a bs_ctr_ctx as the authority for key, counter, num and limits; once a stream
 * under one IV reaches offload-threshold bytes it takes keystream from prefetched daemon windows
 * and moves the context with bs_ctr_seek, and on any daemon failure it finishes in-process at
 * the exact byte. Output, positions and errors are those of bsprov_ctr_inproc.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "backend.h"
#include "bsd_ctr.h"
#include "bsprov.h"
#include "modes/ctr.h"

static void *dctr_newctx(const bs_block_cipher *cipher, const struct bsprov_ctx *prov)
{
    bsd_ctr_opts o;
    memset(&o, 0, sizeof o);
    o.socket_path = prov->daemon_socket;
    o.threshold = prov->offload_threshold;
    o.connect_timeout_ms = prov->daemon_connect_timeout_ms;
    o.timeout_ms = prov->daemon_timeout_ms;
    return bsd_ctr_new(cipher, &o);
}

static int dctr_set_key(void *bctx, const uint8_t *key, size_t key_len, uint64_t block_limit)
{
    return bsd_ctr_set_key((bsd_ctr *)bctx, key, key_len, block_limit);
}

static int dctr_set_iv(void *bctx, const uint8_t *iv, size_t iv_len)
{
    return bsd_ctr_set_iv((bsd_ctr *)bctx, iv, iv_len);
}

static int dctr_set_block_limit(void *bctx, uint64_t block_limit)
{
    return bsd_ctr_set_block_limit((bsd_ctr *)bctx, block_limit);
}

static int dctr_crypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return bsd_ctr_crypt((bsd_ctr *)bctx, out, in, len);
}

static void dctr_get_position(const void *bctx, uint8_t *counter, unsigned *num)
{
    bsd_ctr_get_position((const bsd_ctr *)bctx, counter, num);
}

static int dctr_set_num(void *bctx, unsigned num)
{
    return bsd_ctr_set_num((bsd_ctr *)bctx, num);
}

/* The copy has no stream: it continues in-process and opens its own when due. */
static void *dctr_dup(const void *bctx)
{
    return bsd_ctr_dup((const bsd_ctr *)bctx);
}

/* bsd_ctr_free wipes the key, the schedule and the pending keystream. */
static void dctr_free(void *bctx)
{
    bsd_ctr_free((bsd_ctr *)bctx);
}

const bsprov_ctr_backend bsprov_ctr_daemon = {
    "daemon",   dctr_newctx,       dctr_set_key, dctr_set_iv, dctr_set_block_limit,
    dctr_crypt, dctr_get_position, dctr_set_num, dctr_dup,    dctr_free,
};
