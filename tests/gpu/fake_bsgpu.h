/* Controls of the fake bsgpu (fake_bsgpu.c). */
#ifndef FAKE_BSGPU_H
#define FAKE_BSGPU_H

extern int bsgpu_fake_devices;       /* what bsgpu_device_count() says */
extern int bsgpu_fake_fail;          /* nonzero: bsgpu_keystream scribbles and fails */
extern unsigned bsgpu_fake_calls[8]; /* bsgpu_keystream calls per device */

#endif
