/*
 * ghash256_ctmul64.c: portable constant-time GHASH-256 (docs/spec/rijndael256-gcm.md).
 *
 * Carry-less products come from ordinary integer multiplies with "holes" (after BearSSL's
 * ghash_ctmul64): each operand is split into four classes of bits 4 apart, so that in the low
 * 64 bits of a partial product no column sum reaches the next bit of its class. A 64 x 64
 * product uses that trick twice, on the operands and on their bit reversals (the high half).
 * 256-bit products are two levels of Karatsuba over 64-bit limbs (9 limb products).
 *
 * Layout. A field element is kept as four 64-bit limbs in polynomial order: bit j of limb i is
 * the coefficient of x^(64 i + j). In GCM's reflected byte order (byte 0, bit 7 = x^0) limb i is
 * the bit reversal of the big-endian word at bytes 8 i .. 8 i + 7.
 *
 * Key form (hkey): for each power H^(e+1), e = 0..3, and each of its 9 Karatsuba operands
 * (see kara_operands), the four masked classes of the operand and of its bit reversal:
 * hkey[72 e + 8 k + c] and hkey[72 e + 8 k + 4 + c]. Four blocks share one reduction.
 */
#include "gcm256.h"

#define M0 0x1111111111111111ULL
#define M1 0x2222222222222222ULL
#define M2 0x4444444444444444ULL
#define M3 0x8888888888888888ULL
/* Key-form words per power of H. */
#define HKEY_POW 72

static inline uint64_t rev64(uint64_t x)
{
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(x);
#else
    x = ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8);
    x = ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16);
    return (x >> 32) | (x << 32);
#endif
}

/*
 * z[c] ^= the class-c part (before masking) of the carry-less product of x and y, y given as
 * its four masked classes: bits of class c of (z[c] & M_c) are the low 64 bits of x * y.
 * Masking is linear, so sums over several products are masked once.
 */
static inline void bmul64_acc(uint64_t z[4], uint64_t x, const uint64_t *y)
{
    uint64_t x0 = x & M0, x1 = x & M1, x2 = x & M2, x3 = x & M3;
    z[0] ^= (x0 * y[0]) ^ (x1 * y[3]) ^ (x2 * y[2]) ^ (x3 * y[1]);
    z[1] ^= (x0 * y[1]) ^ (x1 * y[0]) ^ (x2 * y[3]) ^ (x3 * y[2]);
    z[2] ^= (x0 * y[2]) ^ (x1 * y[1]) ^ (x2 * y[0]) ^ (x3 * y[3]);
    z[3] ^= (x0 * y[3]) ^ (x1 * y[2]) ^ (x2 * y[1]) ^ (x3 * y[0]);
}

static inline uint64_t merge_classes(const uint64_t z[4])
{
    return (z[0] & M0) | (z[1] & M1) | (z[2] & M2) | (z[3] & M3);
}

static void split4(uint64_t *dst, uint64_t v)
{
    dst[0] = v & M0;
    dst[1] = v & M1;
    dst[2] = v & M2;
    dst[3] = v & M3;
}

/*
 * The 9 limb operands of a two-level Karatsuba product of (a0, a1, a2, a3): for each 128-bit
 * product (low halves, high halves, their sum), the limbs lo, hi, lo ^ hi.
 */
static void kara_operands(uint64_t op[9], const uint64_t a[4])
{
    op[0] = a[0];
    op[1] = a[1];
    op[2] = a[0] ^ a[1];
    op[3] = a[2];
    op[4] = a[3];
    op[5] = a[2] ^ a[3];
    op[6] = a[0] ^ a[2];
    op[7] = a[1] ^ a[3];
    op[8] = op[6] ^ op[7];
}

/* c (256 bits) = Karatsuba recombination of three 128-bit limb products p[0..5] (lo, hi). */
static void kara128(uint64_t c[4], const uint64_t p[6])
{
    uint64_t m0 = p[4] ^ p[0] ^ p[2], m1 = p[5] ^ p[1] ^ p[3];
    c[0] = p[0];
    c[1] = p[1] ^ m0;
    c[2] = p[2] ^ m1;
    c[3] = p[3];
}

/* y = the 511-bit product c reduced mod f = x^256 + x^10 + x^5 + x^2 + 1. */
static void reduce(uint64_t y[4], const uint64_t c[8])
{
    /* Fold c[4..7] once with x^256 = x^10 + x^5 + x^2 + 1, then the at most 10 bits past x^255. */
    uint64_t prev = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t h = c[4 + i];
        y[i] =
            c[i] ^ h ^ (h << 2) ^ (prev >> 62) ^ (h << 5) ^ (prev >> 59) ^ (h << 10) ^ (prev >> 54);
        prev = h;
    }
    uint64_t o = (prev >> 62) ^ (prev >> 59) ^ (prev >> 54);
    y[0] ^= o ^ (o << 2) ^ (o << 5) ^ (o << 10);
}

/* Temporaries of mul_group, kept by the caller so that it can wipe them once. */
typedef struct ghash_scratch {
    uint64_t opn[4][9], opr[4][9], a[4], r[4], p[18], lo[4], hi[4], mid[4], c[8];
} ghash_scratch;

/*
 * y = (y ^ X_1) H^n ^ X_2 H^(n-1) ^ ... ^ X_n H for n <= 4 blocks: the 9 limb products of every
 * block are summed before the high halves are bit-reversed and before one reduction.
 */

static inline void mul_group(uint64_t y[4], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                             ghash_scratch *t)
{
    uint64_t(*opn)[9] = t->opn, (*opr)[9] = t->opr;
    uint64_t *a = t->a, *r = t->r, *p = t->p, *lo = t->lo, *hi = t->hi, *mid = t->mid, *c = t->c;
    for (size_t j = 0; j < n; j++) {
        for (int i = 0; i < 4; i++) {
            r[i] = bs_load_be64(blocks + 32 * j + 8 * i);
            a[i] = rev64(r[i]);
        }
        if (j == 0)
            for (int i = 0; i < 4; i++) {
                a[i] ^= y[i];
                r[i] = rev64(a[i]);
            }
        kara_operands(opn[j], a);
        kara_operands(opr[j], r);
    }
    for (int k = 0; k < 9; k++) {
        uint64_t zl[4] = {0, 0, 0, 0}, zh[4] = {0, 0, 0, 0};
        for (size_t j = 0; j < n; j++) {
            const uint64_t *hk = hkey + HKEY_POW * (n - 1 - j) + 8 * k;
            bmul64_acc(zl, opn[j][k], hk);
            bmul64_acc(zh, opr[j][k], hk + 4);
        }
        p[2 * k] = merge_classes(zl);
        p[2 * k + 1] = rev64(merge_classes(zh)) >> 1;
    }
    kara128(lo, p);
    kara128(hi, p + 6);
    kara128(mid, p + 12);
    for (int i = 0; i < 4; i++)
        mid[i] ^= lo[i] ^ hi[i];
    c[0] = lo[0];
    c[1] = lo[1];
    c[2] = lo[2] ^ mid[0];
    c[3] = lo[3] ^ mid[1];
    c[4] = hi[0] ^ mid[2];
    c[5] = hi[1] ^ mid[3];
    c[6] = hi[2];
    c[7] = hi[3];
    reduce(y, c);
}

static void load_limbs(uint64_t a[4], const uint8_t *b)
{
    for (int i = 0; i < 4; i++)
        a[i] = rev64(bs_load_be64(b + 8 * i));
}

static void store_limbs(uint8_t *b, const uint64_t a[4])
{
    for (int i = 0; i < 4; i++)
        bs_store_be64(b + 8 * i, rev64(a[i]));
}

static void ctmul64_init(uint64_t *hkey, const uint8_t h[32])
{
    uint64_t pw[4], op[9];
    uint8_t one[32] = {0};
    ghash_scratch t;
    memset(hkey, 0, BS_GHASH256_HKEY_WORDS * sizeof(uint64_t));
    load_limbs(pw, h);
    for (int e = 0; e < 4; e++) {
        kara_operands(op, pw);
        for (int k = 0; k < 9; k++) {
            split4(hkey + HKEY_POW * e + 8 * k, op[k]);
            split4(hkey + HKEY_POW * e + 8 * k + 4, rev64(op[k]));
        }
        /* H^(e+2) = H^(e+1) * H: a block of zeros absorbed into y = H^(e+1). */
        if (e < 3)
            mul_group(pw, hkey, one, 1, &t);
    }
    bs_wipe(pw, sizeof pw);
    bs_wipe(op, sizeof op);
    bs_wipe(&t, sizeof t);
}

static void ctmul64_mul_blocks(const uint64_t *hkey, uint8_t y[32], const uint8_t *blocks,
                               size_t nblocks)
{
    uint64_t acc[4];
    ghash_scratch t;
    load_limbs(acc, y);
    for (; nblocks >= 4; nblocks -= 4, blocks += 128)
        mul_group(acc, hkey, blocks, 4, &t);
    if (nblocks > 0)
        mul_group(acc, hkey, blocks, nblocks, &t);
    store_limbs(y, acc);
    bs_wipe(acc, sizeof acc);
    bs_wipe(&t, sizeof t);
}

/*
 * 64-bit multiplies are variable-time where they are a UMULL with early termination
 * (Cortex-M3, armv7-m without DSP) or a libgcc loop (RISC-V without M): not constant-time there.
 */
#if (defined(__ARM_ARCH) && __ARM_ARCH == 7 && defined(__ARM_ARCH_PROFILE) &&                      \
     __ARM_ARCH_PROFILE == 'M' && !defined(__ARM_FEATURE_DSP)) ||                                  \
    (defined(__riscv) && !defined(__riscv_mul))
#define BS_CTMUL64_CONSTANT_TIME 0
#else
#define BS_CTMUL64_CONSTANT_TIME 1
#endif

const bs_ghash256_impl bs_ghash256_ctmul64 = {
    .name = "ctmul64",
    .constant_time = BS_CTMUL64_CONSTANT_TIME,
    .init = ctmul64_init,
    .mul_blocks = ctmul64_mul_blocks,
    .level = BS_CPU_PORTABLE,
};
