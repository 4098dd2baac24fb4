/*
 * SPEEDY-r-192 for 32-bit microcontrollers: one block in the 6x32 bitsliced layout of speedy.h
 * (six column words, row i at bit 31 - i). The SubBox is the 54-operation Boolean network,
 * ShiftColumns and MixColumns are rotations, and the rotation that ShiftColumns leaves on each
 * column after MixColumns is folded into the next round-key XOR (one rotated-operand EOR on
 * Thumb-2). The key schedule stores rk_0 .. rk_R packed, 6 words each.
 */
#include "bitslice.h"
#include "speedy/speedy.h"

#define SPEEDY_BS32_RK_WORDS (6 * (BS_SPEEDY_MAX_ROUNDS + 1))
_Static_assert(sizeof(uint32_t[SPEEDY_BS32_RK_WORDS]) <= BS_KS_MAX,
               "SPEEDY bs32 key schedule does not fit bs_key_schedule");

static void speedy_bs32_set_key(bs_key_schedule *ks, const uint8_t *key, unsigned rounds)
{
    uint8_t rk[(BS_SPEEDY_MAX_ROUNDS + 1) * BS_SPEEDY_BLOCK];
    uint32_t *w = (uint32_t *)ks->w;
    bs_speedy_round_keys(key, rounds, rk);
    for (unsigned r = 0; r <= rounds; r++)
        bs_speedy_pack32(w + 6 * r, rk + r * BS_SPEEDY_BLOCK);
    bs_wipe(rk, sizeof rk);
}

/* SubBox, ShiftColumns, SubBox on s (in place). */
static inline void sub_shift_sub(uint32_t s[6])
{
    uint32_t t[6];
    BS_SPEEDY_SUBBOX(uint32_t, t, s);
    for (unsigned j = 1; j < 6; j++)
        t[j] = bs_speedy_rol32(t[j], j);
    BS_SPEEDY_SUBBOX(uint32_t, s, t);
}

void bs_speedy_bs32_block(const uint32_t *rk, unsigned rounds, uint8_t *out, const uint8_t *in)
{
    uint32_t s[6];
    bs_speedy_pack32(s, in);
    for (unsigned j = 0; j < 6; j++)
        s[j] ^= rk[j];
    for (unsigned r = 1; r < rounds; r++) {
        rk += 6;
        sub_shift_sub(s);
        /* ShiftColumns then MixColumns: MixColumns is circulant, so (mix x) <<< j. */
        for (unsigned j = 0; j < 6; j++)
            s[j] = bs_speedy_rol32(bs_speedy_mix32(s[j]), j) ^ rk[j];
    }
    rk += 6;
    sub_shift_sub(s);
    for (unsigned j = 0; j < 6; j++)
        s[j] ^= rk[j];
    bs_speedy_unpack32(out, s);
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
    const bs_block_cipher bs_speedy##R##_bs32 =                                                    \
        {                                                                                          \
            "SPEEDY-" #R "-192",      "bs32", 24, 24, 1, speedy##R##_bs32_set_key,                 \
            speedy##R##_bs32_encrypt,                                                              \
    };

SPEEDY_BS32_CIPHER(5)
SPEEDY_BS32_CIPHER(6)
SPEEDY_BS32_CIPHER(7)
