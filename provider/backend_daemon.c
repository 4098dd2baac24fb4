/*
 * backend_daemon.c: the keystream source of bitsliced (service/client/bsd_source.h), chosen when a
 * daemon socket is configured (bsprov_ctx.daemon_socket, resolved in prov.c), for CTR and GCM
 * alike. The mode contexts keep key, counter, num, limits, GHASH and the tag; the source serves
 * blocks from prefetched, checked daemon windows once a message reaches offload-threshold bytes,
 * and the mode finishes in-process at the exact block on any daemon failure. E_K(J0), GCM's tag
 * mask, is always computed in-process.
 */
#include <string.h>

#include "backend.h"
#include "bsd_source.h"
#include "bsprov.h"

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
