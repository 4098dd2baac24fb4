/*
 * rijndael256.h: bitsliced, constant-time Rijndael with Nb = 8, Nk = 8, Nr = 14
 * (docs/spec/algorithms.md): state[r][c] = in[r + 4c], ShiftRows offsets (0, 1, 3, 4), AES-256 key
 * expansion run to 120 words.
 *
 * Layout (fully bitsliced, one block per lane). A pass holds L blocks in 256 words of a type W
 * with L bits (uint64_t: L = 64 on the host; uint32_t: L = 32, for a GPU thread or an MCU):
 *
 *     q[32 * j + 8 * r + c], bit k  =  bit j (0 = least significant) of state[r][c] of block k
 *                                   =  bit j of byte r + 4c of block k's input or output.
 *
 * So a word holds one bit-plane of one byte position across all blocks; plane j of the state is
 * the 32 words q[32j .. 32j + 31], row by row. Rows are runs of 8 words (one per column), so that
 * every step of a round is a loop over columns with unit stride, which compilers vectorize; the
 * S-box runs on 8 words at stride 32. ShiftRows moves no data: the linear layer reads each row
 * rotated (bs_r256_round*). bs_r256_index(p, j) = 32j + 8(p mod 4) + p / 4 for input byte p.
 *
 * Round keys use the same layout, each bit widened to a lane mask (0 or all ones), so that
 * AddRoundKey is 256 XORs: rk[256 * round + 32 * j + 8 * r + c] = -(bit j of round key byte
 * r + 4c). 64-lane masks serve 32 lanes through their low halves.
 *
 * S-box: the depth-16 circuit of Boyar and Peralta ("A depth-16 circuit for the AES S-box",
 * 2011; 34 AND, 94 XOR/XNOR), written from the paper with inputs U0..U7 = bits 7..0. The four
 * XNORs add the affine constant 0x63; bs_r256_sbox64/32 leave it out. Because the constant 0x63 in
 * every byte passes unchanged through ShiftRows and MixColumns (2 + 3 + 1 + 1 = 1 in GF(2^8)),
 * the encryption folds it into round keys 1..14 instead (see bs_r256_key_masks64).
 *
 * Packing: block bytes 8m..8m+7 read as a little-endian uint64_t, for the 64 blocks, form a
 * 64 x 64 bit matrix (row k = block k); its transpose has plane j of byte 8m + o in row 8o + j,
 * which is then stored at bs_r256_index(8m + o, j). The 32-lane packing does the same with
 * 32 x 32 matrices of 4-byte groups.
 */
#ifndef BS_RIJNDAEL256_H
#define BS_RIJNDAEL256_H

#include "../bitslice.h"

#define BS_R256_ROUNDS 14
#define BS_R256_BLOCK 32
/* Words per bitsliced state and per round key. */
#define BS_R256_WORDS 256
/*
 * Compact round keys (export_round_keys; the CUDA kernels' key): round key n (n = 0..14) in
 * words 8n..8n+7, byte p in bits 8 (p mod 4) .. 8 (p mod 4) + 7 of word 8n + p / 4, exactly as
 * masked (0x63 folded into keys 1..14).
 */
#define BS_R256_COMPACT_WORDS (8 * (BS_R256_ROUNDS + 1))

/*
 * The S-box circuit without the affine constant, on 8 words (rijndael256_sbox.inc.h):
 * bs_r256_sbox64 and bs_r256_sbox32. Then the rounds after SubBytes and the whole cipher on one
 * bitsliced state (rijndael256_rounds.inc.h): bs_r256_round<SFX>_last / _mix and
 * bs_r256_encrypt<SFX>(q, rk) for 64 lanes (SFX 64), 32 lanes (32), and 32 lanes keyed by the
 * 64-lane masks (32k64: a mask's low half is the 32-lane mask).
 */
#define BS_W uint64_t
#define BS_R256_SBOX bs_r256_sbox64
#include "rijndael256_sbox.inc.h"
#define BS_KW uint64_t
#define BS_SFX 64
#include "rijndael256_rounds.inc.h"
#undef BS_W
#undef BS_KW
#undef BS_SFX
#undef BS_R256_SBOX

#define BS_W uint32_t
#define BS_R256_SBOX bs_r256_sbox32
#include "rijndael256_sbox.inc.h"
#define BS_KW uint32_t
#define BS_SFX 32
#include "rijndael256_rounds.inc.h"
#undef BS_KW
#undef BS_SFX
#define BS_KW uint64_t
#define BS_SFX 32k64
#include "rijndael256_rounds.inc.h"
#undef BS_W
#undef BS_KW
#undef BS_SFX
#undef BS_R256_SBOX

/* Index in the state (and in a round key) of plane j of input byte p = r + 4c. */
BS_FN int bs_r256_index(int p, int j)
{
    return 32 * j + 8 * (p & 3) + (p >> 2);
}

/*
 * Block loads and stores: a plain (unaligned) load where the host is little-endian, which
 * compilers vectorize; byte assembly elsewhere.
 */
BS_FN uint64_t bs_r256_load64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    return bs_load_le64(p);
#endif
}

BS_FN void bs_r256_store64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    bs_store_le64(p, v);
#endif
}

/*
 * Four 64 x 64 bit transposes side by side: a[4i + g] is row i of matrix g, and each matrix
 * goes (row i, bit b) -> (row b, bit i), by SWAPMOVE at distances 32, 16, ..., 1. Each level
 * pairs runs of 4s contiguous words, so that compilers vectorize it. Its own inverse.
 */
BS_FN void bs_r256_transpose_level64x4(uint64_t *a, unsigned s, uint64_t m)
{
    for (unsigned i = 0; i < 256; i += 8 * s)
        for (unsigned w = i; w < i + 4 * s; w++)
            bs_swapmove64(&a[w + 4 * s], &a[w], m, s);
}

BS_FN void bs_r256_transpose64x4(uint64_t *a)
{
    bs_r256_transpose_level64x4(a, 32, 0x00000000FFFFFFFFull);
    bs_r256_transpose_level64x4(a, 16, 0x0000FFFF0000FFFFull);
    bs_r256_transpose_level64x4(a, 8, 0x00FF00FF00FF00FFull);
    bs_r256_transpose_level64x4(a, 4, 0x0F0F0F0F0F0F0F0Full);
    bs_r256_transpose_level64x4(a, 2, 0x3333333333333333ull);
    bs_r256_transpose_level64x4(a, 1, 0x5555555555555555ull);
}

/*
 * Packs 64 blocks (in, nblocks * 32 bytes, any alignment) into the layout above; blocks past
 * nblocks are zero. Block k's bytes 8g..8g+7 are row k of matrix g; after the transposes, row
 * 8o + j of matrix g is plane j of byte p = 8g + o, i.e. of row p mod 4 = o mod 4 and column
 * p / 4 = 2g + o / 4.
 */
BS_FN void bs_r256_pack64(uint64_t *q, const uint8_t *in, size_t nblocks)
{
    uint64_t a[4 * 64];
    for (size_t k = 0; k < nblocks; k++)
        for (int g = 0; g < 4; g++)
            a[4 * k + g] = bs_r256_load64(in + 32 * k + 8 * g);
    for (size_t k = nblocks; k < 64; k++)
        for (int g = 0; g < 4; g++)
            a[4 * k + g] = 0;
    bs_r256_transpose64x4(a);
    for (int o = 0; o < 8; o++)
        for (int j = 0; j < 8; j++)
            for (int g = 0; g < 4; g++)
                q[32 * j + 8 * (o & 3) + 2 * g + (o >> 2)] = a[32 * o + 4 * j + g];
}

/* The inverse of bs_r256_pack64, for the first nblocks blocks. */
BS_FN void bs_r256_unpack64(uint8_t *out, const uint64_t *q, size_t nblocks)
{
    uint64_t a[4 * 64];
    for (int o = 0; o < 8; o++)
        for (int j = 0; j < 8; j++)
            for (int g = 0; g < 4; g++)
                a[32 * o + 4 * j + g] = q[32 * j + 8 * (o & 3) + 2 * g + (o >> 2)];
    bs_r256_transpose64x4(a);
    for (size_t k = 0; k < nblocks; k++)
        for (int g = 0; g < 4; g++)
            bs_r256_store64(out + 32 * k + 8 * g, a[4 * k + g]);
}

BS_FN void bs_r256_transpose_level32(uint32_t *a, unsigned s, uint32_t m)
{
    for (unsigned i = 0; i < 32; i += 2 * s)
        for (unsigned k = i; k < i + s; k++)
            bs_swapmove32(&a[k + s], &a[k], m, s);
}

/* One 32 x 32 transpose, for 32 lanes: matrix m holds the 4 bytes of column m (little-endian). */
BS_FN void bs_r256_transpose32(uint32_t *a)
{
    bs_r256_transpose_level32(a, 16, 0x0000FFFFu);
    bs_r256_transpose_level32(a, 8, 0x00FF00FFu);
    bs_r256_transpose_level32(a, 4, 0x0F0F0F0Fu);
    bs_r256_transpose_level32(a, 2, 0x33333333u);
    bs_r256_transpose_level32(a, 1, 0x55555555u);
}

/* bs_r256_pack64 and bs_r256_unpack64 for 32 lanes (32 blocks). */
BS_FN void bs_r256_pack32(uint32_t *q, const uint8_t *in, size_t nblocks)
{
    uint32_t a[32];
    for (int m = 0; m < 8; m++) {
        for (size_t k = 0; k < 32; k++)
            a[k] = k < nblocks ? bs_load_le32(in + 32 * k + 4 * m) : 0;
        bs_r256_transpose32(a);
        for (int b = 0; b < 32; b++)
            q[bs_r256_index(4 * m + (b >> 3), b & 7)] = a[b];
    }
}

BS_FN void bs_r256_unpack32(uint8_t *out, const uint32_t *q, size_t nblocks)
{
    uint32_t a[32];
    for (int m = 0; m < 8; m++) {
        for (int b = 0; b < 32; b++)
            a[b] = q[bs_r256_index(4 * m + (b >> 3), b & 7)];
        bs_r256_transpose32(a);
        for (size_t k = 0; k < nblocks; k++)
            bs_store_le32(out + 32 * k + 4 * m, a[k]);
    }
}

/*
 * The 8 x 8 bit transpose of x (byte i = row i, bit j = column j): bit 8i + j <-> bit 8j + i,
 * by three delta swaps on 2 x 2, 4 x 4 and 8 x 8 blocks. Its own inverse.
 */
BS_FN uint64_t bs_r256_transpose8x8(uint64_t x)
{
    uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    return x ^ t ^ (t << 28);
}

/*
 * SubWord through the S-box circuit, one lane per byte: no table. t: the word's 4 bytes as a
 * little-endian uint32_t; the transpose turns byte b's bit j into bit b of plane j (byte j).
 */
BS_FN uint32_t bs_r256_sub_word32(uint32_t t)
{
    uint32_t q[8];
    uint64_t x = bs_r256_transpose8x8(t);
    for (int j = 0; j < 8; j++)
        q[j] = (uint32_t)(x >> (8 * j)) & 0xFu;
    bs_r256_sbox32(q, 1, q, 1);
    x = 0;
    for (int j = 0; j < 8; j++)
        x |= (uint64_t)(q[j] & 0xFu) << (8 * j);
    return (uint32_t)bs_r256_transpose8x8(x) ^ 0x63636363u;
}

/*
 * export_round_keys of the cores whose schedule is bs_r256_key_expand's bytes as they are (AES-NI,
 * VAES): the compact layout above, 0x63 folded into keys 1..14 as the bitsliced cores have it.
 */
static inline int bs_r256_export_byte_keys(const uint8_t *rk, uint32_t *out, size_t nwords)
{
    if (nwords < BS_R256_COMPACT_WORDS)
        return -1;
    for (unsigned i = 0; i < BS_R256_COMPACT_WORDS; i++)
        out[i] = bs_load_le32(rk + 4 * i) ^ (i >= 8 ? 0x63636363u : 0);
    return 0;
}

/*
 * AES-256 key expansion run to 120 words (FIPS-197 5.2 with Nb = 8), constant-time: only the
 * word index (public) decides branches. w receives 120 * 4 bytes, word i at w[4i], so round key
 * n is w[32n .. 32n + 31] in input byte order. Words are handled as little-endian uint32_t
 * (byte 0 least significant), so RotWord is a rotation right by 8.
 */
BS_FN void bs_r256_key_expand(uint8_t *w, const uint8_t *key)
{
    uint32_t k[8];
    uint32_t rcon = 1;
    for (int i = 0; i < 8; i++) {
        k[i] = bs_load_le32(key + 4 * i);
        bs_store_le32(w + 4 * i, k[i]);
    }
    for (int i = 8; i < 120; i++) {
        uint32_t t = k[(i - 1) & 7];
        if (i % 8 == 0) {
            t = bs_r256_sub_word32((t >> 8) | (t << 24)) ^ rcon;
            rcon = (rcon << 1) ^ (0x11bu & (0u - (rcon >> 7)));
        } else if (i % 8 == 4) {
            t = bs_r256_sub_word32(t);
        }
        k[i & 7] ^= t;
        bs_store_le32(w + 4 * i, k[i & 7]);
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * bs_r256_key_expand on AESENCLAST (rijndael256_aesni.c), bit-exact; w 16-byte aligned.
 * Call only where the CPU has AES-NI (the aesni and vaes cores' set_key).
 */
void bs_r256_key_expand_aesni(uint8_t *w, const uint8_t *key);
#endif

/*
 * Widens the expanded key into the mask layout above (15 * 256 words), round keys 1..14 with
 * the S-box constant folded in: bs_r256_key_masks64 and bs_r256_key_masks32.
 */
#define BS_W uint64_t
#define BS_SFX 64
#include "rijndael256_key_masks.inc.h"
#undef BS_W
#undef BS_SFX
#define BS_W uint32_t
#define BS_SFX 32
#include "rijndael256_key_masks.inc.h"
#undef BS_W
#undef BS_SFX

/*
 * The one-block 32-bit variant (rijndael256_ct32.c; Cortex-M3/M4 and RV32I): its components on
 * one packed block (q: eight 32-bit slices, layout in that file), exported for the
 * per-component benchmark. rk: BS_R256_CT32_RK_WORDS (15 round keys of 8 slices), kept at the
 * start of its bs_key_schedule.
 */
#define BS_R256_CT32_RK_WORDS (8 * 15)
void bs_r256ct32_pack(uint32_t q[8], const uint8_t *in);
void bs_r256ct32_unpack(uint8_t *out, uint32_t q[8]);
void bs_r256ct32_subbytes(uint32_t q[8]);
void bs_r256ct32_shiftrows(uint32_t q[8]);
void bs_r256ct32_mixcolumns(uint32_t q[8]);
void bs_r256ct32_addroundkey(uint32_t q[8], const uint32_t rk[8]);
void bs_r256ct32_encrypt_block(const uint32_t *rk, uint8_t *out, const uint8_t *in);

/*
 * The Rijndael-256 implementations, and the folder's lists of them for bs_registry.c, best first:
 * BS_RIJNDAEL256_IMPLS the host's, BS_RIJNDAEL256_MCU_IMPLS the 32-bit MCU variants (empty where
 * not built).
 */
#ifdef __cplusplus
extern "C" {
#endif
extern const bs_block_cipher bs_rijndael256_vaes;
extern const bs_block_cipher bs_rijndael256_aesni;
extern const bs_block_cipher bs_rijndael256_bs64;
extern const bs_block_cipher bs_rijndael256_ct32;
#ifdef __cplusplus
}
#endif
#if defined(BS_HAVE_RIJNDAEL256) && defined(BS_HAVE_X86)
#define BS_RIJNDAEL256_X86_IMPLS &bs_rijndael256_vaes, &bs_rijndael256_aesni,
#else
#define BS_RIJNDAEL256_X86_IMPLS
#endif
#ifdef BS_HAVE_RIJNDAEL256
#define BS_RIJNDAEL256_IMPLS BS_RIJNDAEL256_X86_IMPLS &bs_rijndael256_bs64,
#else
#define BS_RIJNDAEL256_IMPLS
#endif
#if defined(BS_HAVE_RIJNDAEL256) || defined(BS_HAVE_MCU_RIJNDAEL256)
#define BS_RIJNDAEL256_MCU_IMPLS &bs_rijndael256_ct32,
#else
#define BS_RIJNDAEL256_MCU_IMPLS
#endif

#endif
