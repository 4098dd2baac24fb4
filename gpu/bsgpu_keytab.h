/*
 * bsgpu_keytab.h: the host's bookkeeping of device-resident keys (no CUDA; tests/gpu runs it on
 * the CPU). One table serves every device of a process: a session gets a slot at OPEN
 * (bsgpu_keytab_open) and gives it back at CLOSE (bsgpu_keytab_close); each device then catches up
 * with the changes in one call (bsgpu_keytab_take, then bsgpu_keys_update of bsgpu.h): a slot's key
 * is uploaded and expanded once per device, and a closed slot is zeroed on every device that held
 * it. The host keeps a slot's compact key only until every device in service has taken it; it is
 * wiped then, at close, when a device leaves service (bsgpu_keytab_drop_device) and at destroy.
 * Capacity is fixed; a full table refuses (BSGPU_E_FULL) and the caller uploads that session's key
 * with each call instead. Every function takes the table's lock: callers on any thread.
 */
#ifndef BSGPU_KEYTAB_H
#define BSGPU_KEYTAB_H

#include <pthread.h>
#include <stdint.h>

#include "bsgpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSGPU_KEYTAB_MAX_DEV 32

typedef struct bsgpu_keytab {
    pthread_mutex_t lock;
    uint32_t cap;
    uint32_t active;   /* devices in service: bit d */
    bsgpu_key *keys;   /* compact keys awaiting a device (mapping excluded from core dumps) */
    size_t keys_len;   /* of that mapping */
    uint8_t *live;     /* 1 while a session holds the slot */
    uint8_t *cipher;   /* the live slot's bsgpu_cipher */
    uint32_t *pending; /* devices that must still load (live) or zero (free) the slot: bit d */
    uint32_t *free_slots;
    uint32_t nfree;
    uint32_t npending[BSGPU_KEYTAB_MAX_DEV]; /* slots with device d's bit set in pending */
    /* Counters (STATUS): sessions given a slot, refused (full), and device operations taken. */
    uint64_t opened, full, loads, wipes;
} bsgpu_keytab;

/* 0, or -1 (out of memory; the table is then empty and every open refuses). ndev <= 32. */
int bsgpu_keytab_init(bsgpu_keytab *t, uint32_t cap, unsigned ndev);
/* Wipes every key the host still holds and frees the table. */
void bsgpu_keytab_destroy(bsgpu_keytab *t);

/*
 * A slot for a session's key of cipher c: *slot is set and the load is pending on every device in
 * service. BSGPU_E_FULL (counted in full) when every slot is taken, BSGPU_E_NODEV when no device
 * is in service.
 */
int bsgpu_keytab_open(bsgpu_keytab *t, bsgpu_cipher c, const bsgpu_key *key, uint32_t *slot);
/* The session is gone (no call uses the slot any more): the host copy is wiped, the slot is free,
 * and its zeroing is pending on every device in service. */
void bsgpu_keytab_close(bsgpu_keytab *t, uint32_t slot);
/*
 * Up to max of device dev's pending changes, as ops[i] with keys[i] (the compact key of a load,
 * zero for a wipe); each is no longer pending for dev once taken, so the caller applies them
 * before anything else uses that device's table. Returns how many.
 */
uint32_t bsgpu_keytab_take(bsgpu_keytab *t, unsigned dev, bsgpu_keyop *ops, bsgpu_key *keys,
                           uint32_t max);
/* Changes pending for device dev (0 when none: no call needed). */
uint32_t bsgpu_keytab_pending(bsgpu_keytab *t, unsigned dev);
/* Device dev leaves service (it failed, or it has no table): nothing is pending for it any more. */
void bsgpu_keytab_drop_device(bsgpu_keytab *t, unsigned dev);
/* 1 while device dev is in service. */
int bsgpu_keytab_serves(bsgpu_keytab *t, unsigned dev);
/* Slots held by sessions. */
uint32_t bsgpu_keytab_used(bsgpu_keytab *t);

#ifdef __cplusplus
}
#endif

#endif
