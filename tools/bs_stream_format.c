#include "bs_stream_format.h"

#include <stdio.h>
#include <string.h>

#include "bs_kdf.h"
#include "modes/ctr.h"

void bsf_header_encode(uint8_t out[BSF_HEADER_LEN], const bsf_header *h)
{
    memcpy(out, BSF_MAGIC, 8);
    out[8] = BSF_VERSION;
    out[9] = h->kdf;
    out[10] = h->chunk_log2;
    out[11] = h->scrypt_log_n;
    out[12] = h->scrypt_r;
    out[13] = h->scrypt_p;
    out[14] = out[15] = 0;
    memcpy(out + 16, h->salt, 16);
    memcpy(out + 32, h->nonce, 16);
    memcpy(out + 48, h->tag, 32);
}

int bsf_header_decode(const uint8_t in[BSF_HEADER_LEN], bsf_header *h, char *err, size_t errlen)
{
    if (memcmp(in, BSF_MAGIC, 8) != 0) {
        snprintf(err, errlen, "not a bitslice sealed file (bad magic)");
        return -1;
    }
    if (in[8] != BSF_VERSION) {
        snprintf(err, errlen, "format version %u not supported (this tool reads %u)", in[8],
                 BSF_VERSION);
        return -1;
    }
    h->kdf = in[9];
    h->chunk_log2 = in[10];
    h->scrypt_log_n = in[11];
    h->scrypt_r = in[12];
    h->scrypt_p = in[13];
    memcpy(h->salt, in + 16, 16);
    memcpy(h->nonce, in + 32, 16);
    memcpy(h->tag, in + 48, 32);
    int ok = (h->kdf == BSF_KDF_KEYFILE || h->kdf == BSF_KDF_SCRYPT) &&
             h->chunk_log2 >= BSF_CHUNK_LOG2_MIN && h->chunk_log2 <= BSF_CHUNK_LOG2_MAX &&
             in[14] == 0 && in[15] == 0;
    if (!ok) {
        snprintf(err, errlen, "corrupted header (a parameter is out of range)");
        return -1;
    }
    /*
     * The header is not authenticated until scrypt has run, so its cost must be bounded first:
     * only what seal writes is accepted (r = 8, p = 1, log N in seal's range, so at most
     * BSF_SCRYPT_MAX_MEM bytes and one pass over them).
     */
    if (h->kdf == BSF_KDF_SCRYPT &&
        (h->scrypt_r != BSF_SCRYPT_R || h->scrypt_p != BSF_SCRYPT_P ||
         h->scrypt_log_n < BSF_SCRYPT_LOG_N_MIN || h->scrypt_log_n > BSF_SCRYPT_LOG_N_MAX)) {
        unsigned long long mib = 0;
        if (h->scrypt_log_n < 48)
            mib = (128ull * h->scrypt_r << h->scrypt_log_n) >> 20;
        snprintf(err, errlen,
                 "scrypt parameters this tool never writes (log N %u, r %u, p %u: about %llu MiB "
                 "of memory); accepted: r = %d, p = %d, log N %d..%d (at most %llu MiB)",
                 h->scrypt_log_n, h->scrypt_r, h->scrypt_p, mib, BSF_SCRYPT_R, BSF_SCRYPT_P,
                 BSF_SCRYPT_LOG_N_MIN, BSF_SCRYPT_LOG_N_MAX,
                 (unsigned long long)(BSF_SCRYPT_MAX_MEM >> 20));
        return -1;
    }
    return 0;
}

int bsf_keys_derive(bsf_keys *k, const uint8_t master[32], const uint8_t nonce[16])
{
    memset(k, 0, sizeof *k);
    k->cipher = bs_block_cipher_by_name("RIJNDAEL-256");
    if (k->cipher == NULL)
        return -1;
    if (bscli_kdf_hkdf(master, 32, nonce, 16, "bitslice-stream-v1 header", k->header_key, 32) !=
            0 ||
        bscli_kdf_hkdf(master, 32, nonce, 16, "bitslice-stream-v1 payload", k->payload_key, 32) !=
            0 ||
        bs_gcm256_set_key(&k->payload_gcm, bs_block_cipher_by_name("RIJNDAEL-256"), k->payload_key,
                          32) != BS_OK ||
        bs_gcm256_set_key(&k->header_gcm, bs_block_cipher_by_name("RIJNDAEL-256"), k->header_key,
                          32) != BS_OK) {
        bsf_keys_wipe(k);
        return -1;
    }
    k->cipher->set_key(&k->ks, k->payload_key);
    return 0;
}

void bsf_keys_wipe(bsf_keys *k)
{
    bs_gcm256_clear(&k->payload_gcm);
    bs_gcm256_clear(&k->header_gcm);
    bs_wipe(k, sizeof *k);
}

void bsf_header_tag(bsf_keys *k, const uint8_t hdr[BSF_HEADER_LEN], uint8_t tag[32])
{
    bs_gcm256_ctx *ctx = &k->header_gcm;
    uint8_t iv[BSF_IV_LEN] = {0};
    bs_gcm256_set_iv(ctx, iv, sizeof iv);
    bs_gcm256_aad(ctx, hdr, BSF_HEADER_AUTH_LEN);
    bs_gcm256_tag(ctx, tag, 32);
}

void bsf_chunk_j0(uint8_t j0[32], uint64_t index, int last)
{
    /* IV = 0^19 || index (big-endian 64) || last flag; J0 = IV || 00 00 00 01 (28-byte IV). */
    memset(j0, 0, 32);
    bs_store_be64(j0 + 19, index);
    j0[27] = last ? 1 : 0;
    j0[31] = 1;
}

uint64_t bsf_chunk_ks_blocks(size_t len)
{
    return 1 + ((uint64_t)len + 31) / 32;
}

void bsf_chunk_keystream(const bsf_keys *k, uint64_t index, int last, size_t len, uint8_t *out)
{
    uint8_t j0[32];
    bsf_chunk_j0(j0, index, last);
    /* A chunk is below 2^32 blocks, so incrementing the whole block from J0 equals inc32. */
    bs_ctr_keystream(k->cipher, &k->ks, j0, bsf_chunk_ks_blocks(len), out);
}

/*
 * A chunk is RIJNDAEL-256-GCM under the payload key with its 28-byte IV, computed by
 * core/modes/gcm256 pulling its data keystream from the chunk's keystream ks (E_K(J0), then the
 * data blocks: from the daemon, checked, or in-process), through the source below. E_K(J0), the
 * tag's mask, is computed by gcm256 itself, as everywhere. The context was keyed by
 * bsf_keys_derive; a new IV starts the chunk, and tag/verify leave the key in place. The calls
 * cannot fail: the context is keyed, and the lengths are in range.
 */
static uint64_t chunk_fill(bs_keystream_source *src, const bs_block_cipher *cipher,
                           const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                           int step, const uint8_t *in, uint8_t *out)
{
    (void)cipher;
    (void)ks;
    (void)step; /* inc32; a chunk never comes near its wrap */
    bsf_keys *k = (bsf_keys *)(void *)((char *)src - offsetof(bsf_keys, chunk_src));
    uint64_t first = (uint32_t)(bs_load_be32(counter + 28) - k->chunk_src.j0_low);
    if (k->chunk_src.ks == NULL || first > k->chunk_src.nblocks ||
        nblocks > k->chunk_src.nblocks - first)
        return 0; /* not in this chunk's keystream: the mode computes it in-process */
    const uint8_t *from = k->chunk_src.ks + first * 32;
    if (in != NULL)
        bs_keystream_xor(out, in, from, (size_t)nblocks * 32);
    else
        memcpy(out, from, (size_t)nblocks * 32);
    return nblocks;
}

static bs_keystream_source *chunk_copy(const bs_keystream_source *src)
{
    (void)src;
    return NULL; /* lives in bsf_keys, which is not copied */
}

static void chunk_free(bs_keystream_source *src)
{
    (void)src;
}

static const bs_keystream_ops chunk_ops = {"chunk", NULL, chunk_fill, chunk_copy, chunk_free};

static bs_gcm256_ctx *chunk_ctx(bsf_keys *k, uint64_t index, int last, const uint8_t *ks,
                                size_t len)
{
    uint8_t j0[32];
    bsf_chunk_j0(j0, index, last);
    bs_gcm256_ctx *g = &k->payload_gcm;
    /* Pointed at again for every chunk: the source lives in k, beside the context. */
    k->chunk_src.base.ops = &chunk_ops;
    k->chunk_src.ks = ks;
    k->chunk_src.j0_low = bs_load_be32(j0 + 28);
    k->chunk_src.nblocks = bsf_chunk_ks_blocks(len);
    bs_gcm256_set_source(g, &k->chunk_src.base);
    bs_gcm256_set_iv(g, j0, BSF_IV_LEN);
    return g;
}

void bsf_chunk_seal(bsf_keys *k, uint64_t index, int last, const uint8_t *ks, uint8_t *ct,
                    const uint8_t *pt, size_t len, uint8_t tag[32])
{
    bs_gcm256_ctx *g = chunk_ctx(k, index, last, ks, len);
    bs_gcm256_encrypt(g, ct, pt, len);
    bs_gcm256_tag(g, tag, 32);
}

int bsf_chunk_open(bsf_keys *k, uint64_t index, int last, const uint8_t *ks, uint8_t *pt,
                   const uint8_t *ct, size_t len, const uint8_t tag[32])
{
    bs_gcm256_ctx *g = chunk_ctx(k, index, last, ks, len);
    /* Authenticate first: the plaintext goes to a scratch piece and is dropped. */
    uint8_t scratch[4096];
    for (size_t off = 0; off < len; off += sizeof scratch) {
        size_t n = len - off < sizeof scratch ? len - off : sizeof scratch;
        bs_gcm256_decrypt(g, scratch, ct + off, n);
    }
    bs_wipe(scratch, sizeof scratch);
    int rc = bs_gcm256_verify(g, tag, 32);
    if (rc != BS_OK)
        return BS_ERR_AUTH;
    bs_keystream_xor(pt, ct, ks + 32, len);
    return 0;
}
