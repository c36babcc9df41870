/* unroll.cuh - ACTQ_UNROLL, ACTQ_UNROLL4, ACTQ_NO_UNROLL: "#pragma unroll", "#pragma
 * unroll 4" and "#pragma unroll 1" in
 * device code; nothing in host builds of the __host__ __device__ helpers (host tests),
 * which would warn about an unknown pragma. */
#ifndef ACTQ_CUDA_UNROLL_CUH
#define ACTQ_CUDA_UNROLL_CUH

#if defined(__CUDA_ARCH__)
#  define ACTQ_UNROLL _Pragma("unroll")
#  define ACTQ_UNROLL4 _Pragma("unroll 4")
#  define ACTQ_NO_UNROLL _Pragma("unroll 1")
#else
#  define ACTQ_UNROLL
#  define ACTQ_UNROLL4
#  define ACTQ_NO_UNROLL
#endif

#endif
