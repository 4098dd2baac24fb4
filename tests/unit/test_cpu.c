/*
 * The CPU level (core/bs_cpu.h): bs_cpu_level_from on synthetic CPUID and XCR0 values (every
 * feature the AVX-512 and AVX2 code is compiled for, and the OS's saved state, taken away one
 * at a time, drops exactly one level or more, never keeps it), and forcing a level by
 * $BITSLICE_CPU and by bs_cpu_limit: the level in force, the implementation each cipher name
 * resolves to, and the GHASH-256 default follow it, on this CPU. Every implementation names its
 * level, and one that names none is never chosen.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bitslice.h"
#include "bs_cpu.h"
#include "modes/gcm256.h"
#include "testutil.h"

#define ECX1                                                                                       \
    (BS_CPUID1_ECX_PCLMUL | BS_CPUID1_ECX_SSSE3 | BS_CPUID1_ECX_SSE41 | BS_CPUID1_ECX_AES |        \
     BS_CPUID1_ECX_OSXSAVE | BS_CPUID1_ECX_AVX)
#define EBX7                                                                                       \
    (BS_CPUID7_EBX_AVX2 | BS_CPUID7_EBX_AVX512F | BS_CPUID7_EBX_AVX512DQ |                         \
     BS_CPUID7_EBX_AVX512BW | BS_CPUID7_EBX_AVX512VL)
#define ECX7 (BS_CPUID7_ECX_VBMI | BS_CPUID7_ECX_GFNI | BS_CPUID7_ECX_VAES | BS_CPUID7_ECX_VPCLMUL)
#define XCR0 (BS_XCR0_AVX | BS_XCR0_AVX512)

static void test_level_from(void **state)
{
    (void)state;
    assert_int_equal(bs_cpu_level_from(ECX1, EBX7, ECX7, XCR0), BS_CPU_AVX512);
    /* Any other bit set changes nothing. */
    assert_int_equal(bs_cpu_level_from(~0u, ~0u, ~0u, ~0u), BS_CPU_AVX512);
    static const struct {
        unsigned ecx1, ebx7, ecx7, xcr0;
        int level;
    } drop[] = {
        {BS_CPUID1_ECX_AES, 0, 0, 0, BS_CPU_PORTABLE},
        {BS_CPUID1_ECX_PCLMUL, 0, 0, 0, BS_CPU_PORTABLE},
        {BS_CPUID1_ECX_SSSE3, 0, 0, 0, BS_CPU_PORTABLE},
        {BS_CPUID1_ECX_SSE41, 0, 0, 0, BS_CPU_PORTABLE},
        {BS_CPUID1_ECX_OSXSAVE, 0, 0, 0, BS_CPU_AESNI},
        {BS_CPUID1_ECX_AVX, 0, 0, 0, BS_CPU_AESNI},
        {0, BS_CPUID7_EBX_AVX2, 0, 0, BS_CPU_AESNI},
        {0, 0, 0, 0x2, BS_CPU_AESNI}, /* SSE state not saved */
        {0, 0, 0, 0x4, BS_CPU_AESNI}, /* upper ymm halves not saved */
        {0, BS_CPUID7_EBX_AVX512F, 0, 0, BS_CPU_AVX2},
        {0, BS_CPUID7_EBX_AVX512DQ, 0, 0, BS_CPU_AVX2},
        {0, BS_CPUID7_EBX_AVX512BW, 0, 0, BS_CPU_AVX2},
        {0, BS_CPUID7_EBX_AVX512VL, 0, 0, BS_CPU_AVX2},
        {0, 0, BS_CPUID7_ECX_VBMI, 0, BS_CPU_AVX2},
        {0, 0, BS_CPUID7_ECX_GFNI, 0, BS_CPU_AVX2},
        {0, 0, BS_CPUID7_ECX_VAES, 0, BS_CPU_AVX2},
        {0, 0, BS_CPUID7_ECX_VPCLMUL, 0, BS_CPU_AVX2},
        {0, 0, 0, 0x20, BS_CPU_AVX2}, /* opmask state */
        {0, 0, 0, 0x40, BS_CPU_AVX2}, /* upper halves of zmm0-15 */
        {0, 0, 0, 0x80, BS_CPU_AVX2}, /* zmm16-31 */
    };
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) {
        int got = bs_cpu_level_from(ECX1 & ~drop[i].ecx1, EBX7 & ~drop[i].ebx7,
                                    ECX7 & ~drop[i].ecx7, XCR0 & ~drop[i].xcr0);
        if (got != drop[i].level)
            fail_msg("case %zu: level %d, want %d", i, got, drop[i].level);
    }
    /* No XSAVE at all (XCR0 unreadable, passed as 0): the SSE-only level. */
    assert_int_equal(bs_cpu_level_from(ECX1 & ~BS_CPUID1_ECX_OSXSAVE, EBX7, ECX7, 0), BS_CPU_AESNI);
}

/* The highest level among the usable implementations named name (the registry's choice). */
static int best_level(const char *name)
{
    int best = -1;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *c = bs_block_ciphers[i];
        if (strcmp(c->name, name) == 0 && bs_impl_usable(c) && (int)c->level > best)
            best = (int)c->level;
    }
    return best;
}

/* What runs at the level in force: at most that level, and the best one there. */
static void check_choices(int level)
{
    assert_int_equal(bs_cpu_level(), level);
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *c = bs_block_cipher_by_name(bs_block_ciphers[i]->name);
        assert_non_null(c);
        assert_true((int)c->level <= level);
        if ((int)c->level != best_level(c->name))
            fail_msg("%s at %s: %s chosen, a level-%d one is usable", c->name,
                     bs_cpu_level_name(level), c->impl, best_level(c->name));
        /* The CTR fast path belongs to a usable implementation only. */
        if (c->ctr32 != NULL)
            assert_true((int)c->level >= BS_CPU_AESNI);
    }
    const bs_ghash256_impl *g = bs_ghash256_default();
    assert_non_null(g);
    if (level < BS_CPU_AESNI)
        assert_true(strstr(g->name, "clmul") == NULL);
    if (level < BS_CPU_AVX512)
        assert_true(strstr(g->name, "vpclmul") == NULL);
    /* And the carry-less multiplier where the level has it. */
    if (level >= BS_CPU_AESNI)
        assert_string_equal(g->name, level >= BS_CPU_AVX512 ? "vpclmul" : "pclmul");
}

static void test_forcing(void **state)
{
    (void)state;
    const int detected = bs_cpu_detected();
    printf("detected level: %s\n", bs_cpu_level_name(detected));
    assert_int_equal(bs_cpu_level(), detected); /* $BITSLICE_CPU (unset) read now */
    for (int lvl = BS_CPU_PORTABLE; lvl <= BS_CPU_TOP; lvl++) {
        const int expect = lvl < detected ? lvl : detected;
        setenv(BS_CPU_ENV, bs_cpu_level_name(lvl), 1);
        /* Read once per process: a change takes effect only once read again. */
        check_choices(detected);
        bs_cpu_reread_env();
        check_choices(expect);
        unsetenv(BS_CPU_ENV);
        bs_cpu_reread_env();
        bs_cpu_limit(lvl);
        check_choices(expect);
        bs_cpu_limit(BS_CPU_TOP);
        printf("forced %s: in force %s\n", bs_cpu_level_name(lvl), bs_cpu_level_name(expect));
    }
    /* Case does not matter; an unknown value is ignored; no cap: the detected level. */
    setenv(BS_CPU_ENV, "PORTABLE", 1);
    bs_cpu_reread_env();
    check_choices(BS_CPU_PORTABLE);
    setenv(BS_CPU_ENV, "avx1024", 1);
    bs_cpu_reread_env();
    check_choices(detected);
    unsetenv(BS_CPU_ENV);
    bs_cpu_reread_env();
    check_choices(detected);
}

/*
 * Each implementation says which level it needs (its descriptor's level): every registry entry
 * and every GHASH-256 one names a level, a counter mode belongs to a SIMD one, and a
 * descriptor that names none (BS_CPU_NONE) is not usable at any level.
 */
static void test_levels_named(void **state)
{
    (void)state;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *c = bs_block_ciphers[i];
        if (bs_cpu_level_name((int)c->level) == NULL)
            fail_msg("%s/%s names no CPU level (%d)", c->name, c->impl, (int)c->level);
        if (c->ctr32 != NULL)
            assert_true((int)c->level >= BS_CPU_AESNI);
    }
    for (size_t i = 0; bs_ghash256_impls[i] != NULL; i++)
        if (bs_cpu_level_name((int)bs_ghash256_impls[i]->level) == NULL)
            fail_msg("GHASH-256 %s names no CPU level", bs_ghash256_impls[i]->name);
    bs_block_cipher nameless = *bs_block_ciphers[0];
    nameless.level = BS_CPU_NONE;
    bs_ghash256_impl ghashless = *bs_ghash256_impls[0];
    ghashless.level = BS_CPU_NONE;
    assert_true(bs_impl_usable(bs_block_ciphers[0]));
    assert_true(bs_ghash256_usable(bs_ghash256_impls[0]));
    for (int lvl = BS_CPU_PORTABLE; lvl <= BS_CPU_TOP; lvl++) {
        bs_cpu_limit(lvl);
        assert_false(bs_impl_usable(&nameless));
    }
    bs_cpu_limit(BS_CPU_TOP);
    assert_false(bs_impl_usable(&nameless));
    assert_false(bs_ghash256_usable(&ghashless));
    assert_null(bs_cpu_level_name(BS_CPU_NONE));
}

/* The names that messages list (BS_CPU_LEVEL_NAMES) are the levels', in order, and all of them. */
static void test_level_names_listed(void **state)
{
    (void)state;
    char names[128];
    size_t n = 0;
    for (int lvl = BS_CPU_PORTABLE; lvl <= BS_CPU_TOP; lvl++) {
        assert_non_null(bs_cpu_level_name(lvl));
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                              bs_cpu_level_name(lvl));
        assert_true(n < sizeof names);
    }
    assert_string_equal(names, BS_CPU_LEVEL_NAMES);
}

int main(void)
{
    /* The suite's $BITSLICE_CPU runs must not change what this test forces itself. */
    unsetenv(BS_CPU_ENV);
    bs_cpu_reread_env();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_from),
        cmocka_unit_test(test_forcing),
        cmocka_unit_test(test_levels_named),
        cmocka_unit_test(test_level_names_listed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
