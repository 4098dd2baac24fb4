#include "bsd_keypool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int bsd_keypool_init(bsd_keypool *kp, unsigned nslots, bsd_memlock mode, char *err, size_t errlen)
{
    memset(kp, 0, sizeof *kp);
    kp->map_len = (size_t)nslots * sizeof(bs_key_schedule);
    void *p = mmap(NULL, kp->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "mmap of %zu bytes for keys: %s", kp->map_len, strerror(errno));
        return -1;
    }
    kp->base = (uint8_t *)p;
    /* Out of any core file; RLIMIT_CORE 0 and the dumpable flag already keep cores away. */
    if (madvise(p, kp->map_len, MADV_DONTDUMP) != 0)
        kp->dontdump_errno = errno;
    if (mode != BSD_MEMLOCK_OFF) {
        if (mlock(p, kp->map_len) == 0) {
            kp->locked = 1;
        } else if (mode == BSD_MEMLOCK_REQUIRED) {
            snprintf(err, errlen,
                     "mlock of %zu bytes for keys: %s (raise RLIMIT_MEMLOCK, e.g. "
                     "LimitMEMLOCK= in the unit, or lower max_sessions_total)",
                     kp->map_len, strerror(errno));
            munmap(p, kp->map_len);
            kp->base = NULL;
            return -1;
        }
    }
    kp->free_slots = (unsigned *)malloc(nslots * sizeof(unsigned));
    if (kp->free_slots == NULL) {
        snprintf(err, errlen, "out of memory");
        bsd_keypool_destroy(kp);
        return -1;
    }
    kp->nslots = nslots;
    for (unsigned i = 0; i < nslots; i++)
        kp->free_slots[i] = nslots - 1 - i;
    kp->nfree = nslots;
    return 0;
}

bs_key_schedule *bsd_keypool_get(bsd_keypool *kp, unsigned *slot)
{
    if (kp->nfree == 0)
        return NULL;
    *slot = kp->free_slots[--kp->nfree];
    return (bs_key_schedule *)(kp->base + (size_t)*slot * sizeof(bs_key_schedule));
}

void bsd_keypool_put(bsd_keypool *kp, unsigned slot)
{
    explicit_bzero(kp->base + (size_t)slot * sizeof(bs_key_schedule), sizeof(bs_key_schedule));
    kp->free_slots[kp->nfree++] = slot;
}

void bsd_keypool_destroy(bsd_keypool *kp)
{
    if (kp->base != NULL) {
        explicit_bzero(kp->base, kp->map_len);
        if (kp->locked)
            munlock(kp->base, kp->map_len);
        munmap(kp->base, kp->map_len);
    }
    free(kp->free_slots);
    memset(kp, 0, sizeof *kp);
}
