/*
 * A window of daemon keystream that changes in the shared memory after it was checked (a late
 * or stray write of the daemon or its device) must not reach the output: the client checks a
 * private copy and uses only that. The test reads one block (window 0 is fetched and checked),
 * then flips a bit of window 0 in the shared mapping, as another writer of it would, then reads
 * on from window 0: the output must equal the in-process stream.
 */
#include <stdio.h>
#include <string.h>

#include "bsd_source.h"
#include "bsd_stream.h"
#include "modes/ctr.h"
#include "svc_util.h"

static svc_daemon dmn;

int main(void)
{
    const bs_block_cipher *cs[16];
    size_t nc = svc_ciphers(cs, 16);
    if (nc == 0)
        return SVC_SKIP;
    svc_init(&dmn);
    svc_start(&dmn, NULL, NULL);
    for (size_t ci = 0; ci < nc; ci++) {
        const bs_block_cipher *c = cs[ci];
        uint8_t key[64], iv[32] = {0};
        svc_fill(key, sizeof key, 1 + (uint32_t)ci);
        bsd_source_opts o = {dmn.socket, 0, 1000, 5000, 65536, 2, BSD_OFFLOAD_ALWAYS};
        bs_keystream_source *src = bsd_source_new(&o);
        CHECK(src != NULL);
        static bs_ctr_ctx off __attribute__((aligned(64))), ref __attribute__((aligned(64)));
        memset(&off, 0, sizeof off);
        memset(&ref, 0, sizeof ref);
        bs_ctr_set_source(&off, src);
        CHECK(bs_ctr_set_key(&off, c, key, c->key_len) == BS_OK);
        CHECK(bs_ctr_set_key(&ref, c, key, c->key_len) == BS_OK);
        CHECK(bs_ctr_set_iv(&off, iv, bs_ctr_iv_len(c)) == BS_OK);
        CHECK(bs_ctr_set_iv(&ref, iv, bs_ctr_iv_len(c)) == BS_OK);
        static uint8_t a[4096], b[4096];
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        CHECK(bs_ctr_crypt(&off, a, a, c->block_len) == BS_OK);
        CHECK(bs_ctr_crypt(&ref, b, b, c->block_len) == BS_OK);
        size_t len = 0;
        uint8_t *shm = svc_shared_windows(&len);
        CHECK(shm != NULL && len > 4096);
        for (size_t i = 64; i < 4096; i += 97)
            shm[i] ^= 1;
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        CHECK(bs_ctr_crypt(&off, a, a, sizeof a) == BS_OK);
        CHECK(bs_ctr_crypt(&ref, b, b, sizeof b) == BS_OK);
        uint64_t served = 0, local = 0;
        bsd_source_counts(src, &served, &local);
        size_t diff = 0;
        for (size_t i = 0; i < sizeof a; i++)
            diff += a[i] != b[i];
        printf("%s: %llu bytes from the daemon, %llu in-process, %zu bytes differ\n", c->name,
               (unsigned long long)served, (unsigned long long)local, diff);
        CHECK(served >= sizeof a); /* served from the window that was altered, or no test */
        CHECK(diff == 0);
        bs_ctr_clear(&off);
        bs_ctr_clear(&ref);
        src->ops->free(src);
    }
    svc_cleanup(&dmn);
    return 0;
}
