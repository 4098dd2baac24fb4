/*
 * ghash_ct32.inc.h: constant-time, table-free GHASH for 32-bit targets over any field of 128 or
 * 256 bits, a template include: ghash128_ct32.c (GF(2^128), two-level Karatsuba, 9 limb
 * products) and ghash256_ct32.c (GF(2^256), three levels, 27) each instantiate it once. Two
 * leaf multipliers over one Karatsuba frame (clmul32.h):
 *
 * - ctmul32: 32 x 32 -> 32 integer multiplies with "holes" (after BearSSL's ghash_ctmul32),
 *   for cores whose 32-bit MUL is constant-time but whose 64-bit multiply is not (Cortex-M3:
 *   UMULL terminates early; ARMv6-M: a library call). The high half of each limb product comes
 *   from the same trick on the bit reversals of the operands.
 * - ctshift32: no multiply at all, for cores without a multiplier (RV32I without M, where even
 *   a 32-bit product is libgcc's data-dependent __mulsi3): each bit of one operand becomes an
 *   all-ones or all-zeros mask over the shifted other operand.
 *
 * Layout: a field element is GH_LIMBS 32-bit limbs in polynomial order (clmul32.h). Key form
 * (hkey), the same for both: for each power H^(e+1), e = 0..3, and each of its GH_LEAVES
 * Karatsuba operands op_k: hkey[GH_LEAVES e + k] = op_k | bs_rev32(op_k) << 32 (ctshift32 reads
 * the low half only). Four blocks share one recombination and one reduction.
 *
 * The includer defines, and #undefs after:
 *   GH_LIMBS       4 or 8 (the field has 32 GH_LIMBS bits)
 *   GH_IMPL        the implementation type (bs_ghash128_impl, bs_ghash256_impl)
 *   GH_HKEY_WORDS  its key-form size in 64-bit words
 *   GH_NAME(x)     the public name of implementation x (bs_ghash128_x, bs_ghash256_x)
 * and before the include the static functions
 *   kara_operands(op[GH_LEAVES], a[GH_LIMBS])  the limb operands of a Karatsuba product
 *   reduce(y[GH_LIMBS], c[2 GH_LIMBS])         the product reduced modulo the field polynomial
 * No include guard, on purpose.
 */

/* Limb products of one product, and key-form words per power of H: 3 per Karatsuba level. */
#if GH_LIMBS == 4
#define GH_LEAVES 9
#elif GH_LIMBS == 8
#define GH_LEAVES 27
#else
#error "ghash_ct32.inc.h: GH_LIMBS must be 4 or 8"
#endif
#define GH_BL (4 * GH_LIMBS)

/*
 * Temporaries of a group product, kept by the caller so that it can wipe them once. Slot e of
 * opn (opr) holds the operands of the block multiplied by H^(e+1) (of its reversed limbs);
 * p the limb products, q, s the recombinations of the levels above, c the full product.
 * The multiply-free path indexes by stepping pointers: without M, even a product of public
 * indices can become a __mulsi3 call (clang). ctmul32 indexes plainly, which gcc unrolls better.
 */
typedef struct gh_scratch {
    uint32_t opn[4 * GH_LEAVES], opr[4 * GH_LEAVES], a[GH_LIMBS], r[GH_LIMBS], p[2 * GH_LEAVES],
        q[4 * GH_LEAVES / 3];
#if GH_LIMBS == 8
    uint32_t s[8 * GH_LEAVES / 9];
#endif
    uint32_t c[2 * GH_LIMBS];
} gh_scratch;

/*
 * The limb operands of n <= 4 blocks, the accumulator y added to the first; rev: also those of
 * the bit-reversed limbs (rev32 is linear: the operands of the reversed limbs are the reversed
 * operands).
 */
static void group_operands(gh_scratch *t, const uint32_t y[GH_LIMBS], const uint8_t *blocks,
                           size_t n, int rev)
{
    uint32_t *a = t->a, *r = t->r, *on = t->opn, *orv = t->opr;
    for (size_t e = 0; e < n; e++, on += GH_LEAVES, orv += GH_LEAVES) {
        const uint8_t *b = blocks + GH_BL * (n - 1 - e);
        for (int i = 0; i < GH_LIMBS; i++) {
            r[i] = bs_load_be32(b + 4 * i);
            a[i] = bs_rev32(r[i]);
        }
        if (e == n - 1)
            for (int i = 0; i < GH_LIMBS; i++) {
                a[i] ^= y[i];
                r[i] = bs_rev32(a[i]);
            }
        kara_operands(on, a);
        if (rev)
            kara_operands(orv, r);
    }
}

/* y = the reduced product whose GH_LEAVES limb products are t->p. */
static void group_finish(uint32_t y[GH_LIMBS], gh_scratch *t)
{
    const uint32_t *p = t->p;
    uint32_t *qo = t->q;
    for (int g = 0; g < GH_LEAVES / 3; g++, p += 6, qo += 4)
        bs_kara_join(qo, p, p + 2, p + 4, 1);
#if GH_LIMBS == 8
    const uint32_t *q = t->q;
    uint32_t *so = t->s;
    for (int g = 0; g < 3; g++, q += 12, so += 8)
        bs_kara_join(so, q, q + 4, q + 8, 2);
    bs_kara_join(t->c, t->s, t->s + 8, t->s + 16, 4);
#else
    bs_kara_join(t->c, t->q, t->q + 4, t->q + 8, 2);
#endif
    reduce(y, t->c);
}

/*
 * y = (y ^ X_1) H^n ^ X_2 H^(n-1) ^ ... ^ X_n H for n <= 4 blocks: the limb products of every
 * block are summed before one recombination and one reduction. One function per leaf
 * multiplier, so that the multiply-free path holds no multiply at all.
 */
typedef void gh_group_fn(uint32_t y[GH_LIMBS], const uint64_t *hkey, const uint8_t *blocks,
                         size_t n, gh_scratch *t);

/* ctmul32: the classes are merged, and the high halves bit-reversed, once per group. */
static void group_mul32(uint32_t y[GH_LIMBS], const uint64_t *hkey, const uint8_t *blocks, size_t n,
                        gh_scratch *t)
{
    group_operands(t, y, blocks, n, 1);
    for (int k = 0; k < GH_LEAVES; k++) {
        /* Low halves, then high halves: one set of accumulators live at a time (registers). */
        uint32_t zl[4] = {0, 0, 0, 0}, zh[4] = {0, 0, 0, 0};
        for (size_t e = 0; e < n; e++)
            bs_bmul32_acc(zl, t->opn[GH_LEAVES * e + k], (uint32_t)hkey[GH_LEAVES * e + k]);
        t->p[2 * k] = bs_clmul_merge(zl);
        for (size_t e = 0; e < n; e++)
            bs_bmul32_acc(zh, t->opr[GH_LEAVES * e + k], (uint32_t)(hkey[GH_LEAVES * e + k] >> 32));
        t->p[2 * k + 1] = bs_rev32(bs_clmul_merge(zh)) >> 1;
    }
    group_finish(y, t);
}

static void group_shift32(uint32_t y[GH_LIMBS], const uint64_t *hkey, const uint8_t *blocks,
                          size_t n, gh_scratch *t)
{
    group_operands(t, y, blocks, n, 0);
    for (int k = 0; k < GH_LEAVES; k++) {
        uint32_t lo = 0, hi = 0;
        const uint32_t *x = t->opn + k;
        const uint64_t *h = hkey + k;
        for (size_t e = 0; e < n; e++, x += GH_LEAVES, h += GH_LEAVES)
            bs_clmul32_shift_acc(&lo, &hi, *x, (uint32_t)*h);
        t->p[2 * k] = lo;
        t->p[2 * k + 1] = hi;
    }
    group_finish(y, t);
}

static void load_limbs(uint32_t a[GH_LIMBS], const uint8_t *b)
{
    for (int i = 0; i < GH_LIMBS; i++)
        a[i] = bs_rev32(bs_load_be32(b + 4 * i));
}

static void store_limbs(uint8_t *b, const uint32_t a[GH_LIMBS])
{
    for (int i = 0; i < GH_LIMBS; i++)
        bs_store_be32(b + 4 * i, bs_rev32(a[i]));
}

static void init_with(uint64_t *hkey, const uint8_t h[GH_BL], gh_group_fn *group)
{
    uint32_t pw[GH_LIMBS], op[GH_LEAVES];
    uint8_t zero[GH_BL] = {0};
    gh_scratch t;
    uint64_t *hp = hkey;
    memset(hkey, 0, GH_HKEY_WORDS * sizeof(uint64_t));
    load_limbs(pw, h);
    for (int e = 0; e < 4; e++, hp += GH_LEAVES) {
        kara_operands(op, pw);
        for (int k = 0; k < GH_LEAVES; k++)
            hp[k] = op[k] | (uint64_t)bs_rev32(op[k]) << 32;
        /* H^(e+2) = H^(e+1) * H: a block of zeros absorbed into y = H^(e+1). */
        if (e < 3)
            group(pw, hkey, zero, 1, &t);
    }
    bs_wipe(pw, sizeof pw);
    bs_wipe(op, sizeof op);
    bs_wipe(&t, sizeof t);
}

static void mul_blocks_with(const uint64_t *hkey, uint8_t y[GH_BL], const uint8_t *blocks,
                            size_t nblocks, gh_group_fn *group)
{
    uint32_t acc[GH_LIMBS];
    gh_scratch t;
    load_limbs(acc, y);
    for (; nblocks >= 4; nblocks -= 4, blocks += 4 * GH_BL)
        group(acc, hkey, blocks, 4, &t);
    if (nblocks > 0)
        group(acc, hkey, blocks, nblocks, &t);
    store_limbs(y, acc);
    bs_wipe(acc, sizeof acc);
    bs_wipe(&t, sizeof t);
}

static void ctmul32_init(uint64_t *hkey, const uint8_t h[GH_BL])
{
    init_with(hkey, h, group_mul32);
}

static void ctmul32_mul_blocks(const uint64_t *hkey, uint8_t y[GH_BL], const uint8_t *blocks,
                               size_t nblocks)
{
    mul_blocks_with(hkey, y, blocks, nblocks, group_mul32);
}

static void ctshift32_init(uint64_t *hkey, const uint8_t h[GH_BL])
{
    init_with(hkey, h, group_shift32);
}

static void ctshift32_mul_blocks(const uint64_t *hkey, uint8_t y[GH_BL], const uint8_t *blocks,
                                 size_t nblocks)
{
    mul_blocks_with(hkey, y, blocks, nblocks, group_shift32);
}

/* Without a multiplier a 32-bit product is a library loop whose time depends on the data. */
const GH_IMPL GH_NAME(ctmul32) = {
    .name = "ctmul32",
#if defined(__riscv) && !defined(__riscv_mul)
    .constant_time = 0,
#else
    .constant_time = 1,
#endif
    .init = ctmul32_init,
    .mul_blocks = ctmul32_mul_blocks,
    .level = BS_CPU_PORTABLE,
};

const GH_IMPL GH_NAME(ctshift32) = {
    .name = "ctshift32",
    .constant_time = 1,
    .init = ctshift32_init,
    .mul_blocks = ctshift32_mul_blocks,
    .level = BS_CPU_PORTABLE,
};

#undef GH_LEAVES
#undef GH_BL
