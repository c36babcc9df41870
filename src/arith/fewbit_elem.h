/* fewbit_elem.h - the per-element arithmetic of few-bit encode and backward, shared by
 * every backend. */
#ifndef ACTQ_ARITH_FEWBIT_ELEM_H
#define ACTQ_ARITH_FEWBIT_ELEM_H

#include "src/arith/act.h"
#include "src/arith/common.h"

/* Number of bounds strictly below x, for 2^bits - 1 increasing bounds: a branch-free
 * binary search of `bits` steps. NaN compares false everywhere and gets code 0. */
ACTQ_HD uint32_t actq_fewbit_code(const float *bounds, uint32_t bits, float x) {
  uint32_t pos = 0, step;
  for (step = 1u << (bits - 1); step; step >>= 1)
    pos += bounds[pos + step - 1] < x ? step : 0;
  return pos;
}

/* The bound step s (from 0) of actq_fewbit_code compares x with, when the steps before
 * found l (< 2^s): index (2l + 1) 2^(bits-1-s) - 1. The vector kernels keep each step's
 * 2^s candidates in registers and pick one by l. */
ACTQ_HD uint32_t actq_fewbit_level_bound(uint32_t bits, uint32_t s, uint32_t l) {
  return ((2 * l + 1) << (bits - 1 - s)) - 1;
}

/* The bound that slot i (< 2^bits - 1) of the level order holds: step s's 2^s candidates
 * side by side, slot 2^s - 1 + l holding actq_fewbit_level_bound(bits, s, l). A search in
 * that order (actq_fewbit_code_level_order) reads adjacent slots at each step, so the
 * GPU's lanes at one step of their searches hit different shared-memory banks, where in
 * bound order a step's candidates lie 2^(bits-s) words apart, in as few as one bank. */
ACTQ_HD uint32_t actq_fewbit_level_slot_bound(uint32_t bits, uint32_t i) {
  uint32_t s = 0;
  while ((i + 1) >> (s + 1)) s++;
  return actq_fewbit_level_bound(bits, s, i + 1 - (1u << s));
}

/* actq_fewbit_code over the bounds in level order (`ordered`, 2^bits - 1 of them): the
 * same comparisons in the same order, so the same code for every x, NaN included. */
ACTQ_HD uint32_t actq_fewbit_code_level_order(const float *ordered, uint32_t bits, float x) {
  uint32_t l = 0, s;
  for (s = 0; s < bits; s++) l = 2 * l + (ordered[(1u << s) - 1 + l] < x ? 1u : 0u);
  return l;
}

/* grad_in = grad_out * level, one float32 multiplication; NaN made canonical. */
ACTQ_HD float actq_fewbit_grad(float grad_out, float level) {
  float g = grad_out * level;
  return g != g ? actq_f32_from_bits(ACTQ_F32_QNAN_BITS) : g;
}

/* y = f(x) as fewbit_encode writes it: NaN made canonical. */
ACTQ_HD float actq_fewbit_forward(int act, float param, float x) {
  float y = actq_act_forward(act, param, x);
  return y != y ? actq_f32_from_bits(ACTQ_F32_QNAN_BITS) : y;
}

#endif /* ACTQ_ARITH_FEWBIT_ELEM_H */
