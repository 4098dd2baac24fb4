/*
 * Load order and names: bitslice beside OpenSSL's own providers.
 *   fetch_names MODULES_DIR ORDER [NAMES_FILE...]
 *   fetch_names --dump MODULES_DIR ORDER   (every algorithm name of the providers, one a line)
 * ORDER is a comma-separated list of providers loaded in that order into a fresh library
 * context whose module path is MODULES_DIR (e.g. "default,legacy,bitslice"). Checks:
 * - every name and alias of every bitslice algorithm, fetched with no property query, gives the
 *   bitslice implementation, and so does the query "provider=bitslice";
 * - every algorithm name of the other providers (ciphers, digests, MACs, KDFs, RNGs, key
 *   managers, signatures, key exchange, KEMs, asymmetric ciphers: OpenSSL keeps one name map for
 *   them all, so a shared name would merge two algorithms' aliases) differs from every bitslice
 *   name, and their ciphers fetched with no query come from their own provider;
 * - the names in each NAMES_FILE (one per line, '#' comments: the algorithm names of another
 *   OpenSSL, e.g. 3.5) differ from every bitslice name;
 * - a bitslice cipher and AES-256-GCM both encrypt and decrypt back in this order.
 * Linked against any libcrypto 3.x: run with another one's library path to check that one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/provider.h>

#define MAX_NAMES 8192

typedef struct names {
    char *v[MAX_NAMES];
    char *owner[MAX_NAMES];
    size_t n;
} names;

static names ours, theirs;
static int failures;

static void add(names *ns, const char *name, const char *owner)
{
    if (ns->n == MAX_NAMES) {
        fprintf(stderr, "fetch_names: more than %d names\n", MAX_NAMES);
        exit(2);
    }
    ns->owner[ns->n] = strdup(owner);
    ns->v[ns->n++] = strdup(name);
}

typedef struct collect {
    names *into;
    const char *kind;
} collect;

static void add_name(const char *name, void *arg)
{
    collect *c = (collect *)arg;
    add(c->into, name, c->kind);
}

static int is_bitslice(const OSSL_PROVIDER *p)
{
    return p != NULL && strcmp(OSSL_PROVIDER_get0_name(p), "bitslice") == 0;
}

/* One callback per algorithm type: sorts the names into ours and theirs. */
#define COLLECTOR(fn_name, TYPE, get_provider, names_do_all, kind)                                 \
    static void fn_name(TYPE *alg, void *arg)                                                      \
    {                                                                                              \
        (void)arg;                                                                                 \
        int bs = is_bitslice(get_provider(alg));                                                   \
        collect c = {bs ? &ours : &theirs, kind};                                                  \
        names_do_all(alg, add_name, &c);                                                           \
    }
COLLECTOR(each_cipher, EVP_CIPHER, EVP_CIPHER_get0_provider, EVP_CIPHER_names_do_all, "cipher")
COLLECTOR(each_md, EVP_MD, EVP_MD_get0_provider, EVP_MD_names_do_all, "digest")
COLLECTOR(each_mac, EVP_MAC, EVP_MAC_get0_provider, EVP_MAC_names_do_all, "mac")
COLLECTOR(each_kdf, EVP_KDF, EVP_KDF_get0_provider, EVP_KDF_names_do_all, "kdf")
COLLECTOR(each_rand, EVP_RAND, EVP_RAND_get0_provider, EVP_RAND_names_do_all, "rand")
COLLECTOR(each_keymgmt, EVP_KEYMGMT, EVP_KEYMGMT_get0_provider, EVP_KEYMGMT_names_do_all, "keymgmt")
COLLECTOR(each_sig, EVP_SIGNATURE, EVP_SIGNATURE_get0_provider, EVP_SIGNATURE_names_do_all,
          "signature")
COLLECTOR(each_kex, EVP_KEYEXCH, EVP_KEYEXCH_get0_provider, EVP_KEYEXCH_names_do_all, "keyexch")
COLLECTOR(each_kem, EVP_KEM, EVP_KEM_get0_provider, EVP_KEM_names_do_all, "kem")
COLLECTOR(each_asym, EVP_ASYM_CIPHER, EVP_ASYM_CIPHER_get0_provider, EVP_ASYM_CIPHER_names_do_all,
          "asymcipher")

static void fail(const char *fmt, const char *a, const char *b)
{
    printf("FAIL: ");
    printf(fmt, a, b);
    printf("\n");
    failures++;
}

/* Encrypts and decrypts back 100 bytes under one cipher name. */
static void round_trip(OSSL_LIB_CTX *lc, const char *name, const char *order)
{
    EVP_CIPHER *c = EVP_CIPHER_fetch(lc, name, NULL);
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    unsigned char key[64] = {1}, iv[32] = {2}, pt[100] = {3}, ct[100], back[100], tag[16];
    int n, ok = c != NULL && x != NULL;
    int aead = ok && EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_MODE;
    ok = ok && EVP_EncryptInit_ex2(x, c, key, iv, NULL) && EVP_EncryptUpdate(x, ct, &n, pt, 100) &&
         n == 100 && EVP_EncryptFinal_ex(x, ct + 100, &n) &&
         (!aead || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag)) &&
         EVP_DecryptInit_ex2(x, c, key, iv, NULL) && EVP_DecryptUpdate(x, back, &n, ct, 100) &&
         (!aead || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, tag)) &&
         EVP_DecryptFinal_ex(x, back + 100, &n) && memcmp(back, pt, 100) == 0;
    if (!ok) {
        fail("%s does not encrypt and decrypt back with providers %s", name, order);
        ERR_print_errors_fp(stdout);
    }
    EVP_CIPHER_CTX_free(x);
    EVP_CIPHER_free(c);
}

static int read_names_file(const char *path, names *into)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (f == NULL) {
        perror(path);
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] != 0 && line[0] != '#')
            add(into, line, path);
    }
    fclose(f);
    return 0;
}

static void check(OSSL_LIB_CTX *lc, const char *order, size_t live);

static int cmp_str(const void *a, const void *b)
{
    return strcasecmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int dump = argc > 1 && strcmp(argv[1], "--dump") == 0;
    if (dump) {
        argc--;
        argv++;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: fetch_names MODULES_DIR ORDER [NAMES_FILE...]\n");
        return 2;
    }
    const char *order = argv[2];
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    if (lc == NULL || !OSSL_PROVIDER_set_default_search_path(lc, argv[1]))
        return 2;
    char *list = strdup(order), *save = NULL;
    OSSL_PROVIDER *loaded[8];
    size_t nloaded = 0;
    for (char *p = strtok_r(list, ",", &save); p != NULL && nloaded < 8;
         p = strtok_r(NULL, ",", &save))
        if ((loaded[nloaded++] = OSSL_PROVIDER_load(lc, p)) == NULL) {
            printf("FAIL: provider %s does not load\n", p);
            ERR_print_errors_fp(stdout);
            return 1;
        }
    free(list);

    EVP_CIPHER_do_all_provided(lc, each_cipher, NULL);
    size_t our_ciphers_names = ours.n;
    EVP_MD_do_all_provided(lc, each_md, NULL);
    EVP_MAC_do_all_provided(lc, each_mac, NULL);
    EVP_KDF_do_all_provided(lc, each_kdf, NULL);
    EVP_RAND_do_all_provided(lc, each_rand, NULL);
    EVP_KEYMGMT_do_all_provided(lc, each_keymgmt, NULL);
    EVP_SIGNATURE_do_all_provided(lc, each_sig, NULL);
    EVP_KEYEXCH_do_all_provided(lc, each_kex, NULL);
    EVP_KEM_do_all_provided(lc, each_kem, NULL);
    EVP_ASYM_CIPHER_do_all_provided(lc, each_asym, NULL);
    if (our_ciphers_names < 12 || ours.n != our_ciphers_names) {
        printf("FAIL: bitslice offers %zu cipher names and %zu others\n", our_ciphers_names,
               ours.n - our_ciphers_names);
        failures++;
    }
    size_t live = theirs.n;
    for (int i = 3; i < argc; i++)
        if (read_names_file(argv[i], &theirs) != 0)
            return 2;
    if (dump) {
        qsort(theirs.v, theirs.n, sizeof theirs.v[0], cmp_str);
        for (size_t j = 0; j < theirs.n; j++)
            if (j == 0 || strcasecmp(theirs.v[j], theirs.v[j - 1]) != 0)
                printf("%s\n", theirs.v[j]);
    } else {
        check(lc, order, live);
    }
    for (size_t i = 0; i < ours.n; i++)
        free(ours.v[i]), free(ours.owner[i]);
    for (size_t j = 0; j < theirs.n; j++)
        free(theirs.v[j]), free(theirs.owner[j]);
    while (nloaded > 0)
        OSSL_PROVIDER_unload(loaded[--nloaded]);
    OSSL_LIB_CTX_free(lc);
    return failures ? 1 : 0;
}

static void check(OSSL_LIB_CTX *lc, const char *order, size_t live)
{
    /* Our names: fetched with and without the query, they give our implementation. */
    for (size_t i = 0; i < ours.n; i++) {
        EVP_CIPHER *c = EVP_CIPHER_fetch(lc, ours.v[i], NULL);
        if (c == NULL || !is_bitslice(EVP_CIPHER_get0_provider(c)))
            fail("%s (no query) fetches %s, not bitslice", ours.v[i],
                 c ? OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)) : "nothing");
        EVP_CIPHER_free(c);
        c = EVP_CIPHER_fetch(lc, ours.v[i], "provider=bitslice");
        if (c == NULL)
            fail("%s with provider=bitslice fetches nothing%s", ours.v[i], "");
        EVP_CIPHER_free(c);
        for (size_t j = 0; j < theirs.n; j++)
            if (strcasecmp(ours.v[i], theirs.v[j]) == 0)
                fail("bitslice's name %s is also a name in %s", ours.v[i], theirs.owner[j]);
    }
    /* Their ciphers: no query gives their own provider; the bitslice query gives nothing. */
    for (size_t j = 0; j < live; j++) {
        if (strcmp(theirs.owner[j], "cipher") != 0)
            continue;
        EVP_CIPHER *c = EVP_CIPHER_fetch(lc, theirs.v[j], "provider=bitslice");
        if (c != NULL)
            fail("%s with provider=bitslice fetches a bitslice cipher%s", theirs.v[j], "");
        EVP_CIPHER_free(c);
        c = EVP_CIPHER_fetch(lc, theirs.v[j], NULL);
        if (c != NULL && is_bitslice(EVP_CIPHER_get0_provider(c)))
            fail("%s (no query) fetches bitslice's cipher%s", theirs.v[j], "");
        EVP_CIPHER_free(c);
    }
    ERR_clear_error();
    round_trip(lc, "RIJNDAEL-256-GCM", order);
    round_trip(lc, "GIFT-128-CTR", order);
    if (strstr(order, "default") != NULL)
        round_trip(lc, "AES-256-GCM", order);
    printf("%s %s: %zu bitslice cipher names, %zu names of the others loaded (%s), %zu from "
           "files; %d problems\n",
           OpenSSL_version(OPENSSL_VERSION), order, ours.n, live, order, theirs.n - live, failures);
}
