/* cuda_smoke.c - a small plain program (no Criterion, no fork) that runs a few CUDA
 * cases against the reference: what compute-sanitizer memcheck and racecheck run on in
 * scripts/device-check. Exit 0 all equal, 1 a difference, 77 no usable device (skip). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/cuda_check.h"
#include "support/data_gen.h"

static int run_quant(actq_context *cuda, test_rng *rng, size_t rows, size_t cols, uint32_t G,
                     uint32_t bits, int row_bits, actq_dtype xd, actq_rounding rd, size_t shift_x) {
  quant_case c;
  uint8_t rb[16];
  char msg[1024];
  size_t r;
  void *x = malloc(rows * cols * 4);
  int ok;
  memset(&c, 0, sizeof c);
  c.layout.rows = rows;
  c.layout.cols = cols;
  c.layout.group_size = G;
  c.layout.bits = bits;
  c.layout.meta_dtype = (actq_dtype)rng_below(rng, 3);
  for (r = 0; r < rows && r < 16; r++) rb[r] = (uint8_t)(1 + rng_below(rng, 8));
  c.layout.row_bits = row_bits ? rb : NULL;
  c.x_dtype = xd;
  c.y_dtype = (actq_dtype)rng_below(rng, 3);
  c.rounding = rd;
  c.seed = rng_next(rng);
  c.offset = rng_next(rng);
  c.shift_x = shift_x;
  c.shift_packed = rng_below(rng, 5);
  fill_groups(rng, xd, x, rows, cols, G, 1);
  ok = check_quant_case(cuda, &c, x, msg, sizeof msg);
  if (!ok) printf("FAIL %s\n", msg);
  free(x);
  return ok;
}

int main(void) {
  actq_context *cuda = NULL;
  test_rng rng = {5};
  int passed = 0, failed = 0, i;
  char msg[1024];
  actq_status st = actq_context_create(ACTQ_BACKEND_CUDA, &cuda);
  if (st != ACTQ_OK) {
    printf("cuda_smoke: skipped: no usable CUDA device (%s)\n", actq_status_string(st));
    return 77;
  }
  printf("cuda_smoke on %s\n", actq_context_describe(cuda));
#define COUNT(ok) ((ok) ? passed++ : failed++)
  COUNT(run_quant(cuda, &rng, 4, 1024, 256, 2, 0, ACTQ_F32, ACTQ_ROUND_STOCHASTIC, 0));
  COUNT(run_quant(cuda, &rng, 3, 1000, 8, 3, 1, ACTQ_BF16, ACTQ_ROUND_NEAREST, 2));
  COUNT(run_quant(cuda, &rng, 5, 777, 24, 5, 1, ACTQ_F16, ACTQ_ROUND_STOCHASTIC, 6));
  COUNT(run_quant(cuda, &rng, 2, 4096, 1024, 4, 0, ACTQ_BF16, ACTQ_ROUND_STOCHASTIC, 0));
  COUNT(run_quant(cuda, &rng, 2, 70000, 65536, 8, 1, ACTQ_F32, ACTQ_ROUND_STOCHASTIC, 4));
  COUNT(run_quant(cuda, &rng, 3, 9000, 4096, 1, 0, ACTQ_F32, ACTQ_ROUND_NEAREST, 0));
  for (i = 0; i < 8; i++) {
    const uint32_t bits = (uint32_t)i + 1;
    const size_t n = 1 + rng_below(&rng, 20000);
    uint8_t *codes = (uint8_t *)malloc(n);
    fill_codes(&rng, codes, n, bits, i == 3);
    if (check_pack_case(cuda, bits, n, codes, rng_below(&rng, 9), rng_below(&rng, 9), msg, sizeof msg)) {
      passed++;
    } else {
      failed++;
      printf("FAIL %s\n", msg);
    }
    free(codes);
  }
  actq_context_destroy(cuda);
  printf("cuda_smoke: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
