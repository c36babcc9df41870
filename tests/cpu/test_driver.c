/* test_driver.c - how cpu/driver.c walks a tensor leaves no trace in the bytes.
 *
 * A tensor whose rows share one width and hold whole groups is walked as one long row
 * (walk_grid in cpu/driver.c). Per-row widths that all equal that width are walked row by
 * row, and the contract gives both the same bytes. So each case quantizes (and
 * dequantizes) one tensor both ways, on the reference and the CPU backend at 1, 2 and 3
 * threads, and compares every byte and the status: shapes of 2 to 67 rows of 8 to 768
 * columns, groups of 8 to 256 (rows of whole groups, and rows with a short last group,
 * which are walked row by row either way), every width, f32 and bf16 input, f32 and f16 metadata, both
 * roundings, with and without nonfinite groups, odd seeds and offsets.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"
#include "support/bytes_compare.h"
#include "support/data_gen.h"
#include "support/tensor.h"

typedef struct outputs {
  actq_status st;
  uint8_t *packed;
  uint8_t *gmin, *gscale;
  uint8_t *y;
  size_t packed_bytes, meta_bytes, y_bytes;
} outputs;

static void outputs_free(outputs *o) {
  free(o->packed);
  free(o->gmin);
  free(o->gscale);
  free(o->y);
}

/* Quantize then dequantize x under layout l; buffers start filled with 0xa5, so that a
 * byte one walk writes and the other leaves shows too. */
static outputs run(actq_context *ctx, const actq_layout *l, actq_dtype x_dtype, const void *x,
                   actq_rounding rounding, uint64_t seed, uint64_t offset) {
  outputs o;
  size_t groups;
  cr_assert_eq(actq_layout_sizes(l, &o.packed_bytes, &groups), ACTQ_OK);
  o.meta_bytes = groups * test_dtype_size(l->meta_dtype);
  o.y_bytes = l->rows * l->cols * 4;
  o.packed = malloc(o.packed_bytes + 1);
  o.gmin = malloc(o.meta_bytes);
  o.gscale = malloc(o.meta_bytes);
  o.y = malloc(o.y_bytes);
  cr_assert(o.packed && o.gmin && o.gscale && o.y);
  memset(o.packed, 0xa5, o.packed_bytes + 1);
  memset(o.gmin, 0xa5, o.meta_bytes);
  memset(o.gscale, 0xa5, o.meta_bytes);
  memset(o.y, 0xa5, o.y_bytes);
  o.st = actq_quantize(ctx, l, x_dtype, x, rounding, seed, offset, o.packed, o.gmin, o.gscale);
  cr_assert(o.st == ACTQ_OK || o.st == ACTQ_ERR_NONFINITE, "status %d", (int)o.st);
  cr_assert_eq(actq_dequantize(ctx, l, o.packed, o.gmin, o.gscale, ACTQ_F32, o.y), ACTQ_OK);
  return o;
}

static void check_same(const outputs *a, const outputs *b, const char *what) {
  char msg[256];
  cr_assert_eq(a->st, b->st, "%s: status %d vs %d", what, (int)a->st, (int)b->st);
  cr_assert(bytes_equal("packed", a->packed, b->packed, a->packed_bytes + 1, msg, sizeof msg),
            "%s: %s", what, msg);
  cr_assert(bytes_equal("minima", a->gmin, b->gmin, a->meta_bytes, msg, sizeof msg), "%s: %s",
            what, msg);
  cr_assert(bytes_equal("scales", a->gscale, b->gscale, a->meta_bytes, msg, sizeof msg),
            "%s: %s", what, msg);
  cr_assert(bytes_equal("dequantized", a->y, b->y, a->y_bytes, msg, sizeof msg), "%s: %s", what,
            msg);
}

static void one_case(actq_context *ctx, test_rng *rng, size_t rows, size_t cols, uint32_t G,
                     uint32_t bits, actq_dtype x_dtype, actq_dtype meta, int special) {
  const size_t n = rows * cols;
  void *x = malloc(n * 4);
  uint8_t *rb = malloc(rows);
  const actq_rounding rounding = rng_below(rng, 2) ? ACTQ_ROUND_NEAREST : ACTQ_ROUND_STOCHASTIC;
  const uint64_t seed = rng_next(rng), offset = rng_next(rng) >> rng_below(rng, 64);
  char what[160];
  cr_assert(x && rb);
  fill_groups(rng, x_dtype, x, rows, cols, G, special);
  memset(rb, (int)bits, rows);
  actq_layout uniform = {rows, cols, G, bits, NULL, meta};
  actq_layout per_row = {rows, cols, G, 0, rb, meta};
  outputs a = run(ctx, &uniform, x_dtype, x, rounding, seed, offset);
  outputs b = run(ctx, &per_row, x_dtype, x, rounding, seed, offset);
  snprintf(what, sizeof what, "%s: %zux%zu G%u b%u x %s meta %s %s special%d",
           actq_context_describe(ctx), rows, cols, G, bits, test_dtype_name(x_dtype),
           test_dtype_name(meta),
           rounding == ACTQ_ROUND_NEAREST ? "nearest" : "stochastic", special);
  check_same(&a, &b, what);
  outputs_free(&a);
  outputs_free(&b);
  free(x);
  free(rb);
}

static void all_cases(actq_context *ctx) {
  static const uint32_t group_sizes[] = {8, 16, 64, 128, 256};
  static const size_t rows_list[] = {2, 3, 17, 67};
  test_rng rng = {0x5eed0fd21e7e5ull};
  size_t gi, ri;
  uint32_t bits;
  for (gi = 0; gi < sizeof group_sizes / sizeof *group_sizes; gi++)
    for (ri = 0; ri < sizeof rows_list / sizeof *rows_list; ri++)
      for (bits = 1; bits <= 8; bits++) {
        const uint32_t G = group_sizes[gi];
        /* 1 to 3 groups a row, and every other time a short last group (whose rows
         * cannot be walked as one: the test must see both walks) */
        const size_t cols = G * (1 + rng_below(&rng, 3)) + (bits % 2 ? 0 : 8 * rng_below(&rng, G / 8));
        const actq_dtype x_dtype = rng_below(&rng, 2) ? ACTQ_BF16 : ACTQ_F32;
        const actq_dtype meta = rng_below(&rng, 2) ? ACTQ_F16 : ACTQ_F32;
        one_case(ctx, &rng, rows_list[ri], cols, G, bits, x_dtype, meta, (int)rng_below(&rng, 2));
      }
}

/* Large enough for every thread to get a range of its own (cpu/driver.c gives a thread
 * at least 2^17 elements), ranges that start inside rows included. */
static void large_cases(actq_context *ctx) {
  test_rng rng = {0x1a26e5ull};
  one_case(ctx, &rng, 2048, 192, 64, 2, ACTQ_F32, ACTQ_F32, 1);
  one_case(ctx, &rng, 1500, 384, 128, 3, ACTQ_BF16, ACTQ_F16, 1);
  one_case(ctx, &rng, 3000, 256, 256, 4, ACTQ_F32, ACTQ_F32, 0);
}

Test(walk, reference_whole_group_rows_equal_row_by_row) {
  actq_context *ctx;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ctx), ACTQ_OK);
  all_cases(ctx);
  actq_context_destroy(ctx);
}

Test(walk, cpu_whole_group_rows_equal_row_by_row) {
  actq_context *ctx;
  int threads;
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &ctx), ACTQ_OK);
  for (threads = 1; threads <= 3; threads++) {
    cr_assert_eq(actq_context_set_threads(ctx, threads), ACTQ_OK);
    all_cases(ctx);
    large_cases(ctx);
  }
  actq_context_destroy(ctx);
}
