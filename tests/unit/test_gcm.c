/*
 * RIJNDAEL-256-GCM: the known answers of tests/kat/rijndael256-gcm.kat, GHASH-256 against the
 * bit-by-bit field product, the incremental mode against the one-shot reference on random
 * cases (every IV length class, every tag length, random splits), tampering, limits and order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bitslice.h"
#include "kat.h"
#include "bs_cpu.h"
#include "modes/gcm256.h"
#include "ref/ref.h"
#include "testcpu.h"
#include "testutil.h"

static const size_t tag_lens[] = {16, 20, 24, 28, 32};
/* H of the key test_long_wrap_splits is at. */
static uint8_t ref_h[32];

/* The i-th GHASH-256 implementation of the registry that runs on this CPU, or NULL. */
static const bs_ghash256_impl *ghash_impls(size_t i)
{
    for (size_t k = 0; bs_ghash256_impls[k] != NULL; k++)
        if (bs_ghash256_usable(bs_ghash256_impls[k]) && i-- == 0)
            return bs_ghash256_impls[k];
    return NULL;
}

static void gf_mul_impl(const bs_ghash256_impl *g, const uint8_t x[32], const uint8_t y[32],
                        uint8_t out[32])
{
    uint64_t hkey[BS_GHASH256_HKEY_WORDS];
    memset(out, 0, 32);
    g->init(hkey, y);
    g->mul_blocks(hkey, out, x, 1);
}

static void check_gf_mul(const uint8_t x[32], const uint8_t y[32], const uint8_t *expect)
{
    uint8_t ref[32], fast[32];
    bs_ref_gf256_mul(x, y, ref);
    if (expect != NULL)
        assert_memory_equal(ref, expect, 32);
    for (size_t i = 0; ghash_impls(i) != NULL; i++) {
        gf_mul_impl(ghash_impls(i), x, y, fast);
        if (memcmp(fast, ref, 32) != 0) {
            bs_test_hexdump("x", x, 32);
            bs_test_hexdump("y", y, 32);
            bs_test_hexdump("reference", ref, 32);
            bs_test_hexdump(ghash_impls(i)->name, fast, 32);
            fail_msg("GHASH-256 %s differs from the reference product", ghash_impls(i)->name);
        }
    }
}

static void test_gf256_random(void **state)
{
    (void)state;
    bs_test_seed();
    uint8_t x[32], y[32];
    for (int t = 0; t < 20000; t++) {
        bs_test_fill(x, 32);
        bs_test_fill(y, 32);
        /* Dense and sparse operands reach the carries and the reduction's edges. */
        if (t % 5 == 1)
            memset(x, 0xff, 32);
        if (t % 7 == 2)
            memset(y, 0xff, 32);
        if (t % 11 == 3) {
            memset(x, 0, 32);
            x[bs_test_below(32)] = (uint8_t)(1u << bs_test_below(8));
        }
        check_gf_mul(x, y, NULL);
    }
    /* Multi-block absorption equals the block-by-block definition. */
    for (int t = 0; t < 200; t++) {
        /* Up to 40 blocks: several of the 8-block aggregations and every remainder. */
        uint8_t h[32], data[32 * 40], y0[32], ref_y[32], fast_y[32];
        uint64_t hkey[BS_GHASH256_HKEY_WORDS];
        size_t n = bs_test_below(41);
        bs_test_fill(h, 32);
        bs_test_fill(y0, 32);
        memcpy(ref_y, y0, 32);
        bs_test_fill(data, sizeof data);
        for (size_t b = 0; b < n; b++) {
            for (int i = 0; i < 32; i++)
                ref_y[i] ^= data[32 * b + i];
            bs_ref_gf256_mul(ref_y, h, ref_y);
        }
        for (size_t i = 0; ghash_impls(i) != NULL; i++) {
            memcpy(fast_y, y0, 32);
            ghash_impls(i)->init(hkey, h);
            ghash_impls(i)->mul_blocks(hkey, fast_y, data, n);
            assert_memory_equal(fast_y, ref_y, 32);
        }
    }
}

/*
 * bs_wipe_large (the context's key-form wipes): exactly the n bytes, at every alignment, and
 * nothing around them, for every length up to past its 64-byte stores' tails.
 */
static void test_wipe_large(void **state)
{
    (void)state;
    static uint8_t buf[64 + 700 + 64];
    for (size_t off = 0; off < 64; off += 7)
        for (size_t n = 0; n <= 700; n += 1 + n / 50) {
            memset(buf, 0xa5, sizeof buf);
            bs_wipe_large(buf + 64 + off, n);
            for (size_t i = 0; i < sizeof buf; i++) {
                const int in = i >= 64 + off && i < 64 + off + n;
                if (buf[i] != (in ? 0 : 0xa5))
                    fail_msg("bs_wipe_large(+%zu, %zu): byte %zu is %02x", off, n, i, buf[i]);
            }
        }
}

/* What set_key picks is one of the implementations tested here, and constant-time. */
static void test_ghash_default(void **state)
{
    (void)state;
    const bs_ghash256_impl *d = bs_ghash256_default();
    int listed = 0;
    assert_non_null(d);
    assert_true(d->constant_time);
    for (size_t i = 0; ghash_impls(i) != NULL; i++)
        listed |= ghash_impls(i) == d;
    assert_true(listed);
}

/* Encrypts (or decrypts) with AAD and data each cut at a random point. */
static void gcm_split(bs_gcm256_ctx *ctx, int decrypt, const uint8_t *iv, size_t iv_len,
                      const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                      uint8_t *out)
{
    assert_int_equal(bs_gcm256_set_iv(ctx, iv, iv_len), BS_OK);
    size_t a = aad_len ? bs_test_below((uint32_t)aad_len + 1) : 0;
    assert_int_equal(bs_gcm256_aad(ctx, aad, a), BS_OK);
    assert_int_equal(bs_gcm256_aad(ctx, aad + a, aad_len - a), BS_OK);
    size_t off = 0;
    while (off < len) {
        size_t n = bs_test_below((uint32_t)(len - off) + 1);
        int rc = decrypt ? bs_gcm256_decrypt(ctx, out + off, in + off, n)
                         : bs_gcm256_encrypt(ctx, out + off, in + off, n);
        assert_int_equal(rc, BS_OK);
        off += n;
    }
}

static void test_kat(void **state)
{
    (void)state;
    bs_kat_reader r;
    bs_kat k;
    int rc, gcm = 0, mismatch = 0, hkeys = 0, muls = 0;
    assert_int_equal(bs_kat_open(&r, bs_kat_path("rijndael256-gcm.kat")), 0);
    while ((rc = bs_kat_next(&r, &k)) == 1) {
        const char *name = bs_kat_text(&k, "Cipher");
        assert_non_null(name);
        if (strcmp(name, "GF256-MUL") == 0) {
            size_t xl, yl, pl;
            const uint8_t *x = bs_kat_bytes(&k, "X", &xl), *y = bs_kat_bytes(&k, "Y", &yl);
            const uint8_t *p = bs_kat_bytes(&k, "Product", &pl);
            assert_true(x && y && p && xl == 32 && yl == 32 && pl == 32);
            check_gf_mul(x, y, p);
            muls++;
        } else if (strcmp(name, "RIJNDAEL-256") == 0) {
            /* H = E_K(0^256): the core, the reference, and the GHASH key set_key derives. */
            size_t kl, pl, cl;
            const uint8_t *key = bs_kat_bytes(&k, "Key", &kl);
            const uint8_t *pt = bs_kat_bytes(&k, "Plaintext", &pl);
            const uint8_t *ct = bs_kat_bytes(&k, "Ciphertext", &cl);
            assert_true(key && pt && ct && kl == 32 && pl == 32 && cl == 32);
            uint8_t out[32];
            bs_ref_rijndael256_encrypt(key, pt, out);
            assert_memory_equal(out, ct, 32);
            const bs_block_cipher *c = bs_block_cipher_by_name("RIJNDAEL-256");
            assert_non_null(c);
            bs_key_schedule ks;
            c->set_key(&ks, key);
            c->encrypt(&ks, out, pt, 1);
            assert_memory_equal(out, ct, 32);
            static bs_gcm256_ctx ctx;
            uint64_t hkey[BS_GHASH256_HKEY_WORDS];
            assert_int_equal(
                bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, kl), BS_OK);
            assert_int_equal(ctx.hpow, 0); /* H comes with the first IV */
            assert_int_equal(bs_gcm256_set_iv(&ctx, key, 28), BS_OK);
            ctx.ghash->init(hkey, ct);
            if (ctx.ghash->extend != NULL) {
                /* Lazy: the first power now, the rest as extend makes them. */
                const size_t pw = ctx.ghash->power_words;
                assert_int_equal(ctx.hpow, 1);
                assert_memory_equal(hkey, ctx.hkey, pw * sizeof hkey[0]);
                ctx.ghash->extend(ctx.hkey, 1, ctx.ghash->max_powers);
                assert_memory_equal(hkey, ctx.hkey, ctx.ghash->form_words * sizeof hkey[0]);
            } else {
                assert_memory_equal(hkey, ctx.hkey, sizeof hkey);
            }
            bs_gcm256_clear(&ctx);
            hkeys++;
        } else {
            assert_string_equal(name, "RIJNDAEL-256-GCM");
            size_t kl, il, al, pl, cl, tl;
            const uint8_t *key = bs_kat_bytes(&k, "Key", &kl);
            const uint8_t *iv = bs_kat_bytes(&k, "IV", &il);
            const uint8_t *aad = bs_kat_bytes(&k, "AAD", &al);
            const uint8_t *pt = bs_kat_bytes(&k, "Plaintext", &pl);
            const uint8_t *ct = bs_kat_bytes(&k, "Ciphertext", &cl);
            const uint8_t *tag = bs_kat_bytes(&k, "Tag", &tl);
            const char *result = bs_kat_text(&k, "Result");
            int must_fail = result != NULL && strcmp(result, "TAG_MISMATCH") == 0;
            assert_true(key && iv && aad && pt && ct && tag);
            assert_int_equal(pl, cl);
            assert_true(pl <= 256);
            static bs_gcm256_ctx ctx;
            uint8_t out[256], mytag[32], reftag[32], refct[256];
            for (size_t g = 0; ghash_impls(g) != NULL; g++) {
                assert_int_equal(
                    bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, kl),
                    BS_OK);
                bs_gcm256_set_ghash(&ctx, ghash_impls(g));
                /* Whole calls, then random splits, both ways. */
                for (int split = 0; split < 4; split++) {
                    if (split == 0) {
                        assert_int_equal(bs_gcm256_set_iv(&ctx, iv, il), BS_OK);
                        assert_int_equal(bs_gcm256_aad(&ctx, aad, al), BS_OK);
                        assert_int_equal(bs_gcm256_encrypt(&ctx, out, pt, pl), BS_OK);
                    } else {
                        gcm_split(&ctx, 0, iv, il, aad, al, pt, pl, out);
                    }
                    assert_int_equal(bs_gcm256_tag(&ctx, mytag, tl), BS_OK);
                    assert_memory_equal(out, ct, cl);
                    if (must_fail)
                        assert_memory_not_equal(mytag, tag, tl);
                    else
                        assert_memory_equal(mytag, tag, tl);
                    gcm_split(&ctx, 1, iv, il, aad, al, ct, cl, out);
                    assert_memory_equal(out, pt, pl);
                    assert_int_equal(bs_gcm256_verify(&ctx, tag, tl),
                                     must_fail ? BS_ERR_AUTH : BS_OK);
                }
                bs_gcm256_clear(&ctx);
            }
            bs_ref_gcm256_encrypt(key, iv, il, aad, al, pt, pl, refct, reftag);
            assert_memory_equal(refct, ct, cl);
            if (must_fail) {
                assert_memory_not_equal(reftag, tag, tl);
                mismatch++;
            } else {
                assert_memory_equal(reftag, tag, tl);
            }
            gcm++;
        }
        bs_kat_free(&k);
    }
    assert_int_equal(rc, 0);
    bs_kat_close(&r);
    assert_true(gcm >= 8);
    assert_true(mismatch >= 1);
    assert_true(hkeys >= 1);
    assert_true(muls >= 1);
}

#define MAXLEN (5 * 32 + 31)

static size_t random_iv_len(int t)
{
    static const size_t fixed[] = {1, 12, 28, 60};
    return t % 5 < 4 ? fixed[t % 5] : 1 + bs_test_below(256);
}

/*
 * set_key takes the core: GCM over every Rijndael-256 core this CPU runs (not only the one
 * bs_block_cipher_by_name prefers), against the reference, at lengths that cross a pass of the
 * widest core, a stitched batch (16 blocks) and a source piece (128 blocks), split at random.
 */
static void test_every_core(void **state)
{
    (void)state;
    bs_test_seed();
    static bs_gcm256_ctx ctx;
    static uint8_t pt[300 * 32], ct[sizeof pt], refct[sizeof pt], back[sizeof pt];
    uint8_t key[32], iv[28], aad[40], tag[32], reftag[32];
    static const size_t lens[] = {0, 1, 31, 32, 33, 16 * 32 + 5, 65 * 32, 129 * 32 + 17, sizeof pt};
    int cores = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *c = bs_block_ciphers[i];
        if (strcmp(c->name, "RIJNDAEL-256") != 0 || !bs_impl_usable(c))
            continue;
        cores++;
        for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
            size_t len = lens[t];
            bs_test_fill(key, sizeof key);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(aad, sizeof aad);
            bs_test_fill(pt, len);
            bs_ref_gcm256_encrypt(key, iv, sizeof iv, aad, sizeof aad, pt, len, refct, reftag);
            assert_int_equal(bs_gcm256_set_key(&ctx, c, key, sizeof key), BS_OK);
            assert_ptr_equal(ctx.cipher, c);
            gcm_split(&ctx, 0, iv, sizeof iv, aad, sizeof aad, pt, len, ct);
            assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
            if (memcmp(ct, refct, len) != 0 || memcmp(tag, reftag, 32) != 0)
                fail_msg("%s/%s, len %zu: differs from the reference", c->name, c->impl, len);
            gcm_split(&ctx, 1, iv, sizeof iv, aad, sizeof aad, ct, len, back);
            assert_int_equal(bs_gcm256_verify(&ctx, reftag, 32), BS_OK);
            assert_memory_equal(back, pt, len);
        }
    }
    assert_true(cores >= 1);
    /* Not a 32-byte-block core: refused, as is no core. */
    assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("PRESENT-128"), key, 16),
                     BS_ERR_ARG);
    assert_int_equal(bs_gcm256_set_key(&ctx, NULL, key, 32), BS_ERR_ARG);
    bs_gcm256_clear(&ctx);
}

/*
 * The lazy key form: init_first then extend in random steps writes what init writes, the powers
 * of each step as soon as it is made (vpclmul's extend writes all of them again), and a
 * context re-keyed after a long message (every power made) under one core, then another, holds
 * exactly what a fresh context keyed once holds: nothing of the old key is left in the schedule,
 * the key form or any other field.
 */
static void test_lazy_powers_and_rekey(void **state)
{
    (void)state;
    bs_test_seed();
    uint8_t h[32];
    uint64_t full[BS_GHASH256_HKEY_WORDS], lazy[BS_GHASH256_HKEY_WORDS];
    int lazies = 0;
    for (size_t g = 0; ghash_impls(g) != NULL; g++) {
        const bs_ghash256_impl *gh = ghash_impls(g);
        if (gh->extend == NULL)
            continue;
        lazies++;
        assert_true(gh->max_powers * gh->power_words <= gh->form_words);
        assert_true(gh->form_words <= BS_GHASH256_HKEY_WORDS);
        for (int t = 0; t < 200; t++) {
            bs_test_fill(h, sizeof h);
            gh->init(full, h);
            gh->init_first(lazy, h);
            for (unsigned have = 1; have < gh->max_powers;) {
                unsigned want = have + 1 + (unsigned)bs_test_below(gh->max_powers - have);
                gh->extend(lazy, have, want);
                /* Each step's entries as init makes them: a later step may write them again. */
                if (memcmp(full, lazy, want * gh->power_words * sizeof full[0]) != 0)
                    fail_msg("%s: extend(%u, %u) differs from init", gh->name, have, want);
                have = want;
            }
            assert_memory_equal(full, lazy, gh->form_words * sizeof full[0]);
        }
    }
#ifdef BS_GHASH256_HAVE_PCLMUL
    assert_true(bs_ghash256_pclmul() == NULL || lazies >= 1);
#endif

    static bs_gcm256_ctx a, b;
    static uint8_t pt[64 * 32], ct[sizeof pt];
    uint8_t k1[32], k2[32], iv[28], tag[32];
    const bs_block_cipher *cores[8];
    size_t ncores = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL && ncores < 8; i++)
        if (strcmp(bs_block_ciphers[i]->name, "RIJNDAEL-256") == 0 &&
            bs_impl_usable(bs_block_ciphers[i]))
            cores[ncores++] = bs_block_ciphers[i];
    assert_true(ncores >= 1);
    for (size_t i = 0; i < ncores; i++) {
        const bs_block_cipher *other = cores[(i + 1) % ncores];
        for (size_t g = 0; ghash_impls(g) != NULL; g++) {
            bs_test_fill(k1, sizeof k1);
            bs_test_fill(k2, sizeof k2);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(pt, sizeof pt);
            /* a: k1 on this core, a long message (every key power), then k2 on another core. */
            memset(&a, 0, sizeof a);
            assert_int_equal(bs_gcm256_set_key(&a, cores[i], k1, 32), BS_OK);
            bs_gcm256_set_ghash(&a, ghash_impls(g));
            assert_int_equal(bs_gcm256_set_iv(&a, iv, sizeof iv), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&a, ct, pt, sizeof pt - 5), BS_OK);
            assert_int_equal(bs_gcm256_tag(&a, tag, 32), BS_OK);
            assert_int_equal(bs_gcm256_set_key(&a, other, k2, 32), BS_OK);
            memset(&b, 0, sizeof b);
            assert_int_equal(bs_gcm256_set_key(&b, other, k2, 32), BS_OK);
            if (memcmp(&a, &b, sizeof a) != 0)
                fail_msg("re-keyed %s -> %s: the context differs from a fresh one", cores[i]->impl,
                         other->impl);
            /* And again on the same core, mid-message, after switching GHASH. */
            bs_gcm256_set_ghash(&a, ghash_impls(g));
            assert_int_equal(bs_gcm256_set_iv(&a, iv, 5), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&a, ct, pt, sizeof pt / 2 + 3), BS_OK);
            assert_int_equal(bs_gcm256_set_key(&a, other, k2, 32), BS_OK);
            if (memcmp(&a, &b, sizeof a) != 0)
                fail_msg("re-keyed %s mid-message (%s): the context differs from a fresh one",
                         other->impl, ghash_impls(g)->name);
        }
    }
    bs_gcm256_clear(&a);
    bs_gcm256_clear(&b);
}

/*
 * set_key_iv is set_key then set_iv: after it the context is byte for byte the one the two calls
 * make (fresh, and re-keyed after a message under another key), and so are the tags; a refused
 * call (an IV or key length the two calls refuse) changes nothing.
 */
static void test_set_key_iv(void **state)
{
    (void)state;
    static bs_gcm256_ctx a, b, keep;
    static uint8_t pt[40 * 32 + 7], cta[sizeof pt], ctb[sizeof pt];
    static const size_t ivlens[] = {28, 28, 12, 1, 27, 29, 32, 64};
    uint8_t k0[32], key[32], iv[64], taga[32], tagb[32];
    int fused = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *c = bs_block_ciphers[i];
        if (strcmp(c->name, "RIJNDAEL-256") != 0 || !bs_impl_usable(c))
            continue;
        fused += c->set_key_encrypt != NULL;
        for (int t = 0; t < 64; t++) {
            const size_t ivlen = ivlens[t % 8], len = bs_test_below(sizeof pt + 1);
            bs_test_fill(k0, sizeof k0);
            bs_test_fill(key, sizeof key);
            bs_test_fill(iv, sizeof iv);
            bs_test_fill(pt, sizeof pt);
            memset(&a, 0, sizeof a);
            if (t & 1) { /* re-keyed after a message under k0 */
                assert_int_equal(bs_gcm256_set_key(&a, c, k0, 32), BS_OK);
                assert_int_equal(bs_gcm256_set_iv(&a, iv, 28), BS_OK);
                assert_int_equal(bs_gcm256_encrypt(&a, cta, pt, len), BS_OK);
                assert_int_equal(bs_gcm256_tag(&a, taga, 32), BS_OK);
            }
            memcpy(&b, &a, sizeof a);
            assert_int_equal(bs_gcm256_set_key(&a, c, key, 32), BS_OK);
            assert_int_equal(bs_gcm256_set_iv(&a, iv, ivlen), BS_OK);
            memcpy(&keep, &b, sizeof b);
            assert_int_equal(bs_gcm256_set_key_iv(&b, c, key, 32, NULL, 28), BS_ERR_IV_LENGTH);
            assert_int_equal(bs_gcm256_set_key_iv(&b, c, key, 32, iv, 0), BS_ERR_IV_LENGTH);
            assert_int_equal(bs_gcm256_set_key_iv(&b, c, key, 31, iv, 28), BS_ERR_KEY_LENGTH);
            assert_int_equal(bs_gcm256_set_key_iv(&b, NULL, key, 32, iv, 28), BS_ERR_ARG);
            if (memcmp(&b, &keep, sizeof b) != 0)
                fail_msg("%s: a refused set_key_iv changed the context", c->impl);
            assert_int_equal(bs_gcm256_set_key_iv(&b, c, key, 32, iv, ivlen), BS_OK);
            if (memcmp(&a, &b, sizeof a) != 0)
                fail_msg("%s: set_key_iv (IV %zu bytes%s) differs from set_key + set_iv", c->impl,
                         ivlen, (t & 1) ? ", re-keyed" : "");
            assert_int_equal(bs_gcm256_aad(&a, iv, t % 40), BS_OK);
            assert_int_equal(bs_gcm256_aad(&b, iv, t % 40), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&a, cta, pt, len), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&b, ctb, pt, len), BS_OK);
            assert_int_equal(bs_gcm256_tag(&a, taga, 32), BS_OK);
            assert_int_equal(bs_gcm256_tag(&b, tagb, 32), BS_OK);
            assert_memory_equal(cta, ctb, len);
            assert_memory_equal(taga, tagb, 32);
        }
    }
#ifdef BS_HAVE_X86
    /* The VAES core has the fused path; where it runs, it was taken. */
    if (bs_cpu_level() >= BS_CPU_AVX512)
        assert_true(fused >= 1);
#endif
    (void)fused;
    bs_gcm256_clear(&a);
    bs_gcm256_clear(&b);
    bs_gcm256_clear(&keep);
}

static void test_random_vs_reference(void **state)
{
    (void)state;
    bs_test_seed();
    static bs_gcm256_ctx ctx;
    uint8_t key[32], iv[256], aad[100], pt[MAXLEN], ct[MAXLEN], refct[MAXLEN], back[MAXLEN];
    uint8_t tag[32], reftag[32];
    for (int t = 0; t < 600; t++) {
        size_t iv_len = random_iv_len(t);
        size_t len = t % 3 == 0 ? 32 * bs_test_below(6) : bs_test_below(MAXLEN + 1);
        size_t aad_len = t % 4 == 0 ? 0 : bs_test_below(sizeof aad + 1);
        size_t tl = tag_lens[bs_test_below(5)];
        if (t % 10 == 7) /* AAD alone */
            len = 0, aad_len = 1 + bs_test_below(sizeof aad);
        bs_test_fill(key, sizeof key);
        bs_test_fill(iv, iv_len);
        bs_test_fill(aad, aad_len);
        bs_test_fill(pt, len);
        bs_ref_gcm256_encrypt(key, iv, iv_len, aad, aad_len, pt, len, refct, reftag);
        for (size_t g = 0; ghash_impls(g) != NULL; g++) {
            assert_int_equal(
                bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, sizeof key),
                BS_OK);
            bs_gcm256_set_ghash(&ctx, ghash_impls(g));
            gcm_split(&ctx, 0, iv, iv_len, aad, aad_len, pt, len, ct);
            assert_int_equal(bs_gcm256_tag(&ctx, tag, tl), BS_OK);
            if (memcmp(ct, refct, len) != 0 || memcmp(tag, reftag, tl) != 0) {
                bs_test_hexdump("key", key, 32);
                bs_test_hexdump("iv", iv, iv_len);
                fail_msg("case %d (iv %zu, aad %zu, len %zu, tag %zu, %s) differs from the "
                         "reference",
                         t, iv_len, aad_len, len, tl, ghash_impls(g)->name);
            }
            gcm_split(&ctx, 1, iv, iv_len, aad, aad_len, ct, len, back);
            assert_int_equal(bs_gcm256_verify(&ctx, tag, tl), BS_OK);
            assert_memory_equal(back, pt, len);
            /* In place, both ways. */
            memcpy(back, pt, len);
            gcm_split(&ctx, 0, iv, iv_len, aad, aad_len, back, len, back);
            assert_int_equal(bs_gcm256_verify(&ctx, reftag, tl), BS_OK);
            gcm_split(&ctx, 1, iv, iv_len, aad, aad_len, back, len, back);
            assert_int_equal(bs_gcm256_verify(&ctx, reftag, tl), BS_OK);
            assert_memory_equal(back, pt, len);
        }
    }
    bs_gcm256_clear(&ctx);
}

/* Messages over several passes of the core, cut at random points, against the reference. */
static void test_long_messages(void **state)
{
    (void)state;
    bs_test_seed();
    static bs_gcm256_ctx ctx;
    static uint8_t pt[4200], ct[4200], refct[4200], back[4200];
    uint8_t key[32], iv[60], aad[77], tag[32], reftag[32];
    const bs_block_cipher *c = bs_block_cipher_by_name("RIJNDAEL-256");
    assert_non_null(c);
    const size_t lane_bytes = 32 * (size_t)c->lanes;
    const size_t lens[] = {lane_bytes - 1, lane_bytes, lane_bytes + 1, 2 * lane_bytes + 45,
                           sizeof pt};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        size_t len = lens[t] < sizeof pt ? lens[t] : sizeof pt, iv_len = t % 2 ? 28 : 60;
        bs_test_fill(key, sizeof key);
        bs_test_fill(iv, sizeof iv);
        bs_test_fill(aad, sizeof aad);
        bs_test_fill(pt, len);
        bs_ref_gcm256_encrypt(key, iv, iv_len, aad, sizeof aad, pt, len, refct, reftag);
        assert_int_equal(
            bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, sizeof key),
            BS_OK);
        gcm_split(&ctx, 0, iv, iv_len, aad, sizeof aad, pt, len, ct);
        assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
        assert_memory_equal(ct, refct, len);
        assert_memory_equal(tag, reftag, 32);
        /* One call each. */
        assert_int_equal(bs_gcm256_set_iv(&ctx, iv, iv_len), BS_OK);
        assert_int_equal(bs_gcm256_aad(&ctx, aad, sizeof aad), BS_OK);
        assert_int_equal(bs_gcm256_decrypt(&ctx, back, ct, len), BS_OK);
        assert_int_equal(bs_gcm256_verify(&ctx, reftag, 32), BS_OK);
        assert_memory_equal(back, pt, len);
    }
    bs_gcm256_clear(&ctx);
}

/*
 * What openssl speed -evp does to an AEAD: every message re-keys the one context (set_key_iv)
 * and goes in one call, so E_K(J0) is made with the first data (ride_j0 up to 14 blocks; at
 * avx512 in the first batch of the short messages' loop from 16 to 63 blocks, else before the
 * loop). IVs of random lengths (J0 by GHASH but for 28 bytes), lengths around 14, 16, 32, 48, 64,
 * 80 and 96 blocks (the long loop's wide and narrow batches after the key powers), against the
 * reference, both directions, in place or not.
 */
static void test_rekeyed_messages(void **state)
{
    (void)state;
    bs_test_seed();
    enum { LMAX = 100 * 32 };
    static bs_gcm256_ctx ctx;
    static uint8_t pt[LMAX], ct[LMAX], refct[LMAX], back[LMAX];
    static const size_t blocks[] = {0,  1,  13, 14, 15, 16, 17, 31, 32,
                                    33, 47, 48, 63, 64, 65, 80, 97};
    const size_t nb = sizeof blocks / sizeof blocks[0];
    uint8_t key[32], iv[256], aad[40], tag[32], reftag[32];
    const bs_block_cipher *c = bs_block_cipher_by_name("RIJNDAEL-256");
    assert_non_null(c);
    for (int t = 0; t < 300; t++) {
        const size_t iv_len = random_iv_len(t), tl = tag_lens[bs_test_below(5)];
        const size_t len = 32 * blocks[t % nb] + (t % 3 == 0 ? 0 : bs_test_below(32));
        const size_t aad_len = t % 4 == 0 ? bs_test_below(sizeof aad + 1) : 0;
        const int in_place = (int)(t / nb) % 2;
        bs_test_fill(key, sizeof key);
        bs_test_fill(iv, iv_len);
        bs_test_fill(aad, aad_len);
        bs_test_fill(pt, len);
        bs_ref_gcm256_encrypt(key, iv, iv_len, aad, aad_len, pt, len, refct, reftag);
        uint8_t *o = in_place ? back : ct;
        memcpy(back, pt, len);
        assert_int_equal(bs_gcm256_set_key_iv(&ctx, c, key, 32, iv, iv_len), BS_OK);
        assert_int_equal(bs_gcm256_aad(&ctx, aad, aad_len), BS_OK);
        assert_int_equal(bs_gcm256_encrypt(&ctx, o, in_place ? back : pt, len), BS_OK);
        assert_int_equal(bs_gcm256_tag(&ctx, tag, tl), BS_OK);
        if (memcmp(o, refct, len) != 0 || memcmp(tag, reftag, tl) != 0)
            fail_msg("case %d (%s, iv %zu, aad %zu, len %zu): differs from the reference", t,
                     c->impl, iv_len, aad_len, len);
        memcpy(back, refct, len);
        assert_int_equal(bs_gcm256_set_key_iv(&ctx, c, key, 32, iv, iv_len), BS_OK);
        assert_int_equal(bs_gcm256_aad(&ctx, aad, aad_len), BS_OK);
        assert_int_equal(
            bs_gcm256_decrypt(&ctx, in_place ? back : ct, in_place ? back : refct, len), BS_OK);
        assert_int_equal(bs_gcm256_verify(&ctx, reftag, tl), BS_OK);
        assert_memory_equal(in_place ? back : ct, pt, len);
    }
    bs_gcm256_clear(&ctx);
}

/* inc32 wraps the last four bytes of the counter block and leaves the rest alone. */
static void test_inc32_wrap(void **state)
{
    (void)state;
    static bs_gcm256_ctx ctx;
    static bs_key_schedule ks;
    uint8_t key[32] = {9}, iv[28], zero[96] = {0}, out[96], cb[96];
    for (int i = 0; i < 28; i++)
        iv[i] = (uint8_t)(0xf0 + i);
    const bs_block_cipher *c = bs_block_cipher_by_name("RIJNDAEL-256");
    assert_non_null(c);
    assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
    memset(ctx.counter + 28, 0xff, 4);
    ctx.counter[31] = 0xfe;
    ctx.pre = 0; /* the first block's keystream made with the IV is not this counter's */
    assert_int_equal(bs_gcm256_encrypt(&ctx, out, zero, sizeof zero), BS_OK);
    const uint32_t low[3] = {0xfffffffeu, 0xffffffffu, 0};
    for (int b = 0; b < 3; b++) {
        memcpy(cb + 32 * b, iv, 28);
        for (int i = 0; i < 4; i++)
            cb[32 * b + 28 + i] = (uint8_t)(low[b] >> (24 - 8 * i));
    }
    c->set_key(&ks, key);
    c->encrypt(&ks, cb, cb, 3);
    assert_memory_equal(out, cb, sizeof out);
    bs_gcm256_clear(&ctx);
}

/*
 * RIJNDAEL-256-GCM by the book from a given J0 (whatever IV made it): inc32 keystream blocks
 * from the reference cipher, GHASH block by block over the reference field product.
 */
static void ref_gcm_from_j0_w(const uint8_t key[32], const uint8_t j0[32], const uint8_t *aad,
                              size_t aad_len, const uint8_t *in, size_t len, int decrypt,
                              uint8_t *out, uint8_t tag[32], unsigned ctr_bytes)
{
    uint8_t cb[32], ks[32], y[32] = {0}, blk[32];
    memcpy(cb, j0, 32);
    for (size_t off = 0; off < len; off += 32) {
        /* The counter field, the last ctr_bytes bytes, plus one modulo 2^(8 ctr_bytes). */
        for (unsigned i = 0; i < ctr_bytes && ++cb[31 - i] == 0; i++)
            ;
        bs_ref_rijndael256_encrypt(key, cb, ks);
        size_t n = len - off < 32 ? len - off : 32;
        for (size_t i = 0; i < n; i++)
            out[off + i] = in[off + i] ^ ks[i];
    }
    const uint8_t *c = decrypt ? in : out;
    for (int part = 0; part < 2; part++) {
        const uint8_t *p = part == 0 ? aad : c;
        size_t plen = part == 0 ? aad_len : len;
        for (size_t off = 0; off < plen; off += 32) {
            size_t n = plen - off < 32 ? plen - off : 32;
            memset(blk, 0, 32);
            memcpy(blk, p + off, n);
            for (int i = 0; i < 32; i++)
                y[i] ^= blk[i];
            bs_ref_gf256_mul(y, ref_h, y);
        }
    }
    memset(blk, 0, 32);
    for (int i = 0; i < 8; i++) {
        blk[15 - i] = (uint8_t)(((uint64_t)aad_len << 3) >> (8 * i));
        blk[31 - i] = (uint8_t)(((uint64_t)len << 3) >> (8 * i));
    }
    for (int i = 0; i < 32; i++)
        y[i] ^= blk[i];
    bs_ref_gf256_mul(y, ref_h, y);
    bs_ref_rijndael256_encrypt(key, j0, ks);
    for (int i = 0; i < 32; i++)
        tag[i] = ks[i] ^ y[i];
}

static void ref_gcm_from_j0(const uint8_t key[32], const uint8_t j0[32], const uint8_t *aad,
                            size_t aad_len, const uint8_t *in, size_t len, int decrypt,
                            uint8_t *out, uint8_t tag[32])
{
    ref_gcm_from_j0_w(key, j0, aad, aad_len, in, len, decrypt, out, tag, 4);
}

/*
 * The wGCM parameters (bs_gcm256_set_profile): counter fields of 1 to 16 bytes and direct-J0 IV
 * lengths against the by-the-book model above, at every core, in random pieces, with carries
 * across the counter's bytes; the data limit of a narrow counter; the defaults unchanged.
 */
static void test_profiles(void **state)
{
    (void)state;
    bs_test_seed();
    static bs_gcm256_ctx ctx;
    static uint8_t pt[300 * 32], ct[sizeof pt], ref[sizeof pt];
    static const unsigned widths[] = {1, 2, 3, 4, 5, 8, 12, 16};
    uint8_t key[32], iv[32], j0[32], aad[20], tag[32], reftag[32], zero[32] = {0};
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *c = bs_block_ciphers[i];
        if (strcmp(c->name, "RIJNDAEL-256") != 0 || !bs_impl_usable(c))
            continue;
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            const unsigned w = widths[wi];
            const size_t d = wi % 2 ? 32 - w : (32 - w < 24 ? 32 - w : 24);
            const size_t len = w == 1 ? 254 * 32 - 7 : 1 + bs_test_below(sizeof pt);
            bs_test_fill(key, 32);
            bs_test_fill(iv, d);
            bs_test_fill(aad, sizeof aad);
            bs_test_fill(pt, len);
            memcpy(j0, iv, d);
            memset(j0 + d, 0, 32 - d);
            j0[31] = 1;
            bs_ref_rijndael256_encrypt(key, zero, ref_h);
            ref_gcm_from_j0_w(key, j0, aad, sizeof aad, pt, len, 0, ref, reftag, w);
            assert_int_equal(bs_gcm256_set_profile(&ctx, 8 * w, d), BS_OK);
            assert_int_equal(bs_gcm256_set_key(&ctx, c, key, 32), BS_OK); /* kept across */
            assert_int_equal(bs_gcm256_set_iv(&ctx, iv, d), BS_OK);
            assert_int_equal(bs_gcm256_aad(&ctx, aad, sizeof aad), BS_OK);
            for (size_t off = 0; off < len;) {
                size_t n = bs_test_below((uint32_t)(len - off) + 1);
                assert_int_equal(bs_gcm256_encrypt(&ctx, ct + off, pt + off, n), BS_OK);
                off += n;
            }
            assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
            if (memcmp(ct, ref, len) != 0 || memcmp(tag, reftag, 32) != 0)
                fail_msg("%s, counter %u bytes, direct IV %zu, len %zu: differs from the model",
                         c->impl, w, d, len);
            /*
             * J0 from GHASH can put the counter field anywhere: a J0 whose field is 16 blocks
             * below its wrap (all ones but the low byte 0xf0), put in place after set_iv as
             * test_long_wrap_splits does, so that the field wraps inside the message and, wider
             * than 4 bytes, carries past the 32 bits inc32 would keep.
             */
            bs_test_fill(j0, 32);
            memset(j0 + 32 - w, 0xff, w);
            j0[31] = 0xf0;
            const size_t wl = 40 * 32 + 9;
            ref_gcm_from_j0_w(key, j0, aad, sizeof aad, pt, wl, 0, ref, reftag, w);
            assert_int_equal(bs_gcm256_set_iv(&ctx, iv, d), BS_OK);
            memcpy(ctx.j0, j0, 32);
            memcpy(ctx.counter, j0, 32);
            for (unsigned b = 0; b < w && ++ctx.counter[31 - b] == 0; b++)
                ;
            ctx.pre = 0; /* made for the IV's J0, not this one */
            ctx.ekj0_ready = 0;
            assert_int_equal(bs_gcm256_aad(&ctx, aad, sizeof aad), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&ctx, ct, pt, 7), BS_OK);
            assert_int_equal(bs_gcm256_encrypt(&ctx, ct + 7, pt + 7, wl - 7), BS_OK);
            assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
            if (memcmp(ct, ref, wl) != 0 || memcmp(tag, reftag, 32) != 0)
                fail_msg("%s, counter %u bytes: differs from the model across the wrap", c->impl,
                         w);
            if (w == 1) { /* 254 blocks per IV, not one more */
                assert_int_equal(bs_gcm256_set_iv(&ctx, iv, d), BS_OK);
                assert_int_equal(bs_gcm256_encrypt(&ctx, ct, pt, 254 * 32), BS_OK);
                assert_int_equal(bs_gcm256_encrypt(&ctx, ct, pt, 1), BS_ERR_DATA_LIMIT);
            }
            bs_gcm256_clear(&ctx); /* the defaults again */
        }
    }
    /* Out of range. */
    assert_int_equal(bs_gcm256_set_profile(&ctx, 12, 20), BS_ERR_ARG);
    assert_int_equal(bs_gcm256_set_profile(&ctx, 0, 20), BS_ERR_ARG);
    assert_int_equal(bs_gcm256_set_profile(&ctx, 136, 8), BS_ERR_ARG);
    assert_int_equal(bs_gcm256_set_profile(&ctx, 64, 25), BS_ERR_ARG);
    assert_int_equal(bs_gcm256_set_profile(&ctx, 64, 0), BS_ERR_ARG);
    /* The defaults, set explicitly, are the reference's RIJNDAEL-256-GCM. */
    bs_test_fill(key, 32);
    bs_test_fill(iv, 28);
    bs_ref_gcm256_encrypt(key, iv, 28, aad, sizeof aad, pt, 100, ref, reftag);
    assert_int_equal(bs_gcm256_set_profile(&ctx, 32, 28), BS_OK);
    assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
    assert_int_equal(bs_gcm256_aad(&ctx, aad, sizeof aad), BS_OK);
    assert_int_equal(bs_gcm256_encrypt(&ctx, ct, pt, 100), BS_OK);
    assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
    assert_memory_equal(ct, ref, 100);
    assert_memory_equal(tag, reftag, 32);
    bs_gcm256_clear(&ctx);
}

/*
 * Long messages through every GHASH at this CPU level (at avx512, VPCLMULQDQ takes the stitched
 * VAES loop of gcm256_vaes.c; at aesni and avx2, PCLMULQDQ the AES-NI one of gcm256_aesni.c),
 * against ref_gcm_from_j0: both directions, random splits, in place and at every alignment, J0's
 * counter word near 2^32 so that inc32 wraps inside a batch, at a batch's edge or not at all.
 */
static void test_long_wrap_splits(void **state)
{
    (void)state;
    bs_test_seed();
    enum { LMAX = 32 * 70 + 31 };
    static bs_gcm256_ctx ctx;
    static uint8_t buf[LMAX + 64], pt[LMAX], ref[LMAX], back[LMAX];
    uint8_t key[32], iv[28], j0[32], aad[45], tag[32], reftag[32], zero[32] = {0};
    for (int t = 0; t < 160; t++) {
        size_t len = t % 4 == 0 ? 32 * (16 + bs_test_below(40)) : bs_test_below(LMAX + 1);
        size_t aad_len = bs_test_below(sizeof aad + 1), align = bs_test_below(64);
        int decrypt = t % 2, in_place = (t / 2) % 2;
        bs_test_fill(key, sizeof key);
        bs_test_fill(iv, sizeof iv);
        bs_test_fill(j0, sizeof j0);
        bs_test_fill(aad, aad_len);
        bs_test_fill(pt, len);
        /* The counter word of J0: random, or a few blocks (up to 80) below the wrap. */
        if (t % 3 != 2) {
            uint32_t w = 0xffffffffu - bs_test_below(81);
            for (int i = 0; i < 4; i++)
                j0[28 + i] = (uint8_t)(w >> (24 - 8 * i));
        }
        bs_ref_rijndael256_encrypt(key, zero, ref_h);
        ref_gcm_from_j0(key, j0, aad, aad_len, pt, len, decrypt, ref, reftag);
        for (size_t g = 0; ghash_impls(g) != NULL; g++) {
            assert_int_equal(
                bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, sizeof key),
                BS_OK);
            bs_gcm256_set_ghash(&ctx, ghash_impls(g));
            assert_int_equal(bs_gcm256_set_iv(&ctx, iv, sizeof iv), BS_OK);
            /* The IV's J0 replaced by the chosen one (the counter follows it). */
            memcpy(ctx.j0, j0, 32);
            memcpy(ctx.counter, j0, 32);
            bs_store_be32(ctx.counter + 28, bs_load_be32(j0 + 28) + 1);
            /* Nor are E_K(J0) and the first block's keystream, made with the IV. */
            ctx.ekj0_ready = 0;
            ctx.pre = 0;
            size_t a = bs_test_below((uint32_t)aad_len + 1);
            assert_int_equal(bs_gcm256_aad(&ctx, aad, a), BS_OK);
            assert_int_equal(bs_gcm256_aad(&ctx, aad + a, aad_len - a), BS_OK);
            uint8_t *io = buf + align;
            const uint8_t *src = in_place ? io : back;
            memcpy(in_place ? io : back, pt, len);
            /* One call, or random pieces (some of them whole batches). */
            size_t off = 0;
            while (off < len) {
                size_t n = t % 5 == 0 ? len - off : bs_test_below((uint32_t)(len - off) + 1);
                int rc = decrypt ? bs_gcm256_decrypt(&ctx, io + off, src + off, n)
                                 : bs_gcm256_encrypt(&ctx, io + off, src + off, n);
                assert_int_equal(rc, BS_OK);
                off += n;
            }
            assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
            if (memcmp(io, ref, len) != 0 || memcmp(tag, reftag, 32) != 0)
                fail_msg("case %d (len %zu, aad %zu, align %zu, %s, %s, counter %02x%02x%02x%02x,"
                         " GHASH %s) differs from the reference",
                         t, len, aad_len, align, decrypt ? "decrypt" : "encrypt",
                         in_place ? "in place" : "out of place", j0[28], j0[29], j0[30], j0[31],
                         ghash_impls(g)->name);
        }
    }
    bs_gcm256_clear(&ctx);
}

/* Decrypts ct under (aad, tag) and returns verify's answer. */
static int open_gcm(bs_gcm256_ctx *ctx, const uint8_t *iv, const uint8_t *aad, size_t aad_len,
                    const uint8_t *ct, size_t len, const uint8_t *tag, size_t tl)
{
    uint8_t out[MAXLEN];
    assert_int_equal(bs_gcm256_set_iv(ctx, iv, 28), BS_OK);
    assert_int_equal(bs_gcm256_aad(ctx, aad, aad_len), BS_OK);
    assert_int_equal(bs_gcm256_decrypt(ctx, out, ct, len), BS_OK);
    return bs_gcm256_verify(ctx, tag, tl);
}

/*
 * A context where calloc puts it: 16-byte aligned, not at its type's 64. The SIMD cores load and
 * store the key schedule unaligned, so this must work at every level (the VAES core crashed).
 */
static void test_misaligned_context(void **state)
{
    (void)state;
    uint8_t *raw = (uint8_t *)calloc(1, sizeof(bs_gcm256_ctx) + 128); /* zeroed, as set_key needs */
    assert_non_null(raw);
    size_t off = (64 - (uintptr_t)raw % 64) % 64 + 16;
    bs_gcm256_ctx *g = (bs_gcm256_ctx *)(void *)(raw + off);
    uint8_t key[32], iv[28], aad[13], pt[1000], ct[1000], ref[1000], tag[32], ref_tag[32];
    bs_test_fill(key, sizeof key);
    bs_test_fill(iv, sizeof iv);
    bs_test_fill(aad, sizeof aad);
    bs_test_fill(pt, sizeof pt);
    bs_ref_gcm256_encrypt(key, iv, sizeof iv, aad, sizeof aad, pt, sizeof pt, ref, ref_tag);
    assert_int_equal(bs_gcm256_set_key(g, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32), BS_OK);
    for (size_t n = 1; n <= sizeof pt; n += 333) {
        assert_int_equal(bs_gcm256_set_iv(g, iv, sizeof iv), BS_OK);
        assert_int_equal(bs_gcm256_aad(g, aad, sizeof aad), BS_OK);
        assert_int_equal(bs_gcm256_encrypt(g, ct, pt, n), BS_OK);
        assert_int_equal(bs_gcm256_encrypt(g, ct + n, pt + n, sizeof pt - n), BS_OK);
        assert_int_equal(bs_gcm256_tag(g, tag, 32), BS_OK);
        assert_memory_equal(ct, ref, sizeof pt);
        assert_memory_equal(tag, ref_tag, 32);
    }
    bs_gcm256_clear(g);
    free(raw);
}

static void test_tamper(void **state)
{
    (void)state;
    bs_test_seed();
    static bs_gcm256_ctx ctx;
    uint8_t key[32], iv[28], aad[40], pt[100], ct[100], tag[32];
    for (int t = 0; t < 100; t++) {
        size_t tl = tag_lens[t % 5];
        bs_test_fill(key, sizeof key);
        bs_test_fill(iv, sizeof iv);
        bs_test_fill(aad, sizeof aad);
        bs_test_fill(pt, sizeof pt);
        assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                         BS_OK);
        assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
        assert_int_equal(bs_gcm256_aad(&ctx, aad, sizeof aad), BS_OK);
        assert_int_equal(bs_gcm256_encrypt(&ctx, ct, pt, sizeof pt), BS_OK);
        assert_int_equal(bs_gcm256_tag(&ctx, tag, tl), BS_OK);
        assert_int_equal(open_gcm(&ctx, iv, aad, sizeof aad, ct, sizeof ct, tag, tl), BS_OK);

        uint8_t bit = (uint8_t)(1u << bs_test_below(8));
        size_t i = bs_test_below((uint32_t)tl);
        tag[i] ^= bit;
        assert_int_equal(open_gcm(&ctx, iv, aad, sizeof aad, ct, sizeof ct, tag, tl), BS_ERR_AUTH);
        tag[i] ^= bit;
        i = bs_test_below(sizeof ct);
        ct[i] ^= bit;
        assert_int_equal(open_gcm(&ctx, iv, aad, sizeof aad, ct, sizeof ct, tag, tl), BS_ERR_AUTH);
        ct[i] ^= bit;
        i = bs_test_below(sizeof aad);
        aad[i] ^= bit;
        assert_int_equal(open_gcm(&ctx, iv, aad, sizeof aad, ct, sizeof ct, tag, tl), BS_ERR_AUTH);
        aad[i] ^= bit;
        /* A truncated ciphertext or AAD fails too. */
        assert_int_equal(open_gcm(&ctx, iv, aad, sizeof aad, ct, sizeof ct - 1, tag, tl),
                         BS_ERR_AUTH);
        assert_int_equal(open_gcm(&ctx, iv, aad, sizeof aad - 1, ct, sizeof ct, tag, tl),
                         BS_ERR_AUTH);
        assert_int_equal(open_gcm(&ctx, iv, aad, sizeof aad, ct, sizeof ct, tag, tl), BS_OK);
    }
    bs_gcm256_clear(&ctx);
}

static void test_tag_lengths(void **state)
{
    (void)state;
    static bs_gcm256_ctx ctx;
    uint8_t key[32] = {1}, iv[28] = {2}, tag[33];
    assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    for (size_t tl = 0; tl <= 33; tl++) {
        int ok = tl >= 16 && tl <= 32 && tl % 4 == 0;
        assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
        assert_int_equal(bs_gcm256_tag(&ctx, tag, tl), ok ? BS_OK : BS_ERR_TAG_LENGTH);
        assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
        assert_int_equal(bs_gcm256_verify(&ctx, tag, tl), ok ? BS_OK : BS_ERR_TAG_LENGTH);
        if (!ok)
            continue;
        tag[tl - 1] ^= 0x80;
        assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
        assert_int_equal(bs_gcm256_verify(&ctx, tag, tl), BS_ERR_AUTH);
    }
    bs_gcm256_clear(&ctx);
}

static void test_order_and_arguments(void **state)
{
    (void)state;
    static bs_gcm256_ctx ctx;
    uint8_t key[32] = {3}, iv[28] = {4}, buf[64] = {5}, tag[32];
    memset(&ctx, 0, sizeof ctx);
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_aad(&ctx, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_encrypt(&ctx, buf, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 31),
                     BS_ERR_KEY_LENGTH);
    assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);
    /* Keyed, no IV. */
    assert_int_equal(bs_gcm256_aad(&ctx, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_encrypt(&ctx, buf, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_decrypt(&ctx, buf, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_verify(&ctx, tag, 32), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 0), BS_ERR_IV_LENGTH);
    assert_int_equal(bs_gcm256_set_iv(&ctx, NULL, 28), BS_ERR_IV_LENGTH);
    /* AAD after data; decrypt after encrypt and the reverse. */
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
    assert_int_equal(bs_gcm256_aad(&ctx, buf, 3), BS_OK);
    assert_int_equal(bs_gcm256_encrypt(&ctx, buf, buf, 5), BS_OK);
    assert_int_equal(bs_gcm256_aad(&ctx, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_decrypt(&ctx, buf, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
    /* Finished: a new IV is needed. */
    assert_int_equal(bs_gcm256_aad(&ctx, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_encrypt(&ctx, buf, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
    assert_int_equal(bs_gcm256_decrypt(&ctx, buf, buf, 5), BS_OK);
    assert_int_equal(bs_gcm256_encrypt(&ctx, buf, buf, 1), BS_ERR_STATE);
    assert_int_equal(bs_gcm256_aad(&ctx, buf, 1), BS_ERR_STATE);
    bs_gcm256_clear(&ctx);
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_ERR_STATE);
}

static void test_limits(void **state)
{
    (void)state;
    static bs_gcm256_ctx ctx, saved;
    uint8_t key[32] = {6}, iv[28] = {7}, in[96] = {8}, out[96], tag[32];
    const uint64_t max_bytes = BS_GCM256_MAX_BLOCKS * 32;
    assert_int_equal(bs_gcm256_set_key(&ctx, bs_block_cipher_by_name("RIJNDAEL-256"), key, 32),
                     BS_OK);

    /* Plaintext: up to (2^32 - 2) blocks, then a refused call that changes nothing. */
    for (int dec = 0; dec < 2; dec++) {
        assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
        int (*fn)(bs_gcm256_ctx *, uint8_t *, const uint8_t *, size_t) =
            dec ? bs_gcm256_decrypt : bs_gcm256_encrypt;
        assert_int_equal(fn(&ctx, out, in, 1), BS_OK);
        ctx.data_len = max_bytes - 40;
        memcpy(&saved, &ctx, sizeof ctx);
        memset(out, 0xaa, sizeof out);
        assert_int_equal(fn(&ctx, out, in, 41), BS_ERR_DATA_LIMIT);
        assert_int_equal(fn(&ctx, out, in, 96), BS_ERR_DATA_LIMIT);
        assert_memory_equal(&ctx, &saved, sizeof ctx);
        for (size_t i = 0; i < sizeof out; i++)
            assert_int_equal(out[i], 0xaa);
        assert_int_equal(fn(&ctx, out, in, 40), BS_OK);
        assert_int_equal(ctx.data_len, max_bytes);
        assert_int_equal(fn(&ctx, out, in, 1), BS_ERR_DATA_LIMIT);
        assert_int_equal(fn(&ctx, out, in, 0), BS_OK);
        assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);
    }

    /* AAD: below 2^61 bytes. */
    const uint64_t aad_max = ((uint64_t)1 << 61) - 1;
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
    ctx.aad_len = aad_max - 10;
    memcpy(&saved, &ctx, sizeof ctx);
    assert_int_equal(bs_gcm256_aad(&ctx, in, 11), BS_ERR_DATA_LIMIT);
    assert_memory_equal(&ctx, &saved, sizeof ctx);
    assert_int_equal(bs_gcm256_aad(&ctx, in, 10), BS_OK);
    assert_int_equal(bs_gcm256_aad(&ctx, in, 1), BS_ERR_DATA_LIMIT);
    assert_int_equal(bs_gcm256_encrypt(&ctx, out, in, 1), BS_OK);
    assert_int_equal(bs_gcm256_tag(&ctx, tag, 32), BS_OK);

    /* A new IV resets both counts. */
    assert_int_equal(bs_gcm256_set_iv(&ctx, iv, 28), BS_OK);
    assert_int_equal(ctx.data_len, 0);
    assert_int_equal(ctx.aad_len, 0);
    bs_gcm256_clear(&ctx);
}

int main(void)
{
    bs_test_cpu_banner();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gf256_random),
        cmocka_unit_test(test_ghash_default),
        cmocka_unit_test(test_wipe_large),
        cmocka_unit_test(test_kat),
        cmocka_unit_test(test_random_vs_reference),
        cmocka_unit_test(test_lazy_powers_and_rekey),
        cmocka_unit_test(test_set_key_iv),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_every_core),
        cmocka_unit_test(test_long_messages),
        cmocka_unit_test(test_rekeyed_messages),
        cmocka_unit_test(test_inc32_wrap),
        cmocka_unit_test(test_long_wrap_splits),
        cmocka_unit_test(test_misaligned_context),
        cmocka_unit_test(test_tamper),
        cmocka_unit_test(test_tag_lengths),
        cmocka_unit_test(test_order_and_arguments),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
