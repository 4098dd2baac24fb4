/*
 * ghash256_rev.h: the carry-less-multiply layout of GHASH-256 shared by ghash256_pclmul.c and
 * ghash256_vpclmul.c. A block is kept as the 256-bit integer it is when read big-endian
 * (word 3 = bytes 0..7 read big-endian, word 0 = bytes 24..31): bit 255 - j is the coefficient
 * of x^j. The carry-less product of two such integers is the 511-bit reversal of the polynomial
 * product; shifted left by one, its high 256 bits are the product's terms x^0..x^255 and its low
 * 256 bits those of x^256..x^511, which x^256 = x^10 + x^5 + x^2 + 1 folds back.
 */
#ifndef BS_GHASH256_REV_H
#define BS_GHASH256_REV_H

#include "../bs_common.h"

/* A word of L ^ (L >> 2) ^ (L >> 5) ^ (L >> 10) within the word (the reduction's shifts). */
BS_FN uint64_t bs_ghash256_rev_in(uint64_t x)
{
    return x ^ (x >> 2) ^ (x >> 5) ^ (x >> 10);
}

/* The bits those shifts move out of a word into the word below it. */
BS_FN uint64_t bs_ghash256_rev_out(uint64_t x)
{
    return (x << 62) ^ (x << 59) ^ (x << 54);
}

/* y = the reduction of the 511-bit carry-less product p (reversed order, see above). */
BS_FN void bs_ghash256_rev_reduce(uint64_t y[4], const uint64_t p[8])
{
    uint64_t q[8];
    q[0] = p[0] << 1;
    for (int i = 1; i < 8; i++)
        q[i] = (p[i] << 1) | (p[i - 1] >> 63);
    /* U ^ L ^ (L >> 2) ^ (L >> 5) ^ (L >> 10), L = q[0..3], U = q[4..7]. */
    for (int i = 0; i < 4; i++)
        y[i] = q[4 + i] ^ bs_ghash256_rev_in(q[i]) ^ bs_ghash256_rev_out(i < 3 ? q[i + 1] : 0);
    /* Bits shifted out below x^255 are x^256.. x^265: fold them into the top word. */
    y[3] ^= bs_ghash256_rev_in(bs_ghash256_rev_out(q[0]));
}

BS_FN void bs_ghash256_load_rev(uint64_t w[4], const uint8_t *b)
{
    for (int i = 0; i < 4; i++)
        w[i] = bs_load_be64(b + 24 - 8 * i);
}

BS_FN void bs_ghash256_store_rev(uint8_t *b, const uint64_t w[4])
{
    for (int i = 0; i < 4; i++)
        bs_store_be64(b + 24 - 8 * i, w[i]);
}

#endif
