/*
 * A host stand-in for keysearch's CUDA engine (bsks_cuda.cu), for running bsgpu-bench without a
 * GPU: the search runs on the CPU engine, one thread; kernel attributes are unknown (zeros).
 */
#include <string.h>

#include "bsks.h"

int bsks_search_cuda(const bsks_search *s, int device, uint8_t *key, uint64_t *tried, char *err,
                     size_t errlen)
{
    (void)device, (void)err, (void)errlen;
    return bsks_search_cpu(s, 1, 0, bsks_chunks(s, 6), key, tried);
}

void bsks_cuda_set_variant(unsigned v)
{
    (void)v;
}

void bsks_cuda_kernel_attr(int cipher, unsigned variant, bsks_kernel_attr *a)
{
    (void)cipher, (void)variant;
    memset(a, 0, sizeof *a);
}
