/*
 * source.c: the keystream source a provider context pulls from, chosen at newctx: the daemon's
 * (bsd_source, service/client/bsd_source.h) when a daemon socket is configured
 * (bsprov_ctx.daemon_socket, resolved in prov.c), for CTR and GCM alike, else none (NULL: the
 * in-process core). The mode contexts keep key, counter, num, limits, GHASH and the tag; the
 * source serves blocks from prefetched, checked daemon windows once a message reaches
 * offload-threshold bytes, and the mode finishes in-process at the exact block on any daemon
 * failure. E_K(J0), GCM's tag mask, is always computed in-process.
 */
#include <string.h>

#include <openssl/params.h>

#include "bsd_source.h"
#include "bsprov.h"

static bs_keystream_source *daemon_source(const bsprov_ctx *prov)
{
    bsd_source_opts o;
    memset(&o, 0, sizeof o);
    o.socket_path = prov->daemon_socket;
    o.threshold = prov->offload_threshold;
    o.connect_timeout_ms = prov->daemon_connect_timeout_ms;
    o.timeout_ms = prov->daemon_timeout_ms;
    o.offload = prov->offload_mode;
    return bsd_source_new(&o);
}

int bsprov_source_open(const bsprov_ctx *prov, bs_keystream_source **src)
{
    *src = prov->daemon_socket != NULL ? daemon_source(prov) : NULL;
    return prov->daemon_socket == NULL || *src != NULL;
}

int bsprov_source_copy(const bs_keystream_source *src, bs_keystream_source **dst)
{
    *dst = src != NULL ? src->ops->copy(src) : NULL;
    return src == NULL || *dst != NULL;
}

int bsprov_source_get_params(const bsprov_ctx *prov, const bs_keystream_source *src,
                             const OSSL_PARAM *p_what, const OSSL_PARAM *p_why)
{
    /* A get call's params are the caller's to write. */
    OSSL_PARAM *pd = (OSSL_PARAM *)p_what, *pr = (OSSL_PARAM *)p_why;
    if (pd == NULL && pr == NULL)
        return 1;
    const char *what = "in-process", *why = "in-process: no daemon socket configured";
    (void)prov;
    if (src != NULL) {
        const bsd_offload_decision *d = bsd_source_offload(src);
        if (d->decided) {
            what = d->daemon ? "daemon" : "in-process";
            why = d->reason;
        } else {
            what = "undecided";
            why = "undecided: no message has reached the offload threshold with a daemon "
                  "answering";
        }
    }
    return (pd == NULL || OSSL_PARAM_set_utf8_ptr(pd, what)) &&
           (pr == NULL || OSSL_PARAM_set_utf8_ptr(pr, why));
}

int bsprov_source_set_params(const bsprov_ctx *prov, const char *alg,
                             const bs_keystream_source *src, const OSSL_PARAM *p, int apply)
{
    const char *v = NULL;
    int mode;
    if (p == NULL)
        return 1;
    if (!OSSL_PARAM_get_utf8_string_ptr(p, &v) || (mode = bsd_offload_mode_by_name(v)) < 0) {
        BSPROV_RAISE(prov, BSPROV_R_ARG,
                     "%s: " BSPROV_PARAM_OFFLOAD " must be auto, always or never", alg);
        return 0;
    }
    /* Without a daemon socket there is nothing to offload to, whatever the mode. */
    if (apply && src != NULL)
        bsd_source_set_offload((bs_keystream_source *)src, mode);
    return 1;
}

void bsprov_source_close(bs_keystream_source *src)
{
    if (src != NULL)
        src->ops->free(src);
}
