/* bs_kdf.h: keys for the bitslice CLI: scrypt and HKDF-SHA256 through OpenSSL's EVP_KDF, key files.
 */
#ifndef BS_KDF_H
#define BS_KDF_H

#include <stddef.h>
#include <stdint.h>

/* scrypt(pass, salt, N = 2^log_n, r, p) -> out (len bytes). 0 or -1. */
int bscli_kdf_scrypt(const char *pass, size_t pass_len, const uint8_t *salt, size_t salt_len,
                     unsigned log_n, unsigned r, unsigned p, uint8_t *out, size_t len);
/* HKDF-SHA256 (RFC 5869) extract-and-expand. 0 or -1. */
int bscli_kdf_hkdf(const uint8_t *ikm, size_t ikm_len, const uint8_t *salt, size_t salt_len,
                   const char *info, uint8_t *out, size_t len);
/* A key file: 32 raw bytes, or 64 hex digits (surrounding whitespace ignored). 0 or -1 + msg. */
int bscli_read_key_file(const char *path, uint8_t key[32], char *err, size_t errlen);
/*
 * A passphrase: the first line of path, or from the terminal without echo (asked twice when
 * confirm is set). Returns its length, or -1 + msg.
 */
int bscli_read_passphrase(const char *path, int confirm, char *out, size_t outlen, char *err,
                          size_t errlen);
/* Fills p with n bytes from the kernel's CSPRNG. 0 or -1. */
int bscli_random(uint8_t *p, size_t n);

#endif
