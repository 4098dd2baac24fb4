/*
 * A board example: the application side of the library on a microcontroller, as small as it
 * gets. It encrypts a buffer with AES-128-GCM (modes/gcm128.h over the fixsliced AES core the
 * descriptor registry picks, bs_block_cipher_by_name("AES-128")), prints the ciphertext and
 * the tag on stdout, decrypts it again with the tag check, and runs AES-128-CTR through the
 * same descriptor and modes/ctr.h, and the first-order masked AES-128 (aes/aes_masked.h) with
 * the board's randomness.
 *
 * stdout is picolibc's: QEMU's semihosting console in the cross builds (the meson test runs
 * this under QEMU), a FILE over the board's UART on a board. The data are the published GCM
 * test case 4 (McGrew and Viega, the GCM specification; also tests/kat/gcm128.kat), so the
 * printed tag can be compared with the paper: 5bc94fbc3221a5db94fae95ae7121a47. The program
 * checks that itself and exits 1 on any difference (QEMU's exit status).
 */
#include <stdio.h>
#include <string.h>

#include "aes/aes_masked.h"
#include "bitslice.h"
#include "modes/ctr.h"
#include "modes/gcm128.h"

static const uint8_t key[16] = {0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c,
                                0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08};
static const uint8_t iv[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce,
                               0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};
static const uint8_t aad[20] = {0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed,
                                0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xab, 0xad, 0xda, 0xd2};
static const uint8_t message[60] = {
    0xd9, 0x31, 0x32, 0x25, 0xf8, 0x84, 0x06, 0xe5, 0xa5, 0x59, 0x09, 0xc5, 0xaf, 0xf5, 0x26,
    0x9a, 0x86, 0xa7, 0xa9, 0x53, 0x15, 0x34, 0xf7, 0xda, 0x2e, 0x4c, 0x30, 0x3d, 0x8a, 0x31,
    0x8a, 0x72, 0x1c, 0x3c, 0x0c, 0x95, 0x95, 0x68, 0x09, 0x53, 0x2f, 0xcf, 0x0e, 0x24, 0x49,
    0xa6, 0xb5, 0x25, 0xb1, 0x6a, 0xed, 0xf5, 0xaa, 0x0d, 0xe6, 0x57, 0xba, 0x63, 0x7b, 0x39};
static const uint8_t published_tag[16] = {0x5b, 0xc9, 0x4f, 0xbc, 0x32, 0x21, 0xa5, 0xdb,
                                          0x94, 0xfa, 0xe9, 0x5a, 0xe7, 0x12, 0x1a, 0x47};

/* Large contexts are static: they hold a key schedule (sizes: embedded/README.md). */
static bs_gcm128_ctx gcm;
static bs_ctr_ctx ctr;
static bs_aes128_masked_key masked;
static bs_key_schedule ks;
static uint8_t buf[sizeof message];

static void print_hex(const char *label, const uint8_t *p, size_t n)
{
    printf("%s", label);
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
    printf("\n");
}

/* The board's random words for the masked core. Here a fixed-seed xorshift32 so that QEMU
 * runs are repeatable; on a board, read the TRNG (unpredictable words, never reused). */
static void board_rng(void *ctx, uint32_t *out, size_t n)
{
    uint32_t *x = ctx;
    for (size_t i = 0; i < n; i++) {
        *x ^= *x << 13;
        *x ^= *x >> 17;
        *x ^= *x << 5;
        out[i] = *x;
    }
}

int main(void)
{
    uint8_t tag[16];
    int rc, bad = 0;

    /* AES-128-GCM: key, IV, AAD, data (in place, in any split), tag */
    memcpy(buf, message, sizeof buf);
    rc = bs_gcm128_set_key(&gcm, bs_block_cipher_by_name("AES-128"), key, sizeof key);
    if (rc == BS_OK)
        rc = bs_gcm128_set_iv(&gcm, iv, sizeof iv);
    if (rc == BS_OK)
        rc = bs_gcm128_aad(&gcm, aad, sizeof aad);
    if (rc == BS_OK)
        rc = bs_gcm128_encrypt(&gcm, buf, buf, 25); /* a stream may be split anywhere */
    if (rc == BS_OK)
        rc = bs_gcm128_encrypt(&gcm, buf + 25, buf + 25, sizeof buf - 25);
    if (rc == BS_OK)
        rc = bs_gcm128_tag(&gcm, tag, sizeof tag);
    if (rc != BS_OK) {
        printf("AES-128-GCM: %s\n", bs_strerror(rc));
        return 1;
    }
    printf("AES-128-GCM over %s (%s)\n", gcm.cipher->name, gcm.cipher->impl);
    print_hex("ciphertext ", buf, sizeof buf);
    print_hex("tag ", tag, sizeof tag);
    if (memcmp(tag, published_tag, sizeof tag) != 0) {
        printf("the tag differs from the published one\n");
        bad = 1;
    }

    /* ... and back: decrypt, then the constant-time tag check */
    rc = bs_gcm128_set_iv(&gcm, iv, sizeof iv);
    if (rc == BS_OK)
        rc = bs_gcm128_aad(&gcm, aad, sizeof aad);
    if (rc == BS_OK)
        rc = bs_gcm128_decrypt(&gcm, buf, buf, sizeof buf);
    if (rc == BS_OK)
        rc = bs_gcm128_verify(&gcm, tag, sizeof tag);
    printf("decrypt and verify: %s\n", bs_strerror(rc));
    if (rc != BS_OK || memcmp(buf, message, sizeof buf) != 0)
        bad = 1;
    bs_gcm128_clear(&gcm);

    /* AES-128-CTR through the descriptor: the 16-byte IV is the first counter block; CTR
     * encryption of the message must equal GCM's (whose first data counter is J0 + 1). */
    const bs_block_cipher *aes = bs_block_cipher_by_name("AES-128");
    uint8_t ctr0[16], ctrbuf[sizeof message];
    memcpy(ctr0, iv, 12);
    ctr0[12] = ctr0[13] = ctr0[14] = 0;
    ctr0[15] = 2;
    rc = aes ? bs_ctr_set_key(&ctr, aes, key, sizeof key) : BS_ERR_STATE;
    if (rc == BS_OK)
        rc = bs_ctr_set_iv(&ctr, ctr0, bs_ctr_iv_len(aes));
    if (rc == BS_OK)
        rc = bs_ctr_crypt(&ctr, ctrbuf, message, sizeof message);
    bs_ctr_clear(&ctr);
    memcpy(buf, message, sizeof buf);
    bs_gcm128_set_key(&gcm, bs_block_cipher_by_name("AES-128"), key, sizeof key);
    bs_gcm128_set_iv(&gcm, iv, sizeof iv);
    bs_gcm128_encrypt(&gcm, buf, buf, sizeof buf);
    bs_gcm128_clear(&gcm);
    printf("AES-128-CTR: %s, %s GCM's ciphertext\n", bs_strerror(rc),
           rc == BS_OK && memcmp(ctrbuf, buf, sizeof buf) == 0 ? "equals" : "DIFFERS FROM");
    if (rc != BS_OK || memcmp(ctrbuf, buf, sizeof buf) != 0)
        bad = 1;

    /* First-order masked AES-128 on two blocks, randomness from the board */
    uint32_t seed = 0x2545f491u;
    uint8_t two[32], plain[32], ref[32];
    memcpy(plain, message, 32);
    bs_aes128_masked_set_key(&masked, key, board_rng, &seed);
    bs_aes128_masked_2blocks(&masked, two, plain, board_rng, &seed);
    bs_aes128_masked_clear(&masked);
    if (aes == NULL)
        return 1;
    aes->set_key(&ks, key);
    aes->encrypt(&ks, ref, plain, 2);
    bs_wipe(&ks, sizeof ks);
    print_hex("masked AES-128, block 0 ", two, 16);
    printf("masked AES-128: %s the unmasked core\n",
           memcmp(two, ref, 32) == 0 ? "equals" : "DIFFERS FROM");
    if (memcmp(two, ref, 32) != 0)
        bad = 1;

    printf(bad ? "FAIL\n" : "ok\n");
    return bad;
}
