/* Controls of the fake bsgpu (fake_bsgpu.c). */
#ifndef FAKE_BSGPU_H
#define FAKE_BSGPU_H

extern int bsgpu_fake_devices; /* what bsgpu_device_count() says */
extern int bsgpu_fake_fail;    /* nonzero: bsgpu_keystream scribbles and fails */
extern int bsgpu_fake_silent;  /* nonzero: the checked keystream flips a byte and says nothing */
extern unsigned bsgpu_fake_calls[8]; /* bsgpu_keystream calls per device */

#endif
