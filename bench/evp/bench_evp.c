/*
 * bench_evp: throughput of the bitslice provider's ciphers through EVP, beside OpenSSL's
 * AES-256-CTR and AES-256-GCM (default provider) in the same run, on the same buffers.
 *
 *   bench_evp [--openssl DIR] [CPU seconds per cell (default 0.5)] [provider dir]
 *
 * --openssl DIR (or BS_BENCH_OPENSSL=DIR): run over DIR/lib's libcrypto (another OpenSSL 3.x
 * install prefix, e.g. 3.5.3 from its release tag, bench/README.md) instead of the system one.
 *
 * CTR: one context, EVP_EncryptUpdate over the buffer again and again (a stream).
 * GCM: one sealed message per buffer: new IV, update, final, read the 16-byte tag (as a TLS
 * record would be), so small sizes include the per-message cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "../openssl_select.h"

#ifndef BSPROV_DIR
#define BSPROV_DIR "."
#endif

static const struct {
    const char *name, *props;
} ciphers[] = {
    {"AES-256-CTR", "provider=default"},       {"AES-256-GCM", "provider=default"},
    {"RIJNDAEL-256-CTR", "provider=bitslice"}, {"RIJNDAEL-256-GCM", "provider=bitslice"},
    {"GIFT-128-CTR", "provider=bitslice"},     {"GIFT-64-CTR", "provider=bitslice"},
    {"PRESENT-128-CTR", "provider=bitslice"},  {"PRESENT-80-CTR", "provider=bitslice"},
    {"SPEEDY-7-192-CTR", "provider=bitslice"}, {"SPEEDY-6-192-CTR", "provider=bitslice"},
    {"SPEEDY-5-192-CTR", "provider=bitslice"},
};
static const size_t sizes[] = {16, 256, 4096, 65536};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/*
 * CPU time of this (single-threaded) process, as `openssl speed` measures by default, so that
 * other load on the machine does not count against either column.
 */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* MB/s (10^6 bytes) over about `seconds`; -1 on an EVP failure. */
static double measure(const EVP_CIPHER *c, size_t size, double seconds, unsigned char *buf)
{
    unsigned char key[64] = {1}, iv[64] = {2}, tag[16];
    int gcm = EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_MODE, outl;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    double t0, t, bytes = 0;
    long iters = 0, batch = size >= 4096 ? 16 : 256;

    if (ctx == NULL || !EVP_EncryptInit_ex2(ctx, c, key, iv, NULL))
        return -1;
    t0 = now();
    do {
        for (long i = 0; i < batch; i++) {
            if (gcm) {
                iv[0]++; /* a fresh IV per message */
                if (!EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL) ||
                    !EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)size) ||
                    !EVP_EncryptFinal_ex(ctx, buf + size, &outl) ||
                    !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag))
                    return -1;
            } else if (!EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)size)) {
                return -1;
            }
        }
        iters += batch;
        t = now() - t0;
    } while (t < seconds);
    bytes = (double)iters * (double)size;
    EVP_CIPHER_CTX_free(ctx);
    return bytes / t / 1e6;
}

int main(int argc, char **argv)
{
    bs_openssl_select(&argc, argv);
    double seconds = argc > 1 ? atof(argv[1]) : 0.5;
    const char *dir = argc > 2 ? argv[2] : BSPROV_DIR;
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    unsigned char *buf = calloc(1, 65536 + 64);

    if (libctx == NULL || buf == NULL || !OSSL_PROVIDER_set_default_search_path(libctx, dir) ||
        OSSL_PROVIDER_load(libctx, "default") == NULL ||
        OSSL_PROVIDER_load(libctx, "bitslice") == NULL) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    printf("# EVP throughput, MB/s (10^6 bytes per CPU second), %.2f s per cell; GCM = one "
           "sealed message per buffer\n# %s\n",
           seconds, bs_openssl_describe());
    printf("%-18s %-9s", "cipher", "provider");
    for (size_t s = 0; s < NSIZES; s++)
        printf(" %9zu B", sizes[s]);
    printf("\n");
    for (size_t i = 0; i < sizeof ciphers / sizeof ciphers[0]; i++) {
        EVP_CIPHER *c = EVP_CIPHER_fetch(libctx, ciphers[i].name, ciphers[i].props);
        printf("%-18s %-9s", ciphers[i].name, ciphers[i].props + 9);
        if (c == NULL) {
            printf(" (not available)\n");
            ERR_clear_error();
            continue;
        }
        for (size_t s = 0; s < NSIZES; s++) {
            double mbs = measure(c, sizes[s], seconds, buf);
            if (mbs < 0) {
                printf(" %11s", "error");
                ERR_print_errors_fp(stderr);
            } else {
                printf(" %11.1f", mbs);
            }
            fflush(stdout);
        }
        printf("\n");
        EVP_CIPHER_free(c);
    }
    free(buf);
    OSSL_LIB_CTX_free(libctx);
    return 0;
}
