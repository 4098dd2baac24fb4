/*
 * bs_stream_format.h: the chunked streaming-AEAD file format of `bitslice seal/open`
 * (docs/stream-format.md). RIJNDAEL-256-GCM per chunk, with the chunk index and a last-chunk
 * flag in the nonce, computed as CTR keystream (from the daemon or in-process) plus GHASH-256
 * here, so that the keystream can come from anywhere.
 */
#ifndef BS_STREAM_FORMAT_H
#define BS_STREAM_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "bitslice.h"
#include "modes/gcm256.h"

#define BSF_MAGIC "BSLSTRM1"
#define BSF_VERSION 1
#define BSF_HEADER_LEN 80
#define BSF_HEADER_AUTH_LEN 48 /* bytes covered by the header tag */
#define BSF_TAG_LEN 32
#define BSF_IV_LEN 28
#define BSF_CHUNK_LOG2_MIN 10
#define BSF_CHUNK_LOG2_MAX 24
#define BSF_CHUNK_LOG2_DEFAULT 20
/* The only scrypt parameters seal writes and open accepts: 128 r 2^log_n bytes, <= 1 GiB. */
#define BSF_SCRYPT_LOG_N_MIN 10
#define BSF_SCRYPT_LOG_N_MAX 20
#define BSF_SCRYPT_R 8
#define BSF_SCRYPT_P 1
#define BSF_SCRYPT_MAX_MEM ((uint64_t)128 * BSF_SCRYPT_R << BSF_SCRYPT_LOG_N_MAX)

enum { BSF_KDF_KEYFILE = 0, BSF_KDF_SCRYPT = 1 };

typedef struct bsf_header {
    uint8_t kdf;
    uint8_t chunk_log2;
    uint8_t scrypt_log_n, scrypt_r, scrypt_p;
    uint8_t salt[16];  /* scrypt salt (random, unused for key files) */
    uint8_t nonce[16]; /* per file: HKDF salt for the header and payload keys */
    uint8_t tag[32];
} bsf_header;

typedef struct bsf_keys {
    const bs_block_cipher *cipher;
    uint8_t header_key[32];
    uint8_t payload_key[32];
    bs_key_schedule ks; /* payload key schedule, for the in-process keystream */
    /* Keyed once with the payload key; each chunk only sets a new IV (no key schedule). */
    bs_gcm256_ctx payload_gcm;
    /* Keyed once with the header key, for the header tag (each caller its own: reentrant). */
    bs_gcm256_ctx header_gcm;
    /* payload_gcm's keystream source: the chunk's keystream at hand (bs_stream_format.c). */
    struct {
        bs_keystream_source base;
        const uint8_t *ks; /* block i: the keystream of J0 + i */
        uint32_t j0_low;   /* J0's last 4 bytes */
        uint64_t nblocks;  /* blocks in ks */
    } chunk_src;
} bsf_keys;

/* Writes the 80 header bytes (tag included). */
void bsf_header_encode(uint8_t out[BSF_HEADER_LEN], const bsf_header *h);
/* Parses and range-checks (the tag is checked by bsf_header_verify). 0 or -1 + msg. */
int bsf_header_decode(const uint8_t in[BSF_HEADER_LEN], bsf_header *h, char *err, size_t errlen);

/*
 * Derives the header and payload keys from the master key and the header's nonce, and keys the
 * header and payload GCM contexts. 0 or -1. Release with bsf_keys_wipe.
 */
int bsf_keys_derive(bsf_keys *k, const uint8_t master[32], const uint8_t nonce[16]);
void bsf_keys_wipe(bsf_keys *k);
/* The header tag over the first 48 bytes of the encoded header (k's header context). */
void bsf_header_tag(bsf_keys *k, const uint8_t hdr[BSF_HEADER_LEN], uint8_t tag[32]);

/* Chunk i's J0 (= IV || 00000001), the first counter block of its keystream. */
void bsf_chunk_j0(uint8_t j0[32], uint64_t index, int last);
/* Keystream blocks a chunk of len bytes needs: E(J0) for the tag, then the data blocks. */
uint64_t bsf_chunk_ks_blocks(size_t len);
/* In-process keystream for a chunk: bsf_chunk_ks_blocks(len) blocks from J0. */
void bsf_chunk_keystream(const bsf_keys *k, uint64_t index, int last, size_t len, uint8_t *out);
/*
 * Seals len bytes of chunk (index, last) with its keystream ks (bsf_chunk_keystream's layout:
 * block 0 is E_K(J0), unused here, since the tag's mask is computed in-process; then the data
 * blocks): ct (may equal pt) and the 32-byte tag. Uses k's payload GCM context, so one thread at
 * a time per bsf_keys.
 */
void bsf_chunk_seal(bsf_keys *k, uint64_t index, int last, const uint8_t *ks, uint8_t *ct,
                    const uint8_t *pt, size_t len, uint8_t tag[32]);
/*
 * Checks the tag first, then decrypts: 0, or BS_ERR_AUTH with pt untouched. As seal, one
 * thread at a time per bsf_keys.
 */
int bsf_chunk_open(bsf_keys *k, uint64_t index, int last, const uint8_t *ks, uint8_t *pt,
                   const uint8_t *ct, size_t len, const uint8_t tag[32]);

#endif
