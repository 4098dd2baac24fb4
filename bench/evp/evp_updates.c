/*
 * evp_updates: N calls of EVP_EncryptUpdate of LEN bytes each through the bitslice provider
 * in DIR, nothing else timed: the unit of an instruction count of the provider's update path
 * (callgrind --toggle-collect=EVP_EncryptUpdate; bench/RESULTS.md) and of an A/B wall-clock
 * comparison of two builds.
 *
 *   evp_updates DIR ALGORITHM LEN N   (e.g. build/provider RIJNDAEL-256-CTR 4096 10)
 */
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>
#include <openssl/provider.h>

int main(int argc, char **argv)
{
    static unsigned char key[32], iv[32], buf[1 << 16];
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR ALGORITHM LEN N\n", argv[0]);
        return 2;
    }
    long len = atol(argv[3]), n = atol(argv[4]);
    if (len < 0 || len > (long)sizeof buf || n < 0)
        return 2;
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = NULL;
    EVP_CIPHER *c = NULL;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl, rc = 1;
    if (lc == NULL || ctx == NULL || !OSSL_PROVIDER_set_default_search_path(lc, argv[1]) ||
        (prov = OSSL_PROVIDER_load(lc, "bitslice")) == NULL ||
        (c = EVP_CIPHER_fetch(lc, argv[2], NULL)) == NULL ||
        !EVP_EncryptInit_ex2(ctx, c, key, iv, NULL)) {
        fprintf(stderr, "%s: no %s from %s\n", argv[0], argv[2], argv[1]);
        goto done;
    }
    for (long i = 0; i < n; i++)
        if (!EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)len))
            goto done;
    printf("%02x\n", buf[0]); /* the output is used */
    rc = 0;
done:
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lc);
    return rc;
}
