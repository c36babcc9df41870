/* y_lut.c - the y tables of 16-bit inputs a CPU context keeps (cpu/y_lut.h) */
#include "cpu/y_lut.h"

#include <stdlib.h>
#include <string.h>

/* The fewest elements for which a call builds a table. The build runs the kernel over
 * the 65536 inputs, half of them in the activations' slow tails (|x| > 6, Inf, NaN,
 * denormals): a first bf16 call of 2^15 elements took 0.23-0.54 ms (GELU 0.53, SiLU 0.23,
 * Mish 0.42, softplus 0.54) against 7 us for the next one, on one thread of the Xeon of
 * docs/fewbit.md. Smaller calls compute y until a call of this size has built the table;
 * every later call of the context with this key, of any size, reads it. */
#define ACTQ_Y_LUT_MIN_N ((size_t)1 << 15)

/* Activations whose y a lookup computes faster: all but a custom table, which has no
 * forward. Even ReLU's: the AVX-512 kernels run the activations other than their 16-lane
 * five (act_avx512.h) on 8-lane halves and in block passes, and the lookup took half
 * their time (bf16 at 2^20, 2 bits, one thread of the Xeon of docs/fewbit.md: ReLU,
 * ReLU6, hardtanh, hardswish, hardsigmoid and softsign 0.18-0.20 ms, against
 * 0.35-0.43). */
static int y_lut_pays(uint32_t act) { return act != FEWBIT_CUSTOM; }

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* y of every 16-bit input by the context's kernel, on one thread: a copy of the job's
 * table at 1 bit (y does not depend on the width; 1-bit codes are the cheapest to make,
 * into a scratch buffer). Returns 0 without memory. */
static int y_lut_build(const actq_cpu_state *st, const actq_fewbit_job *job, uint16_t *t) {
  fewbit_table one = *job->table;
  uint8_t codes[65536 / 8];
  uint16_t *x = (uint16_t *)malloc(65536 * sizeof *x);
  actq_fewbit_job b;
  uint32_t i;
  if (!x) return 0;
  for (i = 0; i < 65536; i++) x[i] = (uint16_t)i;
  one.bits = 1;
  one.bounds[0] = 0.0f;
  memset(&b, 0, sizeof b);
  b.table = &one;
  b.n = 65536;
  b.dtype = job->dtype;
  b.x = x;
  b.y = t;
  b.codes = codes;
  st->kernels->fewbit_encode(&b, 0, 65536); /* NaN inputs are counted; y is all we keep */
  t[65536] = t[65537] = 0;
  free(x);
  return 1;
}

const uint16_t *actq_cpu_y_lut(actq_cpu_state *st, const actq_fewbit_job *job) {
  const uint32_t act = job->table->activation, param = float_bits(job->table->param);
  actq_cpu_y_lut_slot *slot;
  unsigned s;
  if (!job->y || job->dtype == ACTQ_F32 || !(st->kernels->fewbit_y_lut_dtypes & (1u << job->dtype)) ||
      !y_lut_pays(act))
    return NULL;
  for (s = 0; s < ACTQ_CPU_Y_LUTS; s++) {
    slot = &st->y_luts[s];
    if (slot->t && slot->activation == act && slot->param_bits == param &&
        slot->dtype == (int)job->dtype)
      return slot->t;
  }
  if (job->n < ACTQ_Y_LUT_MIN_N) return NULL;
  slot = &st->y_luts[st->y_lut_next];
  if (!slot->t) slot->t = (uint16_t *)malloc(ACTQ_Y_LUT_ENTRIES * sizeof *slot->t);
  if (!slot->t) return NULL;
  slot->activation = act;
  slot->param_bits = param;
  slot->dtype = (int)job->dtype;
  if (!y_lut_build(st, job, slot->t)) {
    free(slot->t);
    slot->t = NULL;
    return NULL;
  }
  st->y_lut_next = (st->y_lut_next + 1) % ACTQ_CPU_Y_LUTS;
  return slot->t;
}

void actq_cpu_y_lut_clear(actq_cpu_state *st) {
  unsigned s;
  for (s = 0; s < ACTQ_CPU_Y_LUTS; s++) {
    free(st->y_luts[s].t);
    st->y_luts[s].t = NULL;
  }
  st->y_lut_next = 0;
}
