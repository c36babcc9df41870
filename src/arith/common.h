/* common.h - portability macros for the shared inline arithmetic.
 *
 * Everything under src/arith/ is compiled three ways: into the reference C kernels, into
 * the ISA kernels (for their scalar tails) and into CUDA device code. Keeping one copy of
 * every formula is what makes the backends bit-identical by construction, so these
 * headers use only C99 that nvcc accepts as host and device code, and no libm call whose
 * rounding could differ between backends (fma, floor, rint are exact operations).
 */
#ifndef ACTQ_ARITH_COMMON_H
#define ACTQ_ARITH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The public enums (actq_dtype, ...) are the one vocabulary of dtypes inside the library
 * too; the header is plain C99 that device code accepts. */
#include "actq.h"

#if defined(__CUDACC__)
#  define ACTQ_HD static __host__ __device__ __forceinline__
#else
#  define ACTQ_HD static inline
#endif
/* a rarely taken branch of an ACTQ_HD function (GELU's far tail): out of line on the GPU,
 * where an inlined one would be if-converted and run by every thread */
#if defined(__CUDACC__)
#  define ACTQ_COLD static __host__ __device__ __noinline__
#else
#  define ACTQ_COLD static inline
#endif

ACTQ_HD uint32_t actq_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

ACTQ_HD float actq_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

ACTQ_HD uint64_t actq_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

ACTQ_HD double actq_f64_from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* Canonical quiet NaNs written wherever the library produces a NaN, so that NaN outputs
 * have the same bytes on every backend (hardware NaN propagation rules differ). */
#define ACTQ_F32_QNAN_BITS 0x7fc00000u
#define ACTQ_F16_QNAN_BITS 0x7e00u
#define ACTQ_BF16_QNAN_BITS 0x7fc0u

#define ACTQ_FLT_MAX 3.40282346638528859811704183484516925e+38f

ACTQ_HD int actq_f32_is_finite(float f) {
  return (actq_f32_bits(f) & 0x7f800000u) != 0x7f800000u;
}

#endif /* ACTQ_ARITH_COMMON_H */
