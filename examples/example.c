/* example.c - the smallest complete use of actq: 2-bit stochastic quantization of a
 * saved activation and its reconstruction. Built against the installed library:
 *   cc example.c $(pkg-config --cflags --libs actq) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <actq.h>

int main(void) {
  enum { ROWS = 4, COLS = 1000 };
  static float x[ROWS * COLS], y[ROWS * COLS];
  actq_layout layout = {ROWS, COLS, 256, 2, NULL, ACTQ_F32}; /* rows, cols, group, bits */
  size_t packed_bytes, groups, i;
  actq_context *ctx;
  void *packed;
  float *gmin, *gscale;
  double err = 0;

  for (i = 0; i < ROWS * COLS; i++) x[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
  if (actq_context_create(ACTQ_BACKEND_CPU, &ctx) != ACTQ_OK) return 1;
  actq_layout_sizes(&layout, &packed_bytes, &groups);
  packed = malloc(packed_bytes);
  gmin = malloc(groups * sizeof *gmin);
  gscale = malloc(groups * sizeof *gscale);

  /* forward: keep 2 bits per element (plus per-group min and scale) instead of 32 */
  actq_status st = actq_quantize(ctx, &layout, ACTQ_F32, x, ACTQ_ROUND_STOCHASTIC,
                                 /*seed=*/1234, /*offset=*/0, packed, gmin, gscale);
  /* backward: an unbiased reconstruction */
  if (st == ACTQ_OK) st = actq_dequantize(ctx, &layout, packed, gmin, gscale, ACTQ_F32, y);
  if (st != ACTQ_OK) {
    fprintf(stderr, "actq: %s\n", actq_status_string(st));
    return 1;
  }
  for (i = 0; i < ROWS * COLS; i++) err += (y[i] - x[i]) * (y[i] - x[i]);
  printf("%s: %zu floats -> %zu bytes packed + %zu groups; rms error %.4f\n",
         actq_context_describe(ctx), (size_t)ROWS * COLS, packed_bytes, groups,
         sqrt(err / (ROWS * COLS)));
  actq_context_destroy(ctx);
  free(packed);
  free(gmin);
  free(gscale);
  return 0;
}
