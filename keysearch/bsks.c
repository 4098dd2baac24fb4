#include "bsks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct {
    const char *name;
    int cipher;
    unsigned key_bits, block_bits;
} bsks_ciphers[] = {
    {"PRESENT-80", BSGPU_PRESENT80, 80, 64},
    {"PRESENT-128", BSGPU_PRESENT128, 128, 64},
    {"GIFT-64", BSGPU_GIFT64, 128, 64},
    {"GIFT-128", BSGPU_GIFT128, 128, 128},
};

/* Bit i of a big-endian integer of n bytes. */
static unsigned be_bit(const uint8_t *p, size_t n, unsigned i)
{
    return (p[n - 1 - i / 8] >> (i % 8)) & 1u;
}

int bsks_prepare(bsks_search *s, const char *cipher, const uint8_t *key, const uint8_t *mask,
                 const uint8_t (*pt)[16], const uint8_t (*ct)[16], unsigned npairs, char *err,
                 size_t errlen)
{
    memset(s, 0, sizeof *s);
    int k = -1;
    for (int i = 0; i < 4; i++)
        if (strcmp(cipher, bsks_ciphers[i].name) == 0)
            k = i;
    if (k < 0) {
        snprintf(err, errlen, "key search supports " BSKS_CIPHER_NAMES);
        return -1;
    }
    if (npairs < 1 || npairs > BSKS_MAX_PAIRS) {
        snprintf(err, errlen, "give 1 to %d plaintext/ciphertext pairs", BSKS_MAX_PAIRS);
        return -1;
    }
    s->core = bs_block_cipher_by_name(cipher);
    if (s->core == NULL) {
        snprintf(err, errlen, "%s is not compiled in", cipher);
        return -1;
    }
    bsks_problem *pb = &s->pb;
    pb->cipher = bsks_ciphers[k].cipher;
    pb->key_bits = bsks_ciphers[k].key_bits;
    pb->block_bits = bsks_ciphers[k].block_bits;
    const size_t kl = pb->key_bits / 8, bl = pb->block_bits / 8;
    for (unsigned i = 0; i < 128; i++)
        pb->unknown_index[i] = -1;
    for (unsigned i = 0; i < pb->key_bits; i++) {
        if (be_bit(mask, kl, i)) {
            if (pb->nunknown == BSKS_MAX_UNKNOWN) {
                snprintf(err, errlen, "at most %d unknown key bits", BSKS_MAX_UNKNOWN);
                return -1;
            }
            pb->unknown_index[i] = (int8_t)pb->nunknown;
            pb->pos[pb->nunknown++] = (uint8_t)i;
        } else {
            pb->key_bit[i] = (uint8_t)be_bit(key, kl, i);
        }
    }
    for (unsigned i = 0; i < pb->block_bits; i++) {
        pb->pt_bit[i] = (uint8_t)be_bit(pt[0], bl, i);
        pb->ct_bit[i] = (uint8_t)be_bit(ct[0], bl, i);
    }
    for (size_t i = 0; i < kl; i++) {
        s->mask[i] = mask[i];
        s->key[i] = key[i] & (uint8_t)~mask[i];
    }
    s->npairs = npairs;
    memcpy(s->pt, pt, npairs * sizeof pt[0]);
    memcpy(s->ct, ct, npairs * sizeof ct[0]);
    return 0;
}

uint64_t bsks_chunks(const bsks_search *s, unsigned lanes_log2)
{
    const unsigned n = s->pb.nunknown;
    return n <= lanes_log2 ? 1 : (uint64_t)1 << (n - lanes_log2);
}

void bsks_candidate_key(const bsks_search *s, uint64_t v, uint8_t *key)
{
    const size_t kl = s->pb.key_bits / 8;
    memcpy(key, s->key, kl);
    for (unsigned u = 0; u < s->pb.nunknown; u++) {
        const unsigned i = s->pb.pos[u];
        key[kl - 1 - i / 8] |= (uint8_t)(((v >> u) & 1u) << (i % 8));
    }
}

int bsks_check_candidate(const bsks_search *s, uint64_t v, uint8_t *key)
{
    bs_key_schedule ks;
    uint8_t k[16], c[16];
    const size_t bl = s->pb.block_bits / 8;
    bsks_candidate_key(s, v, k);
    s->core->set_key(&ks, k);
    int ok = 1;
    for (unsigned p = 0; p < s->npairs && ok; p++) {
        s->core->encrypt(&ks, c, s->pt[p], 1);
        ok = memcmp(c, s->ct[p], bl) == 0;
    }
    if (ok)
        memcpy(key, k, s->pb.key_bits / 8);
    return ok;
}

typedef struct bsks_worker {
    pthread_t tid;
    const bsks_search *s;
    uint64_t first, last, step;
    atomic_int *found;
    atomic_uint *done; /* workers finished, for the progress display */
    uint64_t tried;
    int hit;
    uint8_t key[16];
} bsks_worker;

static void *bsks_work(void *arg)
{
    bsks_worker *w = (bsks_worker *)arg;
    const uint64_t tmask = ((uint64_t)1 << BSKS_TBITS) - 1;
    bsks_kwtab_u64 tab;
    uint64_t qbase = ~(uint64_t)0;
    for (uint64_t q = w->first; q < w->last; q += w->step) {
        /* Checked now and then: a found key stops the others within a few chunks. */
        if ((q & 63) == (w->first & 63) && atomic_load(w->found))
            break;
        if ((q & ~tmask) != qbase) {
            qbase = q & ~tmask;
            bsks_kwtab_make_u64(&tab, &w->s->pb, qbase);
        }
        uint64_t hit = bsks_chunk_tab_u64(&w->s->pb, &tab, (uint32_t)(q & tmask));
        /* Read by the progress display while this runs. */
        __atomic_store_n(&w->tried, w->tried + 64, __ATOMIC_RELAXED);
        while (hit != 0) {
            const unsigned lane = (unsigned)__builtin_ctzll(hit);
            hit &= hit - 1;
            if (bsks_check_candidate(w->s, q * 64 + lane, w->key)) {
                w->hit = 1;
                atomic_store(w->found, 1);
                return NULL;
            }
        }
    }
    return NULL;
}

/* A worker thread: its share, then one more done. */
static void *bsks_thread(void *arg)
{
    bsks_work(arg);
    atomic_fetch_add(((bsks_worker *)arg)->done, 1);
    return NULL;
}

void bsks_part(const bsks_search *s, unsigned lanes_log2, uint64_t k, uint64_t n, uint64_t *first,
               uint64_t *last)
{
    const unsigned __int128 c = bsks_chunks(s, lanes_log2);
    *first = (uint64_t)(c * k / n);
    *last = (uint64_t)(c * (k + 1) / n);
}

int bsks_search_cpu(const bsks_search *s, unsigned threads, uint64_t first, uint64_t last,
                    uint8_t *key, uint64_t *tried)
{
    return bsks_search_cpu_progress(s, threads, first, last, key, tried, NULL, NULL);
}

int bsks_search_cpu_progress(const bsks_search *s, unsigned threads, uint64_t first, uint64_t last,
                             uint8_t *key, uint64_t *tried, bsks_progress_fn fn, void *arg)
{
    enum { MAX_THREADS = 256 };
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (unsigned)n : 1;
    }
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    bsks_worker *w = (bsks_worker *)calloc(threads, sizeof *w);
    int *started = (int *)calloc(threads, sizeof *started);
    if (w == NULL || started == NULL) {
        free(w);
        free(started);
        *tried = 0;
        return -1;
    }
    atomic_int found;
    atomic_uint done;
    unsigned nstarted = 0;
    atomic_init(&found, 0);
    atomic_init(&done, 0);
    for (unsigned t = 0; t < threads; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].s = s;
        w[t].first = first + t;
        w[t].last = last;
        w[t].step = threads;
        w[t].found = &found;
        w[t].done = &done;
        started[t] =
            (t != 0 || fn != NULL) && pthread_create(&w[t].tid, NULL, bsks_thread, &w[t]) == 0;
        nstarted += (unsigned)started[t];
    }
    if (fn != NULL) {
        /* Every worker is a thread: this one reports until they are all done. */
        for (;;) {
            uint64_t sum = 0;
            for (unsigned t = 0; t < threads; t++)
                sum += __atomic_load_n(&w[t].tried, __ATOMIC_RELAXED);
            const int all_done = atomic_load(&done) == nstarted;
            fn(sum, arg);
            if (all_done)
                break;
            struct timespec ts = {0, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    /* Thread 0's share, and that of any thread that did not start, run here. */
    for (unsigned t = 0; t < threads; t++)
        if (!started[t])
            bsks_work(&w[t]);
    int hit = 0;
    *tried = 0;
    for (unsigned t = 0; t < threads; t++) {
        if (started[t])
            pthread_join(w[t].tid, NULL);
        *tried += w[t].tried;
        if (w[t].hit && !hit) {
            hit = 1;
            memcpy(key, w[t].key, s->pb.key_bits / 8);
        }
    }
    free(w);
    free(started);
    return hit;
}
