#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state = 0x6269747331696365ull;

void bs_test_seed(void)
{
    const char *s = getenv("BS_TEST_SEED");
    if (s != NULL)
        state = strtoull(s, NULL, 0);
    printf("# BS_TEST_SEED=0x%016" PRIx64 "\n", state);
}

uint64_t bs_test_rand64(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t bs_test_below(uint32_t n)
{
    return n ? (uint32_t)(bs_test_rand64() % n) : 0;
}

void bs_test_fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)bs_test_rand64();
}

void bs_test_hexdump(const char *label, const uint8_t *p, size_t n)
{
    fprintf(stderr, "%s (%zu):", label, n);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s%02x", i % 32 ? "" : "\n  ", p[i]);
    fprintf(stderr, "\n");
}
