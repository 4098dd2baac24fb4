/*
 * skinny_wide.inc.h: SKINNY-128 on SIMD words of BS_G uint64_t elements, each element the
 * 64-lane state of skinny_bs64.c (skinny.h's bs64 layout: s[16 b + i] is bit b of cell i,
 * complemented), so a pass is 64 BS_G blocks, the round tweakeys are bs64's lane masks (one
 * uint64_t, broadcast) and the key schedule and the narrow path are bs64's. A template include
 * (bs_common.h): the includer defines BS_W (a GCC vector of BS_G uint64_t), BS_G, BS_SFX and,
 * before including, two functions on BS_G blocks of 16 bytes:
 *   BS_TPL(skw_split)(const uint8_t *p, BS_W *h0, BS_W *h1): element g of h0 / h1 = the low /
 *     high little-endian 64-bit half of block g at p;
 *   BS_TPL(skw_join)(uint8_t *p, BS_W h0, BS_W h1, const uint8_t *in): the inverse, XORed
 *     with the 16 BS_G bytes at in unless in is NULL.
 * No include guard, on purpose.
 *
 * Block numbering: block G L + g of a pass is lane L of element g (G = BS_G), lane L being bit
 * 8 (L % 8) + L / 8 after bs64's transpose (skinny_bs64.c), so bit p of element g holds block
 * G (8 (p % 8) + p / 8) + g. The counter words below follow it.
 *
 * Rounds in place: the state does not fit the register file, so each round loads and stores
 * it once, a column of MixColumns' output at a time (32 words). Output column j takes its
 * cells from the diagonal (r, j - r) of the round's input, and writes them back to the same
 * words, so that ShiftRows is never computed: at the start of round t, logical cell (r, c)
 * sits in physical cell (r, c - t r mod 4). Four round variants (t mod 4), and 40, 48 and 56
 * rounds end in the standard representation. The round tweakey of a logical cell is added
 * where its S-box output is made. Logic only, at public indices: constant time.
 */

/* The loops over rows, bits, columns and round variants must go: their indices pick words. */
#if defined(__clang__)
#define SKW_UNROLL _Pragma("unroll")
/*
 * Under the sanitizers (the fuzz build) clang may decline to unroll the nested loops and then
 * warns that it could not: that costs speed there, not correctness (the indices are public).
 */
#pragma clang diagnostic ignored "-Wpass-failed"
#else
#define SKW_UNROLL _Pragma("GCC unroll 8")
#endif

/* An includer may use a few widths and not every function of each. */
#define SKW_FN static __attribute__((unused))

/* a and b trade the bits that m selects in a with those of m << n in b (bs_swapmove64). */
static inline __attribute__((always_inline)) void BS_TPL(skw_swapmove)(BS_W *a, BS_W *b, uint64_t m,
                                                                       unsigned n)
{
    BS_W t = ((*b >> n) ^ *a) & m;
    *a ^= t;
    *b ^= t << n;
}

/* skinny_bs64.c's transpose_planes, on BS_G groups of 64 lanes at once. */
static inline void BS_TPL(skw_stage)(BS_W *s, unsigned d, unsigned shift, uint64_t m)
{
    for (unsigned i = 0; i < 128; i += 2 * d)
        for (unsigned j = i; j < i + d; j++)
            BS_TPL(skw_swapmove)(&s[j + d], &s[j], m, shift);
}

SKW_FN void BS_TPL(skw_transpose)(BS_W *s)
{
    BS_TPL(skw_stage)(s, 16, 1, 0x5555555555555555ull);
    BS_TPL(skw_stage)(s, 32, 2, 0x3333333333333333ull);
    BS_TPL(skw_stage)(s, 64, 4, 0x0f0f0f0f0f0f0f0full);
    BS_TPL(skw_stage)(s, 1, 8, 0x00ff00ff00ff00ffull);
    BS_TPL(skw_stage)(s, 2, 16, 0x0000ffff0000ffffull);
    BS_TPL(skw_stage)(s, 4, 32, 0x00000000ffffffffull);
}

/* skinny_bs64.c's POS: the word that half h of lane w starts in. */
#define SKW_POS(w, h) (16 * ((w) >> 3) + 8 * (h) + ((w)&7))

/* 64 BS_G blocks in, complemented and transposed. */
SKW_FN void BS_TPL(skw_load)(BS_W *s, const uint8_t *in)
{
    for (unsigned l = 0; l < 64; l++) {
        BS_W h0, h1;
        BS_TPL(skw_split)(in + 16 * BS_G * l, &h0, &h1);
        s[SKW_POS(l, 0)] = ~h0;
        s[SKW_POS(l, 1)] = ~h1;
    }
    BS_TPL(skw_transpose)(s);
}

/* The inverse, XORed with in (NULL: nothing); s is clobbered. */
SKW_FN void BS_TPL(skw_store)(uint8_t *out, BS_W *s, const uint8_t *in)
{
    BS_TPL(skw_transpose)(s);
    for (unsigned l = 0; l < 64; l++)
        BS_TPL(skw_join)
    (out + 16 * BS_G * l, ~s[SKW_POS(l, 0)], ~s[SKW_POS(l, 1)],
     in != NULL ? in + 16 * BS_G * l : NULL);
}

/* S-box of the cell whose bit-b word is s[16 b + p]: y[b] = output bit b (skinny.h). */
static inline __attribute__((always_inline)) void BS_TPL(skw_sbox)(BS_W *y, const BS_W *s,
                                                                   unsigned p)
{
    BS_W x0 = s[p], x1 = s[16 + p], x2 = s[32 + p], x3 = s[48 + p];
    BS_W x4 = s[64 + p], x5 = s[80 + p], x6 = s[96 + p], x7 = s[112 + p];
    BS_SKINNY_SBOX_STEPS(x0, x1, x2, x3, x4, x5, x6, x7);
    y[0] = x2;
    y[1] = x7;
    y[2] = x6;
    y[3] = x1;
    y[4] = x3;
    y[5] = x0;
    y[6] = x4;
    y[7] = x5;
}

/*
 * Output column j of round variant t (module comment): the S-boxes of the diagonal (r, j - r),
 * their round tweakeys (rows 0 and 1) and the constant, then MixColumns (skinny_bs64.c's: row 3
 * complemented), back into the diagonal's words. The order keeps about 16 words live (the
 * state does not fit the registers; a spill costs what a load and a store do): each output row
 * is stored once the input row whose words it takes has been read.
 */
static inline __attribute__((always_inline)) void BS_TPL(skw_column)(BS_W *s, const uint64_t *m,
                                                                     unsigned t, unsigned j)
{
    unsigned p[4], c[4];
    SKW_UNROLL
    for (unsigned r = 0; r < 4; r++) {
        c[r] = (j - r) & 3;
        p[r] = 4 * r + ((j - (t + 1) * r) & 3);
    }
    const uint64_t *k0 = m + c[0], *k1 = m + 4 + c[1];
    BS_W a[8], b2[8], x[8];
    BS_TPL(skw_sbox)(a, s, p[1]);
    BS_TPL(skw_sbox)(b2, s, p[2]);
    if (c[2] == 0)
        b2[1] = ~b2[1]; /* constant 0x2 of cell 8 */
    SKW_UNROLL
    for (unsigned b = 0; b < 8; b++)
        s[16 * b + p[2]] = a[b] ^ k1[8 * b] ^ b2[b]; /* row 2 = row 1 ^ row 2 */
    BS_TPL(skw_sbox)(a, s, p[0]);
    SKW_UNROLL
    for (unsigned b = 0; b < 8; b++) {
        const BS_W o = a[b] ^ k0[8 * b];
        s[16 * b + p[1]] = o; /* row 1 = row 0 */
        x[b] = o ^ b2[b];
    }
    BS_TPL(skw_sbox)(a, s, p[3]);
    SKW_UNROLL
    for (unsigned b = 0; b < 8; b++) {
        s[16 * b + p[0]] = x[b] ^ a[b]; /* row 0 = row 0 ^ row 2 ^ row 3 */
        s[16 * b + p[3]] = ~x[b];       /* row 3 = row 0 ^ row 2, complemented */
    }
}

/* Four rounds from variant 0 (m: their lane masks, BS_SKINNY_BS64_RK_WORDS each). */
__attribute__((noinline)) SKW_FN void BS_TPL(skw_rounds4)(BS_W *s, const uint64_t *m)
{
    SKW_UNROLL
    for (unsigned t = 0; t < 4; t++)
        SKW_UNROLL
    for (unsigned j = 0; j < 4; j++) {
        BS_TPL(skw_column)(s, m + t * BS_SKINNY_BS64_RK_WORDS, t, j);
        /*
         * The next column reads what it must from memory: without this the compiler keeps
         * the words just stored in registers for the next round, and spills them.
         */
        __asm__ __volatile__("" : : "r"(s) : "memory");
    }
}

SKW_FN void BS_TPL(skw_rounds)(BS_W *s, const uint64_t *m, unsigned rounds)
{
    for (unsigned r = 0; r < rounds; r += 4)
        BS_TPL(skw_rounds4)(s, m + r * BS_SKINNY_BS64_RK_WORDS);
}

/*
 * The complemented, transposed state of 64 BS_G counter blocks ctr + n mod 2^32 in the last 4
 * bytes (n the block number of the module comment), made without a transpose: cells 0..11 are
 * the same in every block (all-zero or all-one words); bit k of the last 4 bytes as a
 * big-endian integer (cell 15 - k / 8, bit k % 8) is a bitsliced ripple-carry sum of the low
 * word (a constant) and n, whose bits are those of g (element number) and of the bit position.
 * The counter is public; nothing branches on it anyway.
 */
SKW_FN void BS_TPL(skw_counter)(BS_W *s, const uint8_t *ctr, uint32_t lo)
{
    /* bit j of a bit position p, as the 64-bit pattern over p */
    static const uint64_t pos[6] = {0xaaaaaaaaaaaaaaaaULL, 0xccccccccccccccccULL,
                                    0xf0f0f0f0f0f0f0f0ULL, 0xff00ff00ff00ff00ULL,
                                    0xffff0000ffff0000ULL, 0xffffffff00000000ULL};
    BS_W g = {0}, zero = {0};
    for (unsigned e = 0; e < BS_G; e++)
        g[e] = e;
    const unsigned gb = BS_G == 8 ? 3 : BS_G == 4 ? 2 : 1; /* bits of the element number */
    for (unsigned i = 0; i < 12; i++)
        for (unsigned b = 0; b < 8; b++)
            s[16 * b + i] = zero + (uint64_t)(((ctr[i] >> b) & 1) - 1);
    BS_W carry = zero;
    for (unsigned k = 0; k < 32; k++) {
        /* n = G L + g with L bits 0..2 at p bits 3..5 and L bits 3..5 at p bits 0..2 */
        BS_W nb = zero;
        if (k < gb)
            nb = zero - ((g >> k) & 1);
        else if (k < gb + 3)
            nb = zero + pos[k - gb + 3];
        else if (k < gb + 6)
            nb = zero + pos[k - gb - 3];
        const BS_W lb = zero - (uint64_t)((lo >> k) & 1);
        s[16 * (k % 8) + 15 - k / 8] = ~(nb ^ lb ^ carry);
        carry = (nb & lb) | (carry & (nb ^ lb));
    }
}
