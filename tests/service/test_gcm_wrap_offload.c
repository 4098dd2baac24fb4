/*
 * GCM over the daemon's keystream source where the 32-bit counter (inc32) wraps. The daemon
 * counts whole blocks, carrying past the low 32 bits; GCM does not. The source serves inc32
 * blocks only up to the wrap and must then stop, so that what follows is computed in-process:
 * here a first update ends exactly at the wrap (the request that reaches it is served whole),
 * and the next one starts past it. With a 12-byte IV, J0 comes from GHASH, so its low word is
 * anything; the test looks for an IV whose wrap is near enough to reach.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsd_source.h"
#include "modes/gcm256.h"
#include "svc_util.h"

static svc_daemon dmn;
static bs_gcm256_ctx g_off, g_ref;

/* Encrypts len bytes in updates of split bytes (the last one shorter) through the daemon and
 * in-process; both ciphertexts and tags must be equal, and the daemon must have served some. */
static void one(const uint8_t *key, const uint8_t *iv, size_t iv_len, const uint8_t *pt, size_t len,
                size_t split, uint8_t *a, uint8_t *b)
{
    bsd_source_opts o = {dmn.socket, 0, 1000, 5000, 0, 0, BSD_OFFLOAD_ALWAYS};
    bs_keystream_source *src = bsd_source_new(&o);
    CHECK(src != NULL);
    bs_gcm256_set_source(&g_off, src);
    CHECK(bs_gcm256_set_key(&g_off, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32) == BS_OK);
    CHECK(bs_gcm256_set_iv(&g_off, iv, iv_len) == BS_OK);
    CHECK(bs_gcm256_set_iv(&g_ref, iv, iv_len) == BS_OK);
    for (size_t at = 0; at < len; at += split) {
        size_t n = len - at < split ? len - at : split;
        CHECK(bs_gcm256_encrypt(&g_off, a + at, pt + at, n) == BS_OK);
    }
    CHECK(bs_gcm256_encrypt(&g_ref, b, pt, len) == BS_OK);
    uint8_t ta[32], tb[32];
    CHECK(bs_gcm256_tag(&g_off, ta, 32) == BS_OK);
    CHECK(bs_gcm256_tag(&g_ref, tb, 32) == BS_OK);
    uint64_t served = 0, local = 0;
    bsd_source_counts(src, &served, &local);
    size_t first_bad = len;
    for (size_t i = 0; i < len && first_bad == len; i++)
        if (a[i] != b[i])
            first_bad = i;
    printf("updates of %zu bytes: %llu bytes from the daemon, %llu in-process; %s, tags %s\n",
           split, (unsigned long long)served, (unsigned long long)local,
           first_bad == len ? "ciphertext equal" : "ciphertext DIFFERS",
           memcmp(ta, tb, 32) == 0 ? "equal" : "DIFFER");
    if (first_bad != len)
        printf("  first differing byte in block %zu of %zu\n", first_bad / 32, len / 32);
    CHECK(served > 0); /* else this test could not fail */
    CHECK(first_bad == len);
    CHECK(memcmp(ta, tb, 32) == 0);
    bs_gcm256_set_source(&g_off, NULL);
    src->ops->free(src);
}

int main(void)
{
    if (bs_block_cipher_by_name("RIJNDAEL-256") == NULL)
        return SVC_SKIP;
    svc_init(&dmn);
    svc_start(&dmn, NULL, NULL);
    uint8_t key[32], iv[12];
    svc_fill(key, sizeof key, 3);
    CHECK(bs_gcm256_set_key(&g_ref, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32) == BS_OK);
    uint64_t room = 0;
    for (uint32_t t = 0;; t++) {
        CHECK(t < 1000000);
        svc_fill(iv, sizeof iv, t);
        CHECK(bs_gcm256_set_iv(&g_ref, iv, sizeof iv) == BS_OK);
        room = ((uint64_t)1 << 32) - bs_load_be32(g_ref.counter + 28);
        if (room <= (1u << 17) && room > 1000)
            break;
    }
    printf("IV with %llu blocks before the inc32 wrap\n", (unsigned long long)room);
    size_t len = (size_t)(room + 100) * 32;
    uint8_t *pt = malloc(len), *a = malloc(len), *b = malloc(len);
    CHECK(pt != NULL && a != NULL && b != NULL);
    svc_fill(pt, len, 9);
    one(key, iv, sizeof iv, pt, len, (size_t)room * 32, a, b); /* an update ends at the wrap */
    one(key, iv, sizeof iv, pt, len, len, a, b);               /* one update across it */
    one(key, iv, sizeof iv, pt, len, 4096 + 5, a, b);          /* odd updates across it */
    free(pt);
    free(a);
    free(b);
    svc_cleanup(&dmn);
    return 0;
}
