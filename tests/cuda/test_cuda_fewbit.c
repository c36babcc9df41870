/* test_cuda_fewbit.c - CUDA fewbit_encode (codes and y) and fewbit_backward equal the
 * reference byte for byte: every activation, widths 1, 3 and 8, every dtype, odd n,
 * misaligned device pointers, NaN reported at synchronize; nothing written outside the
 * outputs (guard bytes after each device buffer). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fewbit.h"
#include "support/bytes_compare.h"
#include "support/cuda_test.h"
#include "support/data_gen.h"

enum { GUARD = 64 };

typedef struct dev_buf {
  uint8_t *base; /* shift + bytes + GUARD, prefilled with 0xa5 */
  size_t shift, bytes;
} dev_buf;

static dev_buf dev_alloc(size_t bytes, size_t shift) {
  dev_buf b = {NULL, shift, bytes};
  cr_assert_eq(cudaMalloc((void **)&b.base, shift + bytes + GUARD), cudaSuccess);
  cr_assert_eq(cudaMemset(b.base, 0xa5, shift + bytes + GUARD), cudaSuccess);
  return b;
}

static void *dev_ptr(const dev_buf *b) { return b->base + b->shift; }

/* Copies the buffer back, checks its guard bytes, returns the payload (malloc'd). */
static uint8_t *dev_fetch(const dev_buf *b, const char *what) {
  uint8_t *all = (uint8_t *)malloc(b->shift + b->bytes + GUARD), *out = (uint8_t *)malloc(b->bytes + 1);
  char msg[512];
  cr_assert_eq(cudaMemcpy(all, b->base, b->shift + b->bytes + GUARD, cudaMemcpyDeviceToHost), cudaSuccess);
  cr_assert(bytes_all(what, all, 0xa5, b->shift, msg, sizeof msg), "before: %s", msg);
  cr_assert(bytes_all(what, all + b->shift + b->bytes, 0xa5, GUARD, msg, sizeof msg), "after: %s", msg);
  memcpy(out, all + b->shift, b->bytes);
  free(all);
  return out;
}

static void check_case(actq_context *cuda, actq_context *ref, const fewbit_table *t, actq_dtype dt,
                       size_t n, int with_y, int with_nan, test_rng *rng) {
  const size_t es = dt == ACTQ_F32 ? 4 : 2, cb = (n * t->bits + 7) / 8;
  uint8_t *x = (uint8_t *)malloc(n * es), *g = (uint8_t *)malloc(n * es);
  uint8_t *y_ref = (uint8_t *)malloc(n * es), *codes_ref = (uint8_t *)malloc(cb), *gin_ref = (uint8_t *)malloc(n * es);
  const size_t sx = es * rng_below(rng, 4), sy = es * rng_below(rng, 4), sc = rng_below(rng, 5);
  dev_buf dx = dev_alloc(n * es, sx), dy = dev_alloc(n * es, sy), dc = dev_alloc(cb, sc);
  dev_buf dg = dev_alloc(n * es, sx), dgin = dev_alloc(n * es, sy);
  actq_status st_ref, st_cuda;
  uint8_t *got;
  char msg[1024];
  size_t i;
  for (i = 0; i < n; i++) { /* normal values spread over the bounds, a few specials */
    const float v = (float)(6.0 * (rng_unit(rng) - 0.5));
    const float w = (float)(2.0 * rng_unit(rng) - 1.0);
    const float special[4] = {INFINITY, -INFINITY, t->bounds[0], -0.0f};
    const float xv = i % 97 == 5 ? special[i % 4] : v;
    if (dt == ACTQ_F32) {
      memcpy(x + 4 * i, &xv, 4);
      memcpy(g + 4 * i, &w, 4);
    } else { /* the bf16 pattern of the value serves both half types as test data */
      uint32_t u, uw;
      memcpy(&u, &xv, 4);
      memcpy(&uw, &w, 4);
      ((uint16_t *)x)[i] = (uint16_t)(dt == ACTQ_BF16 ? u >> 16 : 0x3c00u + (u >> 22) % 0x3000u);
      ((uint16_t *)g)[i] = (uint16_t)(uw >> 16);
    }
  }
  if (with_nan && n > 3) {
    const float nanv = NAN;
    if (dt == ACTQ_F32) memcpy(x + 4 * (n / 2), &nanv, 4);
    else ((uint16_t *)x)[n / 2] = dt == ACTQ_BF16 ? 0x7fc1 : 0x7e01;
  }
  cr_assert_eq(cudaMemcpy(dev_ptr(&dx), x, n * es, cudaMemcpyHostToDevice), cudaSuccess);
  cr_assert_eq(cudaMemcpy(dev_ptr(&dg), g, n * es, cudaMemcpyHostToDevice), cudaSuccess);

  st_ref = fewbit_encode(ref, t, n, dt, x, with_y ? y_ref : NULL, codes_ref);
  st_cuda = fewbit_encode(cuda, t, n, dt, dev_ptr(&dx), with_y ? dev_ptr(&dy) : NULL, dev_ptr(&dc));
  cr_assert_eq(st_cuda, ACTQ_OK, "encode launch");
  st_cuda = actq_context_synchronize(cuda);
  cr_assert_eq(st_cuda, st_ref, "act %u bits %u n %zu: status %d vs reference %d", t->activation,
               t->bits, n, st_cuda, st_ref);
  got = dev_fetch(&dc, "codes");
  cr_assert(bytes_equal("codes", got, codes_ref, cb, msg, sizeof msg), "act %u bits %u dt %d n %zu: %s",
            t->activation, t->bits, dt, n, msg);
  free(got);
  if (with_y) {
    got = dev_fetch(&dy, "y");
    cr_assert(bytes_equal("y", got, y_ref, n * es, msg, sizeof msg), "act %u dt %d n %zu: %s",
              t->activation, dt, n, msg);
    free(got);
  }
  cr_assert_eq(fewbit_backward(ref, t, n, codes_ref, dt, g, gin_ref), ACTQ_OK);
  cr_assert_eq(fewbit_backward(cuda, t, n, dev_ptr(&dc), dt, dev_ptr(&dg), dev_ptr(&dgin)), ACTQ_OK);
  cr_assert_eq(actq_context_synchronize(cuda), ACTQ_OK);
  got = dev_fetch(&dgin, "grad_in");
  cr_assert(bytes_equal("grad_in", got, gin_ref, n * es, msg, sizeof msg), "bits %u dt %d n %zu: %s",
            t->bits, dt, n, msg);
  free(got);
  cudaFree(dx.base); cudaFree(dy.base); cudaFree(dc.base); cudaFree(dg.base); cudaFree(dgin.base);
  free(x); free(g); free(y_ref); free(codes_ref); free(gin_ref);
}

Test(cuda_fewbit, equals_reference_every_activation) {
  static const uint32_t widths[3] = {1, 3, 8};
  static const actq_dtype dts[3] = {ACTQ_F32, ACTQ_F16, ACTQ_BF16};
  actq_context *cuda = NULL, *ref = NULL;
  test_rng rng = {11};
  int act, w, d;
  CUDA_CONTEXT_OR_SKIP(cuda);
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref), ACTQ_OK);
  for (act = FEWBIT_GELU; act <= FEWBIT_LEAKY_RELU; act++)
    for (w = 0; w < 3; w++) {
      fewbit_table t;
      const float param = act == FEWBIT_LEAKY_RELU ? 0.01f : 1.0f;
      cr_assert_eq(fewbit_table_build((fewbit_activation)act, param, widths[w], NULL, &t), ACTQ_OK);
      for (d = 0; d < 3; d++) {
        const size_t n = 1 + rng_below(&rng, 3000);
        check_case(cuda, ref, &t, dts[d], n, 1, (act + w + d) % 4 == 0, &rng);
      }
    }
  /* a large one, aligned and not, without y */
  {
    fewbit_table t;
    cr_assert_eq(fewbit_table_build(FEWBIT_SILU, 1.0f, 4, NULL, &t), ACTQ_OK);
    check_case(cuda, ref, &t, ACTQ_BF16, 5000003, 0, 1, &rng);
    check_case(cuda, ref, &t, ACTQ_F32, 5000000, 1, 0, &rng);
  }
  actq_context_destroy(ref);
  actq_context_destroy(cuda);
}
