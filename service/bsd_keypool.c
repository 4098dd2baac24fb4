#include "bsd_keypool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * kB this process has locked (VmLck in /proc/self/status), or -1 when it cannot be read. An mlock
 * that returns 0 is believed only if this grew by the pool: AddressSanitizer's runtime replaces
 * mlock with a stub that locks nothing and returns 0.
 */
static long locked_kb(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f == NULL)
        return -1;
    char line[128];
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

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
        const long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
        const long want_kb = (long)((kp->map_len + (size_t)page - 1) / (size_t)page) * page / 1024;
        const long before = locked_kb();
        int r = mlock(p, kp->map_len);
        int e = errno;
        const long after = r == 0 ? locked_kb() : -1;
        if (r == 0 && (before < 0 || after < 0 || after - before >= want_kb)) {
            kp->locked = 1;
        } else if (r == 0) {
            kp->lock_note = "mlock returned 0 but VmLck shows the pages unlocked (a sanitizer's "
                            "mlock stub?); keys may be swapped";
        } else {
            kp->lock_note = "mlock failed; keys may be swapped";
        }
        if (!kp->locked && mode == BSD_MEMLOCK_REQUIRED) {
            snprintf(err, errlen,
                     "mlock of %zu bytes for keys: %s (raise RLIMIT_MEMLOCK, e.g. "
                     "LimitMEMLOCK= in the unit, or lower max_sessions_total)",
                     kp->map_len, r == 0 ? kp->lock_note : strerror(e));
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
