/* bitslice.h's common functions: error strings, wipe, constant-time comparison. */
#include "bitslice.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#endif

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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* Which register file this CPU and OS have: 0 SSE (xmm0-15), 1 AVX (ymm0-15), 2 AVX-512. */
static int vector_regs_kind(void)
{
    static int kind = -1; /* racing first callers store the same value */
    int k = __atomic_load_n(&kind, __ATOMIC_RELAXED);
    if (k >= 0)
        return k;
    unsigned a, b, c, d, xlo = 0, xhi = 0;
    k = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
        __asm__ __volatile__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
        if ((xlo & 0x6) == 0x6)
            k = 1;
        if (k == 1 && (xlo & 0xe0) == 0xe0 && __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
            (b & bit_AVX512F))
            k = 2;
    }
    (void)xhi;
    __atomic_store_n(&kind, k, __ATOMIC_RELAXED);
    return k;
}

/*
 * The caller-saved general registers (SysV: rax, rcx, rdx, rsi, rdi, r8-r11) zeroed too: the
 * stitched GCM loop reduces GHASH on the integer units (ghash256_vpclmul.h), and a signal frame
 * stores these as well. The callee-saved ones are the caller's own again once the core returns.
 */
#define BS_WIPE_GPRS                                                                               \
    "xorl %%eax, %%eax\n\txorl %%ecx, %%ecx\n\txorl %%edx, %%edx\n\txorl %%esi, %%esi\n\t"         \
    "xorl %%edi, %%edi\n\txorl %%r8d, %%r8d\n\txorl %%r9d, %%r9d\n\txorl %%r10d, %%r10d\n\t"       \
    "xorl %%r11d, %%r11d\n\t"
#define BS_GPR_CLOBBERS "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"

/* Every register written is call-clobbered in the SysV ABI; noinline keeps it a call. */
__attribute__((noinline, target("avx512f"))) static void wipe_avx512(void)
{
    __asm__ __volatile__(
        BS_WIPE_GPRS "vzeroall\n\t"
                     "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
                     "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
                     "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
                     "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
                     "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
                     "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
                     "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
                     "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31\n\t"
                     "kxorw %%k1, %%k1, %%k1\n\tkxorw %%k2, %%k2, %%k2\n\t"
                     "kxorw %%k3, %%k3, %%k3\n\tkxorw %%k4, %%k4, %%k4\n\t"
                     "kxorw %%k5, %%k5, %%k5\n\tkxorw %%k6, %%k6, %%k6\n\t"
                     "kxorw %%k7, %%k7, %%k7\n\tkxorw %%k0, %%k0, %%k0"
        :
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
          "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
          "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30",
          "xmm31", BS_GPR_CLOBBERS);
}

__attribute__((noinline, target("avx"))) static void wipe_avx(void)
{
    __asm__ __volatile__(BS_WIPE_GPRS "vzeroall"
                         :
                         :
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
                           BS_GPR_CLOBBERS);
}

__attribute__((noinline)) static void wipe_sse(void)
{
    __asm__ __volatile__(
        BS_WIPE_GPRS "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\t"
                     "pxor %%xmm3, %%xmm3\n\tpxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\t"
                     "pxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\tpxor %%xmm8, %%xmm8\n\t"
                     "pxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
                     "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\t"
                     "pxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
        :
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
          "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", BS_GPR_CLOBBERS);
}

/* bs_wipe_large's stores: each 64 (32) bytes kept by an empty asm, then the tail. */
__attribute__((noinline, target("avx512f"))) static void wipe_large_avx512(uint8_t *b, size_t n)
{
    const __m512i z = _mm512_setzero_si512();
    for (; n >= 64; n -= 64, b += 64) {
        _mm512_storeu_si512((void *)b, z);
        __asm__ __volatile__("" : : "r"(b) : "memory");
    }
    bs_wipe(b, n);
}

__attribute__((noinline, target("avx"))) static void wipe_large_avx(uint8_t *b, size_t n)
{
    const __m256i z = _mm256_setzero_si256();
    for (; n >= 32; n -= 32, b += 32) {
        _mm256_storeu_si256((__m256i *)b, z);
        __asm__ __volatile__("" : : "r"(b) : "memory");
    }
    bs_wipe(b, n);
}

void bs_wipe_large(void *p, size_t n)
{
    switch (vector_regs_kind()) {
    case 2:
        wipe_large_avx512((uint8_t *)p, n);
        break;
    case 1:
        wipe_large_avx((uint8_t *)p, n);
        break;
    default:
        bs_wipe(p, n);
        break;
    }
}

void bs_wipe_vector_regs(void)
{
    switch (vector_regs_kind()) {
    case 2:
        wipe_avx512();
        break;
    case 1:
        wipe_avx();
        break;
    default:
        wipe_sse();
        break;
    }
}
#else
void bs_wipe_large(void *p, size_t n)
{
    bs_wipe(p, n);
}

void bs_wipe_vector_regs(void)
{
    /* 32-bit MCUs and other hosts: their register files are not saved where this can reach */
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
