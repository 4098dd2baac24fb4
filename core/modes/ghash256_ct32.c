/*
 * ghash256_ct32.c: constant-time GHASH-256 for 32-bit targets (docs/spec/rijndael256-gcm.md), two
 * leaf multipliers over one Karatsuba frame:
 *
 * - ctmul32: 32 x 32 -> 32 integer multiplies with "holes" (after BearSSL's ghash_ctmul32),
 *   for cores whose 32-bit MUL is constant-time but whose 64-bit multiply is not (Cortex-M3:
 *   UMULL terminates early; ARMv6-M: a library call). Each operand is split into four classes
 *   of bits 4 apart; a column of one class sums at most 8 terms, so no carry reaches the next
 *   bit of its class in the low 32 bits. The high half comes from the same trick on the bit
 *   reversals of the operands.
 * - ctshift32: no multiply at all, for cores without a multiplier (RV32I without M, where even
 *   a 32-bit product is libgcc's data-dependent __mulsi3): each bit of one operand becomes an
 *   all-ones or all-zeros mask over the shifted other operand.
 *
 * Layout. A field element is kept as eight 32-bit limbs in polynomial order: bit j of limb i is
 * the coefficient of x^(32 i + j). In GCM's reflected byte order (byte 0, bit 7 = x^0) limb i is
 * the bit reversal of the big-endian word at bytes 4 i .. 4 i + 3. A 256-bit product is three
 * levels of Karatsuba down to 27 limb products (kara_operands, kara_join).
 *
 * Key form (hkey), the same for both: for each power H^(e+1), e = 0..3, and each of its 27
 * Karatsuba operands op_k: hkey[27 e + k] = op_k | bs_rev32(op_k) << 32 (ctshift32 reads the low
 * half only). Four blocks share one recombination and one reduction.
 */
#include "gcm256.h"

#include "clmul32.h"

/* Limb products of one 256 x 256 product, and key-form words per power of H. */
#define LEAVES 27

/* The 27 limb operands of a three-level Karatsuba product of a[0..7]. */
static void kara_operands(uint32_t op[LEAVES], const uint32_t a[8])
{
    uint32_t m[4];
    for (int i = 0; i < 4; i++)
        m[i] = a[i] ^ a[4 + i];
    bs_kara_operands4(op, a);
    bs_kara_operands4(op + 9, a + 4);
    bs_kara_operands4(op + 18, m);
}

/* y = the 511-bit product c reduced mod f = x^256 + x^10 + x^5 + x^2 + 1. */
static void reduce(uint32_t y[8], const uint32_t c[16])
{
    /* Fold c[8..15] once with x^256 = x^10 + x^5 + x^2 + 1, then the at most 10 bits past x^255. */
    uint32_t prev = 0;
    for (int i = 0; i < 8; i++) {
        uint32_t h = c[8 + i];
        y[i] =
            c[i] ^ h ^ (h << 2) ^ (prev >> 30) ^ (h << 5) ^ (prev >> 27) ^ (h << 10) ^ (prev >> 22);
        prev = h;
    }
    uint32_t o = (prev >> 30) ^ (prev >> 27) ^ (prev >> 22);
    y[0] ^= o ^ (o << 2) ^ (o << 5) ^ (o << 10);
}

/*
 * Temporaries of a group product, kept by the caller so that it can wipe them once. Slot e of
 * opn (opr) holds the operands of the block multiplied by H^(e+1) (of its reversed limbs).
 * The multiply-free path indexes by stepping pointers: without M, even a product of public
 * indices can become a __mulsi3 call (clang). ctmul32 indexes plainly, which gcc unrolls better.
 */
typedef struct ghash32_scratch {
    uint32_t opn[4 * LEAVES], opr[4 * LEAVES], a[8], r[8], p[2 * LEAVES], q[36], s[24], c[16];
} ghash32_scratch;

/*
 * The limb operands of n <= 4 blocks, the accumulator y added to the first; rev: also those of
 * the bit-reversed limbs (rev32 is linear: the operands of the reversed limbs are the reversed
 * operands).
 */
static void group_operands(ghash32_scratch *t, const uint32_t y[8], const uint8_t *blocks, size_t n,
                           int rev)
{
    uint32_t *a = t->a, *r = t->r, *on = t->opn, *orv = t->opr;
    for (size_t e = 0; e < n; e++, on += LEAVES, orv += LEAVES) {
        const uint8_t *b = blocks + 32 * (n - 1 - e);
        for (int i = 0; i < 8; i++) {
            r[i] = bs_load_be32(b + 4 * i);
            a[i] = bs_rev32(r[i]);
        }
        if (e == n - 1)
            for (int i = 0; i < 8; i++) {
                a[i] ^= y[i];
                r[i] = bs_rev32(a[i]);
            }
        kara_operands(on, a);
        if (rev)
            kara_operands(orv, r);
    }
}

/* y = the reduced product whose 27 limb products are t->p. */
static void group_finish(uint32_t y[8], ghash32_scratch *t)
{
    const uint32_t *p = t->p, *q = t->q;
    uint32_t *qo = t->q, *so = t->s;
    for (int g = 0; g < 9; g++, p += 6, qo += 4)
        bs_kara_join(qo, p, p + 2, p + 4, 1);
    for (int g = 0; g < 3; g++, q += 12, so += 8)
        bs_kara_join(so, q, q + 4, q + 8, 2);
    bs_kara_join(t->c, t->s, t->s + 8, t->s + 16, 4);
    reduce(y, t->c);
}

/*
 * y = (y ^ X_1) H^n ^ X_2 H^(n-1) ^ ... ^ X_n H for n <= 4 blocks: the limb products of every
 * block are summed before one recombination and one reduction. One function per leaf
 * multiplier, so that the multiply-free path holds no multiply at all.
 */
typedef void ghash32_group_fn(uint32_t y[8], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                              ghash32_scratch *t);

/* ctmul32: the classes are merged, and the high halves bit-reversed, once per group. */
static void group_mul32(uint32_t y[8], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                        ghash32_scratch *t)
{
    group_operands(t, y, blocks, n, 1);
    for (int k = 0; k < LEAVES; k++) {
        /* Low halves, then high halves: one set of accumulators live at a time (registers). */
        uint32_t zl[4] = {0, 0, 0, 0}, zh[4] = {0, 0, 0, 0};
        for (size_t e = 0; e < n; e++)
            bs_bmul32_acc(zl, t->opn[LEAVES * e + k], (uint32_t)hkey[LEAVES * e + k]);
        t->p[2 * k] = bs_clmul_merge(zl);
        for (size_t e = 0; e < n; e++)
            bs_bmul32_acc(zh, t->opr[LEAVES * e + k], (uint32_t)(hkey[LEAVES * e + k] >> 32));
        t->p[2 * k + 1] = bs_rev32(bs_clmul_merge(zh)) >> 1;
    }
    group_finish(y, t);
}

static void group_shift32(uint32_t y[8], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                          ghash32_scratch *t)
{
    group_operands(t, y, blocks, n, 0);
    for (int k = 0; k < LEAVES; k++) {
        uint32_t lo = 0, hi = 0;
        const uint32_t *x = t->opn + k;
        const uint64_t *h = hkey + k;
        for (size_t e = 0; e < n; e++, x += LEAVES, h += LEAVES)
            bs_clmul32_shift_acc(&lo, &hi, *x, (uint32_t)*h);
        t->p[2 * k] = lo;
        t->p[2 * k + 1] = hi;
    }
    group_finish(y, t);
}

static void load_limbs(uint32_t a[8], const uint8_t *b)
{
    for (int i = 0; i < 8; i++)
        a[i] = bs_rev32(bs_load_be32(b + 4 * i));
}

static void store_limbs(uint8_t *b, const uint32_t a[8])
{
    for (int i = 0; i < 8; i++)
        bs_store_be32(b + 4 * i, bs_rev32(a[i]));
}

static void init_with(uint64_t *hkey, const uint8_t h[32], ghash32_group_fn *group)
{
    uint32_t pw[8], op[LEAVES];
    uint8_t zero[32] = {0};
    ghash32_scratch t;
    uint64_t *hp = hkey;
    memset(hkey, 0, BS_GHASH256_HKEY_WORDS * sizeof(uint64_t));
    load_limbs(pw, h);
    for (int e = 0; e < 4; e++, hp += LEAVES) {
        kara_operands(op, pw);
        for (int k = 0; k < LEAVES; k++)
            hp[k] = op[k] | (uint64_t)bs_rev32(op[k]) << 32;
        /* H^(e+2) = H^(e+1) * H: a block of zeros absorbed into y = H^(e+1). */
        if (e < 3)
            group(pw, hkey, zero, 1, &t);
    }
    bs_wipe(pw, sizeof pw);
    bs_wipe(op, sizeof op);
    bs_wipe(&t, sizeof t);
}

static void mul_blocks_with(const uint64_t *hkey, uint8_t y[32], const uint8_t *blocks,
                            size_t nblocks, ghash32_group_fn *group)
{
    uint32_t acc[8];
    ghash32_scratch t;
    load_limbs(acc, y);
    for (; nblocks >= 4; nblocks -= 4, blocks += 128)
        group(acc, hkey, blocks, 4, &t);
    if (nblocks > 0)
        group(acc, hkey, blocks, nblocks, &t);
    store_limbs(y, acc);
    bs_wipe(acc, sizeof acc);
    bs_wipe(&t, sizeof t);
}

static void ctmul32_init(uint64_t *hkey, const uint8_t h[32])
{
    init_with(hkey, h, group_mul32);
}

static void ctmul32_mul_blocks(const uint64_t *hkey, uint8_t y[32], const uint8_t *blocks,
                               size_t nblocks)
{
    mul_blocks_with(hkey, y, blocks, nblocks, group_mul32);
}

static void ctshift32_init(uint64_t *hkey, const uint8_t h[32])
{
    init_with(hkey, h, group_shift32);
}

static void ctshift32_mul_blocks(const uint64_t *hkey, uint8_t y[32], const uint8_t *blocks,
                                 size_t nblocks)
{
    mul_blocks_with(hkey, y, blocks, nblocks, group_shift32);
}

/* Without a multiplier a 32-bit product is a library loop whose time depends on the data. */
#if defined(__riscv) && !defined(__riscv_mul)
#define CTMUL32_CONSTANT_TIME 0
#else
#define CTMUL32_CONSTANT_TIME 1
#endif

const bs_ghash256_impl bs_ghash256_ctmul32 = {
    "ctmul32",
    CTMUL32_CONSTANT_TIME,
    ctmul32_init,
    ctmul32_mul_blocks,
};

const bs_ghash256_impl bs_ghash256_ctshift32 = {
    "ctshift32",
    1,
    ctshift32_init,
    ctshift32_mul_blocks,
};
