/*
 * The window digest (core/digest/bs_digest.h) against a slow, obviously-correct reference
 * written from PROTOCOL.md's formula, on random windows of every block length and odd sizes;
 * sums over any split of a window add up to the whole; every single-word change (each of 64 bit
 * flips, a zeroed word, a word from another position) changes the digest; another counter or
 * length changes it; poisoned words are counted exactly. The dispatching implementation
 * must equal the reference everywhere, and so must each implementation alone (portable, AVX2,
 * AVX-512: bs_digest_sum_at) on every length from 0 to 80 words and on long ones, at every
 * byte alignment, every first-word index and with poison anywhere; the client's fused move
 * (bs_digest_move_sum) sums the same, counts zero words, copies exactly, zeroes its source and
 * touches nothing else.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bs_cpu.h"
#include "bs_digest.h"
#include "bsd_verify.h"
#include "modes/ctr.h"
#include "svc_util.h"

static uint64_t fmix64_ref(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* PROTOCOL.md: seed from the counter words and the length, then the sum of mixed words. */
static uint64_t seed_ref(const uint8_t *ctr, size_t bl, uint64_t nblocks)
{
    uint64_t s = fmix64_ref(nblocks ^ 0x62736432ull ^ ((uint64_t)bl << 56));
    for (size_t i = 0; i < bl; i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8 && i + k < bl; k++)
            w |= (uint64_t)ctr[i + k] << (8 * k);
        s = fmix64_ref(s ^ w) + 0x9e3779b97f4a7c15ull;
    }
    return s;
}

static uint64_t digest_ref(const uint8_t *ctr, size_t bl, uint64_t nblocks, const uint8_t *p)
{
    uint64_t seed = seed_ref(ctr, bl, nblocks), nw = nblocks * bl / 8, sum = 0;
    for (uint64_t j = 0; j < nw; j++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)p[8 * j + (uint64_t)k] << (8 * k);
        sum += fmix64_ref(w ^ (seed + j * 0x9e3779b97f4a7c15ull));
    }
    return fmix64_ref(sum ^ nw);
}

/* The sum of words [word0, word0 + n) at p, term by term as PROTOCOL.md writes it. */
static uint64_t sum_ref(uint64_t seed, uint64_t word0, const uint8_t *p, size_t n, uint64_t poison,
                        uint64_t *hits)
{
    uint64_t sum = 0, h = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w |= (uint64_t)p[8 * j + (size_t)k] << (8 * k);
        sum += fmix64_ref(w ^ (seed + (word0 + j) * 0x9e3779b97f4a7c15ull));
        h += w == poison;
    }
    *hits = h;
    return sum;
}

/* Each implementation this CPU runs against sum_ref; returns how many levels ran. */
static unsigned check_levels(void)
{
    static uint8_t buf[8 * 4200 + 8];
    static const int levels[] = {BS_CPU_PORTABLE, BS_CPU_AVX2, BS_CPU_AVX512};
    unsigned ran = 0;
    for (int li = 0; li < 3; li++) {
        const int level = levels[li];
        if (bs_digest_level_at(level) != level) {
            printf("%s digest: not on this CPU\n", bs_cpu_level_name(level));
            continue;
        }
        unsigned cases = 0;
        for (uint32_t t = 0; t < 300; t++) {
            /* Every length up to 80 words (each vector tail), then long ones. */
            const size_t n = t <= 80 ? t : 80 + (t * 2654435761u) % 4100;
            const size_t align = t % 8;
            uint8_t *p = buf + align;
            svc_fill(p, 8 * n, t + 77);
            uint64_t seed = 0x0123456789abcdefull * (t + 1), word0 = (uint64_t)t * t * 977;
            if (t % 5 == 0)
                word0 = UINT64_MAX - n / 2; /* j wraps mod 2^64 inside the range */
            const uint64_t poison = bs_digest_poison(seed);
            /* Poison in a few places: the first, a middle and the last word. */
            if (n > 0 && t % 3 == 0) {
                bs_digest_poison_fill(p, 1, poison);
                bs_digest_poison_fill(p + 8 * (n / 2), 1, poison);
                bs_digest_poison_fill(p + 8 * (n - 1), 1, poison);
            }
            /* Zero words in a few ranges: the client's move counts them (never stored). */
            if (n > 2 && t % 4 == 1) {
                memset(p + 8 * (n / 3), 0, 8);
                memset(p + 8 * (n - 1), 0, 8);
            }
            uint64_t z_ref = 0;
            for (size_t j = 0; j < n; j++) {
                uint64_t w;
                memcpy(&w, p + 8 * j, 8);
                z_ref += w == 0;
            }
            CHECK((t % 4 != 1 || n <= 2) || z_ref >= 2);
            uint64_t h_ref = 0, h = 7;
            const uint64_t want = sum_ref(seed, word0, p, n, poison, &h_ref);
            const uint64_t got = bs_digest_sum_at(level, seed, word0, p, n, poison, &h);
            CHECK(got == want);
            CHECK(h == h_ref);
            /* Without the poison count (the client's call): the same sum. */
            CHECK(bs_digest_sum_at(level, seed, word0, p, n, poison, NULL) == want);
            CHECK((t % 3 != 0 || n == 0) || h_ref >= 1);
            /*
             * The client's move: the same sum, the words copied exactly to another alignment,
             * zeroes left behind, and not a byte outside either range touched.
             */
            static uint8_t src[8 * 4200 + 24], dst[8 * 4200 + 24], keep[sizeof src];
            const size_t da = (t * 7 + 3) % 8;
            memcpy(src, buf, sizeof src < sizeof buf ? sizeof src : sizeof buf);
            memcpy(keep, src, sizeof keep);
            memset(dst, 0xa5, sizeof dst);
            uint64_t z = 7;
            CHECK(bs_digest_move_sum_at(level, seed, word0, dst + 8 + da, src + align, n, &z) ==
                  want);
            CHECK(z == z_ref);
            CHECK(memcmp(dst + 8 + da, keep + align, 8 * n) == 0);
            for (size_t b = 0; b < 8 + da; b++)
                CHECK(dst[b] == 0xa5);
            for (size_t b = 8 + da + 8 * n; b < sizeof dst; b++)
                CHECK(dst[b] == 0xa5);
            for (size_t b = 0; b < sizeof src; b++)
                CHECK(b >= align && b < align + 8 * n ? src[b] == 0 : src[b] == keep[b]);
            /* And the move without the sum (the unchecked benchmark's): the same bytes. */
            memcpy(src, keep, sizeof src);
            memset(dst, 0xa5, sizeof dst);
            bs_digest_move_plain_at(level, dst + 8 + da, src + align, n);
            CHECK(memcmp(dst + 8 + da, keep + align, 8 * n) == 0);
            for (size_t b = 0; b < 8 + da; b++)
                CHECK(dst[b] == 0xa5);
            for (size_t b = 8 + da + 8 * n; b < sizeof dst; b++)
                CHECK(dst[b] == 0xa5);
            for (size_t b = 0; b < sizeof src; b++)
                CHECK(b >= align && b < align + 8 * n ? src[b] == 0 : src[b] == keep[b]);
            /*
             * The fused pass (bs_digest_xor_move_sum): the same sum and zero count, out = in ^
             * w (w with no input), keep = w, in place too, zeroes at the source, nothing outside.
             */
            static uint8_t xin[sizeof dst], xout[sizeof dst], xkeep[sizeof dst];
            for (int v = 0; v < 4; v++) { /* input / none / in place, keep or not */
                const int has_in = v != 1, in_place = v == 2, has_keep = v >= 2;
                memcpy(src, keep, sizeof src);
                svc_fill(xin, sizeof xin, (uint32_t)(t + 17));
                if (in_place)
                    memcpy(xout, xin, sizeof xout);
                else
                    memset(xout, 0xa5, sizeof xout);
                memset(xkeep, 0x3c, sizeof xkeep);
                uint8_t *o = xout + 8 + da;
                const uint8_t *i = !has_in ? NULL : in_place ? o : xin + 8 + da;
                z = 7;
                CHECK(bs_digest_xor_move_sum_at(level, seed, word0, o, i,
                                                has_keep ? xkeep + 3 : NULL, src + align, n,
                                                &z) == want);
                CHECK(z == z_ref);
                for (size_t b = 0; b < 8 * n; b++) {
                    uint8_t x = (uint8_t)(keep[align + b] ^ (has_in ? xin[8 + da + b] : 0));
                    CHECK(o[b] == x);
                    if (has_keep)
                        CHECK(xkeep[3 + b] == keep[align + b]);
                }
                for (size_t b = 0; b < sizeof xout; b++)
                    if (b < 8 + da || b >= 8 + da + 8 * n)
                        CHECK(xout[b] == (in_place ? xin[b] : 0xa5));
                for (size_t b = 0; b < sizeof xkeep; b++)
                    if (!has_keep || b < 3 || b >= 3 + 8 * n)
                        CHECK(xkeep[b] == 0x3c);
                for (size_t b = 0; b < sizeof src; b++)
                    CHECK(b >= align && b < align + 8 * n ? src[b] == 0 : src[b] == keep[b]);
            }
            cases++;
        }
        /* The poison fill: exactly nwords little-endian copies, not a byte outside. */
        static uint8_t fill[8 * 100 + 16], want[sizeof fill];
        for (size_t nw = 0; nw <= 90; nw++) {
            const size_t off = 1 + nw % 8;
            const uint64_t pw = 0x0102030405060708ull * (nw + 3);
            svc_fill(fill, sizeof fill, (uint32_t)nw);
            memcpy(want, fill, sizeof fill);
            for (size_t j = 0; j < nw; j++)
                for (int b = 0; b < 8; b++)
                    want[off + 8 * j + (size_t)b] = (uint8_t)(pw >> (8 * b));
            bs_digest_poison_fill_at(level, fill + off, nw, pw);
            CHECK(memcmp(fill, want, sizeof fill) == 0);
        }
        printf("%s digest = reference on %u ranges (0..4180 words, every alignment, poison, "
               "zero words), the client's move and fused pass too; poison fill exact on "
               "0..90 words\n",
               bs_cpu_level_name(level), cases);
        ran++;
    }
    CHECK(ran >= 1);
    return ran;
}

/*
 * The client's check as it moves a window (bsd_verify_move, at the level this run dispatches
 * to): a window of real keystream passes and arrives byte-exact; one flipped byte in the first
 * block, the second, a middle one, the one before last, the last, and in each of the move's
 * loops (whole 32-word steps, the 8-word vectors after them, the single words at the end) is
 * refused by the digest itself (its counter, not the recomputed blocks); so is a digest of
 * another counter. The shared window is left zeroed whatever the outcome.
 */
static void check_verify_move(void)
{
    static const char *const names[] = {"RIJNDAEL-256", "PRESENT-80", "GIFT-64"};
    static uint8_t ref[8 * 8200], src[sizeof ref], dst[sizeof ref];
    unsigned cases = 0;
    for (size_t ni = 0; ni < sizeof names / sizeof names[0]; ni++) {
        const bs_block_cipher *bc = bs_block_cipher_by_name(names[ni]);
        if (bc == NULL)
            continue;
        const size_t bl = bc->block_len, wpb = bl / 8;
        uint8_t key[BS_KEY_MAX], ctr[BS_BLOCK_MAX];
        svc_fill(key, sizeof key, 60 + (uint32_t)ni);
        const bs_key_schedule *ks = svc_schedule(bc, key);
        /* Sizes with every tail: 32-word steps only, steps then vectors then words, long. */
        const uint64_t sizes[] = {256 / wpb, 45, 77, 8100 / wpb + 3};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            const uint64_t n = sizes[si], nw = n * wpb;
            svc_fill(ctr, sizeof ctr, 70 + (uint32_t)si);
            bs_ctr_keystream(bc, ks, ctr, n, ref);
            const uint64_t d = bs_digest(ctr, bl, n, ref);
            memcpy(src, ref, (size_t)(n * bl));
            memset(dst, 0, sizeof dst);
            CHECK(bsd_verify_move(NULL, 0, bc, ks, ctr, n, dst, src, d) == 0);
            CHECK(memcmp(dst, ref, (size_t)(n * bl)) == 0);
            for (size_t b = 0; b < n * bl; b++)
                CHECK(src[b] == 0);
            /* Words to corrupt: blocks 0, 1, n/2, n-2, n-1, and the first word of each tail. */
            uint64_t at[8];
            unsigned na = 0;
            at[na++] = 0;
            at[na++] = wpb;
            at[na++] = (n / 2) * wpb + wpb / 2;
            at[na++] = (n - 2) * wpb;
            at[na++] = nw - 1;
            if (nw % 32 != 0)
                at[na++] = nw / 32 * 32;
            if (nw % 8 != 0)
                at[na++] = nw / 8 * 8;
            for (unsigned k = 0; k < na; k++) {
                memcpy(src, ref, (size_t)(n * bl));
                src[8 * at[k] + (k % 8)] ^= (uint8_t)(1u << k % 8);
                uint64_t dig0 = 0, dig1 = 0;
                bsd_verify_counts(NULL, &dig0, NULL);
                CHECK(bsd_verify_move(NULL, 0, bc, ks, ctr, n, dst, src, d) == -EBADMSG);
                bsd_verify_counts(NULL, &dig1, NULL);
                CHECK(dig1 == dig0 + 1);
                for (size_t b = 0; b < n * bl; b++)
                    CHECK(src[b] == 0);
                cases++;
            }
            /* The right window with another counter's digest. */
            memcpy(src, ref, (size_t)(n * bl));
            ctr[0] ^= 1;
            const uint64_t other = bs_digest(ctr, bl, n, ref);
            ctr[0] ^= 1;
            CHECK(bsd_verify_move(NULL, 0, bc, ks, ctr, n, dst, src, other) == -EBADMSG);
            cases++;
            /*
             * A store that never reached the window: the word is still the zero this client
             * left there. Refused even with a digest that covers the zero (as if the daemon had
             * digested it), by the zero count alone; at each loop's words.
             */
            for (unsigned k = 0; k < na; k++) {
                memcpy(src, ref, (size_t)(n * bl));
                memset(src + 8 * at[k], 0, 8);
                const uint64_t dz = bs_digest(ctr, bl, n, src);
                uint64_t dig0 = 0, dig1 = 0;
                bsd_verify_counts(NULL, &dig0, NULL);
                CHECK(bsd_verify_move(NULL, 0, bc, ks, ctr, n, dst, src, dz) == -EBADMSG);
                bsd_verify_counts(NULL, &dig1, NULL);
                CHECK(dig1 == dig0 + 1);
                cases++;
            }
        }
    }
    CHECK(cases > 0);
    printf("bsd_verify_move (digest at %s): real windows pass byte-exact; %u corrupted ones "
           "(first, second, middle, last blocks, each loop's tail, another counter's digest; "
           "a zero word the digest covers) refused; the shared window zeroed every time\n",
           bs_cpu_level_name(bs_digest_level()), cases);
}

int main(void)
{
    check_levels();
    check_verify_move();
    /* The dispatch follows the bs_cpu level: $BITSLICE_CPU caps it like the ciphers'. */
    const char *cap = getenv(BS_CPU_ENV);
    if (cap != NULL && bs_cpu_level_by_name(cap) >= 0)
        CHECK(bs_digest_level() <= bs_cpu_level_by_name(cap));
    printf("bs_digest_sum runs at %s (%s=%s)\n", bs_cpu_level_name(bs_digest_level()), BS_CPU_ENV,
           cap != NULL ? cap : "unset");
    static uint8_t win[1 << 16];
    static const size_t bls[] = {8, 16, 24, 32};
    unsigned tests = 0;
    for (uint32_t seed = 1; seed <= 40; seed++) {
        const size_t bl = bls[seed % 4];
        uint8_t ctr[32];
        svc_fill(ctr, sizeof ctr, seed);
        const uint64_t nblocks = 1 + (seed * 2654435761u) % (sizeof win / bl);
        svc_fill(win, (size_t)(nblocks * bl), seed + 1000);
        const uint64_t d = bs_digest(ctr, bl, nblocks, win);
        CHECK(d == digest_ref(ctr, bl, nblocks, win));
        /* Any split, summed in any order: the whole. */
        const uint64_t s = bs_digest_seed(ctr, bl, nblocks), nw = nblocks * bl / 8;
        const uint64_t cut = nw / 3, cut2 = nw - nw / 5;
        uint64_t sum = bs_digest_sum(s, cut2, win + 8 * cut2, (size_t)(nw - cut2), 0, NULL) +
                       bs_digest_sum(s, 0, win, (size_t)cut, 0, NULL) +
                       bs_digest_sum(s, cut, win + 8 * cut, (size_t)(cut2 - cut), 0, NULL);
        CHECK(bs_digest_final(sum, nw) == d);
        /* Another counter or another length: another digest. */
        ctr[bl - 1] ^= 1;
        CHECK(bs_digest(ctr, bl, nblocks, win) != d);
        ctr[bl - 1] ^= 1;
        if (nblocks > 1)
            CHECK(bs_digest(ctr, bl, nblocks - 1, win) != bs_digest(ctr, bl, nblocks, win) ||
                  nblocks == 1);
        /* Every bit of a few words, a zeroed word, a word from elsewhere: always caught. */
        for (uint64_t j = 0; j < nw; j += 1 + nw / 7) {
            for (int b = 0; b < 64; b++) {
                win[8 * j + (uint64_t)b / 8] ^= (uint8_t)(1u << (b % 8));
                CHECK(bs_digest(ctr, bl, nblocks, win) != d);
                win[8 * j + (uint64_t)b / 8] ^= (uint8_t)(1u << (b % 8));
            }
            uint8_t keep[8];
            memcpy(keep, win + 8 * j, 8);
            memset(win + 8 * j, 0, 8);
            CHECK(memcmp(keep, win + 8 * j, 8) == 0 || bs_digest(ctr, bl, nblocks, win) != d);
            memcpy(win + 8 * j, win + 8 * ((j + 1) % nw), 8);
            CHECK(memcmp(keep, win + 8 * j, 8) == 0 || bs_digest(ctr, bl, nblocks, win) != d);
            memcpy(win + 8 * j, keep, 8);
            tests += 66;
        }
        CHECK(bs_digest(ctr, bl, nblocks, win) == d);
        /* The move gives the same digest and the same window, and leaves zeroes. */
        static uint8_t moved[sizeof win], from[sizeof win];
        memcpy(from, win, (size_t)(nblocks * bl));
        uint64_t zw = 0, zw_ref = 0;
        for (size_t j = 0; j < nblocks * bl / 8; j++) {
            uint64_t w;
            memcpy(&w, win + 8 * j, 8);
            zw_ref += w == 0;
        }
        CHECK(bs_digest_move(ctr, bl, nblocks, moved, from, &zw) == d);
        CHECK(zw == zw_ref);
        CHECK(memcmp(moved, win, (size_t)(nblocks * bl)) == 0);
        for (size_t b = 0; b < nblocks * bl; b++)
            CHECK(from[b] == 0);
        /* Poison: exactly the words left holding it are counted. */
        const uint64_t poison = bs_digest_poison(s);
        uint64_t hits = 1;
        (void)bs_digest_sum(s, 0, win, (size_t)nw, poison, &hits);
        CHECK(hits == 0);
        bs_digest_poison_fill(win + 8 * (nw / 2), (size_t)(nw - nw / 2 < 3 ? nw - nw / 2 : 3),
                              poison);
        (void)bs_digest_sum(s, 0, win, (size_t)nw, poison, &hits);
        CHECK(hits == (nw - nw / 2 < 3 ? nw - nw / 2 : 3));
        tests++;
    }
    printf("window digest = reference on 40 random windows (block lengths 8..32); splits add "
           "up; %u single-word changes all caught; poison counted\n",
           tests);
    return 0;
}
