/* elem.h - scalar loads and stores of f32/f16/bf16 elements by dtype. */
#ifndef ACTQ_ARITH_ELEM_H
#define ACTQ_ARITH_ELEM_H

#include "src/arith/half.h"

/* Elements are read and written through memcpy, so a buffer that is not aligned to its
 * element type (an f32 array at an odd address) is still defined behaviour; compilers
 * turn these into plain loads and stores. */
ACTQ_HD float actq_load_elem(const void *base, actq_dtype dtype, size_t i) {
  if (dtype == ACTQ_F16 || dtype == ACTQ_BF16) {
    uint16_t h;
    memcpy(&h, (const uint8_t *)base + 2 * i, sizeof h);
    return actq_h16_to_f32(h, dtype);
  } else {
    float f;
    memcpy(&f, (const uint8_t *)base + 4 * i, sizeof f);
    return f;
  }
}

/* Rounds to nearest-even into dtype. */
ACTQ_HD void actq_store_elem(void *base, actq_dtype dtype, size_t i, float v) {
  if (dtype == ACTQ_F16 || dtype == ACTQ_BF16) {
    const uint16_t h = actq_f32_to_h16(v, dtype);
    memcpy((uint8_t *)base + 2 * i, &h, sizeof h);
  } else {
    memcpy((uint8_t *)base + 4 * i, &v, sizeof v);
  }
}

#endif /* ACTQ_ARITH_ELEM_H */
