/* quantcheck.h - runs one quantize/dequantize case and checks every documented property
 * of its output, from the public API alone. */
#ifndef ACTQ_TEST_QUANTCHECK_H
#define ACTQ_TEST_QUANTCHECK_H

#include "actq.h"

typedef struct qcase {
  actq_backend backend;
  size_t rows, cols;
  uint32_t group_size, bits;
  const uint8_t *row_bits;
  actq_dtype x_dtype, meta_dtype, y_dtype;
  actq_rounding rounding;
  uint64_t seed, offset;
} qcase;

typedef struct qresult {
  actq_status quantize_status;
  size_t nan_groups;   /* groups stored as NaN metadata */
  double max_err_steps; /* max |y - x| / s over finite groups with s > 0 */
} qresult;

/* Quantizes x (x_dtype, rows*cols) and checks: statuses; metadata bounds
 * m <= x <= m + L*s and tightness; nearest codes equal the documented formula exactly,
 * stochastic codes are floor or ceil of t; unused high bits zero; y = fma(q,s,m) rounded
 * to y_dtype exactly; error within one step (stochastic) or half a step (nearest);
 * NaN groups have zero codes and NaN output. Fails the running Criterion test. */
qresult qcheck_run(const qcase *c, const void *x);

/* Fills rows*cols elements of x_dtype with N(0,1)*scale+shift, scale/shift varying per
 * row, some ties and repeats. */
void qcheck_fill(void *x, actq_dtype t, size_t n, size_t cols, uint64_t seed);

#endif
