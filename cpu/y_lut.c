/* y_lut.c - the y tables of 16-bit inputs a CPU context keeps (cpu/y_lut.h) */
#include "cpu/y_lut.h"

#include <stdlib.h>
#include <string.h>

#include "cpu/isa.h"

/* When a context builds a key's table: once it has computed y for this many elements of
 * the key, the call's own included. The build runs the kernel over the 65536 inputs,
 * half of them in the activations' slow tails (|x| > 6, Inf, NaN, denormals): a bf16
 * build took 0.23-0.54 ms (GELU 0.53, SiLU 0.23, Mish 0.42, softplus 0.54) on one thread
 * of the Xeon of docs/fewbit.md, about what computing y costs for 2^20 elements (GELU
 * 0.46 ns an element). The rule is rent-or-buy: a context never spends on a table more
 * than it has already spent computing y under its key, a one-off small call pays
 * nothing, and a call of 2^20 elements or more builds at once.
 * ACTQ_Y_LUT_BUILD_ELEMENTS replaces the count (cpu/isa.h). */
#define ACTQ_Y_LUT_BUILD_N ((size_t)1 << 20)

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

static int same_key(const actq_cpu_y_lut_key *a, const actq_cpu_y_lut_key *b) {
  return a->activation == b->activation && a->param_bits == b->param_bits && a->dtype == b->dtype;
}

/* Adds n computed elements to the key's count; returns whether the count reached the
 * build rule's (the count is then freed: the table is built) */
static int count_reaches_build(actq_cpu_state *st, const actq_cpu_y_lut_key *key, size_t n) {
  const size_t env = actq_cpu_y_lut_build_env(), build_n = env ? env : ACTQ_Y_LUT_BUILD_N;
  actq_cpu_y_lut_count *c = NULL;
  unsigned s;
  for (s = 0; s < ACTQ_CPU_Y_LUTS && !c; s++)
    if (st->y_counts[s].n && same_key(&st->y_counts[s].key, key)) c = &st->y_counts[s];
  if (!c) { /* a new key takes the next count in turn */
    c = &st->y_counts[st->y_count_next];
    st->y_count_next = (st->y_count_next + 1) % ACTQ_CPU_Y_LUTS;
    c->key = *key;
    c->n = 0;
  }
  c->n = n < build_n - c->n ? c->n + n : build_n;
  if (c->n < build_n) return 0;
  c->n = 0;
  return 1;
}

const uint16_t *actq_cpu_y_lut(actq_cpu_state *st, const actq_fewbit_job *job) {
  actq_cpu_y_lut_key key;
  actq_cpu_y_lut_slot *slot;
  unsigned s;
  if (!job->y || !(st->kernels->fewbit_y_lut_dtypes & (1u << job->dtype)) ||
      !y_lut_pays(job->table->activation))
    return NULL;
  key.activation = job->table->activation;
  key.param_bits = float_bits(job->table->param);
  key.dtype = (int)job->dtype;
  for (s = 0; s < ACTQ_CPU_Y_LUTS; s++)
    if (st->y_luts[s].t && same_key(&st->y_luts[s].key, &key)) return st->y_luts[s].t;
  if (!count_reaches_build(st, &key, job->n)) return NULL;
  slot = &st->y_luts[st->y_lut_next];
  if (!slot->t) slot->t = (uint16_t *)malloc(ACTQ_Y_LUT_ENTRIES * sizeof *slot->t);
  if (!slot->t) return NULL;
  slot->key = key;
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
    st->y_counts[s].n = 0;
  }
  st->y_lut_next = st->y_count_next = 0;
}
