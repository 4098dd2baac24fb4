/*
 * gcm128.c: AES-GCM (SP 800-38D, 16-byte blocks): the GCM template (gcm.inc.h) over GHASH-128,
 * with AES-CTR FACE caching (core/aes/aes_ctr_face.h) as an optional in-process keystream.
 */
#include "gcm128.h"

#ifdef BS_HAVE_AES
#include "../aes/aes_ctr_face.h"
#define GCM_FACE 1
#endif

#define GCM_BL 16
#define GCM_CTX bs_gcm128_ctx
#define GCM_GHASH bs_ghash128_impl
#define GCM_GHASH_DEFAULT bs_ghash128_default
#define GCM_FN(x) bs_gcm128_##x
#define GCM_MAX_BLOCKS BS_GCM128_MAX_BLOCKS
#define GCM_TAG_MIN BS_GCM128_TAG_MIN
#define GCM_TAG_MAX BS_GCM128_TAG_MAX
#define GCM_TAG_STEP 1
/* 512 bytes of stack, at least the lanes of every AES core (the fixsliced ones: 2). */
#define GCM_PASS 32
#include "gcm.inc.h"

int bs_gcm128_set_face(bs_gcm128_ctx *ctx, struct bs_aes_face_ctx *face)
{
    if (ctx->state == ST_NONE)
        return BS_ERR_STATE;
#ifdef GCM_FACE
    if (face != NULL && (!face->ctr.keyed || face->ctr.cipher->key_len != ctx->cipher->key_len))
        return BS_ERR_ARG;
    /* FACE computes the unmasked cipher: over a masked core (impl "masked...") the data
     * keystream would silently leave the masking, so it is refused, the context unchanged */
    if (face != NULL && strncmp(ctx->cipher->impl, "masked", 6) == 0)
        return BS_ERR_ARG;
    ctx->face = face;
    ctx->state = ST_KEYED;
    return BS_OK;
#else
    return face == NULL ? BS_OK : BS_ERR_STATE;
#endif
}
