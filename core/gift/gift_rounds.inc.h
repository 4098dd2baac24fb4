/*
 * gift_rounds.inc.h: the bitsliced GIFT S-boxes, round-key expansions and rounds for one word
 * type, a template include (bs_common.h): gift.h includes it once per type after #define BS_W
 * (the word) and BS_SFX (the name suffix), and #undefs both after. What each function does is
 * said in gift.h. No include guard, on purpose.
 */
BS_FN void BS_TPL(bs_gift_sbox_nn)(BS_W *y0, BS_W *y1, BS_W *y2, BS_W *y3, BS_W x0, BS_W x1,
                                   BS_W x2, BS_W x3)
{
    BS_GIFT_SBOX_NN_STEPS(x0, x1, x2, x3);
    *y0 = x3;
    *y1 = x1;
    *y2 = x2;
    *y3 = x0;
}

BS_FN void BS_TPL(bs_gift_sbox)(BS_W *y0, BS_W *y1, BS_W *y2, BS_W *y3, BS_W x0, BS_W x1, BS_W x2,
                                BS_W x3)
{
    BS_TPL(bs_gift_sbox_nn)(y0, y1, y2, y3, x0, x1, x2, x3);
    *y0 = ~*y0;
}

/* x0 and x3 enter complemented; y0, y2 and y3 leave complemented (4 ANDN, 6 XOR). */
BS_FN void BS_TPL(bs_gift_sbox_andn)(BS_W *y0, BS_W *y1, BS_W *y2, BS_W *y3, BS_W x0, BS_W x1,
                                     BS_W x2, BS_W x3)
{
    BS_GIFT_SBOX_ANDN_STEPS(x0, x1, x2, x3);
    *y0 = x3;
    *y1 = x1;
    *y2 = x2;
    *y3 = x0;
}

BS_FN BS_W BS_TPL(bs_gift_mask)(uint32_t v, unsigned i)
{
    return (BS_W)0 - (BS_W)((v >> i) & 1);
}

BS_FN void BS_TPL(bs_gift64_expand)(BS_W *m, uint32_t rk, unsigned rc)
{
    for (unsigned n = 0; n < 16; n++) {
        m[n] = ~BS_TPL(bs_gift_mask)(rk, n);
        m[16 + n] = BS_TPL(bs_gift_mask)(rk, 16 + n);
    }
    for (unsigned i = 0; i < 6; i++)
        m[32 + i] = BS_TPL(bs_gift_mask)(rc, i);
}

BS_FN void BS_TPL(bs_gift128_expand_x)(BS_W *m, uint32_t u, uint32_t v, unsigned rc, BS_W flip_u)
{
    for (unsigned n = 0; n < 32; n++) {
        m[n] = BS_TPL(bs_gift_mask)(v, n);
        m[32 + n] = BS_TPL(bs_gift_mask)(u, n) ^ flip_u;
    }
    for (unsigned i = 0; i < 6; i++)
        m[64 + i] = BS_TPL(bs_gift_mask)(rc, i);
}

BS_FN void BS_TPL(bs_gift128_expand)(BS_W *m, uint32_t u, uint32_t v, unsigned rc)
{
    BS_TPL(bs_gift128_expand_x)(m, u, v, rc, (BS_W)0);
}

BS_FN void BS_TPL(bs_gift128_expand_andn)(BS_W *m, uint32_t u, uint32_t v, unsigned rc)
{
    BS_TPL(bs_gift128_expand_x)(m, u, v, rc, ~(BS_W)0);
}

BS_FN void BS_TPL(bs_gift64_nibble)(BS_W *BS_GIFT_RESTRICT d, const BS_W *BS_GIFT_RESTRICT s,
                                    const BS_W *BS_GIFT_RESTRICT m, unsigned n)
{
    BS_W y0, y1, y2, y3;
    BS_TPL(bs_gift_sbox_nn)(&y0, &y1, &y2, &y3, s[4 * n], s[4 * n + 1], s[4 * n + 2], s[4 * n + 3]);
    d[4 * BS_GIFT64_PN(n, 0)] = y0 ^ m[BS_GIFT64_PN(n, 0)];
    d[4 * BS_GIFT64_PN(n, 1) + 1] = y1 ^ m[16 + BS_GIFT64_PN(n, 1)];
    d[4 * BS_GIFT64_PN(n, 2) + 2] = y2;
    d[4 * BS_GIFT64_PN(n, 3) + 3] = y3;
}

BS_FN void BS_TPL(bs_gift64_round)(BS_W *BS_GIFT_RESTRICT d, const BS_W *BS_GIFT_RESTRICT s,
                                   const BS_W *BS_GIFT_RESTRICT m)
{
    BS_GIFT_REPEAT16(BS_TPL(bs_gift64_nibble), d, s, m, 0);
    for (unsigned i = 0; i < 6; i++)
        d[4 * i + 3] ^= m[32 + i];
    d[63] = ~d[63];
}

BS_FN void BS_TPL(bs_gift128_nibble)(BS_W *BS_GIFT_RESTRICT d, const BS_W *BS_GIFT_RESTRICT s,
                                     const BS_W *BS_GIFT_RESTRICT m, unsigned n)
{
    BS_W y0, y1, y2, y3;
    BS_TPL(bs_gift_sbox)(&y0, &y1, &y2, &y3, s[4 * n], s[4 * n + 1], s[4 * n + 2], s[4 * n + 3]);
    d[4 * BS_GIFT128_PN(n, 0)] = y0;
    d[4 * BS_GIFT128_PN(n, 1) + 1] = y1 ^ m[BS_GIFT128_PN(n, 1)];
    d[4 * BS_GIFT128_PN(n, 2) + 2] = y2 ^ m[32 + BS_GIFT128_PN(n, 2)];
    d[4 * BS_GIFT128_PN(n, 3) + 3] = y3;
}

BS_FN void BS_TPL(bs_gift128_round)(BS_W *BS_GIFT_RESTRICT d, const BS_W *BS_GIFT_RESTRICT s,
                                    const BS_W *BS_GIFT_RESTRICT m)
{
    BS_GIFT_REPEAT16(BS_TPL(bs_gift128_nibble), d, s, m, 0);
    BS_GIFT_REPEAT16(BS_TPL(bs_gift128_nibble), d, s, m, 16);
    for (unsigned i = 0; i < 6; i++)
        d[4 * i + 3] ^= m[64 + i];
    d[127] = ~d[127];
}

BS_FN void BS_TPL(bs_gift128_nibble_andn)(BS_W *BS_GIFT_RESTRICT d, const BS_W *BS_GIFT_RESTRICT s,
                                          const BS_W *BS_GIFT_RESTRICT m, unsigned n)
{
    BS_W y0, y1, y2, y3;
    BS_TPL(bs_gift_sbox_andn)
    (&y0, &y1, &y2, &y3, s[4 * n], s[4 * n + 1], s[4 * n + 2], s[4 * n + 3]);
    d[4 * BS_GIFT128_PN(n, 0)] = y0;
    d[4 * BS_GIFT128_PN(n, 1) + 1] = y1 ^ m[BS_GIFT128_PN(n, 1)];
    d[4 * BS_GIFT128_PN(n, 2) + 2] = y2 ^ m[32 + BS_GIFT128_PN(n, 2)];
    d[4 * BS_GIFT128_PN(n, 3) + 3] = y3;
}

BS_FN void BS_TPL(bs_gift128_round_andn)(BS_W *BS_GIFT_RESTRICT d, const BS_W *BS_GIFT_RESTRICT s,
                                         const BS_W *BS_GIFT_RESTRICT m)
{
    BS_GIFT_REPEAT16(BS_TPL(bs_gift128_nibble_andn), d, s, m, 0);
    BS_GIFT_REPEAT16(BS_TPL(bs_gift128_nibble_andn), d, s, m, 16);
    for (unsigned i = 0; i < 6; i++)
        d[4 * i + 3] ^= m[64 + i];
    d[127] = ~d[127];
}

/* Complements bits 0 and 3 of every nibble: into and out of the andn rounds. */
BS_FN void BS_TPL(bs_gift128_flip03)(BS_W *s)
{
    for (unsigned n = 0; n < 32; n++) {
        s[4 * n] = ~s[4 * n];
        s[4 * n + 3] = ~s[4 * n + 3];
    }
}
