/*
 * The AES key schedule (FIPS-197 5.2) for the 32-bit cores: the standard expansion, with
 * SubWord through the bitsliced S-box circuit, then every round key permuted into its
 * representation and packed (layout in aes.h). Constant-time: shifts and masks by public
 * amounts, no table.
 *
 * Word by word: SubWord puts bit b of the word's four bytes into slice b at bits 0, 8, 16 and 24
 * (a shift and a mask a slice; the circuit is bitwise, so any common bit positions do) and back;
 * the representation's row rotations are masks of column words; the round key goes to the
 * packing as words. (Before: bit-by-bit gathers around the S-box and byte loops, about 16,600
 * instructions for an AES-128 key on the Cortex-M3.)
 */
#include "aes.h"
#include "bs_wipe32.h"

/* SubWord without the 0x63 (the caller adds it): the four bytes through the circuit at once. */
static uint32_t subword_nonot(uint32_t w)
{
    /* written out: a loop here stays a loop at -O2 and keeps q in memory around the circuit */
    uint32_t q[8] = {w & 0x01010101u,        (w >> 1) & 0x01010101u, (w >> 2) & 0x01010101u,
                     (w >> 3) & 0x01010101u, (w >> 4) & 0x01010101u, (w >> 5) & 0x01010101u,
                     (w >> 6) & 0x01010101u, (w >> 7) & 0x01010101u};
    bs_aes_sbox_nonot(q);
    return (q[0] & 0x01010101u) | ((q[1] & 0x01010101u) << 1) | ((q[2] & 0x01010101u) << 2) |
           ((q[3] & 0x01010101u) << 3) | ((q[4] & 0x01010101u) << 4) | ((q[5] & 0x01010101u) << 5) |
           ((q[6] & 0x01010101u) << 6) | ((q[7] & 0x01010101u) << 7);
}

#if defined(__GNUC__)
#define KS_NOINLINE __attribute__((noinline))
#define KS_INLINE static inline __attribute__((always_inline))
#else
#define KS_NOINLINE
#define KS_INLINE static inline
#endif

/*
 * The packing of bs_aes_pack with the same block in both halves, given as its column words, out
 * of line: one copy for every round key, its operands in registers.
 */
static KS_NOINLINE void pack_key(uint32_t *rk, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3)
{
    uint32_t x[8] = {c0, c1, c2, c3, c0, c1, c2, c3};
    bs_aes_transpose(x);
    for (unsigned i = 0; i < 8; i++)
        rk[i] = x[(i >> 1) + 4 * (i & 1)];
}

/*
 * Round key i (column words w[0..3], byte r of column c at bits 8r) into representation k (a
 * constant where it is inlined): K[r][c] = RK[r][c - k r], i.e. row r of column c comes from
 * column c - k r (mod 4); then the 0x63 of the S-box (every round key but the first) and the
 * packing, the same key in both blocks.
 */
#define KS_COL(w, c, k)                                                                            \
    (((w)[c] & 0x000000ffu) | ((w)[((c) - (k)) & 3] & 0x0000ff00u) |                               \
     ((w)[((c)-2 * (k)) & 3] & 0x00ff0000u) | ((w)[((c)-3 * (k)) & 3] & 0xff000000u))

KS_INLINE void place_round_key(uint32_t *rk, const uint32_t *w, unsigned k, uint32_t add)
{
    pack_key(rk, KS_COL(w, 0, k) ^ add, KS_COL(w, 1, k) ^ add, KS_COL(w, 2, k) ^ add,
             KS_COL(w, 3, k) ^ add);
}

/* Round key i in representation k, if there is a round key i (public). */
#define PLACE(i, k)                                                                                \
    do {                                                                                           \
        if ((i) <= nr)                                                                             \
            place_round_key(rk + 8 * (i), w + 4 * (i), k, (i) ? 0x63636363u : 0);                  \
    } while (0)

void bs_aes_key_schedule(uint32_t *rk, const uint8_t *key, unsigned nk, unsigned rep_mod)
{
    const unsigned nr = nk + 6;
    uint32_t w[4 * 15];
    uint32_t rcon = 1;
    /* written out: a loop over nk words becomes a call of the C library's byte-wise memcpy */
    w[0] = bs_load_le32(key), w[1] = bs_load_le32(key + 4);
    w[2] = bs_load_le32(key + 8), w[3] = bs_load_le32(key + 12);
    if (nk == 8) {
        w[4] = bs_load_le32(key + 16), w[5] = bs_load_le32(key + 20);
        w[6] = bs_load_le32(key + 24), w[7] = bs_load_le32(key + 28);
    }
    /* nk words a step (no division): RotWord, SubWord and Rcon on the first, SubWord on the
     * fifth of AES-256's eight */
    for (unsigned i = nk; i < 4 * (nr + 1); i += nk) {
        w[i] = w[i - nk] ^ subword_nonot(bs_aes_ror(w[i - 1], 8)) ^ 0x63636363u ^ rcon;
        rcon = (rcon << 1) ^ (0x11bu & (0u - (rcon >> 7)));
        for (unsigned j = 1; j < nk && i + j < 4 * (nr + 1); j++) {
            uint32_t t = w[i + j - 1];
            if (j == 4)
                t = subword_nonot(t) ^ 0x63636363u;
            w[i + j] = w[i + j - nk] ^ t;
        }
    }
    if (rep_mod == 4) {
        for (unsigned i = 0; i <= nr; i += 4) {
            PLACE(i, 0);
            PLACE(i + 1, 1);
            PLACE(i + 2, 2);
            PLACE(i + 3, 3);
        }
    } else {
        for (unsigned i = 0; i < nr; i += 2) {
            PLACE(i, 0);
            PLACE(i + 1, 1);
        }
        PLACE(nr, 2); /* the last (aes.h) */
    }
    bs_wipe32(w, BS_WORDS(w));
}
