/*
 * ghash128_ct32.c: constant-time, table-free GHASH-128 (SP 800-38D) for 32-bit targets, the
 * two leaf multipliers of ghash256_ct32.c (clmul32.h) over a two-level Karatsuba frame:
 * ctmul32 (32 x 32 -> 32 multiplies with holes; the high half from the bit-reversed operands)
 * and ctshift32 (no multiply: masked shifts, for RV32I).
 *
 * A field element is four limbs in polynomial order (clmul32.h); a 128 x 128 product is nine
 * limb products. Key form (hkey): for each power H^(e+1), e = 0..3, and each of its nine
 * Karatsuba operands op_k: hkey[9 e + k] = op_k | rev32(op_k) << 32 (ctshift32 reads the low
 * half only). Four blocks share one recombination and one reduction.
 */
#include "gcm128.h"

#include "clmul32.h"

#define LEAVES 9

/* y = the 255-bit product c reduced mod x^128 + x^7 + x^2 + x + 1. */
static void reduce(uint32_t y[4], const uint32_t c[8])
{
    /* Fold c[4..7] with x^128 = x^7 + x^2 + x + 1, then the at most 7 bits past x^127. */
    uint32_t prev = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t h = c[4 + i];
        y[i] =
            c[i] ^ h ^ (h << 1) ^ (prev >> 31) ^ (h << 2) ^ (prev >> 30) ^ (h << 7) ^ (prev >> 25);
        prev = h;
    }
    uint32_t o = (prev >> 31) ^ (prev >> 30) ^ (prev >> 25);
    y[0] ^= o ^ (o << 1) ^ (o << 2) ^ (o << 7);
}

typedef struct ghash128_scratch {
    uint32_t opn[4 * LEAVES], opr[4 * LEAVES], a[4], r[4], p[2 * LEAVES], q[12], c[8];
} ghash128_scratch;

/* The limb operands of n <= 4 blocks, y added to the first; rev: also of the reversed limbs. */
static void group_operands(ghash128_scratch *t, const uint32_t y[4], const uint8_t *blocks,
                           size_t n, int rev)
{
    uint32_t *a = t->a, *r = t->r, *on = t->opn, *orv = t->opr;
    for (size_t e = 0; e < n; e++, on += LEAVES, orv += LEAVES) {
        const uint8_t *b = blocks + 16 * (n - 1 - e);
        for (int i = 0; i < 4; i++) {
            r[i] = bs_load_be32(b + 4 * i);
            a[i] = bs_rev32(r[i]);
        }
        if (e == n - 1)
            for (int i = 0; i < 4; i++) {
                a[i] ^= y[i];
                r[i] = bs_rev32(a[i]);
            }
        bs_kara_operands4(on, a);
        if (rev)
            bs_kara_operands4(orv, r);
    }
}

static void group_finish(uint32_t y[4], ghash128_scratch *t)
{
    const uint32_t *p = t->p;
    uint32_t *qo = t->q;
    for (int g = 0; g < 3; g++, p += 6, qo += 4)
        bs_kara_join(qo, p, p + 2, p + 4, 1);
    bs_kara_join(t->c, t->q, t->q + 4, t->q + 8, 2);
    reduce(y, t->c);
}

typedef void ghash128_group_fn(uint32_t y[4], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                               ghash128_scratch *t);

static void group_mul32(uint32_t y[4], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                        ghash128_scratch *t)
{
    group_operands(t, y, blocks, n, 1);
    for (int k = 0; k < LEAVES; k++) {
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

static void group_shift32(uint32_t y[4], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                          ghash128_scratch *t)
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

static void load_limbs(uint32_t a[4], const uint8_t *b)
{
    for (int i = 0; i < 4; i++)
        a[i] = bs_rev32(bs_load_be32(b + 4 * i));
}

static void store_limbs(uint8_t *b, const uint32_t a[4])
{
    for (int i = 0; i < 4; i++)
        bs_store_be32(b + 4 * i, bs_rev32(a[i]));
}

static void init_with(uint64_t *hkey, const uint8_t h[16], ghash128_group_fn *group)
{
    uint32_t pw[4], op[LEAVES];
    uint8_t zero[16] = {0};
    ghash128_scratch t;
    uint64_t *hp = hkey;
    memset(hkey, 0, BS_GHASH128_HKEY_WORDS * sizeof(uint64_t));
    load_limbs(pw, h);
    for (int e = 0; e < 4; e++, hp += LEAVES) {
        bs_kara_operands4(op, pw);
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

static void mul_blocks_with(const uint64_t *hkey, uint8_t y[16], const uint8_t *blocks,
                            size_t nblocks, ghash128_group_fn *group)
{
    uint32_t acc[4];
    ghash128_scratch t;
    load_limbs(acc, y);
    for (; nblocks >= 4; nblocks -= 4, blocks += 64)
        group(acc, hkey, blocks, 4, &t);
    if (nblocks > 0)
        group(acc, hkey, blocks, nblocks, &t);
    store_limbs(y, acc);
    bs_wipe(acc, sizeof acc);
    bs_wipe(&t, sizeof t);
}

static void ctmul32_init(uint64_t *hkey, const uint8_t h[16])
{
    init_with(hkey, h, group_mul32);
}

static void ctmul32_mul_blocks(const uint64_t *hkey, uint8_t y[16], const uint8_t *blocks,
                               size_t nblocks)
{
    mul_blocks_with(hkey, y, blocks, nblocks, group_mul32);
}

static void ctshift32_init(uint64_t *hkey, const uint8_t h[16])
{
    init_with(hkey, h, group_shift32);
}

static void ctshift32_mul_blocks(const uint64_t *hkey, uint8_t y[16], const uint8_t *blocks,
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

const bs_ghash128_impl bs_ghash128_ctmul32 = {
    "ctmul32",
    CTMUL32_CONSTANT_TIME,
    ctmul32_init,
    ctmul32_mul_blocks,
};

const bs_ghash128_impl bs_ghash128_ctshift32 = {
    "ctshift32",
    1,
    ctshift32_init,
    ctshift32_mul_blocks,
};

const bs_ghash128_impl *bs_ghash128_default(void)
{
#if defined(BS_GHASH128_TABLE4_DEFAULT)
    return &bs_ghash128_table4_not_ct;
#elif defined(__riscv) && !defined(__riscv_mul)
    return &bs_ghash128_ctshift32;
#else
    return &bs_ghash128_ctmul32;
#endif
}
