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

#include "../bs_common.h"

#define BS_R256_ROUNDS 14
#define BS_R256_BLOCK 32
/* Words per bitsliced state and per round key. */
#define BS_R256_WORDS 256

/*
 * The S-box circuit without the affine constant, on 8 words of any unsigned type: in[j * istride]
 * holds bit j of the input, out[j * ostride] receives bit j of the output (in place is fine).
 * Instantiated below for uint64_t and uint32_t.
 */
#define BS_R256_DEFINE_SBOX(name, W)                                                               \
    BS_FN void name(W *out, size_t ostride, const W *in, size_t istride)                           \
    {                                                                                              \
        const W U0 = in[7 * istride], U1 = in[6 * istride], U2 = in[5 * istride];                  \
        const W U3 = in[4 * istride], U4 = in[3 * istride], U5 = in[2 * istride];                  \
        const W U6 = in[istride], U7 = in[0];                                                      \
        /* top linear layer */                                                                     \
        const W T1 = U0 ^ U3, T2 = U0 ^ U5, T3 = U0 ^ U6, T4 = U3 ^ U5, T5 = U4 ^ U6;              \
        const W T6 = T1 ^ T5, T7 = U1 ^ U2, T8 = U7 ^ T6, T9 = U7 ^ T7, T10 = T6 ^ T7;             \
        const W T11 = U1 ^ U5, T12 = U2 ^ U5, T13 = T3 ^ T4, T14 = T6 ^ T11;                       \
        const W T15 = T5 ^ T11, T16 = T5 ^ T12, T17 = T9 ^ T16, T18 = U3 ^ U7;                     \
        const W T19 = T7 ^ T18, T20 = T1 ^ T19, T21 = U6 ^ U7, T22 = T7 ^ T21;                     \
        const W T23 = T2 ^ T22, T24 = T2 ^ T10, T25 = T20 ^ T17, T26 = T3 ^ T16;                   \
        const W T27 = T1 ^ T12;                                                                    \
        /* shared nonlinear middle: inversion in GF(2^4)^2 */                                      \
        const W M1 = T13 & T6, M2 = T23 & T8, M3 = T14 ^ M1, M4 = T19 & U7, M5 = M4 ^ M1;          \
        const W M6 = T3 & T16, M7 = T22 & T9, M8 = T26 ^ M6, M9 = T20 & T17, M10 = M9 ^ M6;        \
        const W M11 = T1 & T15, M12 = T4 & T27, M13 = M12 ^ M11, M14 = T2 & T10;                   \
        const W M15 = M14 ^ M11, M16 = M3 ^ M2, M17 = M5 ^ T24, M18 = M8 ^ M7;                     \
        const W M19 = M10 ^ M15, M20 = M16 ^ M13, M21 = M17 ^ M15, M22 = M18 ^ M13;                \
        const W M23 = M19 ^ T25, M24 = M22 ^ M23, M25 = M22 & M20, M26 = M21 ^ M25;                \
        const W M27 = M20 ^ M21, M28 = M23 ^ M25, M29 = M28 & M27, M30 = M26 & M24;                \
        const W M31 = M20 & M23, M32 = M27 & M31, M33 = M27 ^ M25, M34 = M21 & M22;                \
        const W M35 = M24 & M34, M36 = M24 ^ M25, M37 = M21 ^ M29, M38 = M32 ^ M33;                \
        const W M39 = M23 ^ M30, M40 = M35 ^ M36, M41 = M38 ^ M40, M42 = M37 ^ M39;                \
        const W M43 = M37 ^ M38, M44 = M39 ^ M40, M45 = M42 ^ M41;                                 \
        const W M46 = M44 & T6, M47 = M40 & T8, M48 = M39 & U7, M49 = M43 & T16;                   \
        const W M50 = M38 & T9, M51 = M37 & T17, M52 = M42 & T15, M53 = M45 & T27;                 \
        const W M54 = M41 & T10, M55 = M44 & T13, M56 = M40 & T23, M57 = M39 & T19;                \
        const W M58 = M43 & T3, M59 = M38 & T22, M60 = M37 & T20, M61 = M42 & T1;                  \
        const W M62 = M45 & T4, M63 = M41 & T2;                                                    \
        /* bottom linear layer */                                                                  \
        const W L0 = M61 ^ M62, L1 = M50 ^ M56, L2 = M46 ^ M48, L3 = M47 ^ M55;                    \
        const W L4 = M54 ^ M58, L5 = M49 ^ M61, L6 = M62 ^ L5, L7 = M46 ^ L3;                      \
        const W L8 = M51 ^ M59, L9 = M52 ^ M53, L10 = M53 ^ L4, L11 = M60 ^ L2;                    \
        const W L12 = M48 ^ M51, L13 = M50 ^ L0, L14 = M52 ^ M61, L15 = M55 ^ L1;                  \
        const W L16 = M56 ^ L0, L17 = M57 ^ L1, L18 = M58 ^ L8, L19 = M63 ^ L4;                    \
        const W L20 = L0 ^ L1, L21 = L1 ^ L7, L22 = L3 ^ L12, L23 = L18 ^ L2;                      \
        const W L24 = L15 ^ L9, L25 = L6 ^ L10, L26 = L7 ^ L9, L27 = L8 ^ L10;                     \
        const W L28 = L11 ^ L14, L29 = L11 ^ L17;                                                  \
        /* S0..S7 = bits 7..0; the paper's XNORs on S1, S2, S6, S7 are the constant 0x63 */        \
        out[7 * ostride] = L6 ^ L24;                                                               \
        out[6 * ostride] = L16 ^ L26;                                                              \
        out[5 * ostride] = L19 ^ L28;                                                              \
        out[4 * ostride] = L6 ^ L21;                                                               \
        out[3 * ostride] = L20 ^ L22;                                                              \
        out[2 * ostride] = L25 ^ L29;                                                              \
        out[1 * ostride] = L13 ^ L27;                                                              \
        out[0 * ostride] = L6 ^ L23;                                                               \
    }

/*
 * One round after SubBytes, for any word type: ShiftRows, MixColumns (unless last) and
 * AddRoundKey, from u to s. u holds the S-box outputs with each row stored twice (plane j, row r,
 * column c at u[64j + 16r + c] and u[64j + 16r + 8 + c]), so that the rotated row that ShiftRows
 * reads is a contiguous run: row r of column c after ShiftRows is u[64j + 16r + shift[r] + c].
 * MixColumns: out_r = a_r ^ t ^ xtime(a_r ^ a_(r+1)) with t = a0 ^ a1 ^ a2 ^ a3; xtime on planes
 * is a renaming (plane j - 1 to plane j) plus the reduction by 0x1b (plane 7 into 1, 3 and 4).
 * Every innermost loop runs over the 8 columns with unit stride, so that compilers vectorize it.
 */
#define BS_R256_DEFINE_ROUND(name, W, KW)                                                          \
    BS_FN void name##_last(W *s, const W *u, const KW *k)                                          \
    {                                                                                              \
        for (int j = 0; j < 8; j++)                                                                \
            for (int c = 0; c < 8; c++) {                                                          \
                const W *uj = u + 64 * j + c;                                                      \
                s[32 * j + c] = uj[0] ^ (W)k[32 * j + c];                                          \
                s[32 * j + 8 + c] = uj[16 + 1] ^ (W)k[32 * j + 8 + c];                             \
                s[32 * j + 16 + c] = uj[32 + 3] ^ (W)k[32 * j + 16 + c];                           \
                s[32 * j + 24 + c] = uj[48 + 4] ^ (W)k[32 * j + 24 + c];                           \
            }                                                                                      \
    }                                                                                              \
    BS_FN void name##_mix(W *s, const W *u, const KW *k)                                           \
    {                                                                                              \
        W v[4][8][8]; /* v[r][j][c] = plane j of a_r ^ a_(r+1) in column c */                      \
        for (int j = 0; j < 8; j++)                                                                \
            for (int c = 0; c < 8; c++) {                                                          \
                const W *uj = u + 64 * j + c;                                                      \
                const W a0 = uj[0], a1 = uj[16 + 1], a2 = uj[32 + 3], a3 = uj[48 + 4];             \
                v[0][j][c] = a0 ^ a1;                                                              \
                v[1][j][c] = a1 ^ a2;                                                              \
                v[2][j][c] = a2 ^ a3;                                                              \
                v[3][j][c] = a3 ^ a0;                                                              \
            }                                                                                      \
        for (int j = 0; j < 8; j++) {                                                              \
            const int jm = (j + 7) & 7;                                                            \
            const W red = (j == 1 || j == 3 || j == 4) ? (W) ~(W)0 : (W)0;                         \
            for (int c = 0; c < 8; c++) {                                                          \
                const W *uj = u + 64 * j + c;                                                      \
                const KW *kj = k + 32 * j + c;                                                     \
                W *sj = s + 32 * j + c;                                                            \
                const W t = v[0][j][c] ^ v[2][j][c];                                               \
                sj[0] = uj[0] ^ t ^ v[0][jm][c] ^ (v[0][7][c] & red) ^ (W)kj[0];                   \
                sj[8] = uj[16 + 1] ^ t ^ v[1][jm][c] ^ (v[1][7][c] & red) ^ (W)kj[8];              \
                sj[16] = uj[32 + 3] ^ t ^ v[2][jm][c] ^ (v[2][7][c] & red) ^ (W)kj[16];            \
                sj[24] = uj[48 + 4] ^ t ^ v[3][jm][c] ^ (v[3][7][c] & red) ^ (W)kj[24];            \
            }                                                                                      \
        }                                                                                          \
    }

/*
 * The whole cipher on one bitsliced state q (256 words) with round keys as masks
 * (15 * 256 words), for any word type; sbox and round name the instances above.
 */
#define BS_R256_DEFINE_ENCRYPT(name, W, KW, sbox, round_fn)                                        \
    BS_FN void name(W *q, const KW *rk)                                                            \
    {                                                                                              \
        W u[2 * BS_R256_WORDS];                                                                    \
        for (int i = 0; i < BS_R256_WORDS; i++)                                                    \
            q[i] ^= (W)rk[i];                                                                      \
        for (int round = 1; round <= BS_R256_ROUNDS; round++) {                                    \
            for (int r = 0; r < 4; r++)                                                            \
                for (int c = 0; c < 8; c++) {                                                      \
                    W y[8];                                                                        \
                    sbox(y, 1, q + 8 * r + c, 32);                                                 \
                    for (int j = 0; j < 8; j++) {                                                  \
                        u[64 * j + 16 * r + c] = y[j];                                             \
                        u[64 * j + 16 * r + 8 + c] = y[j];                                         \
                    }                                                                              \
                }                                                                                  \
            if (round != BS_R256_ROUNDS)                                                           \
                round_fn##_mix(q, u, rk + BS_R256_WORDS * round);                                  \
            else                                                                                   \
                round_fn##_last(q, u, rk + BS_R256_WORDS * round);                                 \
        }                                                                                          \
    }

BS_R256_DEFINE_SBOX(bs_r256_sbox64, uint64_t)
BS_R256_DEFINE_SBOX(bs_r256_sbox32, uint32_t)
BS_R256_DEFINE_ROUND(bs_r256_round64, uint64_t, uint64_t)
BS_R256_DEFINE_ROUND(bs_r256_round32, uint32_t, uint32_t)
BS_R256_DEFINE_ENCRYPT(bs_r256_encrypt64, uint64_t, uint64_t, bs_r256_sbox64, bs_r256_round64)
BS_R256_DEFINE_ENCRYPT(bs_r256_encrypt32, uint32_t, uint32_t, bs_r256_sbox32, bs_r256_round32)
/* 32 lanes keyed by the 64-lane masks (a mask's low half is the 32-lane mask). */
BS_R256_DEFINE_ROUND(bs_r256_round32k64, uint32_t, uint64_t)
BS_R256_DEFINE_ENCRYPT(bs_r256_encrypt32k64, uint32_t, uint64_t, bs_r256_sbox32, bs_r256_round32k64)

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

/*
 * Widens the expanded key into the mask layout above (15 * 256 words); round keys 1..14 absorb
 * the S-box constant 0x63 that the circuit leaves out. The inner loops run over consecutive
 * words (index 8r + c reads byte r + 4c), so that compilers vectorize them.
 */
#define BS_R256_DEFINE_KEY_MASKS(name, W)                                                          \
    BS_FN void name(W *rk, const uint8_t *w)                                                       \
    {                                                                                              \
        for (int round = 0; round <= BS_R256_ROUNDS; round++) {                                    \
            W b[32];                                                                               \
            for (int i = 0; i < 32; i++)                                                           \
                b[i] = (W)(w[32 * round + 4 * (i & 7) + (i >> 3)] ^ (round ? 0x63u : 0u));         \
            for (int j = 0; j < 8; j++)                                                            \
                for (int i = 0; i < 32; i++)                                                       \
                    rk[BS_R256_WORDS * round + 32 * j + i] = (W)0 - ((b[i] >> j) & 1);             \
        }                                                                                          \
    }

BS_R256_DEFINE_KEY_MASKS(bs_r256_key_masks64, uint64_t)
BS_R256_DEFINE_KEY_MASKS(bs_r256_key_masks32, uint32_t)

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

#endif
