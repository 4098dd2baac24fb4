#include "kat.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int bs_kat_open(bs_kat_reader *r, const char *path)
{
    r->fp = fopen(path, "r");
    r->path = path;
    r->line = 0;
    return r->fp ? 0 : -1;
}

void bs_kat_close(bs_kat_reader *r)
{
    if (r->fp)
        fclose(r->fp);
    r->fp = NULL;
}

void bs_kat_free(bs_kat *k)
{
    for (size_t i = 0; i < k->nfields; i++) {
        free(k->f[i].text);
        free(k->f[i].bytes);
    }
    k->nfields = 0;
}

static int is_text_field(const char *name)
{
    return strcmp(name, "Cipher") == 0 || strcmp(name, "Result") == 0 ||
           strcmp(name, "Iterations") == 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

int bs_kat_next(bs_kat_reader *r, bs_kat *k)
{
    char buf[8192];
    memset(k, 0, sizeof *k);
    k->file = r->path;
    while (fgets(buf, sizeof buf, r->fp)) {
        r->line++;
        char *s = trim(buf);
        if (*s == '#')
            continue;
        if (*s == 0) {
            if (k->nfields > 0)
                return 1;
            continue;
        }
        char *eq = strchr(s, '=');
        if (eq == NULL || k->nfields == BS_KAT_MAX_FIELDS) {
            fprintf(stderr, "%s:%d: malformed line\n", r->path, r->line);
            bs_kat_free(k);
            return -1;
        }
        *eq = 0;
        char *name = trim(s), *value = trim(eq + 1);
        bs_kat_field *f = &k->f[k->nfields];
        if (strlen(name) >= sizeof f->name) {
            fprintf(stderr, "%s:%d: field name too long\n", r->path, r->line);
            bs_kat_free(k);
            return -1;
        }
        if (k->nfields == 0)
            k->line = r->line;
        strcpy(f->name, name);
        f->text = strdup(value);
        if (!is_text_field(name)) {
            size_t cap = strlen(value) / 2 + 1;
            f->bytes = malloc(cap);
            long n = f->bytes ? bs_hex_decode(value, f->bytes, cap) : -1;
            if (n < 0) {
                fprintf(stderr, "%s:%d: bad hex in %s\n", r->path, r->line, name);
                k->nfields++;
                bs_kat_free(k);
                return -1;
            }
            f->len = (size_t)n;
        }
        k->nfields++;
    }
    return k->nfields > 0 ? 1 : 0;
}

const uint8_t *bs_kat_bytes(const bs_kat *k, const char *name, size_t *len)
{
    for (size_t i = 0; i < k->nfields; i++)
        if (strcmp(k->f[i].name, name) == 0) {
            if (len)
                *len = k->f[i].len;
            /* an empty hex value is a valid empty string: return a non-NULL pointer */
            return k->f[i].bytes ? k->f[i].bytes : (const uint8_t *)"";
        }
    return NULL;
}

const char *bs_kat_text(const bs_kat *k, const char *name)
{
    for (size_t i = 0; i < k->nfields; i++)
        if (strcmp(k->f[i].name, name) == 0)
            return k->f[i].text;
    return NULL;
}

const char *bs_kat_path(const char *name)
{
    static char path[4096];
    const char *dir = getenv("BS_KAT_DIR");
#ifdef BS_KAT_DIR
    if (dir == NULL)
        dir = BS_KAT_DIR;
#endif
    if (dir == NULL)
        dir = "tests/kat";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}
