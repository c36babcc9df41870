/* elem.h - scalar loads and stores of f32/f16/bf16 elements by dtype. */
#ifndef ACTQ_ARITH_ELEM_H
#define ACTQ_ARITH_ELEM_H

#include "half.h"

ACTQ_HD float actq_load_elem(const void *base, int dtype, size_t i) {
  if (dtype == 1) return actq_f16_to_f32(((const uint16_t *)base)[i]);
  if (dtype == 2) return actq_bf16_to_f32(((const uint16_t *)base)[i]);
  return ((const float *)base)[i];
}

/* Rounds to nearest-even into dtype. */
ACTQ_HD void actq_store_elem(void *base, int dtype, size_t i, float v) {
  if (dtype == 1)
    ((uint16_t *)base)[i] = actq_f32_to_f16(v);
  else if (dtype == 2)
    ((uint16_t *)base)[i] = actq_f32_to_bf16(v);
  else
    ((float *)base)[i] = v;
}

#endif /* ACTQ_ARITH_ELEM_H */
