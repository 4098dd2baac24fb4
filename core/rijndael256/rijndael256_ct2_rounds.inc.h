/*
 * rijndael256_ct2_rounds.inc.h: the two-block (and four-block) Rijndael-256 rounds of
 * rijndael256_ct2.h for one word type, a template include (bs_common.h). Its includer defines
 * BS_W (uint64_t, or a vector of them) and BS_SFX (ct2, ct4) and #undefs both after; defines
 * bs_r256_<SFX>_ror, _shiftrows1, _round, _sbox (rijndael256_sbox.inc.h) and _encrypt.
 * No include guard, on purpose.
 */
#define BS_R256_CT2_FN(x) BS_CAT(BS_CAT(bs_r256_, BS_SFX), x)

/*
 * ShiftRows: row r's column fields (bytes 2r, 2r + 1) rotate right by 0, 1, 3, 4. Then
 * MixColumns (unless last) with t_r = a_r ^ a_(r+1): a'_r = xtime(t_r) ^ a_(r+1) ^ t_(r+2);
 * xtime moves plane j to j + 1 and folds plane 7 into planes 0, 1, 3, 4 (0x1b). Then
 * AddRoundKey. For any word type W whose lanes are uint64_t (a scalar, or a vector of them
 * where the compiler offers one: every operation is lane-wise), round keys as uint64_t.
 */
BS_FN BS_W BS_R256_CT2_FN(_ror)(BS_W x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}
BS_FN BS_W BS_R256_CT2_FN(_shiftrows1)(BS_W x)
{
    return (x & 0x000000000000FFFFull) | ((x >> 1) & 0x000000007F7F0000ull) |
           ((x << 7) & 0x0000000080800000ull) | ((x >> 3) & 0x00001F1F00000000ull) |
           ((x << 5) & 0x0000E0E000000000ull) | ((x >> 4) & 0x0F0F000000000000ull) |
           ((x << 4) & 0xF0F0000000000000ull);
}
BS_FN void BS_R256_CT2_FN(_round)(BS_W *q, const uint64_t *rk, int last)
{
    for (int j = 0; j < 8; j++)
        q[j] = BS_R256_CT2_FN(_shiftrows1)(q[j]);
    if (!last) {
        BS_W n[8], t[8];
        for (int j = 0; j < 8; j++) {
            n[j] = BS_R256_CT2_FN(_ror)(q[j], 16);
            t[j] = q[j] ^ n[j];
        }
        q[0] = t[7] ^ n[0] ^ BS_R256_CT2_FN(_ror)(t[0], 32);
        q[1] = t[0] ^ t[7] ^ n[1] ^ BS_R256_CT2_FN(_ror)(t[1], 32);
        q[2] = t[1] ^ n[2] ^ BS_R256_CT2_FN(_ror)(t[2], 32);
        q[3] = t[2] ^ t[7] ^ n[3] ^ BS_R256_CT2_FN(_ror)(t[3], 32);
        q[4] = t[3] ^ t[7] ^ n[4] ^ BS_R256_CT2_FN(_ror)(t[4], 32);
        q[5] = t[4] ^ n[5] ^ BS_R256_CT2_FN(_ror)(t[5], 32);
        q[6] = t[5] ^ n[6] ^ BS_R256_CT2_FN(_ror)(t[6], 32);
        q[7] = t[6] ^ n[7] ^ BS_R256_CT2_FN(_ror)(t[7], 32);
    }
    for (int j = 0; j < 8; j++)
        q[j] ^= rk[j];
}
#define BS_R256_SBOX BS_R256_CT2_FN(_sbox)
#include "rijndael256_sbox.inc.h"
BS_FN void BS_R256_CT2_FN(_encrypt)(BS_W *q, const uint64_t *rk)
{
    for (int j = 0; j < 8; j++)
        q[j] ^= rk[j];
    for (int round = 1; round <= BS_R256_ROUNDS; round++) {
        BS_R256_CT2_FN(_sbox)(q, 1, q, 1);
        BS_R256_CT2_FN(_round)(q, rk + 8 * round, round == BS_R256_ROUNDS);
    }
}
#undef BS_R256_SBOX
#undef BS_R256_CT2_FN
