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

void bsprov_source_close(bs_keystream_source *src)
{
    if (src != NULL)
        src->ops->free(src);
}
