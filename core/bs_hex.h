/*
 * bs_hex.h: the one hex decoder of the tree (the KAT reader, the key-file reader of bitslice,
 * the key search's command line). Header-only, so that the build machine's kat2c can use it
 * without the core library.
 *
 * Constant time in the digits' values: keys are read with it, so no branch and no memory index
 * depends on a character (each range test is an arithmetic mask); only the length, which is
 * public, decides the loop, and a bad character is reported after the whole input is read.
 * tests/ct (target hex) checks it under valgrind.
 */
#ifndef BS_HEX_H
#define BS_HEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The value of hex digit c (either case); sets bit 0 of *bad when c is not one. */
static inline unsigned bs_hex_nibble(unsigned char c, unsigned *bad)
{
    const int d = (int)c - '0', l = (int)(c | 0x20) - 'a';
    /* All ones when 0 <= d <= 9 (resp. 0 <= l <= 5): the sign bit of d | (9 - d) is clear. */
    const unsigned is_d = ((unsigned)(d | (9 - d)) >> 31) - 1u;
    const unsigned is_l = ((unsigned)(l | (5 - l)) >> 31) - 1u;
    *bad |= ~(is_d | is_l) & 1u;
    return ((unsigned)d & is_d) | ((unsigned)(l + 10) & is_l);
}

/*
 * Decodes the n characters at hex (digits of either case, two per byte) into out: returns the
 * byte count n / 2, or -1 when n is odd, n / 2 > cap or a character is not a hex digit (out
 * may then hold part of the input: callers reading keys wipe it).
 */
static inline long bs_hex_decode_n(const char *hex, size_t n, uint8_t *out, size_t cap)
{
    unsigned bad = 0;
    if (n % 2 != 0 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        const unsigned hi = bs_hex_nibble((unsigned char)hex[2 * i], &bad);
        const unsigned lo = bs_hex_nibble((unsigned char)hex[2 * i + 1], &bad);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    /* -1 when bad, without a branch on it: OR with all ones. */
    return (long)(n / 2) | -(long)bad;
}

/* The same for a NUL-terminated string (strlen's scan depends on where the NUL is). */
static inline long bs_hex_decode(const char *hex, uint8_t *out, size_t cap)
{
    return bs_hex_decode_n(hex, strlen(hex), out, cap);
}

#endif
