/* bs_json.h: JSON string literals for the programs' --json output (UTF-8 passed through). */
#ifndef BS_JSON_H
#define BS_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes s (n bytes) as a JSON string literal: quotes, backslash and control bytes escaped. */
void bs_json_string_n(FILE *f, const char *s, size_t n);
void bs_json_string(FILE *f, const char *s);

#endif
