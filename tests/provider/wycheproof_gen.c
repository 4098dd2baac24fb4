/*
 * wycheproof_gen: writes tests/kat/wycheproof/rijndael256_gcm_test.json, RIJNDAEL-256-GCM known
 * answers in Wycheproof's test-vector format (schema aead_test_schema_v1.json: test groups by IV,
 * key and tag size; tests with tcId, comment, flags, key, iv, aad, msg, ct, tag, result), every
 * answer computed by the project's reference code (core/ref: bs_ref_gcm256_encrypt) from inputs
 * drawn from a fixed-seed generator, so that the file is reproducible: the provider suite checks
 * that this program's output is the committed file, and runs the file through EVP
 * (evp_wycheproof.c).
 *
 * Flags, as Wycheproof's AES-GCM files use them: Ktv (the vectors of docs/spec/rijndael256-gcm.md,
 * tests/kat/rijndael256-gcm.kat, recomputed and compared), Pseudorandom, SmallIv (IV under the 28
 * bytes of the direct J0), LongIv (over 28 bytes), ZeroLengthIv (refused: invalid), CounterWrap
 * (an IV whose J0 = GHASH(IV) was solved for a counter word just below 2^32, so that inc32 wraps
 * inside the message), ModifiedTag (a valid message with one bit of the tag flipped, at every
 * byte, bit 0 and bit 7: invalid), SpecialCase (block-boundary lengths, the stitched loop's
 * 16-block batches, all-zero and all-one keys and data).
 *
 *   wycheproof_gen KATFILE > rijndael256_gcm_test.json
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kat.h"
#include "ref/ref.h"

#define MAX_MSG 1600
#define MAX_TESTS 512
#define MAX_GROUPS 64

typedef struct tc {
    const char *comment, *flags[3];
    uint8_t key[32], iv[256], aad[64], msg[MAX_MSG], ct[MAX_MSG], tag[32];
    size_t iv_len, aad_len, msg_len, tag_len;
    int valid;
} tc;

static tc tests[MAX_TESTS];
static size_t ntests;
static uint64_t rng = 0x5279636865707266ull; /* fixed: the file is reproducible */

static uint8_t next_byte(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)(rng >> 32);
}

static void fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = next_byte();
}

/* A test over the given inputs, answered by the reference; its tag cut to tag_len. */
static tc *add(const char *comment, const char *flag, const uint8_t key[32], const uint8_t *iv,
               size_t iv_len, const uint8_t *aad, size_t aad_len, const uint8_t *msg,
               size_t msg_len, size_t tag_len)
{
    if (ntests == MAX_TESTS || msg_len > MAX_MSG || aad_len > 64 || iv_len > 256) {
        fprintf(stderr, "wycheproof_gen: too many or too large tests\n");
        exit(1);
    }
    tc *t = &tests[ntests++];
    memset(t, 0, sizeof *t);
    t->comment = comment;
    t->flags[0] = flag;
    memcpy(t->key, key, 32);
    memcpy(t->iv, iv, iv_len);
    memcpy(t->aad, aad, aad_len);
    memcpy(t->msg, msg, msg_len);
    t->iv_len = iv_len;
    t->aad_len = aad_len;
    t->msg_len = msg_len;
    t->tag_len = tag_len;
    t->valid = 1;
    if (iv_len > 0) {
        uint8_t full[32];
        bs_ref_gcm256_encrypt(key, iv, iv_len, aad, aad_len, msg, msg_len, t->ct, full);
        memcpy(t->tag, full, tag_len);
    }
    return t;
}

/* A random test: random key, IV, AAD and message of the given lengths. */
static tc *add_random(const char *comment, const char *flag, size_t iv_len, size_t aad_len,
                      size_t msg_len, size_t tag_len)
{
    uint8_t key[32], iv[256], aad[64], msg[MAX_MSG];
    fill(key, 32);
    fill(iv, iv_len);
    fill(aad, aad_len);
    fill(msg, msg_len);
    return add(comment, flag, key, iv, iv_len, aad, aad_len, msg, msg_len, tag_len);
}

/* GF(2^256) of docs/spec/rijndael256-gcm.md: the identity (x^0, the first bit) and inverse. */
static void gf_inverse(const uint8_t h[32], uint8_t out[32])
{
    uint8_t s[32], r[32] = {0x80};
    memcpy(s, h, 32);
    for (int i = 1; i < 256; i++) { /* h^(2^256 - 2) = prod of h^(2^i), i = 1..255 */
        bs_ref_gf256_mul(s, s, s);
        bs_ref_gf256_mul(r, s, r);
    }
    memcpy(out, r, 32);
}

/*
 * A 32-byte IV whose J0 is the given block: J0 = ((IV * H) ^ L) * H with L the lengths block
 * (0, 256 bits), so IV = ((J0 * H^-1) ^ L) * H^-1. Checked forward.
 */
static void iv_for_j0(const uint8_t key[32], const uint8_t j0[32], uint8_t iv[32])
{
    uint8_t zero[32] = {0}, h[32], hi[32], l[32] = {0}, y[32];
    bs_ref_rijndael256_encrypt(key, zero, h);
    gf_inverse(h, hi);
    l[30] = 0x01; /* 256 bits, big-endian, ending the block */
    bs_ref_gf256_mul(j0, hi, y);
    for (int i = 0; i < 32; i++)
        y[i] ^= l[i];
    bs_ref_gf256_mul(y, hi, iv);
    /* Forward: GHASH_H(IV || L) must be J0. */
    bs_ref_gf256_mul(iv, h, y);
    for (int i = 0; i < 32; i++)
        y[i] ^= l[i];
    bs_ref_gf256_mul(y, h, y);
    if (memcmp(y, j0, 32) != 0) {
        fprintf(stderr, "wycheproof_gen: the IV solved for J0 does not give it\n");
        exit(1);
    }
}

static void print_hex(const uint8_t *p, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
    putchar('"');
}

static void ktv(const char *katfile)
{
    bs_kat_reader rd;
    bs_kat k;
    int rc;
    if (bs_kat_open(&rd, katfile) != 0) {
        fprintf(stderr, "wycheproof_gen: cannot open %s\n", katfile);
        exit(1);
    }
    while ((rc = bs_kat_next(&rd, &k)) == 1) {
        const char *name = bs_kat_text(&k, "Cipher");
        if (name == NULL || strcmp(name, "RIJNDAEL-256-GCM") != 0) {
            bs_kat_free(&k); /* the field stanzas */
            continue;
        }
        size_t kl, il, al, pl, cl, tl;
        const uint8_t *key = bs_kat_bytes(&k, "Key", &kl), *iv = bs_kat_bytes(&k, "IV", &il);
        const uint8_t *aad = bs_kat_bytes(&k, "AAD", &al), *pt = bs_kat_bytes(&k, "Plaintext", &pl);
        const uint8_t *ct = bs_kat_bytes(&k, "Ciphertext", &cl),
                      *tag = bs_kat_bytes(&k, "Tag", &tl);
        const char *result = bs_kat_text(&k, "Result");
        int bad = result != NULL && strcmp(result, "TAG_MISMATCH") == 0;
        if (key == NULL || iv == NULL || kl != 32 || pl != cl || al > 64) {
            fprintf(stderr, "wycheproof_gen: %s:%d: unexpected stanza\n", katfile, k.line);
            exit(1);
        }
        tc *t =
            add(bad ? "docs/spec/rijndael256-gcm.md, a wrong tag" : "docs/spec/rijndael256-gcm.md",
                "Ktv", key, iv, il, aad, al, pt, pl, tl);
        if (memcmp(t->ct, ct, cl) != 0 || (!bad && memcmp(t->tag, tag, tl) != 0)) {
            fprintf(stderr, "wycheproof_gen: %s:%d: the reference disagrees\n", katfile, k.line);
            exit(1);
        }
        if (bad) {
            memcpy(t->tag, tag, tl);
            t->valid = 0;
            t->flags[1] = "ModifiedTag";
        }
        bs_kat_free(&k);
    }
    bs_kat_close(&rd);
    if (rc < 0)
        exit(1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: wycheproof_gen KATFILE\n");
        return 2;
    }
    ktv(argv[1]);

    /* Pseudorandom at the direct J0 (28-byte IV), every tag length, several message lengths. */
    static const size_t tags[] = {16, 20, 24, 28, 32};
    static const size_t lens[] = {0, 1, 16, 31, 32, 33, 100};
    for (size_t t = 0; t < 5; t++)
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
            add_random("", "Pseudorandom", 28, l % 3 == 0 ? 0 : 20, lens[l], tags[t]);

    /* IV lengths other than 28: GHASH makes J0. */
    static const size_t small_iv[] = {1, 8, 12, 16, 24, 27};
    static const size_t long_iv[] = {29, 32, 33, 64, 100, 128, 255, 256};
    for (size_t i = 0; i < sizeof small_iv / sizeof small_iv[0]; i++)
        add_random("IV shorter than 28 bytes", "SmallIv", small_iv[i], 16, 40, 32);
    for (size_t i = 0; i < sizeof long_iv / sizeof long_iv[0]; i++)
        add_random("IV longer than 28 bytes", "LongIv", long_iv[i], 16, 40, 32);

    /* No IV: refused, whatever the rest. */
    for (int i = 0; i < 2; i++) {
        tc *t = add_random("empty IV", "ZeroLengthIv", 0, 16, i == 0 ? 0 : 32, 32);
        fill(t->ct, t->msg_len); /* nothing is a right answer */
        fill(t->tag, t->tag_len);
        t->valid = 0;
    }

    /* The counter word of J0 just below 2^32: inc32 wraps inside the message. */
    static const struct {
        uint32_t word;
        size_t len;
        const char *comment;
    } wraps[] = {
        {0xfffffffeu, 64, "J0 counter 0xfffffffe: the second block's counter is 0"},
        {0xffffffffu, 96, "J0 counter 0xffffffff: the first block's counter is 0"},
        {0xfffffff8u, 40 * 32 + 5, "J0 counter 0xfffffff8: the wrap inside a 16-block batch"},
        {0xfffffff0u, 33 * 32, "J0 counter 0xfffffff0: the wrap at the end of a 16-block batch"},
    };
    for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
        uint8_t key[32], j0[32], iv[32], aad[16], msg[MAX_MSG];
        fill(key, 32);
        fill(j0, 32);
        j0[28] = (uint8_t)(wraps[w].word >> 24);
        j0[29] = (uint8_t)(wraps[w].word >> 16);
        j0[30] = (uint8_t)(wraps[w].word >> 8);
        j0[31] = (uint8_t)wraps[w].word;
        iv_for_j0(key, j0, iv);
        fill(aad, sizeof aad);
        fill(msg, wraps[w].len);
        add(wraps[w].comment, "CounterWrap", key, iv, 32, aad, sizeof aad, msg, wraps[w].len, 32);
    }

    /* Special cases: block and batch boundaries, all-zero and all-one inputs. */
    static const size_t special[] = {63, 64, 65, 511, 512, 513, 1024, 1025};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        add_random("a block or 16-block batch boundary", "SpecialCase", 28, 13, special[i], 32);
    {
        uint8_t z[64] = {0}, o[64];
        memset(o, 0xff, sizeof o);
        add("all-zero key, IV and data", "SpecialCase", z, z, 28, z, 32, z, 64, 32);
        add("all-one key, IV and data", "SpecialCase", o, o, 28, o, 32, o, 64, 32);
        add("AAD alone", "SpecialCase", o, z, 28, o, 64, z, 0, 32);
    }

    /* A valid message, then its tag with one bit flipped, at every byte (bits 0 and 7). */
    {
        const tc base =
            *add_random("the base of the ModifiedTag tests", "ModifiedTag", 28, 16, 48, 32);
        tests[ntests - 1].flags[0] = "Pseudorandom";
        for (size_t b = 0; b < 32; b++)
            for (int bit = 0; bit < 8; bit += 7) {
                tc *t = &tests[ntests++];
                *t = base;
                t->comment = "one bit of the tag flipped";
                t->flags[0] = "ModifiedTag";
                t->tag[b] ^= (uint8_t)(1u << bit);
                t->valid = 0;
            }
    }

    /* Groups by (IV bits, tag bits), in the order first met. */
    size_t gi[MAX_GROUPS], gt[MAX_GROUPS], ng = 0;
    for (size_t i = 0; i < ntests; i++) {
        size_t g = 0;
        while (g < ng && !(gi[g] == tests[i].iv_len && gt[g] == tests[i].tag_len))
            g++;
        if (g == ng) {
            if (ng == MAX_GROUPS)
                return 1;
            gi[ng] = tests[i].iv_len;
            gt[ng++] = tests[i].tag_len;
        }
    }
    printf("{\n  \"algorithm\" : \"RIJNDAEL-256-GCM\",\n");
    printf("  \"schema\" : \"aead_test_schema_v1.json\",\n");
    printf("  \"generatorVersion\" : \"bitslice tests/provider/wycheproof_gen.c\",\n");
    printf("  \"numberOfTests\" : %zu,\n", ntests);
    printf("  \"header\" : [\n"
           "    \"RIJNDAEL-256-GCM (docs/spec/rijndael256-gcm.md): Rijndael with 256-bit block "
           "and\",\n"
           "    \"key in SP 800-38D GCM over GF(2^256); answers from the project's reference "
           "code.\",\n"
           "    \"Not NIST's wGCM (SP 800-38D Rev. 1 pre-draft), whose field and counter width "
           "are\",\n"
           "    \"not published.\"\n  ],\n");
    printf("  \"notes\" : {\n"
           "    \"CounterWrap\" : {\"bugType\" : \"FUNCTIONALITY\", \"description\" : \"J0's "
           "32-bit counter word wraps inside the message (inc32 modulo 2^32).\"},\n"
           "    \"Ktv\" : {\"bugType\" : \"BASIC\", \"description\" : \"Known test vector of "
           "docs/spec/rijndael256-gcm.md.\"},\n"
           "    \"LongIv\" : {\"bugType\" : \"FUNCTIONALITY\", \"description\" : \"IV longer than "
           "28 bytes: J0 by GHASH.\"},\n"
           "    \"ModifiedTag\" : {\"bugType\" : \"AUTH_BYPASS\", \"description\" : \"The tag is "
           "wrong and must be refused.\"},\n"
           "    \"Pseudorandom\" : {\"bugType\" : \"FUNCTIONALITY\", \"description\" : "
           "\"Pseudorandom inputs.\"},\n"
           "    \"SmallIv\" : {\"bugType\" : \"FUNCTIONALITY\", \"description\" : \"IV shorter "
           "than 28 bytes: J0 by GHASH.\"},\n"
           "    \"SpecialCase\" : {\"bugType\" : \"EDGE_CASE\", \"description\" : \"Block and "
           "batch boundaries, all-zero and all-one inputs.\"},\n"
           "    \"ZeroLengthIv\" : {\"bugType\" : \"AUTH_BYPASS\", \"description\" : \"An empty IV "
           "must be refused.\"}\n"
           "  },\n");
    printf("  \"testGroups\" : [\n");
    for (size_t g = 0; g < ng; g++) {
        printf(
            "    {\n      \"type\" : \"AeadTest\",\n      \"ivSize\" : %zu,\n      \"keySize\" : "
            "256,\n      \"tagSize\" : %zu,\n      \"tests\" : [\n",
            gi[g] * 8, gt[g] * 8);
        int first = 1;
        for (size_t i = 0; i < ntests; i++) {
            const tc *t = &tests[i];
            if (t->iv_len != gi[g] || t->tag_len != gt[g])
                continue;
            printf("%s        {\n          \"tcId\" : %zu,\n          \"comment\" : \"%s\",\n"
                   "          \"flags\" : [",
                   first ? "" : ",\n", i + 1, t->comment);
            for (int f = 0; f < 3 && t->flags[f] != NULL; f++)
                printf("%s\"%s\"", f ? ", " : "", t->flags[f]);
            printf("],\n          \"key\" : ");
            print_hex(t->key, 32);
            printf(",\n          \"iv\" : ");
            print_hex(t->iv, t->iv_len);
            printf(",\n          \"aad\" : ");
            print_hex(t->aad, t->aad_len);
            printf(",\n          \"msg\" : ");
            print_hex(t->msg, t->msg_len);
            printf(",\n          \"ct\" : ");
            print_hex(t->ct, t->msg_len);
            printf(",\n          \"tag\" : ");
            print_hex(t->tag, t->tag_len);
            printf(",\n          \"result\" : \"%s\"\n        }", t->valid ? "valid" : "invalid");
            first = 0;
        }
        printf("\n      ]\n    }%s\n", g + 1 < ng ? "," : "");
    }
    printf("  ]\n}\n");
    return 0;
}
