/* test_cuda_quantize.c - CUDA quantize and dequantize equal the reference byte for byte:
 * random shapes, widths (uniform and per row), group sizes up to 65536, dtypes, metadata
 * dtypes, roundings, seeds and offsets, misaligned device pointers, and groups holding
 * NaN/Inf, constants, +-FLT_MAX, denormals and signed zeros. */
#include <stdlib.h>

#include "support/cuda_check.h"
#include "support/cuda_test.h"
#include "support/data_gen.h"

static const uint32_t group_sizes[] = {8, 16, 24, 32, 40, 64, 128, 136, 256,
                                       512, 1024, 1032, 2048, 4096, 8192, 65536};

/* A random case; x is allocated and filled, caller frees it and row_bits. */
static void *random_case(test_rng *rng, quant_case *c, uint8_t **row_bits, int special,
                         int big_groups) {
  const size_t ng = sizeof group_sizes / sizeof group_sizes[0];
  size_t r, esize;
  void *x;
  c->layout.group_size = group_sizes[big_groups ? ng - 1 - rng_below(rng, 4) : rng_below(rng, ng - 3)];
  c->layout.rows = 1 + rng_below(rng, big_groups ? 3 : 9);
  switch (rng_below(rng, 3)) {
    case 0: c->layout.cols = 8 * (1 + rng_below(rng, 400)); break;          /* whole units */
    case 1: c->layout.cols = 1 + rng_below(rng, 3000); break;               /* anything */
    default: c->layout.cols = c->layout.group_size * (1 + rng_below(rng, 4)); /* whole groups */
  }
  if (big_groups) c->layout.cols = c->layout.group_size + rng_below(rng, 2 * c->layout.group_size);
  c->layout.bits = 1 + (uint32_t)rng_below(rng, 8);
  c->layout.meta_dtype = (actq_dtype)rng_below(rng, 3);
  *row_bits = NULL;
  c->layout.row_bits = NULL;
  if (rng_below(rng, 3) == 0) {
    *row_bits = (uint8_t *)malloc(c->layout.rows);
    for (r = 0; r < c->layout.rows; r++) (*row_bits)[r] = (uint8_t)(1 + rng_below(rng, 8));
    c->layout.row_bits = *row_bits;
  }
  c->x_dtype = (actq_dtype)rng_below(rng, 3);
  c->y_dtype = (actq_dtype)rng_below(rng, 3);
  c->rounding = (actq_rounding)rng_below(rng, 2);
  c->seed = rng_next(rng);
  c->offset = rng_below(rng, 2) ? rng_next(rng) : rng_below(rng, 4);
  esize = c->x_dtype == ACTQ_F32 ? 4 : 2;
  c->shift_x = rng_below(rng, 2) ? esize * rng_below(rng, 8) : 0;
  c->shift_packed = rng_below(rng, 2) ? rng_below(rng, 16) : 0;
  c->shift_meta = (c->layout.meta_dtype == ACTQ_F32 ? 4 : 2) * rng_below(rng, 4);
  c->shift_y = (c->y_dtype == ACTQ_F32 ? 4 : 2) * rng_below(rng, 8);
  x = malloc(c->layout.rows * c->layout.cols * esize);
  fill_groups(rng, c->x_dtype, x, c->layout.rows, c->layout.cols, c->layout.group_size,
              special);
  return x;
}

static void run_random(uint64_t seed, int cases, int special, int big_groups) {
  actq_context *cuda = NULL;
  test_rng rng = {seed};
  char msg[1024];
  int i;
  CUDA_CONTEXT_OR_SKIP(cuda);
  for (i = 0; i < cases; i++) {
    quant_case c = {0};
    uint8_t *row_bits;
    void *x = random_case(&rng, &c, &row_bits, special, big_groups);
    int ok = check_quant_case(cuda, &c, x, msg, sizeof msg);
    free(x);
    free(row_bits);
    cr_assert(ok, "case %d (rng seed %llu): %s", i, (unsigned long long)seed, msg);
  }
  actq_context_destroy(cuda);
}

Test(cuda_quantize, random_ordinary_groups) { run_random(1, 150, 0, 0); }
Test(cuda_quantize, random_special_groups) { run_random(2, 150, 1, 0); }
Test(cuda_quantize, random_large_groups) { run_random(3, 12, 1, 1); }

/* Every width, dtype pair and rounding on one fixed shape with every special pattern. */
Test(cuda_quantize, every_width_dtype_rounding) {
  actq_context *cuda = NULL;
  test_rng rng = {42};
  char msg[1024];
  uint32_t bits;
  int xd, md, rd;
  CUDA_CONTEXT_OR_SKIP(cuda);
  for (bits = 1; bits <= 8; bits++)
    for (xd = 0; xd < 3; xd++)
      for (md = 0; md < 3; md++)
        for (rd = 0; rd < 2; rd++) {
          quant_case c = {0};
          float x[3 * 264 * 2];
          c.layout.rows = 3;
          c.layout.cols = 264;
          c.layout.group_size = 32;
          c.layout.bits = bits;
          c.layout.meta_dtype = (actq_dtype)md;
          c.x_dtype = (actq_dtype)xd;
          c.y_dtype = (actq_dtype)((xd + 1) % 3);
          c.rounding = (actq_rounding)rd;
          c.seed = rng_next(&rng);
          c.offset = rng_next(&rng);
          fill_groups(&rng, c.x_dtype, x, c.layout.rows, c.layout.cols, c.layout.group_size, 1);
          cr_assert(check_quant_case(cuda, &c, x, msg, sizeof msg), "%s", msg);
        }
  actq_context_destroy(cuda);
}

/* -FLT_MAX and FLT_MAX in one group at every width, f32 metadata: wide-group path. */
Test(cuda_quantize, huge_groups_every_width) {
  actq_context *cuda = NULL;
  char msg[1024];
  float x[64];
  uint32_t bits;
  int i;
  CUDA_CONTEXT_OR_SKIP(cuda);
  /* The factor first: +-FLT_MAX times anything over 1 would overflow to Inf. */
  for (i = 0; i < 64; i++) x[i] = (float)(i % 5) * 0.25f * (i % 2 ? 3.4028234e38f : -3.4028234e38f);
  x[5] = 3.4028234e38f; /* every group of 16 holds both extremes */
  x[21] = 3.4028234e38f;
  x[37] = 3.4028234e38f;
  x[53] = 3.4028234e38f;
  x[6] = x[22] = x[38] = x[54] = -3.4028234e38f;
  for (bits = 1; bits <= 8; bits++) {
    quant_case c = {0};
    c.layout.rows = 2;
    c.layout.cols = 32;
    c.layout.group_size = 16;
    c.layout.bits = bits;
    c.layout.meta_dtype = ACTQ_F32;
    c.x_dtype = c.y_dtype = ACTQ_F32;
    c.rounding = (actq_rounding)(bits % 2);
    c.seed = bits;
    cr_assert(check_quant_case(cuda, &c, x, msg, sizeof msg), "%s", msg);
  }
  actq_context_destroy(cuda);
}
