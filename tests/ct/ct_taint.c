/*
 * ct_taint: runs one target under valgrind memcheck with its secret inputs marked undefined.
 *
 * Memcheck tracks definedness bit by bit; a conditional jump, a conditional move or a memory
 * address that depends on an undefined bit is reported. Marking keys, round keys and data
 * undefined therefore turns every secret-dependent branch or table index into an error
 * (the approach of Adam Langley's ctgrind). Outputs are declassified only after the
 * computation, and only once the program has checked that they do carry undefined bits: that
 * proves the taint went through the code under test rather than around it.
 *
 * Usage: ct_taint TARGET         run one target (only under valgrind; see ct_check.sh)
 *        ct_taint --list         print the targets this build can run
 *        ct_taint --coverage N.. check that the registry holds exactly the cipher names N..
 * Targets: block:NAME, ctr:NAME (every implementation of NAME in bs_block_ciphers), ghash256,
 * gcm256, ctr-face:AES-128 and ctr-face:AES-256 (AES-CTR with FACE caching), gcm128 (AES-GCM
 * with the table-free GHASH-128s, CTR plain and FACE), masked:AES-128 and masked:AES-256-ctr
 * (the first-order masked cores, AES-256 and AES-CTR over the masked descriptor: key, data and
 * the randomness secret), ct-memcmp, hex (bs_hex.h on a secret key's
 * digits), digest (the daemon's window digest),
 * and the leaky controls
 * control-sbox-table, control-early-exit and control-ghash128-table4 (the 4-bit table GHASH).
 */
#include "bitslice.h"
#include "bs_cpu.h"
#include "bs_hex.h"
#include "bs_digest.h"
#include "modes/ctr.h"
#include "modes/gcm256.h"
#ifdef BS_CT_HAVE_AES_FACE
#include "aes/aes_ctr_face.h"
#include "aes/aes_masked.h"
#include "modes/gcm128.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <valgrind/memcheck.h>

#if defined(__GNUC__) || defined(__clang__)
#define CT_NOINLINE __attribute__((noinline))
#else
#define CT_NOINLINE
#endif

static int failures;
static uint64_t checksum = 0xcbf29ce484222325ull;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "ct_taint: FAIL: %s: %s\n", what, detail);
    failures++;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed + 37 * i + (i >> 3));
}

static void make_secret(const void *p, size_t n)
{
    (void)VALGRIND_MAKE_MEM_UNDEFINED(p, n);
}

/* True if any bit of p[0..n) is undefined, i.e. derived from a secret. Reports nothing. */
static int carries_secret(const void *p, size_t n)
{
    static uint8_t vbits[4096];
    const uint8_t *q = (const uint8_t *)p;
    while (n > 0) {
        size_t k = n < sizeof vbits ? n : sizeof vbits;
        if (VALGRIND_GET_VBITS(q, vbits, k) != 1)
            return 0;
        for (size_t i = 0; i < k; i++)
            if (vbits[i] != 0)
                return 1;
        q += k;
        n -= k;
    }
    return 0;
}

/* Marks p[0..n) defined and folds it into the checksum that main prints. */
static void fold(const void *p, size_t n)
{
    (void)VALGRIND_MAKE_MEM_DEFINED(p, n);
    const uint8_t *q = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        checksum = (checksum ^ q[i]) * 0x100000001b3ull;
}

/*
 * Ends the secret life of an output: checks that it was derived from the secrets, marks it
 * defined and folds it into a checksum (so that the computation cannot be optimised away).
 */
static void declassify(const char *what, const void *p, size_t n)
{
    if (n > 0 && !carries_secret(p, n))
        fail(what, "output carries no secret bit: the secret did not reach the code under test");
    fold(p, n);
}

/* The result of a comparison is public once computed: declassify it without the carry check. */
static int declassify_int(int v)
{
    (void)VALGRIND_MAKE_MEM_DEFINED(&v, sizeof v);
    return v;
}

static bs_key_schedule ks;
static uint8_t key[64];
/*
 * The wide (AVX2 and up) cores run 256 or 512 blocks a pass and hand short calls to a 64-lane
 * core: they also get one full 256-lane pass with a tail, and two passes with a short tail.
 * 8 KiB more: CTR's wide piece below (a full 256-lane pass for every core).
 */
#define WIDE_BLOCKS (2 * 256 + 3)
static uint8_t in[(WIDE_BLOCKS + 4) * BS_BLOCK_MAX + 64 + 8192];
static uint8_t out[sizeof in];

/*
 * Lane counts: 1, 2, lanes - 1, lanes, lanes + 1, 2 * lanes + 3 (partial), 259 (see below),
 * and for the wide cores 300 and WIDE_BLOCKS.
 */
#define LANE_COUNTS_MAX 11

static int is_wide(const bs_block_cipher *c)
{
    return (int)c->level >= BS_CPU_AVX2;
}

/* 4 and 40 reach the narrow paths some cores take for short calls (e.g. Rijndael-256's). */
static size_t lane_counts(const bs_block_cipher *c, size_t counts[LANE_COUNTS_MAX])
{
    size_t cand[LANE_COUNTS_MAX] = {
        1, 2, 4, 40, c->lanes - 1, c->lanes, c->lanes + 1, 2 * (size_t)c->lanes + 3,
        /* a full pass of the 256-lane (AVX2) cores, whose lanes field says 64 */
        259, is_wide(c) ? 256 + 44 : 0, is_wide(c) ? WIDE_BLOCKS : 0};
    size_t n = 0;
    for (size_t i = 0; i < LANE_COUNTS_MAX; i++) {
        int dup = cand[i] == 0 || cand[i] * c->block_len + 1 > sizeof in;
        for (size_t j = 0; j < n; j++)
            dup |= counts[j] == cand[i];
        if (!dup)
            counts[n++] = cand[i];
    }
    return n;
}

static void run_block(const bs_block_cipher *c)
{
    char what[128];
    snprintf(what, sizeof what, "block:%s/%s", c->name, c->impl);

    /* Key schedule: the key is the secret. */
    memset(&ks, 0, sizeof ks);
    fill(key, c->key_len, 1);
    make_secret(key, c->key_len);
    c->set_key(&ks, key);
    if (!carries_secret(&ks, sizeof ks))
        fail(what, "key schedule carries no secret bit");

    size_t counts[LANE_COUNTS_MAX];
    size_t ncounts = lane_counts(c, counts);
    for (size_t i = 0; i < ncounts; i++) {
        size_t len = counts[i] * c->block_len;
        /* Round keys and plaintext are the secrets; odd counts also run unaligned in place. */
        size_t off = counts[i] & 1;
        fill(in + off, len, (uint8_t)(i + 7));
        make_secret(&ks, sizeof ks);
        make_secret(in + off, len);
        if (off) {
            c->encrypt(&ks, in + off, in + off, counts[i]);
            declassify(what, in + off, len);
        } else {
            c->encrypt(&ks, out, in, counts[i]);
            declassify(what, out, len);
        }
    }
    printf("%s: key schedule and %zu lane counts (%zu..%zu blocks)\n", what, ncounts, counts[0],
           counts[ncounts - 1]);
}

static void run_ctr(const bs_block_cipher *c)
{
    static bs_ctr_ctx ctx;
    char what[128];
    snprintf(what, sizeof what, "ctr:%s/%s", c->name, c->impl);

    /* The counter is public in CTR; key and data are secret. */
    memset(&ctx, 0, sizeof ctx);
    uint8_t iv[BS_BLOCK_MAX];
    size_t iv_len = bs_ctr_iv_len(c);
    fill(iv, iv_len, 0xf0);
    /* A counter close to a byte carry, so that the increment runs through several bytes. */
    iv[iv_len - 1] = 0xfe;
    fill(key, c->key_len, 3);
    make_secret(key, c->key_len);
    if (bs_ctr_set_key(&ctx, c, key, c->key_len) != BS_OK ||
        bs_ctr_set_iv(&ctx, iv, iv_len) != BS_OK) {
        fail(what, "set_key/set_iv failed");
        return;
    }
    /*
     * Pieces: a partial block, more than one pass (past what the first piece read ahead, at
     * least 256 blocks of 16 bytes: a full pass of a 256-lane core's own counter mode; a wide
     * core: two passes and a tail), the rest of a partial block, a tail.
     */
    const size_t bl = c->block_len, wide = 6 * 1024 + 3;
    const size_t big = is_wide(c) ? WIDE_BLOCKS * bl + 3 : (size_t)c->lanes * bl + 3;
    const size_t pieces[4] = {5, big > wide ? big : wide, bl - 8 + 1, bl + 7};
    size_t total = 0;
    for (size_t i = 0; i < 4; i++)
        total += pieces[i];
    if (total > sizeof in) {
        fail(what, "buffer too small for this lane count");
        return;
    }
    fill(in, total, 9);
    make_secret(in, total);
    size_t pos = 0;
    for (size_t i = 0; i < 4; i++) {
        if (bs_ctr_crypt(&ctx, out + pos, in + pos, pieces[i]) != BS_OK)
            fail(what, "bs_ctr_crypt failed");
        pos += pieces[i];
    }
    declassify(what, out, total);
    bs_ctr_clear(&ctx);
    printf("%s: %zu bytes in 4 pieces\n", what, total);
}

static int run_by_name(const char *name, void (*run)(const bs_block_cipher *))
{
    int found = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        if (strcasecmp(bs_block_ciphers[i]->name, name) != 0)
            continue;
        if (!bs_impl_usable(bs_block_ciphers[i])) {
            /* valgrind 3.19 hides AVX-512 from CPUID: those cores are for bench/dudect. */
            printf("%s/%s: skipped, needs CPU level %s (in force here: %s)\n",
                   bs_block_ciphers[i]->name, bs_block_ciphers[i]->impl,
                   bs_cpu_level_name((int)bs_block_ciphers[i]->level),
                   bs_cpu_level_name(bs_cpu_level()));
            continue;
        }
        run(bs_block_ciphers[i]);
        found++;
    }
    if (!found)
        fail(name, "no implementation of this cipher is compiled in");
    return found;
}

/* The GHASH-256 implementations of the registry that run on this CPU, NULL-terminated. */
#define GHASH_LIST_MAX 16
static void ghash_impls(const bs_ghash256_impl *list[GHASH_LIST_MAX])
{
    size_t n = 0;
    for (size_t k = 0; bs_ghash256_impls[k] != NULL && n + 1 < GHASH_LIST_MAX; k++)
        if (bs_ghash256_usable(bs_ghash256_impls[k]))
            list[n++] = bs_ghash256_impls[k];
    list[n] = NULL;
}

#ifdef BS_CT_HAVE_AES_FACE
/*
 * AES-CTR with FACE caching: key and data secret, the counter public. The stream starts 96
 * blocks before a carry into byte 14, so that two epochs are cached (tables built from the
 * secret key, read at public counter indices) and the partial blocks take the plain path.
 */
static void run_ctr_face(size_t key_len)
{
    static bs_aes_face_ctx ctx;
    char what[64];
    snprintf(what, sizeof what, "ctr-face:AES-%zu", 8 * key_len);
    uint8_t iv[16];
    fill(iv, 16, 0x40);
    iv[15] = 0xa0;
    fill(key, key_len, 5);
    make_secret(key, key_len);
    memset(&ctx, 0, sizeof ctx);
    if (bs_aes_face_set_key(&ctx, key, key_len) != BS_OK ||
        bs_aes_face_set_iv(&ctx, iv, 16) != BS_OK) {
        fail(what, "set_key/set_iv failed");
        return;
    }
    const size_t pieces[4] = {5, 16 * 150 + 3, 13, 16 * 100 + 7};
    size_t total = 0;
    for (size_t i = 0; i < 4; i++)
        total += pieces[i];
    fill(in, total, 11);
    make_secret(in, total);
    size_t pos = 0;
    for (size_t i = 0; i < 4; i++) {
        if (bs_aes_face_crypt(&ctx, out + pos, in + pos, pieces[i]) != BS_OK)
            fail(what, "bs_aes_face_crypt failed");
        pos += pieces[i];
    }
    declassify(what, out, total);
    unsigned long refreshes = ctx.refreshes;
    bs_aes_face_clear(&ctx);
    if (refreshes < 2)
        fail(what, "the cached path did not run");
    printf("%s: %zu bytes in 4 pieces, %lu epochs cached\n", what, total, refreshes);
}
#endif

static void run_ghash256(void)
{
    static uint64_t hkey[BS_GHASH256_HKEY_WORDS];
    uint8_t h[32], y[32];
    const bs_ghash256_impl *list[GHASH_LIST_MAX];
    ghash_impls(list);

    for (size_t k = 0; list[k] != NULL; k++) {
        const bs_ghash256_impl *g = list[k];
        if (!g->constant_time)
            fail(g->name, "listed as a constant-time GHASH but says it is not");
        memset(hkey, 0, sizeof hkey);
        fill(h, sizeof h, 0x11);
        make_secret(h, sizeof h);
        g->init(hkey, h);
        if (!carries_secret(hkey, sizeof hkey))
            fail(g->name, "hkey carries no secret bit");
        const size_t nblocks[4] = {1, 2, 5, 9};
        for (size_t i = 0; i < 4; i++) {
            fill(y, sizeof y, (uint8_t)(0x20 + i));
            fill(in, nblocks[i] * 32, (uint8_t)(0x30 + i));
            make_secret(hkey, sizeof hkey);
            make_secret(y, sizeof y);
            make_secret(in, nblocks[i] * 32);
            g->mul_blocks(hkey, y, in, nblocks[i]);
            declassify(g->name, y, sizeof y);
        }
        printf("ghash256/%s: init and 1, 2, 5, 9 blocks\n", g->name);
    }
}

static void gcm_check(const char *what, int rc)
{
    if (rc != BS_OK)
        fail(what, bs_strerror(rc));
}

/* One GHASH implementation; t selects IV length 28 or 12 and tag length 32 or 16. */
static void run_gcm256_with(const bs_ghash256_impl *g, size_t t)
{
    static bs_gcm256_ctx ctx;
    static uint8_t ct[800], pt[800];
    uint8_t iv[28], tag[32], bad[32], aad[23];
    const size_t iv_lens[2] = {28, 12};
    const size_t tag_lens[2] = {32, 16};
    /*
     * Data pieces: partial block, several blocks, partial again, then 18 whole blocks and a part
     * (a stitched CTR + GHASH loop's batches where the core and GHASH have one: gcm256_bulk.h).
     */
    const size_t pieces[4] = {1, 100, 99, 600};

    memset(&ctx, 0, sizeof ctx);
    fill(key, 32, (uint8_t)(0x40 + t));
    make_secret(key, 32);
    gcm_check("gcm256 set_key",
              bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32));
    bs_gcm256_set_ghash(&ctx, g);
    /* The IV is public; with 12 bytes J0 is GHASH'ed under the secret H. */
    fill(iv, sizeof iv, 0x50);
    gcm_check("gcm256 set_iv", bs_gcm256_set_iv(&ctx, iv, iv_lens[t]));
    fill(aad, sizeof aad, 0x60);
    make_secret(aad, sizeof aad);
    gcm_check("gcm256 aad", bs_gcm256_aad(&ctx, aad, 16));
    gcm_check("gcm256 aad", bs_gcm256_aad(&ctx, aad + 16, sizeof aad - 16));
    fill(pt, sizeof pt, 0x70);
    make_secret(pt, sizeof pt);
    size_t pos = 0;
    for (size_t i = 0; i < 4; i++) {
        gcm_check("gcm256 encrypt", bs_gcm256_encrypt(&ctx, ct + pos, pt + pos, pieces[i]));
        pos += pieces[i];
    }
    gcm_check("gcm256 tag", bs_gcm256_tag(&ctx, tag, tag_lens[t]));
    declassify("gcm256 ciphertext", ct, pos);
    declassify("gcm256 tag", tag, tag_lens[t]);

    /* Decryption with a secret ciphertext and a secret tag, then a tampered tag. */
    for (int tamper = 0; tamper < 2; tamper++) {
        gcm_check("gcm256 set_iv", bs_gcm256_set_iv(&ctx, iv, iv_lens[t]));
        make_secret(aad, sizeof aad);
        gcm_check("gcm256 aad", bs_gcm256_aad(&ctx, aad, sizeof aad));
        make_secret(ct, pos);
        gcm_check("gcm256 decrypt", bs_gcm256_decrypt(&ctx, pt, ct, 30));
        gcm_check("gcm256 decrypt", bs_gcm256_decrypt(&ctx, pt + 30, ct + 30, pos - 30));
        memcpy(bad, tag, tag_lens[t]);
        bad[tag_lens[t] - 1] ^= (uint8_t)(tamper << 4);
        make_secret(bad, tag_lens[t]);
        int rc = declassify_int(bs_gcm256_verify(&ctx, bad, tag_lens[t]));
        declassify("gcm256 plaintext", pt, pos);
        if (rc != (tamper ? BS_ERR_AUTH : BS_OK))
            fail("gcm256 verify", tamper ? "tampered tag accepted" : "valid tag rejected");
        (void)VALGRIND_MAKE_MEM_DEFINED(ct, pos);
    }
    bs_gcm256_clear(&ctx);
}

static void run_gcm256(void)
{
    const bs_ghash256_impl *list[GHASH_LIST_MAX];
    ghash_impls(list);
    for (size_t k = 0; list[k] != NULL; k++) {
        run_gcm256_with(list[k], 0);
        run_gcm256_with(list[k], 1);
        printf("gcm256 with GHASH %s: IV 28 and 12 bytes, AAD 23 bytes, 800 bytes in 4 pieces, "
               "tags 32 and 16, verify good and tampered\n",
               list[k]->name);
    }
}

#ifdef BS_CT_HAVE_AES_FACE
static void gcm128_check(const char *what, int rc)
{
    if (rc != BS_OK)
        fail(what, bs_strerror(rc));
}

/* GHASH-128 alone: H, the accumulator and the blocks secret, 1, 2, 5 and 9 blocks. */
static void run_ghash128_with(const bs_ghash128_impl *g)
{
    static uint64_t hkey[BS_GHASH128_HKEY_WORDS];
    uint8_t h[16], y[16];
    memset(hkey, 0, sizeof hkey);
    fill(h, sizeof h, 0x13);
    make_secret(h, sizeof h);
    g->init(hkey, h);
    if (!carries_secret(hkey, sizeof hkey))
        fail(g->name, "hkey carries no secret bit");
    const size_t nblocks[4] = {1, 2, 5, 9};
    for (size_t i = 0; i < 4; i++) {
        fill(y, sizeof y, (uint8_t)(0x22 + i));
        fill(in, nblocks[i] * 16, (uint8_t)(0x31 + i));
        make_secret(hkey, sizeof hkey);
        make_secret(y, sizeof y);
        make_secret(in, nblocks[i] * 16);
        g->mul_blocks(hkey, y, in, nblocks[i]);
        declassify(g->name, y, sizeof y);
    }
    printf("ghash128/%s: init and 1, 2, 5, 9 blocks\n", g->name);
}

/*
 * AES-GCM with one GHASH-128 and CTR plain or through FACE: key, AAD, data, tag secret. A 12-byte
 * IV makes J0 from the IV (public counters); a 16-byte one by GHASH under H, so every counter
 * depends on the key and FACE, whose cache is indexed by counter bytes, must not see them.
 */
static void run_gcm128_with(const bs_ghash128_impl *g, size_t key_len, int with_face, size_t iv_len)
{
    static bs_gcm128_ctx ctx;
    static bs_aes_face_ctx face;
    static uint8_t ct[2000], pt[2000];
    uint8_t iv[16], tag[16], bad[16], aad[23];
    /* Data pieces: partial block, many blocks (FACE's cached path), partial again. */
    const size_t pieces[3] = {1, 1500, 99};
    char what[80];
    snprintf(what, sizeof what, "gcm128 AES-%zu %s%s IV %zu", 8 * key_len, g->name,
             with_face ? " FACE" : "", iv_len);
    memset(&ctx, 0, sizeof ctx);
    fill(key, key_len, 0x41);
    make_secret(key, key_len);
    gcm128_check(what, bs_gcm128_set_key(
                           &ctx, bs_block_cipher_by_name(key_len == 16 ? "AES-128" : "AES-256"),
                           key, key_len));
    bs_gcm128_set_ghash(&ctx, g);
    if (with_face) {
        memset(&face, 0, sizeof face);
        gcm128_check(what, bs_aes_face_set_key(&face, key, key_len));
        gcm128_check(what, bs_gcm128_set_face(&ctx, &face));
    }
    fill(iv, sizeof iv, 0x51);
    gcm128_check(what, bs_gcm128_set_iv(&ctx, iv, iv_len));
    fill(aad, sizeof aad, 0x61);
    make_secret(aad, sizeof aad);
    gcm128_check(what, bs_gcm128_aad(&ctx, aad, sizeof aad));
    fill(pt, sizeof pt, 0x71);
    make_secret(pt, sizeof pt);
    size_t pos = 0;
    for (size_t i = 0; i < 3; i++) {
        gcm128_check(what, bs_gcm128_encrypt(&ctx, ct + pos, pt + pos, pieces[i]));
        pos += pieces[i];
    }
    gcm128_check(what, bs_gcm128_tag(&ctx, tag, 16));
    declassify(what, ct, pos);
    declassify(what, tag, 16);
    for (int tamper = 0; tamper < 2; tamper++) {
        gcm128_check(what, bs_gcm128_set_iv(&ctx, iv, iv_len));
        make_secret(aad, sizeof aad);
        gcm128_check(what, bs_gcm128_aad(&ctx, aad, sizeof aad));
        make_secret(ct, pos);
        gcm128_check(what, bs_gcm128_decrypt(&ctx, pt, ct, pos));
        memcpy(bad, tag, 16);
        bad[15] ^= (uint8_t)(tamper << 4);
        make_secret(bad, 16);
        int rc = declassify_int(bs_gcm128_verify(&ctx, bad, 16));
        declassify(what, pt, pos);
        if (rc != (tamper ? BS_ERR_AUTH : BS_OK))
            fail(what, tamper ? "tampered tag accepted" : "valid tag rejected");
        (void)VALGRIND_MAKE_MEM_DEFINED(ct, pos);
    }
    bs_gcm128_clear(&ctx);
    /* FACE runs on public counters (12-byte IV) and is bypassed on secret ones. */
    if (with_face && iv_len == 12 && face.refreshes == 0)
        fail(what, "the FACE cache never ran");
    if (with_face && iv_len != 12 && face.refreshes != 0)
        fail(what, "the FACE cache ran on counters that depend on the key");
    bs_aes_face_clear(&face);
    printf("%s: AAD 23 bytes, 1600 bytes in 3 pieces, tag, verify good and tampered\n", what);
}

static void run_gcm128(void)
{
    const bs_ghash128_impl *list[2] = {&bs_ghash128_ctmul32, &bs_ghash128_ctshift32};
    for (size_t k = 0; k < 2; k++) {
        if (!list[k]->constant_time)
            fail(list[k]->name, "listed as a constant-time GHASH but says it is not");
        run_ghash128_with(list[k]);
        for (size_t kl = 16; kl <= 32; kl += 16)
            for (int f = 0; f < 2; f++)
                for (size_t iv_len = 12; iv_len <= 16; iv_len += 4)
                    run_gcm128_with(list[k], kl, f, iv_len);
    }
}

/* The masked core's random words are as secret as the key: no branch or index may use them. */
static void rng_secret(void *ctx, uint32_t *out, size_t n)
{
    uint32_t *state = ctx;
    for (size_t i = 0; i < n; i++) {
        *state = *state * 1664525u + 1013904223u;
        out[i] = *state;
    }
    make_secret(out, n * sizeof *out);
}

static void run_masked_aes128(void)
{
    static bs_aes128_masked_key mk;
    uint32_t state = 1;
    fill(key, 16, 9);
    fill(in, 64, 21);
    make_secret(key, 16);
    make_secret(in, 64);
    bs_aes128_masked_set_key(&mk, key, rng_secret, &state);
    bs_aes128_masked_2blocks(&mk, out, in, rng_secret, &state);
    bs_aes128_masked_2blocks(&mk, out + 32, in + 32, rng_secret, &state);
    declassify("masked:AES-128", out, 64);
    /* the value-model variant on the same key shares */
    bs_aes128_maskedv_2blocks(&mk, out, in, rng_secret, &state);
    declassify("masked:AES-128 (value model)", out, 32);
    bs_aes128_masked_clear(&mk);
    printf("masked:AES-128: set_key and two calls of two blocks, one of the value-model "
           "variant\n");
}

/* Masked AES-256 and masked AES-CTR (the descriptor over modes/ctr.h), the same taint. */
static void run_masked_aes256_ctr(void)
{
    static bs_aes256_masked_key mk;
    static bs_ctr_ctx ctx;
    uint32_t state = 7;
    uint8_t iv[16];
    fill(key, 32, 11);
    fill(in, 64, 23);
    fill(iv, 16, 5);
    make_secret(key, 32);
    make_secret(in, 64);
    bs_aes256_masked_set_key(&mk, key, rng_secret, &state);
    bs_aes256_masked_2blocks(&mk, out, in, rng_secret, &state);
    declassify("masked:AES-256", out, 32);
    bs_aes256_maskedv_2blocks(&mk, out, in, rng_secret, &state);
    declassify("masked:AES-256 (value model)", out, 32);
    bs_aes256_masked_clear(&mk);
    bs_aes_masked_set_rng(rng_secret, &state);
    if (bs_ctr_set_key(&ctx, &bs_aes128_masked32, key, 16) != BS_OK ||
        bs_ctr_set_iv(&ctx, iv, 16) != BS_OK || bs_ctr_crypt(&ctx, out, in, 50) != BS_OK)
        fail("masked-ctr:AES-128", "a CTR call was refused");
    declassify("masked-ctr:AES-128", out, 50);
    bs_ctr_clear(&ctx);
    if (bs_ctr_set_key(&ctx, &bs_aes256_masked32, key, 32) != BS_OK ||
        bs_ctr_set_iv(&ctx, iv, 16) != BS_OK || bs_ctr_crypt(&ctx, out, in, 50) != BS_OK)
        fail("masked-ctr:AES-256", "a CTR call was refused");
    declassify("masked-ctr:AES-256", out, 50);
    bs_ctr_clear(&ctx);
    bs_aes_masked_set_rng(NULL, NULL);
    printf("masked:AES-256, masked-ctr:AES-128 and AES-256: set_key, two blocks, 50 bytes of "
           "CTR\n");
}

/* The leaky control: the 4-bit table GHASH-128 under the same taint must be caught. */
static void run_control_ghash128_table4(void)
{
    run_ghash128_with(&bs_ghash128_table4_not_ct);
    printf("control-ghash128-table4: ran (memcheck must report its table index)\n");
}
#endif

static void run_ct_memcmp(void)
{
    uint8_t a[32], b[32];
    for (size_t pos = 0; pos <= sizeof a; pos += 8) {
        fill(a, sizeof a, 0x77);
        memcpy(b, a, sizeof b);
        if (pos < sizeof a)
            b[pos] ^= 0x01;
        make_secret(a, sizeof a);
        make_secret(b, sizeof b);
        int rc = declassify_int(bs_ct_memcmp(a, b, sizeof a));
        if (rc != (pos < sizeof a ? -1 : 0))
            fail("ct-memcmp", "wrong result");
    }
    printf("ct-memcmp: equal and differing at 0, 8, 16, 24\n");
}

/*
 * bs_hex_decode_n on key digits of both cases, and with a bad one (valid or not is the result).
 * The length-given form: strlen's scan for the NUL is a branch on every character.
 */
static void run_hex(void)
{
    static const char digits[] = "0123456789abcdefABCDEF";
    char hex[65];
    uint8_t out[32];
    for (int bad = 0; bad < 2; bad++) {
        for (int i = 0; i < 64; i++)
            hex[i] = digits[(7 * i + 3) % 22];
        hex[64] = 0;
        if (bad)
            hex[37] = 'g';
        make_secret(hex, 64);
        make_secret(out, sizeof out);
        long n = bs_hex_decode_n(hex, 64, out, sizeof out);
        (void)VALGRIND_MAKE_MEM_DEFINED(&n, sizeof n);
        if (n != (bad ? -1 : 32))
            fail("hex", "wrong result");
        declassify("hex", out, sizeof out);
        fold(hex, sizeof hex);
    }
    printf("hex: 64 digits, and with a bad one\n");
}

/*
 * The window digest (core/digest/): the keystream is secret, the digest and the poison count are
 * what the daemon and the client compare. Every implementation valgrind runs (portable, AVX2),
 * at every tail length, with poison words present and absent.
 */
static void run_digest(void)
{
    static uint8_t win[8 * 80];
    static const int levels[] = {BS_CPU_PORTABLE, BS_CPU_AVX2};
    unsigned ran = 0;
    for (int li = 0; li < 2; li++) {
        if (bs_digest_level_at(levels[li]) != levels[li])
            continue;
        for (size_t n = 1; n <= 80; n += 7) {
            fill(win, sizeof win, (uint8_t)n);
            const uint64_t poison = bs_digest_poison(0x1234 + n);
            if (n % 2)
                bs_digest_poison_fill(win + 8 * (n / 2), 1, poison);
            make_secret(win, sizeof win);
            uint64_t hits = 0;
            uint64_t sum = bs_digest_sum_at(levels[li], 0x1234 + n, n, win, n, poison, &hits);
            uint64_t d = bs_digest_final(sum, n);
            declassify("digest", &d, sizeof d);
            /* The client's call: no poison count. */
            uint64_t c = bs_digest_sum_at(levels[li], 0x1234 + n, n, win, n, poison, NULL);
            declassify("digest without the poison count", &c, sizeof c);
            declassify("digest poison count", &hits, sizeof hits);
            /* The client's move out of the shared window: copy, zero, sum. */
            static uint8_t copy[sizeof win];
            uint64_t zw = 0;
            uint64_t m = bs_digest_move_sum_at(levels[li], 0x1234 + n, n, copy, win, n, &zw);
            declassify("digest of the move", &m, sizeof m);
            declassify("zero count of the move", &zw, sizeof zw);
            /* The one-pass client's fused piece pass: out = in ^ w, keep = w, zero, sum. */
            static uint8_t in[sizeof win], out[sizeof win], keep[sizeof win];
            fill(win, sizeof win, (uint8_t)(n + 1));
            fill(in, sizeof in, (uint8_t)(n + 2));
            make_secret(win, sizeof win);
            make_secret(in, sizeof in);
            uint64_t zx = 0;
            uint64_t x =
                bs_digest_xor_move_sum_at(levels[li], 0x1234 + n, n, out, in, keep, win, n, &zx);
            declassify("digest of the fused pass", &x, sizeof x);
            declassify("zero count of the fused pass", &zx, sizeof zx);
            (void)VALGRIND_MAKE_MEM_DEFINED(in, sizeof in);
            (void)VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
            (void)VALGRIND_MAKE_MEM_DEFINED(keep, sizeof keep);
            (void)VALGRIND_MAKE_MEM_DEFINED(win, sizeof win);
            (void)VALGRIND_MAKE_MEM_DEFINED(copy, sizeof copy);
        }
        ran++;
    }
    if (ran == 0)
        fail("digest", "no implementation ran");
    printf("digest: %u implementations, lengths 1..78 words, with and without poison, the "
           "move and the fused pass with their zero counts\n",
           ran);
}

/* The PRESENT S-box, by table: the textbook leak that memcheck must report. */
static const uint8_t present_sbox[16] = {0xc, 0x5, 0x6, 0xb, 0x9, 0x0, 0xa, 0xd,
                                         0x3, 0xe, 0xf, 0x8, 0x4, 0x7, 0x1, 0x2};

static CT_NOINLINE void leaky_sbox_layer(uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (uint8_t)(present_sbox[s[i] >> 4] << 4 | present_sbox[s[i] & 15]);
}

static CT_NOINLINE int leaky_early_exit_memcmp(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return -1;
    return 0;
}

static void run_control_sbox(void)
{
    uint8_t s[8];
    fill(s, sizeof s, 0x12);
    make_secret(s, sizeof s);
    leaky_sbox_layer(s, sizeof s);
    /* No carry check: after reporting a secret address, memcheck treats the load as defined. */
    fold(s, sizeof s);
    printf("control-sbox-table: ran (memcheck must report the table index)\n");
}

static void run_control_early_exit(void)
{
    uint8_t a[16], b[16];
    fill(a, sizeof a, 0x34);
    memcpy(b, a, sizeof b);
    b[9] ^= 0x80;
    make_secret(a, sizeof a);
    make_secret(b, sizeof b);
    int rc = declassify_int(leaky_early_exit_memcmp(a, b, sizeof a));
    printf("control-early-exit: ran, result %d (memcheck must report the branch)\n", rc);
}

static void list_targets(void)
{
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        /* One line per name, at its first implementation. */
        size_t j = 0;
        while (strcasecmp(bs_block_ciphers[j]->name, bs_block_ciphers[i]->name) != 0)
            j++;
        if (j == i)
            printf("block:%s\nctr:%s\n", bs_block_ciphers[i]->name, bs_block_ciphers[i]->name);
    }
    printf("ghash256\ngcm256\n");
#ifdef BS_CT_HAVE_AES_FACE
    printf("ctr-face:AES-128\nctr-face:AES-256\ngcm128\nmasked:AES-128\nmasked:AES-256-ctr\n"
           "control-ghash128-table4\n");
#endif
    printf("ct-memcmp\nhex\ndigest\ncontrol-sbox-table\ncontrol-early-exit\n");
}

/* Every name in the registry must have its own test, and every configured name must exist. */
static int check_coverage(int argc, char **argv)
{
    int bad = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        int listed = 0;
        for (int a = 0; a < argc; a++)
            listed |= strcasecmp(argv[a], bs_block_ciphers[i]->name) == 0;
        if (!listed) {
            fprintf(stderr,
                    "ct_taint: %s/%s is compiled in but has no ct test: add its name to "
                    "tests/ct/meson.build\n",
                    bs_block_ciphers[i]->name, bs_block_ciphers[i]->impl);
            bad = 1;
        }
    }
    for (int a = 0; a < argc; a++) {
        if (bs_block_cipher_by_name(argv[a]) == NULL) {
            fprintf(stderr, "ct_taint: %s has a ct test but is not compiled in\n", argv[a]);
            bad = 1;
        }
    }
    if (!bad)
        printf("ct_taint: every compiled-in cipher (%d names) has a ct test\n", argc);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ct_taint TARGET | --list | --coverage NAME...\n");
        return 2;
    }
    const char *t = argv[1];
    if (strcmp(t, "--list") == 0) {
        list_targets();
        return 0;
    }
    if (strcmp(t, "--coverage") == 0)
        return check_coverage(argc - 2, argv + 2);
    if (!RUNNING_ON_VALGRIND) {
        fprintf(stderr,
                "ct_taint: %s: not running under valgrind, so nothing would be checked; "
                "run it through ct_check.sh\n",
                t);
        return 1;
    }

    if (strncmp(t, "block:", 6) == 0)
        run_by_name(t + 6, run_block);
    else if (strncmp(t, "ctr:", 4) == 0)
        run_by_name(t + 4, run_ctr);
    else if (strcmp(t, "ghash256") == 0)
        run_ghash256();
    else if (strcmp(t, "gcm256") == 0)
        run_gcm256();
#ifdef BS_CT_HAVE_AES_FACE
    else if (strcmp(t, "ctr-face:AES-128") == 0)
        run_ctr_face(16);
    else if (strcmp(t, "ctr-face:AES-256") == 0)
        run_ctr_face(32);
    else if (strcmp(t, "gcm128") == 0)
        run_gcm128();
    else if (strcmp(t, "masked:AES-128") == 0)
        run_masked_aes128();
    else if (strcmp(t, "masked:AES-256-ctr") == 0)
        run_masked_aes256_ctr();
    else if (strcmp(t, "control-ghash128-table4") == 0)
        run_control_ghash128_table4();
#endif
    else if (strcmp(t, "ct-memcmp") == 0)
        run_ct_memcmp();
    else if (strcmp(t, "hex") == 0)
        run_hex();
    else if (strcmp(t, "digest") == 0)
        run_digest();
    else if (strcmp(t, "control-sbox-table") == 0)
        run_control_sbox();
    else if (strcmp(t, "control-early-exit") == 0)
        run_control_early_exit();
    else {
        fprintf(stderr, "ct_taint: unknown target %s (see --list)\n", t);
        return 2;
    }
    printf("%s: checksum %016llx\n", t, (unsigned long long)checksum);
    return failures ? 1 : 0;
}
