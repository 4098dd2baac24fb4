/*
 * The daemon's key pool (service/bsd_keypool.c) on its own: every slot handed out once and
 * inside the one mapping, none overlapping; the pool full (NULL, the session limit) and a slot
 * given back being the one handed out next; a released slot wiped before anyone gets it again
 * while the others keep their keys; the mapping excluded from core dumps and locked when asked
 * (read back from /proc/self/smaps); a pool of no slots refused with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bsd_keypool.h"

#define NSLOTS 5

/* AddressSanitizer replaces mlock with a stub that does nothing and returns 0: smaps then shows
 * no "lo" however the pool asked, so the lock checks only run in a build without it. */
#if defined(__SANITIZE_ADDRESS__)
#define REAL_MLOCK 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REAL_MLOCK 0
#endif
#endif
#ifndef REAL_MLOCK
#define REAL_MLOCK 1
#endif

static char err[256];

/* The VmFlags line of the mapping that starts at p, or "" when it is not found. */
static void vm_flags(const void *p, char *out, size_t outlen)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in_it = 0;
    out[0] = 0;
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in_it = lo == (unsigned long)(uintptr_t)p;
            continue;
        }
        if (in_it && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(out, outlen, "%s", line + 8);
            break;
        }
    }
    fclose(f);
}

static int has_flag(const char *flags, const char *flag)
{
    char pad[600];
    snprintf(pad, sizeof pad, " %s", flags);
    char want[8];
    snprintf(want, sizeof want, " %s ", flag);
    char *nl = strchr(pad, '\n');
    if (nl != NULL)
        *nl = ' ';
    return strstr(pad, want) != NULL;
}

static void test_slots(void **state)
{
    (void)state;
    bsd_keypool kp;
    assert_int_equal(bsd_keypool_init(&kp, NSLOTS, BSD_MEMLOCK_OFF, err, sizeof err), 0);
    bs_key_schedule *ks[NSLOTS];
    unsigned slot[NSLOTS];
    const uint8_t *lo = kp.base, *hi = kp.base + kp.map_len;
    for (int i = 0; i < NSLOTS; i++) {
        ks[i] = bsd_keypool_get(&kp, &slot[i]);
        assert_non_null(ks[i]);
        assert_true(slot[i] < NSLOTS);
        assert_true((const uint8_t *)ks[i] >= lo);
        assert_true((const uint8_t *)(ks[i] + 1) <= hi);
        for (int j = 0; j < i; j++) {
            assert_int_not_equal(slot[i], slot[j]);
            /* Whole schedules apart: no two overlap. */
            size_t d = ks[i] > ks[j] ? (size_t)((uint8_t *)ks[i] - (uint8_t *)ks[j])
                                     : (size_t)((uint8_t *)ks[j] - (uint8_t *)ks[i]);
            assert_true(d >= sizeof(bs_key_schedule));
        }
        memset(ks[i], 0x11 * (i + 1), sizeof *ks[i]);
    }
    /* Full: the daemon's session limit. */
    unsigned s = 999;
    assert_null(bsd_keypool_get(&kp, &s));
    assert_null(bsd_keypool_get(&kp, &s));
    assert_int_equal(s, 999);

    /* Give one back: it is wiped at once, the others keep their bytes, and it is the one
     * free slot, so the next get returns it. */
    bsd_keypool_put(&kp, slot[2]);
    const uint8_t *b = (const uint8_t *)ks[2];
    for (size_t k = 0; k < sizeof(bs_key_schedule); k++)
        if (b[k] != 0)
            fail_msg("released slot %u byte %zu not wiped", slot[2], k);
    for (int i = 0; i < NSLOTS; i++) {
        if (i == 2)
            continue;
        const uint8_t *q = (const uint8_t *)ks[i];
        assert_int_equal(q[0], (uint8_t)(0x11 * (i + 1)));
        assert_int_equal(q[sizeof(bs_key_schedule) - 1], (uint8_t)(0x11 * (i + 1)));
    }
    bs_key_schedule *again = bsd_keypool_get(&kp, &s);
    assert_ptr_equal(again, ks[2]);
    assert_int_equal(s, slot[2]);
    assert_null(bsd_keypool_get(&kp, &s));

    /* Empty it and fill it again: every slot comes back exactly once. */
    for (int i = 0; i < NSLOTS; i++)
        bsd_keypool_put(&kp, slot[i]);
    unsigned seen = 0;
    for (int i = 0; i < NSLOTS; i++) {
        assert_non_null(bsd_keypool_get(&kp, &s));
        assert_true(s < NSLOTS);
        assert_false(seen & (1u << s));
        seen |= 1u << s;
    }
    assert_int_equal(seen, (1u << NSLOTS) - 1);
    assert_null(bsd_keypool_get(&kp, &s));
    bsd_keypool_destroy(&kp);
    assert_null(kp.base);
    assert_int_equal(kp.nslots, 0);
}

static void test_mapping_flags(void **state)
{
    (void)state;
    bsd_keypool kp;
    char flags[512];
    assert_int_equal(bsd_keypool_init(&kp, 2, BSD_MEMLOCK_OFF, err, sizeof err), 0);
    vm_flags(kp.base, flags, sizeof flags);
    if (flags[0] == 0) {
        bsd_keypool_destroy(&kp);
        skip(); /* no /proc/self/smaps here */
    }
    assert_true(has_flag(flags, "dd")); /* MADV_DONTDUMP */
    assert_int_equal(kp.dontdump_errno, 0);
    assert_false(has_flag(flags, "lo"));
    assert_int_equal(kp.locked, 0);
    bsd_keypool_destroy(&kp);

    /* try: locked when the limit allows it; either way the pool works. */
    assert_int_equal(bsd_keypool_init(&kp, 2, BSD_MEMLOCK_TRY, err, sizeof err), 0);
    vm_flags(kp.base, flags, sizeof flags);
    if (!REAL_MLOCK) {
        printf("built with AddressSanitizer: its mlock locks nothing, lock checks skipped\n");
        bsd_keypool_destroy(&kp);
        return;
    }
    assert_int_equal(has_flag(flags, "lo"), kp.locked);
    assert_true(has_flag(flags, "dd"));
    unsigned s;
    assert_non_null(bsd_keypool_get(&kp, &s));
    int locked = kp.locked;
    bsd_keypool_destroy(&kp);

    /* required: where try could lock, required must too, and say so in smaps. */
    if (locked) {
        assert_int_equal(bsd_keypool_init(&kp, 2, BSD_MEMLOCK_REQUIRED, err, sizeof err), 0);
        vm_flags(kp.base, flags, sizeof flags);
        assert_true(has_flag(flags, "lo"));
        assert_int_equal(kp.locked, 1);
        bsd_keypool_destroy(&kp);
    } else {
        /* It could not lock: required refuses, says how to fix it and leaves nothing mapped. */
        assert_int_equal(bsd_keypool_init(&kp, 2, BSD_MEMLOCK_REQUIRED, err, sizeof err), -1);
        assert_non_null(strstr(err, "RLIMIT_MEMLOCK"));
        assert_null(kp.base);
    }
}

static void test_no_slots(void **state)
{
    (void)state;
    bsd_keypool kp;
    err[0] = 0;
    assert_int_equal(bsd_keypool_init(&kp, 0, BSD_MEMLOCK_OFF, err, sizeof err), -1);
    assert_non_null(strstr(err, "mmap"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots),
        cmocka_unit_test(test_mapping_flags),
        cmocka_unit_test(test_no_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
