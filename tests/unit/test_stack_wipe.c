/*
 * No key-dependent byte is left on the stack once a context is cleared (bs_ctr_clear,
 * bs_gcm256_clear, bs_gcm128_clear, bs_aes_face_clear; bitslice.h, bs_wipe_stack), for every
 * implementation this CPU level runs.
 *
 * How: a region below the test's frame is painted, a context is keyed, used and cleared in
 * calls made from that frame, and the region is read back; this is done with two keys, and the
 * two read-backs must agree everywhere. Whatever differs is what a core, a mode or a key
 * schedule left behind that depends on the key (spilled state, round keys, keystream). The top
 * of the region holds the test's own frames (their pointers and return addresses do not depend
 * on the key, but their saved registers may hold leftovers of the test's own code), so it is not
 * compared. The control does the same with the context wiped by bs_wipe alone, without the
 * stack wipe: it must find leftovers, or this test could not see any.
 *
 * Needs a stack of about REGION bytes beyond the test's own (the main thread has megabytes).
 */
#include <alloca.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aes/aes_ctr_face.h"
#include "bitslice.h"
#include "bs_cpu.h"
#include "modes/ctr.h"
#include "modes/gcm128.h"
#include "modes/gcm256.h"

/* Larger than BS_STACK_WIPE_BYTES, so that a core deeper than the wipe would be seen. */
#define REGION ((size_t)192 * 1024)
/* The test's own frames at the top of the region (see above). */
#define OWN_FRAMES 512
#define PAINT 0xA5

static uint8_t snap_now[REGION], snap_a[REGION], snap_b[REGION];
static uint8_t key_now[48];
static uint8_t buf[20000];
static int failures;

/* What one run does: which context, and how it is cleared. */
typedef struct job {
    const char *what;
    const bs_block_cipher *cipher;
    const bs_ghash128_impl *ghash128; /* gcm128 */
    int kind;                         /* 0 CTR, 1 GCM-256, 2 GCM-128, 3 AES-CTR with FACE */
    int wipe_stack;                   /* 0: the control (bs_wipe of the context only) */
} job;

static bs_ctr_ctx ctr;
static bs_gcm256_ctx gcm256;
static bs_gcm128_ctx gcm128;
static bs_aes_face_ctx face;

__attribute__((noinline)) static void paint(void)
{
    volatile uint8_t *p = alloca(REGION);
    for (size_t i = 0; i < REGION; i++)
        p[i] = PAINT;
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

__attribute__((noinline)) static void read_back(void)
{
    volatile uint8_t *p = alloca(REGION);
    __asm__ __volatile__("" : : "r"(p) : "memory");
    for (size_t i = 0; i < REGION; i++)
        snap_now[i] = p[i];
}

/* Clears the context of kind: by its clear function, or (the control) by bs_wipe alone. */
static void clear_ctx(int kind, int wipe_stack)
{
    void *const ctxs[] = {&ctr, &gcm256, &gcm128, &face};
    const size_t sizes[] = {sizeof ctr, sizeof gcm256, sizeof gcm128, sizeof face};
    if (!wipe_stack)
        bs_wipe(ctxs[kind], sizes[kind]);
    else if (kind == 0)
        bs_ctr_clear(&ctr);
    else if (kind == 1)
        bs_gcm256_clear(&gcm256);
    else if (kind == 2)
        bs_gcm128_clear(&gcm128);
    else
        bs_aes_face_clear(&face);
}

/* Keys, uses and clears one context; in, iv and lengths are the same for every key. */
__attribute__((noinline)) static int use(const job *j)
{
    static const uint8_t iv[32] = {7, 6, 5, 4, 3, 2, 1};
    uint8_t tag[16];
    int rc = 0;
    memset(buf, 0x3c, sizeof buf);
    switch (j->kind) {
    case 0:
        rc |= bs_ctr_set_key(&ctr, j->cipher, key_now, j->cipher->key_len);
        rc |= bs_ctr_set_iv(&ctr, iv, bs_ctr_iv_len(j->cipher));
        rc |= bs_ctr_crypt(&ctr, buf, buf, 100);              /* a short call */
        rc |= bs_ctr_crypt(&ctr, buf + 100, buf + 100, 16384); /* whole passes */
        break;
    case 1:
        rc |= bs_gcm256_set_key(&gcm256, j->cipher, key_now, j->cipher->key_len);
        rc |= bs_gcm256_set_iv(&gcm256, iv, 12);
        rc |= bs_gcm256_aad(&gcm256, iv, 20);
        rc |= bs_gcm256_encrypt(&gcm256, buf, buf, 16384 + 77);
        rc |= bs_gcm256_tag(&gcm256, tag, 16);
        break;
    case 2:
        rc |= bs_gcm128_set_key(&gcm128, j->cipher, key_now, j->cipher->key_len);
        bs_gcm128_set_ghash(&gcm128, j->ghash128);
        rc |= bs_gcm128_set_iv(&gcm128, iv, 12);
        rc |= bs_gcm128_aad(&gcm128, iv, 20);
        rc |= bs_gcm128_encrypt(&gcm128, buf, buf, 4096 + 13);
        rc |= bs_gcm128_tag(&gcm128, tag, 16);
        break;
    default:
        rc |= bs_aes_face_set_key(&face, key_now, j->cipher->key_len);
        rc |= bs_aes_face_set_iv(&face, iv, 16);
        rc |= bs_aes_face_crypt(&face, buf, buf, 4096 + 5);
        break;
    }
    bs_wipe(tag, sizeof tag);
    clear_ctx(j->kind, j->wipe_stack);
    return rc;
}

/* paint, use, read back: called the same way, from the same depth, for both keys. */
__attribute__((noinline)) static int run_once(const job *j)
{
    paint();
    int rc = use(j);
    read_back();
    return rc;
}

/* Bytes left that depend on the key; -1 if a call failed. */
static long leftovers(const job *j, size_t *deepest)
{
    for (int k = 0; k < 48; k++)
        key_now[k] = (uint8_t)(k * 37 + 1);
    int rc = run_once(j);
    memcpy(snap_a, snap_now, REGION);
    for (int k = 0; k < 48; k++)
        key_now[k] = (uint8_t)(k * 91 + 200);
    rc |= run_once(j);
    memcpy(snap_b, snap_now, REGION);
    if (rc != 0)
        return -1;
    long n = 0;
    *deepest = 0;
    for (size_t i = 0; i + OWN_FRAMES < REGION; i++) {
        if (snap_a[i] != snap_b[i]) {
            n++;
            if (REGION - i > *deepest)
                *deepest = REGION - i;
        }
    }
    return n;
}

static long controls_seen, controls_run;

static void check(job j)
{
    size_t deep = 0, cdeep = 0;
    j.wipe_stack = 1;
    long n = leftovers(&j, &deep);
    j.wipe_stack = 0;
    long c = leftovers(&j, &cdeep);
    controls_run++;
    if (c > 0)
        controls_seen++;
    if (n != 0) {
        failures++;
        printf("FAIL %-16s %-10s %-14s: %ld key-dependent bytes left on the stack after clear "
               "(down to %zu bytes below the test's frame)%s\n",
               j.cipher->name, j.cipher->impl, j.what, n, deep, n < 0 ? " (a call failed)" : "");
    } else {
        printf("ok   %-16s %-10s %-14s: none left (control, context wiped alone: %ld bytes, "
               "down to %zu)\n",
               j.cipher->name, j.cipher->impl, j.what, c, cdeep);
    }
}

int main(void)
{
#if !defined(__x86_64__)
    /* Elsewhere bs_wipe_stack is a best effort that leaves each frame's few unwritten bytes. */
    printf("SKIP: bs_wipe_stack is exact on x86-64 only\n");
    return 77;
#endif
    if (BS_STACK_WIPE_BYTES == 0) {
        printf("SKIP: BS_STACK_WIPE_BYTES is 0 in this build\n");
        return 77;
    }
    printf("CPU level %s; region %zu bytes, wipe %zu bytes\n",
           bs_cpu_level_name(bs_cpu_level()), REGION, (size_t)BS_STACK_WIPE_BYTES);
    for (size_t k = 0; bs_block_ciphers[k] != NULL; k++) {
        const bs_block_cipher *c = bs_block_ciphers[k];
        if (!bs_impl_usable(c))
            continue;
        check((job){"CTR", c, NULL, 0, 1});
        if (c->block_len == 32)
            check((job){"GCM-256", c, NULL, 1, 1});
        if (strncmp(c->name, "AES-", 4) == 0) {
            check((job){"GCM ctmul32", c, &bs_ghash128_ctmul32, 2, 1});
            check((job){"GCM ctshift32", c, &bs_ghash128_ctshift32, 2, 1});
            if (strcmp(c->impl, "fix32") == 0)
                check((job){"CTR with FACE", c, NULL, 3, 1});
        }
    }
    printf("controls: leftovers seen in %ld of %ld\n", controls_seen, controls_run);
    /* Nearly every core leaves something when only its context is wiped (measured: 46 of 48 on
     * x86-64 at the AVX-512 level); if the control sees nothing the test is blind. */
    if (controls_run == 0 || 2 * controls_seen < controls_run) {
        printf("FAIL: the control found leftovers in fewer than half the runs\n");
        failures++;
    }
    return failures != 0;
}
