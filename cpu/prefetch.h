/* prefetch.h - how far ahead the CPU kernels ask for their input stream.
 *
 * Measured on the 2-core VM these kernels were tuned on: the hardware prefetchers alone
 * left the kernels alternating between waiting for memory and computing (pack ran at 3-6
 * G codes/s from memory against 16 in L2; with a software prefetch 8 KiB ahead, 8-9.6, in
 * interleaved A/B runs). Loops whose work per byte is larger than a plain copy's hold fewer
 * loads in the out-of-order window, so they need the explicit hint to keep enough reads in
 * flight. Prefetches never fault, but the kernels still never ask past their own input. */
#ifndef ACTQ_CPU_PREFETCH_H
#define ACTQ_CPU_PREFETCH_H

#include <stddef.h>
#include <xmmintrin.h>

#define ACTQ_PREFETCH_BYTES 8192

/* Asks for the input ACTQ_PREFETCH_BYTES past this group's (the same number of lines as
 * the group has: n elements of es bytes from element i0), never past the row's end. */
static inline void actq_prefetch_group(const void *x, size_t es, size_t i0, size_t n,
                                       size_t row_end) {
  const char *p = (const char *)x + i0 * es + ACTQ_PREFETCH_BYTES;
  const char *end = (const char *)x + row_end * es;
  size_t off;
  for (off = 0; off < n * es && p + off < end; off += 64) _mm_prefetch(p + off, _MM_HINT_T0);
}

#endif /* ACTQ_CPU_PREFETCH_H */
