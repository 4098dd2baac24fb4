/*
 * testutil.h: deterministic randomness for tests. The seed comes from $BS_TEST_SEED when set
 * (to replay a failure) and is printed by every test that uses it.
 */
#ifndef BS_TESTUTIL_H
#define BS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

void bs_test_seed(void);        /* reads $BS_TEST_SEED or picks a fixed default; prints it */
uint64_t bs_test_rand64(void);  /* splitmix64 */
uint32_t bs_test_below(uint32_t n);
void bs_test_fill(uint8_t *p, size_t n);
/* Prints a hex dump with a label, for failure messages. */
void bs_test_hexdump(const char *label, const uint8_t *p, size_t n);

#endif
