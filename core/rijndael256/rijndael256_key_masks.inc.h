/*
 * rijndael256_key_masks.inc.h: bs_r256_key_masks<SFX> for one word type, a template include
 * (bs_common.h): its includer defines BS_W and BS_SFX and #undefs both after.
 * No include guard, on purpose.
 */
/*
 * Widens the expanded key into the mask layout above (15 * 256 words); round keys 1..14 absorb
 * the S-box constant 0x63 that the circuit leaves out. The inner loops run over consecutive
 * words (index 8r + c reads byte r + 4c), so that compilers vectorize them.
 */
BS_FN void BS_CAT(bs_r256_key_masks, BS_SFX)(BS_W *rk, const uint8_t *w)
{
    for (int round = 0; round <= BS_R256_ROUNDS; round++) {
        BS_W b[32];
        for (int i = 0; i < 32; i++)
            b[i] = (BS_W)(w[32 * round + 4 * (i & 7) + (i >> 3)] ^ (round ? 0x63u : 0u));
        for (int j = 0; j < 8; j++)
            for (int i = 0; i < 32; i++)
                rk[BS_R256_WORDS * round + 32 * j + i] = (BS_W)0 - ((b[i] >> j) & 1);
    }
}
