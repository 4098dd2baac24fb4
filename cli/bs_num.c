#include "bs_num.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Decimal digits from s up to the first non-digit (*end); -1 when none or out of range. */
static int digits(const char *s, const char **end, uint64_t *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    char *e;
    errno = 0;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno != 0)
        return -1;
    *end = e;
    *out = (uint64_t)v;
    return 0;
}

int bs_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const char *end;
    uint64_t v;
    if (digits(s, &end, &v) != 0 || *end != 0 || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int bs_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    uint64_t v;
    if (bs_parse_u64(s, lo, hi, &v) != 0)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int bs_parse_part(const char *s, uint64_t *k, uint64_t *n)
{
    const char *end;
    uint64_t a, b;
    if (digits(s, &end, &a) != 0 || *end != '/' || digits(end + 1, &end, &b) != 0 || *end != 0 ||
        b < 1 || a >= b)
        return -1;
    *k = a;
    *n = b;
    return 0;
}
