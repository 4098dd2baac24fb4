/*
 * present_rounds.inc.h: the bitsliced PRESENT round functions for one word type, a template
 * include (bs_common.h): present.h includes it once per type after #define BS_W (the word) and
 * BS_SFX (the name suffix), and #undefs both after. What each function does is said in present.h.
 * No include guard, on purpose.
 */
BS_FN void BS_TPL(bs_present_sbox)(BS_W *p3, BS_W *p2, BS_W *p1, BS_W *p0)
{
    BS_W x3 = *p3, x2 = *p2, x1 = *p1, x0 = *p0;
    BS_PRESENT_SBOX_BODY(BS_W);
    BS_W v = ~u;
    *p3 = y1 ^ v;
    *p2 = t3 ^ (v | t5);
    *p1 = y1;
    *p0 = y0;
}

BS_FN void BS_TPL(bs_present_sbox_n)(BS_W *p3, BS_W *p2, BS_W *p1, BS_W *p0)
{
    BS_W x3 = *p3, x2 = *p2, x1 = *p1, x0 = *p0;
    BS_PRESENT_SBOX_BODY(BS_W);
    *p3 = y1 ^ u;
    *p2 = t3 ^ (u & ~t5);
    *p1 = y1;
    *p0 = y0;
}

/* S-box on words a > b > c > d (its input bits 3..0), after adding their key words. */
BS_FN void BS_TPL(bs_present_sbox_key)(BS_W *x, const BS_W *k, unsigned a, unsigned b, unsigned c,
                                       unsigned d)
{
    BS_W x3 = x[a] ^ k[a], x2 = x[b] ^ k[b], x1 = x[c] ^ k[c], x0 = x[d] ^ k[d];
    BS_TPL(bs_present_sbox_n)(&x3, &x2, &x1, &x0);
    x[a] = x3;
    x[b] = x2;
    x[c] = x1;
    x[d] = x0;
}

/* One round in each phase: AddRoundKey and sBoxLayer; the pLayer is the phase change. */
BS_FN void BS_TPL(bs_present_round0)(BS_W *x, const BS_W *k)
{
    BS_PRESENT_SBOX_LAYER(BS_SFX, x, k, 0);
}
/* n S-boxes whose input words are a + i > b + i > c + i > d + i, i < n (SIMD-friendly). */
BS_FN void BS_TPL(bs_present_sbox_run)(BS_W *x, const BS_W *k, unsigned a, unsigned b, unsigned c,
                                       unsigned d, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        BS_TPL(bs_present_sbox_key)(x, k, a + i, b + i, c + i, d + i);
}
/* Phase 1: S-box 4 jh + jl reads words 16 jl + 4 b + jh, contiguous in jh. */
BS_FN void BS_TPL(bs_present_round1)(BS_W *x, const BS_W *k)
{
    BS_TPL(bs_present_sbox_run)(x, k, 12, 8, 4, 0, 4);
    BS_TPL(bs_present_sbox_run)(x, k, 28, 24, 20, 16, 4);
    BS_TPL(bs_present_sbox_run)(x, k, 44, 40, 36, 32, 4);
    BS_TPL(bs_present_sbox_run)(x, k, 60, 56, 52, 48, 4);
}
/* Phase 2: S-box j reads words 16 b + j, contiguous in j. */
BS_FN void BS_TPL(bs_present_round2)(BS_W *x, const BS_W *k)
{
    BS_TPL(bs_present_sbox_run)(x, k, 48, 32, 16, 0, 16);
}

BS_FN void BS_TPL(bs_present_rounds)(BS_W *x, const BS_W *rk)
{
    for (unsigned r = 0; r < 30; r += 3) {
        BS_TPL(bs_present_round0)(x, rk + 64 * r);
        BS_TPL(bs_present_round1)(x, rk + 64 * (r + 1));
        BS_TPL(bs_present_round2)(x, rk + 64 * (r + 2));
    }
    BS_TPL(bs_present_round0)(x, rk + 64 * 30);
    for (unsigned i = 0; i < 64; i++)
        x[i] ^= rk[64 * 31 + i];
}

BS_FN void BS_TPL(bs_present_expand_keys)(BS_W *rk, const uint64_t *K)
{
    for (unsigned r = 0; r < BS_PRESENT_ROUND_KEYS; r++) {
        uint64_t kr = K[r] ^ (r != 0 ? BS_PRESENT_KEY_NOT : 0);
        for (unsigned i = 0; i < 64; i++)
            rk[64 * r + BS_PRESENT_POS(r % 3, i)] = (BS_W)0 - (BS_W)((kr >> i) & 1);
    }
}
