/*
 * kat.h: the one reader of the project's known-answer files (tests/kat/, one file per family).
 *
 * Format (after OpenSSL's evp_test stanzas): "Name = value" lines; a blank line ends a
 * stanza; '#' starts a comment line. Values are hex unless the field is Cipher, Result or
 * Iterations. The host tests read the files directly; embedded/kat2c turns them into C data for
 * the firmware and GPU tests with this same reader.
 */
#ifndef BS_KAT_H
#define BS_KAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* bs_hex_decode: hex into bytes (the tree's one decoder). */
#include "bs_hex.h"

#define BS_KAT_MAX_FIELDS 16

typedef struct bs_kat_field {
    char name[32];
    char *text;     /* the value as written */
    uint8_t *bytes; /* hex-decoded value; NULL when the field is not hex */
    size_t len;
} bs_kat_field;

typedef struct bs_kat {
    const char *file;
    int line; /* line of the stanza's first field */
    size_t nfields;
    bs_kat_field f[BS_KAT_MAX_FIELDS];
} bs_kat;

typedef struct bs_kat_reader {
    FILE *fp;
    const char *path;
    int line;
} bs_kat_reader;

int bs_kat_open(bs_kat_reader *r, const char *path);
void bs_kat_close(bs_kat_reader *r);
/* 1: a stanza was read into k; 0: end of file; -1: a malformed line (reported on stderr). */
int bs_kat_next(bs_kat_reader *r, bs_kat *k);
void bs_kat_free(bs_kat *k);

/* The field's bytes (and length), or NULL if the stanza has no such field. */
const uint8_t *bs_kat_bytes(const bs_kat *k, const char *name, size_t *len);
/* The field's text, or NULL. */
const char *bs_kat_text(const bs_kat *k, const char *name);


/* Resolves a KAT file name against BS_KAT_DIR (compile-time) or $BS_KAT_DIR. */
const char *bs_kat_path(const char *name);

#endif
