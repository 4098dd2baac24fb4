/*
 * test_fw.c: the bare-metal test runner. Runs, on the target, the known-answer files of the
 * host tests (converted to C data at build time by kat2c) through every block-cipher
 * implementation compiled into this firmware, CTR with split streams, the RIJNDAEL-256-GCM
 * vectors when GCM-256 is built, and a random cross-check of every implementation against the
 * byte-wise reference linked into the same image. main's return value is the exit status QEMU
 * reports (semihosting): 0 when everything passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitslice.h"
#include "kat_data.h"
#include "modes/ctr.h"
#include "ref/ref.h"
#include "modes/gcm256.h"
#ifdef BS_HAVE_AES
#include "aes/aes.h"
#include "aes/aes_ctr_face.h"
#include "aes/aes_masked.h"
#include "modes/gcm128.h"
#endif

static unsigned failures, checks;

static void fail(const char *file, int line, const char *what)
{
    printf("FAIL %s:%d: %s\n", file, line, what);
    failures++;
}

static void check_eq(const void *got, const void *want, size_t n, const char *file, int line,
                     const char *what)
{
    checks++;
    if (memcmp(got, want, n) != 0)
        fail(file, line, what);
}

/* xorshift32 with a fixed seed: the run is reproducible, and no entropy source is needed. */
static uint32_t rng_state = 0x9e3779b9u;

static uint32_t rng(void)
{
    uint32_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return rng_state = x;
}

static void rng_fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rng() >> 24);
}

/* Big enough for every key schedule; static, since targets have small stacks. */
static bs_key_schedule ks;
static bs_ctr_ctx ctr_a, ctr_b;
static uint8_t buf_in[BS_LANES_MAX * BS_BLOCK_MAX * 3 + 64];
static uint8_t buf_out[sizeof buf_in], buf_ref[sizeof buf_in], buf_tmp[sizeof buf_in];
static unsigned kat_hits[64];

static size_t registry_size(void)
{
    size_t n = 0;
    while (bs_block_ciphers[n] != NULL)
        n++;
    return n;
}

static void block_kats(const bsemb_kat *kats, size_t count)
{
    for (size_t s = 0; s < count; s++) {
        const bsemb_kat *k = &kats[s];
        const char *name = bsemb_kat_text(k, "Cipher");
        const char *iters = bsemb_kat_text(k, "Iterations");
        size_t kl = 0, pl = 0, cl = 0;
        const uint8_t *key = bsemb_kat_bytes(k, "Key", &kl);
        const uint8_t *pt = bsemb_kat_bytes(k, "Plaintext", &pl);
        const uint8_t *ct = bsemb_kat_bytes(k, "Ciphertext", &cl);
        if (name == NULL) {
            fail(k->file, k->line, "stanza without a cipher");
            continue;
        }
        /* rijndael256-gcm.kat also holds GCM and field stanzas: only block ciphers here */
        if (bs_ref_by_name(name) == NULL && bs_block_cipher_by_name(name) == NULL)
            continue;
        if (key == NULL || pt == NULL || ct == NULL) {
            fail(k->file, k->line, "incomplete stanza");
            continue;
        }
        long n = iters ? strtol(iters, NULL, 10) : 1;
        bs_ref_encrypt_fn ref = bs_ref_by_name(name);
        if (ref != NULL) {
            uint8_t slow[BS_BLOCK_MAX];
            memcpy(slow, pt, pl);
            for (long i = 0; i < n; i++)
                ref(key, slow, slow);
            check_eq(slow, ct, cl, k->file, k->line, "reference differs from the known answer");
        }
        for (size_t ci = 0; bs_block_ciphers[ci] != NULL; ci++) {
            const bs_block_cipher *c = bs_block_ciphers[ci];
            if (strcmp(c->name, name) != 0)
                continue;
            if (kl != c->key_len || pl != c->block_len || cl != c->block_len) {
                fail(k->file, k->line, "key or block length does not match the core");
                continue;
            }
            uint8_t fast[BS_BLOCK_MAX];
            c->set_key(&ks, key);
            memcpy(fast, pt, pl);
            for (long i = 0; i < n; i++)
                c->encrypt(&ks, fast, fast, 1);
            checks++;
            if (memcmp(fast, ct, cl) != 0) {
                printf("  %s (%s)\n", c->name, c->impl);
                fail(k->file, k->line, "core differs from the known answer");
            }
            if (n == 1) {
                /* the same block in every lane of a full pass, and one more */
                size_t nb = c->lanes + 1;
                for (size_t i = 0; i < nb; i++)
                    memcpy(buf_in + i * pl, pt, pl);
                c->encrypt(&ks, buf_out, buf_in, nb);
                for (size_t i = 0; i < nb; i++)
                    check_eq(buf_out + i * pl, ct, cl, k->file, k->line, "a lane differs");
            }
            if (ci < sizeof kat_hits / sizeof kat_hits[0])
                kat_hits[ci]++;
        }
    }
}

static void ctr_kats(void)
{
    for (size_t s = 0; s < bsemb_kat_ctr_count; s++) {
        const bsemb_kat *k = &bsemb_kat_ctr[s];
        const char *full = bsemb_kat_text(k, "Cipher");
        size_t kl = 0, il = 0, pl = 0, cl = 0;
        const uint8_t *key = bsemb_kat_bytes(k, "Key", &kl);
        const uint8_t *iv = bsemb_kat_bytes(k, "IV", &il);
        const uint8_t *pt = bsemb_kat_bytes(k, "Plaintext", &pl);
        const uint8_t *ct = bsemb_kat_bytes(k, "Ciphertext", &cl);
        size_t nl = 0;
        const uint8_t *counter = bsemb_kat_bytes(k, "Counter", &nl);
        char name[64];
        if (full == NULL || key == NULL || (iv == NULL && counter == NULL) || pt == NULL ||
            ct == NULL || pl != cl || strlen(full) <= 4 || strlen(full) >= sizeof name ||
            pl > sizeof buf_out) {
            fail(k->file, k->line, "malformed CTR stanza");
            continue;
        }
        strcpy(name, full);
        name[strlen(name) - 4] = 0;
        for (size_t ci = 0; bs_block_ciphers[ci] != NULL; ci++) {
            const bs_block_cipher *c = bs_block_ciphers[ci];
            if (strcmp(c->name, name) != 0)
                continue;
            checks++;
            if (counter != NULL) {
                /* a whole first counter block (a carry no IV reaches): the stateless keystream */
                if (kl != c->key_len || nl != c->block_len) {
                    fail(k->file, k->line, "key or counter length does not match the core");
                    continue;
                }
                c->set_key(&ks, key);
                bs_ctr_keystream(c, &ks, counter, (pl + c->block_len - 1) / c->block_len, buf_tmp);
                for (size_t i = 0; i < pl; i++)
                    buf_out[i] = pt[i] ^ buf_tmp[i];
                check_eq(buf_out, ct, cl, k->file, k->line,
                         "keystream differs from the known answer");
                continue;
            }
            if (bs_ctr_set_key(&ctr_a, c, key, kl) != BS_OK ||
                bs_ctr_set_iv(&ctr_a, iv, il) != BS_OK ||
                bs_ctr_crypt(&ctr_a, buf_out, pt, pl) != BS_OK) {
                fail(k->file, k->line, "CTR call failed");
                continue;
            }
            check_eq(buf_out, ct, cl, k->file, k->line, "CTR differs from the known answer");
            /* the same stream one byte at a time */
            bs_ctr_set_key(&ctr_a, c, key, kl);
            bs_ctr_set_iv(&ctr_a, iv, il);
            for (size_t i = 0; i < pl; i++)
                bs_ctr_crypt(&ctr_a, buf_out + i, pt + i, 1);
            check_eq(buf_out, ct, cl, k->file, k->line, "byte-wise CTR differs");
        }
    }
}

/* A long stream in one call, in random pieces, and through the reference must agree. */
static void ctr_split(const bs_block_cipher *c)
{
    uint8_t key[BS_KEY_MAX], iv[BS_BLOCK_MAX];
    size_t bl = c->block_len, il = bs_ctr_iv_len(c);
    size_t len = 3 * c->lanes * bl + bl / 2 + 3;
    if (len > sizeof buf_in)
        len = sizeof buf_in;
    rng_fill(key, c->key_len);
    rng_fill(iv, il);
    iv[il - 1] = 0xfe; /* the counter carries into the next byte within the stream */
    rng_fill(buf_in, len);
    bs_ctr_set_key(&ctr_a, c, key, c->key_len);
    bs_ctr_set_iv(&ctr_a, iv, il);
    bs_ctr_crypt(&ctr_a, buf_out, buf_in, len);
    bs_ctr_set_key(&ctr_b, c, key, c->key_len);
    bs_ctr_set_iv(&ctr_b, iv, il);
    for (size_t off = 0; off < len;) {
        size_t piece = rng() % (2 * bl + 2);
        if (piece > len - off)
            piece = len - off;
        if (bs_ctr_crypt(&ctr_b, buf_tmp + off, buf_in + off, piece) != BS_OK) {
            fail(c->name, 0, "split CTR call failed");
            return;
        }
        off += piece;
    }
    check_eq(buf_tmp, buf_out, len, c->name, 0, "split CTR stream differs from one call");
    if (bs_ref_by_name(c->name) != NULL) {
        bs_ref_ctr(c->name, key, iv, buf_in, buf_ref, len);
        check_eq(buf_out, buf_ref, len, c->name, 0, "CTR differs from the reference");
    }
}

/*
 * bs_keystream_xor (word-wise on the MCUs) at every alignment of out, in and the keystream
 * modulo 4, in place too, for lengths around its 4- and 16-byte steps: the bytes are in ^ ks,
 * and the 16 bytes either side of out are untouched.
 */
static void keystream_xor_checks(void)
{
    static const size_t lens[] = {0, 1, 3, 4, 5, 15, 16, 17, 19, 31, 32, 35, 48, 67};
    enum { GUARD = 16 };
    unsigned cases = 0;
    for (unsigned a = 0; a < 4 * 4 * 4 * 2; a++) {
        const unsigned oa = a % 4, ia = a / 4 % 4, ka = a / 16 % 4, in_place = a / 64;
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            const size_t n = lens[li];
            uint8_t *out = buf_out + GUARD + oa;
            const uint8_t *in = in_place ? out : buf_in + ia, *ksb = buf_ref + ka;
            rng_fill(buf_out, n + 2 * GUARD + 4);
            rng_fill(buf_in, n + 4);
            rng_fill(buf_ref, n + 4);
            memcpy(buf_tmp, buf_out, n + 2 * GUARD + 4);
            for (size_t i = 0; i < n; i++)
                buf_tmp[GUARD + oa + i] = in[i] ^ ksb[i];
            bs_keystream_xor(out, in, ksb, n);
            check_eq(buf_out, buf_tmp, n + 2 * GUARD + 4, "keystream_xor", (int)a,
                     "out differs from in ^ ks, or a byte beside it changed");
            cases++;
        }
    }
    printf("keystream XOR: %u cases (64 alignments, in place and not)\n", cases);
}

#ifdef BS_HAVE_AES
static bs_aes_face_ctx face;
static bs_aes128_masked_key masked_key;

static void masked_rng(void *ctx, uint32_t *out, size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        out[i] = rng();
}

/*
 * The first-order masked AES-128 and AES-256, both variants (aes_masked.h: the default and the
 * value-model one, on the same key shares): every AES-128 / AES-256 known answer of
 * block.kat in both blocks of a call, then random keys and blocks against the reference;
 * randomness from the fixed-seed xorshift32 above (a board would use its TRNG).
 */
static bs_aes256_masked_key masked_key256;

static void aes_masked_checks(void)
{
    unsigned kats = 0, kats256 = 0;
    for (size_t s = 0; s < bsemb_kat_block_count; s++) {
        const bsemb_kat *k = &bsemb_kat_block[s];
        const char *name = bsemb_kat_text(k, "Cipher");
        size_t kl = 0, pl = 0, cl = 0;
        const uint8_t *key = bsemb_kat_bytes(k, "Key", &kl);
        const uint8_t *pt = bsemb_kat_bytes(k, "Plaintext", &pl);
        const uint8_t *ct = bsemb_kat_bytes(k, "Ciphertext", &cl);
        if (name == NULL || bsemb_kat_text(k, "Iterations"))
            continue;
        const int is128 = strcmp(name, "AES-128") == 0, is256 = strcmp(name, "AES-256") == 0;
        if (!is128 && !is256)
            continue;
        uint8_t in[32], out[32];
        memcpy(in, pt, 16);
        memcpy(in + 16, pt, 16);
        uint8_t outv[32];
        if (is128) {
            bs_aes128_masked_set_key(&masked_key, key, masked_rng, NULL);
            bs_aes128_masked_2blocks(&masked_key, out, in, masked_rng, NULL);
            bs_aes128_maskedv_2blocks(&masked_key, outv, in, masked_rng, NULL);
            kats++;
        } else {
            bs_aes256_masked_set_key(&masked_key256, key, masked_rng, NULL);
            bs_aes256_masked_2blocks(&masked_key256, out, in, masked_rng, NULL);
            bs_aes256_maskedv_2blocks(&masked_key256, outv, in, masked_rng, NULL);
            kats256++;
        }
        check_eq(out, ct, 16, k->file, k->line, "masked AES differs (block 0)");
        check_eq(out + 16, ct, 16, k->file, k->line, "masked AES differs (block 1)");
        check_eq(outv, ct, 16, k->file, k->line, "masked AES (value model) differs (block 0)");
        check_eq(outv + 16, ct, 16, k->file, k->line, "masked AES (value model) differs (block 1)");
    }
    if (kats == 0 || kats256 == 0)
        fail("AES masked", 0, "no known answer ran");
    for (int i = 0; i < 16; i++) {
        uint8_t key[32], in[32], out[32], ref[32];
        rng_fill(key, 32);
        rng_fill(in, 32);
        bs_ref_aes128_encrypt(key, in, ref);
        bs_ref_aes128_encrypt(key, in + 16, ref + 16);
        bs_aes128_masked_set_key(&masked_key, key, masked_rng, NULL);
        bs_aes128_masked_2blocks(&masked_key, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-128 masked", i, "masked AES-128 differs from the reference");
        bs_aes128_maskedv_2blocks(&masked_key, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-128 masked32v", i,
                 "masked AES-128 (value model) differs from the reference");
        bs_aes128_maskedv_set_key(&masked_key, key, masked_rng, NULL);
        bs_aes128_maskedv_2blocks(&masked_key, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-128 masked32v set_key", i,
                 "masked AES-128 (value-model key setup) differs from the reference");
        bs_aes128_masked_set_key_dom(&masked_key, key, masked_rng, NULL);
        bs_aes128_masked_2blocks(&masked_key, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-128 masked DOM set_key", i,
                 "masked AES-128 (DOM key setup) differs from the reference");
        bs_ref_aes256_encrypt(key, in, ref);
        bs_ref_aes256_encrypt(key, in + 16, ref + 16);
        bs_aes256_masked_set_key(&masked_key256, key, masked_rng, NULL);
        bs_aes256_masked_2blocks(&masked_key256, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-256 masked", i, "masked AES-256 differs from the reference");
        bs_aes256_maskedv_2blocks(&masked_key256, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-256 masked32v", i,
                 "masked AES-256 (value model) differs from the reference");
        bs_aes256_maskedv_set_key(&masked_key256, key, masked_rng, NULL);
        bs_aes256_maskedv_2blocks(&masked_key256, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-256 masked32v set_key", i,
                 "masked AES-256 (value-model key setup) differs from the reference");
        bs_aes256_masked_set_key_dom(&masked_key256, key, masked_rng, NULL);
        bs_aes256_masked_2blocks(&masked_key256, out, in, masked_rng, NULL);
        check_eq(out, ref, 32, "AES-256 masked DOM set_key", i,
                 "masked AES-256 (DOM key setup) differs from the reference");
    }
    bs_aes128_masked_clear(&masked_key);
    bs_aes256_masked_clear(&masked_key256);
    printf("AES masked (default and value-model variants): %u AES-128 and %u AES-256 known "
           "answers, 16 random cases each\n",
           kats, kats256);
}

/*
 * AES-CTR with FACE caching against plain CTR over the same core: streams that carry into
 * counter bytes 14, 13, 7 and 0 (the cached ones) inside a cached epoch, in random pieces.
 */
static void aes_face_checks(void)
{
    static const unsigned positions[] = {14, 13, 7, 0};
    unsigned long refreshes = 0;
    for (size_t key_len = 16; key_len <= 32; key_len += 16) {
        const bs_block_cipher *c = key_len == 16 ? &bs_aes128_fix32 : &bs_aes256_fix32;
        for (size_t pi = 0; pi < sizeof positions / sizeof positions[0]; pi++) {
            unsigned p = positions[pi];
            uint8_t key[32], iv[16];
            size_t len = 16 * (290 + rng() % 80) + rng() % 16;
            if (len > sizeof buf_in)
                len = sizeof buf_in;
            rng_fill(key, key_len);
            rng_fill(iv, 16);
            for (unsigned i = p + 1; i < 15; i++)
                iv[i] = 0xff;
            if (iv[p] == 0xff)
                iv[p] = 0x3c;
            iv[15] = (uint8_t)(0xf0 + (rng() & 7));
            rng_fill(buf_in, len);
            bs_ctr_set_key(&ctr_a, c, key, key_len);
            bs_ctr_set_iv(&ctr_a, iv, 16);
            bs_ctr_crypt(&ctr_a, buf_out, buf_in, len);
            bs_aes_face_set_key(&face, key, key_len);
            bs_aes_face_set_iv(&face, iv, 16);
            for (size_t off = 0; off < len;) {
                size_t piece = (rng() & 3) == 0 ? rng() % 40 : rng() % (len + 1);
                if (piece > len - off)
                    piece = len - off;
                if (bs_aes_face_crypt(&face, buf_tmp + off, buf_in + off, piece) != BS_OK) {
                    fail("AES FACE", (int)p, "FACE CTR call failed");
                    return;
                }
                off += piece;
            }
            check_eq(buf_tmp, buf_out, len, "AES FACE", (int)p, "FACE CTR differs from plain CTR");
            refreshes += face.refreshes;
        }
    }
    checks++;
    if (refreshes < 8)
        fail("AES FACE", 0, "the cached path did not run");
    printf("AES-CTR FACE: 8 streams equal to plain CTR, %lu epochs cached\n", refreshes);
    /* the keystream alone (as GCM takes it) into out at every alignment (the RV32I assembly
     * stores words: an unaligned out goes through a buffer), against the core on the counters */
    for (unsigned oa = 0; oa < 4; oa++) {
        uint8_t key[16], counter[16];
        enum { NB = 100 };
        rng_fill(key, 16);
        rng_fill(counter, 15);
        counter[15] = (uint8_t)(0x10 + oa);
        memcpy(buf_ref, counter, 16);
        for (unsigned b = 1; b < NB; b++) {
            memcpy(buf_ref + 16 * b, buf_ref + 16 * (b - 1), 16);
            bs_ctr_add(buf_ref + 16 * b, 16, 1);
        }
        bs_aes128_fix32.set_key(&ks, key);
        bs_aes128_fix32.encrypt(&ks, buf_ref, buf_ref, NB);
        bs_aes_face_set_key(&face, key, 16);
        bs_aes_face_keystream(&face, counter, NB, NB, 0, buf_tmp + oa);
        check_eq(buf_tmp + oa, buf_ref, 16 * NB, "AES FACE", (int)oa,
                 "FACE keystream differs from the core at this alignment of out");
        if (face.refreshes != 1)
            fail("AES FACE", (int)oa, "the keystream did not take the cached path");
    }
    printf("AES-CTR FACE: keystream at 4 alignments of out\n");
    bs_aes_face_clear(&face);
}
#endif

/* A GCM stanza's fields (NULL where one is missing) with their lengths, and its Result:
 * TAG_MISMATCH (must_fail: the tag must be refused), IV_REFUSED (its empty IV must be). */
typedef struct {
    const uint8_t *key, *iv, *aad, *pt, *ct, *tag;
    size_t kl, il, al, pl, cl, tl;
    int must_fail, iv_refused;
} gcm_stanza;

static void gcm_stanza_read(const bsemb_kat *k, gcm_stanza *v)
{
    *v = (gcm_stanza){0};
    v->key = bsemb_kat_bytes(k, "Key", &v->kl);
    v->iv = bsemb_kat_bytes(k, "IV", &v->il);
    v->aad = bsemb_kat_bytes(k, "AAD", &v->al);
    v->pt = bsemb_kat_bytes(k, "Plaintext", &v->pl);
    v->ct = bsemb_kat_bytes(k, "Ciphertext", &v->cl);
    v->tag = bsemb_kat_bytes(k, "Tag", &v->tl);
    const char *result = bsemb_kat_text(k, "Result");
    v->must_fail = result != NULL && strcmp(result, "TAG_MISMATCH") == 0;
    v->iv_refused = result != NULL && strcmp(result, "IV_REFUSED") == 0;
}

#ifdef BS_HAVE_AES
/*
 * The fixsliced and semi-fixsliced cores at every alignment of input and output (the RV32I
 * assembly takes word-aligned blocks and the C copies the others through a buffer; the Thumb-2
 * reads and writes them with single LDR/STR): five blocks, an odd last one included, against
 * the byte-wise reference.
 */
static void aes_align_checks(void)
{
    static const bs_block_cipher *const cores[] = {&bs_aes128_fix32, &bs_aes256_fix32,
                                                   &bs_aes128_semifix32, &bs_aes256_semifix32};
    for (size_t k = 0; k < sizeof cores / sizeof cores[0]; k++) {
        const bs_block_cipher *c = cores[k];
        const size_t key_len = c->key_len;
        void (*slow)(const uint8_t *, const uint8_t *, uint8_t *) =
            key_len == 16 ? bs_ref_aes128_encrypt : bs_ref_aes256_encrypt;
        uint8_t key[32], ref[80];
        rng_fill(key, key_len);
        rng_fill(buf_in, 84);
        c->set_key(&ks, key);
        for (unsigned ia = 0; ia < 4; ia++) {
            for (unsigned b = 0; b < 5; b++)
                slow(key, buf_in + ia + 16 * b, ref + 16 * b);
            for (unsigned oa = 0; oa < 4; oa++) {
                c->encrypt(&ks, buf_out + oa, buf_in + ia, 5);
                checks++;
                check_eq(buf_out + oa, ref, 80, c->name, (int)(4 * ia + oa),
                         "the core differs from the reference at this alignment");
            }
        }
    }
    printf("AES fix32 and semifix32: 4 x 16 alignments of input and output\n");
}

static bs_gcm128_ctx gcm128;

/*
 * AES-GCM: every stanza of a GCM-128 KAT set (the published GCM test cases, gcm128.kat; and
 * Wycheproof's AES-GCM and AES-GMAC vectors) with every AES implementation of the build, each
 * GHASH-128, CTR plain and through FACE: encryption and tag, decryption in pieces, verification.
 * Result TAG_MISMATCH: the vector's tag must be refused; IV_REFUSED: its (empty) IV must be.
 */
static void gcm128_kat_set(const bsemb_kat *kats, size_t count, const char *label,
                           unsigned min_stanzas)
{
    static const bs_ghash128_impl *const impls[] = {&bs_ghash128_ctmul32, &bs_ghash128_ctshift32,
                                                    &bs_ghash128_table4_not_ct};
    for (size_t g = 0; g < sizeof impls / sizeof impls[0]; g++) {
        unsigned ran = 0, runs = 0, failures_before = failures;
        for (int f = 0; f < 2; f++)
            for (size_t s = 0; s < count; s++) {
                const bsemb_kat *k = &kats[s];
                gcm_stanza v;
                gcm_stanza_read(k, &v);
                uint8_t got[16];
                if (v.key == NULL || v.iv == NULL || v.aad == NULL || v.pt == NULL ||
                    v.ct == NULL || v.tag == NULL || v.pl != v.cl || v.pl > sizeof buf_out ||
                    v.tl > 16) {
                    fail(k->file, k->line, "malformed GCM-128 stanza");
                    continue;
                }
                const char *name = v.kl == 16 ? "AES-128" : "AES-256";
                for (size_t a = 0; bs_block_ciphers[a] != NULL; a++) {
                    const bs_block_cipher *aes = bs_block_ciphers[a];
                    if (strcmp(aes->name, name) != 0)
                        continue;
                    int rc = bs_gcm128_set_key(&gcm128, aes, v.key, v.kl);
                    bs_gcm128_set_ghash(&gcm128, impls[g]);
                    if (f) {
                        rc |= bs_aes_face_set_key(&face, v.key, v.kl);
                        rc |= bs_gcm128_set_face(&gcm128, &face);
                    }
                    runs++;
                    checks++;
                    if (v.iv_refused) {
                        if (rc != BS_OK ||
                            bs_gcm128_set_iv(&gcm128, v.iv, v.il) != BS_ERR_IV_LENGTH)
                            fail(k->file, k->line, "GCM-128: an empty IV was not refused");
                        continue;
                    }
                    rc |= bs_gcm128_set_iv(&gcm128, v.iv, v.il);
                    rc |= bs_gcm128_aad(&gcm128, v.aad, v.al);
                    rc |= bs_gcm128_encrypt(&gcm128, buf_out, v.pt, v.pl);
                    rc |= bs_gcm128_tag(&gcm128, got, v.tl);
                    if (rc != BS_OK)
                        fail(k->file, k->line, "GCM-128 encryption call failed");
                    check_eq(buf_out, v.ct, v.cl, k->file, k->line, "GCM-128 ciphertext differs");
                    checks++;
                    if ((memcmp(got, v.tag, v.tl) != 0) != v.must_fail)
                        fail(k->file, k->line, "GCM-128 tag differs");
                    rc = bs_gcm128_set_iv(&gcm128, v.iv, v.il);
                    rc |= bs_gcm128_aad(&gcm128, v.aad, v.al / 2);
                    rc |= bs_gcm128_aad(&gcm128, v.aad + v.al / 2, v.al - v.al / 2);
                    rc |= bs_gcm128_decrypt(&gcm128, buf_tmp, v.ct, v.cl / 3);
                    rc |= bs_gcm128_decrypt(&gcm128, buf_tmp + v.cl / 3, v.ct + v.cl / 3,
                                            v.cl - v.cl / 3);
                    checks++;
                    if (rc != BS_OK)
                        fail(k->file, k->line, "GCM-128 decryption call failed");
                    int vrc = bs_gcm128_verify(&gcm128, v.tag, v.tl);
                    checks++;
                    if (v.must_fail ? vrc != BS_ERR_AUTH : vrc != BS_OK)
                        fail(k->file, k->line,
                             v.must_fail ? "a wrong tag was accepted" : "tag refused");
                    check_eq(buf_tmp, v.pt, v.pl, k->file, k->line, "GCM-128 decryption differs");
                }
                ran++;
            }
        if (ran < 2 * min_stanzas)
            fail(label, 0, "too few GCM-128 stanzas ran");
        if (failures != failures_before)
            printf("  GHASH-128 %s\n", impls[g]->name);
        printf("GHASH-128 %-13s: %u %s stanzas, %u runs (each AES implementation, CTR plain and "
               "FACE)\n",
               impls[g]->name, ran / 2, label, runs);
    }
}

static void gcm128_kats(void)
{
    const bs_ghash128_impl *def = bs_ghash128_default();
    printf("GHASH-128 default: %s%s\n", def->name,
           def->constant_time ? "" : " (not constant-time)");
    gcm128_kat_set(bsemb_kat_gcm128, bsemb_kat_gcm128_count, "gcm128.kat", 13);
    gcm128_kat_set(bsemb_kat_wycheproof_gcm128, bsemb_kat_wycheproof_gcm128_count,
                   "Wycheproof AES-GCM/GMAC", 480);
    bs_gcm128_clear(&gcm128);
    bs_aes_face_clear(&face);
}
#endif

/* Random (key, block count) cases per implementation; under QEMU all of them take seconds. */
#define RANDOM_ROUNDS 200

static void random_vs_reference(const bs_block_cipher *c, unsigned rounds)
{
    bs_ref_encrypt_fn ref = bs_ref_by_name(c->name);
    size_t bl = c->block_len, maxb = sizeof buf_in / bl;
    if (ref == NULL) {
        fail(c->name, 0, "no reference for this core");
        return;
    }
    for (unsigned r = 0; r < rounds; r++) {
        uint8_t key[BS_KEY_MAX], expect[BS_BLOCK_MAX];
        /* 1, 2, 3 blocks, a full pass, a pass and one, then random counts */
        size_t nb = r < 3    ? r + 1
                    : r == 3 ? c->lanes
                    : r == 4 ? c->lanes + 1
                             : 1 + rng() % (c->lanes + 1);
        if (nb > maxb)
            nb = maxb;
        int in_place = (int)(rng() & 1);
        rng_fill(key, c->key_len);
        rng_fill(buf_in, nb * bl);
        memcpy(buf_tmp, buf_in, nb * bl);
        c->set_key(&ks, key);
        uint8_t *out = in_place ? buf_in : buf_out;
        c->encrypt(&ks, out, buf_in, nb);
        for (size_t i = 0; i < nb; i++) {
            ref(key, buf_tmp + i * bl, expect);
            checks++;
            if (memcmp(out + i * bl, expect, bl) != 0) {
                printf("  %s (%s): block %u of %u\n", c->name, c->impl, (unsigned)i, (unsigned)nb);
                fail(c->name, 0, "core differs from the reference on random input");
                return;
            }
        }
    }
}

/*
 * Implementations of one cipher against each other (the Thumb-2 assembly against the C
 * variant, for one), bit for bit on random keys and inputs of 1 to 3 passes and a block.
 */
static void same_name_agree(void)
{
    size_t n = registry_size();
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const bs_block_cipher *a = bs_block_ciphers[i], *b = bs_block_ciphers[j];
            if (strcmp(a->name, b->name) != 0)
                continue;
            size_t bl = a->block_len, maxb = sizeof buf_in / bl;
            for (unsigned r = 0; r < 8; r++) {
                uint8_t key[BS_KEY_MAX];
                size_t nb = 1 + rng() % (3 * (a->lanes > b->lanes ? a->lanes : b->lanes) + 1);
                if (nb > maxb)
                    nb = maxb;
                rng_fill(key, a->key_len);
                rng_fill(buf_in, nb * bl);
                a->set_key(&ks, key);
                a->encrypt(&ks, buf_out, buf_in, nb);
                b->set_key(&ks, key);
                b->encrypt(&ks, buf_ref, buf_in, nb);
                checks++;
                if (memcmp(buf_out, buf_ref, nb * bl) != 0) {
                    printf("  %s: %s and %s differ on %u blocks\n", a->name, a->impl, b->impl,
                           (unsigned)nb);
                    fail(a->name, 0, "two implementations differ");
                    break;
                }
            }
        }
}

static bs_gcm256_ctx gcm;
static uint64_t gf_hkey[BS_GHASH256_HKEY_WORDS];

/* Every GHASH-256 implementation of the registry that runs here. */
#define GHASH_LIST_MAX 16
static size_t ghash_impls(const bs_ghash256_impl *out[GHASH_LIST_MAX])
{
    size_t n = 0;
    for (size_t k = 0; bs_ghash256_impls[k] != NULL && n < GHASH_LIST_MAX; k++)
        if (bs_ghash256_usable(bs_ghash256_impls[k]))
            out[n++] = bs_ghash256_impls[k];
    return n;
}

/* A GF256-MUL stanza: (0 ^ X) * H with H = Y. Returns 1 if the stanza was one. */
static int gf_mul_kat(const bsemb_kat *k, const bs_ghash256_impl *impl)
{
    size_t xl = 0, yl = 0, zl = 0;
    const uint8_t *x = bsemb_kat_bytes(k, "X", &xl), *y = bsemb_kat_bytes(k, "Y", &yl);
    const uint8_t *z = bsemb_kat_bytes(k, "Product", &zl);
    uint8_t acc[32] = {0};
    if (x == NULL || y == NULL || z == NULL || xl != 32 || yl != 32 || zl != 32) {
        fail(k->file, k->line, "malformed GF256-MUL stanza");
        return 0;
    }
    impl->init(gf_hkey, y);
    impl->mul_blocks(gf_hkey, acc, x, 1);
    checks++;
    if (memcmp(acc, z, 32) != 0) {
        printf("  GHASH-256 %s\n", impl->name);
        fail(k->file, k->line, "GHASH-256 product differs");
    }
    return 1;
}

/* A RIJNDAEL-256-GCM stanza with GHASH by impl. Returns 1 if the stanza ran. */
static int gcm_kat(const bsemb_kat *k, const bs_ghash256_impl *impl)
{
    gcm_stanza v;
    gcm_stanza_read(k, &v);
    unsigned failures_before = failures;
    if (v.key == NULL || v.iv == NULL || v.aad == NULL || v.pt == NULL || v.ct == NULL ||
        v.tag == NULL || v.pl != v.cl || v.pl > sizeof buf_out) {
        fail(k->file, k->line, "malformed GCM stanza");
        return 0;
    }
    uint8_t got[32];
    if (!v.must_fail) {
        int rc = bs_gcm256_set_key(&gcm, bs_block_cipher_by_name("RIJNDAEL-256"), v.key, v.kl);
        bs_gcm256_set_ghash(&gcm, impl);
        rc |= bs_gcm256_set_iv(&gcm, v.iv, v.il);
        rc |= bs_gcm256_aad(&gcm, v.aad, v.al);
        rc |= bs_gcm256_encrypt(&gcm, buf_out, v.pt, v.pl);
        rc |= bs_gcm256_tag(&gcm, got, v.tl);
        checks++;
        if (rc != BS_OK)
            fail(k->file, k->line, "GCM encryption call failed");
        check_eq(buf_out, v.ct, v.cl, k->file, k->line, "GCM ciphertext differs");
        check_eq(got, v.tag, v.tl, k->file, k->line, "GCM tag differs");
    }
    /* decryption in two pieces, AAD in two pieces */
    int rc = bs_gcm256_set_key(&gcm, bs_block_cipher_by_name("RIJNDAEL-256"), v.key, v.kl);
    bs_gcm256_set_ghash(&gcm, impl);
    rc |= bs_gcm256_set_iv(&gcm, v.iv, v.il);
    rc |= bs_gcm256_aad(&gcm, v.aad, v.al / 2);
    rc |= bs_gcm256_aad(&gcm, v.aad + v.al / 2, v.al - v.al / 2);
    rc |= bs_gcm256_decrypt(&gcm, buf_out, v.ct, v.cl / 3);
    rc |= bs_gcm256_decrypt(&gcm, buf_out + v.cl / 3, v.ct + v.cl / 3, v.cl - v.cl / 3);
    checks++;
    if (rc != BS_OK)
        fail(k->file, k->line, "GCM decryption call failed");
    int vrc = bs_gcm256_verify(&gcm, v.tag, v.tl);
    checks++;
    if (v.must_fail ? vrc != BS_ERR_AUTH : vrc != BS_OK)
        fail(k->file, k->line, v.must_fail ? "a wrong tag was accepted" : "tag refused");
    if (!v.must_fail)
        check_eq(buf_out, v.pt, v.pl, k->file, k->line, "GCM decryption differs");
    bs_gcm256_clear(&gcm);
    if (failures != failures_before)
        printf("  GHASH-256 %s\n", impl->name);
    return 1;
}

static void gcm_kats(void)
{
    const bs_ghash256_impl *impls[GHASH_LIST_MAX];
    size_t nimpl = ghash_impls(impls);
    const bs_ghash256_impl *def = bs_ghash256_default();
    printf("GHASH-256 default: %s%s\n", def != NULL ? def->name : "(none)",
           def != NULL && !def->constant_time ? " (not constant-time)" : "");
    if (def == NULL)
        fail("gcm256", 0, "no default GHASH-256");
    for (size_t g = 0; g < nimpl; g++) {
        unsigned nmul = 0, ngcm = 0;
        for (size_t s = 0; s < bsemb_kat_gcm_count; s++) {
            const bsemb_kat *k = &bsemb_kat_gcm[s];
            const char *name = bsemb_kat_text(k, "Cipher");
            if (name != NULL && strcmp(name, "GF256-MUL") == 0)
                nmul += (unsigned)gf_mul_kat(k, impls[g]);
            else if (name != NULL && strcmp(name, "RIJNDAEL-256-GCM") == 0)
                ngcm += (unsigned)gcm_kat(k, impls[g]);
        }
        if (nmul == 0)
            fail("rijndael256-gcm.kat", 0, "no GF256-MUL stanza ran");
        if (ngcm < 8)
            fail("rijndael256-gcm.kat", 0, "too few GCM stanzas ran");
        printf("GHASH-256 %-9s: %u field products, %u GCM stanzas\n", impls[g]->name, nmul, ngcm);
    }
}

/*
 * Every cipher whose reference is linked in has an implementation in the registry; a build
 * without the 64-lane cores (BSEMB_MCU_ONLY) lists none of them.
 */
static void registry_coverage(void)
{
    static const char *const names[] = {"PRESENT-80",   "PRESENT-128", "GIFT-64", "GIFT-128",
                                        "RIJNDAEL-256", "AES-128",     "AES-256"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        checks++;
        if (bs_ref_by_name(names[i]) != NULL && bs_block_cipher_by_name(names[i]) == NULL)
            fail(names[i], 0, "reference linked in, but no implementation in the registry");
    }
#ifdef BSEMB_MCU_ONLY
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        checks++;
        if (strcmp(bs_block_ciphers[i]->impl, "bs64") == 0)
            fail(bs_block_ciphers[i]->name, 0, "64-lane core in an MCU-only build");
    }
#endif
}

int main(void)
{
    size_t nimpl = registry_size();
    printf("bitslice firmware tests: %u implementations\n", (unsigned)nimpl);
    printf("sizes: bs_key_schedule %u, bs_ctr_ctx %u", (unsigned)sizeof(bs_key_schedule),
           (unsigned)sizeof(bs_ctr_ctx));
    printf(", bs_gcm256_ctx %u", (unsigned)sizeof(bs_gcm256_ctx));
    printf(" bytes\n");
    if (nimpl == 0 || nimpl > sizeof kat_hits / sizeof kat_hits[0]) {
        printf("FAIL: unexpected number of implementations\n");
        return 1;
    }
    registry_coverage();
    block_kats(bsemb_kat_block, bsemb_kat_block_count);
    block_kats(bsemb_kat_gcm, bsemb_kat_gcm_count); /* its RIJNDAEL-256 intermediates */
    for (size_t i = 0; i < nimpl; i++) {
        const bs_block_cipher *c = bs_block_ciphers[i];
        printf("%-13s %-6s %2u lanes: %u known answers\n", c->name, c->impl, c->lanes, kat_hits[i]);
        if (kat_hits[i] == 0)
            fail(c->name, 0, "no known answer for this implementation");
    }
    ctr_kats();
    printf("CTR known answers done\n");
    for (size_t i = 0; i < nimpl; i++) {
        ctr_split(bs_block_ciphers[i]);
        random_vs_reference(bs_block_ciphers[i], RANDOM_ROUNDS);
        printf("%-13s %-6s split CTR and random cross-check done\n", bs_block_ciphers[i]->name,
               bs_block_ciphers[i]->impl);
    }
    same_name_agree();
    printf("implementations of one cipher agree with each other: done\n");
    keystream_xor_checks();
#ifdef BS_HAVE_AES
    aes_face_checks();
    aes_align_checks();
    aes_masked_checks();
    gcm128_kats();
#endif
    gcm_kats();
    printf("%u checks, %u failures: %s\n", checks, failures, failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
