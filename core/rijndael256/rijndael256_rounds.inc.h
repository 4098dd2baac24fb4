/*
 * rijndael256_rounds.inc.h: the bitsliced Rijndael-256 rounds and whole cipher for one word type,
 * a template include (bs_common.h). Its includer defines BS_W (the state's word), BS_KW (the
 * round-key mask's word; a wider mask serves through its low part), BS_SFX (the name suffix) and
 * BS_R256_SBOX (an instance of rijndael256_sbox.inc.h for BS_W), and #undefs them after. Defines
 * bs_r256_round<SFX>_last, bs_r256_round<SFX>_mix and bs_r256_encrypt<SFX>.
 * No include guard, on purpose.
 */
#define BS_R256_ROUND_LAST BS_CAT(BS_CAT(bs_r256_round, BS_SFX), _last)
#define BS_R256_ROUND_MIX BS_CAT(BS_CAT(bs_r256_round, BS_SFX), _mix)
#define BS_R256_ENCRYPT BS_CAT(bs_r256_encrypt, BS_SFX)

/*
 * One round after SubBytes, for any word type: ShiftRows, MixColumns (unless last) and
 * AddRoundKey, from u to s. u holds the S-box outputs with each row stored twice (plane j, row r,
 * column c at u[64j + 16r + c] and u[64j + 16r + 8 + c]), so that the rotated row that ShiftRows
 * reads is a contiguous run: row r of column c after ShiftRows is u[64j + 16r + shift[r] + c].
 * MixColumns: out_r = a_r ^ t ^ xtime(a_r ^ a_(r+1)) with t = a0 ^ a1 ^ a2 ^ a3; xtime on planes
 * is a renaming (plane j - 1 to plane j) plus the reduction by 0x1b (plane 7 into 1, 3 and 4).
 * Every innermost loop runs over the 8 columns with unit stride, so that compilers vectorize it.
 */
BS_FN void BS_R256_ROUND_LAST(BS_W *s, const BS_W *u, const BS_KW *k)
{
    for (int j = 0; j < 8; j++)
        for (int c = 0; c < 8; c++) {
            const BS_W *uj = u + 64 * j + c;
            s[32 * j + c] = uj[0] ^ (BS_W)k[32 * j + c];
            s[32 * j + 8 + c] = uj[16 + 1] ^ (BS_W)k[32 * j + 8 + c];
            s[32 * j + 16 + c] = uj[32 + 3] ^ (BS_W)k[32 * j + 16 + c];
            s[32 * j + 24 + c] = uj[48 + 4] ^ (BS_W)k[32 * j + 24 + c];
        }
}
BS_FN void BS_R256_ROUND_MIX(BS_W *s, const BS_W *u, const BS_KW *k)
{
    BS_W v[4][8][8]; /* v[r][j][c] = plane j of a_r ^ a_(r+1) in column c */
    for (int j = 0; j < 8; j++)
        for (int c = 0; c < 8; c++) {
            const BS_W *uj = u + 64 * j + c;
            const BS_W a0 = uj[0], a1 = uj[16 + 1], a2 = uj[32 + 3], a3 = uj[48 + 4];
            v[0][j][c] = a0 ^ a1;
            v[1][j][c] = a1 ^ a2;
            v[2][j][c] = a2 ^ a3;
            v[3][j][c] = a3 ^ a0;
        }
    for (int j = 0; j < 8; j++) {
        const int jm = (j + 7) & 7;
        const BS_W red = (j == 1 || j == 3 || j == 4) ? (BS_W) ~(BS_W)0 : (BS_W)0;
        for (int c = 0; c < 8; c++) {
            const BS_W *uj = u + 64 * j + c;
            const BS_KW *kj = k + 32 * j + c;
            BS_W *sj = s + 32 * j + c;
            const BS_W t = v[0][j][c] ^ v[2][j][c];
            sj[0] = uj[0] ^ t ^ v[0][jm][c] ^ (v[0][7][c] & red) ^ (BS_W)kj[0];
            sj[8] = uj[16 + 1] ^ t ^ v[1][jm][c] ^ (v[1][7][c] & red) ^ (BS_W)kj[8];
            sj[16] = uj[32 + 3] ^ t ^ v[2][jm][c] ^ (v[2][7][c] & red) ^ (BS_W)kj[16];
            sj[24] = uj[48 + 4] ^ t ^ v[3][jm][c] ^ (v[3][7][c] & red) ^ (BS_W)kj[24];
        }
    }
}

/* The whole cipher on one bitsliced state q (256 words) with round keys as masks (15 * 256 words).
 */
BS_FN void BS_R256_ENCRYPT(BS_W *q, const BS_KW *rk)
{
    BS_W u[2 * BS_R256_WORDS];
    for (int i = 0; i < BS_R256_WORDS; i++)
        q[i] ^= (BS_W)rk[i];
    for (int round = 1; round <= BS_R256_ROUNDS; round++) {
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 8; c++) {
                BS_W y[8];
                BS_R256_SBOX(y, 1, q + 8 * r + c, 32);
                for (int j = 0; j < 8; j++) {
                    u[64 * j + 16 * r + c] = y[j];
                    u[64 * j + 16 * r + 8 + c] = y[j];
                }
            }
        if (round != BS_R256_ROUNDS)
            BS_R256_ROUND_MIX(q, u, rk + BS_R256_WORDS * round);
        else
            BS_R256_ROUND_LAST(q, u, rk + BS_R256_WORDS * round);
    }
}

#undef BS_R256_ROUND_LAST
#undef BS_R256_ROUND_MIX
#undef BS_R256_ENCRYPT
