/*
 * bs_cpu.c: the CPU level (bs_cpu.h).
 *
 * The level is read from CPUID, and XGETBV says whether the OS saves the AVX and AVX-512
 * registers (clang 14's __builtin_cpu_supports knows no "vaes"). The detected level (a cache)
 * and the cap (bs_cpu_limit) are the only process-wide state in core/: a policy for the whole
 * process, like OpenSSL's OPENSSL_ia32cap; neither holds a secret.
 */
#include "bs_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
#define BS_CPU_X86 1
#include <stdlib.h>
#endif

static const char *const level_names[BS_CPU_TOP + 1] = {
    [BS_CPU_PORTABLE] = "portable",
    [BS_CPU_AESNI] = "aesni",
    [BS_CPU_AVX2] = "avx2",
    [BS_CPU_AVX512] = "avx512",
};

static int ascii_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static int name_eq(const char *a, const char *b)
{
    while (*a && ascii_lower(*a) == ascii_lower(*b)) {
        a++;
        b++;
    }
    return *a == 0 && *b == 0;
}

const char *bs_cpu_level_name(int level)
{
    return level >= BS_CPU_PORTABLE && level <= BS_CPU_TOP ? level_names[level] : NULL;
}

int bs_cpu_level_by_name(const char *name)
{
    for (int i = BS_CPU_PORTABLE; name != NULL && i <= BS_CPU_TOP; i++)
        if (name_eq(name, level_names[i]))
            return i;
    return -1;
}

/*
 * Each level needs every feature its code is compiled for (the target attributes in core/),
 * and the OS must save the registers it uses (XCR0): a CPU or a VM that lacks one bit gets the
 * level below, never code that would fault.
 */
int bs_cpu_level_from(unsigned ecx1, unsigned ebx7, unsigned ecx7, unsigned xcr0)
{
    const unsigned need1 =
        BS_CPUID1_ECX_AES | BS_CPUID1_ECX_PCLMUL | BS_CPUID1_ECX_SSSE3 | BS_CPUID1_ECX_SSE41;
    if ((ecx1 & need1) != need1)
        return BS_CPU_PORTABLE;
    if (!(ecx1 & BS_CPUID1_ECX_OSXSAVE) || !(ecx1 & BS_CPUID1_ECX_AVX) ||
        !(ebx7 & BS_CPUID7_EBX_AVX2) || (xcr0 & BS_XCR0_AVX) != BS_XCR0_AVX)
        return BS_CPU_AESNI;
    const unsigned need7b = BS_CPUID7_EBX_AVX512F | BS_CPUID7_EBX_AVX512DQ |
                            BS_CPUID7_EBX_AVX512BW | BS_CPUID7_EBX_AVX512VL;
    const unsigned need7c =
        BS_CPUID7_ECX_VBMI | BS_CPUID7_ECX_GFNI | BS_CPUID7_ECX_VAES | BS_CPUID7_ECX_VPCLMUL;
    if ((ebx7 & need7b) != need7b || (ecx7 & need7c) != need7c ||
        (xcr0 & BS_XCR0_AVX512) != BS_XCR0_AVX512)
        return BS_CPU_AVX2;
    return BS_CPU_AVX512;
}

#ifdef BS_CPU_X86

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    __asm__ __volatile__("cpuid"
                         : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                         : "a"(leaf), "c"(sub));
}

static int detect(void)
{
    unsigned l0[4], l1[4], l7[4] = {0, 0, 0, 0}, xcr0 = 0, hi;
    cpuid(0, 0, l0);
    cpuid(1, 0, l1);
    if (l0[0] >= 7)
        cpuid(7, 0, l7);
    /* XGETBV is allowed only once the OS has set OSXSAVE. */
    if (l1[2] & BS_CPUID1_ECX_OSXSAVE)
        __asm__ __volatile__("xgetbv" : "=a"(xcr0), "=d"(hi) : "c"(0));
    return bs_cpu_level_from(l1[2], l7[1], l7[2], xcr0);
}

/* CPUID once per process; -1 until then (a race only computes the same value twice). */
static int cpu_detected = -1;

int bs_cpu_detected(void)
{
    int d = __atomic_load_n(&cpu_detected, __ATOMIC_RELAXED);
    if (d < 0) {
        d = detect();
        __atomic_store_n(&cpu_detected, d, __ATOMIC_RELAXED);
    }
    return d;
}

static int cpu_cap = BS_CPU_TOP;

/* $BITSLICE_CPU's level (-1: none or unknown), ENV_UNREAD until read (a race reads it twice). */
#define ENV_UNREAD (-2)
static int cpu_env = ENV_UNREAD;

void bs_cpu_reread_env(void)
{
    __atomic_store_n(&cpu_env, ENV_UNREAD, __ATOMIC_RELAXED);
}

void bs_cpu_limit(int level)
{
    if (level >= BS_CPU_PORTABLE)
        __atomic_store_n(&cpu_cap, level, __ATOMIC_RELAXED);
}

int bs_cpu_level(void)
{
    int level = bs_cpu_detected();
    int cap = __atomic_load_n(&cpu_cap, __ATOMIC_RELAXED);
    int env = __atomic_load_n(&cpu_env, __ATOMIC_RELAXED);
    if (env == ENV_UNREAD) {
        /* An unknown value is ignored here; the tools and the provider report it
         * (bs_cpu_level_by_name). */
        env = bs_cpu_level_by_name(getenv(BS_CPU_ENV));
        __atomic_store_n(&cpu_env, env, __ATOMIC_RELAXED);
    }
    if (cap < level)
        level = cap;
    if (env >= 0 && env < level)
        level = env;
    return level;
}

#else

int bs_cpu_detected(void)
{
    return BS_CPU_PORTABLE;
}

void bs_cpu_limit(int level)
{
    (void)level;
}

int bs_cpu_level(void)
{
    return BS_CPU_PORTABLE;
}

void bs_cpu_reread_env(void) {}

#endif

int bs_impl_usable(const bs_block_cipher *c)
{
    return c->level != BS_CPU_NONE && (int)c->level <= bs_cpu_level();
}
