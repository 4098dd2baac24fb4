/*
 * bench.c: the benchmark firmware for the MCU cores. Each measured region is a "window"
 * between bsemb_mark_begin() and bsemb_mark_end(), read with the cycle counter of the core:
 * DWT CYCCNT on Cortex-M3/M4, mcycle on RISC-V. On a board those are cycles. Under QEMU,
 * CYCCNT reads 0 and mcycle counts retired instructions only with -icount shift=0; the
 * instruction-count plugin (insn_plugin.c) counts the instructions executed inside each window
 * by watching the two marker functions, and embedded/bench/run.py joins its counts with the
 * lines printed here:
 *
 *   W <window> <label> <bytes> <counter delta>
 *
 * and at the end one line per core with the counter per block and per byte, packing included
 * and excluded ("S ..."): on a board, cycles.
 *
 * Window 0 is empty: its count is the measuring overhead, which run.py subtracts.
 */
#include <stdio.h>
#include <string.h>

#include "aes/aes.h"
#include "bitslice.h"
#include "gift/gift.h"
#include "present/present.h"
#include "rijndael256/rijndael256.h"
#include "skinny/skinny.h"
#include "speedy/speedy.h"
#include "aes/aes_ctr_face.h"
#include "aes/aes_masked.h"
#include "modes/ctr.h"
#include "modes/gcm128.h"

#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

static void counter_init(void)
{
    DEMCR |= 1u << 24; /* TRCENA */
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u; /* CYCCNTENA */
}

static inline uint32_t counter_read(void)
{
    return DWT_CYCCNT;
}
#define COUNTER_NAME "DWT CYCCNT"
#elif defined(__riscv)
static void counter_init(void) {}

static inline uint32_t counter_read(void)
{
    uint32_t v;
    /* -march=rv32i keeps the multilib; the CSR instruction is enabled here only */
    __asm__ __volatile__(".option push\n.option arch, +zicsr\ncsrr %0, mcycle\n.option pop"
                         : "=r"(v));
    return v;
}
#define COUNTER_NAME "mcycle"
#else
static void counter_init(void) {}

static inline uint32_t counter_read(void)
{
    return 0;
}
#define COUNTER_NAME "none"
#endif

/*
 * The plugin watches these two entry points: noinline, and with different bodies so that no
 * identical-code folding merges them.
 */
volatile unsigned bsemb_mark_sink;

__attribute__((noinline)) void bsemb_mark_begin(void)
{
    bsemb_mark_sink = 1;
}

__attribute__((noinline)) void bsemb_mark_end(void)
{
    bsemb_mark_sink = 2;
}

static unsigned window;
static uint32_t t0;

/* Every window's counter delta, for the summary at the end. */
#define MAX_WINDOWS 96
static struct {
    char label[40];
    unsigned bytes;
    uint32_t delta;
} seen[MAX_WINDOWS];

static inline void begin(void)
{
    t0 = counter_read();
    bsemb_mark_begin();
}

static void end(const char *label, unsigned bytes)
{
    bsemb_mark_end();
    uint32_t t1 = counter_read();
    if (window < MAX_WINDOWS) {
        snprintf(seen[window].label, sizeof seen[window].label, "%s", label);
        seen[window].bytes = bytes;
        seen[window].delta = t1 - t0;
    }
    printf("W %u %s %u %lu\n", window++, label, bytes, (unsigned long)(t1 - t0));
}

static uint32_t delta_of(const char *label)
{
    for (unsigned i = 0; i < window && i < MAX_WINDOWS; i++)
        if (strcmp(seen[i].label, label) == 0)
            return seen[i].delta - seen[0].delta; /* minus the empty window */
    return 0;
}

/* Counter per block and per byte (to a tenth), packing included and excluded. */
static void summary(const bs_block_cipher *c, const char *label)
{
    char name[64];
    snprintf(name, sizeof name, "%s/encrypt", label);
    uint32_t d = delta_of(name);
    unsigned bytes = c->lanes * c->block_len;
    uint32_t pack =
        c->block_len == 32
            ? delta_of("RIJNDAEL-256/ct32/pack") + delta_of("RIJNDAEL-256/ct32/unpack")
        : strncmp(c->name, "AES-", 4) == 0    ? delta_of("AES/pack") + delta_of("AES/unpack")
        : strncmp(c->name, "SKINNY-", 7) == 0 ? delta_of("SKINNY/pack") + delta_of("SKINNY/unpack")
                                              : delta_of("nibble/pack+unpack");
    if (c->block_len == 24)
        pack = delta_of("SPEEDY/bs32/pack") + delta_of("SPEEDY/bs32/unpack");
    uint32_t excl = d > pack ? d - pack : 0;
    printf("S %s: %lu per block, %lu.%lu per byte; packing excluded %lu.%lu per byte\n", label,
           (unsigned long)(d / c->lanes), (unsigned long)(d / bytes),
           (unsigned long)(d * 10 / bytes % 10), (unsigned long)(excl / bytes),
           (unsigned long)(excl * 10 / bytes % 10));
}

static bs_key_schedule ks;
static uint8_t buf[64], key[BS_KEY_MAX];
static uint32_t q[8];
static bs_ctr_ctx ctr_ctx;
static bs_aes_face_ctx face_ctx;
static bs_gcm128_ctx gcm_ctx;
static uint64_t ghash_key[BS_GHASH128_HKEY_WORDS];
static uint8_t ctr_buf[16384], ctr_iv[16];

/* The masked core's randomness here: xorshift32, a stand-in for a board's TRNG (its cost is
 * measured alone, in the same chunks, so that it can be taken out). */
static void bench_rng(void *ctx, uint32_t *out, size_t n)
{
    uint32_t x = *(uint32_t *)ctx;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i] = x;
    }
    *(uint32_t *)ctx = x;
}

static bs_aes128_masked_key masked_key;
static bs_aes256_masked_key masked_key256;

static void bench_masked(void)
{
    uint32_t state = 0x2545f491u, words[BS_AES_MASKED_RAND_ENC];
    begin();
    bs_aes128_masked_set_key(&masked_key, key, bench_rng, &state);
    end("AES-128/masked32/set_key", 0);
    bs_aes128_masked_2blocks(&masked_key, buf, buf, bench_rng, &state);
    begin();
    bs_aes128_masked_2blocks(&masked_key, buf, buf, bench_rng, &state);
    end("AES-128/masked32/encrypt", 32);
    /* the randomness of one call alone: one draw of 10 words, through a function pointer as
     * the core calls it (a direct call here let GCC inline and unroll the loop: 1.7 est. c/B
     * against the 3.1 the callback costs inside a call) */
    bs_aes_rng_fn volatile rng_fn = bench_rng;
    begin();
    rng_fn(&state, words, BS_AES_MASKED_RAND_ENC);
    end("AES-128/masked32/rng", 32);
    buf[0] ^= (uint8_t)words[0];
    begin();
    bs_aes256_masked_set_key(&masked_key256, key, bench_rng, &state);
    end("AES-256/masked32/set_key", 0);
    bs_aes256_masked_2blocks(&masked_key256, buf, buf, bench_rng, &state);
    begin();
    bs_aes256_masked_2blocks(&masked_key256, buf, buf, bench_rng, &state);
    end("AES-256/masked32/encrypt", 32);
    /* the value-model variant: its key setup, one word a call */
    begin();
    bs_aes128_maskedv_set_key(&masked_key, key, bench_rng, &state);
    end("AES-128/masked32v/set_key", 0);
    bs_aes256_maskedv_set_key(&masked_key256, key, bench_rng, &state);
    bs_aes128_maskedv_2blocks(&masked_key, buf, buf, bench_rng, &state);
    begin();
    bs_aes128_maskedv_2blocks(&masked_key, buf, buf, bench_rng, &state);
    end("AES-128/masked32v/encrypt", 32);
    begin();
    rng_fn(&state, words, BS_AES_MASKEDV_RAND_ENC);
    end("AES-128/masked32v/rng", 32);
    buf[0] ^= (uint8_t)words[0];
    bs_aes256_maskedv_2blocks(&masked_key256, buf, buf, bench_rng, &state);
    begin();
    bs_aes256_maskedv_2blocks(&masked_key256, buf, buf, bench_rng, &state);
    end("AES-256/masked32v/encrypt", 32);
}

static void bench_cipher(const bs_block_cipher *c, const char *label)
{
    char name[64];
    size_t nb = c->lanes; /* one full pass */
    for (size_t i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(i * 7 + 1);
    snprintf(name, sizeof name, "%s/set_key", label);
    begin();
    c->set_key(&ks, key);
    end(name, 0);
    /* warm: the first pass pays nothing extra on a board without caches, but keep it fair */
    c->encrypt(&ks, buf, buf, nb);
    snprintf(name, sizeof name, "%s/encrypt", label);
    /* The byte count before the window opens: on RV32I a multiply is a __mulsi3 call. */
    const unsigned bytes = (unsigned)(nb * c->block_len);
    begin();
    c->encrypt(&ks, buf, buf, nb);
    end(name, bytes);
}

int main(void)
{
    counter_init();
    printf("bitslice MCU benchmark, counter: " COUNTER_NAME "\n");
    begin();
    end("empty", 0);

    bench_cipher(&bs_present80_bs32, "PRESENT-80/bs32");
    bench_cipher(&bs_present128_bs32, "PRESENT-128/bs32");
    bench_cipher(&bs_gift64_fix32, "GIFT-64/fix32");
#if defined(BS_GIFT64_THUMB2)
    bench_cipher(&bs_gift64_thumb2, "GIFT-64/thumb2"); /* Cortex-M3/M4: the assembly */
#endif
    bench_cipher(&bs_gift128_fix32, "GIFT-128/fix32");
    bench_cipher(&bs_rijndael256_ct32, "RIJNDAEL-256/ct32");

    /* packing alone: the nibble slicing of PRESENT and GIFT (128 bits), Rijndael-256's */
    uint32_t w[4] = {1, 2, 3, 4}, s[4];
    begin();
    bs_mcu_nibble_pack(s, w);
    bs_mcu_nibble_unpack(w, s);
    end("nibble/pack+unpack", 16);

    /* Rijndael-256 by component, one call each */
    const uint32_t *rk = (const uint32_t *)ks.w; /* Rijndael-256's, set last above */
    begin();
    bs_r256ct32_pack(q, buf);
    end("RIJNDAEL-256/ct32/pack", 32);
    begin();
    bs_r256ct32_subbytes(q);
    end("RIJNDAEL-256/ct32/subbytes", 32);
    begin();
    bs_r256ct32_shiftrows(q);
    end("RIJNDAEL-256/ct32/shiftrows", 32);
    begin();
    bs_r256ct32_mixcolumns(q);
    end("RIJNDAEL-256/ct32/mixcolumns", 32);
    begin();
    bs_r256ct32_addroundkey(q, rk);
    end("RIJNDAEL-256/ct32/addroundkey", 32);
    begin();
    bs_r256ct32_unpack(buf, q);
    end("RIJNDAEL-256/ct32/unpack", 32);
    /* AES, then by component, one call each, on two blocks (AES-128 fix32's round keys) */
    bench_cipher(&bs_aes256_fix32, "AES-256/fix32");
    bench_cipher(&bs_aes128_semifix32, "AES-128/semifix32");
    bench_cipher(&bs_aes256_semifix32, "AES-256/semifix32");
    bench_cipher(&bs_aes128_fix32, "AES-128/fix32");
    rk = (const uint32_t *)ks.w;
    begin();
    bs_aes_part_pack(q, buf);
    end("AES/pack", 32);
    begin();
    bs_aes_part_subbytes(q);
    end("AES/subbytes", 32);
    begin();
    bs_aes_part_mixcolumns0(q);
    end("AES/mixcolumns0", 32);
    begin();
    bs_aes_part_mixcolumns1(q);
    end("AES/mixcolumns1", 32);
    begin();
    bs_aes_part_mixcolumns2(q);
    end("AES/mixcolumns2", 32);
    begin();
    bs_aes_part_mixcolumns3(q);
    end("AES/mixcolumns3", 32);
    begin();
    bs_aes_part_sr2(q);
    end("AES/sr2", 32);
    begin();
    bs_aes_part_addroundkey(q, rk);
    end("AES/addroundkey", 32);
    begin();
    bs_aes_part_unpack(buf, q);
    end("AES/unpack", 32);

    bench_masked();

    /* long AES-CTR (16 KiB, four epochs of the FACE cache) without and with FACE caching */
    for (size_t key_len = 16; key_len <= 32; key_len += 16) {
        const bs_block_cipher *c = key_len == 16 ? &bs_aes128_fix32 : &bs_aes256_fix32;
        char name[24];
        memset(ctr_iv, 0, sizeof ctr_iv);
        bs_ctr_set_key(&ctr_ctx, c, key, key_len);
        bs_ctr_set_iv(&ctr_ctx, ctr_iv, 16);
        snprintf(name, sizeof name, "%s/ctr-plain", c->name);
        begin();
        bs_ctr_crypt(&ctr_ctx, ctr_buf, ctr_buf, sizeof ctr_buf);
        end(name, sizeof ctr_buf);
        bs_aes_face_set_key(&face_ctx, key, key_len);
        bs_aes_face_set_iv(&face_ctx, ctr_iv, 16);
        snprintf(name, sizeof name, "%s/ctr-face", c->name);
        begin();
        bs_aes_face_crypt(&face_ctx, ctr_buf, ctr_buf, sizeof ctr_buf);
        end(name, sizeof ctr_buf);
    }

    /* SKINNY-128 fixsliced, then by component, one call each on a packed pair (state in
     * memory between calls; SKINNY-128-384's round tweakeys, set last) */
    bench_cipher(&bs_skinny128_128_fix32, "SKINNY-128-128/fix32");
    bench_cipher(&bs_skinny128_256_fix32, "SKINNY-128-256/fix32");
    bench_cipher(&bs_skinny128_384_fix32, "SKINNY-128-384/fix32");
    rk = (const uint32_t *)ks.w;
    begin();
    bs_skinny_fix32_pack(q, buf, buf + 16);
    end("SKINNY/pack", 32);
    begin();
    bs_skinny_fix32_sbox(q);
    end("SKINNY/sbox", 32);
    begin();
    bs_skinny_fix32_addkey(q, rk);
    end("SKINNY/addkey", 32);
    begin();
    bs_skinny_fix32_mixcolumns(q);
    end("SKINNY/mixcolumns", 32);
    begin();
    bs_skinny_fix32_unpack(buf, buf + 16, q);
    end("SKINNY/unpack", 32);

    /* AES-128-GCM over 16 KiB (new IV, 16 bytes of AAD, data, tag) with each GHASH-128, CTR
     * plain and through FACE; then GHASH-128 alone over the same 16 KiB */
    static const bs_ghash128_impl *const ghashes[] = {&bs_ghash128_ctmul32, &bs_ghash128_ctshift32,
                                                      &bs_ghash128_table4_not_ct};
    for (size_t g = 0; g < 3; g++) {
        for (int f = 0; f < 2; f++) {
            char name[40];
            uint8_t tag[16];
            bs_gcm128_set_key(&gcm_ctx, bs_block_cipher_by_name("AES-128"), key, 16);
            bs_gcm128_set_ghash(&gcm_ctx, ghashes[g]);
            if (f) {
                bs_aes_face_set_key(&face_ctx, key, 16);
                bs_gcm128_set_face(&gcm_ctx, &face_ctx);
            }
            snprintf(name, sizeof name, "GCM128/%s/%s", ghashes[g]->name, f ? "face" : "plain");
            begin();
            bs_gcm128_set_iv(&gcm_ctx, ctr_iv, 12);
            bs_gcm128_aad(&gcm_ctx, key, 16);
            bs_gcm128_encrypt(&gcm_ctx, ctr_buf, ctr_buf, sizeof ctr_buf);
            bs_gcm128_tag(&gcm_ctx, tag, 16);
            end(name, sizeof ctr_buf);
        }
        char name[40];
        uint8_t y[16] = {0};
        ghashes[g]->init(ghash_key, key);
        snprintf(name, sizeof name, "GHASH128/%s", ghashes[g]->name);
        begin();
        ghashes[g]->mul_blocks(ghash_key, y, ctr_buf, sizeof ctr_buf / 16);
        end(name, sizeof ctr_buf);
        ctr_buf[0] ^= y[0];
    }

    /* SPEEDY-r-192 in the 6x32 layout, then by component (one call each) on SPEEDY-7's keys */
    bench_cipher(&bs_speedy5_bs32, "SPEEDY-5-192/bs32");
    bench_cipher(&bs_speedy6_bs32, "SPEEDY-6-192/bs32");
    bench_cipher(&bs_speedy7_bs32, "SPEEDY-7-192/bs32");
    begin();
    bs_speedy_bs32_pack(q, buf);
    end("SPEEDY/bs32/pack", 24);
    begin();
    bs_speedy_bs32_subbox(q);
    end("SPEEDY/bs32/subbox", 24);
    begin();
    bs_speedy_bs32_shiftcolumns(q);
    end("SPEEDY/bs32/shiftcolumns", 24);
    begin();
    bs_speedy_bs32_mixcolumns(q);
    end("SPEEDY/bs32/mixcolumns", 24);
    begin();
    bs_speedy_bs32_addroundkey(q, (const uint32_t *)ks.w);
    end("SPEEDY/bs32/addroundkey", 24);
    begin();
    bs_speedy_bs32_unpack(buf, q);
    end("SPEEDY/bs32/unpack", 24);

    printf("windows: %u\n", window);
    /* On a board these are cycles; under QEMU zero on Cortex-M and, with -icount shift=0,
     * instructions on RISC-V. */
    printf("summary (" COUNTER_NAME "):\n");
    summary(&bs_present80_bs32, "PRESENT-80/bs32");
    summary(&bs_present128_bs32, "PRESENT-128/bs32");
    summary(&bs_gift64_fix32, "GIFT-64/fix32");
#if defined(BS_GIFT64_THUMB2)
    summary(&bs_gift64_thumb2, "GIFT-64/thumb2");
#endif
    summary(&bs_gift128_fix32, "GIFT-128/fix32");
    summary(&bs_rijndael256_ct32, "RIJNDAEL-256/ct32");
    summary(&bs_aes128_fix32, "AES-128/fix32");
    summary(&bs_aes256_fix32, "AES-256/fix32");
    summary(&bs_aes128_semifix32, "AES-128/semifix32");
    summary(&bs_aes256_semifix32, "AES-256/semifix32");
    printf("S AES-128/masked32: %lu per byte, randomness alone %lu per byte\n",
           (unsigned long)(delta_of("AES-128/masked32/encrypt") / 32),
           (unsigned long)(delta_of("AES-128/masked32/rng") / 32));
    printf("S AES-128/masked32v: %lu per byte, randomness alone %lu per byte\n",
           (unsigned long)(delta_of("AES-128/masked32v/encrypt") / 32),
           (unsigned long)(delta_of("AES-128/masked32v/rng") / 32));
    summary(&bs_skinny128_128_fix32, "SKINNY-128-128/fix32");
    summary(&bs_skinny128_256_fix32, "SKINNY-128-256/fix32");
    summary(&bs_skinny128_384_fix32, "SKINNY-128-384/fix32");
    summary(&bs_speedy5_bs32, "SPEEDY-5-192/bs32");
    summary(&bs_speedy6_bs32, "SPEEDY-6-192/bs32");
    summary(&bs_speedy7_bs32, "SPEEDY-7-192/bs32");
    return 0;
}
