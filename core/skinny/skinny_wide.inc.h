/*
 * skinny_wide.inc.h: SKINNY-128 on SIMD words of BS_G uint64_t elements, each element the
 * 64-lane state of skinny_bs64.c (skinny.h's bs64 layout: s[16 b + i] is bit b of cell i), so a
 * pass is 64 BS_G blocks, the round tweakeys are bs64's lane masks (one uint64_t, broadcast) and
 * the key schedule and the narrow path are bs64's. A template include (bs_common.h): it defines,
 * for one width, the pass, the ECB-style and counter-mode drivers and the registry's functions
 * skinny128_{128,256,384}_{set_key,encrypt,ctr}_SFX; skinny_avx512.c and skinny_avx2.c write
 * the descriptors. The includer defines BS_W (a GCC vector of BS_G uint64_t), BS_G, BS_SFX, and:
 *   SKW_TERNLOG: 1 where the compiler has three-input logic (VPTERNLOGQ), 0 where it does not;
 *   SKW_NRES: how many cells stay in registers through the rounds (0 with 16 registers);
 *   SKW_MIN: the fewest blocks a call runs as a pass of this width (a short one zero-padded);
 *   SKW_NEXT (optional): the suffix of a narrower width included before, which takes what is
 *     left of a call (fewer than SKW_MIN blocks, or a counter-mode tail under a pass); without
 *     it the tail goes to bs64;
 * and, before including, two functions on BS_G blocks of 16 bytes:
 *   BS_TPL(skw_split)(const uint8_t *p, BS_W *h0, BS_W *h1): element g of h0 / h1 = the low /
 *     high little-endian 64-bit half of block g at p;
 *   BS_TPL(skw_join)(uint8_t *p, BS_W h0, BS_W h1, const uint8_t *in): the inverse, XORed
 *     with the 16 BS_G bytes at in unless in is NULL.
 * It undefines those knobs at its end (the next instance defines its own). No include guard, on
 * purpose.
 *
 * Polarity. Without three-input logic the state stays complemented as in bs64 (skinny.h: the
 * S-box is then 16 two-input operations). With VPTERNLOGQ the S-box's NOR-XOR steps are one
 * instruction each whatever the polarity, so the state is kept uncomplemented instead: then
 * MixColumns is four operations per bit, not five (row 3 = row 0 ^ row 2 needs no NOT, and
 * row 0 = row 3 ^ the S-box output of row 3), and the NOT at input and output goes too.
 *
 * Block numbering: block G L + g of a pass is lane L of element g (G = BS_G), lane L being bit
 * 8 (L % 8) + L / 8 after bs64's transpose (skinny_bs64.c), so bit p of element g holds block
 * G (8 (p % 8) + p / 8) + g. The counter words below follow it.
 *
 * Rounds in place: the state does not fit the register file, so each round loads and stores
 * it once (but for SKW_NRES resident cells, below), a column of MixColumns' output at a time
 * (32 words). Output column j takes its cells from the diagonal (r, j - r) of the round's
 * input, and writes them back to the same words, so that ShiftRows is never computed: at the
 * start of round t, logical cell (r, c) sits in physical cell (r, c - t r mod 4). Four round
 * variants (t mod 4), and 40, 48 and 56 rounds end in the standard representation. The round
 * tweakey of a logical cell is added where its S-box output is made. Logic only, at public
 * indices: constant time.
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
#define SKW_AI static inline __attribute__((always_inline))

/*
 * A state word from a true bit plane and back (the polarity above); an S-box step (skinny.h);
 * row 2 of MixColumns, r1 ^ r2 ^ the true key bit given the stored mask k (complemented).
 * GCC does not always fuse ~(a | b) or a NOT of a broadcast into VPTERNLOGQ, so those are
 * written as the instruction (imm8: bit (a b c) of the result, a = 0xf0, b = 0xcc, c = 0xaa).
 */
#if SKW_TERNLOG
#if BS_G == 8
#define SKW_TERN(a, b, c, imm)                                                                     \
    ((BS_W)_mm512_ternarylogic_epi64((__m512i)(a), (__m512i)(b), (__m512i)(c), (imm)))
#else
#define SKW_TERN(a, b, c, imm)                                                                     \
    ((BS_W)_mm256_ternarylogic_epi64((__m256i)(a), (__m256i)(b), (__m256i)(c), (imm)))
#endif
#define SKW_POL(v) (v)
#define SKW_NORX(x, a, b) ((x) = SKW_TERN((x), (a), (b), 0xe1))         /* x ^ ~(a | b) */
#define SKW_ROW2(r1, r2, k) SKW_TERN((r1), (r2), (BS_W){0} + (k), 0x69) /* r1 ^ r2 ^ ~k */
#else
#define SKW_POL(v) (~(v))
#define SKW_NORX BS_SKINNY_ANDX
#define SKW_ROW2(r1, r2, k) ((r1) ^ (k) ^ (r2))
#endif

/* Clears a buffer in a way the compiler keeps. */
static inline void BS_TPL(skw_wipe)(void *p, size_t n)
{
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* a and b trade the bits that m selects in a with those of m << n in b (bs_swapmove64). */
SKW_AI void BS_TPL(skw_swapmove)(BS_W *a, BS_W *b, unsigned n)
{
    const uint64_t m = n == 1    ? 0x5555555555555555ull
                       : n == 2  ? 0x3333333333333333ull
                       : n == 4  ? 0x0f0f0f0f0f0f0f0full
                       : n == 8  ? 0x00ff00ff00ff00ffull
                       : n == 16 ? 0x0000ffff0000ffffull
                                 : 0x00000000ffffffffull;
    BS_W t = ((*b >> n) ^ *a) & m;
    *a ^= t;
    *b ^= t << n;
}

/*
 * skinny_bs64.c's transpose_planes is six stages on words j and j + d (d = 1, 2, 4, 16, 32,
 * 64) that commute: those of d = 16, 32, 64 only mix the eight words of one cell (s[16 b + i],
 * b = 0..7) and those of d = 1, 2, 4 only the eight of one half bit plane (s[8 h + k], k =
 * 0..7). So it is two passes over groups of eight words in registers, and the passes next to
 * the block I/O need no store of their own. On r[k] = the group's word k, with shift n1, n2,
 * n4 for the word distances 1, 2, 4 inside the group.
 */
SKW_AI void BS_TPL(skw_tgroup)(BS_W *r, unsigned n1, unsigned n2, unsigned n4)
{
    SKW_UNROLL
    for (unsigned k = 0; k < 8; k++)
        if (!(k & 1))
            BS_TPL(skw_swapmove)(&r[k + 1], &r[k], n1);
    SKW_UNROLL
    for (unsigned k = 0; k < 8; k++)
        if (!(k & 2))
            BS_TPL(skw_swapmove)(&r[k + 2], &r[k], n2);
    SKW_UNROLL
    for (unsigned k = 0; k < 8; k++)
        if (!(k & 4))
            BS_TPL(skw_swapmove)(&r[k + 4], &r[k], n4);
}

/* The stages of d = 16, 32, 64, on every cell, in place. */
static void BS_TPL(skw_tcells)(BS_W *s)
{
    for (unsigned i = 0; i < 16; i++) {
        BS_W r[8];
        SKW_UNROLL
        for (unsigned b = 0; b < 8; b++)
            r[b] = s[16 * b + i];
        BS_TPL(skw_tgroup)(r, 1, 2, 4);
        SKW_UNROLL
        for (unsigned b = 0; b < 8; b++)
            s[16 * b + i] = r[b];
    }
}

/*
 * 64 BS_G blocks in, transposed. skinny_bs64.c's POS(w, h) = 16 (w >> 3) + 8 h + (w & 7): lanes
 * 8 q .. 8 q + 7 start in words 16 q .. 16 q + 15, where the stages of d = 1, 2, 4 take them.
 */
SKW_FN void BS_TPL(skw_load)(BS_W *s, const uint8_t *in)
{
    for (unsigned q = 0; q < 8; q++) {
        BS_W r0[8], r1[8];
        SKW_UNROLL
        for (unsigned k = 0; k < 8; k++) {
            BS_W h0, h1;
            BS_TPL(skw_split)(in + 16 * BS_G * (8 * q + k), &h0, &h1);
            r0[k] = SKW_POL(h0);
            r1[k] = SKW_POL(h1);
        }
        BS_TPL(skw_tgroup)(r0, 8, 16, 32);
        BS_TPL(skw_tgroup)(r1, 8, 16, 32);
        SKW_UNROLL
        for (unsigned k = 0; k < 8; k++) {
            s[16 * q + k] = r0[k];
            s[16 * q + 8 + k] = r1[k];
        }
    }
    BS_TPL(skw_tcells)(s);
}

/* The inverse, XORed with in (NULL: nothing); s is clobbered. */
SKW_FN void BS_TPL(skw_store)(uint8_t *out, BS_W *s, const uint8_t *in)
{
    BS_TPL(skw_tcells)(s);
    for (unsigned q = 0; q < 8; q++) {
        BS_W r0[8], r1[8];
        SKW_UNROLL
        for (unsigned k = 0; k < 8; k++) {
            r0[k] = s[16 * q + k];
            r1[k] = s[16 * q + 8 + k];
        }
        BS_TPL(skw_tgroup)(r0, 8, 16, 32);
        BS_TPL(skw_tgroup)(r1, 8, 16, 32);
        SKW_UNROLL
        for (unsigned k = 0; k < 8; k++) {
            const size_t o = 16 * BS_G * (8 * q + k);
            BS_TPL(skw_join)(out + o, SKW_POL(r0[k]), SKW_POL(r1[k]), in != NULL ? in + o : NULL);
        }
    }
}

/*
 * Cells kept in registers through all the rounds: SKW_NRES of them, whose 8 NRES words are
 * neither loaded nor stored per round. The stores bound a round (a zmm store takes two cycles
 * on Zen 4, and the ALU work of a round is about what its 128 stores take); a column needs
 * about 16 registers, so two resident cells (16 of the 32 zmm) are what fit: on the
 * developers' EPYC 56 rounds of a zmm pass took 12,500 TSC cycles with none, 12,100 with one,
 * 11,950 with two and 12,300 with three (they spill). Physical cells 0 and 10 (any two of
 * different rows measured the same). skw_res(p): the slot of physical cell p in reg[], or -1
 * for a cell in s[]. Public constants only.
 */
#define SKW_RES_CELL(i) ((i) == 0 ? 0u : (i) == 1 ? 10u : (i) == 2 ? 5u : 15u)
SKW_AI int BS_TPL(skw_res)(unsigned p)
{
    for (int i = 0; i < SKW_NRES; i++)
        if (p == SKW_RES_CELL(i))
            return i;
    return -1;
}

/* The word of bit b of physical cell p. */
SKW_AI BS_W *BS_TPL(skw_w)(BS_W *s, BS_W *reg, unsigned p, unsigned b)
{
    const int i = BS_TPL(skw_res)(p);
    return i >= 0 ? &reg[8 * i + b] : &s[16 * b + p];
}

/* S-box of physical cell p: y[b] = output bit b (skinny.h). */
SKW_AI void BS_TPL(skw_sbox)(BS_W *y, BS_W *s, BS_W *reg, unsigned p)
{
    BS_W x0 = *BS_TPL(skw_w)(s, reg, p, 0), x1 = *BS_TPL(skw_w)(s, reg, p, 1);
    BS_W x2 = *BS_TPL(skw_w)(s, reg, p, 2), x3 = *BS_TPL(skw_w)(s, reg, p, 3);
    BS_W x4 = *BS_TPL(skw_w)(s, reg, p, 4), x5 = *BS_TPL(skw_w)(s, reg, p, 5);
    BS_W x6 = *BS_TPL(skw_w)(s, reg, p, 6), x7 = *BS_TPL(skw_w)(s, reg, p, 7);
    BS_SKINNY_SBOX_STEPS_BY(SKW_NORX, x0, x1, x2, x3, x4, x5, x6, x7);
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
 * their round tweakeys (rows 0 and 1; row 1's masks are stored complemented, skinny.h) and the
 * constant, then MixColumns, back into the diagonal's words. With x = row 0 ^ row 2: row 0 =
 * x ^ row 3, row 1 = row 0, row 2 = row 1 ^ row 2, row 3 = x (complemented when the state is:
 * one NOT). The order keeps about 16 words live (the state does not fit the registers; a spill
 * costs what a load and a store do): each output row is stored once the input row whose words
 * it takes has been read.
 */
SKW_AI void BS_TPL(skw_column)(BS_W *s, BS_W *reg, const uint64_t *m, unsigned t, unsigned j)
{
    unsigned p[4], c[4];
    SKW_UNROLL
    for (unsigned r = 0; r < 4; r++) {
        c[r] = (j - r) & 3;
        p[r] = 4 * r + ((j - (t + 1) * r) & 3);
    }
    const uint64_t *k0 = m + c[0], *k1 = m + 4 + c[1];
    BS_W a[8], b2[8], x[8];
    BS_TPL(skw_sbox)(a, s, reg, p[1]);
    BS_TPL(skw_sbox)(b2, s, reg, p[2]);
    if (c[2] == 0)
        b2[1] = ~b2[1]; /* constant 0x2 of cell 8 */
    SKW_UNROLL
    for (unsigned b = 0; b < 8; b++) /* row 2 = row 1 ^ row 2 */
        *BS_TPL(skw_w)(s, reg, p[2], b) = SKW_ROW2(a[b], b2[b], k1[8 * b]);
    BS_TPL(skw_sbox)(a, s, reg, p[0]);
    SKW_UNROLL
    for (unsigned b = 0; b < 8; b++) {
        const BS_W o = a[b] ^ k0[8 * b];
        *BS_TPL(skw_w)(s, reg, p[1], b) = o; /* row 1 = row 0 */
        x[b] = o ^ b2[b];
    }
    BS_TPL(skw_sbox)(a, s, reg, p[3]);
    SKW_UNROLL
    for (unsigned b = 0; b < 8; b++) {
        *BS_TPL(skw_w)(s, reg, p[0], b) = x[b] ^ a[b];   /* row 0 = row 0 ^ row 2 ^ row 3 */
        *BS_TPL(skw_w)(s, reg, p[3], b) = SKW_POL(x[b]); /* row 3 = row 0 ^ row 2 */
    }
}

/*
 * The rounds (a multiple of 4, from variant 0; m: their lane masks, BS_SKINNY_BS64_RK_WORDS
 * each), the resident cells in registers throughout.
 */
__attribute__((noinline)) SKW_FN void BS_TPL(skw_rounds)(BS_W *s, const uint64_t *m,
                                                         unsigned rounds)
{
    BS_W reg[8 * SKW_NRES + 1];
    SKW_UNROLL
    for (int i = 0; i < SKW_NRES; i++)
        SKW_UNROLL
    for (unsigned b = 0; b < 8; b++)
        reg[8 * i + b] = s[16 * b + SKW_RES_CELL(i)];
    for (unsigned r = 0; r < rounds; r += 4) {
        SKW_UNROLL
        for (unsigned t = 0; t < 4; t++)
            SKW_UNROLL
        for (unsigned j = 0; j < 4; j++) {
            BS_TPL(skw_column)(s, reg, m + (r + t) * BS_SKINNY_BS64_RK_WORDS, t, j);
            /*
             * The next column reads what it must from memory: without this the compiler keeps
             * the words just stored in registers for the next round, and spills them.
             */
            __asm__ __volatile__("" : : "r"(s) : "memory");
        }
    }
    SKW_UNROLL
    for (int i = 0; i < SKW_NRES; i++)
        SKW_UNROLL
    for (unsigned b = 0; b < 8; b++)
        s[16 * b + SKW_RES_CELL(i)] = reg[8 * i + b];
}

/*
 * The transposed state of 64 BS_G counter blocks ctr + n mod 2^32 in the last 4 bytes (n the
 * block number of the module comment), made without a transpose: cells 0..11 are the same in
 * every block (all-zero or all-one words); bit k of the last 4 bytes as a big-endian integer
 * (cell 15 - k / 8, bit k % 8) is a bitsliced ripple-carry sum of the low word (a constant)
 * and n, whose bits are those of g (element number) and of the bit position. The counter is
 * public; nothing branches on it anyway.
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
            s[16 * b + i] = SKW_POL(zero - (uint64_t)((ctr[i] >> b) & 1));
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
        s[16 * (k % 8) + 15 - k / 8] = SKW_POL(nb ^ lb ^ carry);
        carry = (nb & lb) | (carry & (nb ^ lb));
    }
}

#define SKW_PASS (64 * BS_G)

/* One pass of the blocks at src (NULL: the counter blocks ctr + n, lo = ctr's low word). */
static void BS_TPL(skw_pass)(const bs_key_schedule *ks, unsigned rounds, BS_W *s,
                             const uint8_t *src, const uint8_t *ctr, uint32_t lo, const uint8_t *in,
                             uint8_t *out)
{
    if (src != NULL)
        BS_TPL(skw_load)(s, src);
    else
        BS_TPL(skw_counter)(s, ctr, lo);
    BS_TPL(skw_rounds)(s, ks->w, rounds);
    BS_TPL(skw_store)(out, s, in);
}

/* ECB: passes while SKW_MIN blocks are left (a short one through a zero-padded copy). */
SKW_FN void BS_TPL(skw_encrypt)(const bs_block_cipher *narrow, const bs_key_schedule *ks,
                                uint8_t *out, const uint8_t *in, size_t nblocks)
{
    const unsigned rounds = bs_skinny_rounds(narrow->key_len);
    BS_ALIGN(64) BS_W s[128];
    while (nblocks >= SKW_MIN) {
        const size_t n = nblocks < SKW_PASS ? nblocks : SKW_PASS;
        if (n < SKW_PASS) {
            BS_ALIGN(64) uint8_t buf[SKW_PASS * 16];
            memcpy(buf, in, n * 16);
            memset(buf + n * 16, 0, (SKW_PASS - n) * 16);
            BS_TPL(skw_pass)(ks, rounds, s, buf, NULL, 0, NULL, buf);
            memcpy(out, buf, n * 16);
            BS_TPL(skw_wipe)(buf, sizeof buf);
        } else {
            BS_TPL(skw_pass)(ks, rounds, s, in, NULL, 0, NULL, out);
        }
        in += n * 16;
        out += n * 16;
        nblocks -= n;
    }
    BS_TPL(skw_wipe)(s, sizeof s);
    if (nblocks > 0)
#ifdef SKW_NEXT
        BS_CAT(skw_encrypt_, SKW_NEXT)(narrow, ks, out, in, nblocks);
#else
        narrow->encrypt(ks, out, in, nblocks);
#endif
}

/* bs_ctr32_fn: whole passes on counters made in registers, then the tail. */
SKW_FN void BS_TPL(skw_ctr32)(const bs_block_cipher *narrow, const bs_key_schedule *ks,
                              const uint8_t *counter, const uint8_t *in, uint8_t *out,
                              size_t nblocks)
{
    const unsigned rounds = bs_skinny_rounds(narrow->key_len);
    BS_ALIGN(64) BS_W s[128];
    uint32_t lo = bs_load_be32(counter + 12);
    while (nblocks >= SKW_PASS) {
        BS_TPL(skw_pass)(ks, rounds, s, NULL, counter, lo, in, out);
        lo += (uint32_t)SKW_PASS;
        if (in != NULL)
            in += SKW_PASS * 16;
        out += SKW_PASS * 16;
        nblocks -= SKW_PASS;
    }
    BS_TPL(skw_wipe)(s, sizeof s);
    if (nblocks == 0)
        return;
#ifdef SKW_NEXT
    /* The narrower width from the next counter on. */
    uint8_t next[16];
    memcpy(next, counter, 12);
    bs_store_be32(next + 12, lo);
    BS_CAT(skw_ctr32_, SKW_NEXT)(narrow, ks, next, in, out, nblocks);
#else
    /* The counters written out, through encrypt (a padded pass or bs64), then XORed. */
    uint8_t buf[SKW_PASS * 16];
    for (size_t i = 0; i < nblocks; i++) {
        memcpy(buf + 16 * i, counter, 12);
        bs_store_be32(buf + 16 * i + 12, lo + (uint32_t)i);
    }
    BS_TPL(skw_encrypt)(narrow, ks, buf, buf, nblocks);
    for (size_t i = 0; i < nblocks * 16; i++)
        out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
    BS_TPL(skw_wipe)(buf, sizeof buf);
#endif
}

#undef SKW_PASS

/*
 * The registry's functions of the three variants. The key schedule is bs64's: its lane masks
 * are what every width broadcasts, and bs64 is the narrow path.
 */
SKW_FN void BS_TPL(skinny128_128_set_key)(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_128_bs64.set_key(ks, key);
}

SKW_FN void BS_TPL(skinny128_256_set_key)(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_256_bs64.set_key(ks, key);
}

SKW_FN void BS_TPL(skinny128_384_set_key)(bs_key_schedule *ks, const uint8_t *key)
{
    bs_skinny128_384_bs64.set_key(ks, key);
}

SKW_FN void BS_TPL(skinny128_128_encrypt)(const bs_key_schedule *ks, uint8_t *out,
                                          const uint8_t *in, size_t n)
{
    BS_TPL(skw_encrypt)(&bs_skinny128_128_bs64, ks, out, in, n);
}

SKW_FN void BS_TPL(skinny128_256_encrypt)(const bs_key_schedule *ks, uint8_t *out,
                                          const uint8_t *in, size_t n)
{
    BS_TPL(skw_encrypt)(&bs_skinny128_256_bs64, ks, out, in, n);
}

SKW_FN void BS_TPL(skinny128_384_encrypt)(const bs_key_schedule *ks, uint8_t *out,
                                          const uint8_t *in, size_t n)
{
    BS_TPL(skw_encrypt)(&bs_skinny128_384_bs64, ks, out, in, n);
}

SKW_FN void BS_TPL(skinny128_128_ctr)(const bs_key_schedule *ks, const uint8_t *ctr,
                                      const uint8_t *in, uint8_t *out, size_t n)
{
    BS_TPL(skw_ctr32)(&bs_skinny128_128_bs64, ks, ctr, in, out, n);
}

SKW_FN void BS_TPL(skinny128_256_ctr)(const bs_key_schedule *ks, const uint8_t *ctr,
                                      const uint8_t *in, uint8_t *out, size_t n)
{
    BS_TPL(skw_ctr32)(&bs_skinny128_256_bs64, ks, ctr, in, out, n);
}

SKW_FN void BS_TPL(skinny128_384_ctr)(const bs_key_schedule *ks, const uint8_t *ctr,
                                      const uint8_t *in, uint8_t *out, size_t n)
{
    BS_TPL(skw_ctr32)(&bs_skinny128_384_bs64, ks, ctr, in, out, n);
}

/* What depends on this width's parameters goes with it. */
#undef SKW_TERN
#undef SKW_POL
#undef SKW_NORX
#undef SKW_ROW2
#undef BS_W
#undef BS_G
#undef BS_SFX
#undef SKW_TERNLOG
#undef SKW_NRES
#undef SKW_MIN
#undef SKW_NEXT
