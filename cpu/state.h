/* state.h - what a CPU context owns (the context's `state`): the kernel table it runs, its
 * thread count and its thread pool. Only the CPU backend (cpu/) reads it.
 */
#ifndef ACTQ_CPU_STATE_H
#define ACTQ_CPU_STATE_H

#include "src/backend.h"
#include "cpu/kernels.h"

struct actq_cpu_pool; /* cpu/parallel.c */

typedef struct actq_cpu_state {
  const actq_cpu_kernels *kernels;
  int threads;                /* resolved thread count, >= 1 */
  struct actq_cpu_pool *pool; /* started at the first call that needs threads; may be NULL */
  /* The last code_lut built (cpu/driver.c, cpu_code_lut), kept for the next calls with
   * the same table; lut_bytes: its allocation. A context serves one thread at a time. */
  struct actq_fewbit_lut *lut;
  size_t lut_bytes;
} actq_cpu_state;

static inline actq_cpu_state *actq_cpu(const actq_context *ctx) {
  return (actq_cpu_state *)ctx->state;
}

#endif /* ACTQ_CPU_STATE_H */
