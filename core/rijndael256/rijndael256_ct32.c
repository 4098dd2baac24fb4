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
 * SubBytes on the 32 bytes at once: rijndael256.h's Boyar-Peralta circuit (bs_r256_sbox32,
 * which leaves out the affine constant) and the constant 0x63 (bits 0, 1, 5, 6). flatten
 * inlines the circuit whole, so the state stays in registers at every level.
 */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((flatten))
#endif
R256_FN void r256_sbox(uint32_t q[8])
{
    bs_r256_sbox32(q, 1, q, 1);
    q[0] = ~q[0];
    q[1] = ~q[1];
    q[5] = ~q[5];
    q[6] = ~q[6];
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
    "RIJNDAEL-256", "ct32", 32, 32, 1, r256ct32_set_key, r256ct32_encrypt,
};
