/*
 * gcm256_bulk.h: the hook by which gcm256.c hands whole blocks to a stitched CTR + GHASH loop
 * when the context's core and GHASH have one (gcm256_vaes.c: VAES and VPCLMULQDQ on zmm;
 * gcm256_aesni.c: AES-NI and PCLMULQDQ on xmm).
 * A header of its own, apart from gcm256.h, so that the loops may include gcm256.h.
 */
#ifndef BS_GCM256_BULK_H
#define BS_GCM256_BULK_H

#include "../bitslice.h"

struct bs_ghash256_impl;

/*
 * Encrypts (decrypt 0) or decrypts the first whole batches (16 blocks at VAES, 6 at AES-NI) of
 * nblocks blocks of in into out (in may equal out; no alignment), CTR from counter with inc32,
 * and absorbs their ciphertext into the GHASH accumulator y (GCM byte order) under hkey; advances
 * counter. ctr_secret: the counter came from a J0 made by GHASH (it depends on the key), so
 * nothing may branch on it. hkey holds *hpow key powers (at least 1, the lazy form of gcm256.h):
 * the loop makes the rest of those it uses (where it can, beside the first batch's rounds) and
 * updates *hpow. Returns the number of blocks done (a multiple of the batch, at most nblocks);
 * the caller does the rest.
 */
typedef size_t (*bs_gcm256_bulk_fn)(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                                    uint8_t counter[32], int ctr_secret, uint8_t y[32],
                                    const uint8_t *in, uint8_t *out, size_t nblocks, int decrypt);

/*
 * A message's start where its IV is not of the direct length, all in registers: J0 = GHASH(IV ||
 * zero pad || the lengths block (0, the IV's bit length)). key not NULL: the key is expanded into
 * ks first, beside H = E_K(0), and entry 0 of the lazy key form (gcm256.h) is made from H (the
 * caller sets hpow to 1); key NULL: ks and entry 0 are there. Writes J0 to j0. In pieces through
 * memory, each step read back what the one before had just written in stores of another size,
 * which the CPU cannot forward. E_K(J0) is not made here: its rounds could start only once J0 is
 * known, and made here they held up the message's first keystream (gcm.inc.h makes it with that
 * keystream).
 */
typedef void (*bs_gcm256_start_fn)(bs_key_schedule *ks, const uint8_t *key, uint64_t *hkey,
                                   const uint8_t *iv, size_t iv_len, uint8_t j0[32]);

/*
 * The loop for a message's first data while E_K(J0), the tag's mask, is still due (its J0 came by
 * GHASH: bs_gcm256_start_fn makes J0 alone): as bs_gcm256_bulk_fn, and E_K(j0) written to ekj0
 * whatever the blocks done, its rounds beside the first batch's where the loop can.
 */
typedef size_t (*bs_gcm256_bulk_mask_fn)(const bs_key_schedule *ks, uint64_t *hkey, unsigned *hpow,
                                         uint8_t counter[32], int ctr_secret, uint8_t y[32],
                                         const uint8_t *in, uint8_t *out, size_t nblocks,
                                         int decrypt, const uint8_t j0[32], uint8_t ekj0[32]);

/* The stitched loop for this core and GHASH at the CPU level in force, or NULL. */
bs_gcm256_bulk_fn bs_gcm256_bulk_for(const bs_block_cipher *cipher,
                                     const struct bs_ghash256_impl *ghash);

/* The same for the AES-NI core and PCLMULQDQ (gcm256_aesni.c), or NULL. */
bs_gcm256_bulk_fn bs_gcm256_aesni_bulk_for(const bs_block_cipher *cipher,
                                           const struct bs_ghash256_impl *ghash);

/* The same that also makes E_K(J0), or NULL (then E_K(J0) on its own before the loop). */
bs_gcm256_bulk_mask_fn bs_gcm256_bulk_mask_for(const bs_block_cipher *cipher,
                                               const struct bs_ghash256_impl *ghash);

/* The in-register start for this core and GHASH, or NULL (then gcm.inc.h's steps). */
bs_gcm256_start_fn bs_gcm256_start_for(const bs_block_cipher *cipher,
                                       const struct bs_ghash256_impl *ghash);

#endif
