/*
 * bsd_backend_cuda.h: the daemon's CUDA backend (bsd_backend.h's table over gpu/bsgpu.h).
 * Built into the daemon only when CUDA is (service/meson.build adds bsd_backend_cuda.c and
 * gpu's bsgpu_cuda_dep); see gpu/README.md for the wiring.
 */
#ifndef BSD_BACKEND_CUDA_H
#define BSD_BACKEND_CUDA_H

#include "bsd_backend.h"

/*
 * A backend on every CUDA device, or NULL when there is none (the daemon then keeps the CPU
 * backend). threads: the CPU backend's worker count, used for the CPU fallback's slicing.
 */
bsd_backend *bsd_backend_cuda_create(uv_loop_t *loop, unsigned threads);

/* Page-locks a shared-memory window that keystream will be written into (0, or -1). */
int bsd_backend_cuda_register(bsd_backend *be, void *p, size_t len);
int bsd_backend_cuda_unregister(bsd_backend *be, void *p);

#endif
