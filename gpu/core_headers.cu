// Compiles every core header as CUDA (device and host), so that a header that stops being
// includable by nvcc fails the build here, with or without a GPU.
#include "bitslice.h"
#include "modes/ctr.h"
#include "modes/gcm256.h"
#if __has_include("present/present.h")
#include "present/present.h"
#endif
#if __has_include("gift/gift.h")
#include "gift/gift.h"
#endif
#if __has_include("rijndael256/rijndael256.h")
#include "rijndael256/rijndael256.h"
#endif

__global__ void bsgpu_header_probe(uint8_t *out)
{
    uint8_t b[8];
    bs_store_be64(b, bs_load_be64(out) + 1);
    out[threadIdx.x & 7] = b[threadIdx.x & 7];
}
