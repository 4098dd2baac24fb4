/*
 * bsks_engine.inc.h: the key-search engine of bsgpu_keysearch.h for one word type, a template
 * include (core/bs_common.h). Its includer defines BS_W (the word: one candidate key per lane),
 * BSKS_SW (the signed type of the same width), BS_SFX (the name suffix), BSKS_LOG2 (log2 of the
 * lanes) and BSKS_LANEBIT(b) (bit b of the lane index, as a word); it #undefs them at its end. What
 * each function does is said in bsgpu_keysearch.h. No include guard, on purpose.
 */
BS_FN BS_W BS_TPL(bsks_bit)(unsigned v)
{
    return (BS_W)0 - (BS_W)(v & 1u);
}

/*
 * The key words of chunks qbase + t (qbase a multiple of 2^BSKS_TBITS, t below it), made
 * once on the host: kw[i] = base[i] ^ (bit 8 sizeof(BS_W) - 1 - ls[i] of t << ls[i], as a mask).
 * Known bits, lane patterns and the chunk bits above BSKS_TBITS are in base (ls 0: t has no
 * bit there); a thread only shifts its t: 3 operations a bit, no branch, no table index.
 */
typedef struct BS_TPL(bsks_kwtab) {
    BS_W base[128];
    uint32_t ls[128];
} BS_TPL(bsks_kwtab);

BS_FN void BS_TPL(bsks_kwtab_make)(BS_TPL(bsks_kwtab) * tab, const bsks_problem *pb, uint64_t qbase)
{
    for (unsigned i = 0; i < 128; i++) {
        const int u = pb->unknown_index[i];
        tab->ls[i] = 0;
        if (u < 0)
            tab->base[i] = BS_TPL(bsks_bit)(pb->key_bit[i]);
        else if (u < BSKS_LOG2)
            tab->base[i] = (BS_W)BSKS_LANEBIT(u);
        else if (u - BSKS_LOG2 >= BSKS_TBITS)
            tab->base[i] = BS_TPL(bsks_bit)((unsigned)(qbase >> (u - BSKS_LOG2)));
        else {
            tab->base[i] = 0;
            tab->ls[i] = 8 * sizeof(BS_W) - 1 - (unsigned)(u - BSKS_LOG2);
        }
    }
}

/* Every index a constant, so that the device keeps kw in registers. */
BS_FN void BS_TPL(bsks_key_words_tab)(BS_W *kw, const BS_TPL(bsks_kwtab) * tab, uint32_t t)
{
    BSGPU_UNROLL
    for (unsigned i = 0; i < 128; i++)
        kw[i] = tab->base[i] ^ (BS_W)((BSKS_SW)((BS_W)t << tab->ls[i]) >> (8 * sizeof(BS_W) - 1));
}

/* The candidates of chunk q. */
BS_FN void BS_TPL(bsks_key_words)(BS_W *kw, const bsks_problem *pb, uint64_t q)
{
    BS_TPL(bsks_kwtab) tab;
    const uint64_t tmask = ((uint64_t)1 << BSKS_TBITS) - 1;
    BS_TPL(bsks_kwtab_make)(&tab, pb, q & ~tmask);
    BS_TPL(bsks_key_words_tab)(kw, &tab, (uint32_t)(q & tmask));
}

/* One PRESENT round in phase PH with round key K(r + 1) = kw[n - 64 .. n - 1]. */
BS_FN void BS_TPL(bsks_present_round)(BS_W *x, const BS_W *kw, unsigned n, unsigned r, unsigned ph)
{
    BS_W k[64];
    BSGPU_UNROLL
    for (unsigned i = 0; i < 64; i++)
        k[BS_PRESENT_POS(ph, i)] = kw[n - 64 + i] ^ (r != 0 && i >= 32 ? ~(BS_W)0 : (BS_W)0);
    if (ph == 0)
        BS_TPL(bs_present_round0)(x, k);
    else if (ph == 1)
        BS_TPL(bs_present_round1)(x, k);
    else
        BS_TPL(bs_present_round2)(x, k);
}

/* The key register after round counter i: rotate left by 61, S-box(es), counter. */
BS_FN void BS_TPL(bsks_present_update)(BS_W *kw, unsigned n, unsigned i)
{
    BS_W t[128];
    BSGPU_UNROLL
    for (unsigned b = 0; b < n; b++)
        t[b] = kw[(b + n - 61) % n];
    BS_TPL(bs_present_sbox)(&t[n - 1], &t[n - 2], &t[n - 3], &t[n - 4]);
    if (n == 128)
        BS_TPL(bs_present_sbox)(&t[123], &t[122], &t[121], &t[120]);
    const unsigned c0 = n == 80 ? 15 : 62;
    BSGPU_UNROLL
    for (unsigned b = 0; b < 5; b++)
        t[c0 + b] ^= BS_TPL(bsks_bit)(i >> b);
    BSGPU_UNROLL
    for (unsigned b = 0; b < n; b++)
        kw[b] = t[b];
}

BS_FN void BS_TPL(bsks_present_n)(BS_W *y, BS_W *kw, const bsks_problem *pb, unsigned n)
{
    BS_W x[64];
    BSGPU_UNROLL
    for (unsigned i = 0; i < 64; i++)
        x[i] = BS_TPL(bsks_bit)(pb->pt_bit[i]);
    /* Unrolled: the key register's rotations become renamings. */
    BSGPU_UNROLL
    for (unsigned r = 0; r < 30; r += 3) {
        BS_TPL(bsks_present_round)(x, kw, n, r, 0);
        BS_TPL(bsks_present_update)(kw, n, r + 1);
        BS_TPL(bsks_present_round)(x, kw, n, r + 1, 1);
        BS_TPL(bsks_present_update)(kw, n, r + 2);
        BS_TPL(bsks_present_round)(x, kw, n, r + 2, 2);
        BS_TPL(bsks_present_update)(kw, n, r + 3);
    }
    BS_TPL(bsks_present_round)(x, kw, n, 30, 0);
    BS_TPL(bsks_present_update)(kw, n, 31);
    BSGPU_UNROLL
    for (unsigned i = 0; i < 64; i++)
        y[i] = x[BS_PRESENT_POS(1, i)] ^ kw[n - 64 + i] ^ (i >= 32 ? ~(BS_W)0 : (BS_W)0);
}

BS_FN void BS_TPL(bsks_present)(BS_W *y, BS_W *kw, const bsks_problem *pb)
{
    if (pb->key_bits == 80)
        BS_TPL(bsks_present_n)(y, kw, pb, 80);
    else
        BS_TPL(bsks_present_n)(y, kw, pb, 128);
}

/*
 * PRESENT-128 with the key register in memory (the device's shared memory) as a ring:
 * logical bit i at kw[stride * ((i + off) mod 128)]; the rotation moves off, and only the
 * 8 S-box bits and 5 counter bits are rewritten in place.
 */
BS_FN void BS_TPL(bsks_present128_ring)(BS_W *y, BS_W *kw, unsigned stride, const bsks_problem *pb)
{
    BS_W x[64];
    unsigned off = 0;
    BSGPU_UNROLL
    for (unsigned i = 0; i < 64; i++)
        x[i] = BS_TPL(bsks_bit)(pb->pt_bit[i]);
    for (unsigned r = 0; r < 31; r++) {
        BS_W k[64];
        const unsigned ph = r % 3;
        BSGPU_UNROLL
        for (unsigned i = 0; i < 64; i++) {
            const BS_W v =
                kw[stride * ((64 + i + off) & 127)] ^ (r != 0 && i >= 32 ? ~(BS_W)0 : (BS_W)0);
            if (ph == 0)
                k[BS_PRESENT_POS(0, i)] = v;
            else if (ph == 1)
                k[BS_PRESENT_POS(1, i)] = v;
            else
                k[BS_PRESENT_POS(2, i)] = v;
        }
        if (ph == 0)
            BS_TPL(bs_present_round0)(x, k);
        else if (ph == 1)
            BS_TPL(bs_present_round1)(x, k);
        else
            BS_TPL(bs_present_round2)(x, k);
        off = (off + 128 - 61) & 127;
        BS_W *a = kw + stride * ((127 + off) & 127), *b = kw + stride * ((126 + off) & 127);
        BS_W *c = kw + stride * ((125 + off) & 127), *d = kw + stride * ((124 + off) & 127);
        BS_TPL(bs_present_sbox)(a, b, c, d);
        a = kw + stride * ((123 + off) & 127), b = kw + stride * ((122 + off) & 127);
        c = kw + stride * ((121 + off) & 127), d = kw + stride * ((120 + off) & 127);
        BS_TPL(bs_present_sbox)(a, b, c, d);
        BSGPU_UNROLL
        for (unsigned b5 = 0; b5 < 5; b5++)
            kw[stride * ((62 + b5 + off) & 127)] ^= BS_TPL(bsks_bit)((r + 1) >> b5);
    }
    BSGPU_UNROLL
    for (unsigned i = 0; i < 64; i++)
        y[i] = x[BS_PRESENT_POS(1, i)] ^ kw[stride * ((64 + i + off) & 127)] ^
               (i >= 32 ? ~(BS_W)0 : (BS_W)0);
}

/* kw[stride * bsks_gift_key_bit(r, i)] = bit i of the GIFT key state after r updates. */
BS_FN void BS_TPL(bsks_gift64)(BS_W *y, const BS_W *kw, unsigned stride, const bsks_problem *pb)
{
    BS_W b[64], m[BS_GIFT64_RK_WORDS];
    unsigned rc = 0;
    BSGPU_UNROLL
    for (unsigned i = 0; i < 64; i++)
        y[i] = BS_TPL(bsks_bit)(pb->pt_bit[i]);
    for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r += 2) {
        BSGPU_UNROLL
        for (unsigned h = 0; h < 2; h++) {
            rc = bs_gift_rc_next(rc);
            BSGPU_UNROLL
            for (unsigned i = 0; i < 16; i++) {
                m[i] = ~kw[stride * bsks_gift_key_bit(r + h, i)];
                m[16 + i] = kw[stride * bsks_gift_key_bit(r + h, 16 + i)];
            }
            BSGPU_UNROLL
            for (unsigned i = 0; i < 6; i++)
                m[32 + i] = BS_TPL(bsks_bit)(rc >> i);
            if (h == 0)
                BS_TPL(bs_gift64_round)(b, y, m);
            else
                BS_TPL(bs_gift64_round)(y, b, m);
        }
    }
}

BS_FN void BS_TPL(bsks_gift128)(BS_W *y, const BS_W *kw, unsigned stride, const bsks_problem *pb)
{
    BS_W b[128], m[BS_GIFT128_RK_WORDS];
    unsigned rc = 0;
    BSGPU_UNROLL
    for (unsigned i = 0; i < 128; i++)
        y[i] = BS_TPL(bsks_bit)(pb->pt_bit[i]);
    for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r += 2) {
        BSGPU_UNROLL
        for (unsigned h = 0; h < 2; h++) {
            rc = bs_gift_rc_next(rc);
            BSGPU_UNROLL
            for (unsigned i = 0; i < 32; i++) {
                m[i] = kw[stride * bsks_gift_key_bit(r + h, i)];
                m[32 + i] = kw[stride * bsks_gift_key_bit(r + h, 64 + i)];
            }
            BSGPU_UNROLL
            for (unsigned i = 0; i < 6; i++)
                m[64 + i] = BS_TPL(bsks_bit)(rc >> i);
            if (h == 0)
                BS_TPL(bs_gift128_round)(b, y, m);
            else
                BS_TPL(bs_gift128_round)(y, b, m);
        }
    }
}

/* Lanes whose ciphertext (nbits, a constant) equals the first pair's; stops once every
 * lane differs. */
BS_FN BS_W BS_TPL(bsks_compare)(const BS_W *y, const bsks_problem *pb, unsigned nbits)
{
    BS_W diff = 0;
    BSGPU_UNROLL
    for (unsigned i = 0; i < nbits; i += 8) {
        BSGPU_UNROLL
        for (unsigned b = 0; b < 8; b++)
            diff |= y[i + b] ^ BS_TPL(bsks_bit)(pb->ct_bit[i + b]);
        if (diff == ~(BS_W)0)
            return 0;
    }
    /* Fewer unknown bits than lane bits: the upper lanes repeat candidates. */
    if (pb->nunknown < BSKS_LOG2)
        diff |= ~(((BS_W)1 << (1u << pb->nunknown)) - 1);
    return ~diff;
}

BS_FN BS_W BS_TPL(bsks_chunk_tab)(const bsks_problem *pb, const BS_TPL(bsks_kwtab) * tab,
                                  uint32_t t)
{
    BS_W kw[128], y[128];
    BS_TPL(bsks_key_words_tab)(kw, tab, t);
    if (pb->cipher == BSGPU_GIFT64) {
        BS_TPL(bsks_gift64)(y, kw, 1, pb);
        return BS_TPL(bsks_compare)(y, pb, 64);
    }
    if (pb->cipher == BSGPU_GIFT128) {
        BS_TPL(bsks_gift128)(y, kw, 1, pb);
        return BS_TPL(bsks_compare)(y, pb, 128);
    }
    BS_TPL(bsks_present)(y, kw, pb);
    return BS_TPL(bsks_compare)(y, pb, 64);
}

BS_FN BS_W BS_TPL(bsks_chunk)(const bsks_problem *pb, uint64_t q)
{
    BS_TPL(bsks_kwtab) tab;
    const uint64_t tmask = ((uint64_t)1 << BSKS_TBITS) - 1;
    BS_TPL(bsks_kwtab_make)(&tab, pb, q & ~tmask);
    return BS_TPL(bsks_chunk_tab)(pb, &tab, (uint32_t)(q & tmask));
}

#undef BS_W
#undef BSKS_SW
#undef BS_SFX
#undef BSKS_LOG2
#undef BSKS_LANEBIT
