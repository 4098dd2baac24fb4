/*
 * One keystream source against another: bs_ctr_ctx pulling from the daemon (bsd_source, the
 * provider's daemon backend minus OpenSSL) against bs_ctr_ctx in-process, call by call: same
 * output, same position (counter, num) and same errors, for pieces of every size, across the
 * offload threshold, with set_num and a copy in the middle, at the data limit and the counter
 * wrap, after fork(), and with the daemon SIGKILLed mid-stream.
 */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bsd_source.h"
#include "modes/ctr.h"
#include "svc_util.h"

static svc_daemon dmn;

typedef struct pair {
    bs_ctr_ctx *off; /* pulls from src */
    bs_keystream_source *src;
    bs_ctr_ctx *ref; /* in-process */
    const bs_block_cipher *cipher;
} pair;

static bs_ctr_ctx *ref_new(void)
{
    bs_ctr_ctx *r = (bs_ctr_ctx *)aligned_alloc(64, (sizeof(bs_ctr_ctx) + 63) / 64 * 64);
    CHECK(r != NULL);
    memset(r, 0, sizeof *r);
    return r;
}

static void pair_init(pair *p, const bs_block_cipher *c, uint64_t threshold, uint32_t seed,
                      const uint8_t *iv)
{
    uint8_t key[64];
    svc_fill(key, sizeof key, seed);
    bsd_source_opts o = {dmn.socket, threshold, 1000, 5000, 16384 + 8, 3, BSD_OFFLOAD_ALWAYS};
    p->cipher = c;
    p->src = bsd_source_new(&o);
    p->off = ref_new();
    p->ref = ref_new();
    CHECK(p->src != NULL);
    bs_ctr_set_source(p->off, p->src);
    CHECK(bs_ctr_set_key(p->off, c, key, c->key_len) == BS_OK);
    CHECK(bs_ctr_set_key(p->ref, c, key, c->key_len) == BS_OK);
    CHECK(bs_ctr_set_iv(p->off, iv, bs_ctr_iv_len(c)) == BS_OK);
    CHECK(bs_ctr_set_iv(p->ref, iv, bs_ctr_iv_len(c)) == BS_OK);
}

static void pair_free(pair *p)
{
    bs_ctr_clear(p->off);
    free(p->off);
    p->src->ops->free(p->src);
    bs_ctr_clear(p->ref);
    free(p->ref);
}

/* One call on both: same return code, same bytes, same position. */
static int step(pair *p, size_t len)
{
    uint8_t *in = (uint8_t *)malloc(len + 1), *a = (uint8_t *)malloc(len + 1),
            *b = (uint8_t *)malloc(len + 1);
    CHECK(in && a && b);
    svc_fill(in, len, (uint32_t)len);
    memcpy(a, in, len);
    memcpy(b, in, len);
    int ra = bs_ctr_crypt(p->off, a, a, len);
    int rb = bs_ctr_crypt(p->ref, b, b, len);
    CHECK(ra == rb);
    CHECK(memcmp(a, b, len) == 0);
    uint8_t ca[32], cb[32];
    unsigned na, nb;
    bs_ctr_position(p->off, ca, &na);
    bs_ctr_position(p->ref, cb, &nb);
    CHECK(memcmp(ca, cb, p->cipher->block_len) == 0 && na == nb);
    CHECK(bs_ctr_blocks_used(p->off) == bs_ctr_blocks_used(p->ref));
    free(in);
    free(a);
    free(b);
    return ra;
}

static void pieces(const bs_block_cipher *c)
{
    static const size_t sizes[] = {1, 4096, 3, 4096, 4096, 100000, 7, 65536, 4093, 1 << 20, 5};
    uint8_t iv[32] = {0};
    svc_fill(iv, sizeof iv, 11);
    iv[0] = 0;
    pair p;
    pair_init(&p, c, 8192, 10, iv);
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            CHECK(step(&p, sizes[i]) == BS_OK);
    uint64_t dbytes, lbytes;
    bsd_source_counts(p.src, &dbytes, &lbytes);
    CHECK(bsd_source_fallback_reason(p.src) == 0);
    CHECK(dbytes > 3 * (1u << 20)); /* most of it came from the daemon */
    /* set_num forwards and backwards, then a copy: both copies go on identically. */
    CHECK(step(&p, 3) == BS_OK);
    CHECK(bs_ctr_set_num(p.off, 1) == bs_ctr_set_num(p.ref, 1));
    CHECK(step(&p, 70000) == BS_OK);
    CHECK(bs_ctr_set_num(p.off, 5) == bs_ctr_set_num(p.ref, 5));
    CHECK(step(&p, 70001) == BS_OK);
    pair q = {ref_new(), p.src->ops->copy(p.src), ref_new(), c};
    CHECK(q.src != NULL);
    memcpy(q.off, p.off, sizeof *q.off);
    bs_ctr_set_source(q.off, q.src);
    memcpy(q.ref, p.ref, sizeof *q.ref);
    CHECK(step(&p, 50001) == BS_OK);
    CHECK(step(&q, 50001) == BS_OK);
    pair_free(&q);
    pair_free(&p);
}

/* The data limit and the counter wrap refuse exactly where bs_ctr refuses, changing nothing. */
static void limits(const bs_block_cipher *c)
{
    uint8_t iv[32] = {0};
    pair p;
    pair_init(&p, c, 0, 20, iv);
    bs_ctr_set_block_limit(p.off, 5000);
    bs_ctr_set_block_limit(p.ref, 5000);
    CHECK(step(&p, 4000 * c->block_len + 3) == BS_OK);
    CHECK(step(&p, 1000 * c->block_len) == BS_ERR_DATA_LIMIT);
    CHECK(step(&p, 999 * c->block_len) == BS_OK); /* 5000 blocks used, 3 bytes of one left */
    CHECK(step(&p, c->block_len - 3) == BS_OK);
    CHECK(step(&p, 1) == BS_ERR_DATA_LIMIT);
    pair_free(&p);

    memset(iv, 0xff, sizeof iv);
    if (c->block_len > 16)
        memset(iv, 0, 16); /* RIJNDAEL-256, SPEEDY count from IV || 0^16, 0^8: no wrap in reach */
    else
        iv[c->block_len - 2] = 0xf0, iv[c->block_len - 1] = 0; /* 4096 blocks to the wrap */
    pair_init(&p, c, 0, 21, iv);
    CHECK(step(&p, 4000 * c->block_len + 1) == BS_OK);
    if (c->block_len <= 16) {
        CHECK(step(&p, 96 * c->block_len) == BS_ERR_COUNTER_WRAP);
        CHECK(step(&p, 95 * c->block_len - 1) == BS_OK); /* 4095 blocks used */
        CHECK(step(&p, c->block_len) == BS_OK);
        CHECK(step(&p, 1) == BS_ERR_COUNTER_WRAP);
    }
    pair_free(&p);
}

/* Offload before fork(), then both processes continue on their own copies. */
static void forked(const bs_block_cipher *c)
{
    uint8_t iv[32] = {1};
    pair p;
    pair_init(&p, c, 0, 30, iv);
    CHECK(step(&p, 300001) == BS_OK);
    pid_t pid = fork();
    CHECK(pid >= 0);
    for (int i = 0; i < 5; i++)
        CHECK(step(&p, 77777) == BS_OK);
    uint64_t dbytes, lbytes;
    bsd_source_counts(p.src, &dbytes, &lbytes);
    if (pid == 0)
        _exit(bsd_source_fallback_reason(p.src) == 0 && dbytes > 600000 ? 0 : 3);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(bsd_source_fallback_reason(p.src) == 0);
    pair_free(&p);
}

/* SIGKILL in the middle: the same bytes, now in-process; a new IV stays in-process too. */
static void killed(const bs_block_cipher *c)
{
    uint8_t iv[32] = {2};
    pair p;
    pair_init(&p, c, 0, 40, iv);
    CHECK(step(&p, 200003) == BS_OK);
    svc_kill9(&dmn);
    for (int i = 0; i < 20; i++)
        CHECK(step(&p, 4096 + (size_t)i) == BS_OK);
    CHECK(bsd_source_fallback_reason(p.src) != 0);
    uint64_t dbytes, lbytes;
    bsd_source_counts(p.src, &dbytes, &lbytes);
    CHECK(dbytes > 0 && lbytes > 0);
    CHECK(bs_ctr_set_iv(p.off, iv, bs_ctr_iv_len(c)) == BS_OK);
    CHECK(bs_ctr_set_iv(p.ref, iv, bs_ctr_iv_len(c)) == BS_OK);
    CHECK(step(&p, 100000) == BS_OK);
    pair_free(&p);
}

int main(void)
{
    const bs_block_cipher *cs[16];
    size_t nc = svc_ciphers(cs, 16);
    if (nc == 0)
        return SVC_SKIP;
    svc_init(&dmn);
    svc_start(&dmn, NULL, NULL);
    for (size_t i = 0; i < nc; i++) {
        pieces(cs[i]);
        limits(cs[i]);
        printf("%s: offloaded CTR == bs_ctr\n", cs[i]->name);
    }
    forked(cs[0]);
    killed(cs[nc - 1]);
    svc_cleanup(&dmn);
    return 0;
}
