#include "kat_data.h"

#include <string.h>

static const bsemb_kat_field *find(const bsemb_kat *k, const char *name)
{
    for (size_t i = 0; i < k->nfields; i++)
        if (strcmp(k->f[i].name, name) == 0)
            return &k->f[i];
    return NULL;
}

const uint8_t *bsemb_kat_bytes(const bsemb_kat *k, const char *name, size_t *len)
{
    const bsemb_kat_field *f = find(k, name);
    if (f == NULL || f->bytes == NULL)
        return NULL;
    if (len)
        *len = f->len;
    return f->bytes;
}

const char *bsemb_kat_text(const bsemb_kat *k, const char *name)
{
    const bsemb_kat_field *f = find(k, name);
    return f ? f->text : NULL;
}
