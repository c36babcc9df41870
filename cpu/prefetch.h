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

/* Always inlined: a function that only prefetches has no effect gcc can see, so where it
 * is not inlined early, gcc 12 finds it const and deletes the call with its prefetches
 * (quantize's group prefetch, a helper of its own, was absent from the gcc 12 builds). */
#define ACTQ_PREFETCH_INLINE static inline __attribute__((always_inline))

/* For loops that read their input once, in order, `bytes` (a constant multiple of 64) an
 * iteration from byte `at` of an input of `total` bytes at p: asks for those bytes
 * ACTQ_PREFETCH_BYTES ahead, never past the input's end. Without it, on a Xeon VM (family
 * 6 model 167) the hardware prefetchers left a loop that spends 30-50 instructions on each
 * line with only the lines its out-of-order window holds in flight: few-bit codes of bf16 at
 * 4 bits ran at 1.45 G elements/s from memory against 7.3 in L2 and 6.3 for the traffic
 * proxy (docs/bench-cpu.md, "Measured on the Xeon"). actq_prefetch_ahead: the
 * same `ahead` bytes ahead instead. */
ACTQ_PREFETCH_INLINE void actq_prefetch_ahead(const void *p, size_t at, size_t bytes,
                                              size_t total, size_t ahead) {
  size_t off;
  if (at + ahead + bytes > total) return;
  for (off = 0; off < bytes; off += 64)
    _mm_prefetch((const char *)p + at + ahead + off, _MM_HINT_T0);
}

ACTQ_PREFETCH_INLINE void actq_prefetch_stream(const void *p, size_t at, size_t bytes, size_t total) {
  actq_prefetch_ahead(p, at, bytes, total, ACTQ_PREFETCH_BYTES);
}

#endif /* ACTQ_CPU_PREFETCH_H */
