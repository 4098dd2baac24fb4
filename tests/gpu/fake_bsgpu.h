/* Controls of the fake bsgpu (fake_bsgpu.c). */
#ifndef FAKE_BSGPU_H
#define FAKE_BSGPU_H

#include <stdint.h>

extern int bsgpu_fake_devices; /* what bsgpu_device_count() says */
extern int bsgpu_fake_fail;    /* nonzero: bsgpu_keystream scribbles and fails */
extern int bsgpu_fake_silent;  /* nonzero: the checked keystream flips a byte and says nothing */
/* Nonzero: the checked keystream leaves the first job's middle block as bsgpu_fake_unwritten_block
 * (what the window held: its copy never landed); 1: with sums that agree with it (both of the
 * device's computations wrong alike), 2: with the sums of its own second result. */
extern int bsgpu_fake_unwritten;
extern uint8_t bsgpu_fake_unwritten_block[32];
extern unsigned bsgpu_fake_calls[8]; /* bsgpu_keystream calls per device */
/* Per device: compact keys passed with calls (nkeys), and resident slots loaded and zeroed. */
extern uint64_t bsgpu_fake_call_keys[8], bsgpu_fake_key_loads[8], bsgpu_fake_key_wipes[8];
extern int bsgpu_fake_fail_keys; /* nonzero: bsgpu_keys_update fails */
/* CPU ns spent in bsgpu_keystream_checked: the fake device's work, not the caller's. */
extern uint64_t bsgpu_fake_device_ns;
extern int bsgpu_fake_fail_wipe; /* nonzero: bsgpu_keys_release says its zeroing failed */
/* A device's resident key table as the fake holds it (NULL and *cap 0 when none). */
const uint32_t *bsgpu_fake_table(int device, uint32_t *cap);

#endif
