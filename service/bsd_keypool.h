/*
 * bsd_keypool.h: fixed slots for key schedules in one mapping that is mlock'ed (never swapped),
 * excluded from core dumps (MADV_DONTDUMP), and wiped slot by slot on release and as a whole on
 * destroy. The slot count bounds the daemon's sessions.
 */
#ifndef BSD_KEYPOOL_H
#define BSD_KEYPOOL_H

#include "bitslice.h"
#include "bsd_config.h"

typedef struct bsd_keypool {
    uint8_t *base;
    size_t map_len;
    unsigned nslots;
    unsigned *free_slots;
    unsigned nfree;
    int locked;            /* mlock succeeded and, where /proc says, the pages are locked */
    const char *lock_note; /* when not locked although asked: why (static text) */
    int dontdump_errno;    /* 0, or why madvise(MADV_DONTDUMP) failed */
} bsd_keypool;

/* 0, or -1 with a message in err (mlock failure is fatal only for BSD_MEMLOCK_REQUIRED). */
int bsd_keypool_init(bsd_keypool *kp, unsigned nslots, bsd_memlock mode, char *err, size_t errlen);
/* A free slot's schedule, or NULL when all are taken. */
bs_key_schedule *bsd_keypool_get(bsd_keypool *kp, unsigned *slot);
/* Wipes the slot and makes it free. */
void bsd_keypool_put(bsd_keypool *kp, unsigned slot);
void bsd_keypool_destroy(bsd_keypool *kp);

#endif
