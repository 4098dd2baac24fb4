/*
 * bs_wipe32: clears words in a way the compiler keeps, inline and a word at a time, for the
 * 32-bit (MCU) cores' own buffers. bs_wipe goes through the C library's memset, which on
 * picolibc (built for size) is a byte loop behind a call: 133 instructions and about 295
 * estimated Cortex-M3 cycles for 32 bytes, more than SKINNY's whole packing. Here a 32-byte
 * buffer is eight STR (two passes of four), and a constant size leaves no call.
 *
 * Only for uint32_t storage (the type keeps the stores aligned: RV32I traps on unaligned ones).
 */
#ifndef BS_WIPE32_H
#define BS_WIPE32_H

#include <stddef.h>
#include <stdint.h>

static inline void bs_wipe32(uint32_t *p, size_t nwords)
{
    volatile uint32_t *w = p; /* volatile: stores to a dying buffer are not removed */
    /* four stores a pass: a rolled loop would pay a taken branch a word */
    for (size_t i = 0; i < nwords / 4; i++) {
        w[4 * i] = 0;
        w[4 * i + 1] = 0;
        w[4 * i + 2] = 0;
        w[4 * i + 3] = 0;
    }
    for (size_t i = nwords / 4 * 4; i < nwords; i++)
        w[i] = 0;
}

/* The words of an array (not a pointer): bs_wipe32(a, BS_WORDS(a)). */
#define BS_WORDS(a) (sizeof(a) / sizeof(uint32_t))

#endif
