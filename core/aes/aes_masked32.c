/*
 * First-order masked AES-128 and AES-256, fully fixsliced (aes_masked.h says what is masked
 * and how, which values could combine, and what the leakage tests do and do not show). The
 * round structure is aes_fix32.c's: rounds 1..Nr-1 end in representations 1, 2, 3, 0, ...,
 * round Nr has no MixColumns and ends in representation 2 (Nr = 10 or 14), which one SR^2 turns
 * back into the standard state.
 *
 * Encryption holds each slice as one word, the slice XOR a mask word; the masks of a call are
 * m0, m1 (fresh) and m2 = m0 ^ m1, in the fixed patterns of aes_masked_sbox.h (generated and
 * checked by aes_masked_gen.py), plus eight fresh words r that mask the plaintext words before
 * packing and the ciphertext words before unpacking. The key schedule keeps two shares; the
 * default's SubWord trades them for the encryption's pattern masking with two fresh words and
 * runs the encryption's S-box (on Cortex-M3/M4 the generated transition-aware Thumb-2 with
 * generated trades, aes_masked_lin_t2.h's subword_pat_t2), the _dom entry points' runs the
 * DOM-indep AND on the shares (fresh randomness for every AND, eight ANDs a word; on
 * Cortex-M3/M4 aes_masked_dom_t2.h): aes_masked.h has both arguments.
 *
 * Every computed word that depends on the data or the key goes through MT(): nothing in a
 * normal build, a record in the instrumented one (-DBS_AES_MASKED_TRACE, tests/leak/).
 * BS_HIDE() stops the compiler from seeing through a value, where regrouping a XOR chain or
 * folding two gadget terms together would unmask it.
 */
#include "aes_masked.h"

#include <stddef.h>
#include <stdlib.h>

#ifdef BS_AES_MASKED_TRACE
uint32_t *bs_aes_masked_trace;
size_t bs_aes_masked_trace_cap, bs_aes_masked_trace_len;
int bs_aes_masked_trace_same_masks;

static uint32_t mt_record(uint32_t x)
{
    if (bs_aes_masked_trace_len < bs_aes_masked_trace_cap)
        bs_aes_masked_trace[bs_aes_masked_trace_len] = x;
    bs_aes_masked_trace_len++;
    return x;
}
#define MT(x) mt_record(x)
#else
#define MT(x) (x)
#endif

/* BS_AES_MASKED_NO_HIDE (tests only: the leaky control of tests/leak/check_sbox_thumb.py)
 * drops the barriers; GCC then regroups the S-box into values that depend on the state. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(BS_AES_MASKED_NO_HIDE)
#define BS_HIDE(x) __asm__("" : "+r"(x))
#define BS_MASKED_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__) || defined(__clang__)
#define BS_HIDE(x) ((void)0)
#define BS_MASKED_NOINLINE __attribute__((noinline))
#else
#define BS_HIDE(x) ((void)0)
#define BS_MASKED_NOINLINE
#endif

/* The per-slice loops unrolled at every level (-O2 leaves them rolled, -O3 does not). */
#if defined(__GNUC__) && !defined(__clang__)
#define BS_UNROLL8 _Pragma("GCC unroll 8")
#else
#define BS_UNROLL8
#endif

/* Word stores through a volatile pointer: not optimised away, and on picolibc several times
 * cheaper than bs_wipe's byte-wise memset for the few hundred bytes wiped per call. Four stores
 * a pass (a rolled loop pays a taken branch a word, which made the 60-word wipe of a call's
 * masks about 360 cycles on the M4), then the last words; both wipes below inline it at every
 * level (bs_wipe32.h's static inline one, the same loop, cost the Cortex-M4 at -Os 3.0 est.
 * c/B a masked32 call and 358 key-setup instructions). */
#define WIPE32_PASSES(w, nbytes)                                                                   \
    for (size_t i = 0; i < (nbytes) / 16; i++) {                                                   \
        (w)[4 * i] = 0;                                                                            \
        (w)[4 * i + 1] = 0;                                                                        \
        (w)[4 * i + 2] = 0;                                                                        \
        (w)[4 * i + 3] = 0;                                                                        \
    }                                                                                              \
    for (size_t i = (nbytes) / 16 * 4; i < (nbytes) / 4; i++)                                      \
    (w)[i] = 0

BS_AES_FN void wipe32(void *p, size_t nbytes)
{
    volatile uint32_t *w = (volatile uint32_t *)p;
    WIPE32_PASSES(w, nbytes);
}

/* wipe32 straight-line, for the default variant's masks and state (a few dozen words, every
 * call): the rolled loop's branch and counter cost about as much again as the stores. */
#if defined(__GNUC__) && !defined(__clang__)
#define BS_UNROLL32 _Pragma("GCC unroll 32")
#else
#define BS_UNROLL32
#endif
BS_AES_FN void wipe32_unrolled(void *p, size_t nbytes)
{
    volatile uint32_t *w = (volatile uint32_t *)p;
    BS_UNROLL32
    WIPE32_PASSES(w, nbytes);
}

/* The pattern S-box's three steps (aes_masked_sbox.h): a XOR, a re-masking, and the AND of
 * operands masked by ma != mb, ab ^ ma without fresh randomness (aes_masked_gen.py checks
 * every value). Each result is recorded and hidden before its next use. */
#define MSK_X(d, a, b)                                                                             \
    uint32_t d = MT((a) ^ (b));                                                                    \
    BS_HIDE(d)
#define MSK_R(d, a, m)                                                                             \
    uint32_t d = MT((a) ^ (m));                                                                    \
    BS_HIDE(d)
#define MSK_A(d, a, b, ma, mb)                                                                     \
    uint32_t d;                                                                                    \
    do {                                                                                           \
        uint32_t g1_ = MT((a) & (b));                                                              \
        BS_HIDE(g1_);                                                                              \
        uint32_t g3_ = MT((mb) & ~(a));                                                            \
        BS_HIDE(g3_);                                                                              \
        uint32_t g4_ = MT(g1_ ^ g3_);                                                              \
        BS_HIDE(g4_);                                                                              \
        uint32_t g5_ = MT((ma) & (b));                                                             \
        BS_HIDE(g5_);                                                                              \
        uint32_t g6_ = MT(g5_ ^ mor);                                                              \
        BS_HIDE(g6_);                                                                              \
        d = MT(g4_ ^ g6_);                                                                         \
        BS_HIDE(d);                                                                                \
    } while (0)

/* On Thumb-2 (Cortex-M3/M4) the rounds are generated assembly: the S-box (aes_masked_t2.h) and
 * the linear layers with their driver (aes_masked_lin_t2.h), the same values as the C here,
 * allocated so that no register or store transition inside them unmasks one (the C leaves
 * that to the compiler). The C stays the reference, the host's and RV32I's rounds and, with
 * -DBS_AES_MASKED_C_SBOX, the rounds checked on Cortex-M machine code for comparison. All
 * three are generated by meson.build (embedded/gen/), the Thumb-2 on the builds for Arm. */
#if defined(__thumb2__)
#include "aes/aes_masked_t2.h"
#endif
#ifdef BS_AES_MASKED_T2
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "aes/aes_masked_sbox.h"
#ifdef BS_AES_MASKED_T2
#pragma GCC diagnostic pop
#endif
#if defined(__thumb2__)
#include "aes/aes_masked_lin_t2.h"
#include "aes/aes_masked_dom_t2.h"
#endif

/* Fresh words: the input masks or one DOM S-box layer of the key schedule. */
static void draw(uint32_t *r, size_t n, bs_aes_rng_fn rng, void *rng_ctx)
{
    rng(rng_ctx, r, n);
}

/* The DOM-indep AND i of (a0, a1) and (b0, b1), its fresh bits at the four positions of the
 * key schedule's slices from bits i % 8 of r[i / 8] (aes_masked.h). */
#define BS_MA(d, a, b, i)                                                                          \
    uint32_t d##_0, d##_1;                                                                         \
    do {                                                                                           \
        const uint32_t ri_ = MT((r[(i) / 8] >> ((i) % 8)) & 0x01010101u);                          \
        uint32_t x0_ = MT(a##_0 & b##_1), x1_ = MT(a##_1 & b##_0);                                 \
        x0_ = MT(x0_ ^ ri_);                                                                       \
        x1_ = MT(x1_ ^ ri_);                                                                       \
        BS_HIDE(x0_);                                                                              \
        BS_HIDE(x1_);                                                                              \
        d##_0 = MT(MT(a##_0 & b##_0) ^ x0_);                                                       \
        d##_1 = MT(MT(a##_1 & b##_1) ^ x1_);                                                       \
    } while (0)

/* An XOR, share by share. */
#define BS_MX(d, a, b) const uint32_t d##_0 = MT(a##_0 ^ b##_0), d##_1 = MT(a##_1 ^ b##_1)

/* aes.h's S-box circuit (without its NOTs) on two shares, in place, for the key schedule's
 * slices (bits 0, 8, 16, 24 only); r: BS_AES_MASKED_SBOX_RAND fresh words, eight ANDs a word. */
#ifndef BS_AES_MASKED_DOM_T2 /* else the generated subword_dom_t2 (its generator parses this) */
static BS_MASKED_NOINLINE void sbox_dom(uint32_t q0[8], uint32_t q1[8], const uint32_t *r)
{
    const uint32_t u0_0 = q0[7], u1_0 = q0[6], u2_0 = q0[5], u3_0 = q0[4];
    const uint32_t u4_0 = q0[3], u5_0 = q0[2], u6_0 = q0[1], u7_0 = q0[0];
    const uint32_t u0_1 = q1[7], u1_1 = q1[6], u2_1 = q1[5], u3_1 = q1[4];
    const uint32_t u4_1 = q1[3], u5_1 = q1[2], u6_1 = q1[1], u7_1 = q1[0];
    BS_MX(t1, u0, u3);
    BS_MX(t2, u0, u5);
    BS_MX(t3, u0, u6);
    BS_MX(t4, u3, u5);
    BS_MX(t5, u4, u6);
    BS_MX(t6, t1, t5);
    BS_MX(t7, u1, u2);
    BS_MX(t8, u7, t6);
    BS_MX(t9, u7, t7);
    BS_MX(t10, t6, t7);
    BS_MX(t11, u1, u5);
    BS_MX(t12, u2, u5);
    BS_MX(t13, t3, t4);
    BS_MX(t14, t6, t11);
    BS_MX(t15, t5, t11);
    BS_MX(t16, t5, t12);
    BS_MX(t17, t9, t16);
    BS_MX(t18, u3, u7);
    BS_MX(t19, t7, t18);
    BS_MX(t20, t1, t19);
    BS_MX(t21, u6, u7);
    BS_MX(t22, t7, t21);
    BS_MX(t23, t2, t22);
    BS_MX(t24, t2, t10);
    BS_MX(t25, t20, t17);
    BS_MX(t26, t3, t16);
    BS_MX(t27, t1, t12);
    BS_MA(m1, t13, t6, 0);
    BS_MA(m2, t23, t8, 1);
    BS_MX(m3, t14, m1);
    BS_MA(m4, t19, u7, 2);
    BS_MX(m5, m4, m1);
    BS_MA(m6, t3, t16, 3);
    BS_MA(m7, t22, t9, 4);
    BS_MX(m8, t26, m6);
    BS_MA(m9, t20, t17, 5);
    BS_MX(m10, m9, m6);
    BS_MA(m11, t1, t15, 6);
    BS_MA(m12, t4, t27, 7);
    BS_MX(m13, m12, m11);
    BS_MA(m14, t2, t10, 8);
    BS_MX(m15, m14, m11);
    BS_MX(m16, m3, m2);
    BS_MX(m17, m5, t24);
    BS_MX(m18, m8, m7);
    BS_MX(m19, m10, m15);
    BS_MX(m20, m16, m13);
    BS_MX(m21, m17, m15);
    BS_MX(m22, m18, m13);
    BS_MX(m23, m19, t25);
    BS_MX(m24, m22, m23);
    BS_MA(m25, m22, m20, 9);
    BS_MX(m26, m21, m25);
    BS_MX(m27, m20, m21);
    BS_MX(m28, m23, m25);
    BS_MA(m29, m28, m27, 10);
    BS_MA(m30, m26, m24, 11);
    BS_MA(m31, m20, m23, 12);
    BS_MA(m32, m27, m31, 13);
    BS_MX(m33, m27, m25);
    BS_MA(m34, m21, m22, 14);
    BS_MA(m35, m24, m34, 15);
    BS_MX(m36, m24, m25);
    BS_MX(m37, m21, m29);
    BS_MX(m38, m32, m33);
    BS_MX(m39, m23, m30);
    BS_MX(m40, m35, m36);
    BS_MX(m41, m38, m40);
    BS_MX(m42, m37, m39);
    BS_MX(m43, m37, m38);
    BS_MX(m44, m39, m40);
    BS_MX(m45, m42, m41);
    BS_MA(m46, m44, t6, 16);
    BS_MA(m47, m40, t8, 17);
    BS_MA(m48, m39, u7, 18);
    BS_MA(m49, m43, t16, 19);
    BS_MA(m50, m38, t9, 20);
    BS_MA(m51, m37, t17, 21);
    BS_MA(m52, m42, t15, 22);
    BS_MA(m53, m45, t27, 23);
    BS_MA(m54, m41, t10, 24);
    BS_MA(m55, m44, t13, 25);
    BS_MA(m56, m40, t23, 26);
    BS_MA(m57, m39, t19, 27);
    BS_MA(m58, m43, t3, 28);
    BS_MA(m59, m38, t22, 29);
    BS_MA(m60, m37, t20, 30);
    BS_MA(m61, m42, t1, 31);
    BS_MA(m62, m45, t4, 32);
    BS_MA(m63, m41, t2, 33);
    BS_MX(l0, m61, m62);
    BS_MX(l1, m50, m56);
    BS_MX(l2, m46, m48);
    BS_MX(l3, m47, m55);
    BS_MX(l4, m54, m58);
    BS_MX(l5, m49, m61);
    BS_MX(l6, m62, l5);
    BS_MX(l7, m46, l3);
    BS_MX(l8, m51, m59);
    BS_MX(l9, m52, m53);
    BS_MX(l10, m53, l4);
    BS_MX(l11, m60, l2);
    BS_MX(l12, m48, m51);
    BS_MX(l13, m50, l0);
    BS_MX(l14, m52, m61);
    BS_MX(l15, m55, l1);
    BS_MX(l16, m56, l0);
    BS_MX(l17, m57, l1);
    BS_MX(l18, m58, l8);
    BS_MX(l19, m63, l4);
    BS_MX(l20, l0, l1);
    BS_MX(l21, l1, l7);
    BS_MX(l22, l3, l12);
    BS_MX(l23, l18, l2);
    BS_MX(l24, l15, l9);
    BS_MX(l25, l6, l10);
    BS_MX(l26, l7, l9);
    BS_MX(l27, l8, l10);
    BS_MX(l28, l11, l14);
    BS_MX(l29, l11, l17);
    q0[7] = MT(l6_0 ^ l24_0);
    q1[7] = MT(l6_1 ^ l24_1);
    q0[6] = MT(l16_0 ^ l26_0);
    q1[6] = MT(l16_1 ^ l26_1);
    q0[5] = MT(l19_0 ^ l28_0);
    q1[5] = MT(l19_1 ^ l28_1);
    q0[4] = MT(l6_0 ^ l21_0);
    q1[4] = MT(l6_1 ^ l21_1);
    q0[3] = MT(l20_0 ^ l22_0);
    q1[3] = MT(l20_1 ^ l22_1);
    q0[2] = MT(l25_0 ^ l29_0);
    q1[2] = MT(l25_1 ^ l29_1);
    q0[1] = MT(l13_0 ^ l27_0);
    q1[1] = MT(l13_1 ^ l27_1);
    q0[0] = MT(l6_0 ^ l23_0);
    q1[0] = MT(l6_1 ^ l23_1);
}
#endif

/* SWAPMOVE on one share, every step recorded (always inlined: -Os made it a call, 900 est.
 * cycles of a two-block call on the M4). */
BS_AES_FN void mt_swapmove(uint32_t *a, uint32_t *b, uint32_t m, unsigned n)
{
    const uint32_t t = MT(MT(MT(*b >> n) ^ *a) & m);
    *a = MT(*a ^ t);
    *b = MT(*b ^ MT(t << n));
}

/* aes.h's bs_aes_transpose on one share (an involution: packing and unpacking). */
static void transpose_share(uint32_t x[8])
{
    mt_swapmove(&x[4], &x[0], 0x55555555u, 1);
    mt_swapmove(&x[5], &x[1], 0x55555555u, 1);
    mt_swapmove(&x[6], &x[2], 0x55555555u, 1);
    mt_swapmove(&x[7], &x[3], 0x55555555u, 1);
    mt_swapmove(&x[1], &x[0], 0x33333333u, 2);
    mt_swapmove(&x[3], &x[2], 0x33333333u, 2);
    mt_swapmove(&x[5], &x[4], 0x33333333u, 2);
    mt_swapmove(&x[7], &x[6], 0x33333333u, 2);
    mt_swapmove(&x[2], &x[0], 0x0f0f0f0fu, 4);
    mt_swapmove(&x[3], &x[1], 0x0f0f0f0fu, 4);
    mt_swapmove(&x[6], &x[4], 0x0f0f0f0fu, 4);
    mt_swapmove(&x[7], &x[5], 0x0f0f0f0fu, 4);
}

/*
 * MixColumns of representation k on the masked state (aes.h's formula), grouped as
 * aes_masked_gen.py checked it: output slice b is (t[b-1] ^ t[7]) ^ (n[b] ^ rot2(t[b])), each
 * bracket hidden, so that every value that mixes two slices is one the generator proved
 * independent of the state (terms of one slice only share its one mask word).
 */
#define MC_MASKED(name, ROT1, ROT2)                                                                \
    static void name(uint32_t q[8])                                                                \
    {                                                                                              \
        uint32_t n[8], t[8], g[8];                                                                 \
        BS_UNROLL8                                                                                 \
        for (unsigned i = 0; i < 8; i++) {                                                         \
            n[i] = MT(ROT1(q[i]));                                                                 \
            t[i] = MT(q[i] ^ n[i]);                                                                \
            g[i] = MT(n[i] ^ MT(ROT2(t[i])));                                                      \
            BS_HIDE(g[i]);                                                                         \
        }                                                                                          \
        uint32_t f1 = MT(t[0] ^ t[7]), f3 = MT(t[2] ^ t[7]), f4 = MT(t[3] ^ t[7]);                 \
        BS_HIDE(f1);                                                                               \
        BS_HIDE(f3);                                                                               \
        BS_HIDE(f4);                                                                               \
        q[0] = MT(t[7] ^ g[0]);                                                                    \
        q[1] = MT(f1 ^ g[1]);                                                                      \
        q[2] = MT(t[1] ^ g[2]);                                                                    \
        q[3] = MT(f3 ^ g[3]);                                                                      \
        q[4] = MT(f4 ^ g[4]);                                                                      \
        q[5] = MT(t[4] ^ g[5]);                                                                    \
        q[6] = MT(t[5] ^ g[6]);                                                                    \
        q[7] = MT(t[6] ^ g[7]);                                                                    \
    }
#ifndef BS_AES_MASKED_T2 /* else aes_masked_lin_t2.h's generated Thumb-2 */
MC_MASKED(mc0_masked, BS_AES_R1_0, BS_AES_R2_0)
MC_MASKED(mc1_masked, BS_AES_R1_1, BS_AES_R2_1)
MC_MASKED(mc2_masked, BS_AES_R1_2, BS_AES_R2_2)
MC_MASKED(mc3_masked, BS_AES_R1_3, BS_AES_R2_3)

/* q ^= c (a mask-only correction word per slice), then the two key shares, hidden in between
 * so that the compiler cannot add the shares together first. */
static void ark_masked(uint32_t q[8], const uint32_t c[8], const uint32_t *rk0, const uint32_t *rk1)
{
    BS_UNROLL8
    for (unsigned i = 0; i < 8; i++) {
        uint32_t v = MT(q[i] ^ c[i]);
        v = MT(v ^ rk0[i]);
        BS_HIDE(v);
        q[i] = MT(v ^ rk1[i]);
    }
}
#endif

#ifdef BS_AES_MASKED_TRACE
static const unsigned char pattern_in[8] = {
    BS_AES_MASKED_IN_0, BS_AES_MASKED_IN_1, BS_AES_MASKED_IN_2, BS_AES_MASKED_IN_3,
    BS_AES_MASKED_IN_4, BS_AES_MASKED_IN_5, BS_AES_MASKED_IN_6, BS_AES_MASKED_IN_7};
#endif

/* The mask-only words of one call (no secret enters them). */
typedef struct {
    uint32_t mw[4];   /* m0, m1, m2 = m0 ^ m1, m0 | m1 */
    uint32_t r[8];    /* the plaintext and ciphertext words' masks */
    uint32_t in[8];   /* P ^ M: packed r to the S-box input pattern M */
    uint32_t d[4][8]; /* MixColumns_k(M') ^ M: after round k's MixColumns, back to M */
    uint32_t last[8]; /* M' ^ SR^2(P'): after the last S-box, to the unpacking masks */
    uint32_t ru[8];   /* the value-model variant's ciphertext words' masks (P' packed), else r */
} call_masks;

#ifdef BS_AES_MASKED_T2
/* the offsets the generated driver uses */
_Static_assert(offsetof(call_masks, mw) == BS_AES_MASKED_CM_MW, "call_masks.mw");
_Static_assert(offsetof(call_masks, in) == BS_AES_MASKED_CM_IN, "call_masks.in");
_Static_assert(offsetof(call_masks, d) == BS_AES_MASKED_CM_D, "call_masks.d");
_Static_assert(offsetof(call_masks, last) == BS_AES_MASKED_CM_LAST, "call_masks.last");
#endif

/* aes.h's bs_aes_transpose on the mask words r, inlined at every level (at -Os GCC calls
 * bs_swapmove32, 300 est. cycles of a call on the M4); mask-only words, not recorded. */
BS_AES_FN void mask_swapmove(uint32_t *a, uint32_t *b, uint32_t m, unsigned n)
{
    const uint32_t t = ((*b >> n) ^ *a) & m;
    *a ^= t;
    *b ^= t << n;
}

BS_AES_FN void mask_transpose(uint32_t x[8])
{
    mask_swapmove(&x[4], &x[0], 0x55555555u, 1);
    mask_swapmove(&x[5], &x[1], 0x55555555u, 1);
    mask_swapmove(&x[6], &x[2], 0x55555555u, 1);
    mask_swapmove(&x[7], &x[3], 0x55555555u, 1);
    mask_swapmove(&x[1], &x[0], 0x33333333u, 2);
    mask_swapmove(&x[3], &x[2], 0x33333333u, 2);
    mask_swapmove(&x[5], &x[4], 0x33333333u, 2);
    mask_swapmove(&x[7], &x[6], 0x33333333u, 2);
    mask_swapmove(&x[2], &x[0], 0x0f0f0f0fu, 4);
    mask_swapmove(&x[3], &x[1], 0x0f0f0f0fu, 4);
    mask_swapmove(&x[6], &x[4], 0x0f0f0f0fu, 4);
    mask_swapmove(&x[7], &x[5], 0x0f0f0f0fu, 4);
}

/* The pattern's mask word for mask number p (1 = m0, 2 = m1, 3 = m2): a compile-time choice, so
 * that the compiler computes each rotation of m0, m1, m2 once for all eight slices. */
#define PAT_W(p) ((p) == 1 ? m0 : (p) == 2 ? m1 : m2)
/* The eight mask words of the S-box's input and output patterns, an array's initialiser (m0,
 * m1 and m2 in scope). */
#define PAT_IN_WORDS                                                                               \
    {                                                                                              \
        PAT_W(BS_AES_MASKED_IN_0), PAT_W(BS_AES_MASKED_IN_1), PAT_W(BS_AES_MASKED_IN_2),           \
            PAT_W(BS_AES_MASKED_IN_3), PAT_W(BS_AES_MASKED_IN_4), PAT_W(BS_AES_MASKED_IN_5),       \
            PAT_W(BS_AES_MASKED_IN_6), PAT_W(BS_AES_MASKED_IN_7)                                   \
    }
#define PAT_OUT_WORDS                                                                              \
    {                                                                                              \
        PAT_W(BS_AES_MASKED_OUT_0), PAT_W(BS_AES_MASKED_OUT_1), PAT_W(BS_AES_MASKED_OUT_2),        \
            PAT_W(BS_AES_MASKED_OUT_3), PAT_W(BS_AES_MASKED_OUT_4), PAT_W(BS_AES_MASKED_OUT_5),    \
            PAT_W(BS_AES_MASKED_OUT_6), PAT_W(BS_AES_MASKED_OUT_7)                                 \
    }

/* MixColumns (aes.h's formula) of the output pattern, given R1 (n) and R2(x ^ R1(x)) (s) of m0
 * and m1, XOR the input pattern: one representation's correction words, folded at compile time
 * (the patterns are constants). */
BS_AES_FN void vm_corr(uint32_t d[8], uint32_t m0, uint32_t m1, uint32_t n0, uint32_t n1,
                       uint32_t s0, uint32_t s1)
{
    const uint32_t t0 = m0 ^ n0, t1 = m1 ^ n1;
#define VM_SEL(p, a, b) ((p) == 1 ? (a) : (p) == 2 ? (b) : (a) ^ (b))
#define VM_T(j) VM_SEL(BS_AES_MASKED_OUT_##j, t0, t1)
#define VM_NS(j, i)                                                                                \
    (VM_SEL(BS_AES_MASKED_OUT_##j, n0 ^ s0, n1 ^ s1) ^ VM_SEL(BS_AES_MASKED_IN_##i, m0, m1))
    d[0] = VM_T(7) ^ VM_NS(0, 0);
    d[1] = VM_T(0) ^ VM_T(7) ^ VM_NS(1, 1);
    d[2] = VM_T(1) ^ VM_NS(2, 2);
    d[3] = VM_T(2) ^ VM_T(7) ^ VM_NS(3, 3);
    d[4] = VM_T(3) ^ VM_T(7) ^ VM_NS(4, 4);
    d[5] = VM_T(4) ^ VM_NS(5, 5);
    d[6] = VM_T(5) ^ VM_NS(6, 6);
    d[7] = VM_T(6) ^ VM_NS(7, 7);
#undef VM_SEL
#undef VM_T
#undef VM_NS
}

/* The four representations' correction words from m0 and m1 (in registers, updated by
 * CORR_PHASE between representations: else GCC interleaves the four and spills). */
#if defined(__GNUC__) || defined(__clang__)
#define CORR_PHASE(a, b) __asm__ volatile("" : "+r"(a), "+r"(b) : : "memory")
#else
#define CORR_PHASE(a, b) ((void)0)
#endif
#define MASK_CORR_ALL(d, m0, m1)                                                                   \
    do {                                                                                           \
        vm_corr((d)[0], m0, m1, BS_AES_R1_0(m0), BS_AES_R1_0(m1),                                  \
                BS_AES_R2_0((m0) ^ BS_AES_R1_0(m0)), BS_AES_R2_0((m1) ^ BS_AES_R1_0(m1)));         \
        CORR_PHASE(m0, m1);                                                                        \
        vm_corr((d)[1], m0, m1, BS_AES_R1_1(m0), BS_AES_R1_1(m1),                                  \
                BS_AES_R2_1((m0) ^ BS_AES_R1_1(m0)), BS_AES_R2_1((m1) ^ BS_AES_R1_1(m1)));         \
        CORR_PHASE(m0, m1);                                                                        \
        vm_corr((d)[2], m0, m1, BS_AES_R1_2(m0), BS_AES_R1_2(m1),                                  \
                BS_AES_R2_2((m0) ^ BS_AES_R1_2(m0)), BS_AES_R2_2((m1) ^ BS_AES_R1_2(m1)));         \
        CORR_PHASE(m0, m1);                                                                        \
        vm_corr((d)[3], m0, m1, BS_AES_R1_3(m0), BS_AES_R1_3(m1),                                  \
                BS_AES_R2_3((m0) ^ BS_AES_R1_3(m0)), BS_AES_R2_3((m1) ^ BS_AES_R1_3(m1)));         \
        CORR_PHASE(m0, m1);                                                                        \
    } while (0)

/* The default variant's masks: the ten words drawn (m0, m1, the r) and what follows. */
static void call_masks_init(call_masks *cm, bs_aes_rng_fn rng, void *rng_ctx)
{
    uint32_t w[BS_AES_MASKED_RAND_ENC], x[8]; /* w: the words drawn (m0, m1, the r) */
    draw(w, BS_AES_MASKED_RAND_ENC, rng, rng_ctx);
#ifdef BS_AES_MASKED_TRACE
    if (bs_aes_masked_trace_same_masks)
        w[1] = w[0]; /* the broken-mask control: m2 = 0 */
#endif
    uint32_t m0 = w[0], m1 = w[1];
    cm->mw[0] = m0;
    cm->mw[1] = m1;
    cm->mw[2] = m0 ^ m1;
    cm->mw[3] = m0 | m1;
    /* the correction words first, one representation at a time (MixColumns is linear: from
     * R1 and R2 of m0 and m1 alone) */
    MASK_CORR_ALL(cm->d, m0, m1);
    for (unsigned i = 0; i < 8; i++)
        cm->r[i] = x[i] = w[2 + i];
    mask_transpose(x);
    {
        const uint32_t m2 = m0 ^ m1;
        const uint32_t mi[8] = PAT_IN_WORDS;
        const uint32_t mo[8] = PAT_OUT_WORDS;
        BS_UNROLL8
        for (unsigned b = 0; b < 8; b++) {
            const uint32_t p = x[(b >> 1) + 4 * (b & 1)];
            cm->in[b] = p ^ mi[b];
            cm->last[b] = mo[b] ^ bs_aes_sr2(p);
        }
    }
    wipe32(w, sizeof w);
    wipe32(x, sizeof x);
}

/*
 * The value-model variant's masks from its one word v (aes_masked.h says why each bit of every
 * value keeps a mask bit of its own): m0 = v, m1 = ror(v, 1), the plaintext words' masks all v,
 * the ciphertext words' ru[c] = ror(v, vm_ru[c]) (v and ror(v, 8): the generated unpacking
 * takes v and rotates it the same way). Mask-only words, computed into cm, no wipe on
 * Cortex-M3/M4 (encrypt_maskedv_t2); inlined into the entry points (a call of its own cost
 * about 30 cycles).
 */
#ifndef BS_AES_MASKED_T2
static const unsigned char vm_ru[8] = {0, 0, 8, 8, 0, 0, 8, 8};
#endif

BS_AES_FN void call_masks_init_v(call_masks *cm, bs_aes_rng_fn rng, void *rng_ctx)
{
    uint32_t v;
    draw(&v, BS_AES_MASKEDV_RAND_ENC, rng, rng_ctx);
    uint32_t m0 = v;
#ifdef BS_AES_MASKED_TRACE
    uint32_t m1 = bs_aes_masked_trace_same_masks ? v : bs_aes_ror(v, 1);
#else
    uint32_t m1 = bs_aes_ror(v, 1);
#endif
    cm->mw[0] = m0;
    cm->mw[1] = m1;
    cm->mw[2] = m0 ^ m1;
    cm->mw[3] = m0 | m1;
    /* the correction words first (as call_masks_init) */
    MASK_CORR_ALL(cm->d, m0, m1);
#ifndef BS_AES_MASKED_T2 /* else packing and unpacking take v itself (mw[0]) */
    BS_UNROLL8
    for (unsigned i = 0; i < 8; i++) {
        cm->r[i] = m0;
        cm->ru[i] = bs_aes_ror(m0, vm_ru[i]);
    }
#endif
    /* The packed masks of the plaintext and of the ciphertext words, in closed form: aes.h's
     * packing of eight words v puts bit b + 8j of v in every bit of byte j of slice b, so
     * slice b is t = ((v >> b) & 0x01010101) * 0xff; that of the words v, v, ror(v, 8),
     * ror(v, 8), ... (vm_ru) is ror(t, 4): what mask_transpose would give, without the two
     * transposes (the firmware's known answers and the unit and leak tests check the result). */
    {
        const uint32_t m2 = m0 ^ m1;
        const uint32_t mi[8] = PAT_IN_WORDS;
        const uint32_t mo[8] = PAT_OUT_WORDS;
        uint32_t lsb = 0x01010101u;
        CORR_PHASE(lsb, m0); /* in a register: AND with m0 >> b in one instruction */
        BS_UNROLL8
        for (unsigned b = 0; b < 8; b++) {
            const uint32_t t = ((m0 >> b) & lsb) * 0xffu;
            cm->in[b] = t ^ mi[b];
            cm->last[b] = mo[b] ^ bs_aes_sr2(bs_aes_ror(t, 4));
        }
    }
}

/* Nr rounds on two blocks with round-key shares rk0, rk1 (8 (Nr + 1) words each). */
static void encrypt_masked(const uint32_t *rk0, const uint32_t *rk1, unsigned nr, uint8_t out[32],
                           const uint8_t in[32], bs_aes_rng_fn rng, void *rng_ctx, int vm)
{
    call_masks cm;
    uint32_t q[8];
#ifdef BS_AES_MASKED_T2
    call_masks_init(&cm, rng, rng_ctx);
#else
    if (vm)
        call_masks_init_v(&cm, rng, rng_ctx);
    else
        call_masks_init(&cm, rng, rng_ctx);
#endif
#ifdef BS_AES_MASKED_T2
    /* the generated Thumb-2 (aes_masked_lin_t2.h): packing of the masked plaintext, the
     * rounds, unpacking with the masks r taken off last (the value-model variant: its entry
     * points, encrypt_maskedv_t2) */
    (void)vm;
    pack_masked_t2(q, in, cm.r);
    if (nr == 10)
        rounds_masked_t2_10(q, &cm, rk0, rk1);
    else
        rounds_masked_t2_14(q, &cm, rk0, rk1);
    unpack_masked_t2(out, q, cm.r);
#else
    uint32_t x[8];
    const uint32_t *ru = vm ? cm.ru : cm.r;
    /* the plaintext words x[c + 4k] of aes.h's packing, masked before anything else */
    BS_UNROLL8
    for (unsigned c = 0; c < 8; c++) {
        x[c] = MT(bs_load_le32(in + 4 * c) ^ cm.r[c]);
        BS_HIDE(x[c]);
    }
    transpose_share(x);
    for (unsigned b = 0; b < 8; b++)
        q[b] = x[(b >> 1) + 4 * (b & 1)];
    ark_masked(q, cm.in, rk0, rk1);
    /* rounds 1..Nr-1 in representations 1, 2, 3, 0, ...; round Nr without MixColumns */
    for (unsigned i = 1; i < nr; i++) {
        const unsigned rep = i % 4;
        sbox_masked(q, cm.mw);
        switch (rep) {
        case 0:
            mc0_masked(q);
            break;
        case 1:
            mc1_masked(q);
            break;
        case 2:
            mc2_masked(q);
            break;
        default:
            mc3_masked(q);
            break;
        }
        ark_masked(q, cm.d[rep], rk0 + 8 * i, rk1 + 8 * i);
    }
    sbox_masked(q, cm.mw);
    ark_masked(q, cm.last, rk0 + 8 * nr, rk1 + 8 * nr);
    BS_UNROLL8
    for (unsigned b = 0; b < 8; b++) {
        const uint32_t v = q[b];
        const uint32_t t = MT(MT(MT(v >> 4) ^ v) & 0x0f000f00u); /* SR^2, aes.h */
        x[(b >> 1) + 4 * (b & 1)] = MT(MT(v ^ t) ^ MT(t << 4));
    }
    transpose_share(x);
    /* the ciphertext words: their masks r come off last */
    for (unsigned c = 0; c < 8; c++)
        bs_store_le32(out + 4 * c, x[c] ^ ru[c]);
    wipe32(x, sizeof x);
#endif
    wipe32_unrolled(&cm, sizeof cm);
    wipe32_unrolled(q, sizeof q);
}

void bs_aes128_masked_2blocks(const bs_aes128_masked_key *k, uint8_t out[32], const uint8_t in[32],
                              bs_aes_rng_fn rng, void *rng_ctx)
{
    encrypt_masked(k->rk[0], k->rk[1], 10, out, in, rng, rng_ctx, 0);
}

void bs_aes256_masked_2blocks(const bs_aes256_masked_key *k, uint8_t out[32], const uint8_t in[32],
                              bs_aes_rng_fn rng, void *rng_ctx)
{
    encrypt_masked(k->rk[0], k->rk[1], 14, out, in, rng, rng_ctx, 0);
}

#ifdef BS_AES_MASKED_T2
/* The value-model variant on Cortex-M3/M4, inlined into its two entry points (encrypt_masked's
 * vm path without its arguments on the stack): the masks, then the generated Thumb-2. */
BS_AES_FN void encrypt_maskedv_t2(const uint32_t *rk0, const uint32_t *rk1, unsigned nr,
                                  uint8_t out[32], const uint8_t in[32], bs_aes_rng_fn rng,
                                  void *rng_ctx)
{
    call_masks cm;
    uint32_t q[8];
    call_masks_init_v(&cm, rng, rng_ctx);
    pack_masked_v_t2(q, in, cm.mw);
    if (nr == 10)
        rounds_masked_v_t2_10(q, &cm, rk0, rk1);
    else
        rounds_masked_v_t2_14(q, &cm, rk0, rk1);
    unpack_masked_v_t2(out, q, cm.mw);
    /* No wipe in C: the rounds zero the S-box's stack slots on the way out and the unpacking
     * zeroes q after storing the ciphertext (q under masks computed from v, which cm holds,
     * would give the output), so the call leaves masks only (cm) in memory (the generated
     * functions spill nothing else; the C here handles masks only; check_lin_thumb.py checks
     * both stores on the objects). */
}
#endif

void bs_aes128_maskedv_2blocks(const bs_aes128_masked_key *k, uint8_t out[32], const uint8_t in[32],
                               bs_aes_rng_fn rng, void *rng_ctx)
{
#ifdef BS_AES_MASKED_T2
    encrypt_maskedv_t2(k->rk[0], k->rk[1], 10, out, in, rng, rng_ctx);
#else
    encrypt_masked(k->rk[0], k->rk[1], 10, out, in, rng, rng_ctx, 1);
#endif
}

void bs_aes256_maskedv_2blocks(const bs_aes256_masked_key *k, uint8_t out[32], const uint8_t in[32],
                               bs_aes_rng_fn rng, void *rng_ctx)
{
#ifdef BS_AES_MASKED_T2
    encrypt_maskedv_t2(k->rk[0], k->rk[1], 14, out, in, rng, rng_ctx);
#else
    encrypt_masked(k->rk[0], k->rk[1], 14, out, in, rng, rng_ctx, 1);
#endif
}

#ifdef BS_AES_MASKED_TRACE
const unsigned char *const bs_aes_masked_trace_pattern_in = pattern_in;

void bs_aes_masked_trace_sbox(uint32_t q[8], const uint32_t mw[4])
{
    sbox_masked(q, mw);
}
#endif

/* SubWord on a shared word: bit b of the four bytes at bits 0, 8, 16, 24 of slice b (a shift and
 * a mask a slice, each share alone; the circuit is bitwise), the DOM circuit, and back, with the
 * 0x63 on share 0. On Cortex-M3/M4 all of it is the generated Thumb-2 subword_dom_t2 (the same
 * values; aes_masked_dom_t2.h): w is then its work area, the two words, the fresh words and its
 * spill slots (zeroed by the caller once a key). */
static void subword_masked(uint32_t *w, bs_aes_rng_fn rng, void *rng_ctx)
{
#ifdef BS_AES_MASKED_DOM_T2
    draw(w + 2, BS_AES_MASKED_SBOX_RAND, rng, rng_ctx);
    subword_dom_t2(w);
#else
    uint32_t q[2][8], r[BS_AES_MASKED_SBOX_RAND];
    draw(r, BS_AES_MASKED_SBOX_RAND, rng, rng_ctx);
    /* the slice loops unrolled (rolled, they kept the words in memory around every step) */
    for (unsigned s = 0; s < 2; s++) {
        BS_UNROLL8
        for (unsigned b = 0; b < 8; b++)
            q[s][b] = MT((w[s] >> b) & 0x01010101u);
    }
    sbox_dom(q[0], q[1], r);
    for (unsigned s = 0; s < 2; s++) {
        uint32_t v = 0;
        BS_UNROLL8
        for (unsigned b = 0; b < 8; b++)
            v = MT(v | ((q[s][b] & 0x01010101u) << b));
        w[s] = MT(v ^ (s ? 0 : 0x63636363u));
    }
    wipe32(q, sizeof q);
    wipe32(r, sizeof r);
#endif
}

/* The value-model variant's SubWord: the two shares traded, bit by bit, for the pattern masking
 * of the encryption's S-box (its two mask bits a position, m0 and m1, bits 0, 8, 16, 24 and 1,
 * 9, 17, 25 of one fresh word), that S-box (the Thumb-2 sbox_masked_v_t2 on Cortex-M3/M4, the
 * C elsewhere), and back to two shares with a second fresh word as share 1: 2 words a SubWord
 * where the DOM circuit draws 5. Each trade adds its mask-only word (share bits ^ pattern mask,
 * hidden from the compiler) to the other share, so that no value holds the two shares
 * together. */
static void subword_masked_v(uint32_t w[2], bs_aes_rng_fn rng, void *rng_ctx)
{
    uint32_t r[BS_AES_MASKEDV_SBOX_RAND], q[8], mw[4];
    draw(r, BS_AES_MASKEDV_SBOX_RAND, rng, rng_ctx);
    const uint32_t m0 = r[0] & 0x01010101u, m1 = (r[0] >> 1) & 0x01010101u, m2 = m0 ^ m1;
    const uint32_t mi[8] = PAT_IN_WORDS;
    const uint32_t mo[8] = PAT_OUT_WORDS;
    mw[0] = m0;
    mw[1] = m1;
    mw[2] = m2;
    mw[3] = m0 | m1;
    BS_UNROLL8
    for (unsigned b = 0; b < 8; b++) {
        uint32_t t = MT(MT((w[1] >> b) & 0x01010101u) ^ mi[b]);
        BS_HIDE(t);
        q[b] = MT(MT((w[0] >> b) & 0x01010101u) ^ t);
    }
#ifdef BS_AES_MASKED_T2
    sbox_masked_v_t2_c(q, mw);
#else
    sbox_masked(q, mw);
#endif
    uint32_t v = 0;
    BS_UNROLL8
    for (unsigned b = 0; b < 8; b++) {
        uint32_t t = MT(MT((r[1] >> b) & 0x01010101u) ^ mo[b]);
        BS_HIDE(t);
        v = MT(v | (MT(MT(q[b] ^ t) & 0x01010101u) << b));
    }
    w[0] = MT(v ^ 0x63636363u);
    w[1] = r[1];
    wipe32(q, sizeof q);
    wipe32(r, sizeof r);
    wipe32(mw, sizeof mw);
}

/* The key schedules' SubWords: the DOM circuit (subword_masked, the _dom entry points), the
 * value-model pattern S-box (subword_masked_v, maskedv) and the default's: the encryption's
 * pattern S-box, on Cortex-M3/M4 its transition-aware Thumb-2 (sbox_masked_t2) between trades
 * generated under the same rule (subword_pat_t2, aes_masked_lin_t2.h; aes_masked.h has the
 * argument), elsewhere the same C as subword_masked_v. */
enum { KS_DOM, KS_V, KS_PAT };

#ifdef BS_AES_MASKED_T2
/* The default's work area (the entry points', zeroed once a key and wiped): the word pair,
 * the S-box's state q, its masks mw, the two fresh words. */
#define PAT_Q 2
#define PAT_MW 10
#define PAT_RND 14
#define PAT_T_WORDS 16

/* m0, m1 at bits 0, 8, 16, 24 from bits 0, 8, 16, 24 and 1, 9, 17, 25 of one fresh word (mask
 * words, in C); the trades and the S-box in Thumb-2; the 0x63 on share 1 (a fresh word XOR a
 * constant). Called from set_key_masked itself: subword_pat_wipe_t2 finds the S-box's stack
 * slots at the same depth. */
BS_AES_FN void subword_pat(uint32_t *t, bs_aes_rng_fn rng, void *rng_ctx)
{
    uint32_t *mw = t + PAT_MW, *rnd = t + PAT_RND;
    draw(rnd, 2, rng, rng_ctx);
    const uint32_t m0 = rnd[0] & 0x01010101u, m1 = (rnd[0] >> 1) & 0x01010101u;
    mw[0] = m0;
    mw[1] = m1;
    mw[2] = m0 ^ m1;
    mw[3] = m0 | m1;
    subword_pat_t2(t + PAT_Q, mw, t, rnd + 1);
    t[1] = rnd[1] ^ 0x63636363u;
}
#endif

/*
 * The packing of one share of a round key, the same key in both blocks, given as its column
 * words: out of line, one copy for every round key and share, its operands in registers.
 */
static BS_MASKED_NOINLINE void pack_share(uint32_t *rk, uint32_t c0, uint32_t c1, uint32_t c2,
                                          uint32_t c3)
{
    uint32_t x[8] = {c0, c1, c2, c3, c0, c1, c2, c3};
    transpose_share(x);
    BS_UNROLL8
    for (unsigned b = 0; b < 8; b++)
        rk[b] = x[(b >> 1) + 4 * (b & 1)];
    /* no wipe: x holds one share's words only, the ones just stored in rk (a wipe would keep
     * x in memory: 22 calls of about 40 instructions more) */
}

/*
 * One share of round key i (column words w[0..3]) in representation k (aes_ks32.c; a constant
 * where it is inlined): row r of column c from column c - k r, each share alone; then the 0x63
 * (share 0, every round key but the first) and the packing.
 */
#define SHARE_COL(w, c, k, add)                                                                    \
    MT(MT(((w)[c] & 0x000000ffu) | ((w)[((c) - (k)) & 3] & 0x0000ff00u) |                          \
          ((w)[((c)-2 * (k)) & 3] & 0x00ff0000u) | ((w)[((c)-3 * (k)) & 3] & 0xff000000u)) ^       \
       (add))

BS_AES_FN void place_share(uint32_t *rk, const uint32_t *w, unsigned k, uint32_t add)
{
    pack_share(rk, SHARE_COL(w, 0, k, add), SHARE_COL(w, 1, k, add), SHARE_COL(w, 2, k, add),
               SHARE_COL(w, 3, k, add));
}

/* Both shares of round key i in representation k, if there is a round key i (public). */
#define PLACE_SHARES(i, k)                                                                         \
    do {                                                                                           \
        if ((i) <= nr) {                                                                           \
            place_share(rk0 + 8 * (i), w[0] + 4 * (i), k, (i) ? 0x63636363u : 0);                  \
            place_share(rk1 + 8 * (i), w[1] + 4 * (i), k, 0);                                      \
        }                                                                                          \
    } while (0)

/* bs_aes_key_schedule (aes_ks32.c) with nk = 4 or 8, representations mod 4, on shares; t:
 * SubWord's two words (the entry points' own, and wiped by them), for the default's generated
 * SubWord its whole work area (subword_masked). */
#ifdef BS_AES_MASKED_T2
#define SUBWORD_PAT(t) subword_pat(t, rng, rng_ctx)
#else
#define SUBWORD_PAT(t) subword_masked_v(t, rng, rng_ctx)
#endif
#define SUBWORD(t)                                                                                 \
    do {                                                                                           \
        if (mode == KS_PAT)                                                                        \
            SUBWORD_PAT(t);                                                                        \
        else if (mode == KS_V)                                                                     \
            subword_masked_v(t, rng, rng_ctx);                                                     \
        else                                                                                       \
            subword_masked(t, rng, rng_ctx);                                                       \
    } while (0)
static void set_key_masked(uint32_t *rk0, uint32_t *rk1, const uint8_t *key, unsigned nk,
                           bs_aes_rng_fn rng, void *rng_ctx, int mode, uint32_t *t)
{
    const unsigned nr = nk + 6, nw = 4 * (nr + 1);
    uint32_t w[2][60], m[8];
    uint32_t rcon = 1;
    draw(m, nk, rng, rng_ctx);
    for (unsigned i = 0; i < nk; i++) {
        w[0][i] = MT(bs_load_le32(key + 4 * i) ^ m[i]);
        w[1][i] = MT(m[i]);
    }
    /* nk words a step (no division), as aes_ks32.c */
    for (unsigned i = nk; i < nw; i += nk) {
        t[0] = MT(bs_aes_ror(w[0][i - 1], 8));
        t[1] = MT(bs_aes_ror(w[1][i - 1], 8));
        SUBWORD(t);
        w[0][i] = MT(w[0][i - nk] ^ MT(t[0] ^ rcon));
        w[1][i] = MT(w[1][i - nk] ^ t[1]);
        rcon = (rcon << 1) ^ (0x11bu & (0u - (rcon >> 7)));
        for (unsigned j = 1; j < nk && i + j < nw; j++) {
            t[0] = w[0][i + j - 1];
            t[1] = w[1][i + j - 1];
            if (j == 4)
                SUBWORD(t);
            w[0][i + j] = MT(w[0][i + j - nk] ^ t[0]);
            w[1][i + j] = MT(w[1][i + j - nk] ^ t[1]);
        }
    }
    for (unsigned i = 0; i <= nr; i += 4) {
        PLACE_SHARES(i, 0);
        PLACE_SHARES(i + 1, 1);
        PLACE_SHARES(i + 2, 2);
        PLACE_SHARES(i + 3, 3);
    }
    wipe32(w[0], 4 * nw); /* the words this key used */
    wipe32(w[1], 4 * nw);
    wipe32(m, sizeof m);
#ifdef BS_AES_MASKED_T2
    if (mode == KS_PAT)
        subword_pat_wipe_t2(); /* the S-box's stack slots, where its calls above left them */
#endif
}
#undef SUBWORD

/* SubWord's words in the DOM key set-up: on Cortex-M3/M4 the generated SubWord's work area
 * (aes_masked_dom_t2.h), zeroed here once a key (word stores: an initialiser is the C
 * library's byte-wise memset), since its spill slots start zeroed. The default's likewise
 * (subword_pat: its q must start as its model assumes, zero or a previous S-box output). */
#ifdef BS_AES_MASKED_DOM_T2
#define DOM_T_WORDS BS_AES_MASKED_DOM_WORDS
#else
#define DOM_T_WORDS 2
#endif
#ifdef BS_AES_MASKED_T2
#define PAT_WORDS PAT_T_WORDS
#else
#define PAT_WORDS 2
#endif

void bs_aes128_masked_set_key(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                              void *rng_ctx)
{
    uint32_t t[PAT_WORDS];
    wipe32_unrolled(t, sizeof t);
    set_key_masked(k->rk[0], k->rk[1], key, 4, rng, rng_ctx, KS_PAT, t);
    wipe32(t, sizeof t);
}

void bs_aes128_masked_set_key_dom(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                                  void *rng_ctx)
{
    uint32_t t[DOM_T_WORDS];
#ifdef BS_AES_MASKED_DOM_T2
    wipe32_unrolled(t, sizeof t);
#endif
    set_key_masked(k->rk[0], k->rk[1], key, 4, rng, rng_ctx, KS_DOM, t);
    wipe32(t, sizeof t);
}

void bs_aes128_maskedv_set_key(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                               void *rng_ctx)
{
    uint32_t t[2];
    set_key_masked(k->rk[0], k->rk[1], key, 4, rng, rng_ctx, KS_V, t);
    wipe32(t, sizeof t);
}

void bs_aes256_masked_set_key(bs_aes256_masked_key *k, const uint8_t key[32], bs_aes_rng_fn rng,
                              void *rng_ctx)
{
    uint32_t t[PAT_WORDS];
    wipe32_unrolled(t, sizeof t);
    set_key_masked(k->rk[0], k->rk[1], key, 8, rng, rng_ctx, KS_PAT, t);
    wipe32(t, sizeof t);
}

void bs_aes256_masked_set_key_dom(bs_aes256_masked_key *k, const uint8_t key[32], bs_aes_rng_fn rng,
                                  void *rng_ctx)
{
    uint32_t t[DOM_T_WORDS];
#ifdef BS_AES_MASKED_DOM_T2
    wipe32_unrolled(t, sizeof t);
#endif
    set_key_masked(k->rk[0], k->rk[1], key, 8, rng, rng_ctx, KS_DOM, t);
    wipe32(t, sizeof t);
}

void bs_aes256_maskedv_set_key(bs_aes256_masked_key *k, const uint8_t key[32], bs_aes_rng_fn rng,
                               void *rng_ctx)
{
    uint32_t t[2];
    set_key_masked(k->rk[0], k->rk[1], key, 8, rng, rng_ctx, KS_V, t);
    wipe32(t, sizeof t);
}

void bs_aes128_masked_clear(bs_aes128_masked_key *k)
{
    bs_wipe(k, sizeof *k);
}

void bs_aes256_masked_clear(bs_aes256_masked_key *k)
{
    bs_wipe(k, sizeof *k);
}

#if BS_KS_MAX >= BS_AES_MASKED_KS_BYTES
/*
 * The masked cores as block-cipher descriptors, for the modes (modes/ctr.h) and anything else
 * that takes a bs_block_cipher: the key schedule holds the two round-key shares, and the
 * randomness comes from the callback set by bs_aes_masked_set_rng (a descriptor's functions
 * take none). Not in the registry: bs_block_cipher_by_name never returns them.
 */
static bs_aes_rng_fn desc_rng;
static void *desc_rng_ctx;

void bs_aes_masked_set_rng(bs_aes_rng_fn rng, void *rng_ctx)
{
    desc_rng = rng;
    desc_rng_ctx = rng_ctx;
}

/* A masked core with no randomness would run unmasked: stop instead. */
static bs_aes_rng_fn desc_rng_or_abort(void)
{
    if (desc_rng == NULL)
        abort();
    return desc_rng;
}

static void desc128_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes128_masked_set_key((bs_aes128_masked_key *)ks->w, key, desc_rng_or_abort(), desc_rng_ctx);
}

static void desc256_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes256_masked_set_key((bs_aes256_masked_key *)ks->w, key, desc_rng_or_abort(), desc_rng_ctx);
}

static void desc128v_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes128_maskedv_set_key((bs_aes128_masked_key *)ks->w, key, desc_rng_or_abort(),
                              desc_rng_ctx);
}

static void desc256v_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    bs_aes256_maskedv_set_key((bs_aes256_masked_key *)ks->w, key, desc_rng_or_abort(),
                              desc_rng_ctx);
}

/* One two-block call through the entry points (their key types: AES-128 when nr is 10). */
static void desc_pair(const bs_key_schedule *ks, unsigned nr, int vm, uint8_t *out,
                      const uint8_t *in, bs_aes_rng_fn rng)
{
    if (nr == 10 && vm)
        bs_aes128_maskedv_2blocks((const bs_aes128_masked_key *)ks->w, out, in, rng, desc_rng_ctx);
    else if (nr == 10)
        bs_aes128_masked_2blocks((const bs_aes128_masked_key *)ks->w, out, in, rng, desc_rng_ctx);
    else if (vm)
        bs_aes256_maskedv_2blocks((const bs_aes256_masked_key *)ks->w, out, in, rng, desc_rng_ctx);
    else
        bs_aes256_masked_2blocks((const bs_aes256_masked_key *)ks->w, out, in, rng, desc_rng_ctx);
}

/* nblocks blocks, two per call; an odd last block goes through a padded copy. */
static void desc_encrypt(const bs_key_schedule *ks, unsigned nr, uint8_t *out, const uint8_t *in,
                         size_t nblocks, int vm)
{
    bs_aes_rng_fn rng = desc_rng_or_abort();
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        desc_pair(ks, nr, vm, out, in, rng);
    if (nblocks) {
        uint8_t pair[32] = {0};
        memcpy(pair, in, 16);
        desc_pair(ks, nr, vm, pair, pair, rng);
        memcpy(out, pair, 16);
        bs_wipe(pair, sizeof pair);
    }
}

static void desc128_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                            size_t nblocks)
{
    desc_encrypt(ks, 10, out, in, nblocks, 0);
}

static void desc128v_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                             size_t nblocks)
{
    desc_encrypt(ks, 10, out, in, nblocks, 1);
}

static void desc256_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                            size_t nblocks)
{
    desc_encrypt(ks, 14, out, in, nblocks, 0);
}

static void desc256v_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
                             size_t nblocks)
{
    desc_encrypt(ks, 14, out, in, nblocks, 1);
}

const bs_block_cipher bs_aes128_masked32 = {
    .name = "AES-128",
    .impl = "masked32",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 16,
    .lanes = 2,
    .set_key = desc128_set_key,
    .encrypt = desc128_encrypt,
};
const bs_block_cipher bs_aes256_masked32 = {
    .name = "AES-256",
    .impl = "masked32",
    .level = BS_CPU_PORTABLE,
    .key_len = 32,
    .block_len = 16,
    .lanes = 2,
    .set_key = desc256_set_key,
    .encrypt = desc256_encrypt,
};
const bs_block_cipher bs_aes128_masked32v = {
    .name = "AES-128",
    .impl = "masked32v",
    .level = BS_CPU_PORTABLE,
    .key_len = 16,
    .block_len = 16,
    .lanes = 2,
    .set_key = desc128v_set_key,
    .encrypt = desc128v_encrypt,
};
const bs_block_cipher bs_aes256_masked32v = {
    .name = "AES-256",
    .impl = "masked32v",
    .level = BS_CPU_PORTABLE,
    .key_len = 32,
    .block_len = 16,
    .lanes = 2,
    .set_key = desc256v_set_key,
    .encrypt = desc256v_encrypt,
};
#endif
