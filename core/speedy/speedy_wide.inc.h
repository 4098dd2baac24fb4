/*
 * speedy_wide.inc.h: the rounds of SPEEDY-r-192 on one vector width, and what a pass that
 * reads or writes its blocks element by element needs (a transpose, counter words, block I/O).
 * speedy_avx512.c (zmm, ymm) and speedy_avx2.c (ymm) include it once per width, defining
 * SW_V (the word: SW_G uint64_t elements, a GCC vector type; SW_G = 8 or 4), SW_FN(f) (the
 * name of function f for this width, e.g. rounds_v8), SW_SUBBOX(y0..y5, x0..x5) (the SubBox on
 * six words) and SW_XOR3(a, b, c). A pass of width SW_G covers 64 SW_G blocks: element g, bit l
 * of a word is block SW_G l + g. Functions a width does not need are unused. It undefines
 * those five knobs at its end (the next width defines its own).
 */
/*
 * Rows of a layer unrolled a step (the SubBox layers and MixColumns: 32 rows in steps of 8).
 * Fully unrolled, a zmm round's three functions were about 35 KiB of code, more than the 32 KiB
 * L1 instruction cache: their speed then depended on where the linker put the code around them
 * (up to 15 % apart for the same functions), and a 16 KiB call, whose EVP and XOR code came in
 * between, lost more of them than a 1 MiB one. In steps of 8 they are about 12 KiB (Zen 5,
 * `openssl speed` through the provider, alternated with the fully unrolled ones: 1 MiB level,
 * 16 KiB 7.6 % faster; steps of 4 and 16 were slower than 8).
 */
#define SW_ROWS 8
/* v ^ the lane mask *k, broadcast to the elements. */
static inline SW_V SW_FN(key_xor)(SW_V v, const uint64_t *k)
{
    return v ^ *k;
}

/*
 * One SubBox layer: row i of d from rows (i + j * sc) mod 32 of column j of s (sc = 1: the
 * ShiftColumns before it folded into the reads). The indices depend on the row only: public.
 */
static inline __attribute__((always_inline)) void
SW_FN(subbox_layer)(SW_V *restrict d, const SW_V *restrict s, unsigned sc)
{
#pragma GCC unroll 1
    for (unsigned i0 = 0; i0 < 32; i0 += SW_ROWS) {
#pragma GCC unroll 32
        for (unsigned e = 0; e < SW_ROWS; e++) {
            const unsigned i = i0 + e;
            const SW_V x0 = s[(i + 0 * sc) % 32], x1 = s[32 + (i + 1 * sc) % 32],
                       x2 = s[64 + (i + 2 * sc) % 32], x3 = s[96 + (i + 3 * sc) % 32],
                       x4 = s[128 + (i + 4 * sc) % 32], x5 = s[160 + (i + 5 * sc) % 32];
            SW_V y0, y1, y2, y3, y4, y5;
            SW_SUBBOX(y0, y1, y2, y3, y4, y5, x0, x1, x2, x3, x4, x5);
            d[i] = y0;
            d[32 + i] = y1;
            d[64 + i] = y2;
            d[96 + i] = y3;
            d[128 + i] = y4;
            d[160 + i] = y5;
        }
    }
}

__attribute__((noinline)) static void SW_FN(sb_plain)(SW_V *restrict d, const SW_V *restrict s)
{
    SW_FN(subbox_layer)(d, s, 0);
}

__attribute__((noinline)) static void SW_FN(sb_shifted)(SW_V *restrict d, const SW_V *restrict s)
{
    SW_FN(subbox_layer)(d, s, 1);
}

/*
 * ShiftColumns, MixColumns and the round key: d[i, j] = XOR over a in ALPHA of
 * s[i + a + j, j] ^ k[i, j] (rows mod 32); the eight-input XOR is four VPTERNLOGQ.
 */
__attribute__((noinline)) static void SW_FN(mix_key)(SW_V *restrict d, const SW_V *restrict s,
                                                     const uint64_t *k)
{
#pragma GCC unroll 6
    for (unsigned j = 0; j < 6; j++) {
        const SW_V *c = s + 32 * j;
#pragma GCC unroll 1
        for (unsigned i0 = 0; i0 < 32; i0 += SW_ROWS) {
#pragma GCC unroll 32
            for (unsigned e = 0; e < SW_ROWS; e++) {
                const unsigned i = i0 + e, r = i + j;
                const SW_V u = SW_XOR3(c[r % 32], c[(r + 1) % 32], c[(r + 5) % 32]);
                const SW_V v = SW_XOR3(c[(r + 9) % 32], c[(r + 15) % 32], c[(r + 21) % 32]);
                d[32 * j + i] = SW_FN(key_xor)(SW_XOR3(u, v, c[(r + 26) % 32]), k + 32 * j + i);
            }
        }
    }
}

/*
 * t: the pass in transposed order (t[TWORD(n)] = x[n]); a: scratch of 192 words. Returns t or
 * a, whichever then holds the cipher of it in the same order (nr decides which: nothing
 * secret); the other holds a round's state. t is read once, into a, and is the rounds' second
 * buffer from then on: two buffers of state, not three (the caller wipes both).
 */
static SW_V *SW_FN(rounds)(SW_V *t, SW_V *a, const uint64_t *m, unsigned nr)
{
    SW_V *b = t;
    for (unsigned j = 0; j < 6; j++)
        for (unsigned i = 0; i < 32; i++)
            a[32 * j + i] = SW_FN(key_xor)(t[TWORD(6 * i + j)], m + 32 * j + i);
    for (unsigned r = 1; r < nr; r++) {
        m += 192;
        SW_FN(sb_plain)(b, a);
        SW_FN(sb_shifted)(a, b);
        SW_FN(mix_key)(b, a, m);
        SW_V *sw = a;
        a = b;
        b = sw;
    }
    m += 192;
    SW_FN(sb_plain)(b, a);
    SW_FN(sb_shifted)(a, b);
    for (unsigned j = 0; j < 6; j++)
        for (unsigned i = 0; i < 32; i++)
            b[TWORD(6 * i + j)] = SW_FN(key_xor)(a[32 * j + i], m + 32 * j + i);
    return b;
}

/* One stage of the 64 x 64 bit transpose (the classic form: rows k and k + 32 -> 2k, 2k + 1). */
static inline void SW_FN(tstage)(SW_V *w, const SW_V *v, unsigned s, uint64_t m)
{
    for (unsigned k = 0; k < 32; k++) {
        const SW_V hi = v[k + 32], lo = v[k];
        const SW_V t = ((lo >> s) ^ hi) & m;
        w[2 * k] = lo ^ (t << s);
        w[2 * k + 1] = hi ^ t;
    }
}

/* The SW_G matrices of v[0..63] transposed in place: v[l] = rows <-> v[b] = bit b of the rows. */
static inline void SW_FN(transpose64)(SW_V *v)
{
    SW_V w[64];
    SW_FN(tstage)(w, v, 32, 0x00000000ffffffffULL);
    SW_FN(tstage)(v, w, 16, 0x0000ffff0000ffffULL);
    SW_FN(tstage)(w, v, 8, 0x00ff00ff00ff00ffULL);
    SW_FN(tstage)(v, w, 4, 0x0f0f0f0f0f0f0f0fULL);
    SW_FN(tstage)(w, v, 2, 0x3333333333333333ULL);
    SW_FN(tstage)(v, w, 1, 0x5555555555555555ULL);
    bs_wipe(w, sizeof w);
}

/*
 * The transposed counter chunk of a pass (bs_v8_counter_words for SW_G elements): x[b] is bit
 * b of top | (lo + SW_G l + g) mod 2^32 over the lanes. The block number's low bits are those
 * of the element number g, the next six those of the bit position l; the rest a ripple carry.
 */
static inline void SW_FN(counter_words)(SW_V *x, uint64_t top, uint32_t lo)
{
    static const uint64_t pos[6] = {0xaaaaaaaaaaaaaaaaULL, 0xccccccccccccccccULL,
                                    0xf0f0f0f0f0f0f0f0ULL, 0xff00ff00ff00ff00ULL,
                                    0xffff0000ffff0000ULL, 0xffffffff00000000ULL};
    const unsigned lg = SW_G == 8 ? 3 : SW_G == 4 ? 2 : 1;
    const SW_V zero = {0};
    SW_V g = zero, c = zero;
    for (unsigned e = 0; e < SW_G; e++)
        g[e] = e;
    for (unsigned i = 0; i < 32; i++) {
        const SW_V a = i < lg ? zero - ((g >> i) & 1) : i < lg + 6 ? zero + pos[i - lg] : zero;
        const SW_V b = zero - (uint64_t)((lo >> i) & 1);
        x[i] = a ^ b ^ c;
        c = (a & b) | (c & (a ^ b));
    }
    for (unsigned i = 32; i < 64; i++)
        x[i] = zero - ((top >> i) & 1);
}

/*
 * A partial pass: t (192 words, TWORD order) -> E(t); blocks 0 .. n - 1 of it to out
 * (n <= 64 SW_G), read out element by element (a partial pass is at most one per call). t is
 * left holding state: the caller wipes it.
 */
__attribute__((unused)) static void SW_FN(part_out)(const uint64_t *m, unsigned nr, SW_V *t,
                                                    size_t n, uint8_t *out)
{
    BS_ALIGN(64) SW_V a[192];
    SW_V *o = SW_FN(rounds)(t, a, m, nr);
    for (unsigned c = 0; c < 3; c++)
        SW_FN(transpose64)(o + 64 * c);
    for (size_t blk = 0; blk < n; blk++)
        for (unsigned c = 0; c < 3; c++)
            bs_store_be64(out + BS_SPEEDY_BLOCK * blk + 8 * c, o[64 * c + blk / SW_G][blk % SW_G]);
    bs_wipe(a, sizeof a);
}

/* n keystream blocks (n <= 64 SW_G) from the counter c0 | c1 | top | lo, lo the inc32 word. */
__attribute__((unused)) static void SW_FN(part_ctr)(const uint64_t *m, unsigned nr, uint64_t c0,
                                                    uint64_t c1, uint64_t top, uint32_t lo,
                                                    size_t n, uint8_t *out)
{
    BS_ALIGN(64) SW_V t[192];
    const SW_V zero = {0};
    for (unsigned b = 0; b < 64; b++) {
        t[b] = zero - ((c0 >> b) & 1);
        t[64 + b] = zero - ((c1 >> b) & 1);
    }
    SW_FN(counter_words)(t + 128, top, lo);
    SW_FN(part_out)(m, nr, t, n, out);
    bs_wipe(t, sizeof t);
}

/* t (192 words) <- n blocks of in (n <= 64 SW_G; the others zero), transposed. */
__attribute__((unused)) static void SW_FN(load_blocks)(SW_V *t, const uint8_t *in, size_t n)
{
    for (unsigned w = 0; w < 192; w++)
        t[w] = (SW_V){0};
    for (size_t blk = 0; blk < n; blk++)
        for (unsigned c = 0; c < 3; c++)
            t[64 * c + blk / SW_G][blk % SW_G] = bs_load_be64(in + BS_SPEEDY_BLOCK * blk + 8 * c);
    for (unsigned c = 0; c < 3; c++)
        SW_FN(transpose64)(t + 64 * c);
}

#undef SW_V
#undef SW_G
#undef SW_FN
#undef SW_XOR3
#undef SW_SUBBOX
#undef SW_ROWS
