/*
 * bsgpu_kernel_attr.h: what CUDA says of a kernel, for the engines' attribute calls
 * (bsgpu_get_kernel_attr in bsgpu.cu, bsks_cuda_kernel_attr in keysearch/bsks_cuda.cu). CUDA
 * C++, for .cu files only.
 */
#ifndef BSGPU_KERNEL_ATTR_H
#define BSGPU_KERNEL_ATTR_H

#include <cuda_runtime.h>

/*
 * kernel's registers, spill and static shared bytes (fa) and its resident warps per SM at tb
 * threads a block on the current device: 1, or 0 when CUDA cannot tell (its error is cleared).
 */
template <typename K>
static int bsgpu_kernel_query(K kernel, unsigned tb, cudaFuncAttributes *fa, int *warps_per_sm)
{
    int blocks = 0;
    if (cudaFuncGetAttributes(fa, kernel) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, (int)tb, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    *warps_per_sm = blocks * (int)tb / 32;
    return 1;
}

#endif
