/* Controls of the fake bsgpu (fake_bsgpu.c). */
#ifndef FAKE_BSGPU_H
#define FAKE_BSGPU_H

#include <stdint.h>

extern int bsgpu_fake_devices; /* what bsgpu_device_count() says */
extern int bsgpu_fake_fail;    /* nonzero: bsgpu_keystream scribbles and fails */
extern int bsgpu_fake_silent;  /* nonzero: the checked keystream flips a byte and says nothing */
extern unsigned bsgpu_fake_calls[8]; /* bsgpu_keystream calls per device */
/* Per device: compact keys passed with calls (nkeys), and resident slots loaded and zeroed. */
extern uint64_t bsgpu_fake_call_keys[8], bsgpu_fake_key_loads[8], bsgpu_fake_key_wipes[8];
extern int bsgpu_fake_fail_keys; /* nonzero: bsgpu_keys_update fails */
/* A device's resident key table as the fake holds it (NULL and *cap 0 when none). */
const uint32_t *bsgpu_fake_table(int device, uint32_t *cap);

#endif
