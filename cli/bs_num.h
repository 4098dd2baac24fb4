/*
 * bs_num.h: the one number parser of the command-line programs (bitslice, bitslice-keysearch,
 * bitsliced's flags). Decimal only, no sign, no spaces, nothing after the digits, in a range:
 * "12x", "-1", "" and "99999999999999999999" are refused, never read as 12, a huge value or 0.
 */
#ifndef BS_NUM_H
#define BS_NUM_H

#include <stdint.h>

/* *out = s as a decimal number in lo..hi; 0 on success, -1 when s is not one. */
int bs_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* The same for an unsigned int. */
int bs_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out);

/* "K/N", both decimal, 0 <= K < N, N >= 1 (a slice of a key space). */
int bs_parse_part(const char *s, uint64_t *k, uint64_t *n);

#endif
