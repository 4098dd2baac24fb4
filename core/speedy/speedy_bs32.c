/*
 * SPEEDY-r-192 for 32-bit microcontrollers: one block in the 6x32 bitsliced layout of speedy.h
 * (six column words, row i at bit 31 - i). The SubBox is the Boolean network of speedy.h,
 * ShiftColumns and MixColumns are rotations, and the rotation that ShiftColumns leaves on each
 * column after MixColumns is folded into the next round-key XOR (one rotated-operand EOR on
 * Thumb-2). Everything is written on named locals, so that the compiler keeps the six columns in
 * registers and every rotation amount is a constant. The key schedule stores rk_0 .. rk_R
 * packed, 6 words each, computed in the packed layout (speedy_key_next32).
 */
#include "bitslice.h"
#include "bs_wipe32.h"
#include "speedy/speedy.h"

_Static_assert(sizeof(uint32_t[BS_SPEEDY_BS32_RK_WORDS]) <= BS_KS_MAX,
               "SPEEDY bs32 key schedule does not fit bs_key_schedule");

#define ROL(x, n) bs_speedy_rol32((x), (n))
#define SWAPMOVE(a, b, m, n)                                                                       \
    do {                                                                                           \
        uint32_t t_ = (((b) >> (n)) ^ (a)) & (m);                                                  \
        (a) ^= t_;                                                                                 \
        (b) ^= t_ << (n);                                                                          \
    } while (0)

/*
 * Byte k of the groups q = odd (w0 = 0) or even (w0 = 1) in one word, group q at byte
 * 3 - (q >> 1): the word order that the first two stages of bs_speedy_pack32 (w2 <-> b4,
 * w1 <-> b3: whole bytes between words) would leave, read directly with byte loads.
 */
static inline uint32_t load_strided(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[6] << 16) | ((uint32_t)p[12] << 8) |
           (uint32_t)p[18];
}

static inline void store_strided(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[6] = (uint8_t)(v >> 16);
    p[12] = (uint8_t)(v >> 8);
    p[18] = (uint8_t)v;
}

/*
 * bs_speedy_pack32 written out (derivation in speedy.h). Its spread and first two stages are
 * byte moves and field extractions, done here four groups at a time: with b0, b1, b2 the
 * strided words of a group parity, the fields of rows 4q + r (r = 0..3) are, in every byte,
 * b0 >> 2, (b0 & 3) << 4 | b1 >> 4, (b1 & 15) << 2 | b2 >> 6 and b2 & 63, and row r's fields go
 * to word 2 (3 - r) + w0. The last three stages follow; columns 0..5 are words 3, 1, 6, 4, 2, 0.
 * Words 5 and 7 end empty, so the last stage skips their pair and the one before only moves
 * their bits out.
 */
/* The fields of one group parity, rows r = 0..3 (f[r]), from its strided words at g. */
static inline void load_fields(uint32_t *f0, uint32_t *f1, uint32_t *f2, uint32_t *f3,
                               const uint8_t *g)
{
    uint32_t b0 = load_strided(g), b1 = load_strided(g + 1), b2 = load_strided(g + 2);
    *f0 = (b0 >> 2) & 0x3f3f3f3fu;
    *f1 = ((b0 & 0x03030303u) << 4) | ((b1 >> 4) & 0x0f0f0f0fu);
    *f2 = ((b1 & 0x0f0f0f0fu) << 2) | ((b2 >> 6) & 0x03030303u);
    *f3 = b2 & 0x3f3f3f3fu;
}

static inline void store_fields(uint8_t *g, uint32_t f0, uint32_t f1, uint32_t f2, uint32_t f3)
{
    store_strided(g, (f0 << 2) | ((f1 >> 4) & 0x03030303u));
    store_strided(g + 1, ((f1 << 4) & 0xf0f0f0f0u) | ((f2 >> 2) & 0x0f0f0f0fu));
    store_strided(g + 2, ((f2 << 6) & 0xc0c0c0c0u) | f3);
}

void bs_speedy_bs32_pack(uint32_t s[6], const uint8_t *in)
{
    uint32_t w0, w1, w2, w3, w4, w5, w6, w7;
    load_fields(&w6, &w4, &w2, &w0, in + 3); /* odd groups: w0 = 0 */
    load_fields(&w7, &w5, &w3, &w1, in);     /* even groups: w0 = 1 */
    SWAPMOVE(w1, w0, BS_SPEEDY_M4, 4);
    SWAPMOVE(w3, w2, BS_SPEEDY_M4, 4);
    SWAPMOVE(w5, w4, BS_SPEEDY_M4, 4);
    SWAPMOVE(w7, w6, BS_SPEEDY_M4, 4);
    SWAPMOVE(w4, w0, BS_SPEEDY_M2, 2);
    SWAPMOVE(w6, w2, BS_SPEEDY_M2, 2);
    w1 ^= w5 << 2; /* SWAPMOVE(w5, w1, M2, 2) with w5 ending empty */
    w3 ^= w7 << 2; /* SWAPMOVE(w7, w3, M2, 2) likewise */
    SWAPMOVE(w2, w0, BS_SPEEDY_M1, 1);
    SWAPMOVE(w3, w1, BS_SPEEDY_M1, 1);
    SWAPMOVE(w6, w4, BS_SPEEDY_M1, 1);
    s[0] = w3;
    s[1] = w1;
    s[2] = w6;
    s[3] = w4;
    s[4] = w2;
    s[5] = w0;
}

void bs_speedy_bs32_unpack(uint8_t *out, const uint32_t s[6])
{
    uint32_t w3 = s[0], w1 = s[1], w6 = s[2], w4 = s[3], w2 = s[4], w0 = s[5], w5, w7;
    SWAPMOVE(w6, w4, BS_SPEEDY_M1, 1);
    SWAPMOVE(w3, w1, BS_SPEEDY_M1, 1);
    SWAPMOVE(w2, w0, BS_SPEEDY_M1, 1);
    w7 = (w3 >> 2) & BS_SPEEDY_M2; /* SWAPMOVE(w7, w3, M2, 2) from an empty w7 */
    w3 ^= w7 << 2;
    w5 = (w1 >> 2) & BS_SPEEDY_M2;
    w1 ^= w5 << 2;
    SWAPMOVE(w6, w2, BS_SPEEDY_M2, 2);
    SWAPMOVE(w4, w0, BS_SPEEDY_M2, 2);
    SWAPMOVE(w7, w6, BS_SPEEDY_M4, 4);
    SWAPMOVE(w5, w4, BS_SPEEDY_M4, 4);
    SWAPMOVE(w3, w2, BS_SPEEDY_M4, 4);
    SWAPMOVE(w1, w0, BS_SPEEDY_M4, 4);
    store_fields(out + 3, w6, w4, w2, w0);
    store_fields(out, w7, w5, w3, w1);
}

/*
 * The key schedule's bit permutation k'[n] = k[(7n + 1) mod 192] on a packed key (row i of
 * column j at bit 31 - i of word j, speedy.h). With n = 6i' + j' the source bit 7n + 1 is
 * column j' + 1 (mod 6), row 7i' + j' (j' < 5) or 7i' + 6 (j' = 5), mod 32: so column j' is
 * column j' + 1 rotated left by j' (or 6), then rows permuted by i' <- 7i' mod 32. That row
 * permutation is four in-word delta swaps (a Benes network whose other five stages are empty;
 * found and checked by embedded/gen/speedy_keyperm.py), the same for every column and round.
 */
static inline uint32_t speedy_rows_times7(uint32_t x)
{
    uint32_t t;
    t = ((x >> 2) ^ x) & 0x11111111u;
    x ^= t ^ (t << 2);
    t = ((x >> 4) ^ x) & 0x07070707u;
    x ^= t ^ (t << 4);
    t = ((x >> 8) ^ x) & 0x002a002au;
    x ^= t ^ (t << 8);
    t = ((x >> 16) ^ x) & 0x000019ccu;
    x ^= t ^ (t << 16);
    return x;
}

static inline void speedy_key_next32(uint32_t k[6])
{
    uint32_t k0 = k[0];
    k[0] = speedy_rows_times7(k[1]);
    k[1] = speedy_rows_times7(ROL(k[2], 1));
    k[2] = speedy_rows_times7(ROL(k[3], 2));
    k[3] = speedy_rows_times7(ROL(k[4], 3));
    k[4] = speedy_rows_times7(ROL(k[5], 4));
    k[5] = speedy_rows_times7(ROL(k0, 6));
}

/*
 * rk_0 .. rk_R packed (speedy.h): the key packed once and stepped in the packed layout, each
 * round constant packed (bs_speedy_bs32_pack is linear) and added. Public indices and rotation
 * amounts only.
 */
static void speedy_bs32_set_key(bs_key_schedule *ks, const uint8_t *key, unsigned rounds)
{
    uint32_t *w = (uint32_t *)ks->w, k[6], c[6];
    bs_speedy_bs32_pack(k, key);
    for (unsigned r = 0; r <= rounds; r++, w += 6) {
        for (unsigned j = 0; j < 6; j++)
            c[j] = 0;
        if (r >= 1 && r < rounds)
            bs_speedy_bs32_pack(c, bs_speedy_rc[r - 1]);
        for (unsigned j = 0; j < 6; j++)
            w[j] = k[j] ^ c[j];
        if (r < rounds)
            speedy_key_next32(k);
    }
    bs_wipe32(k, BS_WORDS(k));
}

#define SUBBOX(y, x)                                                                               \
    BS_SPEEDY_SUBBOX6(uint32_t, y##0, y##1, y##2, y##3, y##4, y##5, x##0, x##1, x##2, x##3, x##4,  \
                      x##5)

/* SubBox, ShiftColumns, SubBox: s -> s, through t. */
#define SUB_SHIFT_SUB()                                                                            \
    do {                                                                                           \
        SUBBOX(t, s);                                                                              \
        t1 = ROL(t1, 1);                                                                           \
        t2 = ROL(t2, 2);                                                                           \
        t3 = ROL(t3, 3);                                                                           \
        t4 = ROL(t4, 4);                                                                           \
        t5 = ROL(t5, 5);                                                                           \
        SUBBOX(s, t);                                                                              \
    } while (0)

void bs_speedy_bs32_block(const uint32_t *rk, unsigned rounds, uint8_t *out, const uint8_t *in)
{
    uint32_t s[6];
    bs_speedy_bs32_pack(s, in);
    uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3],
             s4 = s[4] ^ rk[4], s5 = s[5] ^ rk[5];
    uint32_t t0, t1, t2, t3, t4, t5;
    for (unsigned r = 1; r < rounds; r++) {
        rk += 6;
        SUB_SHIFT_SUB();
        /* ShiftColumns then MixColumns: MixColumns is circulant, so (mix x) <<< j. */
        s0 = bs_speedy_mix32(s0) ^ rk[0];
        s1 = ROL(bs_speedy_mix32(s1), 1) ^ rk[1];
        s2 = ROL(bs_speedy_mix32(s2), 2) ^ rk[2];
        s3 = ROL(bs_speedy_mix32(s3), 3) ^ rk[3];
        s4 = ROL(bs_speedy_mix32(s4), 4) ^ rk[4];
        s5 = ROL(bs_speedy_mix32(s5), 5) ^ rk[5];
    }
    rk += 6;
    SUB_SHIFT_SUB();
    s[0] = s0 ^ rk[0];
    s[1] = s1 ^ rk[1];
    s[2] = s2 ^ rk[2];
    s[3] = s3 ^ rk[3];
    s[4] = s4 ^ rk[4];
    s[5] = s5 ^ rk[5];
    bs_speedy_bs32_unpack(out, s);
}

/* The components on one packed state, for the per-component benchmark (embedded/bench). */
void bs_speedy_bs32_subbox(uint32_t s[6])
{
    uint32_t x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5];
    BS_SPEEDY_SUBBOX6(uint32_t, s[0], s[1], s[2], s[3], s[4], s[5], x0, x1, x2, x3, x4, x5);
}

void bs_speedy_bs32_shiftcolumns(uint32_t s[6])
{
    s[1] = ROL(s[1], 1);
    s[2] = ROL(s[2], 2);
    s[3] = ROL(s[3], 3);
    s[4] = ROL(s[4], 4);
    s[5] = ROL(s[5], 5);
}

void bs_speedy_bs32_mixcolumns(uint32_t s[6])
{
    for (unsigned j = 0; j < 6; j++)
        s[j] = bs_speedy_mix32(s[j]);
}

void bs_speedy_bs32_addroundkey(uint32_t s[6], const uint32_t rk[6])
{
    for (unsigned j = 0; j < 6; j++)
        s[j] ^= rk[j];
}

#define SPEEDY_BS32_CIPHER(R)                                                                      \
    static void speedy##R##_bs32_set_key(bs_key_schedule *ks, const uint8_t *key)                  \
    {                                                                                              \
        speedy_bs32_set_key(ks, key, R);                                                           \
    }                                                                                              \
    static void speedy##R##_bs32_encrypt(const bs_key_schedule *ks, uint8_t *out,                  \
                                         const uint8_t *in, size_t nblocks)                        \
    {                                                                                              \
        for (size_t i = 0; i < nblocks; i++)                                                       \
            bs_speedy_bs32_block((const uint32_t *)ks->w, R, out + BS_SPEEDY_BLOCK * i,            \
                                 in + BS_SPEEDY_BLOCK * i);                                        \
    }                                                                                              \
    const bs_block_cipher bs_speedy##R##_bs32 = {                                                  \
        .name = "SPEEDY-" #R "-192",                                                               \
        .impl = "bs32",                                                                            \
        .level = BS_CPU_PORTABLE,                                                                  \
        .key_len = 24,                                                                             \
        .block_len = 24,                                                                           \
        .lanes = 1,                                                                                \
        .set_key = speedy##R##_bs32_set_key,                                                       \
        .encrypt = speedy##R##_bs32_encrypt,                                                       \
    };

SPEEDY_BS32_CIPHER(5)
SPEEDY_BS32_CIPHER(6)
SPEEDY_BS32_CIPHER(7)
