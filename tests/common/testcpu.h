/*
 * testcpu.h: what the unit tests say about the CPU level (core/bs_cpu.h). The suite runs
 * each test once per level (tests/unit/meson.build sets $BITSLICE_CPU); a level that this
 * CPU lacks is a skip (exit 77), said in words, not a pass.
 */
#ifndef BS_TESTCPU_H
#define BS_TESTCPU_H

#include <stdio.h>
#include <stdlib.h>

#include "bs_cpu.h"

/* Prints the level in force; exits 77 when $BITSLICE_CPU asks for more than the CPU has. */
static inline void bs_test_cpu_banner(void)
{
    const char *want = getenv(BS_CPU_ENV);
    int level = bs_cpu_level_by_name(want);
    if (want != NULL && level < 0) {
        fprintf(stderr, "%s=%s is not a level (" BS_CPU_LEVEL_NAMES ")\n", BS_CPU_ENV, want);
        exit(1);
    }
    if (level > bs_cpu_detected()) {
        printf("SKIP: %s=%s, but this CPU supports up to %s\n", BS_CPU_ENV, want,
               bs_cpu_level_name(bs_cpu_detected()));
        exit(77);
    }
    printf("CPU level in force: %s (detected %s)\n", bs_cpu_level_name(bs_cpu_level()),
           bs_cpu_level_name(bs_cpu_detected()));
    fflush(stdout);
}

/* 1 if c may run here; otherwise says that it is skipped. */
static inline int bs_test_impl_usable(const bs_block_cipher *c)
{
    if (bs_impl_usable(c))
        return 1;
    printf("skipped %s/%s: needs level %s, in force %s\n", c->name, c->impl,
           bs_cpu_level_name((int)c->level), bs_cpu_level_name(bs_cpu_level()));
    return 0;
}

#endif
