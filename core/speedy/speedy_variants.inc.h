/*
 * speedy_variants.inc.h: the registry entries of SPEEDY-5/6/7-192 for one x86 file (a template
 * include, bs_common.h): speedy_avx512.c and speedy_avx2.c include it once, after their
 * drivers, after their target region (bs_target_begin.inc.h: BS_TARGET_LEVEL), with BS_SFX
 * defined as their impl name (avx512, avx2), SPV_ENCRYPT(ks, nr, out, in, n) and SPV_CTR32(ks,
 * nr, ctr, in, out, n) naming those drivers, and SPV_BATCH and SPV_BATCH_FROM the descriptors'
 * batch and batch_from (bitslice.h). It defines bs_speedy{5,6,7}_SFX, with their counter mode.
 *
 * The key schedule is the same for both files: bs64's lane masks (broadcast by the passes),
 * then the 6x32 core's round keys (the few-block path). bs64 and bs32 export no compact keys,
 * nor does this. No include guard, on purpose.
 */
_Static_assert(8 * BS_SPEEDY_BS64_RK_WORDS + 4 * BS_SPEEDY_BS32_RK_WORDS <= BS_KS_MAX,
               "SPEEDY wide key schedule does not fit bs_key_schedule");

#define SPV_STR_(x) #x
#define SPV_STR(x) SPV_STR_(x)

static void spv_set_key(bs_key_schedule *ks, const uint8_t *key, const bs_block_cipher *bs64,
                        const bs_block_cipher *bs32)
{
    bs_key_schedule k32;
    bs64->set_key(ks, key);
    bs32->set_key(&k32, key);
    memcpy(ks->w + BS_SPEEDY_BS64_RK_WORDS, k32.w, 4 * BS_SPEEDY_BS32_RK_WORDS);
    bs_wipe(k32.w, 4 * BS_SPEEDY_BS32_RK_WORDS);
}

static void speedy5_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    spv_set_key(ks, key, &bs_speedy5_bs64, &bs_speedy5_bs32);
}

static void speedy6_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    spv_set_key(ks, key, &bs_speedy6_bs64, &bs_speedy6_bs32);
}

static void speedy7_set_key(bs_key_schedule *ks, const uint8_t *key)
{
    spv_set_key(ks, key, &bs_speedy7_bs64, &bs_speedy7_bs32);
}

static void speedy5_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in, size_t n)
{
    SPV_ENCRYPT(ks, 5, out, in, n);
}

static void speedy6_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in, size_t n)
{
    SPV_ENCRYPT(ks, 6, out, in, n);
}

static void speedy7_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in, size_t n)
{
    SPV_ENCRYPT(ks, 7, out, in, n);
}

static void speedy5_ctr32(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                          uint8_t *out, size_t n)
{
    SPV_CTR32(ks, 5, ctr, in, out, n);
}

static void speedy6_ctr32(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                          uint8_t *out, size_t n)
{
    SPV_CTR32(ks, 6, ctr, in, out, n);
}

static void speedy7_ctr32(const bs_key_schedule *ks, const uint8_t *ctr, const uint8_t *in,
                          uint8_t *out, size_t n)
{
    SPV_CTR32(ks, 7, ctr, in, out, n);
}

const bs_block_cipher BS_TPL(bs_speedy5) = {
    .name = "SPEEDY-5-192",
    .impl = SPV_STR(BS_SFX),
    .level = BS_TARGET_LEVEL,
    .key_len = 24,
    .block_len = 24,
    .lanes = 64,
    .set_key = speedy5_set_key,
    .encrypt = speedy5_encrypt,
    .ctr32 = speedy5_ctr32,
    .batch = SPV_BATCH,
    .batch_from = SPV_BATCH_FROM,
};
const bs_block_cipher BS_TPL(bs_speedy6) = {
    .name = "SPEEDY-6-192",
    .impl = SPV_STR(BS_SFX),
    .level = BS_TARGET_LEVEL,
    .key_len = 24,
    .block_len = 24,
    .lanes = 64,
    .set_key = speedy6_set_key,
    .encrypt = speedy6_encrypt,
    .ctr32 = speedy6_ctr32,
    .batch = SPV_BATCH,
    .batch_from = SPV_BATCH_FROM,
};
const bs_block_cipher BS_TPL(bs_speedy7) = {
    .name = "SPEEDY-7-192",
    .impl = SPV_STR(BS_SFX),
    .level = BS_TARGET_LEVEL,
    .key_len = 24,
    .block_len = 24,
    .lanes = 64,
    .set_key = speedy7_set_key,
    .encrypt = speedy7_encrypt,
    .ctr32 = speedy7_ctr32,
    .batch = SPV_BATCH,
    .batch_from = SPV_BATCH_FROM,
};

#undef SPV_STR_
#undef SPV_STR
