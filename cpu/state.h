/* state.h - what a CPU context owns (the context's `state`): the kernel table it runs, its
 * thread count, its thread pool and the tables it keeps for the few-bit kernels. Only the
 * CPU backend (cpu/) reads it.
 */
#ifndef ACTQ_CPU_STATE_H
#define ACTQ_CPU_STATE_H

#include "src/backend.h"
#include "cpu/kernels.h"

struct actq_cpu_pool; /* cpu/parallel.c */

/* The y tables a context keeps (cpu/y_lut.h): a model alternates few activations, so a
 * handful of slots, replaced in turn, serve its layers with at most 1 MiB. */
#define ACTQ_CPU_Y_LUTS 8

typedef struct actq_cpu_y_lut_key {
  uint32_t activation, param_bits;
  int dtype;
} actq_cpu_y_lut_key;

typedef struct actq_cpu_y_lut_slot {
  uint16_t *t; /* NULL: the slot is free */
  actq_cpu_y_lut_key key;
} actq_cpu_y_lut_slot;

/* Elements whose y the context computed under a key that has no table yet (n = 0: free) */
typedef struct actq_cpu_y_lut_count {
  actq_cpu_y_lut_key key;
  size_t n;
} actq_cpu_y_lut_count;

typedef struct actq_cpu_state {
  const actq_cpu_kernels *kernels;
  int threads;                /* resolved thread count, >= 1 */
  struct actq_cpu_pool *pool; /* started at the first call that needs threads; may be NULL */
  /* The last code_lut built (cpu/driver.c, cpu_code_lut), kept for the next calls with
   * the same table; lut_bytes: its allocation. A context serves one thread at a time. */
  struct actq_fewbit_lut *lut;
  size_t lut_bytes;
  actq_cpu_y_lut_slot y_luts[ACTQ_CPU_Y_LUTS];
  unsigned y_lut_next; /* the slot the next new table replaces */
  actq_cpu_y_lut_count y_counts[ACTQ_CPU_Y_LUTS];
  unsigned y_count_next; /* the count a new key replaces */
} actq_cpu_state;

static inline actq_cpu_state *actq_cpu(const actq_context *ctx) {
  return (actq_cpu_state *)ctx->state;
}

#endif /* ACTQ_CPU_STATE_H */
