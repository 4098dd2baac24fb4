/*
 * present_wide.inc.h: PRESENT-80 and PRESENT-128 on wide vector words (a template include,
 * bs_common.h): present_avx512.c includes it for bs_v8 (512 lanes), present_avx2.c for bs_v4
 * (256 lanes), each inside its target region (bs_target_begin.inc.h: BS_TARGET_W and the rest).
 * It defines that level's descriptors, bs_present80_<level> and bs_present128_<level>.
 *
 * Layout: that of present.h with a vector word in place of a uint64_t: element g, bit l of
 * x[i] is bit i of block NG l + g of the pass (bs_wide.inc.h); the S-box circuit
 * (BS_PRESENT_SBOX_BODY), the pLayer-as-renaming and the round-key masks (32 x 64 uint64_t,
 * broadcast to the elements as they are used) are those of present.h and present_bs64.c, so
 * the key schedule is the same and calls of fewer blocks than a wide pass is worth go to
 * bs_present*_bs64 (the narrow path). GCC's vector extensions give the words; on AVX-512 the
 * compiler emits VPTERNLOGQ for the three-input lines of the S-box. The rounds go two at a time
 * over a quarter of the state in registers (quarter2); CTR makes its counters in bitsliced form,
 * so only the output is transposed. Only logic, shifts and byte shuffles: constant time.
 * No include guard, on purpose.
 */
#ifdef BS_WIDE_HALF
/*
 * The ymm instance inside the AVX-512 region: VPTERNLOGQ on ymm words (AVX-512VL). The region's
 * full instance, included next, takes it as its narrow path (PW_HALF_DONE).
 */
#define PW_HALF_DONE
#define BS_W bs_v4
#define BS_SFX v4
#define PW_TERN(a, b, c, imm)                                                                      \
    ((bs_v4)_mm256_ternarylogic_epi64((__m256i)(a), (__m256i)(b), (__m256i)(c), (imm)))
#else
#define BS_W BS_TARGET_W
#define BS_SFX BS_TARGET_SFX
#ifdef BS_WIDE_TERN
#define PW_TERN BS_WIDE_TERN
#endif
#endif
#define vw BS_W
/* Blocks of one pass of this instance. */
#define PW_PASS (64 * sizeof(vw) / 8)

/* v ^ the key mask *k: one XOR with a broadcast memory operand. */
static inline vw BS_TPL(key_xor)(vw v, const uint64_t *k)
{
    return v ^ BS_TPL(bs_wide_set1)(k);
}

/* bs_present_sbox_n on L[a] > L[b] > L[c] > L[d], after adding the keys k[w[.]]. */
static inline __attribute__((always_inline)) void BS_TPL(sbox_l)(vw *L, const uint64_t *k,
                                                                 const unsigned *w, unsigned a,
                                                                 unsigned b, unsigned c, unsigned d)
{
    vw x3 = BS_TPL(key_xor)(L[a], k + w[a]), x2 = BS_TPL(key_xor)(L[b], k + w[b]);
    vw x1 = BS_TPL(key_xor)(L[c], k + w[c]), x0 = BS_TPL(key_xor)(L[d], k + w[d]);
#ifdef PW_TERN
    /*
     * bs_present_sbox_n as 7 three-input gates (VPTERNLOG), found by a SAT search over 3-input
     * gate networks, where the 14-gate circuit takes 9 or 10 after the compiler's merging.
     */
    const vw g0 = PW_TERN(x3, x2, x1, 0x17);
    const vw g3 = PW_TERN(x1, x2, x3, 0x59);
    const vw g1 = PW_TERN(x3, g0, x0, 0x1e);
    const vw g2 = PW_TERN(g1, x2, x1, 0x2d);
    const vw g5 = PW_TERN(g0, g2, x0, 0x69);
    L[a] = g5;
    L[b] = PW_TERN(g5, g3, g2, 0x39);
    L[c] = g2;
    L[d] = PW_TERN(g3, x0, x0, 0xc3);
#else
    BS_PRESENT_SBOX_BODY(vw);
    L[a] = y1 ^ u;
    L[b] = t3 ^ (u & ~t5);
    L[c] = y1;
    L[d] = y0;
#endif
}

/*
 * Two rounds on a quarter of the state, in registers. The S-boxes 4q..4q+3 of a round read the
 * logical bits 16q..16q+15, and the pLayer sends their outputs to exactly the input bits of the
 * S-boxes q, q+4, q+8, q+12 of the next round (P(16q + 4jl + b) = 16b + 4q + jl): so a quarter
 * goes through two rounds without the other three, and the 64-word state (which no register
 * file holds) is loaded and stored once per two rounds instead of once per round. In phase ph
 * of the first round, logical bit 16q + m is word POS(ph, 16q) + POS(ph, m) (the rotation moves
 * the two base-4 digits of q and of m apart), and L[m] holds it; the second round's S-box
 * q + 4i reads L[12 + i] .. L[i] (logical bits 16i + 4q + b, m = 4b + i). Round keys are stored
 * by word, so both rounds take theirs at the words' own indices.
 */
static inline __attribute__((always_inline)) void BS_TPL(quarter2)(vw *x, const uint64_t *k0,
                                                                   const uint64_t *k1, unsigned ph)
{
    unsigned w[16];
    vw L[16];
    for (unsigned m = 0; m < 16; m++) {
        w[m] = BS_PRESENT_POS(ph, m);
        L[m] = x[w[m]];
    }
    for (unsigned jl = 0; jl < 4; jl++)
        BS_TPL(sbox_l)(L, k0, w, 4 * jl + 3, 4 * jl + 2, 4 * jl + 1, 4 * jl);
    for (unsigned i = 0; i < 4; i++)
        BS_TPL(sbox_l)(L, k1, w, 12 + i, 8 + i, 4 + i, i);
    for (unsigned m = 0; m < 16; m++)
        x[w[m]] = L[m];
}

/* Rounds r and r + 1, r in phase ph: the four quarters. */
#define PAIR_FN(ph)                                                                                \
    __attribute__((noinline)) static void BS_TPL(pair##ph)(vw * x, const uint64_t *k0,             \
                                                           const uint64_t *k1)                     \
    {                                                                                              \
        for (unsigned q = 0; q < 4; q++) {                                                         \
            const unsigned base = BS_PRESENT_POS(ph, 16 * q);                                      \
            BS_TPL(quarter2)(x + base, k0 + base, k1 + base, ph);                                  \
        }                                                                                          \
    }
PAIR_FN(0)
PAIR_FN(1)
PAIR_FN(2)
#undef PAIR_FN

/*
 * The last round (phase 0: S-box j on words 4j+3..4j, key k), the whitening key kw, and the
 * first pass of the output transpose (bs_wide_transpose64_bytes), into y. Ciphertext bit i, which
 * the rounds leave in word POS(1, i) = 4j + b, is row i of the transpose; its first pass works on
 * rows i0 + 8 m (i0 < 8), which are bit m >> 1 of S-box i0 + 8 (m & 1): so two S-boxes give
 * the eight rows of one group in registers, and the state is neither copied out nor loaded again.
 */
__attribute__((noinline)) static void BS_TPL(last_round)(vw *y, const vw *x, const uint64_t *k,
                                                         const uint64_t *kw)
{
    for (unsigned i0 = 0; i0 < 8; i0++) {
        vw r[8];
        for (unsigned h = 0; h < 2; h++) {
            const unsigned j = i0 + 8 * h;
            const unsigned w4[4] = {4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3};
            vw L4[4] = {x[4 * j], x[4 * j + 1], x[4 * j + 2], x[4 * j + 3]};
            BS_TPL(sbox_l)(L4, k, w4, 3, 2, 1, 0);
            for (unsigned bit = 0; bit < 4; bit++)
                r[2 * bit + h] = BS_TPL(key_xor)(L4[bit], kw + 4 * j + bit);
        }
        BS_TPL(bs_wide_tbytes8)(r);
        for (unsigned m = 0; m < 8; m++)
            y[i0 + 8 * m] = r[m];
    }
}

/*
 * x packed (layout above) -> 31 rounds and the last key -> y: y[i] = logical bit i, after the
 * first pass (stages 32, 16, 8) of the output transpose.
 */
static void BS_TPL(rounds)(vw *y, vw *x, const uint64_t *rk)
{
    /* Rounds 0..29 in pairs; pair r starts in phase r mod 3: 0, 2, 1, 0, ... */
    for (unsigned r = 0; r < 30; r += 6) {
        BS_TPL(pair0)(x, rk + 64 * r, rk + 64 * (r + 1));
        BS_TPL(pair2)(x, rk + 64 * (r + 2), rk + 64 * (r + 3));
        BS_TPL(pair1)(x, rk + 64 * (r + 4), rk + 64 * (r + 5));
    }
    BS_TPL(last_round)(y, x, rk + 64 * 30, rk + 64 * 31);
}

/*
 * One pass (bs_wide_pass_fn): st[0..63] the state (from src: word l = blocks 8l..8l+7 as
 * integers, transposed), st[64..127] the rounds' output, half transposed.
 */
static void BS_TPL(pass)(const bs_key_schedule *ks, vw *st, const uint8_t *src, const uint8_t *in,
                         uint8_t *out)
{
    vw *x = st, *y = st + 64;
    if (src != NULL) {
        for (unsigned l = 0; l < 64; l++)
            x[l] = BS_TPL(bs_wide_bswap64)(BS_TPL(bs_wide_load)(src + sizeof(vw) * l));
        BS_TPL(bs_wide_transpose64)(x);
    }
    BS_TPL(rounds)(y, x, ks->w); /* and the output transpose's first pass */
    BS_TPL(bs_wide_out64)(y, in, out);
}

/*
 * The path below this instance's passes (bs_wide.inc.h's narrow): where the region included the
 * ymm instance first (BS_WIDE_HALF, as the AVX-512 one does), that instance for 80 to 256 blocks (a
 * call's, or what is left after its whole passes), which a 256-lane pass serves at about half the
 * cost of a 512-lane one (or less), and bs64 under 80, as before; elsewhere bs64 under 5/16 of a
 * pass. PW_NARROW*(t) and PW_MIN(t) give the drivers' narrow path and pass threshold for a tail of
 * t.
 */
#if defined(PW_HALF_DONE) && !defined(BS_WIDE_HALF)
static const bs_block_cipher BS_TPL(p80_narrow) = {
    .name = "PRESENT-80",
    .impl = BS_TARGET_IMPL " ymm",
    .level = BS_TARGET_LEVEL,
    .key_len = 10,
    .block_len = 8,
    .lanes = 64,
    .encrypt = p80_encrypt_v4,
};
static const bs_block_cipher BS_TPL(p128_narrow) = {
    .name = "PRESENT-128",
    .impl = BS_TARGET_IMPL " ymm",
    .level = BS_TARGET_LEVEL,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .encrypt = p128_encrypt_v4,
};
#define PW_NARROW80(n) ((n) < PW_PASS / 2 * 5 / 16 ? &bs_present80_bs64 : &BS_TPL(p80_narrow))
#define PW_NARROW128(n) ((n) < PW_PASS / 2 * 5 / 16 ? &bs_present128_bs64 : &BS_TPL(p128_narrow))
#define PW_MIN(n) ((n) < PW_PASS / 2 * 5 / 16 ? PW_PASS * 5 / 16 : PW_PASS / 2 + 1)
#else
#define PW_NARROW80(n) (&bs_present80_bs64)
#define PW_NARROW128(n) (&bs_present128_bs64)
#define PW_MIN(n) (PW_PASS * 5 / 16)
#endif

static void BS_TPL(p80_encrypt)(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                size_t n)
{
    BS_TPL(bs_wide_encrypt)
    (BS_TPL(pass), PW_NARROW80(n % PW_PASS), PW_MIN(n % PW_PASS), ks, out, in, n);
}

static void BS_TPL(p128_encrypt)(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                                 size_t n)
{
    BS_TPL(bs_wide_encrypt)
    (BS_TPL(pass), PW_NARROW128(n % PW_PASS), PW_MIN(n % PW_PASS), ks, out, in, n);
}

/* Counter mode: the full instance only (its tails go through encrypt, the half's too). */
#ifndef BS_WIDE_HALF
static void BS_TPL(p80_ctr32)(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                              uint8_t *out, size_t n)
{
    BS_TPL(bs_wide_ctr32)
    (BS_TPL(pass), PW_NARROW80(n % PW_PASS), PW_MIN(n % PW_PASS), ks, ctr, in, out, n);
}

static void BS_TPL(p128_ctr32)(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                               uint8_t *out, size_t n)
{
    BS_TPL(bs_wide_ctr32)
    (BS_TPL(pass), PW_NARROW128(n % PW_PASS), PW_MIN(n % PW_PASS), ks, ctr, in, out, n);
}
#endif

#undef PW_NARROW80
#undef PW_NARROW128
#undef PW_MIN

#ifndef BS_WIDE_HALF
/*
 * CTR's batch (bitslice.h): a whole pass. Measured (keystream of n blocks, rdtsc, Zen 5): with
 * AVX-512 a 512-block pass costs less than any call of fewer blocks (1638 against 1794 TSC for 1
 * block, 1924 for 128, 2210 for 257), so from 1 block; with AVX2 a 256-block pass costs less
 * than 65 to 255 blocks (2054 against 2340 and more) and more than bs64's 64 (1716).
 */
#ifdef PW_HALF_DONE
#define PW_BATCH_FROM 1
#else
#define PW_BATCH_FROM (64 + 1)
#endif

/* The key schedule is bs64's (it is what the narrow path runs on), and so are the compact keys. */
static void p80_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_present80_bs64.set_key(ks, key);
}

static void p128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_present128_bs64.set_key(ks, key);
}

static int p80_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_present80_bs64.export_round_keys(ks, out, nwords);
}

static int p128_export(const bs_key_schedule *ks, uint32_t *out, size_t nwords)
{
    return bs_present128_bs64.export_round_keys(ks, out, nwords);
}

const bs_block_cipher BS_CAT(bs_present80_, BS_TARGET_NAME) = {
    .name = "PRESENT-80",
    .impl = BS_TARGET_IMPL,
    .level = BS_TARGET_LEVEL,
    .key_len = 10,
    .block_len = 8,
    .lanes = 64,
    .set_key = p80_set_key,
    .encrypt = BS_TPL(p80_encrypt),
    .export_round_keys = p80_export,
    .ctr32 = BS_TPL(p80_ctr32),
    .batch = PW_PASS,
    .batch_from = PW_BATCH_FROM,
};
const bs_block_cipher BS_CAT(bs_present128_, BS_TARGET_NAME) = {
    .name = "PRESENT-128",
    .impl = BS_TARGET_IMPL,
    .level = BS_TARGET_LEVEL,
    .key_len = 16,
    .block_len = 8,
    .lanes = 64,
    .set_key = p128_set_key,
    .encrypt = BS_TPL(p128_encrypt),
    .export_round_keys = p128_export,
    .ctr32 = BS_TPL(p128_ctr32),
    .batch = PW_PASS,
    .batch_from = PW_BATCH_FROM,
};
#undef PW_BATCH_FROM

#endif

#undef BS_W
#undef BS_SFX
#undef vw
#undef PW_PASS
#ifndef BS_WIDE_HALF
#undef PW_HALF_DONE
#endif
#undef PW_TERN
