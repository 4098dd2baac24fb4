/*
 * No key, round key, GHASH key or keystream stays in a vector register once the provider's
 * init, update, final or free returns (review F5). A signal then writes the whole register file
 * into its frame, and so does the dynamic linker's lazy binding: on the caller's stack, where
 * bs_wipe_stack never reaches. Each signal here is taken on an alternate stack that the test
 * owns and zeroes, so after the handler returns the frame the kernel wrote (every vector
 * register, as XSAVE stores them) can be read and searched for 8-byte pieces of the secrets.
 *
 * Run at each CPU level ($BITSLICE_CPU, set by meson), for every algorithm of the provider.
 * x86-64 Linux only (exit 77 elsewhere); under valgrind the frame is valgrind's own (it passes).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "bitslice.h"
#include "ref/ref.h"
#include "testutil.h"

#ifndef BSPROV_DIR
#error "BSPROV_DIR: the build directory of bitslice.so"
#endif

#if defined(__x86_64__) && defined(__linux__)

enum { ALT_BYTES = 1 << 16, STREAM_BYTES = 1 << 17, MSG_BYTES = 40000 + 7 };

static uint8_t altstack[ALT_BYTES] __attribute__((aligned(64)));
static uint64_t *secrets; /* sorted 8-byte pieces */
static size_t nsecrets, cap;

static void on_signal(int sig)
{
    (void)sig;
}

static void add_secret_bytes(const uint8_t *p, size_t n, size_t step)
{
    for (size_t i = 0; i + 8 <= n; i += step) {
        if (nsecrets == cap) {
            cap = cap ? 2 * cap : 4096;
            secrets = realloc(secrets, cap * sizeof *secrets);
            if (secrets == NULL)
                abort();
        }
        uint64_t v;
        memcpy(&v, p + i, 8);
        if (v != 0) /* a zero piece would match the zeroed frame */
            secrets[nsecrets++] = v;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Takes a signal on the zeroed alternate stack; returns the number of secret pieces in it. */
static size_t secrets_in_signal_frame(size_t *first_at)
{
    memset(altstack, 0, sizeof altstack);
    raise(SIGUSR1);
    size_t hits = 0;
    for (size_t i = 0; i + 8 <= sizeof altstack; i++) {
        uint64_t v;
        memcpy(&v, altstack + i, 8);
        if (v != 0 && bsearch(&v, secrets, nsecrets, sizeof v, cmp_u64) != NULL) {
            if (hits++ == 0)
                *first_at = i;
        }
    }
    return hits;
}

static int failures;

static void check(const char *alg, const char *when)
{
    size_t at = 0, hits = secrets_in_signal_frame(&at);
    if (hits != 0) {
        printf("FAIL %s: after %s, %zu pieces of key, round keys or keystream in the vector "
               "registers (first at frame offset %zu)\n",
               alg, when, hits, at);
        failures++;
    }
}

/* The keystream of (key, iv): the encryption of zeros, by a separate context. */
static void keystream(EVP_CIPHER *c, const uint8_t *key, const uint8_t *iv, uint8_t *out,
                      size_t n)
{
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    uint8_t *zeros = calloc(1, n);
    int outl;
    if (x == NULL || zeros == NULL || EVP_EncryptInit_ex2(x, c, key, iv, NULL) != 1 ||
        EVP_EncryptUpdate(x, out, &outl, zeros, (int)n) != 1)
        abort();
    EVP_CIPHER_CTX_free(x);
    free(zeros);
}

static void run(EVP_CIPHER *c, const char *name)
{
    int key_len = EVP_CIPHER_get_key_length(c);
    int gcm = EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_MODE;
    uint8_t key[64], iv[64], tag[32];
    uint8_t *stream = malloc(STREAM_BYTES), *msg = malloc(MSG_BYTES), *out = malloc(MSG_BYTES);
    if (stream == NULL || msg == NULL || out == NULL)
        abort();
    bs_test_fill(key, sizeof key);
    bs_test_fill(iv, sizeof iv);
    bs_test_fill(msg, MSG_BYTES);

    nsecrets = 0;
    add_secret_bytes(key, (size_t)key_len, 1);
    keystream(c, key, iv, stream, STREAM_BYTES);
    add_secret_bytes(stream, STREAM_BYTES, 8);
    if (strncmp(name, "RIJNDAEL-256", 12) == 0) {
        uint8_t rk[15 * 32], zero[32] = {0}, h[32];
        bs_ref_rijndael256_round_keys(key, rk);
        add_secret_bytes(rk, sizeof rk, 4);
        bs_ref_rijndael256_encrypt(key, zero, h); /* GHASH's key */
        add_secret_bytes(h, sizeof h, 1);
    }
    qsort(secrets, nsecrets, sizeof *secrets, cmp_u64);

    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int outl, done = 0;
    if (x == NULL || EVP_EncryptInit_ex2(x, c, key, iv, NULL) != 1)
        abort();
    check(name, "init");
    if (gcm && EVP_EncryptUpdate(x, NULL, &outl, msg, 13) != 1)
        abort();
    for (size_t off = 0; off < MSG_BYTES; off += (size_t)outl) {
        size_t n = MSG_BYTES - off < 4099 ? MSG_BYTES - off : 4099;
        if (EVP_EncryptUpdate(x, out + off, &outl, msg + off, (int)n) != 1)
            abort();
        done++;
    }
    check(name, "update");
    if (EVP_EncryptFinal_ex(x, out, &outl) != 1)
        abort();
    check(name, "final");
    if (gcm && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1)
        abort();
    EVP_CIPHER_CTX_free(x);
    check(name, "free");
    printf("%s: %d updates, %zu secret pieces searched for in 4 signal frames\n", name, done,
           nsecrets);
    free(stream);
    free(msg);
    free(out);
}

static void each_cipher(EVP_CIPHER *c, void *arg)
{
    (void)arg;
    const OSSL_PROVIDER *p = EVP_CIPHER_get0_provider(c);
    if (p != NULL && strcmp(OSSL_PROVIDER_get0_name(p), "bitslice") == 0)
        run(c, EVP_CIPHER_get0_name(c));
}

int main(void)
{
    bs_test_seed();
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0) {
        perror("sigaltstack");
        return 1;
    }
    OSSL_LIB_CTX *lc = OSSL_LIB_CTX_new();
    if (lc == NULL || !OSSL_PROVIDER_set_default_search_path(lc, BSPROV_DIR) ||
        OSSL_PROVIDER_load(lc, "bitslice") == NULL) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    /* The control: a secret left in a register on purpose is found. */
    {
        uint8_t k[16];
        bs_test_fill(k, sizeof k);
        nsecrets = 0;
        add_secret_bytes(k, sizeof k, 1);
        qsort(secrets, nsecrets, sizeof *secrets, cmp_u64);
        __asm__ __volatile__("movdqu %0, %%xmm13" : : "m"(k) : "xmm13");
        size_t at, hits = secrets_in_signal_frame(&at);
        if (hits == 0) {
            printf("FAIL control: a key loaded into xmm13 is not found in the signal frame\n");
            return 1;
        }
        printf("control: a key left in xmm13 is found (%zu pieces)\n", hits);
    }
    EVP_CIPHER_do_all_provided(lc, each_cipher, NULL);
    free(secrets);
    OSSL_LIB_CTX_free(lc);
    printf("%s\n", failures ? "vector registers hold secrets" : "no secret in the vector registers");
    return failures ? 1 : 0;
}

#else
int main(void)
{
    printf("skip: the signal-frame scan is written for x86-64 Linux\n");
    return 77;
}
#endif
