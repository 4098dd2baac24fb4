/*
 * bs_wide.inc.h: what every wide bitsliced core shares, for one vector word type (a template
 * include, bs_common.h): the 64 x 64 transposes, counters made in bitsliced form, the output of
 * 8-byte blocks, and the ECB-style and 32-bit counter-mode drivers over one pass function.
 * bs_v512.h (zmm, 8 elements) and bs_v256.h (ymm, 4 elements) include it inside their target
 * region after defining BS_W (a GCC vector of BS_WIDE_NG uint64_t), BS_SFX, and these
 * primitives: BS_TPL(bs_wide_load) / _store (unaligned), _bswap64 (each element), and
 * _tbytes(lo, hi, s), the transpose stage s = 32, 16 or 8 below on two rows.
 *
 * Layout: a wide pass is BS_WIDE_NG 64-lane passes side by side, element g of every word being
 * the 64-lane state of group g. Loading the blocks row by row (BS_WIDE_NG 8-byte blocks a word)
 * puts block NG l + g in row l of group g's 64 x 64 bit matrix, so one transpose of all the
 * matrices at once packs 64 NG blocks with no gather: afterwards element g, bit l of word i is
 * bit i of block NG l + g.
 *
 * The transpose is six classic stages, stage s trading the columns with bit s set of row j (bit
 * s clear) for the columns with bit s clear of row j + s. The stages commute, and those of
 * s = 32, 16, 8 touch only the rows i + 8 k (fixed i) while those of s = 4, 2, 1 touch only the
 * rows 8 k .. 8 k + 7: so it is two passes over groups of eight words held in registers (the
 * state is loaded and stored twice, not six times), and the second pass can hand its eight
 * words to the caller instead of storing them (transpose64_bits). All public data flow.
 * No include guard, on purpose.
 */

#define BS_WIDE_BLOCKS (64 * BS_WIDE_NG)

/* Stage s (4, 2 or 1) on rows lo and hi; m: the low s bits of every 2 s. */
static inline void BS_TPL(bs_wide_tbits)(BS_W *lo, BS_W *hi, unsigned s, uint64_t m)
{
    const BS_W t = ((*lo >> s) ^ *hi) & m;
    *lo ^= t << s;
    *hi ^= t;
}

/* Stages 32, 16, 8 on the rows r[k] = row i + 8 k of one i (a core can hand them over). */
static inline void BS_TPL(bs_wide_tbytes8)(BS_W *r)
{
    BS_WIDE_UNROLL
    for (unsigned k = 0; k < 4; k++)
        BS_TPL(bs_wide_tbytes)(&r[k], &r[k + 4], 32);
    BS_WIDE_UNROLL
    for (unsigned k = 0; k < 4; k++)
        BS_TPL(bs_wide_tbytes)(&r[k + (k & 2)], &r[k + (k & 2) + 2], 16);
    BS_WIDE_UNROLL
    for (unsigned k = 0; k < 4; k++)
        BS_TPL(bs_wide_tbytes)(&r[2 * k], &r[2 * k + 1], 8);
}

/* The first pass: stages 32, 16, 8 on rows i, i + 8, .., i + 56 for each i, in place. */
static inline void BS_TPL(bs_wide_transpose64_bytes)(BS_W *v)
{
    for (unsigned i = 0; i < 8; i++) {
        BS_W r[8];
        BS_WIDE_UNROLL
        for (unsigned k = 0; k < 8; k++)
            r[k] = v[i + 8 * k];
        BS_TPL(bs_wide_tbytes8)(r);
        BS_WIDE_UNROLL
        for (unsigned k = 0; k < 8; k++)
            v[i + 8 * k] = r[k];
    }
}

/* The second pass on rows 8 k .. 8 k + 7 of v (after the first), into r[0..7]. */
static inline void BS_TPL(bs_wide_transpose64_bits)(BS_W *r, const BS_W *v, unsigned k)
{
    BS_WIDE_UNROLL
    for (unsigned j = 0; j < 8; j++)
        r[j] = v[8 * k + j];
    BS_WIDE_UNROLL
    for (unsigned j = 0; j < 4; j++)
        BS_TPL(bs_wide_tbits)(&r[j], &r[j + 4], 4, 0x0f0f0f0f0f0f0f0fULL);
    BS_WIDE_UNROLL
    for (unsigned j = 0; j < 4; j++)
        BS_TPL(bs_wide_tbits)(&r[j + (j & 2)], &r[j + (j & 2) + 2], 2, 0x3333333333333333ULL);
    BS_WIDE_UNROLL
    for (unsigned j = 0; j < 4; j++)
        BS_TPL(bs_wide_tbits)(&r[2 * j], &r[2 * j + 1], 1, 0x5555555555555555ULL);
}

/* In place: v[l] = rows <-> v[i] = bit i of every row. */
static inline void BS_TPL(bs_wide_transpose64)(BS_W *v)
{
    BS_TPL(bs_wide_transpose64_bytes)(v);
    for (unsigned k = 0; k < 8; k++) {
        BS_W r[8];
        BS_TPL(bs_wide_transpose64_bits)(r, v, k);
        BS_WIDE_UNROLL
        for (unsigned j = 0; j < 8; j++)
            v[8 * k + j] = r[j];
    }
}

/*
 * What the transpose makes of a pass of counter blocks, word l element g = top | (lo + NG l + g)
 * mod 2^32 (top: bits 63..32, the same in every block), made without it: bits 63..32 are
 * all-zero or all-one words, bits 31..0 a bitsliced ripple-carry sum of lo (the same in every
 * block: words of all zeros or all ones) and the block number NG l + g, whose low bits are those
 * of the element number g and the next six those of the bit position l. The counter is public;
 * nothing branches on it anyway.
 */
static inline void BS_TPL(bs_wide_counter_words)(BS_W *x, uint64_t top, uint32_t lo)
{
    static const uint64_t pos[6] = {0xaaaaaaaaaaaaaaaaULL, 0xccccccccccccccccULL,
                                    0xf0f0f0f0f0f0f0f0ULL, 0xff00ff00ff00ff00ULL,
                                    0xffff0000ffff0000ULL, 0xffffffff00000000ULL};
    enum { LG = BS_WIDE_NG == 8 ? 3 : BS_WIDE_NG == 4 ? 2 : 1 };
    const BS_W zero = {0};
    BS_W g = zero, c = zero;
    for (unsigned e = 0; e < BS_WIDE_NG; e++)
        g[e] = e;
    /* Three runs without a test inside: the element bits, the bit-position bits, then lo alone. */
    BS_WIDE_UNROLL
    for (unsigned i = 0; i < LG; i++) {
        const BS_W a = zero - ((g >> i) & 1), b = zero - (uint64_t)((lo >> i) & 1);
        x[i] = a ^ b ^ c;
        c = (a & b) | (c & (a ^ b));
    }
    BS_WIDE_UNROLL
    for (unsigned i = LG; i < LG + 6; i++) {
        const BS_W a = zero + pos[i - LG], b = zero - (uint64_t)((lo >> i) & 1);
        x[i] = a ^ b ^ c;
        c = (a & b) | (c & (a ^ b));
    }
    for (unsigned i = LG + 6; i < 32; i++) {
        const BS_W b = zero - (uint64_t)((lo >> i) & 1);
        x[i] = b ^ c;
        c &= b;
    }
    for (unsigned i = 32; i < 64; i++)
        x[i] = zero - ((top >> i) & 1);
}

/* Clears a buffer in a way the compiler keeps (a cheap bs_wipe for the wide states). */
static inline void BS_TPL(bs_wide_wipe)(void *p, size_t n)
{
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * 8-byte blocks out of a pass: y holds the 64 state words after transpose64_bytes;
 * out = the blocks (big-endian) ^ in (in NULL: the blocks), a pass of them.
 */
static inline void BS_TPL(bs_wide_out64)(const BS_W *y, const uint8_t *in, uint8_t *out)
{
    const size_t row = sizeof(BS_W);
    for (unsigned k = 0; k < 8; k++) {
        BS_W r[8];
        BS_TPL(bs_wide_transpose64_bits)(r, y, k);
        BS_WIDE_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            BS_W c = BS_TPL(bs_wide_bswap64)(r[j]);
            if (in != NULL)
                c ^= BS_TPL(bs_wide_load)(in + row * (8 * k + j));
            BS_TPL(bs_wide_store)(out + row * (8 * k + j), c);
        }
    }
}

/*
 * The drivers, over one pass function: pass(ks, st, src, in, out) encrypts BS_WIDE_BLOCKS
 * blocks with st[0 .. 16 block_len) as its state and scratch (what the drivers wipe after),
 * reading the blocks from src, or (src NULL) taking them already in bitsliced form in st[0..63]
 * (the low 64 bits of each block) and st[64..127] (a 16-byte block's high 64 bits), and writes
 * out = E ^ in (in NULL: E). Calls of fewer than min blocks, and a tail under that, run
 * through narrow: the 64-lane core, whose key schedule every wide core shares (min: about 5/16
 * of a pass), or a narrower wide instance over that core (min: above the narrower pass).
 */
typedef void (*BS_TPL(bs_wide_pass_fn))(const bs_key_schedule *ks, BS_W *st, const uint8_t *src,
                                        const uint8_t *in, uint8_t *out);

static inline void BS_TPL(bs_wide_encrypt)(BS_TPL(bs_wide_pass_fn) pass,
                                           const bs_block_cipher *narrow, size_t min,
                                           const bs_key_schedule *ks, uint8_t *out,
                                           const uint8_t *in, size_t nblocks)
{
    const size_t bl = narrow->block_len, nb = BS_WIDE_BLOCKS;
    BS_ALIGN(64) BS_W st[256];
    while (nblocks >= min) {
        BS_ALIGN(64) uint8_t buf[BS_WIDE_BLOCKS * 16];
        const size_t n = nblocks < nb ? nblocks : nb;
        if (n < nb) {
            memcpy(buf, in, n * bl);
            memset(buf + n * bl, 0, (nb - n) * bl);
            pass(ks, st, buf, NULL, buf);
            memcpy(out, buf, n * bl);
            BS_TPL(bs_wide_wipe)(buf, nb * bl);
        } else {
            pass(ks, st, in, NULL, out);
        }
        in += n * bl;
        out += n * bl;
        nblocks -= n;
    }
    BS_TPL(bs_wide_wipe)(st, 16 * bl * sizeof st[0]);
    if (nblocks > 0)
        narrow->encrypt(ks, out, in, nblocks);
}

/* bs_ctr32_fn for 8- or 16-byte blocks: whole passes on counters made in registers. */
static inline void BS_TPL(bs_wide_ctr32)(BS_TPL(bs_wide_pass_fn) pass,
                                         const bs_block_cipher *narrow, size_t min,
                                         const bs_key_schedule *ks, const uint8_t *counter,
                                         const uint8_t *in, uint8_t *out, size_t nblocks)
{
    const size_t bl = narrow->block_len, nb = BS_WIDE_BLOCKS;
    const uint64_t c0 = bs_load_be64(counter + bl - 8);
    const uint64_t top = c0 & 0xffffffff00000000ULL;
    const uint64_t high = bl == 16 ? bs_load_be64(counter) : 0;
    uint32_t lo = (uint32_t)c0;
    if (nblocks >= nb) {
        /* The passes' state: wiped once, and only where a pass ran (a tail wipes its own). */
        BS_ALIGN(64) BS_W st[256];
        while (nblocks >= nb) {
            BS_TPL(bs_wide_counter_words)(st, top, lo);
            if (bl == 16)
                for (unsigned i = 0; i < 64; i++)
                    st[64 + i] = (BS_W){0} - ((high >> i) & 1);
            pass(ks, st, NULL, in, out);
            lo += (uint32_t)nb;
            if (in != NULL)
                in += nb * bl;
            out += nb * bl;
            nblocks -= nb;
        }
        BS_TPL(bs_wide_wipe)(st, 16 * bl * sizeof st[0]);
    }
    if (nblocks > 0) {
        /* The tail: counters written out, through encrypt (wide or narrow), then XORed. */
        uint8_t buf[BS_WIDE_BLOCKS * 16];
        for (size_t i = 0; i < nblocks; i++) {
            if (bl == 16)
                bs_store_be64(buf + 16 * i, high);
            bs_store_be64(buf + bl * i + bl - 8, top | (uint32_t)(lo + i));
        }
        BS_TPL(bs_wide_encrypt)(pass, narrow, min, ks, buf, buf, nblocks);
        for (size_t i = 0; i < nblocks * bl; i++)
            out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
        BS_TPL(bs_wide_wipe)(buf, nblocks * bl);
    }
}

#undef BS_WIDE_BLOCKS
