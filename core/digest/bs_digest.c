#include "bs_digest.h"

#include <string.h>

#include "bs_cpu.h"
#include "bs_digest_mix.h"

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

uint64_t bs_digest_seed(const uint8_t *counter, size_t block_len, uint64_t nblocks)
{
    uint64_t s = bs_digest_fmix64(nblocks ^ 0x62736432ull ^ ((uint64_t)block_len << 56));
    uint8_t w[8];
    for (size_t i = 0; i < block_len; i += 8) {
        size_t n = block_len - i < 8 ? block_len - i : 8;
        memset(w, 0, sizeof w);
        memcpy(w, counter + i, n);
        s = bs_digest_fmix64(s ^ load64(w)) + BS_DIGEST_G;
    }
    return s;
}

uint64_t bs_digest_poison(uint64_t seed)
{
    return bs_digest_fmix64(seed ^ 0x706f69736f6e2121ull) | 1; /* odd: differs from a zeroed word */
}

/* Words are little-endian on the wire. */
static inline uint64_t word_at(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
#else
    return load64(p);
#endif
}

/* Eight independent lanes keep the multipliers busy; the vector paths (bs_digest_x86.c) add
 * the same terms in another order. */
static inline __attribute__((always_inline)) uint64_t sum_lanes(uint64_t seed, uint64_t word0,
                                                                const uint8_t *p, size_t nwords,
                                                                uint64_t poison, uint64_t *hits,
                                                                const int count)
{
    uint64_t acc[8] = {0}, hit[8] = {0};
    size_t j = 0;
    for (; j + 8 <= nwords; j += 8)
        for (int l = 0; l < 8; l++) {
            uint64_t w = word_at(p + 8 * (j + l));
            acc[l] += bs_digest_word(seed, word0 + j + (unsigned)l, w);
            if (count)
                hit[l] += (uint64_t)(w == poison);
        }
    uint64_t a = 0, h = 0;
    for (int l = 0; l < 8; l++) {
        a += acc[l];
        h += hit[l];
    }
    for (; j < nwords; j++) {
        uint64_t w = word_at(p + 8 * j);
        a += bs_digest_word(seed, word0 + j, w);
        h += (uint64_t)(w == poison);
    }
    if (count)
        *hits = h;
    return a;
}

static uint64_t sum_portable(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                             uint64_t poison, uint64_t *hits)
{
    return hits != NULL ? sum_lanes(seed, word0, p, nwords, poison, hits, 1)
                        : sum_lanes(seed, word0, p, nwords, poison, hits, 0);
}

/* The word a raw 8-byte load holds, read as the wire's little-endian word. */
static inline uint64_t le_word(uint64_t raw)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(raw);
#else
    return raw;
#endif
}

/* Makes the compiler forget where v came from: it cannot load it again from the shared memory. */
#if defined(__GNUC__) || defined(__clang__)
#define OPAQUE(v) __asm__("" : "+r"(v))
#else
#define OPAQUE(v) ((void)0)
#endif

static uint64_t move_portable(uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src,
                              size_t nwords, uint64_t *zero_words)
{
    uint64_t acc[8] = {0}, zer[8] = {0}, a = 0, z = 0;
    const uint64_t zero = 0;
    size_t j = 0;
    for (; j + 8 <= nwords; j += 8)
        for (int l = 0; l < 8; l++) {
            uint64_t w;
            memcpy(&w, src + 8 * (j + (unsigned)l), 8);
            OPAQUE(w);
            memcpy(dst + 8 * (j + (unsigned)l), &w, 8);
            memcpy(src + 8 * (j + (unsigned)l), &zero, 8);
            acc[l] += bs_digest_word(seed, word0 + j + (unsigned)l, le_word(w));
            zer[l] += (uint64_t)(w == 0);
        }
    for (int l = 0; l < 8; l++) {
        a += acc[l];
        z += zer[l];
    }
    for (; j < nwords; j++) {
        uint64_t w;
        memcpy(&w, src + 8 * j, 8);
        OPAQUE(w);
        memcpy(dst + 8 * j, &w, 8);
        memcpy(src + 8 * j, &zero, 8);
        a += bs_digest_word(seed, word0 + j, le_word(w));
        z += (uint64_t)(w == 0);
    }
    *zero_words = z;
    return a;
}

typedef uint64_t (*sum_fn)(uint64_t, uint64_t, const uint8_t *, size_t, uint64_t, uint64_t *);

/* The highest of the digest's levels (portable, avx2, avx512) this CPU can run. */
static int level_here(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
    int d = bs_cpu_detected();
    /* VPMULLQ is AVX-512DQ, which the bs_cpu avx512 level does not ask for. */
    if (d >= BS_CPU_AVX512 && __builtin_cpu_supports("avx512dq"))
        return BS_CPU_AVX512;
    if (d >= BS_CPU_AVX2)
        return BS_CPU_AVX2;
#endif
    return BS_CPU_PORTABLE;
}

int bs_digest_level_at(int level)
{
    int here = level_here();
    level = level < here ? level : here;
    /* aesni brings nothing to the digest. */
    return level >= BS_CPU_AVX2 ? level : BS_CPU_PORTABLE;
}

static sum_fn sum_for(int level)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
    if (level == BS_CPU_AVX512)
        return bs_digest_sum_avx512;
    if (level == BS_CPU_AVX2)
        return bs_digest_sum_avx2;
#endif
    (void)level;
    return sum_portable;
}

/* Chosen at the first call (getenv is too slow for a call per 32 KiB piece); -1 until then. */
static int digest_level = -1;

int bs_digest_level(void)
{
    int l = __atomic_load_n(&digest_level, __ATOMIC_RELAXED);
    if (l < 0) {
        l = bs_digest_level_at(bs_cpu_level());
        __atomic_store_n(&digest_level, l, __ATOMIC_RELAXED);
    }
    return l;
}

/* Each implementation counts poison words only when asked to (poison_hits not NULL). */
uint64_t bs_digest_sum_at(int level, uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                          uint64_t poison, uint64_t *poison_hits)
{
    return sum_for(bs_digest_level_at(level))(seed, word0, p, nwords, poison, poison_hits);
}

uint64_t bs_digest_sum(uint64_t seed, uint64_t word0, const uint8_t *p, size_t nwords,
                       uint64_t poison, uint64_t *poison_hits)
{
    return sum_for(bs_digest_level())(seed, word0, p, nwords, poison, poison_hits);
}

typedef uint64_t (*move_fn)(uint64_t, uint64_t, uint8_t *, uint8_t *, size_t, uint64_t *);

static move_fn move_for(int level)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
    if (level == BS_CPU_AVX512)
        return bs_digest_move_sum_avx512;
    if (level == BS_CPU_AVX2)
        return bs_digest_move_sum_avx2;
#endif
    (void)level;
    return move_portable;
}

uint64_t bs_digest_move_sum_at(int level, uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src,
                               size_t nwords, uint64_t *zero_words)
{
    uint64_t s = move_for(bs_digest_level_at(level))(seed, word0, dst, src, nwords, zero_words);
#if defined(__GNUC__) || defined(__clang__)
    /* The zeroes written at src are a wipe: keep them (as bs_wipe does). */
    __asm__ __volatile__("" : : "r"(src) : "memory");
#endif
    return s;
}

uint64_t bs_digest_move_sum(uint64_t seed, uint64_t word0, uint8_t *dst, uint8_t *src,
                            size_t nwords, uint64_t *zero_words)
{
    return bs_digest_move_sum_at(bs_digest_level(), seed, word0, dst, src, nwords, zero_words);
}

uint64_t bs_digest_xor_move_sum_portable(uint64_t seed, uint64_t word0, uint8_t *out,
                                         const uint8_t *in, uint8_t *keep, uint8_t *src,
                                         size_t nwords, uint64_t *zero_words)
{
    const uint64_t zero = 0;
    uint64_t sum = 0, z = 0;
    for (size_t j = 0; j < nwords; j++) {
        uint64_t w, x;
        memcpy(&w, src + 8 * j, 8);
#if defined(__GNUC__) || defined(__clang__)
        __asm__("" : "+r"(w)); /* one load: the value used is the value summed */
#endif
        memcpy(src + 8 * j, &zero, 8);
        if (keep != NULL)
            memcpy(keep + 8 * j, &w, 8);
        x = w;
        if (in != NULL) {
            uint64_t v;
            memcpy(&v, in + 8 * j, 8);
            x ^= v;
        }
        memcpy(out + 8 * j, &x, 8);
        sum += bs_digest_word(seed, word0 + j, w);
        z += (uint64_t)(w == 0);
    }
    *zero_words = z;
    return sum;
}

uint64_t bs_digest_xor_move_sum_at(int level, uint64_t seed, uint64_t word0, uint8_t *out,
                                   const uint8_t *in, uint8_t *keep, uint8_t *src, size_t nwords,
                                   uint64_t *zero_words)
{
    level = bs_digest_level_at(level);
    uint64_t s;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
    if (level == BS_CPU_AVX512)
        s = bs_digest_xor_move_sum_avx512(seed, word0, out, in, keep, src, nwords, zero_words);
    else if (level == BS_CPU_AVX2)
        s = bs_digest_xor_move_sum_avx2(seed, word0, out, in, keep, src, nwords, zero_words);
    else
#endif
        s = bs_digest_xor_move_sum_portable(seed, word0, out, in, keep, src, nwords, zero_words);
#if defined(__GNUC__) || defined(__clang__)
    __asm__ __volatile__("" : : "r"(src) : "memory"); /* the zeroes at src are a wipe */
#endif
    return s;
}

uint64_t bs_digest_xor_move_sum(uint64_t seed, uint64_t word0, uint8_t *out, const uint8_t *in,
                                uint8_t *keep, uint8_t *src, size_t nwords, uint64_t *zero_words)
{
    return bs_digest_xor_move_sum_at(bs_digest_level(), seed, word0, out, in, keep, src, nwords,
                                     zero_words);
}

static void move_plain_portable(uint8_t *dst, uint8_t *src, size_t nwords)
{
    const uint64_t zero = 0;
    for (size_t j = 0; j < nwords; j++) {
        uint64_t w;
        memcpy(&w, src + 8 * j, 8);
        memcpy(dst + 8 * j, &w, 8);
        memcpy(src + 8 * j, &zero, 8);
    }
}

void bs_digest_move_plain_at(int level, uint8_t *dst, uint8_t *src, size_t nwords)
{
    level = bs_digest_level_at(level);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
    if (level == BS_CPU_AVX512)
        bs_digest_move_plain_avx512(dst, src, nwords);
    else if (level == BS_CPU_AVX2)
        bs_digest_move_plain_avx2(dst, src, nwords);
    else
#endif
        move_plain_portable(dst, src, nwords);
#if defined(__GNUC__) || defined(__clang__)
    __asm__ __volatile__("" : : "r"(src) : "memory");
#endif
}

void bs_digest_move_plain(uint8_t *dst, uint8_t *src, size_t nwords)
{
    bs_digest_move_plain_at(bs_digest_level(), dst, src, nwords);
}

uint64_t bs_digest_move(const uint8_t *counter, size_t block_len, uint64_t nblocks, uint8_t *dst,
                        uint8_t *src, uint64_t *zero_words)
{
    uint64_t seed = bs_digest_seed(counter, block_len, nblocks);
    uint64_t nwords = nblocks * block_len / 8;
    return bs_digest_final(bs_digest_move_sum(seed, 0, dst, src, (size_t)nwords, zero_words),
                           nwords);
}

uint64_t bs_digest_final(uint64_t sum, uint64_t nwords)
{
    return bs_digest_fmix64(sum ^ nwords);
}

uint64_t bs_digest(const uint8_t *counter, size_t block_len, uint64_t nblocks, const uint8_t *p)
{
    uint64_t seed = bs_digest_seed(counter, block_len, nblocks);
    uint64_t nwords = nblocks * block_len / 8;
    return bs_digest_final(bs_digest_sum(seed, 0, p, (size_t)nwords, 0, NULL), nwords);
}

static void poison_fill_portable(uint8_t *p, size_t nwords, uint64_t poison)
{
    uint8_t w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (uint8_t)(poison >> (8 * i));
    for (size_t j = 0; j < nwords; j++)
        memcpy(p + 8 * j, w, 8);
}

void bs_digest_poison_fill_at(int level, uint8_t *p, size_t nwords, uint64_t poison)
{
    level = bs_digest_level_at(level);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
    /* x86-64 is little-endian: the vector stores lay the word out as the wire does. */
    if (level == BS_CPU_AVX512) {
        bs_digest_poison_fill_avx512(p, nwords, poison);
        return;
    }
    if (level == BS_CPU_AVX2) {
        bs_digest_poison_fill_avx2(p, nwords, poison);
        return;
    }
#endif
    poison_fill_portable(p, nwords, poison);
}

void bs_digest_poison_fill(uint8_t *p, size_t nwords, uint64_t poison)
{
    bs_digest_poison_fill_at(bs_digest_level(), p, nwords, poison);
}
