/* bitslice.h's common functions: error strings, wipe, constant-time comparison. */
#include "bitslice.h"

const char *bs_strerror(int err)
{
    switch (err) {
    case BS_OK:
        return "success";
    case BS_ERR_KEY_LENGTH:
        return "wrong key length";
    case BS_ERR_IV_LENGTH:
        return "IV length not allowed";
    case BS_ERR_TAG_LENGTH:
        return "tag length not allowed (RIJNDAEL-256-GCM: 16..32 bytes, step 4; AES-GCM: 12..16)";
    case BS_ERR_DATA_LIMIT:
        return "data limit for this key and IV reached";
    case BS_ERR_COUNTER_WRAP:
        return "counter would wrap";
    case BS_ERR_STATE:
        return "operation not allowed in this state";
    case BS_ERR_AUTH:
        return "authentication failed: tag mismatch";
    case BS_ERR_ARG:
        return "invalid argument";
    default:
        return "unknown error";
    }
}

void bs_wipe(void *p, size_t n)
{
#if UINTPTR_MAX <= 0xffffffffu
    /* 32-bit targets (the MCUs): word stores between byte heads and tails. picolibc's memset,
     * built for size, is a byte loop (about 9 cycles a byte on a Cortex-M3), and the modes wipe
     * their keystream buffers with this on every call. The branches test addresses only. */
    volatile uint8_t *b = (volatile uint8_t *)p;
    for (; n > 0 && ((uintptr_t)b & 3u) != 0; n--)
        *b++ = 0;
    volatile uint32_t *w = (volatile uint32_t *)(volatile void *)b;
    for (; n >= 16; n -= 16, w += 4) {
        w[0] = 0;
        w[1] = 0;
        w[2] = 0;
        w[3] = 0;
    }
    for (; n >= 4; n -= 4)
        *w++ = 0;
    for (b = (volatile uint8_t *)w; n > 0; n--)
        *b++ = 0;
#elif defined(__GNUC__) || defined(__clang__)
    /* The empty asm that reads p and clobbers memory keeps the memset from being elided. */
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--)
        *v++ = 0;
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * x86-64: rsp is lowered a page at a time, each page zeroed before going lower (as a deep call
 * would touch them: the guard page is met first), then restored. Every byte from this function's
 * stack pointer down is written, with no gap, and while it is written it lies above rsp, so a
 * signal handler's frame cannot overlap it. Nothing of this function lives below rsp (pages is in
 * a register), so the red zone holds nothing to lose.
 */
void bs_wipe_stack(size_t bytes)
{
    size_t pages = (bytes + 4095) / 4096;
    if (pages == 0)
        return;
    __asm__ __volatile__("mov %%rsp, %%r8\n\t"
                         "1:\n\t"
                         "sub $4096, %%rsp\n\t"
                         "mov %%rsp, %%rdi\n\t"
                         "mov $512, %%ecx\n\t"
                         "xor %%eax, %%eax\n\t"
                         "rep stosq\n\t"
                         "dec %[n]\n\t"
                         "jnz 1b\n\t"
                         "mov %%r8, %%rsp\n\t"
                         : [n] "+r"(pages)
                         :
                         : "rax", "rcx", "rdi", "r8", "memory", "cc");
}
#elif defined(__GNUC__) || defined(__clang__)
/*
 * Elsewhere: one 4 KiB frame per level, written before the next level is entered. The asm after
 * the recursive call keeps buf alive across it (not a tail call), so the frames stack up. The
 * few bytes of each frame outside buf (return address, saved registers, padding) are not
 * written: this is a best effort where the x86-64 code above is exact.
 */
__attribute__((noinline)) static void wipe_stack_level(size_t left)
{
    uint8_t buf[4096];
    bs_wipe(buf, sizeof buf);
    if (left > sizeof buf)
        wipe_stack_level(left - sizeof buf);
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}

void bs_wipe_stack(size_t bytes)
{
    if (bytes > 0)
        wipe_stack_level(bytes);
}
#else
void bs_wipe_stack(size_t bytes)
{
    (void)bytes; /* no portable way to reach below the caller's frame */
}
#endif

int bs_ct_memcmp(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = (const volatile uint8_t *)a;
    const volatile uint8_t *y = (const volatile uint8_t *)b;
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (uint32_t)(x[i] ^ y[i]);
    /* d in 0..255: (d - 1) >> 31 is 1 exactly when d == 0. */
    return (int)((d - 1) >> 31) - 1;
}
