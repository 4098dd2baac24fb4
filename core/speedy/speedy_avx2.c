/*
 * SPEEDY-5/6/7-192, 256 blocks per pass on ymm registers (x86-64 with AVX2): the rounds of
 * speedy_avx512.c (speedy_wide.inc.h) on four-element words, with speedy.h's 54-operation
 * SubBox (AVX2 has no VPTERNLOGQ). valgrind executes AVX2, so this core is what the taint suite
 * checks of the wide SPEEDY code. Blocks are read and written element by element; in counter
 * mode only the low 32 counter bits differ between lanes and are made bitsliced in registers.
 * The key schedule is speedy_avx512.c's (speedy_variants.inc.h: bs64's lane masks, then the
 * 6x32 core's round keys): up to NARROW_MAX blocks run one by one in the 6x32 core, up to 64 in
 * bs64. Logic and shifts with constant indices only: constant time.
 */
#include "speedy.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)

#define BS_TARGET_AVX2
#include "../bs_target_begin.inc.h"

/* Up to this many blocks a call (or a call's tail) runs block by block in the 6x32 core. */
#define NARROW_MAX 20

/* Word of the transposed state that holds x[n] (speedy_bs64.c's SPEEDY_TWORD). */
#define TWORD(n) (64 * ((n) / 64) + 63 - (n) % 64)

typedef uint64_t v4 __attribute__((vector_size(32)));

#define SW_V v4
#define SW_G 4
#define SW_FN(f) f##_avx2
#define SW_XOR3(a, b, c) ((a) ^ (b) ^ (c))
#define SW_SUBBOX(y0, y1, y2, y3, y4, y5, x0, x1, x2, x3, x4, x5)                                  \
    BS_SPEEDY_SUBBOX6(v4, y0, y1, y2, y3, y4, y5, x0, x1, x2, x3, x4, x5)
#include "speedy_wide.inc.h"

static inline const uint32_t *rk32(const bs_key_schedule *ks)
{
    return (const uint32_t *)(ks->w + BS_SPEEDY_BS64_RK_WORDS);
}

static const bs_block_cipher *bs64_of(unsigned nr)
{
    return nr == 5 ? &bs_speedy5_bs64 : nr == 6 ? &bs_speedy6_bs64 : &bs_speedy7_bs64;
}

static void avx2_encrypt(const bs_key_schedule *ks, unsigned nr, uint8_t *out, const uint8_t *in,
                         size_t nblocks)
{
    BS_ALIGN(32) v4 t[192];
    while (nblocks > 64) {
        const size_t n = nblocks < 256 ? nblocks : 256;
        load_blocks_avx2(t, in, n);
        part_out_avx2(ks->w, nr, t, n, out);
        in += n * BS_SPEEDY_BLOCK;
        out += n * BS_SPEEDY_BLOCK;
        nblocks -= n;
    }
    bs_wipe(t, sizeof t);
    if (nblocks > NARROW_MAX)
        bs64_of(nr)->encrypt(ks, out, in, nblocks);
    else
        for (size_t i = 0; i < nblocks; i++)
            bs_speedy_bs32_block(rk32(ks), nr, out + BS_SPEEDY_BLOCK * i, in + BS_SPEEDY_BLOCK * i);
}

static void avx2_ctr32(const bs_key_schedule *ks, unsigned nr, const uint8_t *counter,
                       const uint8_t *in, uint8_t *out, size_t nblocks)
{
    const uint64_t c0 = bs_load_be64(counter), c1 = bs_load_be64(counter + 8),
                   c2 = bs_load_be64(counter + 16);
    const uint64_t hi = c2 & 0xffffffff00000000ULL;
    uint32_t lo = (uint32_t)c2;
    uint8_t buf[256 * BS_SPEEDY_BLOCK];
    while (nblocks > 0) {
        const size_t n = nblocks < 256 ? nblocks : 256;
        if (n > 64) {
            part_ctr_avx2(ks->w, nr, c0, c1, hi, lo, n, buf);
        } else {
            for (size_t i = 0; i < n; i++) {
                memcpy(buf + BS_SPEEDY_BLOCK * i, counter, 20);
                bs_store_be32(buf + BS_SPEEDY_BLOCK * i + 20, (uint32_t)(lo + i));
            }
            avx2_encrypt(ks, nr, buf, buf, n);
        }
        for (size_t i = 0; i < n * BS_SPEEDY_BLOCK; i++)
            out[i] = (uint8_t)(buf[i] ^ (in != NULL ? in[i] : 0));
        lo += (uint32_t)n;
        if (in != NULL)
            in += n * BS_SPEEDY_BLOCK;
        out += n * BS_SPEEDY_BLOCK;
        nblocks -= n;
    }
    bs_wipe(buf, sizeof buf);
}

#include "../bs_target_end.inc.h"

/* The registry entries and the key schedule (speedy_variants.inc.h), as in speedy_avx512.c. */
#define BS_SFX BS_TARGET_NAME
#define SPV_ENCRYPT avx2_encrypt
#define SPV_CTR32 avx2_ctr32
/*
 * CTR's batch: a ymm pass, on a stream's first call from 65 blocks on. Measured (SPEEDY-7,
 * keystream of n blocks, rdtsc, Zen 5): 256 blocks 11934 TSC, 65 to 255 10426 to 11830 (within
 * 13 % of the whole pass), 64 5694 (bs64), 1 416.
 */
#define SPV_BATCH 256
#define SPV_BATCH_FROM 65
#include "speedy_variants.inc.h"
#undef BS_SFX
#undef SPV_ENCRYPT
#undef SPV_CTR32
#undef SPV_BATCH
#undef SPV_BATCH_FROM

#endif
