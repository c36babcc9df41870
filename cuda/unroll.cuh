/* unroll.cuh - ACTQ_UNROLL: "#pragma unroll" in device code; nothing in host builds of the
 * __host__ __device__ helpers (host tests), which would warn about an unknown pragma. */
#ifndef ACTQ_CUDA_UNROLL_CUH
#define ACTQ_CUDA_UNROLL_CUH

#if defined(__CUDA_ARCH__)
#  define ACTQ_UNROLL _Pragma("unroll")
#else
#  define ACTQ_UNROLL
#endif

#endif
