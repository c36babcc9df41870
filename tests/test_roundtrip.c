/* test_roundtrip.c - quantize + dequantize over every width, dtype, metadata dtype,
 * rounding, odd shape and group size, on every CPU backend; each case checked by
 * qcheck_run against the documented arithmetic (support/quantcheck.c). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support/guard.h"
#include "support/quantcheck.h"
#include "support/tensor.h"

static const size_t cols_list[] = {1, 7, 8, 9, 255, 257, 1000};
static const uint32_t group_list[] = {8, 256, 4096};
static const actq_dtype dtypes[] = {ACTQ_F32, ACTQ_F16, ACTQ_BF16};

static void sweep(actq_backend be, actq_rounding rnd) {
  size_t ci, gi, xi, mi, yi;
  uint32_t bits;
  for (ci = 0; ci < 7; ci++) {
    const size_t rows = 3, cols = cols_list[ci];
    for (xi = 0; xi < 3; xi++) {
      void *x = guard_alloc(rows * cols * test_dtype_size(dtypes[xi]));
      qcheck_fill(x, dtypes[xi], rows * cols, cols, 1000 * ci + xi);
      for (gi = 0; gi < 3; gi++)
        for (mi = 0; mi < 3; mi++)
          for (yi = 0; yi < 2; yi++)
            for (bits = 1; bits <= 8; bits++) {
              qcase c = {be, rows, cols, group_list[gi], bits, NULL, dtypes[xi], dtypes[mi],
                         yi ? dtypes[xi] : ACTQ_F32, rnd, 17 * bits + gi, ci};
              qresult r = qcheck_run(&c, x);
              cr_assert_eq(r.quantize_status, ACTQ_OK);
              cr_assert_eq(r.nan_groups, 0);
            }
      guard_free(x);
    }
  }
}

Test(roundtrip, reference_stochastic, .timeout = 600) { sweep(ACTQ_BACKEND_CPU_REFERENCE, ACTQ_ROUND_STOCHASTIC); }
Test(roundtrip, reference_nearest, .timeout = 600) { sweep(ACTQ_BACKEND_CPU_REFERENCE, ACTQ_ROUND_NEAREST); }
Test(roundtrip, cpu_stochastic, .timeout = 600) { sweep(ACTQ_BACKEND_CPU, ACTQ_ROUND_STOCHASTIC); }
Test(roundtrip, cpu_nearest, .timeout = 600) { sweep(ACTQ_BACKEND_CPU, ACTQ_ROUND_NEAREST); }

Test(roundtrip, per_row_widths) {
  static const uint8_t widths[7] = {1, 8, 3, 2, 5, 7, 4};
  const size_t rows = 7, cols = 301;
  int b, rnd;
  void *x = guard_alloc(rows * cols * 4);
  qcheck_fill(x, ACTQ_F32, rows * cols, cols, 99);
  for (b = 0; b < TEST_CPU_BACKENDS; b++)
    for (rnd = 0; rnd < 2; rnd++) {
      qcase c = {test_cpu_backends[b], rows, cols, 64, 0 /* ignored */, widths, ACTQ_F32,
                 ACTQ_BF16, ACTQ_F32, (actq_rounding)rnd, 5, 6};
      qresult r = qcheck_run(&c, x);
      cr_assert_eq(r.quantize_status, ACTQ_OK);
    }
  guard_free(x);
}

Test(roundtrip, large_groups) {
  const size_t rows = 2, cols = 65536 * 2 + 13;
  void *x = guard_alloc(rows * cols * 2);
  int b;
  qcheck_fill(x, ACTQ_BF16, rows * cols, cols, 3);
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    qcase c = {test_cpu_backends[b], rows, cols, 65536, 3, NULL, ACTQ_BF16, ACTQ_F16,
               ACTQ_BF16, ACTQ_ROUND_STOCHASTIC, 1, 2};
    cr_assert_eq(qcheck_run(&c, x).quantize_status, ACTQ_OK);
  }
  guard_free(x);
}
