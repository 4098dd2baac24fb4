/*
 * gift_wide.inc.h: GIFT-64 and GIFT-128 on wide vector words (a template include, bs_common.h):
 * gift_avx512.c includes it for bs_v8 (512 lanes), gift_avx2.c for bs_v4 (256 lanes), each
 * inside its target region (bs_target_begin.inc.h: BS_TARGET_W and the rest). It defines that
 * level's descriptors, bs_gift64_<level> and bs_gift128_<level>.
 *
 * Layout: that of gift.h with vector words (bs_wide.inc.h): element g, bit l of s[i] is bit i
 * of block NG l + g (GIFT-128: s[0..63] the low 64 bits of the blocks, s[64..127] the high
 * ones). The S-box statements (BS_GIFT_SBOX_NN_STEPS, _ANDN_STEPS), the permutation-as-renaming
 * (BS_GIFT64_PN, BS_GIFT128_PN) and the round-key masks are gift.h's; the masks are bs64's
 * uint64_t ones, broadcast to the elements as they are used, so the key schedule is
 * gift_bs64.c's and short calls run there (the narrow path). In counter mode the high 64 bits
 * of a GIFT-128 counter are the same in every block: their bitsliced words are all-zero or
 * all-one masks, made without a transpose, and the low 64 bits too. The rounds go two at a time
 * over a quarter (GIFT-128: an eighth) of the state in registers (gift64_quarter2).
 * Logic, shifts and permutes only: constant time. No include guard, on purpose.
 */
/* The GIFT-128 round form must be the one gift_bs64.c's key schedule was made for. */
#if defined(__BMI__) || defined(__aarch64__)
#define GIFT128_ANDN 1
#else
#define GIFT128_ANDN 0
#endif

#ifdef BS_WIDE_HALF
/*
 * The ymm instance inside the AVX-512 region: VPTERNLOGQ on ymm words (AVX-512VL). The region's
 * full instance, included next, takes it as its narrow path (GW_HALF_DONE).
 */
#define GW_HALF_DONE
#define BS_W bs_v4
#define BS_SFX v4
#define GW_TERN(a, b, c, imm)                                                                      \
    ((bs_v4)_mm256_ternarylogic_epi64((__m256i)(a), (__m256i)(b), (__m256i)(c), (imm)))
#else
#define BS_W BS_TARGET_W
#define BS_SFX BS_TARGET_SFX
#ifdef BS_WIDE_TERN
#define GW_TERN BS_WIDE_TERN
#endif
#endif
#define vw BS_W
/* Blocks of one pass of this instance. */
#define GW_PASS (64 * sizeof(vw) / 8)

#ifdef GW_TERN
/*
 * The GIFT S-box as 6 three-input gates (VPTERNLOG; a SAT search finds none of 5) whose last
 * gate for output bit 1 has two inputs, so the key mask *k1 of that bit is its third operand:
 * y0..y3 = S(x)'s bits, y1 ^ *k1. 7 operations per S-box and key where the 6-line circuit and
 * its key take 7 to 8 after the compiler's merging. All public data flow.
 */
static inline __attribute__((always_inline)) void
BS_TPL(gift_sbox_k1)(vw *y0, vw *y1, vw *y2, vw *y3, vw x0, vw x1, vw x2, vw x3, const uint64_t *k1)
{
    const vw g0 = GW_TERN(x2, x1, x0, 0x6c);
    const vw g1 = GW_TERN(g0, x3, x0, 0xc6);
    const vw g2 = GW_TERN(g1, g0, x2, 0x69);
    const vw g4 = GW_TERN(g0, x3, x0, 0x6a);
    *y1 = GW_TERN(g2, g0, BS_TPL(bs_wide_set1)(k1), 0x69);
    *y2 = GW_TERN(g4, g2, g1, 0x59);
    *y0 = g2;
    *y3 = g4;
}

/* ~(v ^ *k) in one operation (GCC makes an XOR and a NOT of it). */
static inline vw BS_TPL(xnor_k)(vw v, const uint64_t *k)
{
    return GW_TERN(v, v, BS_TPL(bs_wide_set1)(k), 0xa5);
}

#endif

/*
 * Two rounds per call, a part of the state at a time. The S-boxes 4q..4q+3 of a round send
 * their outputs to nibbles q + 4t (GIFT-64; q + 8t for GIFT-128), t = 0..3 (BS_GIFT64_PN), and
 * those nibbles take all their inputs from them: so a quarter (an eighth) of the state goes
 * through two rounds in registers, and the state, which no register file holds, is loaded and
 * stored once per two rounds instead of once per round. Each output word gets its round key and
 * constant where it is made (the key masks are indexed by destination nibble); all indices are
 * constants once q is.
 */
static inline __attribute__((always_inline)) void
BS_TPL(gift64_quarter2)(vw *restrict d, const vw *restrict s, const uint64_t *m1,
                        const uint64_t *m2, unsigned q)
{
    vw t[16]; /* t[4 u + b]: bit b of nibble q + 4 u after the first round */
    for (unsigned jl = 0; jl < 4; jl++) {
        const unsigned n = 4 * q + jl;
        vw x0 = s[4 * n], x1 = s[4 * n + 1], x2 = s[4 * n + 2], x3 = s[4 * n + 3];
#ifdef GW_TERN
        BS_WIDE_KEEP4(x0, x1, x2, x3);
        /* m1[n] is ~V: the complement of S(x) bit 0 ^ m1 is S(x) bit 0 ^ V. */
        vw y0;
        BS_TPL(gift_sbox_k1)
        (&y0, &t[4 * (BS_GIFT64_PN(n, 1) >> 2) + 1], &t[4 * (BS_GIFT64_PN(n, 2) >> 2) + 2],
         &t[4 * (BS_GIFT64_PN(n, 3) >> 2) + 3], x0, x1, x2, x3, m1 + 16 + BS_GIFT64_PN(n, 1));
        t[4 * (BS_GIFT64_PN(n, 0) >> 2)] = BS_TPL(xnor_k)(y0, m1 + BS_GIFT64_PN(n, 0));
#else
        BS_GIFT_SBOX_NN_STEPS(x0, x1, x2, x3);
        t[4 * (BS_GIFT64_PN(n, 0) >> 2)] = x3 ^ m1[BS_GIFT64_PN(n, 0)];
        t[4 * (BS_GIFT64_PN(n, 1) >> 2) + 1] = x1 ^ m1[16 + BS_GIFT64_PN(n, 1)];
        t[4 * (BS_GIFT64_PN(n, 2) >> 2) + 2] = x2;
        t[4 * (BS_GIFT64_PN(n, 3) >> 2) + 3] = x0;
#endif
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 4 * u;
        if (n < 6)
            t[4 * u + 3] ^= m1[32 + n];
        if (n == 15)
            t[4 * u + 3] = ~t[4 * u + 3];
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 4 * u, p3 = BS_GIFT64_PN(n, 3);
        vw x0 = t[4 * u], x1 = t[4 * u + 1], x2 = t[4 * u + 2], x3 = t[4 * u + 3];
#ifdef GW_TERN
        vw y0, y3;
        BS_TPL(gift_sbox_k1)
        (&y0, &d[4 * BS_GIFT64_PN(n, 1) + 1], &d[4 * BS_GIFT64_PN(n, 2) + 2], &y3, x0, x1, x2, x3,
         m2 + 16 + BS_GIFT64_PN(n, 1));
        d[4 * BS_GIFT64_PN(n, 0)] = BS_TPL(xnor_k)(y0, m2 + BS_GIFT64_PN(n, 0));
        d[4 * p3 + 3] = p3 < 6 ? y3 ^ m2[32 + p3] : p3 == 15 ? ~y3 : y3;
#else
        BS_GIFT_SBOX_NN_STEPS(x0, x1, x2, x3);
        d[4 * BS_GIFT64_PN(n, 0)] = x3 ^ m2[BS_GIFT64_PN(n, 0)];
        d[4 * BS_GIFT64_PN(n, 1) + 1] = x1 ^ m2[16 + BS_GIFT64_PN(n, 1)];
        d[4 * BS_GIFT64_PN(n, 2) + 2] = x2;
        d[4 * p3 + 3] = p3 < 6 ? x0 ^ m2[32 + p3] : p3 == 15 ? ~x0 : x0;
#endif
    }
}

/* Two rounds, s -> d (keys m, then m + BS_GIFT64_RK_WORDS). */
__attribute__((noinline)) static void BS_TPL(gift64_round2)(vw *restrict d, const vw *restrict s,
                                                            const uint64_t *m)
{
    const uint64_t *m2 = m + BS_GIFT64_RK_WORDS;
    BS_TPL(gift64_quarter2)(d, s, m, m2, 0);
    BS_TPL(gift64_quarter2)(d, s, m, m2, 1);
    BS_TPL(gift64_quarter2)(d, s, m, m2, 2);
    BS_TPL(gift64_quarter2)(d, s, m, m2, 3);
}

#if GIFT128_ANDN
#define GIFT128_SBOX BS_GIFT_SBOX_ANDN_STEPS
#define GIFT128_OUT3(x) (x)
#else
#define GIFT128_SBOX BS_GIFT_SBOX_NN_STEPS
#define GIFT128_OUT3(x) (~(x))
#endif
/*
 * With GW_TERN (VPTERNLOGQ) the state stays in plain form in both builds; the and-not schedule's U
 * masks (bit 2) are complemented (gift.h), which the complement of y2 ^ m undoes.
 */
#if GIFT128_ANDN
#define GIFT128_U(v, k) BS_TPL(xnor_k)(v, k)
#else
#define GIFT128_U(v, k) ((v) ^ BS_TPL(bs_wide_set1)(k))
#endif
#if GIFT128_ANDN && !defined(GW_TERN)
#define GIFT128_FLIP03 1
#else
#define GIFT128_FLIP03 0
#endif

static inline __attribute__((always_inline)) void
BS_TPL(gift128_eighth2)(vw *restrict d, const vw *restrict s, const uint64_t *m1,
                        const uint64_t *m2, unsigned q)
{
    vw t[16]; /* t[4 u + b]: bit b of nibble q + 8 u after the first round */
    for (unsigned jl = 0; jl < 4; jl++) {
        const unsigned n = 4 * q + jl;
        vw x0 = s[4 * n], x1 = s[4 * n + 1], x2 = s[4 * n + 2], x3 = s[4 * n + 3];
#ifdef GW_TERN
        BS_WIDE_KEEP4(x0, x1, x2, x3);
        vw y2;
        BS_TPL(gift_sbox_k1)
        (&t[4 * (BS_GIFT128_PN(n, 0) >> 3)], &t[4 * (BS_GIFT128_PN(n, 1) >> 3) + 1], &y2,
         &t[4 * (BS_GIFT128_PN(n, 3) >> 3) + 3], x0, x1, x2, x3, m1 + BS_GIFT128_PN(n, 1));
        t[4 * (BS_GIFT128_PN(n, 2) >> 3) + 2] = GIFT128_U(y2, m1 + 32 + BS_GIFT128_PN(n, 2));
#else
        GIFT128_SBOX(x0, x1, x2, x3);
        t[4 * (BS_GIFT128_PN(n, 0) >> 3)] = GIFT128_OUT3(x3);
        t[4 * (BS_GIFT128_PN(n, 1) >> 3) + 1] = x1 ^ m1[BS_GIFT128_PN(n, 1)];
        t[4 * (BS_GIFT128_PN(n, 2) >> 3) + 2] = x2 ^ m1[32 + BS_GIFT128_PN(n, 2)];
        t[4 * (BS_GIFT128_PN(n, 3) >> 3) + 3] = x0;
#endif
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 8 * u;
        if (n < 6)
            t[4 * u + 3] ^= m1[64 + n];
        if (n == 31)
            t[4 * u + 3] = ~t[4 * u + 3];
    }
    for (unsigned u = 0; u < 4; u++) {
        const unsigned n = q + 8 * u, p3 = BS_GIFT128_PN(n, 3);
        vw x0 = t[4 * u], x1 = t[4 * u + 1], x2 = t[4 * u + 2], x3 = t[4 * u + 3];
#ifdef GW_TERN
        vw y2, y3;
        BS_TPL(gift_sbox_k1)
        (&d[4 * BS_GIFT128_PN(n, 0)], &d[4 * BS_GIFT128_PN(n, 1) + 1], &y2, &y3, x0, x1, x2, x3,
         m2 + BS_GIFT128_PN(n, 1));
        d[4 * BS_GIFT128_PN(n, 2) + 2] = GIFT128_U(y2, m2 + 32 + BS_GIFT128_PN(n, 2));
        d[4 * p3 + 3] = p3 < 6 ? y3 ^ m2[64 + p3] : p3 == 31 ? ~y3 : y3;
#else
        GIFT128_SBOX(x0, x1, x2, x3);
        d[4 * BS_GIFT128_PN(n, 0)] = GIFT128_OUT3(x3);
        d[4 * BS_GIFT128_PN(n, 1) + 1] = x1 ^ m2[BS_GIFT128_PN(n, 1)];
        d[4 * BS_GIFT128_PN(n, 2) + 2] = x2 ^ m2[32 + BS_GIFT128_PN(n, 2)];
        d[4 * p3 + 3] = p3 < 6 ? x0 ^ m2[64 + p3] : p3 == 31 ? ~x0 : x0;
#endif
    }
}

__attribute__((noinline)) static void BS_TPL(gift128_round2)(vw *restrict d, const vw *restrict s,
                                                             const uint64_t *m)
{
    const uint64_t *m2 = m + BS_GIFT128_RK_WORDS;
    BS_TPL(gift128_eighth2)(d, s, m, m2, 0);
    BS_TPL(gift128_eighth2)(d, s, m, m2, 1);
    BS_TPL(gift128_eighth2)(d, s, m, m2, 2);
    BS_TPL(gift128_eighth2)(d, s, m, m2, 3);
    BS_TPL(gift128_eighth2)(d, s, m, m2, 4);
    BS_TPL(gift128_eighth2)(d, s, m, m2, 5);
    BS_TPL(gift128_eighth2)(d, s, m, m2, 6);
    BS_TPL(gift128_eighth2)(d, s, m, m2, 7);
}

#if GIFT128_FLIP03
static void BS_TPL(flip03)(vw *s)
{
    for (unsigned n = 0; n < 32; n++) {
        s[4 * n] = ~s[4 * n];
        s[4 * n + 3] = ~s[4 * n + 3];
    }
}
#endif

_Static_assert(BS_GIFT64_ROUNDS % 4 == 0 && BS_GIFT128_ROUNDS % 4 == 0, "two pairs per loop");

/* a packed; the rounds alternate a -> b -> a; returns the state holding the result. */
static vw *BS_TPL(gift64_rounds)(vw *a, vw *b, const uint64_t *m)
{
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r += 4) {
        BS_TPL(gift64_round2)(b, a, m);
        BS_TPL(gift64_round2)(a, b, m + 2 * BS_GIFT64_RK_WORDS);
        m += 4 * BS_GIFT64_RK_WORDS;
    }
    return a;
}

static vw *BS_TPL(gift128_rounds)(vw *a, vw *b, const uint64_t *m)
{
#if GIFT128_FLIP03
    BS_TPL(flip03)(a);
#endif
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r += 4) {
        BS_TPL(gift128_round2)(b, a, m);
        BS_TPL(gift128_round2)(a, b, m + 2 * BS_GIFT128_RK_WORDS);
        m += 4 * BS_GIFT128_RK_WORDS;
    }
#if GIFT128_FLIP03
    BS_TPL(flip03)(a);
#endif
    return a;
}

/* GIFT-64, one pass (bs_wide.inc.h's pass function): st[0..63] and st[64..127] the two states. */
static void BS_TPL(gift64_pass)(const bs_key_schedule *ks, vw *st, const uint8_t *src,
                                const uint8_t *in, uint8_t *out)
{
    vw *a = st, *b = st + 64;
    if (src != NULL) {
        for (unsigned l = 0; l < 64; l++)
            a[l] = BS_TPL(bs_wide_bswap64)(BS_TPL(bs_wide_load)(src + sizeof(vw) * l));
        BS_TPL(bs_wide_transpose64)(a);
    }
    vw *r = BS_TPL(gift64_rounds)(a, b, ks->w);
    BS_TPL(bs_wide_transpose64_bytes)(r);
    BS_TPL(bs_wide_out64)(r, in, out);
}

/*
 * GIFT-128, one pass: st[0..127] and st[128..255] the two states (words 0..63: the low halves
 * of the blocks, 64..127 the high ones; split and joined by bs_wide_split128 / join128).
 */
static void BS_TPL(gift128_pass)(const bs_key_schedule *ks, vw *st, const uint8_t *src,
                                 const uint8_t *in, uint8_t *out)
{
    const size_t row = 2 * sizeof(vw);
    vw *a = st, *b = st + 128;
    if (src != NULL) {
        for (unsigned l = 0; l < 64; l++)
            BS_TPL(bs_wide_split128)(src + row * l, &a[l], &a[64 + l]);
        BS_TPL(bs_wide_transpose64)(a);
        BS_TPL(bs_wide_transpose64)(a + 64);
    }
    vw *r = BS_TPL(gift128_rounds)(a, b, ks->w);
    BS_TPL(bs_wide_transpose64_bytes)(r);
    BS_TPL(bs_wide_transpose64_bytes)(r + 64);
    for (unsigned k = 0; k < 8; k++) {
        vw lo[8], hi[8];
        BS_TPL(bs_wide_transpose64_bits)(lo, r, k);
        BS_TPL(bs_wide_transpose64_bits)(hi, r + 64, k);
        BS_WIDE_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            const size_t at = row * (8 * k + j);
            BS_TPL(bs_wide_join128)(out + at, in != NULL ? in + at : NULL, lo[j], hi[j]);
        }
    }
}

/*
 * The path below this instance's passes (bs_wide.inc.h's narrow): where the region included the
 * ymm instance first (BS_WIDE_HALF, as the AVX-512 one does), that instance for 80 to 256 blocks (a
 * call's, or what is left after its whole passes), which a 256-lane pass serves at about half the
 * cost of a 512-lane one (or less), and bs64 under 80, as before; elsewhere bs64 under 5/16 of a
 * pass. GW_NARROW*(t) and GW_MIN(t) give the drivers' narrow path and pass threshold for a tail of
 * t.
 */
#if defined(GW_HALF_DONE) && !defined(BS_WIDE_HALF)
static const bs_block_cipher BS_TPL(g64_narrow) = {
    .name = "GIFT-64",
    .impl = BS_TARGET_IMPL " ymm",
    .level = BS_TARGET_LEVEL,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .encrypt = g64_encrypt_v4,
};
static const bs_block_cipher BS_TPL(g128_narrow) = {
    .name = "GIFT-128",
    .impl = BS_TARGET_IMPL " ymm",
    .level = BS_TARGET_LEVEL,
    .key_len = 16,
    .block_len = 16,
    .lanes = 64,
    .encrypt = g128_encrypt_v4,
};
#define GW_NARROW64(n) ((n) < GW_PASS / 2 * 5 / 16 ? &bs_gift64_bs64 : &BS_TPL(g64_narrow))
#define GW_NARROW128(n) ((n) < GW_PASS / 2 * 5 / 16 ? &bs_gift128_bs64 : &BS_TPL(g128_narrow))
#define GW_MIN(n) ((n) < GW_PASS / 2 * 5 / 16 ? GW_PASS * 5 / 16 : GW_PASS / 2 + 1)
#else
#define GW_NARROW64(n) (&bs_gift64_bs64)
#define GW_NARROW128(n) (&bs_gift128_bs64)
#define GW_MIN(n) (GW_PASS * 5 / 16)
#endif

static void BS_TPL(g64_encrypt)(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                size_t n)
{
    BS_TPL(bs_wide_encrypt)
    (BS_TPL(gift64_pass), GW_NARROW64(n % GW_PASS), GW_MIN(n % GW_PASS), ks, out, in, n);
}

static void BS_TPL(g128_encrypt)(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                 size_t n)
{
    BS_TPL(bs_wide_encrypt)
    (BS_TPL(gift128_pass), GW_NARROW128(n % GW_PASS), GW_MIN(n % GW_PASS), ks, out, in, n);
}

/* Counter mode: the full instance only (its tails go through encrypt, the half's too). */
#ifndef BS_WIDE_HALF
static void BS_TPL(g64_ctr32)(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                              uint8_t *out, size_t n)
{
    BS_TPL(bs_wide_ctr32)
    (BS_TPL(gift64_pass), GW_NARROW64(n % GW_PASS), GW_MIN(n % GW_PASS), ks, ctr, in, out, n);
}

static void BS_TPL(g128_ctr32)(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                               uint8_t *out, size_t n)
{
    BS_TPL(bs_wide_ctr32)
    (BS_TPL(gift128_pass), GW_NARROW128(n % GW_PASS), GW_MIN(n % GW_PASS), ks, ctr, in, out, n);
}
#endif

#undef GW_NARROW64
#undef GW_NARROW128
#undef GW_MIN

#ifndef BS_WIDE_HALF
/*
 * CTR's batch (bitslice.h): a whole pass. Measured (keystream of n blocks, rdtsc, Zen 5): with
 * AVX-512 a 512-block pass costs less than any call of fewer blocks (GIFT-64 1326 against 1664
 * TSC for 1 block, GIFT-128 3536 against 4186), so from 1 block; with AVX2 a 256-block pass
 * costs less than 65 to 255 blocks and about what bs64's 64 do (GIFT-64 1560 against 1534).
 */
#ifdef GW_HALF_DONE
#define GW_BATCH_FROM 1
#else
#define GW_BATCH_FROM (64 + 1)
#endif

/* The key schedule is bs64's (it is what the narrow path runs on), and so are the compact keys. */
static void g64_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_gift64_bs64.set_key(ks, key);
}

static void g128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_gift128_bs64.set_key(ks, key);
}

static int g64_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_gift64_bs64.export_round_keys(ks, out, nwords);
}

static int g128_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_gift128_bs64.export_round_keys(ks, out, nwords);
}

const bs_block_cipher BS_CAT(bs_gift64_, BS_TARGET_NAME) = {
    .name = "GIFT-64",
    .impl = BS_TARGET_IMPL,
    .level = BS_TARGET_LEVEL,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .set_key = g64_set_key,
    .encrypt = BS_TPL(g64_encrypt),
    .export_round_keys = g64_export,
    .ctr32 = BS_TPL(g64_ctr32),
    .batch = GW_PASS,
    .batch_from = GW_BATCH_FROM,
};
const bs_block_cipher BS_CAT(bs_gift128_, BS_TARGET_NAME) = {
    .name = "GIFT-128",
    .impl = BS_TARGET_IMPL,
    .level = BS_TARGET_LEVEL,
    .key_len = 16,
    .block_len = 16,
    .lanes = 64,
    .set_key = g128_set_key,
    .encrypt = BS_TPL(g128_encrypt),
    .export_round_keys = g128_export,
    .ctr32 = BS_TPL(g128_ctr32),
    .batch = GW_PASS,
    .batch_from = GW_BATCH_FROM,
};
#undef GW_BATCH_FROM

#endif

#undef BS_W
#undef BS_SFX
#undef vw
#undef GW_PASS
#ifndef BS_WIDE_HALF
#undef GW_HALF_DONE
#endif
#undef GW_TERN
#undef GIFT128_SBOX
#undef GIFT128_OUT3
#undef GIFT128_U
#undef GIFT128_FLIP03
