/*
 * The GHASH-256 registry (gcm256.h: bs_ghash256_impls), and the choice set_key makes among
 * the implementations.
 */
#include "gcm256.h"

#include "../bs_cpu.h"

const bs_ghash256_impl *const bs_ghash256_impls[] = {
    &bs_ghash256_ctmul64,
    &bs_ghash256_ctmul32,
    &bs_ghash256_ctshift32,
#ifdef BS_GHASH256_HAVE_PCLMUL
    &bs_ghash256_pclmul_impl,
#endif
#ifdef BS_GHASH256_HAVE_VPCLMUL
    &bs_ghash256_vpclmul_impl,
#endif
    NULL,
};

/* The CPU is probed one way, for ciphers and GHASH alike: by the level each names. */
int bs_ghash256_usable(const bs_ghash256_impl *impl)
{
    return impl != NULL && impl->level != BS_CPU_NONE && (int)impl->level <= bs_cpu_detected();
}

const bs_ghash256_impl *bs_ghash256_pclmul(void)
{
#ifdef BS_GHASH256_HAVE_PCLMUL
    if (bs_ghash256_usable(&bs_ghash256_pclmul_impl))
        return &bs_ghash256_pclmul_impl;
#endif
    return NULL;
}

const bs_ghash256_impl *bs_ghash256_vpclmul(void)
{
#ifdef BS_GHASH256_HAVE_VPCLMUL
    if (bs_ghash256_usable(&bs_ghash256_vpclmul_impl))
        return &bs_ghash256_vpclmul_impl;
#endif
    return NULL;
}

/*
 * Without PCLMULQDQ: no multiplier (RISC-V without M: even 32-bit products are data-dependent
 * library loops) takes shifts only; a 32-bit target takes 32 x 32 -> 32 multiplies, the only
 * ones that are constant-time on every ARM M-profile core (Cortex-M3's UMULL ends early,
 * ARMv6-M calls a library) and as fast where 64-bit ones are constant-time too (see
 * ghash256_ct32.c); a 64-bit target takes 64 x 64 -> 64 multiplies.
 */
const bs_ghash256_impl *bs_ghash256_default(void)
{
    /*
     * PCLMULQDQ is part of the aesni level: $BITSLICE_CPU=portable takes the portable code. The
     * level is at most the detected one, so a level it allows is one bs_ghash256_usable allows:
     * one probe of the level, which every re-key makes.
     */
#if defined(BS_GHASH256_HAVE_VPCLMUL) || defined(BS_GHASH256_HAVE_PCLMUL)
    const int level = bs_cpu_level();
#endif
#ifdef BS_GHASH256_HAVE_VPCLMUL
    if (bs_ghash256_vpclmul_impl.level != BS_CPU_NONE &&
        (int)bs_ghash256_vpclmul_impl.level <= level)
        return &bs_ghash256_vpclmul_impl;
#endif
#ifdef BS_GHASH256_HAVE_PCLMUL
    if (bs_ghash256_pclmul_impl.level != BS_CPU_NONE && (int)bs_ghash256_pclmul_impl.level <= level)
        return &bs_ghash256_pclmul_impl;
#endif
#if defined(__riscv) && !defined(__riscv_mul)
    return &bs_ghash256_ctshift32;
#elif defined(UINTPTR_MAX) && UINTPTR_MAX <= 0xFFFFFFFFu
    return &bs_ghash256_ctmul32;
#else
    return &bs_ghash256_ctmul64;
#endif
}
