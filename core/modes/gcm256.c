/*
 * gcm256.c: RIJNDAEL-256-GCM (docs/spec/rijndael256-gcm.md, limits of docs/spec/algorithms.md):
 * the GCM template (gcm.inc.h) over GHASH-256, with the stitched CTR + GHASH loops of
 * gcm256_bulk.h where the core and GHASH have one.
 */
#include "gcm256.h"
#include "gcm256_bulk.h"

#define GCM_BL 32
#define GCM_CTX bs_gcm256_ctx
#define GCM_GHASH bs_ghash256_impl
#define GCM_GHASH_DEFAULT bs_ghash256_default
#define GCM_FN(x) bs_gcm256_##x
#define GCM_MAX_BLOCKS BS_GCM256_MAX_BLOCKS
#define GCM_TAG_MIN BS_GCM256_TAG_MIN
#define GCM_TAG_MAX BS_GCM256_TAG_MAX
#define GCM_TAG_STEP 4
/* A full pass of the widest (64-lane) cores. */
#define GCM_PASS BS_LANES_MAX
/* The VAES loop where it applies, else the AES-NI one, else none. */
static bs_gcm256_bulk_fn bulk_for(const bs_block_cipher *cipher, const bs_ghash256_impl *ghash)
{
    const bs_gcm256_bulk_fn f = bs_gcm256_bulk_for(cipher, ghash);
    return f != NULL ? f : bs_gcm256_aesni_bulk_for(cipher, ghash);
}
#define GCM_BULK_FOR bulk_for
#define GCM_BULK_MASK_FOR bs_gcm256_bulk_mask_for
#define GCM_START_FOR bs_gcm256_start_for
#define GCM_BULK_BLOCKS 16 /* gcm256_vaes.c: one reduction per 16 blocks (gcm256_aesni.c: 6) */
#define GCM_GHASH_LAZY 1
#ifdef BS_GCM256_DEFER
#define GCM_GHASH_DEFER BS_GCM256_DEFER
#endif
#define GCM_PROFILE 1
#include "gcm.inc.h"
