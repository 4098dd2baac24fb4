/*
 * bsd_backend_cuda.h: the daemon's CUDA backend (bsd_backend.h's table over gpu/bsgpu.h; its
 * ops register and unregister shared memory). Listed in bsd_backends.c only in builds with
 * CUDA; tests/gpu runs it over a host stand-in for the device.
 */
#ifndef BSD_BACKEND_CUDA_H
#define BSD_BACKEND_CUDA_H

#include "bsd_backend.h"

/*
 * A backend on every CUDA device, or NULL when there is none (the daemon then keeps the CPU
 * backend). threads: the CPU backend's worker count, used for the CPU fallback's slicing.
 */
bsd_backend *bsd_backend_cuda_create(uv_loop_t *loop, unsigned threads);

#endif
