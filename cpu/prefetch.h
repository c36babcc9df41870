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
#include <stdint.h>
#include <xmmintrin.h>

#include "cpu/isa.h"

#define ACTQ_PREFETCH_BYTES 8192

/* Always inlined: a function that only prefetches has no effect gcc can see, so where it
 * is not inlined early, gcc 12 finds it const and deletes the call with its prefetches
 * (quantize's group prefetch, a helper of its own, was absent from the gcc 12 builds). */
#define ACTQ_PREFETCH_INLINE static inline __attribute__((always_inline))

/* The lines of `bytes` from byte at + ahead, with the hint (a constant), unless they reach
 * past `total`. */
#define ACTQ_PREFETCH_LINES(p, at, bytes, total, ahead, hint)                                  \
  do {                                                                                         \
    size_t off_;                                                                               \
    if ((at) + (ahead) + (bytes) > (total)) break;                                             \
    for (off_ = 0; off_ < (bytes); off_ += 64)                                                 \
      _mm_prefetch((const char *)(p) + (at) + (ahead) + off_, hint);                           \
  } while (0)

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
  ACTQ_PREFETCH_LINES(p, at, bytes, total, ahead, _MM_HINT_T0);
}

/* The same into L2 only (the T2 hint), for a second request further ahead than the first.
 * Why it pays, as we read it: a request into L1 holds one of the core's few L1 miss
 * buffers until its line arrives, so requests a few KiB ahead that go all the way to
 * memory cap one core's reads below a plain copy's; asked into L2 well ahead, the line is
 * there when the L1 request comes. Only for inputs that come from memory: in the caches
 * the extra requests cost time (actq_prefetch_l2_min_bytes). */
ACTQ_PREFETCH_INLINE void actq_prefetch_ahead_l2(const void *p, size_t at, size_t bytes,
                                                 size_t total, size_t ahead) {
  ACTQ_PREFETCH_LINES(p, at, bytes, total, ahead, _MM_HINT_T2);
}

/* How far past the next group the AVX-512 step loop of nearest 1-bit quantize asks for
 * its input (the hooks' step_ahead, cpu/quantize_groups.h, where the measurements are).
 * The AVX2 table keeps nearest's distance: unmeasured on the Zen cores it is tuned for. */
#define ACTQ_PREFETCH_STEP_AHEAD 1536

/* How far past its L1 request quantize asks for its f32 input into L2 (the hooks'
 * l2_beyond, cpu/quantize_groups.h). Paired on the Xeon from 256 MiB, nearest f32
 * with 8, 16 and 32 KiB measured alike (1.05-1.15x); stochastic f32 1.02-1.09x with 16. */
#define ACTQ_PREFETCH_L2_BEYOND 16384

/* CALL with `l2` a constant: 1 where the hooks gave an L2 distance (`ahead_l2` not 0), else
 * 0, so that each loop instance decides its L2 request at compile time. */
#define ACTQ_BY_L2(ahead_l2, CALL)                                                              \
  do {                                                                                         \
    if (ahead_l2) { const int l2 = 1; CALL; }                                                  \
    else { const int l2 = 0; CALL; }                                                           \
  } while (0)

/* Input bytes of one call from which a kernel adds actq_prefetch_ahead_l2: 64 MiB. On the
 * issue's Xeon VM (docs/bench-cpu.md, "f32 from memory: a second prefetch into L2"),
 * nearest f32 quantize with it ran 0.91-0.97x from 4 and 16 MiB inputs (cached in L3),
 * 1.01-1.02x from 64 MiB and 1.07-1.12x from 256 MiB (2 bits). The last-level
 * cache's size, which stream.h uses, does not say where the crossover is on a shared VM
 * (sysfs reports 480 MiB there). The environment's ACTQ_PREFETCH_L2_MIN_BYTES, read once,
 * replaces it. */
static inline size_t actq_prefetch_l2_min_bytes(void) {
  const size_t env = actq_cpu_prefetch_l2_min_env();
  return env ? env : (size_t)64 << 20;
}

/* The codes of one group of a dequantize row from `in`, ACTQ_PREFETCH_BYTES ahead and never
 * past `end`: their first line, and the rest of their first `bytes` (from
 * actq_prefetch_group_bytes). */
ACTQ_PREFETCH_INLINE void actq_prefetch_group_codes(const unsigned char *in,
                                                    const unsigned char *end, size_t bytes) {
  size_t off = 0;
  do {
    if (in + ACTQ_PREFETCH_BYTES + off < end)
      _mm_prefetch((const char *)in + ACTQ_PREFETCH_BYTES + off, _MM_HINT_T0);
  } while ((off += 64) < bytes);
}

/* How many bytes of each group's codes a dequantize call prefetches, for groups of
 * `group_size` codes of `bits`: one line in the caches; where the call's outputs are past
 * the streaming threshold (`nt`: its input comes from memory) each line, up to 256 codes.
 * The hardware prefetchers follow longer groups. In L2 the extra requests cost 3-6%; from
 * memory they paid 1.03-1.43x (docs/bench-cpu.md, "The Ice Lake VM again"). Decided once a
 * call (cpu/dequantize_instance.h). */
static inline size_t actq_prefetch_group_bytes(size_t group_size, uint32_t bits, int nt) {
  const size_t bytes = group_size * bits / 8;
  if (!nt) return 0;
  return bytes < 32u * bits ? bytes : 32u * bits;
}

ACTQ_PREFETCH_INLINE void actq_prefetch_stream(const void *p, size_t at, size_t bytes, size_t total) {
  actq_prefetch_ahead(p, at, bytes, total, ACTQ_PREFETCH_BYTES);
}

#endif /* ACTQ_CPU_PREFETCH_H */
