/*
 * aes.h: AES-128 and AES-256 (FIPS-197) bitsliced for 32-bit registers, two blocks in eight
 * words: the layout, packing, S-box circuit, MixColumns variants and key schedule that the
 * fixsliced (aes_fix32.c) and semi-fixsliced (aes_semifix32.c) cores share.
 *
 * Layout. State byte s[r][c] (= block byte r + 4c) of block k (0 or 1) has its bit b in slice
 * q[b] (b = 0 the least significant) at bit 8r + 2c + k: row r is byte lane r of every slice,
 * and within a lane the columns are bit pairs, the two blocks interleaved. So "row r + j" is the
 * slice rotated right by 8j (one barrel-shifted operand), and "column c + j" is a rotation by
 * 2j inside every byte (bs_aes_byte_ror).
 *
 * Fixslicing (Adomnicai and Peyrin, TCHES 2021/1). ShiftRows is not computed; after k skipped
 * ShiftRows the stored state T is in representation k: the standard state is SR^k(T), i.e.
 * s[r][c] = T[r][c + kr]. SubBytes is byte-wise and does not care; MixColumns in
 * representation k reads row r + j at column c + jk (bs_aes_mixcolumns with the rotations
 * rot_j = row +j, column +jk), and round key i is stored in the representation its round ends
 * in. SR^4 is the identity: the fully fixsliced core cycles through all four representations
 * and fixes the last one (2, for 10 and 14 rounds) with one SR^2; the semi-fixsliced core
 * applies SR^2 every other round and uses representations 0 and 1 only.
 *
 * S-box: Boyar and Peralta's circuit (2012) without its four NOTs (output bits 0, 1, 5, 6,
 * the constant 0x63). Complementing every byte commutes with the representation change and
 * with MixColumns (whose coefficients sum to 1), so the key schedule adds 0x63 to every byte
 * of round keys 1..Nr instead.
 *
 * Packing: the eight little-endian words x[c + 4k] hold bit 8r + b of byte (r, c) of block k.
 * The target index (k, c0, c1, r0, r1) in slice (b0, b1, b2) is three exchanges of index bits:
 * in-word bit 0 with k, bit 1 with c0, bit 2 with c1, one SWAPMOVE layer each (12 in all);
 * slice b comes out in word (b >> 1) + 4 (b & 1).
 *
 * Constant time: straight-line logic on data and keys; the key schedule runs SubWord through
 * the same circuit; branches and indices depend only on round numbers and block counts.
 */
#ifndef BS_AES_H
#define BS_AES_H

#include "../bitslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The AES implementations in the registry, best first (bs_registry.c): AES has no 64-lane core,
 * so the 32-bit ones are every build's, listed with the MCU variants (BS_AES_MCU_IMPLS). On the
 * Cortex-M3/M4 and RV32I built with -Daes_unrolled=false (BS_AES_NO_UNROLLED) the generated
 * semifix32 comes first: fix32 is the C loop there, slower (M3 -O2, two AES-128 blocks: 3,278
 * instructions against 2,386) and larger.
 */
extern const bs_block_cipher bs_aes128_fix32;
extern const bs_block_cipher bs_aes256_fix32;
extern const bs_block_cipher bs_aes128_semifix32;
extern const bs_block_cipher bs_aes256_semifix32;
#define BS_AES_IMPLS
#if defined(BS_HAVE_AES) && defined(BS_AES_NO_UNROLLED) &&                                         \
    (defined(__thumb2__) || (defined(__riscv) && __riscv_xlen == 32))
#define BS_AES_MCU_IMPLS                                                                           \
    &bs_aes128_semifix32, &bs_aes256_semifix32, &bs_aes128_fix32, &bs_aes256_fix32,
#elif defined(BS_HAVE_AES)
#define BS_AES_MCU_IMPLS                                                                           \
    &bs_aes128_fix32, &bs_aes256_fix32, &bs_aes128_semifix32, &bs_aes256_semifix32,
#else
#define BS_AES_MCU_IMPLS
#endif

/* Round-key words at the start of bs_key_schedule: (Nr + 1) round keys of 8 slices. */
#define BS_AES128_RK_WORDS (8 * 11)
#define BS_AES256_RK_WORDS (8 * 15)

/* Two blocks (in, in + 16) -> (out, out + 16); rk from the matching set_key. */
void bs_aes128_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);
void bs_aes256_fix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);
void bs_aes128_semifix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);
void bs_aes256_semifix_2blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in);

/*
 * Key schedules: rk[8 i .. 8 i + 8) is round key i packed (both blocks), in representation
 * rep(i) (fully fixsliced: i mod 4, so the last, Nr = 10 or 14, in 2; semi-fixsliced: i mod 2,
 * but the last in 2 too, the cores adding it before their one SR^2 on the unpacked words), with
 * 0x63 added for i >= 1. nk: 4 or 8 key words. Shared by every AES core.
 */
void bs_aes_key_schedule(uint32_t *rk, const uint8_t *key, unsigned nk, unsigned rep_mod);

/*
 * The components of a round on two packed blocks, one call each (aes_fix32.c), for the
 * per-component benchmark: a fully fixsliced round is SubBytes, MixColumns k, AddRoundKey.
 */
void bs_aes_part_pack(uint32_t q[8], const uint8_t *in);
void bs_aes_part_unpack(uint8_t *out, const uint32_t q[8]);
void bs_aes_part_subbytes(uint32_t q[8]);
void bs_aes_part_mixcolumns0(uint32_t q[8]);
void bs_aes_part_mixcolumns1(uint32_t q[8]);
void bs_aes_part_mixcolumns2(uint32_t q[8]);
void bs_aes_part_mixcolumns3(uint32_t q[8]);
void bs_aes_part_sr2(uint32_t q[8]);
void bs_aes_part_addroundkey(uint32_t q[8], const uint32_t rk[8]);

#if defined(__GNUC__) || defined(__clang__)
#define BS_AES_FN static inline __attribute__((always_inline))
#else
#define BS_AES_FN static inline
#endif

BS_AES_FN uint32_t bs_aes_ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}

/* Column c + j/2 into column c of every lane: each byte rotated right by j (2, 4 or 6). */
BS_AES_FN uint32_t bs_aes_byte_ror(uint32_t x, unsigned j)
{
    uint32_t lo = 0x01010101u * (0xffu >> j);
    return ((x >> j) & lo) | ((x << (8 - j)) & ~lo);
}

/* SR^2 on a slice: rows 1 and 3 move by two columns (a nibble swap in lanes 1 and 3). */
BS_AES_FN uint32_t bs_aes_sr2(uint32_t x)
{
    uint32_t t = ((x >> 4) ^ x) & 0x0f000f00u;
    return x ^ t ^ (t << 4);
}

BS_AES_FN void bs_aes_transpose(uint32_t x[8])
{
    bs_swapmove32(&x[4], &x[0], 0x55555555u, 1);
    bs_swapmove32(&x[5], &x[1], 0x55555555u, 1);
    bs_swapmove32(&x[6], &x[2], 0x55555555u, 1);
    bs_swapmove32(&x[7], &x[3], 0x55555555u, 1);
    bs_swapmove32(&x[1], &x[0], 0x33333333u, 2);
    bs_swapmove32(&x[3], &x[2], 0x33333333u, 2);
    bs_swapmove32(&x[5], &x[4], 0x33333333u, 2);
    bs_swapmove32(&x[7], &x[6], 0x33333333u, 2);
    bs_swapmove32(&x[2], &x[0], 0x0f0f0f0fu, 4);
    bs_swapmove32(&x[3], &x[1], 0x0f0f0f0fu, 4);
    bs_swapmove32(&x[6], &x[4], 0x0f0f0f0fu, 4);
    bs_swapmove32(&x[7], &x[5], 0x0f0f0f0fu, 4);
}

/*
 * Loading and storing the eight words of two blocks. RISC-V (RV32I) has no unaligned access,
 * so bs_load_le32 is four byte loads and three ORs there: word-aligned blocks take one load or
 * store a word instead (the test is on the addresses, never on data). Elsewhere (x86, ARMv7-M)
 * GCC already makes bs_load_le32 one load, and the test would only cost.
 */
#if defined(__riscv) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BS_AES_ALIGNED(a, b) (((uintptr_t)(a) | (uintptr_t)(b)) % 4 == 0)
#else
#define BS_AES_ALIGNED(a, b) 0
#endif

BS_AES_FN void bs_aes_load8(uint32_t x[8], const uint8_t *a, const uint8_t *b)
{
    if (BS_AES_ALIGNED(a, b)) {
        memcpy(x, __builtin_assume_aligned(a, 4), 16);
        memcpy(x + 4, __builtin_assume_aligned(b, 4), 16);
        return;
    }
    for (unsigned c = 0; c < 4; c++) {
        x[c] = bs_load_le32(a + 4 * c);
        x[c + 4] = bs_load_le32(b + 4 * c);
    }
}

BS_AES_FN void bs_aes_store8(uint8_t *a, uint8_t *b, const uint32_t x[8])
{
    if (BS_AES_ALIGNED(a, b)) {
        memcpy(__builtin_assume_aligned(a, 4), x, 16);
        memcpy(__builtin_assume_aligned(b, 4), x + 4, 16);
        return;
    }
    for (unsigned c = 0; c < 4; c++) {
        bs_store_le32(a + 4 * c, x[c]);
        bs_store_le32(b + 4 * c, x[c + 4]);
    }
}

/* Two blocks a, b (16 bytes each) into slices q[0..7]. */
BS_AES_FN void bs_aes_pack(uint32_t q[8], const uint8_t *a, const uint8_t *b)
{
    uint32_t x[8];
    bs_aes_load8(x, a, b);
    bs_aes_transpose(x);
    for (unsigned i = 0; i < 8; i++)
        q[i] = x[(i >> 1) + 4 * (i & 1)];
}

BS_AES_FN void bs_aes_unpack(uint8_t *a, uint8_t *b, const uint32_t q[8])
{
    uint32_t x[8];
    for (unsigned i = 0; i < 8; i++)
        x[(i >> 1) + 4 * (i & 1)] = q[i];
    bs_aes_transpose(x);
    bs_aes_store8(a, b, x);
}

/*
 * SR^2 then unpacking (the end of the fully fixsliced cores), with SR^2 done on the unpacked
 * words: rows 1 and 3 move by two columns, i.e. bytes 1 and 3 of column words c and c + 2 trade
 * places: 12 instructions instead of 4 a slice.
 */
BS_AES_FN void bs_aes_unpack_sr2(uint8_t *a, uint8_t *b, const uint32_t q[8])
{
    uint32_t x[8];
    for (unsigned i = 0; i < 8; i++)
        x[(i >> 1) + 4 * (i & 1)] = q[i];
    bs_aes_transpose(x);
    for (unsigned c = 0; c < 8; c += (c & 1) ? 3 : 1) { /* 0, 1, 4, 5 */
        uint32_t t = (x[c] ^ x[c + 2]) & 0xff00ff00u;
        x[c] ^= t;
        x[c + 2] ^= t;
    }
    bs_aes_store8(a, b, x);
}

/* The S-box circuit without its NOTs (0x63 comes with the round keys), in place. */
BS_AES_FN void bs_aes_sbox_nonot(uint32_t q[8])
{
    const uint32_t u0 = q[7], u1 = q[6], u2 = q[5], u3 = q[4];
    const uint32_t u4 = q[3], u5 = q[2], u6 = q[1], u7 = q[0];
    const uint32_t t1 = u0 ^ u3, t2 = u0 ^ u5, t3 = u0 ^ u6, t4 = u3 ^ u5, t5 = u4 ^ u6;
    const uint32_t t6 = t1 ^ t5, t7 = u1 ^ u2, t8 = u7 ^ t6, t9 = u7 ^ t7, t10 = t6 ^ t7;
    const uint32_t t11 = u1 ^ u5, t12 = u2 ^ u5, t13 = t3 ^ t4, t14 = t6 ^ t11;
    const uint32_t t15 = t5 ^ t11, t16 = t5 ^ t12, t17 = t9 ^ t16, t18 = u3 ^ u7;
    const uint32_t t19 = t7 ^ t18, t20 = t1 ^ t19, t21 = u6 ^ u7, t22 = t7 ^ t21;
    const uint32_t t23 = t2 ^ t22, t24 = t2 ^ t10, t25 = t20 ^ t17, t26 = t3 ^ t16;
    const uint32_t t27 = t1 ^ t12;
    const uint32_t m1 = t13 & t6, m2 = t23 & t8, m3 = t14 ^ m1, m4 = t19 & u7, m5 = m4 ^ m1;
    const uint32_t m6 = t3 & t16, m7 = t22 & t9, m8 = t26 ^ m6, m9 = t20 & t17, m10 = m9 ^ m6;
    const uint32_t m11 = t1 & t15, m12 = t4 & t27, m13 = m12 ^ m11, m14 = t2 & t10;
    const uint32_t m15 = m14 ^ m11, m16 = m3 ^ m2, m17 = m5 ^ t24, m18 = m8 ^ m7;
    const uint32_t m19 = m10 ^ m15, m20 = m16 ^ m13, m21 = m17 ^ m15, m22 = m18 ^ m13;
    const uint32_t m23 = m19 ^ t25, m24 = m22 ^ m23, m25 = m22 & m20, m26 = m21 ^ m25;
    const uint32_t m27 = m20 ^ m21, m28 = m23 ^ m25, m29 = m28 & m27, m30 = m26 & m24;
    const uint32_t m31 = m20 & m23, m32 = m27 & m31, m33 = m27 ^ m25, m34 = m21 & m22;
    const uint32_t m35 = m24 & m34, m36 = m24 ^ m25, m37 = m21 ^ m29, m38 = m32 ^ m33;
    const uint32_t m39 = m23 ^ m30, m40 = m35 ^ m36, m41 = m38 ^ m40, m42 = m37 ^ m39;
    const uint32_t m43 = m37 ^ m38, m44 = m39 ^ m40, m45 = m42 ^ m41, m46 = m44 & t6;
    const uint32_t m47 = m40 & t8, m48 = m39 & u7, m49 = m43 & t16, m50 = m38 & t9;
    const uint32_t m51 = m37 & t17, m52 = m42 & t15, m53 = m45 & t27, m54 = m41 & t10;
    const uint32_t m55 = m44 & t13, m56 = m40 & t23, m57 = m39 & t19, m58 = m43 & t3;
    const uint32_t m59 = m38 & t22, m60 = m37 & t20, m61 = m42 & t1, m62 = m45 & t4;
    const uint32_t m63 = m41 & t2;
    const uint32_t l0 = m61 ^ m62, l1 = m50 ^ m56, l2 = m46 ^ m48, l3 = m47 ^ m55;
    const uint32_t l4 = m54 ^ m58, l5 = m49 ^ m61, l6 = m62 ^ l5, l7 = m46 ^ l3;
    const uint32_t l8 = m51 ^ m59, l9 = m52 ^ m53, l10 = m53 ^ l4, l11 = m60 ^ l2;
    const uint32_t l12 = m48 ^ m51, l13 = m50 ^ l0, l14 = m52 ^ m61, l15 = m55 ^ l1;
    const uint32_t l16 = m56 ^ l0, l17 = m57 ^ l1, l18 = m58 ^ l8, l19 = m63 ^ l4;
    const uint32_t l20 = l0 ^ l1, l21 = l1 ^ l7, l22 = l3 ^ l12, l23 = l18 ^ l2;
    const uint32_t l24 = l15 ^ l9, l25 = l6 ^ l10, l26 = l7 ^ l9, l27 = l8 ^ l10;
    const uint32_t l28 = l11 ^ l14, l29 = l11 ^ l17;
    q[7] = l6 ^ l24;
    q[6] = l16 ^ l26;
    q[5] = l19 ^ l28;
    q[4] = l6 ^ l21;
    q[3] = l20 ^ l22;
    q[2] = l25 ^ l29;
    q[1] = l13 ^ l27;
    q[0] = l6 ^ l23;
}

/*
 * MixColumns in representation k: with rot_j(x) reading row r + j at column c + jk,
 * t = s ^ rot_1(s) and s' = 2t ^ rot_1(s) ^ rot_2(t) (rot_2(t) = s[r+2] ^ s[r+3]). Doubling
 * moves bit b to b + 1 and folds bit 7 into bits 0, 1, 3, 4 (0x1b). ROT1 and ROT2 are
 * function-like macros of one word.
 */
#define BS_AES_MIXCOLUMNS(q, ROT1, ROT2)                                                           \
    do {                                                                                           \
        const uint32_t n0_ = ROT1((q)[0]), n1_ = ROT1((q)[1]), n2_ = ROT1((q)[2]);                 \
        const uint32_t n3_ = ROT1((q)[3]), n4_ = ROT1((q)[4]), n5_ = ROT1((q)[5]);                 \
        const uint32_t n6_ = ROT1((q)[6]), n7_ = ROT1((q)[7]);                                     \
        const uint32_t t0_ = (q)[0] ^ n0_, t1_ = (q)[1] ^ n1_, t2_ = (q)[2] ^ n2_;                 \
        const uint32_t t3_ = (q)[3] ^ n3_, t4_ = (q)[4] ^ n4_, t5_ = (q)[5] ^ n5_;                 \
        const uint32_t t6_ = (q)[6] ^ n6_, t7_ = (q)[7] ^ n7_;                                     \
        (q)[0] = t7_ ^ n0_ ^ ROT2(t0_);                                                            \
        (q)[1] = t0_ ^ t7_ ^ n1_ ^ ROT2(t1_);                                                      \
        (q)[2] = t1_ ^ n2_ ^ ROT2(t2_);                                                            \
        (q)[3] = t2_ ^ t7_ ^ n3_ ^ ROT2(t3_);                                                      \
        (q)[4] = t3_ ^ t7_ ^ n4_ ^ ROT2(t4_);                                                      \
        (q)[5] = t4_ ^ n5_ ^ ROT2(t5_);                                                            \
        (q)[6] = t5_ ^ n6_ ^ ROT2(t6_);                                                            \
        (q)[7] = t6_ ^ n7_ ^ ROT2(t7_);                                                            \
    } while (0)

/* The rotations of representations 0..3: rot_1 = row +1, column +k; rot_2 = row +2, +2k. */
#define BS_AES_R1_0(x) bs_aes_ror((x), 8)
#define BS_AES_R2_0(x) bs_aes_ror((x), 16)
#define BS_AES_R1_1(x) bs_aes_ror(bs_aes_byte_ror((x), 2), 8)
#define BS_AES_R2_1(x) bs_aes_ror(bs_aes_byte_ror((x), 4), 16)
#define BS_AES_R1_2(x) bs_aes_ror(bs_aes_byte_ror((x), 4), 8)
#define BS_AES_R2_2(x) bs_aes_ror((x), 16)
#define BS_AES_R1_3(x) bs_aes_ror(bs_aes_byte_ror((x), 6), 8)
#define BS_AES_R2_3(x) bs_aes_ror(bs_aes_byte_ror((x), 4), 16)

BS_AES_FN void bs_aes_mixcolumns0(uint32_t q[8])
{
    BS_AES_MIXCOLUMNS(q, BS_AES_R1_0, BS_AES_R2_0);
}
BS_AES_FN void bs_aes_mixcolumns1(uint32_t q[8])
{
    BS_AES_MIXCOLUMNS(q, BS_AES_R1_1, BS_AES_R2_1);
}
BS_AES_FN void bs_aes_mixcolumns2(uint32_t q[8])
{
    BS_AES_MIXCOLUMNS(q, BS_AES_R1_2, BS_AES_R2_2);
}
BS_AES_FN void bs_aes_mixcolumns3(uint32_t q[8])
{
    BS_AES_MIXCOLUMNS(q, BS_AES_R1_3, BS_AES_R2_3);
}

BS_AES_FN void bs_aes_addroundkey(uint32_t q[8], const uint32_t *rk)
{
    q[0] ^= rk[0];
    q[1] ^= rk[1];
    q[2] ^= rk[2];
    q[3] ^= rk[3];
    q[4] ^= rk[4];
    q[5] ^= rk[5];
    q[6] ^= rk[6];
    q[7] ^= rk[7];
}

BS_AES_FN void bs_aes_sr2_all(uint32_t q[8])
{
    for (unsigned i = 0; i < 8; i++)
        q[i] = bs_aes_sr2(q[i]);
}

/* Four fully fixsliced rounds from representation 0, round keys rk[0..32): MixColumns 1, 2, 3
 * and 0, back in representation 0 (aes_fix32.c, aes_ctr_face.c). Macros, not functions, so
 * that the code is the same as written out at every optimisation level (-O0 included). */
#define BS_AES_FIX_4ROUNDS(q, rk)                                                                  \
    do {                                                                                           \
        bs_aes_sbox_nonot(q);                                                                      \
        bs_aes_mixcolumns1(q);                                                                     \
        bs_aes_addroundkey(q, rk);                                                                 \
        bs_aes_sbox_nonot(q);                                                                      \
        bs_aes_mixcolumns2(q);                                                                     \
        bs_aes_addroundkey(q, (rk) + 8);                                                           \
        bs_aes_sbox_nonot(q);                                                                      \
        bs_aes_mixcolumns3(q);                                                                     \
        bs_aes_addroundkey(q, (rk) + 16);                                                          \
        bs_aes_sbox_nonot(q);                                                                      \
        bs_aes_mixcolumns0(q);                                                                     \
        bs_aes_addroundkey(q, (rk) + 24);                                                          \
    } while (0)

/* The last two rounds from representation 0, round keys rk[0..16), into the blocks out and
 * out + 16: one with MixColumns 1, the last (no MixColumns) with its SR^2 on the unpacked
 * words (aes_fix32.c, aes_ctr_face.c, aes_semifix32.c). */
#define BS_AES_LAST_2ROUNDS(out, q, rk)                                                            \
    do {                                                                                           \
        bs_aes_sbox_nonot(q);                                                                      \
        bs_aes_mixcolumns1(q);                                                                     \
        bs_aes_addroundkey(q, rk);                                                                 \
        bs_aes_sbox_nonot(q);                                                                      \
        bs_aes_addroundkey(q, (rk) + 8);                                                           \
        bs_aes_unpack_sr2(out, (out) + 16, q);                                                     \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
