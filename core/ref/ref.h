/*
 * ref.h: slow, byte-wise references of every cipher and mode, written straight from the
 * specifications. They exist only as test oracles: they use tables and branch on data, and
 * nothing outside tests/ links them.
 */
#ifndef BS_REF_H
#define BS_REF_H

#include <stddef.h>
#include <stdint.h>

/* Single-block encryption with the raw key; key and block sizes as in docs/spec/algorithms.md. */
typedef void (*bs_ref_encrypt_fn)(const uint8_t *key, const uint8_t *in, uint8_t *out);

void bs_ref_present80_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_present128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_gift64_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_gift128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_rijndael256_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_skinny128_128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_skinny128_256_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_skinny128_384_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_aes128_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_aes256_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
/* SPEEDY-r-192: 24-byte key and block (core/ref/speedy_ref.c). */
void bs_ref_speedy5_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_speedy6_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);
void bs_ref_speedy7_encrypt(const uint8_t *key, const uint8_t *in, uint8_t *out);

/* The reference for a cipher name of docs/spec/vectors.md ("PRESENT-80", ...), or NULL. */
bs_ref_encrypt_fn bs_ref_by_name(const char *name);

/*
 * CTR by the book: one block at a time, counter rule of docs/spec/algorithms.md.
 * iv is block_len bytes (16 for Rijndael-256 and SPEEDY, which count from IV || 0^16, IV || 0^8).
 */
void bs_ref_ctr(const char *cipher, const uint8_t *key, const uint8_t *iv, const uint8_t *in,
                uint8_t *out, size_t len);

/* Rijndael-256's 15 round keys of 32 bytes, in the order they are added (FIPS 197 words). */
void bs_ref_rijndael256_round_keys(const uint8_t key[32], uint8_t out[15 * 32]);

/* GF(2^256) product of docs/spec/rijndael256-gcm.md, SP 800-38D Algorithm 1 with n = 256. */
void bs_ref_gf256_mul(const uint8_t x[32], const uint8_t y[32], uint8_t out[32]);

/* One-shot RIJNDAEL-256-GCM encryption (docs/spec/rijndael256-gcm.md); tag is 32 bytes. */
void bs_ref_gcm256_encrypt(const uint8_t key[32], const uint8_t *iv, size_t iv_len,
                           const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
                           uint8_t *ct, uint8_t tag[32]);

#endif
