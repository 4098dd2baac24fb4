/*
 * keystream.c: the in-process keystream source and the fill-with-fallback the modes call
 * (keystream.h).
 */
#include "keystream.h"

void bs_ctr_add(uint8_t *counter, size_t len, uint64_t n)
{
    /* Public data only: the counter is not secret in CTR. */
    uint64_t carry = n;
    size_t i = len;
    if (len >= 8) {
        /* The low 8 bytes as one word (every call of a stream's modes and checks comes here). */
        const uint64_t low = bs_load_be64(counter + len - 8), sum = low + n;
        bs_store_be64(counter + len - 8, sum);
        carry = sum < low; /* into the bytes above */
        i = len - 8;
    }
    while (i-- > 0 && carry != 0) {
        uint64_t sum = (uint64_t)counter[i] + (carry & 0xff);
        counter[i] = (uint8_t)sum;
        carry = (carry >> 8) + (sum >> 8);
    }
}

void bs_keystream_advance(uint8_t *counter, size_t len, uint64_t n, int step)
{
    if (step == BS_KS_STEP_INC32)
        bs_store_be32(counter + len - 4, bs_load_be32(counter + len - 4) + (uint32_t)n);
    else
        bs_ctr_add(counter, len, n);
}

/*
 * 64-bit hosts: a plain byte loop, which compilers vectorize (with an overlap check; 8-byte
 * pieces through memcpy they did not: measured with callgrind, 0.57 against 0.47 Ir per byte).
 * 32-bit targets (the MCUs) have no vector unit for it: by bytes costs about 6 instructions a
 * byte there, so whole words, four at a time, where loading them is one instruction: at any
 * alignment where the core allows unaligned words (ARMv7-M, x86), else (RV32I) where out, in
 * and ks agree modulo 4, after the bytes up to out's next word; the rest by bytes. The tests
 * are on addresses and lengths only, and no word reaches past the n bytes.
 */
#if UINTPTR_MAX == 0xffffffffu
#if defined(__ARM_FEATURE_UNALIGNED) || defined(__i386__)
#define XOR_ALIGN 1 /* unaligned words cost nothing */
#else
#define XOR_ALIGN 4
#endif
/* a word that may alias the bytes (one load or store even at -O0, where memcpy is a call) */
typedef uint32_t __attribute__((may_alias, aligned(XOR_ALIGN))) xor_word_t;

static inline void xor_word(uint8_t *out, const uint8_t *in, const uint8_t *ks)
{
    *(xor_word_t *)(void *)out =
        *(const xor_word_t *)(const void *)in ^ *(const xor_word_t *)(const void *)ks;
}
#endif

#if defined(__GNUC__) || defined(__clang__)
#define XOR_INLINE static inline __attribute__((always_inline))
#else
#define XOR_INLINE static inline
#endif

/* Inlined where the in-process passes XOR (two blocks a call for the MCU cores: a call's
 * saves and checks would cost as much as the words). */
XOR_INLINE void xor_bytes(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
#if UINTPTR_MAX == 0xffffffffu
    if ((((uintptr_t)out ^ (uintptr_t)in) | ((uintptr_t)out ^ (uintptr_t)ks)) % XOR_ALIGN == 0) {
        for (; n > 0 && (uintptr_t)out % XOR_ALIGN != 0; n--)
            *out++ = *in++ ^ *ks++;
        for (; n >= 16; n -= 16, out += 16, in += 16, ks += 16) {
            xor_word(out, in, ks);
            xor_word(out + 4, in + 4, ks + 4);
            xor_word(out + 8, in + 8, ks + 8);
            xor_word(out + 12, in + 12, ks + 12);
        }
        for (; n >= 4; n -= 4, out += 4, in += 4, ks += 4)
            xor_word(out, in, ks);
    }
#endif
    for (size_t i = 0; i < n; i++)
        out[i] = in[i] ^ ks[i];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
#include <immintrin.h>

#include "../bs_cpu.h"

/*
 * 128 bytes a step in ymm words where the CPU level has AVX2: the byte loop above vectorizes to
 * 16-byte words only (the baseline x86-64 target), and CTR XORs whole read-ahead batches with it
 * (a stream of 1 KiB calls: every byte). Each step loads before it stores, as the byte loop's
 * words do (in may equal out).
 */
__attribute__((target("avx2"))) static void xor_avx2(uint8_t *out, const uint8_t *in,
                                                     const uint8_t *ks, size_t n)
{
    for (; n >= 128; n -= 128, out += 128, in += 128, ks += 128) {
        __m256i v[4];
        for (unsigned i = 0; i < 4; i++)
            v[i] =
                _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(in + 32 * i)),
                                 _mm256_loadu_si256((const __m256i *)(const void *)(ks + 32 * i)));
        for (unsigned i = 0; i < 4; i++)
            _mm256_storeu_si256((__m256i *)(void *)(out + 32 * i), v[i]);
    }
    xor_bytes(out, in, ks, n);
}

/* The same in zmm words where the level has AVX-512 (two stores a step instead of four). */
__attribute__((target("avx512f"))) static void xor_avx512(uint8_t *out, const uint8_t *in,
                                                          const uint8_t *ks, size_t n)
{
    for (; n >= 128; n -= 128, out += 128, in += 128, ks += 128) {
        const __m512i v0 = _mm512_xor_si512(_mm512_loadu_si512(in), _mm512_loadu_si512(ks));
        const __m512i v1 =
            _mm512_xor_si512(_mm512_loadu_si512(in + 64), _mm512_loadu_si512(ks + 64));
        _mm512_storeu_si512(out, v0);
        _mm512_storeu_si512(out + 64, v1);
    }
    xor_bytes(out, in, ks, n);
}
#define XOR_WIDE 1
#endif

void bs_keystream_xor(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
#ifdef XOR_WIDE
    if (n >= 128) {
        const int level = bs_cpu_level();
        if (level >= BS_CPU_AVX512) {
            xor_avx512(out, in, ks, n);
            return;
        }
        if (level >= BS_CPU_AVX2) {
            xor_avx2(out, in, ks, n);
            return;
        }
    }
#endif
    xor_bytes(out, in, ks, n);
}

/* Writes n consecutive counter blocks starting at ctr into out, and advances ctr by n. */
static void fill_counters(uint8_t *ctr, size_t bl, size_t n, int step, uint8_t *out)
{
    if (step == BS_KS_STEP_INC32) {
        /* Only the last 4 bytes count, modulo 2^32: write them directly. */
        uint32_t low = bs_load_be32(ctr + bl - 4);
        for (size_t i = 0; i < n; i++) {
            memcpy(out + i * bl, ctr, bl - 4);
            bs_store_be32(out + i * bl + bl - 4, low + (uint32_t)i);
        }
        bs_store_be32(ctr + bl - 4, low + (uint32_t)n);
        return;
    }
    uint64_t low = bs_load_be64(ctr + bl - 8);
    if (low <= UINT64_MAX - n) {
        /* No carry out of the low 64 bits inside this batch: write them directly. */
        for (size_t i = 0; i < n; i++) {
            memcpy(out + i * bl, ctr, bl - 8);
            bs_store_be64(out + i * bl + bl - 8, low + i);
        }
        bs_ctr_add(ctr, bl, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(out + i * bl, ctr, bl);
        bs_ctr_add(ctr, bl, 1);
    }
}

void bs_keystream_local(const bs_block_cipher *cipher, const bs_key_schedule *ks,
                        const uint8_t *counter, uint64_t nblocks, int step, const uint8_t *in,
                        uint8_t *out)
{
    const size_t bl = cipher->block_len;
    uint8_t ctr[BS_BLOCK_MAX];
    memcpy(ctr, counter, bl);
    bs_ctr32_fn f = cipher->ctr32;
    if (f != NULL) {
        /*
         * The core's counter mode XORs in registers and counts the last 4 bytes modulo 2^32:
         * that is inc32 as it is; whole-block counting splits where they wrap, and carries here.
         */
        while (nblocks > 0) {
            uint64_t room = step == BS_KS_STEP_INC32
                                ? nblocks
                                : ((uint64_t)1 << 32) - bs_load_be32(ctr + bl - 4);
            size_t m = (size_t)(nblocks < room ? nblocks : room);
            f(ks, ctr, in, out, m);
            bs_keystream_advance(ctr, bl, m, step);
            if (in != NULL)
                in += m * bl;
            out += m * bl;
            nblocks -= m;
        }
        return;
    }
    const size_t lanes = cipher->lanes < BS_LANES_MAX ? cipher->lanes : BS_LANES_MAX;
    BS_ALIGN(32) uint8_t buf[BS_LANES_MAX * BS_BLOCK_MAX];
    size_t used = 0;
    while (nblocks > 0) {
        /* keystream-only calls go straight into out; XOR calls through one pass of buf */
        size_t n = nblocks < BS_LANES_MAX ? (size_t)nblocks : BS_LANES_MAX;
        if (in != NULL && n > lanes)
            n = lanes;
        uint8_t *ksb = in != NULL ? buf : out;
        fill_counters(ctr, bl, n, step, ksb);
        cipher->encrypt(ks, ksb, ksb, n);
        if (in != NULL) {
            xor_bytes(out, in, buf, n * bl);
            used = n * bl > used ? n * bl : used;
            in += n * bl;
        }
        out += n * bl;
        nblocks -= n;
    }
    bs_wipe(buf, used);
}

static uint64_t inproc_fill(bs_keystream_source *src, const bs_block_cipher *cipher,
                            const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                            int step, const uint8_t *in, uint8_t *out)
{
    (void)src;
    bs_keystream_local(cipher, ks, counter, nblocks, step, in, out);
    return nblocks;
}

static bs_keystream_source *inproc_copy(const bs_keystream_source *src)
{
    (void)src;
    return &bs_keystream_inproc;
}

static void inproc_free(bs_keystream_source *src)
{
    (void)src;
}

static const bs_keystream_ops inproc_ops = {"in-process", NULL, inproc_fill, inproc_copy,
                                            inproc_free};

bs_keystream_source bs_keystream_inproc = {&inproc_ops};

void bs_keystream_fill(bs_keystream_source *src, const bs_block_cipher *cipher,
                       const bs_key_schedule *ks, const uint8_t *counter, uint64_t nblocks,
                       int step, const uint8_t *in, uint8_t *out)
{
    uint64_t done = 0;
    if (src != NULL && src != &bs_keystream_inproc) {
        done = src->ops->fill(src, cipher, ks, counter, nblocks, step, in, out);
        if (done >= nblocks)
            return;
    }
    /* The exact fallback: the blocks the source did not do, from the mode's own key. */
    const size_t bl = cipher->block_len;
    uint8_t ctr[BS_BLOCK_MAX];
    memcpy(ctr, counter, bl);
    bs_keystream_advance(ctr, bl, done, step);
    bs_keystream_local(cipher, ks, ctr, nblocks - done, step, in != NULL ? in + done * bl : NULL,
                       out + done * bl);
}
