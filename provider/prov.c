/*
 * prov.c: the provider's entry point: core functions, config keys, provider params, the
 * algorithm table (only ciphers whose cores are compiled in) and the error library.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "bs_cpu.h"
#include "bsd_client.h"
#include "bsd_offload.h"
#include "bsprov.h"
#include "bsprov_ciphers.h"
#include "modes/gcm256.h"
#include "modes/ctr.h"

#ifndef BSPROV_VERSION
#define BSPROV_VERSION "unknown"
#endif

/* One libcrypto per process: its core functions are the same for every provider instance. */
static OSSL_FUNC_core_get_params_fn *c_get_params;
static OSSL_FUNC_core_new_error_fn *c_new_error;
static OSSL_FUNC_core_set_error_debug_fn *c_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *c_vset_error;

static const OSSL_ITEM reason_strings[] = {
    {BSPROV_R_KEY_LENGTH, "wrong key length"},
    {BSPROV_R_IV_LENGTH, "IV length not allowed"},
    {BSPROV_R_TAG_LENGTH, "tag length not allowed"},
    {BSPROV_R_DATA_LIMIT, "data limit reached"},
    {BSPROV_R_COUNTER_WRAP, "counter would wrap"},
    {BSPROV_R_STATE, "operation not allowed in this state"},
    {BSPROV_R_AUTH, "authentication failed"},
    {BSPROV_R_ARG, "invalid argument"},
    {BSPROV_R_CONFIG, "invalid configuration"},
    {BSPROV_R_BUFFER, "buffer too small"},
    {BSPROV_R_ALLOC, "out of memory"},
    {0, NULL},
};

void bsprov_raise(const bsprov_ctx *prov, int reason, const char *file, int line, const char *func,
                  const char *fmt, ...)
{
    va_list ap;
    if (prov == NULL || c_new_error == NULL || c_vset_error == NULL)
        return;
    c_new_error(prov->handle);
    if (c_set_error_debug != NULL)
        c_set_error_debug(prov->handle, file, line, func);
    va_start(ap, fmt);
    c_vset_error(prov->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

int bsprov_usable(const bsprov_ctx *prov)
{
    if (prov->config_error[0] == 0)
        return 1;
    BSPROV_RAISE(prov, BSPROV_R_CONFIG, "%s", prov->config_error);
    return 0;
}

int bsprov_reason_of(int err)
{
    switch (err) {
    case BS_ERR_KEY_LENGTH:
        return BSPROV_R_KEY_LENGTH;
    case BS_ERR_IV_LENGTH:
        return BSPROV_R_IV_LENGTH;
    case BS_ERR_TAG_LENGTH:
        return BSPROV_R_TAG_LENGTH;
    case BS_ERR_DATA_LIMIT:
        return BSPROV_R_DATA_LIMIT;
    case BS_ERR_COUNTER_WRAP:
        return BSPROV_R_COUNTER_WRAP;
    case BS_ERR_STATE:
        return BSPROV_R_STATE;
    case BS_ERR_AUTH:
        return BSPROV_R_AUTH;
    default:
        return BSPROV_R_ARG;
    }
}

/* Each cipher file's algorithms, in provider/meson.build's order (bsprov_ciphers.h). */
static const bsprov_algorithm *const *const cipher_lists[] = {BSPROV_CIPHER_LISTS};
#define N_LISTS (sizeof cipher_lists / sizeof cipher_lists[0])

/* ---- provider params ---- */

/*
 * What runs: the implementation each algorithm's key setup picks at the CPU level in force
 * (the same choice bs_block_cipher_by_name and bs_ghash256_default make then).
 */
static void describe_impl(const bsprov_cipher_info *info, char *out, size_t cap)
{
    const bs_block_cipher *core = bs_block_cipher_by_name(info->core);
    if (info->mode == EVP_CIPH_GCM_MODE) {
        snprintf(out, cap, "%s+%s", core->impl, bs_ghash256_default()->name);
        return;
    }
    snprintf(out, cap, "%s", core->impl);
}

static void make_buildinfo(bsprov_ctx *prov)
{
    char *buildinfo = prov->buildinfo;
    const size_t cap = sizeof prov->buildinfo;
    size_t n = (size_t)snprintf(
        buildinfo, cap, "bitslice %s; cpu: %s (detected %s); cores:", BSPROV_VERSION,
        bs_cpu_level_name(bs_cpu_level()), bs_cpu_level_name(bs_cpu_detected()));
    for (size_t i = 0; bs_block_ciphers[i] != NULL && n < cap; i++)
        n += (size_t)snprintf(buildinfo + n, cap - n, " %s/%s%s", bs_block_ciphers[i]->name,
                              bs_block_ciphers[i]->impl,
                              bs_impl_usable(bs_block_ciphers[i]) ? "" : "(above the cpu level)");
    if (n < cap)
        n += (size_t)snprintf(buildinfo + n, cap - n, "; running: %s", prov->impls);
    if (n < cap)
        snprintf(buildinfo + n, cap - n, "; backend: in-process; compiler: %s",
#ifdef __VERSION__
                 __VERSION__
#else
                 "unknown"
#endif
        );
}

static const OSSL_PARAM prov_gettable_params[] = {
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
    OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
    OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
    OSSL_PARAM_utf8_ptr(BSPROV_PARAM_CPU, NULL, 0),
    OSSL_PARAM_utf8_ptr(BSPROV_PARAM_IMPLS, NULL, 0),
    OSSL_PARAM_END,
};

static const OSSL_PARAM *prov_gettable(void *provctx)
{
    (void)provctx;
    return prov_gettable_params;
}

static int prov_get_params(void *provctx, OSSL_PARAM params[])
{
    const bsprov_ctx *prov = (const bsprov_ctx *)provctx;
    OSSL_PARAM *p;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, "bitslice: constant-time bitsliced ciphers"))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, BSPROV_VERSION))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, prov->buildinfo))
        return 0;
    if ((p = OSSL_PARAM_locate(params, BSPROV_PARAM_CPU)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, bs_cpu_level_name(bs_cpu_level())))
        return 0;
    if ((p = OSSL_PARAM_locate(params, BSPROV_PARAM_IMPLS)) != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, prov->impls))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL &&
        !OSSL_PARAM_set_int(p, prov->config_error[0] == 0))
        return 0;
    return 1;
}

static const OSSL_ALGORITHM *prov_query(void *provctx, int operation_id, int *no_cache)
{
    *no_cache = 0;
    return operation_id == OSSL_OP_CIPHER ? ((bsprov_ctx *)provctx)->ciphers : NULL;
}

static const OSSL_ITEM *prov_reason_strings(void *provctx)
{
    (void)provctx;
    return reason_strings;
}

static void prov_teardown(void *provctx)
{
    bsprov_ctx *prov = (bsprov_ctx *)provctx;
    if (prov == NULL)
        return;
    OPENSSL_free(prov->ciphers);
    OPENSSL_free(prov->descriptions);
    OPENSSL_free(prov->daemon_socket);
    OPENSSL_free(prov);
}

static const OSSL_DISPATCH prov_dispatch[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))prov_teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))prov_gettable},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))prov_get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))prov_query},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))prov_reason_strings},
    {0, NULL},
};

/* ---- config ---- */

/* A decimal (or 0x-hex) unsigned number that fits in 64 bits, nothing else. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || *end != '\0')
        return 0;
    *out = (uint64_t)v;
    return 1;
}

/* A timeout in milliseconds, 1..600000. */
static int parse_ms(const char *s, int *out)
{
    uint64_t v;
    if (!parse_u64(s, &v) || v == 0 || v > 600000)
        return 0;
    *out = (int)v;
    return 1;
}

/*
 * The daemon socket: $BITSLICE_SOCKET when set (a path; empty or "off": no offload), else the
 * config key (a path; "auto": bsd_client_default_socket(); "off": no offload), else none.
 * secure_getenv: a set-uid program does not take the socket from its caller's environment.
 */
static int resolve_socket(bsprov_ctx *prov, const char *conf)
{
    const char *env = secure_getenv(BSPROV_ENV_SOCKET);
    const char *want = env != NULL ? env : conf;
    char path[108];

    if (want == NULL || want[0] == '\0' || strcmp(want, "off") == 0)
        return 1;
    if (env == NULL && strcmp(want, "auto") == 0) {
        bsd_client_default_socket(path, sizeof path);
        want = path;
    }
    if (strlen(want) >= sizeof path) {
        snprintf(prov->config_error, sizeof prov->config_error,
                 "bitslice: daemon socket path '%.64s...' longer than %zu bytes; the provider is "
                 "disabled",
                 want, sizeof path - 1);
        return 1;
    }
    return (prov->daemon_socket = OPENSSL_strdup(want)) != NULL;
}

/*
 * The offload mode: $BITSLICE_OFFLOAD when set (secure_getenv), else the config key, else auto.
 * A value that names no mode disables the provider, as any refused config value does.
 */
static int resolve_offload(bsprov_ctx *prov, const char *conf)
{
    int bad = 0;
    int m = conf != NULL ? bsd_offload_mode_by_name(conf) : BSD_OFFLOAD_AUTO;
    if (m < 0) {
        snprintf(prov->config_error, sizeof prov->config_error,
                 "bitslice: config " BSPROV_CONF_OFFLOAD
                 " = '%.64s' is not auto, always or never; the provider is disabled",
                 conf);
        m = BSD_OFFLOAD_AUTO;
    }
    prov->offload_mode = bsd_offload_mode_env(m, &bad);
    if (bad)
        snprintf(prov->config_error, sizeof prov->config_error,
                 "bitslice: $" BSD_OFFLOAD_ENV
                 " is not auto, always or never; the provider is disabled");
    return 1;
}

static int read_config(bsprov_ctx *prov)
{
    char *limit = NULL, *sock = NULL, *threshold = NULL, *tmo = NULL, *ctmo = NULL, *cpu = NULL;
    char *offload = NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_utf8_ptr(BSPROV_CONF_CPU, &cpu, 0),
        OSSL_PARAM_utf8_ptr(BSPROV_PARAM_LIMIT64_BLOCKS, &limit, 0),
        OSSL_PARAM_utf8_ptr(BSPROV_CONF_DAEMON_SOCKET, &sock, 0),
        OSSL_PARAM_utf8_ptr(BSPROV_CONF_OFFLOAD_THRESHOLD, &threshold, 0),
        OSSL_PARAM_utf8_ptr(BSPROV_CONF_DAEMON_TIMEOUT, &tmo, 0),
        OSSL_PARAM_utf8_ptr(BSPROV_CONF_DAEMON_CONNECT_TIMEOUT, &ctmo, 0),
        OSSL_PARAM_utf8_ptr(BSPROV_CONF_OFFLOAD, &offload, 0),
        OSSL_PARAM_END,
    };

    prov->limit64_blocks = BS_CTR_LIMIT64_DEFAULT;
    prov->offload_threshold = BSPROV_OFFLOAD_THRESHOLD_DEFAULT;
    prov->offload_mode = BSD_OFFLOAD_AUTO;
    if (c_get_params == NULL || !c_get_params(prov->handle, params))
        return resolve_offload(prov, NULL) && resolve_socket(prov, NULL);
    if (limit != NULL) {
        uint64_t v;
        if (!parse_u64(limit, &v) || v == 0 || v > BS_CTR_LIMIT64_DEFAULT)
            snprintf(prov->config_error, sizeof prov->config_error,
                     "bitslice: config " BSPROV_PARAM_LIMIT64_BLOCKS
                     " = '%.64s' not allowed (1..%llu blocks); the provider is disabled",
                     limit, (unsigned long long)BS_CTR_LIMIT64_DEFAULT);
        else
            prov->limit64_blocks = v;
    }
    if (cpu != NULL) {
        int level = bs_cpu_level_by_name(cpu);
        if (level < 0)
            snprintf(prov->config_error, sizeof prov->config_error,
                     "bitslice: config " BSPROV_CONF_CPU
                     " = '%.64s' is not a CPU level (" BS_CPU_LEVEL_NAMES "); the "
                     "provider is disabled",
                     cpu);
        else
            bs_cpu_limit(level);
    }
    if (threshold != NULL && !parse_u64(threshold, &prov->offload_threshold))
        snprintf(prov->config_error, sizeof prov->config_error,
                 "bitslice: config " BSPROV_CONF_OFFLOAD_THRESHOLD
                 " = '%.64s' is not a byte count; the provider is disabled",
                 threshold);
    if (tmo != NULL && !parse_ms(tmo, &prov->daemon_timeout_ms))
        snprintf(prov->config_error, sizeof prov->config_error,
                 "bitslice: config " BSPROV_CONF_DAEMON_TIMEOUT
                 " = '%.64s' not allowed (1..600000 ms); the provider is disabled",
                 tmo);
    if (ctmo != NULL && !parse_ms(ctmo, &prov->daemon_connect_timeout_ms))
        snprintf(prov->config_error, sizeof prov->config_error,
                 "bitslice: config " BSPROV_CONF_DAEMON_CONNECT_TIMEOUT
                 " = '%.64s' not allowed (1..600000 ms); the provider is disabled",
                 ctmo);
    return resolve_offload(prov, offload) && resolve_socket(prov, sock);
}

/* Offers alg as prov->ciphers[*n] where its core is compiled in, and says which code runs it. */
static void add_cipher(bsprov_ctx *prov, const bsprov_algorithm *alg, size_t *n, size_t *used)
{
    const bsprov_cipher_info *info = alg->info;
    char impl[48];
    if (bs_block_cipher_by_name(info->core) == NULL)
        return;
    describe_impl(info, impl, sizeof impl);
    snprintf(prov->descriptions[*n], sizeof prov->descriptions[*n], "%s, implementation %s",
             info->name, impl);
    if (*used < sizeof prov->impls)
        *used += (size_t)snprintf(prov->impls + *used, sizeof prov->impls - *used, "%s%s=%s",
                                  *used ? " " : "", info->name, impl);
    prov->ciphers[*n].algorithm_names = info->names;
    prov->ciphers[*n].property_definition = "provider=bitslice";
    prov->ciphers[*n].implementation = alg->dispatch;
    prov->ciphers[*n].algorithm_description = prov->descriptions[*n];
    (*n)++;
}

static int build_cipher_table(bsprov_ctx *prov)
{
    size_t all = 0, n = 0, used = 0;
    for (size_t l = 0; l < N_LISTS; l++)
        for (const bsprov_algorithm *const *a = cipher_lists[l]; *a != NULL; a++)
            all++;
    prov->ciphers = OPENSSL_zalloc((all + 1) * sizeof *prov->ciphers);
    prov->descriptions = OPENSSL_zalloc(all * sizeof *prov->descriptions);
    if (prov->ciphers == NULL || prov->descriptions == NULL)
        return 0;
    for (size_t l = 0; l < N_LISTS; l++)
        for (const bsprov_algorithm *const *a = cipher_lists[l]; *a != NULL; a++)
            add_cipher(prov, *a, &n, &used);
    return 1;
}

/* The module's only exported symbol (provider.map; everything else is hidden). */
__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle,
                                                              const OSSL_DISPATCH *in,
                                                              const OSSL_DISPATCH **out,
                                                              void **provctx)
{
    for (; in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_GET_PARAMS:
            c_get_params = OSSL_FUNC_core_get_params(in);
            break;
        case OSSL_FUNC_CORE_NEW_ERROR:
            c_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            c_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            c_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        default:
            break;
        }
    }

    bsprov_ctx *prov = OPENSSL_zalloc(sizeof *prov);
    if (prov == NULL)
        return 0;
    prov->handle = handle;
    if (!read_config(prov) || !build_cipher_table(prov)) {
        prov_teardown(prov);
        return 0;
    }
    make_buildinfo(prov);
    *out = prov_dispatch;
    *provctx = prov;
    return 1;
}
