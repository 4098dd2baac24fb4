/*
 * A user's program (the public OpenSSL API, no header of the library): runs a Wycheproof AEAD
 * test file (aead_test_schema_v1.json; here tests/kat/wycheproof/rijndael256_gcm_test.json) through
 * EVP with the bitslice provider loaded from argv[1]. A "valid" test must encrypt to its ct and
 * tag (the tag cut to the group's tagSize) and decrypt back, whole and in pieces; an "invalid"
 * one must be refused: its decryption fails (a wrong tag), or the IV is refused outright
 * (ZeroLengthIv). The file's numberOfTests must match the tests run, and every flag of the file's
 * notes must have been met, so that a truncated or emptied file fails.
 *
 *   evp_wycheproof PROVIDER_DIR FILE.json
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

/* A small JSON reader: what the schema uses (objects, arrays, strings without escapes but \" and
 * \\, integers, true/false/null). */
typedef struct jv {
    enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } t;
    long num;
    char *str;         /* J_STR */
    struct jv **items; /* J_ARR values, J_OBJ values */
    char **keys;       /* J_OBJ */
    size_t n;
} jv;

static const char *src;
static int bad;

static void ws(void)
{
    while (isspace((unsigned char)*src))
        src++;
}

static jv *parse(void);

static char *parse_str(void)
{
    if (*src != '"') {
        bad = 1;
        return NULL;
    }
    src++;
    size_t cap = 64, n = 0;
    char *s = malloc(cap);
    while (s != NULL && *src && *src != '"') {
        char c = *src++;
        if (c == '\\' && (*src == '"' || *src == '\\' || *src == '/'))
            c = *src++;
        else if (c == '\\') {
            bad = 1;
            break;
        }
        if (n + 2 > cap && (s = realloc(s, cap *= 2)) == NULL)
            break;
        s[n++] = c;
    }
    if (s == NULL || *src != '"') {
        bad = 1;
        free(s);
        return NULL;
    }
    src++;
    s[n] = 0;
    return s;
}

static jv *parse(void)
{
    jv *v = calloc(1, sizeof *v);
    if (v == NULL) {
        bad = 1;
        return NULL;
    }
    ws();
    if (*src == '{' || *src == '[') {
        int obj = *src == '{';
        char close = obj ? '}' : ']';
        v->t = obj ? J_OBJ : J_ARR;
        src++;
        ws();
        while (!bad && *src != close) {
            char *key = NULL;
            if (obj) {
                key = parse_str();
                ws();
                if (*src++ != ':')
                    bad = 1;
            }
            jv *item = parse();
            v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
            v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
            if (v->items == NULL || v->keys == NULL) {
                bad = 1;
                break;
            }
            v->items[v->n] = item;
            v->keys[v->n++] = key;
            ws();
            if (*src == ',')
                src++, ws();
            else if (*src != close)
                bad = 1;
        }
        if (*src == close)
            src++;
    } else if (*src == '"') {
        v->t = J_STR;
        v->str = parse_str();
    } else if (*src == '-' || isdigit((unsigned char)*src)) {
        char *end;
        v->t = J_NUM;
        v->num = strtol(src, &end, 10);
        src = end;
    } else if (strncmp(src, "true", 4) == 0 || strncmp(src, "false", 5) == 0) {
        v->t = J_BOOL;
        v->num = *src == 't';
        src += *src == 't' ? 4 : 5;
    } else if (strncmp(src, "null", 4) == 0) {
        src += 4;
    } else {
        bad = 1;
    }
    return v;
}

static void jv_free(jv *v)
{
    if (v == NULL)
        return;
    for (size_t i = 0; i < v->n; i++) {
        jv_free(v->items[i]);
        free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

static const jv *get(const jv *o, const char *key)
{
    for (size_t i = 0; o != NULL && o->t == J_OBJ && i < o->n; i++)
        if (o->keys[i] != NULL && strcmp(o->keys[i], key) == 0)
            return o->items[i];
    return NULL;
}

/* Hex string member as bytes (malloc'd, at least 1 byte); -1 on error. */
static long hex(const jv *o, const char *key, unsigned char **out)
{
    const jv *v = get(o, key);
    if (v == NULL || v->t != J_STR || strlen(v->str) % 2 != 0)
        return -1;
    size_t n = strlen(v->str) / 2;
    *out = malloc(n + 1);
    for (size_t i = 0; *out != NULL && i < n; i++) {
        unsigned b;
        if (sscanf(v->str + 2 * i, "%2x", &b) != 1)
            return -1;
        (*out)[i] = (unsigned char)b;
    }
    return *out != NULL ? (long)n : -1;
}

/*
 * One AEAD operation in pieces of split bytes (0: whole): returns 1 when EVP accepted it all.
 * Encryption writes out and tag; decryption reads tag.
 */
static int aead(EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv, long ivl,
                const unsigned char *aad, long aadl, const unsigned char *in, long n,
                unsigned char *out, unsigned char *tag, long tagl, size_t split)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = 0, outl;
    if (ctx == NULL || !EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc) ||
        !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)ivl, NULL) ||
        !EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc))
        goto done;
    for (int part = 0; part < 2; part++) {
        const unsigned char *p = part ? in : aad;
        long len = part ? n : aadl, off = 0;
        while (off < len) {
            long k = split == 0 || len - off < (long)split ? len - off : (long)split;
            if (!EVP_CipherUpdate(ctx, part ? out + off : NULL, &outl, p + off, (int)k) ||
                (part && outl != k))
                goto done;
            off += k;
        }
    }
    if (!enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tagl, tag))
        goto done;
    if (!EVP_CipherFinal_ex(ctx, out + n, &outl) || outl != 0)
        goto done;
    if (enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)tagl, tag))
        goto done;
    ok = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: evp_wycheproof PROVIDER_DIR FILE.json\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    static char text[4 << 20];
    size_t len = f != NULL ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f == NULL || len == 0 || len == sizeof text - 1) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 1;
    }
    fclose(f);
    src = text;
    jv *root = parse();
    ws();
    if (bad || *src != 0 || root->t != J_OBJ) {
        fprintf(stderr, "%s: not the JSON this reader takes\n", argv[2]);
        return 1;
    }
    const jv *alg = get(root, "algorithm"), *groups = get(root, "testGroups");
    const jv *count = get(root, "numberOfTests"), *notes = get(root, "notes");
    if (alg == NULL || alg->t != J_STR || groups == NULL || groups->t != J_ARR || count == NULL ||
        notes == NULL || notes->t != J_OBJ) {
        fprintf(stderr, "%s: no algorithm, testGroups, numberOfTests or notes\n", argv[2]);
        return 1;
    }
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    EVP_CIPHER *c = NULL;
    OSSL_PROVIDER *prov = NULL;
    if (libctx == NULL || !OSSL_PROVIDER_set_default_search_path(libctx, argv[1]) ||
        (prov = OSSL_PROVIDER_load(libctx, "bitslice")) == NULL ||
        (c = EVP_CIPHER_fetch(libctx, alg->str, NULL)) == NULL) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    long run = 0, failures = 0, valid = 0, invalid = 0;
    int *seen = calloc(notes->n + 1, sizeof *seen);
    for (size_t g = 0; g < groups->n; g++) {
        const jv *grp = groups->items[g], *tests = get(grp, "tests"), *ts = get(grp, "tagSize");
        if (tests == NULL || tests->t != J_ARR || ts == NULL || ts->t != J_NUM) {
            fprintf(stderr, "group %zu: no tests or tagSize\n", g);
            return 1;
        }
        for (size_t i = 0; i < tests->n; i++) {
            const jv *t = tests->items[i], *id = get(t, "tcId"), *res = get(t, "result");
            const jv *flags = get(t, "flags");
            unsigned char *key = NULL, *iv = NULL, *aad = NULL, *msg = NULL, *ct = NULL,
                          *tag = NULL;
            long kl = hex(t, "key", &key), ivl = hex(t, "iv", &iv), al = hex(t, "aad", &aad);
            long ml = hex(t, "msg", &msg), cl = hex(t, "ct", &ct), tl = hex(t, "tag", &tag);
            if (id == NULL || res == NULL || res->t != J_STR || flags == NULL || kl < 0 ||
                ivl < 0 || al < 0 || ml < 0 || cl != ml || tl != ts->num / 8) {
                fprintf(stderr, "group %zu test %zu: malformed\n", g, i);
                return 1;
            }
            for (size_t k = 0; k < flags->n; k++)
                for (size_t m = 0; m < notes->n; m++)
                    if (flags->items[k]->t == J_STR &&
                        strcmp(flags->items[k]->str, notes->keys[m]) == 0)
                        seen[m] = 1;
            int is_valid = strcmp(res->str, "valid") == 0;
            unsigned char *out = malloc((size_t)ml + 1), mytag[64];
            const char *what = NULL;
            static const size_t splits[] = {0, 1, 33};
            for (size_t s = 0; what == NULL && s < 3; s++) {
                if (is_valid) {
                    if (!aead(c, 1, key, iv, ivl, aad, al, msg, ml, out, mytag, tl, splits[s]))
                        what = "encryption refused";
                    else if (memcmp(out, ct, (size_t)ml) != 0)
                        what = "wrong ct";
                    else if (memcmp(mytag, tag, (size_t)tl) != 0)
                        what = "wrong tag";
                    else if (!aead(c, 0, key, iv, ivl, aad, al, ct, ml, out, tag, tl, splits[s]))
                        what = "decryption refused";
                    else if (memcmp(out, msg, (size_t)ml) != 0)
                        what = "wrong plaintext";
                } else if (aead(c, 0, key, iv, ivl, aad, al, ct, ml, out, tag, tl, splits[s])) {
                    what = "decryption accepted an invalid test";
                } else if (ivl == 0 &&
                           aead(c, 1, key, iv, ivl, aad, al, msg, ml, out, mytag, tl, 0)) {
                    what = "encryption accepted an empty IV";
                }
            }
            if (what != NULL) {
                printf("FAIL tcId %ld (%s, %ld-byte IV, %ld-byte tag): %s\n", id->num, res->str,
                       ivl, tl, what);
                failures++;
            }
            is_valid ? valid++ : invalid++;
            run++;
            free(out);
            free(key), free(iv), free(aad), free(msg), free(ct), free(tag);
        }
    }
    for (size_t m = 0; m < notes->n; m++)
        if (!seen[m]) {
            printf("FAIL: no test carries the flag %s\n", notes->keys[m]);
            failures++;
        }
    if (count->t != J_NUM || count->num != run) {
        printf("FAIL: numberOfTests %ld, %ld tests run\n", count->num, run);
        failures++;
    }
    printf("%s: %ld tests (%ld valid, %ld invalid) through EVP, %zu flags\n", argv[2], run, valid,
           invalid, notes->n);
    printf("%ld passed, %ld failed\n", run - failures, failures);
    EVP_CIPHER_free(c);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    free(seen);
    jv_free(root);
    return failures == 0 && run > 0 ? 0 : 1;
}
