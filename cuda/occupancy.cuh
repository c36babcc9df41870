/* occupancy.cuh - resident blocks per SM of a kernel, from the occupancy calculator, asked
 * once per kernel (the answer depends only on the kernel and the block size, and a
 * launcher's 1 MiB calls cannot afford a runtime query each). */
#ifndef ACTQ_CUDA_OCCUPANCY_CUH
#define ACTQ_CUDA_OCCUPANCY_CUH

#include <cuda_runtime.h>

template <auto KERNEL>
int actq_cuda_resident_per_sm(int block) {
  static int per_sm = 0; /* a benign race: every thread computes the same value */
  if (per_sm == 0) {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, KERNEL, block, 0) != cudaSuccess || n < 1) {
      (void)cudaGetLastError(); /* do not leave the failed query for the launch check */
      n = 1;
    }
    per_sm = n;
  }
  return per_sm;
}

#endif /* ACTQ_CUDA_OCCUPANCY_CUH */
