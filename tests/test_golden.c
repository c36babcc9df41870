/* test_golden.c - fixed inputs whose packed bytes, metadata and dequantized values are
 * frozen in golden/golden_vectors.h. The vectors were computed by golden/make_golden.py
 * from docs/format.md with exact rational arithmetic, independently of the library; any
 * byte that changes here is a format change (ACTQ_FORMAT_VERSION). */
#include <criterion/criterion.h>
#include <string.h>

#include "actq.h"
#include "support/tensor.h"

typedef struct golden_case {
  const char *name;
  size_t rows, cols;
  uint32_t group_size, bits;
  const uint8_t *row_bits;
  actq_dtype meta_dtype, x_dtype, y_dtype;
  actq_rounding rounding;
  uint64_t seed, offset;
  const void *x;
  const uint8_t *packed;
  size_t packed_bytes;
  const void *group_min, *group_scale;
  size_t groups;
  const void *y;
} golden_case;

#include "golden/golden_vectors.h"

static void check(actq_backend be, const golden_case *g) {
  const actq_layout lay = {g->rows, g->cols, g->group_size, g->bits, g->row_bits, g->meta_dtype};
  const size_t n = g->rows * g->cols, ms = test_dtype_size(g->meta_dtype);
  uint8_t packed[512], mn[256], sc[256], y[4096];
  size_t pb, ng, i;
  actq_context *ctx;
  actq_status st;
  int has_nan = 0;
  cr_assert_eq(actq_layout_sizes(&lay, &pb, &ng), ACTQ_OK);
  cr_assert(pb == g->packed_bytes && ng == g->groups, "%s: sizes", g->name);
  cr_assert(pb <= sizeof packed && ng * 4 <= sizeof mn && n * 4 <= sizeof y);
  cr_assert_eq(actq_context_create(be, &ctx), ACTQ_OK);
  st = actq_quantize(ctx, &lay, g->x_dtype, g->x, g->rounding, g->seed, g->offset, packed, mn, sc);
  for (i = 0; i < ng; i++) has_nan |= test_load(g->group_min, g->meta_dtype, i) != test_load(g->group_min, g->meta_dtype, i);
  cr_assert_eq(st, has_nan ? ACTQ_ERR_NONFINITE : ACTQ_OK, "%s: status", g->name);
  for (i = 0; i < pb; i++)
    cr_assert_eq(packed[i], g->packed[i], "%s backend %d: packed byte %zu: %02x, golden %02x",
                 g->name, be, i, packed[i], g->packed[i]);
  for (i = 0; i < ng; i++) {
    cr_assert(memcmp(mn + i * ms, (const uint8_t *)g->group_min + i * ms, ms) == 0,
              "%s backend %d: min of group %zu", g->name, be, i);
    cr_assert(memcmp(sc + i * ms, (const uint8_t *)g->group_scale + i * ms, ms) == 0,
              "%s backend %d: scale of group %zu", g->name, be, i);
  }
  cr_assert_eq(actq_dequantize(ctx, &lay, g->packed, g->group_min, g->group_scale, g->y_dtype, y),
               ACTQ_OK);
  for (i = 0; i < n; i++) {
    const size_t ys = test_dtype_size(g->y_dtype);
    cr_assert(memcmp(y + i * ys, (const uint8_t *)g->y + i * ys, ys) == 0,
              "%s backend %d: y[%zu]", g->name, be, i);
  }
  actq_context_destroy(ctx);
}

Test(golden, every_backend_reproduces_the_frozen_bytes) {
  size_t i;
  int b;
  for (b = 0; b < TEST_CPU_BACKENDS; b++)
    for (i = 0; i < sizeof golden_cases / sizeof *golden_cases; i++)
      check(test_cpu_backends[b], &golden_cases[i]);
}
