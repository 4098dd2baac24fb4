/*
 * backend_daemon.c: the keystream source of bitsliced (service/client/bsd_source.h), chosen when a
 * daemon socket is configured (bsprov_ctx.daemon_socket, resolved in prov.c). The mode contexts
 * keep key, counter, num and limits; the source serves blocks from prefetched, checked daemon
 * windows once a run reaches offload-threshold bytes and the mode finishes in-process at the
 * exact block on any daemon failure. GCM below.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "backend.h"
#include "bsd_source.h"
#include "bsd_stream.h"
#include "bsprov.h"
#include "modes/ctr.h"
#include "modes/gcm256.h"

bs_keystream_source *bsprov_source_new(const struct bsprov_ctx *prov)
{
    bsd_source_opts o;
    memset(&o, 0, sizeof o);
    o.socket_path = prov->daemon_socket;
    o.threshold = prov->offload_threshold;
    o.connect_timeout_ms = prov->daemon_connect_timeout_ms;
    o.timeout_ms = prov->daemon_timeout_ms;
    return bsd_source_new(&o);
}

/*
 * RIJNDAEL-256-GCM: bs_gcm256_ctx keeps the state machine, GHASH and the tag in-process; for a
 * 28-byte IV (J0 = IV || 00000001, and inc32 from it never wraps within the data limit) the
 * data keystream comes from a bsd_stream started at J0 + 1, through bs_gcm256_encrypt_ks /
 * decrypt_ks; E_K(J0) is always computed in-process. Same threshold, timeouts and fallback as
 * CTR.
 */
#define GCM_BL 32
#define GCM_DATA_MAX (BS_GCM256_MAX_BLOCKS * GCM_BL)

typedef struct dgcm {
    bs_gcm256_ctx g; /* first: 64-byte aligned with the allocation */
    char socket_path[108];
    uint64_t threshold;
    int timeout_ms, connect_timeout_ms;
    uint8_t key[32];
    int iv28;          /* the IV of this message is 28 bytes: offload possible */
    int fallback;      /* offload stopped for this message */
    uint64_t since_iv; /* data bytes of this message */
    bsd_stream *stream;
    uint8_t ks[16384]; /* keystream of one piece */
} dgcm;

static void dgcm_stop(dgcm *x)
{
    bsd_stream_close(x->stream);
    x->stream = NULL;
}

static void *dgcm_newctx(const struct bsprov_ctx *prov)
{
    size_t size = (sizeof(dgcm) + 63) / 64 * 64;
    dgcm *x = (dgcm *)aligned_alloc(64, size);
    if (x == NULL)
        return NULL;
    memset(x, 0, size);
    snprintf(x->socket_path, sizeof x->socket_path, "%s", prov->daemon_socket);
    x->threshold = prov->offload_threshold;
    x->timeout_ms = prov->daemon_timeout_ms;
    x->connect_timeout_ms = prov->daemon_connect_timeout_ms;
    return x;
}

static int dgcm_set_key(void *bctx, const uint8_t *key, size_t key_len)
{
    dgcm *x = (dgcm *)bctx;
    int rc = bs_gcm256_set_key(&x->g, key, key_len);
    if (rc != BS_OK)
        return rc;
    dgcm_stop(x);
    OPENSSL_cleanse(x->key, sizeof x->key);
    memcpy(x->key, key, key_len);
    x->iv28 = 0;
    return BS_OK;
}

static int dgcm_set_iv(void *bctx, const uint8_t *iv, size_t iv_len)
{
    dgcm *x = (dgcm *)bctx;
    int rc = bs_gcm256_set_iv(&x->g, iv, iv_len);
    if (rc != BS_OK)
        return rc;
    dgcm_stop(x);
    x->iv28 = iv_len == 28;
    x->fallback = 0;
    x->since_iv = 0;
    return BS_OK;
}

static int dgcm_aad(void *bctx, const uint8_t *aad, size_t len)
{
    return bs_gcm256_aad(&((dgcm *)bctx)->g, aad, len);
}

/*
 * Opens the stream at the message's next data block (a block boundary). E_K(J0), the tag mask,
 * is never taken from the daemon: bs_gcm256 computes it in-process at the tag, so a faulty
 * daemon can garble data but cannot choose the mask of an authentication tag.
 */
static void dgcm_start(dgcm *x)
{
    /* One back-off for the process, shared with CTR offload (bsd_source). */
    if (bsd_source_backoff_ms() > 0) {
        x->fallback = -EAGAIN;
        return;
    }
    const bs_block_cipher *c = x->g.cipher;
    uint8_t counter[GCM_BL];
    memcpy(counter, x->g.j0, GCM_BL);
    bs_ctr_add(counter, GCM_BL, 1 + x->g.data_len / GCM_BL);
    bsd_stream_opts so = {x->socket_path, x->connect_timeout_ms, x->timeout_ms, 0, 0};
    int r = bsd_stream_open(&so, c, x->key, c->key_len, counter, &x->stream);
    if (r != 0) {
        x->stream = NULL;
        x->fallback = r;
        bsd_source_note_open(r);
    }
}

static int dgcm_crypt(dgcm *x, uint8_t *out, const uint8_t *in, size_t len, int dec)
{
    int (*plain)(bs_gcm256_ctx *, uint8_t *, const uint8_t *, size_t) =
        dec ? bs_gcm256_decrypt : bs_gcm256_encrypt;
    int (*with_ks)(bs_gcm256_ctx *, uint8_t *, const uint8_t *, size_t, const uint8_t *) =
        dec ? bs_gcm256_decrypt_ks : bs_gcm256_encrypt_ks;
    /* A zero-length call checks the state and direction; then the rest of the refusals. */
    int rc = with_ks(&x->g, out, in, 0, NULL);
    if (rc != BS_OK || len == 0)
        return rc;
    if (out == NULL || in == NULL)
        return BS_ERR_ARG;
    if ((uint64_t)len > GCM_DATA_MAX - x->g.data_len)
        return BS_ERR_DATA_LIMIT;
    const size_t total = len;

    if (x->stream == NULL && x->iv28 && x->fallback == 0 && x->since_iv + len >= x->threshold) {
        if (x->g.num != 0) { /* the rest of a started block, in-process */
            size_t take = GCM_BL - x->g.num < len ? GCM_BL - x->g.num : len;
            plain(&x->g, out, in, take); /* checked above: cannot fail */
            out += take;
            in += take;
            len -= take;
        }
        if (len > 0)
            dgcm_start(x);
    }
    while (len > 0 && x->stream != NULL) {
        size_t n = len < sizeof x->ks ? len : sizeof x->ks;
        uint64_t before = bsd_stream_position(x->stream);
        int r = bsd_stream_read(x->stream, &x->g.ks, x->ks, n);
        size_t got = (size_t)(bsd_stream_position(x->stream) - before);
        with_ks(&x->g, out, in, got, x->ks); /* checked above: cannot fail */
        out += got;
        in += got;
        len -= got;
        if (r != 0) {
            /* Dead, refused or timed out: this message goes on in-process, from this byte. */
            x->fallback = r;
            bsd_source_note_stream(r);
            dgcm_stop(x);
        } else if (got > 0) {
            bsd_source_note_stream(0); /* verified keystream arrived: the daemon works */
        }
    }
    OPENSSL_cleanse(x->ks, sizeof x->ks);
    if (len > 0)
        plain(&x->g, out, in, len); /* checked above: cannot fail */
    x->since_iv += total;
    return BS_OK;
}

static int dgcm_encrypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return dgcm_crypt((dgcm *)bctx, out, in, len, 0);
}

static int dgcm_decrypt(void *bctx, uint8_t *out, const uint8_t *in, size_t len)
{
    return dgcm_crypt((dgcm *)bctx, out, in, len, 1);
}

static int dgcm_tag(void *bctx, uint8_t *tag, size_t tag_len)
{
    dgcm *x = (dgcm *)bctx;
    int rc = bs_gcm256_tag(&x->g, tag, tag_len);
    if (rc == BS_OK)
        dgcm_stop(x);
    return rc;
}

static int dgcm_verify(void *bctx, const uint8_t *tag, size_t tag_len)
{
    dgcm *x = (dgcm *)bctx;
    int rc = bs_gcm256_verify(&x->g, tag, tag_len);
    if (rc != BS_ERR_TAG_LENGTH && rc != BS_ERR_STATE)
        dgcm_stop(x);
    return rc;
}

/* The copy has no stream: it opens its own at its position when due. */
static void *dgcm_dup(const void *bctx)
{
    size_t size = (sizeof(dgcm) + 63) / 64 * 64;
    dgcm *x = (dgcm *)aligned_alloc(64, size);
    if (x == NULL)
        return NULL;
    memcpy(x, bctx, sizeof *x);
    x->stream = NULL;
    return x;
}

static void dgcm_free(void *bctx)
{
    dgcm *x = (dgcm *)bctx;
    if (x == NULL)
        return;
    dgcm_stop(x);
    bs_gcm256_clear(&x->g);
    OPENSSL_cleanse(x, sizeof *x);
    free(x);
}

const bsprov_gcm_backend bsprov_gcm_daemon = {
    "daemon",     dgcm_newctx, dgcm_set_key, dgcm_set_iv, dgcm_aad,  dgcm_encrypt,
    dgcm_decrypt, dgcm_tag,    dgcm_verify,  dgcm_dup,    dgcm_free,
};
