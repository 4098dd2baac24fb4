/*
 * Rijndael-256 (Nb = Nk = 8, Nr = 14) bitsliced for one block in eight 32-bit registers, shaped
 * for the Cortex-M4: ShiftRows is explicit, in-place bit-field routing (BFI) rather than
 * fixslicing, because Rijndael-256's offsets (0, 1, 3, 4) would need eight MixColumns variants.
 *
 * Layout: q[b] holds bit b (0 = least significant) of every state byte; state byte s[r][c]
 * (= in[r + 4c], docs/spec/algorithms.md) sits at bit 8r + c. So row r is byte lane r of each
 * register, ShiftRows rotates each lane right by its offset, and MixColumns reads row r + 1 as
 * the register rotated right by 8.
 *
 * Packing: the eight little-endian words of the block are the columns (column c in word c,
 * row r in byte lane r); within each lane, bit b of word c must move to bit c of word b: an
 * 8x8 bit transpose per lane, three layers of SWAPMOVE. The transpose is its own inverse.
 *
 * Constant time: straight-line logic on the data; the only branches are on the public block
 * count and round number.
 */
#include "bitslice.h"
#include "rijndael256.h"

_Static_assert(sizeof(uint32_t[BS_R256_CT32_RK_WORDS]) <= BS_KS_MAX,
               "Rijndael-256 ct32 round keys exceed BS_KS_MAX");

#define R256_NR 14

/* The round functions are inlined at every level, so the state stays in registers (-O2 would
 * otherwise call the S-box and pass the state through memory). */
#if defined(__GNUC__) || defined(__clang__)
#define R256_FN static inline __attribute__((always_inline))
#else
#define R256_FN static inline
#endif

/* The 8x8 bit transpose in each byte lane; its own inverse. Written out so -O2 unrolls it. */
R256_FN void r256_transpose(uint32_t q[8])
{
    bs_swapmove32(&q[1], &q[0], 0x55555555u, 1);
    bs_swapmove32(&q[3], &q[2], 0x55555555u, 1);
    bs_swapmove32(&q[5], &q[4], 0x55555555u, 1);
    bs_swapmove32(&q[7], &q[6], 0x55555555u, 1);
    bs_swapmove32(&q[2], &q[0], 0x33333333u, 2);
    bs_swapmove32(&q[3], &q[1], 0x33333333u, 2);
    bs_swapmove32(&q[6], &q[4], 0x33333333u, 2);
    bs_swapmove32(&q[7], &q[5], 0x33333333u, 2);
    bs_swapmove32(&q[4], &q[0], 0x0f0f0f0fu, 4);
    bs_swapmove32(&q[5], &q[1], 0x0f0f0f0fu, 4);
    bs_swapmove32(&q[6], &q[2], 0x0f0f0f0fu, 4);
    bs_swapmove32(&q[7], &q[3], 0x0f0f0f0fu, 4);
}

R256_FN void r256_pack(uint32_t q[8], const uint8_t *in)
{
    q[0] = bs_load_le32(in);
    q[1] = bs_load_le32(in + 4);
    q[2] = bs_load_le32(in + 8);
    q[3] = bs_load_le32(in + 12);
    q[4] = bs_load_le32(in + 16);
    q[5] = bs_load_le32(in + 20);
    q[6] = bs_load_le32(in + 24);
    q[7] = bs_load_le32(in + 28);
    r256_transpose(q);
}

R256_FN void r256_unpack(uint8_t *out, uint32_t q[8])
{
    r256_transpose(q);
    bs_store_le32(out, q[0]);
    bs_store_le32(out + 4, q[1]);
    bs_store_le32(out + 8, q[2]);
    bs_store_le32(out + 12, q[3]);
    bs_store_le32(out + 16, q[4]);
    bs_store_le32(out + 20, q[5]);
    bs_store_le32(out + 24, q[6]);
    bs_store_le32(out + 28, q[7]);
}

void bs_r256ct32_pack(uint32_t q[8], const uint8_t *in)
{
    r256_pack(q, in);
}

void bs_r256ct32_unpack(uint8_t *out, uint32_t q[8])
{
    r256_unpack(out, q);
}

/*
 * The S-box circuit of rijndael256.h (Boyar and Peralta), written out here for one register
 * set, with the affine constant as four XNORs. Measured (QEMU, Cortex-M4, -O2): calling
 * bs_r256_sbox32 instead costs 5483 instead of 5024 instructions per block (+9%), as its
 * strided memory interface survives inlining; so this one copy of the circuit stays.
 */
R256_FN void r256_sbox(uint32_t q[8])
{
    const uint32_t u0 = q[7], u1 = q[6], u2 = q[5], u3 = q[4];
    const uint32_t u4 = q[3], u5 = q[2], u6 = q[1], u7 = q[0];
    const uint32_t t1 = u0 ^ u3;
    const uint32_t t2 = u0 ^ u5;
    const uint32_t t3 = u0 ^ u6;
    const uint32_t t4 = u3 ^ u5;
    const uint32_t t5 = u4 ^ u6;
    const uint32_t t6 = t1 ^ t5;
    const uint32_t t7 = u1 ^ u2;
    const uint32_t t8 = u7 ^ t6;
    const uint32_t t9 = u7 ^ t7;
    const uint32_t t10 = t6 ^ t7;
    const uint32_t t11 = u1 ^ u5;
    const uint32_t t12 = u2 ^ u5;
    const uint32_t t13 = t3 ^ t4;
    const uint32_t t14 = t6 ^ t11;
    const uint32_t t15 = t5 ^ t11;
    const uint32_t t16 = t5 ^ t12;
    const uint32_t t17 = t9 ^ t16;
    const uint32_t t18 = u3 ^ u7;
    const uint32_t t19 = t7 ^ t18;
    const uint32_t t20 = t1 ^ t19;
    const uint32_t t21 = u6 ^ u7;
    const uint32_t t22 = t7 ^ t21;
    const uint32_t t23 = t2 ^ t22;
    const uint32_t t24 = t2 ^ t10;
    const uint32_t t25 = t20 ^ t17;
    const uint32_t t26 = t3 ^ t16;
    const uint32_t t27 = t1 ^ t12;
    const uint32_t m1 = t13 & t6;
    const uint32_t m2 = t23 & t8;
    const uint32_t m3 = t14 ^ m1;
    const uint32_t m4 = t19 & u7;
    const uint32_t m5 = m4 ^ m1;
    const uint32_t m6 = t3 & t16;
    const uint32_t m7 = t22 & t9;
    const uint32_t m8 = t26 ^ m6;
    const uint32_t m9 = t20 & t17;
    const uint32_t m10 = m9 ^ m6;
    const uint32_t m11 = t1 & t15;
    const uint32_t m12 = t4 & t27;
    const uint32_t m13 = m12 ^ m11;
    const uint32_t m14 = t2 & t10;
    const uint32_t m15 = m14 ^ m11;
    const uint32_t m16 = m3 ^ m2;
    const uint32_t m17 = m5 ^ t24;
    const uint32_t m18 = m8 ^ m7;
    const uint32_t m19 = m10 ^ m15;
    const uint32_t m20 = m16 ^ m13;
    const uint32_t m21 = m17 ^ m15;
    const uint32_t m22 = m18 ^ m13;
    const uint32_t m23 = m19 ^ t25;
    const uint32_t m24 = m22 ^ m23;
    const uint32_t m25 = m22 & m20;
    const uint32_t m26 = m21 ^ m25;
    const uint32_t m27 = m20 ^ m21;
    const uint32_t m28 = m23 ^ m25;
    const uint32_t m29 = m28 & m27;
    const uint32_t m30 = m26 & m24;
    const uint32_t m31 = m20 & m23;
    const uint32_t m32 = m27 & m31;
    const uint32_t m33 = m27 ^ m25;
    const uint32_t m34 = m21 & m22;
    const uint32_t m35 = m24 & m34;
    const uint32_t m36 = m24 ^ m25;
    const uint32_t m37 = m21 ^ m29;
    const uint32_t m38 = m32 ^ m33;
    const uint32_t m39 = m23 ^ m30;
    const uint32_t m40 = m35 ^ m36;
    const uint32_t m41 = m38 ^ m40;
    const uint32_t m42 = m37 ^ m39;
    const uint32_t m43 = m37 ^ m38;
    const uint32_t m44 = m39 ^ m40;
    const uint32_t m45 = m42 ^ m41;
    const uint32_t m46 = m44 & t6;
    const uint32_t m47 = m40 & t8;
    const uint32_t m48 = m39 & u7;
    const uint32_t m49 = m43 & t16;
    const uint32_t m50 = m38 & t9;
    const uint32_t m51 = m37 & t17;
    const uint32_t m52 = m42 & t15;
    const uint32_t m53 = m45 & t27;
    const uint32_t m54 = m41 & t10;
    const uint32_t m55 = m44 & t13;
    const uint32_t m56 = m40 & t23;
    const uint32_t m57 = m39 & t19;
    const uint32_t m58 = m43 & t3;
    const uint32_t m59 = m38 & t22;
    const uint32_t m60 = m37 & t20;
    const uint32_t m61 = m42 & t1;
    const uint32_t m62 = m45 & t4;
    const uint32_t m63 = m41 & t2;
    const uint32_t l0 = m61 ^ m62;
    const uint32_t l1 = m50 ^ m56;
    const uint32_t l2 = m46 ^ m48;
    const uint32_t l3 = m47 ^ m55;
    const uint32_t l4 = m54 ^ m58;
    const uint32_t l5 = m49 ^ m61;
    const uint32_t l6 = m62 ^ l5;
    const uint32_t l7 = m46 ^ l3;
    const uint32_t l8 = m51 ^ m59;
    const uint32_t l9 = m52 ^ m53;
    const uint32_t l10 = m53 ^ l4;
    const uint32_t l11 = m60 ^ l2;
    const uint32_t l12 = m48 ^ m51;
    const uint32_t l13 = m50 ^ l0;
    const uint32_t l14 = m52 ^ m61;
    const uint32_t l15 = m55 ^ l1;
    const uint32_t l16 = m56 ^ l0;
    const uint32_t l17 = m57 ^ l1;
    const uint32_t l18 = m58 ^ l8;
    const uint32_t l19 = m63 ^ l4;
    const uint32_t l20 = l0 ^ l1;
    const uint32_t l21 = l1 ^ l7;
    const uint32_t l22 = l3 ^ l12;
    const uint32_t l23 = l18 ^ l2;
    const uint32_t l24 = l15 ^ l9;
    const uint32_t l25 = l6 ^ l10;
    const uint32_t l26 = l7 ^ l9;
    const uint32_t l27 = l8 ^ l10;
    const uint32_t l28 = l11 ^ l14;
    const uint32_t l29 = l11 ^ l17;
    q[7] = l6 ^ l24;
    q[6] = ~(l16 ^ l26);
    q[5] = ~(l19 ^ l28);
    q[4] = l6 ^ l21;
    q[3] = l20 ^ l22;
    q[2] = l25 ^ l29;
    q[1] = ~(l13 ^ l27);
    q[0] = ~(l6 ^ l23);
}

void bs_r256ct32_subbytes(uint32_t q[8])
{
    r256_sbox(q);
}

static inline uint32_t ror32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << ((32 - n) & 31));
}

/*
 * ShiftRows in place: lane r (row r) rotates right by its offset k, routed as two bit fields,
 * new bits [8r, 8r + 8 - k) from old bits [8r + k, 8r + 8) and new bits [8r + 8 - k, 8r + 8)
 * from old bits [8r, 8r + k). Row 0 stays. On Thumb-2: six UBFX/BFI pairs per register
 * (inline assembly: GCC does not pick BFI for this). Elsewhere (RV32I has no bit-field
 * instructions) the same fields as shifts and masks.
 */
#if defined(__thumb2__)
/* y[dst, dst + width) = x[src, src + width): UBFX then BFI (immediates only: a macro). */
#define R256_MOVE(y, x, src, dst, width)                                                           \
    do {                                                                                           \
        uint32_t t_;                                                                               \
        __asm__("ubfx %1, %2, #" #src ", #" #width "\n\tbfi %0, %1, #" #dst ", #" #width           \
                : "+r"(y), "=&r"(t_)                                                               \
                : "r"(x));                                                                         \
    } while (0)

R256_FN uint32_t r256_shiftrows1(uint32_t x)
{
    uint32_t y = x;
    R256_MOVE(y, x, 9, 8, 7); /* row 1, offset 1 */
    R256_MOVE(y, x, 8, 15, 1);
    R256_MOVE(y, x, 19, 16, 5); /* row 2, offset 3 */
    R256_MOVE(y, x, 16, 21, 3);
    R256_MOVE(y, x, 28, 24, 4); /* row 3, offset 4 */
    R256_MOVE(y, x, 24, 28, 4);
    return y;
}
#else
R256_FN uint32_t r256_shiftrows1(uint32_t x)
{
    return (x & 0x000000ffu) | ((x >> 1) & 0x00007f00u) | ((x << 7) & 0x00008000u) |
           ((x >> 3) & 0x001f0000u) | ((x << 5) & 0x00e00000u) | ((x >> 4) & 0x0f000000u) |
           ((x << 4) & 0xf0000000u);
}
#endif

R256_FN void r256_shiftrows(uint32_t q[8])
{
    q[0] = r256_shiftrows1(q[0]);
    q[1] = r256_shiftrows1(q[1]);
    q[2] = r256_shiftrows1(q[2]);
    q[3] = r256_shiftrows1(q[3]);
    q[4] = r256_shiftrows1(q[4]);
    q[5] = r256_shiftrows1(q[5]);
    q[6] = r256_shiftrows1(q[6]);
    q[7] = r256_shiftrows1(q[7]);
}

void bs_r256ct32_shiftrows(uint32_t q[8])
{
    r256_shiftrows(q);
}

/*
 * MixColumns: with t = s[r] ^ s[r+1], s'[r] = 2t ^ s[r+1] ^ (s[r+2] ^ s[r+3]), and the last
 * term is t rotated by two rows. Doubling in GF(2^8) moves bit b to b + 1 and folds bit 7 into
 * bits 0, 1, 3, 4 (0x1b).
 */
R256_FN void r256_mixcolumns(uint32_t q[8])
{
    const uint32_t n0 = ror32(q[0], 8), n1 = ror32(q[1], 8), n2 = ror32(q[2], 8);
    const uint32_t n3 = ror32(q[3], 8), n4 = ror32(q[4], 8), n5 = ror32(q[5], 8);
    const uint32_t n6 = ror32(q[6], 8), n7 = ror32(q[7], 8);
    const uint32_t t0 = q[0] ^ n0, t1 = q[1] ^ n1, t2 = q[2] ^ n2, t3 = q[3] ^ n3;
    const uint32_t t4 = q[4] ^ n4, t5 = q[5] ^ n5, t6 = q[6] ^ n6, t7 = q[7] ^ n7;
    q[0] = t7 ^ n0 ^ ror32(t0, 16);
    q[1] = t0 ^ t7 ^ n1 ^ ror32(t1, 16);
    q[2] = t1 ^ n2 ^ ror32(t2, 16);
    q[3] = t2 ^ t7 ^ n3 ^ ror32(t3, 16);
    q[4] = t3 ^ t7 ^ n4 ^ ror32(t4, 16);
    q[5] = t4 ^ n5 ^ ror32(t5, 16);
    q[6] = t5 ^ n6 ^ ror32(t6, 16);
    q[7] = t6 ^ n7 ^ ror32(t7, 16);
}

void bs_r256ct32_mixcolumns(uint32_t q[8])
{
    r256_mixcolumns(q);
}

R256_FN void r256_addroundkey(uint32_t q[8], const uint32_t *rk)
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

void bs_r256ct32_addroundkey(uint32_t q[8], const uint32_t rk[8])
{
    r256_addroundkey(q, rk);
}

/* rijndael256.h's key expansion (docs/spec/algorithms.md), each round key packed. */
static void r256ct32_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    uint8_t w[32 * (R256_NR + 1)];
    uint32_t *rk = (uint32_t *)ks->w;
    bs_r256_key_expand(w, key);
    for (int r = 0; r <= R256_NR; r++)
        r256_pack(rk + 8 * r, w + 32 * r);
    bs_wipe(w, sizeof w);
}

void bs_r256ct32_encrypt_block(const uint32_t *rk, uint8_t *out, const uint8_t *in)
{
    uint32_t q[8];
    r256_pack(q, in);
    r256_addroundkey(q, rk);
    for (int r = 1; r < R256_NR; r++) {
        r256_sbox(q);
        r256_shiftrows(q);
        r256_mixcolumns(q);
        r256_addroundkey(q, rk + 8 * r);
    }
    r256_sbox(q);
    r256_shiftrows(q);
    r256_addroundkey(q, rk + 8 * R256_NR);
    r256_unpack(out, q);
}

static void r256ct32_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                             size_t nblocks)
{
    const uint32_t *rk = (const uint32_t *)ks->w;
    for (size_t i = 0; i < nblocks; i++)
        bs_r256ct32_encrypt_block(rk, out + 32 * i, in + 32 * i);
}

const bs_block_cipher bs_rijndael256_ct32 = {
    .name = "RIJNDAEL-256",
    .impl = "ct32",
    .level = BS_CPU_PORTABLE,
    .key_len = 32,
    .block_len = 32,
    .lanes = 1,
    .set_key = r256ct32_set_key,
    .encrypt = r256ct32_encrypt,
};
