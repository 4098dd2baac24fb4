#include "bsgpu_host.h"

#include "modes/ctr.h"

#include <stdlib.h>
#include <string.h>

void bsgpu_segment_set_counter(bsgpu_segment *seg, bsgpu_cipher c, const uint8_t *counter)
{
    memset(seg->counter, 0, sizeof seg->counter);
    bsgpu_limbs_from_be(seg->counter, counter, bsgpu_block_len(c) / 4);
}

void bsgpu_expand_keys_host(bsgpu_cipher c, const bsgpu_key *keys, uint32_t nkeys, uint32_t *xkeys)
{
    const unsigned stride = bsgpu_xkey_stride(c);
    for (uint32_t k = 0; k < nkeys; k++) {
        uint32_t *x = xkeys + (size_t)k * stride;
        memset(x, 0, stride * sizeof *x);
        if (c == BSGPU_RIJNDAEL256) {
            memcpy(x, keys[k].w, sizeof keys[k].w);
            continue;
        }
        /* The pre-kernel's warp, lane by lane. */
        for (unsigned lane = 0; lane < BSGPU_WARP; lane++)
            bsgpu_key_expand(x, c, keys[k].w, lane, BSGPU_WARP);
    }
}

/* One warp of PRESENT or GIFT groups, lane by lane, through the staging slot as on the device. */
/* A segment's key in device form: the call's (xkeys) or a resident slot of table. */
static const uint32_t *seg_key(const bsgpu_segment *sg, const uint32_t *xkeys, unsigned stride,
                               const uint32_t *table)
{
    if (sg->key_index & BSGPU_KEY_RESIDENT)
        return table + (size_t)(sg->key_index & ~BSGPU_KEY_RESIDENT) * BSGPU_XKEY_STRIDE_MAX;
    return xkeys + (size_t)sg->key_index * stride;
}

void bsgpu_keys_update_host(uint32_t *table, const bsgpu_keyop *ops, const bsgpu_key *keys,
                            uint32_t n)
{
    /* The update pre-kernel's warps, lane by lane (one warp an op). */
    for (uint32_t i = 0; i < n; i++)
        for (unsigned lane = 0; lane < BSGPU_WARP; lane++)
            bsgpu_keyop_apply(table + (size_t)ops[i].slot * BSGPU_XKEY_STRIDE_MAX, &ops[i],
                              keys[i].w, lane, BSGPU_WARP);
}

static int warp_host(bsgpu_cipher c, const bsgpu_segment *seg, uint32_t nseg, const uint32_t *xkeys,
                     const uint32_t *table, uint64_t w0, uint8_t *out, uint32_t *slot)
{
    const unsigned bl = bsgpu_block_len(c), nw = bl / 4;
    const unsigned stride = bsgpu_xkey_stride(c);
    uint32_t s0;
    uint64_t g0;
    bsgpu_group_locate(seg, nseg, (uint32_t)w0, &s0, &g0);
    uint64_t off;
    const unsigned nbytes = bsgpu_warp_bytes(&seg[s0], g0, bl, &off);
    if (nbytes == 0)
        return 0;
    /* The warp's copy of its key. */
    memcpy(slot, seg_key(&seg[s0], xkeys, stride, table), stride * sizeof *slot);
    uint32_t y[128], ys[BSGPU_WARP][128];
    for (unsigned t = 0; t < BSGPU_WARP; t++) {
        uint32_t s;
        uint64_t g;
        bsgpu_group_locate(seg, nseg, (uint32_t)(w0 + t), &s, &g);
        if (s != s0)
            return -1;
        uint32_t B[8];
        bsgpu_group_counter(B, &seg[s], nw, g);
        if (c == BSGPU_GIFT64)
            bsgpu_gift64_y(y, slot, B);
        else if (c == BSGPU_GIFT128)
            bsgpu_gift128_y(y, slot, B);
        else
            bsgpu_present_y(y, slot, B);
        memcpy(ys[t], y, sizeof y);
    }
    /* Every lane has read the key before any overwrites the slot with output (__syncwarp). */
    for (unsigned t = 0; t < BSGPU_WARP; t++)
        bsgpu_stage_write(slot, t, ys[t], nw);
    for (unsigned i = 0; i < BSGPU_WARP; i++)
        bsgpu_stage_store(out + off, slot, i, nw, nbytes);
    return 0;
}

int bsgpu_launch_host(bsgpu_cipher c, const bsgpu_segment *seg, uint32_t nseg,
                      const bsgpu_key *keys, uint64_t ngroups, uint8_t *out)
{
    return bsgpu_launch_host_table(c, seg, nseg, keys, NULL, ngroups, out);
}

int bsgpu_launch_host_table(bsgpu_cipher c, const bsgpu_segment *seg, uint32_t nseg,
                            const bsgpu_key *keys, const uint32_t *table, uint64_t ngroups,
                            uint8_t *out)
{
    const unsigned bl = bsgpu_block_len(c), wg = bsgpu_warp_groups(c);
    const unsigned stride = bsgpu_xkey_stride(c);
    uint32_t nkeys = 0;
    for (uint32_t s = 0; s < nseg; s++) {
        if (seg[s].key_index & BSGPU_KEY_RESIDENT) {
            if (table == NULL)
                return -1;
        } else if (seg[s].key_index + 1 > nkeys) {
            nkeys = seg[s].key_index + 1;
        }
    }
    /* The expanded keys, then the warp's shared-memory slot (per call: callers run in threads). */
    uint32_t *xkeys =
        (uint32_t *)malloc(((size_t)nkeys * stride + BSGPU_SLOT_GIFT128) * sizeof *xkeys);
    if (xkeys == NULL)
        return -1;
    uint32_t *slot = xkeys + (size_t)nkeys * stride;
    /* The keys the segments use, each once (the pre-kernel expands every key of a call). */
    for (uint32_t s = 0; s < nseg; s++) {
        uint32_t k = seg[s].key_index, seen = (k & BSGPU_KEY_RESIDENT) != 0;
        for (uint32_t t = 0; t < s && !seen; t++)
            seen = seg[t].key_index == k;
        if (!seen)
            bsgpu_expand_keys_host(c, keys + k, 1, xkeys + (size_t)k * stride);
    }
    int rc = 0;
    for (uint64_t w0 = 0; w0 < ngroups && rc == 0; w0 += wg) {
        if (c != BSGPU_RIJNDAEL256) {
            rc = warp_host(c, seg, nseg, xkeys, table, w0, out, slot);
            continue;
        }
        uint32_t warp_seg = 0;
        for (uint64_t group = w0; group < w0 + wg; group++) {
            uint32_t s;
            uint64_t g;
            const unsigned nvalid = bsgpu_group_locate(seg, nseg, (uint32_t)group, &s, &g);
            if (group == w0)
                warp_seg = s;
            else if (s != warp_seg)
                rc = -1;
            if (nvalid == 0 || rc != 0)
                continue;
            uint32_t B[8];
            bsgpu_group_counter(B, &seg[s], bl / 4, g);
            uint8_t *dst = out + seg[s].out_offset + g * BSGPU_GROUP_BLOCKS * bl;
            bsgpu_r256_group_host(dst, seg_key(&seg[s], xkeys, stride, table), B, nvalid);
        }
    }
    free(xkeys);
    return rc;
}

uint32_t bsgpu_plan_launch(bsgpu_cipher c, const bsgpu_job *jobs, size_t njobs, bsgpu_cursor *cur,
                           uint64_t max_bytes, uint32_t max_seg, bsgpu_segment *seg,
                           bsgpu_copy *copy, uint64_t *ngroups)
{
    const uint64_t bl = bsgpu_block_len(c), wg = bsgpu_warp_groups(c);
    const uint64_t group_bytes = BSGPU_GROUP_BLOCKS * bl;
    /* Whole warps of groups; the output of group n sits at n * group_bytes. */
    const uint64_t max_groups = max_bytes / group_bytes / wg * wg;
    uint64_t next = 0, obytes = 0;
    uint32_t n = 0;
    while (cur->job < njobs && n < max_seg && next < max_groups) {
        const bsgpu_job *j = &jobs[cur->job];
        if (cur->block >= j->nblocks) {
            cur->job++;
            cur->block = 0;
            continue;
        }
        const uint64_t left = j->nblocks - cur->block;
        const uint64_t room = (max_groups - next) * BSGPU_GROUP_BLOCKS;
        const uint64_t take = left < room ? left : room;
        uint8_t ctr[32];
        memcpy(ctr, j->counter, bl);
        bs_ctr_add(ctr, bl, cur->block);
        memset(&seg[n], 0, sizeof seg[n]);
        bsgpu_segment_set_counter(&seg[n], c, ctr);
        seg[n].nblocks = take;
        seg[n].key_index = j->key_index;
        seg[n].first_group = (uint32_t)next;
        seg[n].out_offset = obytes;
        copy[n].src_offset = seg[n].out_offset;
        copy[n].dst = j->dst + cur->block * bl;
        copy[n].len = take * bl;
        copy[n].region = j->region;
        const uint64_t groups = (take + BSGPU_GROUP_BLOCKS - 1) / BSGPU_GROUP_BLOCKS;
        next += (groups + wg - 1) / wg * wg;
        obytes += (take * bl + 15) / 16 * 16;
        cur->block += take;
        n++;
    }
    *ngroups = next;
    return n;
}

uint32_t bsgpu_merge_copies(bsgpu_copy *copy, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (m > 0 && copy[m - 1].src_offset + copy[m - 1].len == copy[i].src_offset &&
            copy[m - 1].dst + copy[m - 1].len == copy[i].dst &&
            copy[m - 1].region == copy[i].region) {
            copy[m - 1].len += copy[i].len;
            continue;
        }
        copy[m++] = copy[i];
    }
    return m;
}

size_t bsgpu_sample_jobs(bsgpu_cipher c, const bsgpu_job *jobs, size_t njobs, size_t nsample,
                         uint64_t nblocks, uint64_t seed, uint8_t *scratch, bsgpu_job *sample,
                         bsgpu_sample_where *where)
{
    const unsigned bl = bsgpu_block_len(c);
    size_t nonempty = 0, n = 0;
    for (size_t j = 0; j < njobs; j++)
        nonempty += jobs[j].nblocks > 0;
    if (nonempty == 0 || nblocks == 0)
        return 0;
    uint64_t x = seed | 1;
    for (size_t i = 0; i < nsample; i++) {
        /* xorshift64: public positions, no need for more */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t pick = (size_t)(x % nonempty), j = 0;
        for (;; j++)
            if (jobs[j].nblocks > 0 && pick-- == 0)
                break;
        const bsgpu_job *job = &jobs[j];
        const uint64_t len = job->nblocks < nblocks ? job->nblocks : nblocks;
        const uint64_t room = job->nblocks - len;
        /* The first sub-jobs take each end of a job: where carries and launch splits show. */
        const uint64_t first = i == 0 ? 0 : i == 1 ? room : (x >> 17) % (room + 1);
        bsgpu_job *sj = &sample[n];
        memcpy(sj->counter, job->counter, bl);
        bs_ctr_add(sj->counter, bl, first);
        sj->nblocks = len;
        sj->key_index = job->key_index;
        sj->dst = scratch + n * nblocks * bl;
        where[n].job = j;
        where[n].block = first;
        n++;
    }
    return n;
}

long bsgpu_sample_check(bsgpu_cipher c, const bsgpu_job *jobs, const bsgpu_job *sample,
                        const bsgpu_sample_where *where, size_t n)
{
    const unsigned bl = bsgpu_block_len(c);
    for (size_t i = 0; i < n; i++)
        if (memcmp(jobs[where[i].job].dst + where[i].block * bl, sample[i].dst,
                   sample[i].nblocks * bl) != 0)
            return (long)i;
    return -1;
}

long bsgpu_plan_digest(bsgpu_cipher c, const bsgpu_copy *cp, uint32_t ncp, const bsgpu_job *jobs,
                       size_t njobs, const uint64_t *seeds, const uint64_t *word0s, size_t *job,
                       bsgpu_digest_seg *ds, uint32_t *nchunks)
{
    const unsigned bl = bsgpu_block_len(c);
    uint32_t chunks = 0;
    for (uint32_t i = 0; i < ncp; i++) {
        while (*job < njobs && !(cp[i].dst >= jobs[*job].dst &&
                                 cp[i].dst < jobs[*job].dst + jobs[*job].nblocks * bl))
            (*job)++;
        if (*job == njobs)
            return -1;
        const size_t j = *job;
        ds[i].src_offset = cp[i].src_offset;
        ds[i].nwords = cp[i].len / 8;
        ds[i].seed = seeds[j];
        ds[i].word0 = word0s[j] + (uint64_t)(cp[i].dst - jobs[j].dst) / 8;
        ds[i].job = (uint32_t)j;
        ds[i].chunk_first = chunks;
        chunks += (uint32_t)((ds[i].nwords + BSGPU_DIGEST_CHUNK - 1) / BSGPU_DIGEST_CHUNK);
    }
    *nchunks = chunks;
    return ncp;
}

void bsgpu_digest_host(const bsgpu_digest_seg *ds, uint32_t n, uint32_t nchunks,
                       const uint8_t *base, uint64_t *sums)
{
    for (uint32_t w = 0; w < nchunks; w++) {
        const uint32_t s = bsgpu_digest_find(ds, n, w);
        uint64_t acc = 0;
        for (unsigned lane = 0; lane < BSGPU_WARP; lane++)
            acc += bsgpu_digest_lane(&ds[s], w - ds[s].chunk_first, base, lane, BSGPU_WARP);
        sums[ds[s].job] += acc;
    }
}
