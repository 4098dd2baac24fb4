/*
 * First-order masked AES-128, fully fixsliced (aes_masked.h says what is masked and how, and
 * what the leakage test does and does not show). The round structure is aes_fix32.c's:
 * rounds 1..9 end in representations 1, 2, 3, 0, 1, 2, 3, 0, 1, round 10 has no MixColumns
 * and ends in representation 2, which one SR^2 turns back into the standard state.
 *
 * Every computed word goes through MT(): nothing in a normal build, a record in the
 * instrumented one (-DBS_AES_MASKED_TRACE, tests/leak/). BS_HIDE() stops the compiler from
 * seeing through a value, where folding two shares' terms together would unmask it.
 */
#include "aes_masked.h"

#ifdef BS_AES_MASKED_TRACE
uint32_t *bs_aes_masked_trace;
size_t bs_aes_masked_trace_cap, bs_aes_masked_trace_len;
int bs_aes_masked_trace_no_r;

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

#if defined(__GNUC__) || defined(__clang__)
#define BS_HIDE(x) __asm__("" : "+r"(x))
#define BS_MASKED_NOINLINE __attribute__((noinline))
#else
#define BS_HIDE(x) ((void)0)
#define BS_MASKED_NOINLINE
#endif

/* Word stores through a volatile pointer: not optimised away, and on picolibc several times
 * cheaper than bs_wipe's byte-wise memset for the few hundred bytes wiped per call. */
static void wipe32(void *p, size_t nbytes)
{
    volatile uint32_t *w = (volatile uint32_t *)p;
    for (size_t i = 0; i < nbytes / 4; i++)
        w[i] = 0;
}

/* Fresh words for one S-box layer (or the input masks). */
static void draw(uint32_t *r, size_t n, bs_aes_rng_fn rng, void *rng_ctx, int gadget)
{
    rng(rng_ctx, r, n);
#ifdef BS_AES_MASKED_TRACE
    if (gadget && bs_aes_masked_trace_no_r)
        memset(r, 0, n * sizeof *r);
#else
    (void)gadget;
#endif
}

/* The DOM-indep AND of (a0, a1) and (b0, b1) with the fresh word r (aes_masked.h). */
#define BS_MA(d, a, b, i)                                                                          \
    uint32_t d##_0, d##_1;                                                                         \
    do {                                                                                           \
        uint32_t x0_ = MT(a##_0 & b##_1), x1_ = MT(a##_1 & b##_0);                                 \
        x0_ = MT(x0_ ^ r[i]);                                                                      \
        x1_ = MT(x1_ ^ r[i]);                                                                      \
        BS_HIDE(x0_);                                                                              \
        BS_HIDE(x1_);                                                                              \
        d##_0 = MT(MT(a##_0 & b##_0) ^ x0_);                                                       \
        d##_1 = MT(MT(a##_1 & b##_1) ^ x1_);                                                       \
    } while (0)

/* An XOR, share by share. */
#define BS_MX(d, a, b) const uint32_t d##_0 = MT(a##_0 ^ b##_0), d##_1 = MT(a##_1 ^ b##_1)

/* aes.h's S-box circuit (without its NOTs) on two shares, in place; r: 34 fresh words. */
static BS_MASKED_NOINLINE void sbox_masked(uint32_t q0[8], uint32_t q1[8], const uint32_t *r)
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

/* SWAPMOVE on one share, every step recorded. */
static inline void mt_swapmove(uint32_t *a, uint32_t *b, uint32_t m, unsigned n)
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

/* aes.h's MixColumns of representation k on one share, intermediates recorded. */
#define MC_SHARE(name, ROT1, ROT2)                                                                 \
    static void name(uint32_t q[8])                                                                \
    {                                                                                              \
        uint32_t n[8], t[8];                                                                       \
        for (unsigned i = 0; i < 8; i++) {                                                         \
            n[i] = MT(ROT1(q[i]));                                                                 \
            t[i] = MT(q[i] ^ n[i]);                                                                \
        }                                                                                          \
        q[0] = MT(MT(t[7] ^ n[0]) ^ MT(ROT2(t[0])));                                               \
        q[1] = MT(MT(MT(t[0] ^ t[7]) ^ n[1]) ^ MT(ROT2(t[1])));                                    \
        q[2] = MT(MT(t[1] ^ n[2]) ^ MT(ROT2(t[2])));                                               \
        q[3] = MT(MT(MT(t[2] ^ t[7]) ^ n[3]) ^ MT(ROT2(t[3])));                                    \
        q[4] = MT(MT(MT(t[3] ^ t[7]) ^ n[4]) ^ MT(ROT2(t[4])));                                    \
        q[5] = MT(MT(t[4] ^ n[5]) ^ MT(ROT2(t[5])));                                               \
        q[6] = MT(MT(t[5] ^ n[6]) ^ MT(ROT2(t[6])));                                               \
        q[7] = MT(MT(t[6] ^ n[7]) ^ MT(ROT2(t[7])));                                               \
    }
MC_SHARE(mc0_share, BS_AES_R1_0, BS_AES_R2_0)
MC_SHARE(mc1_share, BS_AES_R1_1, BS_AES_R2_1)
MC_SHARE(mc2_share, BS_AES_R1_2, BS_AES_R2_2)
MC_SHARE(mc3_share, BS_AES_R1_3, BS_AES_R2_3)

static void ark_share(uint32_t q[8], const uint32_t *rk)
{
    for (unsigned i = 0; i < 8; i++)
        q[i] = MT(q[i] ^ rk[i]);
}

/* One round: masked S-box (fresh words), MixColumns of representation k, AddRoundKey. */
static void round_masked(uint32_t q[2][8], uint32_t r[BS_AES_MASKED_SBOX_RAND],
                         const bs_aes128_masked_key *k, unsigned i, unsigned rep, bs_aes_rng_fn rng,
                         void *rng_ctx)
{
    draw(r, BS_AES_MASKED_SBOX_RAND, rng, rng_ctx, 1);
    sbox_masked(q[0], q[1], r);
    for (unsigned s = 0; s < 2; s++) {
        switch (rep) {
        case 0:
            mc0_share(q[s]);
            break;
        case 1:
            mc1_share(q[s]);
            break;
        case 2:
            mc2_share(q[s]);
            break;
        case 3:
            mc3_share(q[s]);
            break;
        default:
            break; /* the last round: no MixColumns */
        }
        ark_share(q[s], k->rk[s] + 8 * i);
    }
}

void bs_aes128_masked_2blocks(const bs_aes128_masked_key *k, uint8_t out[32], const uint8_t in[32],
                              bs_aes_rng_fn rng, void *rng_ctx)
{
    uint32_t m[8], x[2][8], q[2][8], r[BS_AES_MASKED_SBOX_RAND];
    draw(m, 8, rng, rng_ctx, 0);
    /* the plaintext words x[c + 4k] of aes.h's packing, masked before anything else */
    for (unsigned c = 0; c < 8; c++) {
        x[0][c] = MT(bs_load_le32(in + 4 * c) ^ m[c]);
        x[1][c] = MT(m[c]);
    }
    for (unsigned s = 0; s < 2; s++) {
        transpose_share(x[s]);
        for (unsigned b = 0; b < 8; b++)
            q[s][b] = x[s][(b >> 1) + 4 * (b & 1)];
        ark_share(q[s], k->rk[s]);
    }
    /* rounds 1..9 in representations 1, 2, 3, 0, ..., round 10 without MixColumns */
    for (unsigned i = 1; i <= 10; i++)
        round_masked(q, r, k, i, i == 10 ? 4 : i % 4, rng, rng_ctx);
    for (unsigned s = 0; s < 2; s++) {
        for (unsigned b = 0; b < 8; b++) {
            const uint32_t v = q[s][b];
            const uint32_t t = MT(MT(MT(v >> 4) ^ v) & 0x0f000f00u); /* SR^2, aes.h */
            x[s][(b >> 1) + 4 * (b & 1)] = MT(MT(v ^ t) ^ MT(t << 4));
        }
        transpose_share(x[s]);
    }
    /* the ciphertext: the only place the shares meet */
    for (unsigned c = 0; c < 8; c++)
        bs_store_le32(out + 4 * c, x[0][c] ^ x[1][c]);
    wipe32(m, sizeof m);
    wipe32(x, sizeof x);
    wipe32(q, sizeof q);
    wipe32(r, sizeof r);
}

/* SubWord on a shared word: byte j's bit b at bit j of slice b, per share; the masked
 * circuit; back, with the 0x63 on share 0. */
static void subword_masked(uint32_t w[2], bs_aes_rng_fn rng, void *rng_ctx)
{
    uint32_t q[2][8], r[BS_AES_MASKED_SBOX_RAND];
    draw(r, BS_AES_MASKED_SBOX_RAND, rng, rng_ctx, 1);
    for (unsigned s = 0; s < 2; s++)
        for (unsigned b = 0; b < 8; b++) {
            uint32_t v = 0;
            for (unsigned j = 0; j < 4; j++)
                v |= ((w[s] >> (8 * j + b)) & 1u) << j;
            q[s][b] = MT(v);
        }
    sbox_masked(q[0], q[1], r);
    for (unsigned s = 0; s < 2; s++) {
        uint32_t v = 0;
        for (unsigned b = 0; b < 8; b++)
            for (unsigned j = 0; j < 4; j++)
                v |= ((q[s][b] >> j) & 1u) << (8 * j + b);
        w[s] = MT(v ^ (s ? 0 : 0x63636363u));
    }
    wipe32(q, sizeof q);
    wipe32(r, sizeof r);
}

/* bs_aes_key_schedule (aes_ks32.c) with nk = 4, representations mod 4, on shares. */
void bs_aes128_masked_set_key(bs_aes128_masked_key *k, const uint8_t key[16], bs_aes_rng_fn rng,
                              void *rng_ctx)
{
    uint32_t w[2][44], m[4], t[2];
    uint32_t rcon = 1;
    draw(m, 4, rng, rng_ctx, 0);
    for (unsigned i = 0; i < 4; i++) {
        w[0][i] = MT(bs_load_le32(key + 4 * i) ^ m[i]);
        w[1][i] = MT(m[i]);
    }
    for (unsigned i = 4; i < 44; i++) {
        t[0] = w[0][i - 1];
        t[1] = w[1][i - 1];
        if (i % 4 == 0) {
            t[0] = MT(bs_aes_ror(t[0], 8));
            t[1] = MT(bs_aes_ror(t[1], 8));
            subword_masked(t, rng, rng_ctx);
            t[0] = MT(t[0] ^ rcon);
            rcon = (rcon << 1) ^ (0x11bu & (0u - (rcon >> 7)));
        }
        w[0][i] = MT(w[0][i - 4] ^ t[0]);
        w[1][i] = MT(w[1][i - 4] ^ t[1]);
    }
    for (unsigned i = 0; i <= 10; i++) {
        /* representation i mod 4: K[r][c] = RK[r][c - kr] (aes_ks32.c) */
        const unsigned rep = i % 4;
        for (unsigned s = 0; s < 2; s++) {
            uint8_t std[16], blk[16];
            uint32_t x[8];
            for (unsigned c = 0; c < 4; c++)
                bs_store_le32(std + 4 * c, w[s][4 * i + c]);
            for (unsigned r = 0; r < 4; r++)
                for (unsigned c = 0; c < 4; c++)
                    blk[r + 4 * c] =
                        (uint8_t)(std[r + 4 * ((c + 16 - rep * r) % 4)] ^ (i && !s ? 0x63 : 0));
            for (unsigned c = 0; c < 4; c++)
                x[c] = x[c + 4] = MT(bs_load_le32(blk + 4 * c));
            transpose_share(x);
            for (unsigned b = 0; b < 8; b++)
                k->rk[s][8 * i + b] = x[(b >> 1) + 4 * (b & 1)];
            bs_wipe(std, sizeof std);
            bs_wipe(blk, sizeof blk);
            bs_wipe(x, sizeof x);
        }
    }
    bs_wipe(w, sizeof w);
    bs_wipe(m, sizeof m);
    bs_wipe(t, sizeof t);
}

void bs_aes128_masked_clear(bs_aes128_masked_key *k)
{
    bs_wipe(k, sizeof *k);
}
