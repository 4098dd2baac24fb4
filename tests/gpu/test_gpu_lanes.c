/*
 * The GPU's per-thread code (gpu/bsgpu_lanes.h), compiled for the host and run group by group
 * with bsgpu_launch_host, against bs_ctr_keystream of the host cores: bitsliced counters
 * (carries across 2^32, 2^64, 2^128 and the block width), the rounds, the transposes, the
 * compact keys, the segment table, and the self-check's digest of a whole launch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bitslice.h"
#include "bs_cpu.h"
#include "bsgpu.h"
#include "bsgpu_host.h"
#include "modes/ctr.h"
#include "testutil.h"

static const bs_block_cipher *const cores[BSGPU_NCIPHERS] = {
    &bs_present80_bs64, &bs_present128_bs64,  &bs_gift64_bs64,
    &bs_gift128_bs64,   &bs_rijndael256_bs64,
};

/* Counters that make carries: low bytes near all ones, sometimes the whole block. */
static void edge_counter(uint8_t *ctr, size_t bl, unsigned kind)
{
    bs_test_fill(ctr, bl);
    const size_t ones = kind == 0 ? 0 : kind == 1 ? 3 : kind == 2 ? 7 : kind == 3 ? 15 : bl;
    for (size_t i = 0; i < ones && i < bl; i++)
        ctr[bl - 1 - i] = 0xff;
    if (ones < bl && kind != 0)
        ctr[bl - 1 - ones] |= 0x80; /* sometimes carries on, sometimes not, as the low byte says */
    if (kind != 0)
        ctr[bl - 1] = (uint8_t)(0xff - bs_test_below(40));
}

static void test_keys_from_schedule(void **state)
{
    (void)state;
    for (int c = 0; c < BSGPU_NCIPHERS; c++)
        for (int iter = 0; iter < 20; iter++) {
            uint8_t key[32];
            bs_key_schedule ks;
            bsgpu_key a, b;
            bs_test_fill(key, cores[c]->key_len);
            cores[c]->set_key(&ks, key);
            assert_int_equal(bsgpu_cipher_of(cores[c]), c);
            assert_int_equal(bsgpu_key_from_schedule(&a, cores[c], &ks), 0);
            bsgpu_key_from_bytes(&b, (bsgpu_cipher)c, key);
            assert_memory_equal(a.w, b.w, sizeof a.w);
        }
}

/*
 * Every registered core of a GPU cipher: one that exports its round keys gives the key the spec
 * gives; one without the hook is refused, and leaves no key behind.
 */
static void test_keys_from_every_core(void **state)
{
    (void)state;
    unsigned exported = 0, refused = 0;
    for (size_t i = 0; bs_block_ciphers[i] != NULL; i++) {
        const bs_block_cipher *core = bs_block_ciphers[i];
        const int c = bsgpu_cipher_of(core);
        if (c < 0 || !bs_impl_usable(core))
            continue;
        for (int iter = 0; iter < 5; iter++) {
            uint8_t key[32];
            bs_key_schedule ks;
            bsgpu_key a, b, zero;
            bs_test_fill(key, core->key_len);
            core->set_key(&ks, key);
            memset(&a, 0x5a, sizeof a);
            memset(&zero, 0, sizeof zero);
            if (core->export_round_keys == NULL) {
                assert_int_equal(bsgpu_key_from_schedule(&a, core, &ks), -1);
                assert_memory_equal(a.w, zero.w, sizeof a.w);
                refused++;
                continue;
            }
            assert_int_equal(bsgpu_key_from_schedule(&a, core, &ks), 0);
            bsgpu_key_from_bytes(&b, (bsgpu_cipher)c, key);
            assert_memory_equal(a.w, b.w, sizeof a.w);
            /* Too small a buffer is refused, not overrun. */
            assert_int_equal(core->export_round_keys(&ks, a.w, 1), -1);
            exported++;
        }
    }
    /* The five bs64 cores at least, and a core of another layout (bs32, ct32, ...). */
    assert_true(exported >= 5 * 5);
    assert_true(refused > 0);
}

/* The warp's key expansion gives the cores' own mask layouts, however the lanes split it. */
static void test_key_expand(void **state)
{
    (void)state;
    static uint32_t got[BSGPU_XKEY_MAX], split[BSGPU_XKEY_MAX], want[BSGPU_XKEY_MAX];
    for (int c = 0; c < BSGPU_RIJNDAEL256; c++)
        for (int iter = 0; iter < 10; iter++) {
            uint8_t key[32];
            bsgpu_key dk;
            bs_test_fill(key, cores[c]->key_len);
            bsgpu_key_from_bytes(&dk, (bsgpu_cipher)c, key);
            const unsigned n = bsgpu_xkey_words((bsgpu_cipher)c);
            bsgpu_key_expand(got, (bsgpu_cipher)c, dk.w, 0, 1);
            for (unsigned lane = 0; lane < 32; lane++)
                bsgpu_key_expand(split, (bsgpu_cipher)c, dk.w, lane, 32);
            assert_memory_equal(got, split, n * sizeof got[0]);
            if (c == BSGPU_GIFT64) {
                uint32_t rk[BS_GIFT64_ROUNDS];
                uint8_t rc[BS_GIFT64_ROUNDS];
                bs_gift64_key_schedule(key, rk, rc);
                for (unsigned r = 0; r < BS_GIFT64_ROUNDS; r++)
                    bs_gift64_expand_u32(want + r * BS_GIFT64_RK_WORDS, rk[r], rc[r]);
            } else if (c == BSGPU_GIFT128) {
                uint32_t rk[2 * BS_GIFT128_ROUNDS];
                uint8_t rc[BS_GIFT128_ROUNDS];
                bs_gift128_key_schedule(key, rk, rc);
                for (unsigned r = 0; r < BS_GIFT128_ROUNDS; r++)
                    bs_gift128_expand_u32(want + r * BS_GIFT128_RK_WORDS, rk[2 * r], rk[2 * r + 1],
                                          rc[r]);
            } else {
                uint64_t K[BS_PRESENT_ROUND_KEYS];
                if (c == BSGPU_PRESENT80)
                    bs_present80_round_keys(K, key);
                else
                    bs_present128_round_keys(K, key);
                bs_present_expand_keys_u32(want, K);
            }
            assert_memory_equal(got, want, n * sizeof got[0]);
        }
}

/* The byte-permute transposes against the core's swap-move transpose and a byte swap. */
static void test_transposes(void **state)
{
    (void)state;
    for (int iter = 0; iter < 200; iter++) {
        uint32_t x[32], a[32], b[32];
        bs_test_fill((uint8_t *)x, sizeof x);
        memcpy(a, x, sizeof x);
        memcpy(b, x, sizeof x);
        bs_present_transpose32(a);
        bsgpu_transpose32(b);
        assert_memory_equal(a, b, sizeof a);
        memcpy(b, x, sizeof x);
        bsgpu_transpose32_be(b);
        for (unsigned l = 0; l < 32; l++) {
            uint8_t be[4];
            bs_store_be32(be, a[l]);
            assert_int_equal(b[l], bs_load_le32(be));
        }
        /* __byte_perm's selection, byte by byte. */
        const unsigned sel = x[0] & 0x7777u;
        const uint32_t r = bsgpu_prmt(x[1], x[2], sel);
        for (unsigned k = 0; k < 4; k++) {
            const unsigned from = (sel >> (4 * k)) & 7;
            const uint32_t src = from < 4 ? x[1] : x[2];
            assert_int_equal((r >> (8 * k)) & 0xff, (src >> (8 * (from & 3))) & 0xff);
        }
    }
}

/* Bitsliced counters against plain additions, for every limb and lane. */
static void test_counter_bitslice(void **state)
{
    (void)state;
    for (int iter = 0; iter < 2000; iter++) {
        uint8_t ctr[32];
        uint32_t B[8], x[256];
        edge_counter(ctr, 32, (unsigned)iter % 6);
        bsgpu_limbs_from_be(B, ctr, 8);
        const unsigned first = (unsigned)iter % 8, n = 1 + bs_test_below(8 - first);
        bsgpu_ctr_bitslice(x, B, first, n);
        for (unsigned l = 0; l < 32; l++) {
            uint8_t want[32];
            uint32_t W[8];
            memcpy(want, ctr, 32);
            bs_ctr_add(want, 32, l);
            bsgpu_limbs_from_be(W, want, 8);
            for (unsigned k = 0; k < n; k++)
                for (unsigned b = 0; b < 32; b++)
                    assert_int_equal((x[32 * k + b] >> l) & 1, (W[first + k] >> b) & 1);
        }
    }
}

/* One segment per launch: sizes from 1 block to several warps, edge counters. */
static void test_single_segments(void **state)
{
    (void)state;
    enum { MAXB = 3000 };
    static uint8_t got[MAXB * 32], want[MAXB * 32];
    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        const bs_block_cipher *core = cores[c];
        const size_t bl = core->block_len;
        for (int iter = 0; iter < 40; iter++) {
            uint8_t key[32], ctr[32];
            bs_key_schedule ks;
            bsgpu_key dk;
            bsgpu_segment seg;
            bs_test_fill(key, core->key_len);
            edge_counter(ctr, bl, (unsigned)iter % 6);
            core->set_key(&ks, key);
            bsgpu_key_from_bytes(&dk, (bsgpu_cipher)c, key);
            memset(&seg, 0, sizeof seg);
            seg.nblocks = iter < 34 ? (uint64_t)iter + 1 : 1 + bs_test_below(MAXB);
            bsgpu_segment_set_counter(&seg, (bsgpu_cipher)c, ctr);
            const uint64_t ngroups = bsgpu_plan(&seg, 1, (bsgpu_cipher)c);
            memset(got, 0xa5, sizeof got);
            assert_int_equal(bsgpu_launch_host((bsgpu_cipher)c, &seg, 1, &dk, ngroups, got), 0);
            bs_ctr_keystream(core, &ks, ctr, seg.nblocks, want);
            if (memcmp(got, want, seg.nblocks * bl) != 0) {
                printf("%s, %llu blocks\n", core->name, (unsigned long long)seg.nblocks);
                bs_test_hexdump("counter", ctr, bl);
                bs_test_hexdump("gpu", got, bl * 2);
                bs_test_hexdump("cpu", want, bl * 2);
                fail();
            }
            /* Nothing written past the segment. */
            assert_int_equal(got[seg.nblocks * bl], 0xa5);
        }
    }
}

/*
 * Many sessions in one launch: shared and distinct keys, empty segments, output placed out of
 * order with gaps, each compared with its own bs_ctr_keystream.
 */
static void test_segment_tables(void **state)
{
    (void)state;
    enum { NSEG = 120, NKEY = 17, MAXB = 700 };
    static uint8_t got[NSEG * (MAXB + 1) * 32], want[MAXB * 32];
    static bsgpu_segment seg[NSEG];
    static uint8_t ctrs[NSEG][32];
    static bsgpu_key dk[NKEY];
    static bs_key_schedule ks[NKEY];
    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        const bs_block_cipher *core = cores[c];
        const size_t bl = core->block_len;
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < NKEY; k++) {
                uint8_t key[32];
                bs_test_fill(key, core->key_len);
                core->set_key(&ks[k], key);
                assert_int_equal(bsgpu_key_from_schedule(&dk[k], core, &ks[k]), 0);
            }
            /* Output slots in a shuffled order, one slot of MAXB + 1 blocks per segment. */
            uint32_t slot[NSEG];
            for (uint32_t s = 0; s < NSEG; s++)
                slot[s] = s;
            for (uint32_t s = NSEG - 1; s > 0; s--) {
                uint32_t t = bs_test_below(s + 1), v = slot[s];
                slot[s] = slot[t];
                slot[t] = v;
            }
            for (uint32_t s = 0; s < NSEG; s++) {
                memset(&seg[s], 0, sizeof seg[s]);
                const uint32_t r = bs_test_below(10);
                seg[s].nblocks = r == 0 ? 0 : r == 1 ? 1 + bs_test_below(32) : bs_test_below(MAXB);
                seg[s].key_index = bs_test_below(NKEY);
                seg[s].out_offset = (uint64_t)slot[s] * (MAXB + 1) * bl;
                edge_counter(ctrs[s], bl, bs_test_below(6));
                bsgpu_segment_set_counter(&seg[s], (bsgpu_cipher)c, ctrs[s]);
            }
            const uint64_t ngroups = bsgpu_plan(seg, NSEG, (bsgpu_cipher)c);
            for (uint32_t s = 0; s < NSEG; s++)
                assert_int_equal(seg[s].first_group % bsgpu_warp_groups((bsgpu_cipher)c), 0);
            memset(got, 0x5a, NSEG * (MAXB + 1) * bl);
            assert_int_equal(bsgpu_launch_host((bsgpu_cipher)c, seg, NSEG, dk, ngroups, got), 0);
            for (uint32_t s = 0; s < NSEG; s++) {
                const uint8_t *g = got + seg[s].out_offset;
                bs_ctr_keystream(core, &ks[seg[s].key_index], ctrs[s], seg[s].nblocks, want);
                assert_memory_equal(g, want, seg[s].nblocks * bl);
                for (size_t i = seg[s].nblocks * bl; i < (MAXB + 1) * bl; i++)
                    assert_int_equal(g[i], 0x5a);
            }
        }
    }
}

/* The lookup itself: every group of every segment, and the padding groups, land right. */
static void test_segment_find(void **state)
{
    (void)state;
    enum { NSEG = 300 };
    static bsgpu_segment seg[NSEG];
    for (int c = 0; c < BSGPU_NCIPHERS; c++)
        for (int round = 0; round < 5; round++) {
            for (uint32_t s = 0; s < NSEG; s++) {
                memset(&seg[s], 0, sizeof seg[s]);
                seg[s].nblocks = bs_test_below(4) == 0 ? 0 : bs_test_below(5000);
            }
            const uint64_t ngroups = bsgpu_plan(seg, NSEG, (bsgpu_cipher)c);
            uint64_t seen = 0;
            uint64_t blocks = 0;
            for (uint64_t group = 0; group < ngroups; group++) {
                uint32_t s;
                uint64_t g;
                unsigned n = bsgpu_group_locate(seg, NSEG, (uint32_t)group, &s, &g);
                if (n == 0)
                    continue;
                assert_true(s < NSEG);
                assert_true(g * 32 + n <= seg[s].nblocks);
                seen += n;
            }
            for (uint32_t s = 0; s < NSEG; s++)
                blocks += seg[s].nblocks;
            assert_int_equal(seen, blocks);
        }
}

/*
 * The bulk path's planner: jobs cut into launches of a small device buffer (so that jobs
 * straddle launches), each launch run on the host and copied out as the copy list says.
 */
static void test_plan_launches(void **state)
{
    (void)state;
    enum { NJOB = 60, NKEY = 5, MAXB = 1500, MAXSEG = 16 };
    static uint8_t dst[NJOB * (MAXB * 32 + 8)], want[MAXB * 32], dev[128 * 1024];
    static bsgpu_job jobs[NJOB];
    static bsgpu_key dk[NKEY];
    static bs_key_schedule ks[NKEY];
    bsgpu_segment seg[MAXSEG];
    bsgpu_copy copy[MAXSEG];
    uint32_t copies = 0, merged = 0;
    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        const bs_block_cipher *core = cores[c];
        const size_t bl = core->block_len;
        for (int k = 0; k < NKEY; k++) {
            uint8_t key[32];
            bs_test_fill(key, core->key_len);
            core->set_key(&ks[k], key);
            assert_int_equal(bsgpu_key_from_schedule(&dk[k], core, &ks[k]), 0);
        }
        /* Jobs back to back in one buffer, every third followed by a gap: the copies of
         * neighbours merge where both sides continue each other. */
        memset(dst, 0x77, sizeof dst);
        size_t off = 0;
        for (int j = 0; j < NJOB; j++) {
            edge_counter(jobs[j].counter, bl, bs_test_below(6));
            jobs[j].nblocks = bs_test_below(5) == 0 ? 0 : bs_test_below(MAXB);
            if (j % 2 == 0) /* short, of whole 16-byte chunks: merges with the next */
                jobs[j].nblocks = 2 * bs_test_below(100);
            jobs[j].key_index = bs_test_below(NKEY);
            jobs[j].dst = dst + off;
            off += jobs[j].nblocks * bl + (j % 3 == 2 ? 8 : 0);
        }
        /* A buffer of 1 to 8 warps of groups. */
        const uint64_t warp_bytes = (uint64_t)bsgpu_warp_groups((bsgpu_cipher)c) * 32 * bl;
        const uint64_t max_bytes = warp_bytes * (1 + bs_test_below(8));
        assert_true(max_bytes <= sizeof dev);
        bsgpu_cursor cur = {0, 0};
        uint64_t ngroups, launches = 0;
        uint32_t n;
        while ((n = bsgpu_plan_launch((bsgpu_cipher)c, jobs, NJOB, &cur, max_bytes, MAXSEG, seg,
                                      copy, &ngroups)) > 0) {
            assert_true(ngroups * 32 * bl <= max_bytes);
            assert_int_equal(bsgpu_launch_host((bsgpu_cipher)c, seg, n, dk, ngroups, dev), 0);
            /* Packed output: 16-byte aligned segments, one dense range. */
            for (uint32_t i = 0; i < n; i++) {
                assert_int_equal(seg[i].out_offset % 16, 0);
                if (i > 0)
                    assert_int_equal(seg[i].out_offset,
                                     seg[i - 1].out_offset +
                                         (seg[i - 1].nblocks * bl + 15) / 16 * 16);
            }
            copies += n;
            n = bsgpu_merge_copies(copy, n);
            merged += n;
            for (uint32_t i = 0; i < n; i++)
                memcpy(copy[i].dst, dev + copy[i].src_offset, copy[i].len);
            launches++;
        }
        assert_true(launches > 1);
        for (int j = 0; j < NJOB; j++) {
            bs_ctr_keystream(core, &ks[jobs[j].key_index], jobs[j].counter, jobs[j].nblocks, want);
            assert_memory_equal(jobs[j].dst, want, jobs[j].nblocks * bl);
            if (j % 3 == 2)
                assert_int_equal(jobs[j].dst[jobs[j].nblocks * bl], 0x77);
        }
    }
    /* Some neighbours were merged into one copy. */
    assert_true(merged < copies);
}

/*
 * The self-check's digest, one kernel a launch (bsgpu_digest.h): jobs of 0 to 5 chunks
 * (BSGPU_DIGEST_CHUNK words) cut across launches, each launch's copies planned into digest
 * segments and digested by the kernel's warp code on the host; every job's sum equals the window
 * digest terms of its bytes, and a copy outside every job is refused.
 */
/*
 * Two jobs whose windows touch in the address space, planned into one launch back to back: their
 * copies merge into one within one region (jobs in one buffer), and stay two when the windows
 * are in different regions (two clients' mappings, each registered on its own: CUDA refuses one
 * copy across both).
 */
static void test_merge_regions(void **state)
{
    (void)state;
    static uint8_t buf[2 * 8192];
    static const char map_a[1] = {0}, map_b[1] = {0};
    bsgpu_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    for (int j = 0; j < 2; j++) {
        jobs[j].nblocks = 1024; /* one warp of PRESENT groups: outputs back to back */
        jobs[j].dst = buf + 8192 * j;
    }
    for (int same = 0; same < 2; same++) {
        jobs[0].region = map_a;
        jobs[1].region = same ? map_a : map_b;
        bsgpu_segment seg[4];
        bsgpu_copy copy[4];
        bsgpu_cursor cur = {0, 0};
        uint64_t ngroups;
        const uint32_t n =
            bsgpu_plan_launch(BSGPU_PRESENT80, jobs, 2, &cur, 1 << 20, 4, seg, copy, &ngroups);
        assert_int_equal(n, 2);
        assert_true(copy[0].src_offset + copy[0].len == copy[1].src_offset);
        assert_ptr_equal(copy[0].dst + copy[0].len, copy[1].dst);
        assert_ptr_equal(copy[1].region, jobs[1].region);
        const uint32_t m = bsgpu_merge_copies(copy, n);
        assert_int_equal(m, same ? 1 : 2);
        assert_ptr_equal(copy[0].dst, buf);
        assert_int_equal(copy[0].len, same ? 16384 : 8192);
    }
}

static void test_digest_launches(void **state)
{
    (void)state;
    enum { NJOB = 30, NKEY = 3, MAXSEG = 16 };
    static uint8_t dst[NJOB][5 * BSGPU_DIGEST_CHUNK * 8 + 64],
        want[5 * BSGPU_DIGEST_CHUNK * 8 + 64], dev[256 * 1024];
    static bsgpu_job jobs[NJOB];
    static bsgpu_key dk[NKEY];
    static bs_key_schedule ks[NKEY];
    bsgpu_segment seg[MAXSEG];
    bsgpu_copy copy[MAXSEG];
    bsgpu_digest_seg ds[MAXSEG];
    uint64_t seeds[NJOB], word0s[NJOB], sums[NJOB];
    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        const bs_block_cipher *core = cores[c];
        const size_t bl = core->block_len;
        for (int k = 0; k < NKEY; k++) {
            uint8_t key[32];
            bs_test_fill(key, core->key_len);
            core->set_key(&ks[k], key);
            assert_int_equal(bsgpu_key_from_schedule(&dk[k], core, &ks[k]), 0);
        }
        for (int j = 0; j < NJOB; j++) {
            edge_counter(jobs[j].counter, bl, bs_test_below(6));
            /* Around chunk boundaries: k chunks, a block more or less. */
            const uint64_t chunk_blocks = BSGPU_DIGEST_CHUNK * 8 / bl;
            const uint64_t k = bs_test_below(5);
            jobs[j].nblocks = k * chunk_blocks + (bs_test_below(3) == 0 ? 1 : 0);
            if (k > 0 && bs_test_below(3) == 0)
                jobs[j].nblocks -= 1;
            if (bs_test_below(4) == 0)
                jobs[j].nblocks = bs_test_below(200);
            jobs[j].key_index = bs_test_below(NKEY);
            jobs[j].dst = dst[j];
            uint8_t sd[16];
            bs_test_fill(sd, sizeof sd);
            memcpy(&seeds[j], sd, 8);
            memcpy(&word0s[j], sd + 8, 8);
        }
        memset(sums, 0, sizeof sums);
        const uint64_t max_bytes = sizeof dev / 2 + bs_test_below(sizeof dev / 2);
        bsgpu_cursor cur = {0, 0};
        uint64_t ngroups;
        uint32_t n, nchunks, launches = 0;
        size_t job = 0;
        while ((n = bsgpu_plan_launch((bsgpu_cipher)c, jobs, NJOB, &cur, max_bytes, MAXSEG, seg,
                                      copy, &ngroups)) > 0) {
            assert_int_equal(bsgpu_launch_host((bsgpu_cipher)c, seg, n, dk, ngroups, dev), 0);
            for (uint32_t i = 0; i < n; i++)
                memcpy(copy[i].dst, dev + copy[i].src_offset, copy[i].len);
            assert_int_equal(bsgpu_plan_digest((bsgpu_cipher)c, copy, n, jobs, NJOB, seeds, word0s,
                                               &job, ds, &nchunks),
                             n);
            uint32_t want_chunks = 0;
            for (uint32_t i = 0; i < n; i++) {
                assert_int_equal(ds[i].chunk_first, want_chunks);
                assert_int_equal(ds[i].src_offset % 8, 0); /* the device's 8-byte loads */
                want_chunks +=
                    (uint32_t)((copy[i].len / 8 + BSGPU_DIGEST_CHUNK - 1) / BSGPU_DIGEST_CHUNK);
            }
            assert_int_equal(nchunks, want_chunks);
            bsgpu_digest_host(ds, n, nchunks, dev, sums);
            launches++;
        }
        assert_true(launches > 1);
        for (int j = 0; j < NJOB; j++) {
            bs_ctr_keystream(core, &ks[jobs[j].key_index], jobs[j].counter, jobs[j].nblocks, want);
            assert_memory_equal(jobs[j].dst, want, jobs[j].nblocks * bl);
            uint64_t sum = 0;
            for (uint64_t w = 0; w < jobs[j].nblocks * bl / 8; w++) {
                uint64_t x;
                memcpy(&x, want + 8 * w, 8);
                sum += bs_digest_word(seeds[j], word0s[j] + w, x);
            }
            if (sum != sums[j]) {
                printf("%s job %d (%llu blocks): digest differs\n", core->name, j,
                       (unsigned long long)jobs[j].nblocks);
                fail();
            }
        }
        /* A copy into no job is a planning error. */
        bsgpu_copy stray = {0, want, 8, NULL};
        job = 0;
        assert_int_equal(bsgpu_plan_digest((bsgpu_cipher)c, &stray, 1, jobs, NJOB, seeds, word0s,
                                           &job, ds, &nchunks),
                         -1);
    }
}

/* A sample of a batch recomputed through another launch plan agrees, and catches a wrong byte. */
static void test_sample_jobs(void **state)
{
    (void)state;
    enum { NJOB = 40, NKEY = 6, MAXB = 900, NS = 16, SB = 24 };
    static uint8_t dst[NJOB][MAXB * 32], scratch[NS * SB * 32], dev[256 * 1024];
    static bsgpu_job jobs[NJOB], sample[NS];
    static bsgpu_key dk[NKEY];
    bsgpu_sample_where where[NS];
    bsgpu_segment seg[64];
    bsgpu_copy copy[64];
    for (int c = 0; c < BSGPU_NCIPHERS; c++) {
        const bs_block_cipher *core = cores[c];
        for (int k = 0; k < NKEY; k++) {
            uint8_t key[32];
            bs_test_fill(key, core->key_len);
            bsgpu_key_from_bytes(&dk[k], (bsgpu_cipher)c, key);
        }
        for (int j = 0; j < NJOB; j++) {
            edge_counter(jobs[j].counter, core->block_len, bs_test_below(6));
            jobs[j].nblocks = bs_test_below(4) == 0 ? bs_test_below(3) : bs_test_below(MAXB);
            jobs[j].key_index = bs_test_below(NKEY);
            jobs[j].dst = dst[j];
        }
        /* The batch, and then its sample, each through the planner and the launches. */
        const bsgpu_job *lists[2] = {jobs, sample};
        size_t counts[2] = {NJOB, 0};
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                counts[1] = bsgpu_sample_jobs((bsgpu_cipher)c, jobs, NJOB, NS, SB, bs_test_rand64(),
                                              scratch, sample, where);
                assert_int_equal(counts[1], NS);
                assert_int_equal(where[0].block, 0);
            }
            bsgpu_cursor cur = {0, 0};
            uint64_t ngroups;
            uint32_t n;
            while ((n = bsgpu_plan_launch((bsgpu_cipher)c, lists[pass], counts[pass], &cur,
                                          sizeof dev, 64, seg, copy, &ngroups)) > 0) {
                assert_int_equal(bsgpu_launch_host((bsgpu_cipher)c, seg, n, dk, ngroups, dev), 0);
                for (uint32_t i = 0; i < n; i++)
                    memcpy(copy[i].dst, dev + copy[i].src_offset, copy[i].len);
            }
        }
        assert_int_equal(bsgpu_sample_check((bsgpu_cipher)c, jobs, sample, where, NS), -1);
        /* One wrong byte inside a sampled range is seen. */
        const size_t i = bs_test_below(NS);
        jobs[where[i].job].dst[where[i].block * core->block_len +
                               bs_test_below((uint32_t)(sample[i].nblocks * core->block_len))] ^=
            0x10;
        assert_true(bsgpu_sample_check((bsgpu_cipher)c, jobs, sample, where, NS) >= 0);
    }
}

int main(void)
{
    bs_test_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_from_schedule), cmocka_unit_test(test_keys_from_every_core),
        cmocka_unit_test(test_key_expand),         cmocka_unit_test(test_transposes),
        cmocka_unit_test(test_counter_bitslice),   cmocka_unit_test(test_single_segments),
        cmocka_unit_test(test_segment_find),       cmocka_unit_test(test_segment_tables),
        cmocka_unit_test(test_plan_launches),      cmocka_unit_test(test_sample_jobs),
        cmocka_unit_test(test_digest_launches),    cmocka_unit_test(test_merge_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
