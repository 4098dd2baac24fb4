/*
 * bsgpu_keytab.c: the host's bookkeeping of device-resident keys (bsgpu_keytab.h). Slot state:
 * live (a session holds it) and, per device, pending (that device must load the slot's key, or,
 * once the slot is free, zero it). The compact key stays on the host while a live slot has a
 * device pending, and is wiped as soon as none has.
 */
#include "bsgpu_keytab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bsgpu.h" /* bs_wipe (bitslice.h), BSGPU_E_FULL */

static void wipe_key(bsgpu_keytab *t, uint32_t slot)
{
    bs_wipe(&t->keys[slot], sizeof t->keys[slot]);
}

int bsgpu_keytab_init(bsgpu_keytab *t, uint32_t cap, unsigned ndev)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    if (ndev > BSGPU_KEYTAB_MAX_DEV || cap == 0)
        return -1;
    t->keys_len = (size_t)cap * sizeof(bsgpu_key);
    void *p = mmap(NULL, t->keys_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        t->keys_len = 0;
        return -1;
    }
    t->keys = (bsgpu_key *)p;
    /* Out of core files; best effort, as the daemon's own key pool. Locked where the limit
     * allows (a failed mlock leaves the keys swappable: they live only until every device took
     * them). */
    (void)madvise(p, t->keys_len, MADV_DONTDUMP);
    (void)mlock(p, t->keys_len);
    t->live = (uint8_t *)calloc(cap, 1);
    t->cipher = (uint8_t *)calloc(cap, 1);
    t->pending = (uint32_t *)calloc(cap, sizeof *t->pending);
    t->free_slots = (uint32_t *)malloc(cap * sizeof *t->free_slots);
    if (t->live == NULL || t->cipher == NULL || t->pending == NULL || t->free_slots == NULL) {
        bsgpu_keytab_destroy(t);
        pthread_mutex_init(&t->lock, NULL);
        return -1;
    }
    t->cap = cap;
    for (uint32_t i = 0; i < cap; i++)
        t->free_slots[i] = cap - 1 - i; /* slot 0 first */
    t->nfree = cap;
    t->active = ndev == 32 ? 0xffffffffu : (1u << ndev) - 1;
    return 0;
}

void bsgpu_keytab_destroy(bsgpu_keytab *t)
{
    if (t->keys != NULL) {
        bs_wipe(t->keys, t->keys_len);
        munlock(t->keys, t->keys_len);
        munmap(t->keys, t->keys_len);
    }
    free(t->live);
    free(t->cipher);
    free(t->pending);
    free(t->free_slots);
    pthread_mutex_destroy(&t->lock);
    memset(t, 0, sizeof *t);
}

/* Sets the pending bits of slot for every device in service, counting the new ones. */
static void mark_pending(bsgpu_keytab *t, uint32_t slot)
{
    const uint32_t add = t->active & ~t->pending[slot];
    for (unsigned d = 0; d < BSGPU_KEYTAB_MAX_DEV; d++)
        if (add & (1u << d))
            t->npending[d]++;
    t->pending[slot] |= t->active;
}

int bsgpu_keytab_open(bsgpu_keytab *t, bsgpu_cipher c, const bsgpu_key *key, uint32_t *slot)
{
    pthread_mutex_lock(&t->lock);
    if (t->active == 0 || t->nfree == 0) {
        const int rc = t->active == 0 ? BSGPU_E_NODEV : BSGPU_E_FULL;
        t->full += rc == BSGPU_E_FULL;
        pthread_mutex_unlock(&t->lock);
        return rc;
    }
    const uint32_t s = t->free_slots[--t->nfree];
    t->keys[s] = *key;
    t->live[s] = 1;
    t->cipher[s] = (uint8_t)c;
    /* A zeroing still pending from the slot's last session becomes this load: the load zeroes
     * whatever of the slot the new key does not cover. */
    mark_pending(t, s);
    t->opened++;
    *slot = s;
    pthread_mutex_unlock(&t->lock);
    return 0;
}

void bsgpu_keytab_close(bsgpu_keytab *t, uint32_t slot)
{
    pthread_mutex_lock(&t->lock);
    if (slot < t->cap && t->live[slot]) {
        wipe_key(t, slot);
        t->live[slot] = 0;
        t->cipher[slot] = 0;
        mark_pending(t, slot);
        t->free_slots[t->nfree++] = slot;
    }
    pthread_mutex_unlock(&t->lock);
}

uint32_t bsgpu_keytab_take(bsgpu_keytab *t, unsigned dev, bsgpu_keyop *ops, bsgpu_key *keys,
                           uint32_t max)
{
    uint32_t n = 0;
    if (dev >= BSGPU_KEYTAB_MAX_DEV)
        return 0;
    const uint32_t bit = 1u << dev;
    pthread_mutex_lock(&t->lock);
    for (uint32_t s = 0; s < t->cap && n < max && t->npending[dev] > 0; s++) {
        if (!(t->pending[s] & bit))
            continue;
        ops[n].slot = s;
        ops[n].cipher = t->live[s] ? t->cipher[s] : 0;
        ops[n].load = t->live[s];
        if (t->live[s]) {
            keys[n] = t->keys[s];
            t->loads++;
        } else {
            memset(&keys[n], 0, sizeof keys[n]);
            t->wipes++;
        }
        t->pending[s] &= ~bit;
        t->npending[dev]--;
        if (t->live[s] && t->pending[s] == 0)
            wipe_key(t, s); /* every device in service has it */
        n++;
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

uint32_t bsgpu_keytab_pending(bsgpu_keytab *t, unsigned dev)
{
    if (dev >= BSGPU_KEYTAB_MAX_DEV)
        return 0;
    pthread_mutex_lock(&t->lock);
    const uint32_t n = t->npending[dev];
    pthread_mutex_unlock(&t->lock);
    return n;
}

void bsgpu_keytab_drop_device(bsgpu_keytab *t, unsigned dev)
{
    if (dev >= BSGPU_KEYTAB_MAX_DEV)
        return;
    const uint32_t bit = 1u << dev;
    pthread_mutex_lock(&t->lock);
    t->active &= ~bit;
    for (uint32_t s = 0; s < t->cap; s++) {
        if (!(t->pending[s] & bit))
            continue;
        t->pending[s] &= ~bit;
        if (t->live[s] && t->pending[s] == 0)
            wipe_key(t, s);
    }
    t->npending[dev] = 0;
    pthread_mutex_unlock(&t->lock);
}

int bsgpu_keytab_serves(bsgpu_keytab *t, unsigned dev)
{
    if (dev >= BSGPU_KEYTAB_MAX_DEV)
        return 0;
    pthread_mutex_lock(&t->lock);
    const int r = (t->active >> dev) & 1;
    pthread_mutex_unlock(&t->lock);
    return r;
}

uint32_t bsgpu_keytab_used(bsgpu_keytab *t)
{
    pthread_mutex_lock(&t->lock);
    const uint32_t n = t->cap - t->nfree;
    pthread_mutex_unlock(&t->lock);
    return n;
}
