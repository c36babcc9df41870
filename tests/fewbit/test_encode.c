/* test_encode.c - fewbit_encode codes and fewbit_backward gradients: codes by their
 * definition (number of bounds strictly below x) including ties, +-Inf, NaN, denormals
 * and odd n; packing as actq_pack; grad_in = grad_out * level rounded once; every CPU
 * backend equal to the reference; bad input; outputs against guard pages. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fewbit.h"
#include "support/guard.h"
#include "support/tensor.h"

static uint32_t code_by_definition(const fewbit_table *t, float x) {
  uint32_t k, c = 0;
  for (k = 0; k + 1 < (1u << t->bits); k++) c += t->bounds[k] < x;
  return c;
}

/* inputs that hit every interval, every border exactly, both sides of each border,
 * specials; n odd */
static size_t make_inputs(const fewbit_table *t, float *x, size_t cap, uint64_t seed) {
  static const float specials[] = {INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, -1e-45f, 1e-39f,
                                   3.4e38f, -3.4e38f};
  size_t n = 0, k;
  uint64_t st = seed;
  for (k = 0; k + 1 < (1u << t->bits) && n + 3 < cap; k++) {
    x[n++] = t->bounds[k];
    x[n++] = nextafterf(t->bounds[k], INFINITY);
    x[n++] = nextafterf(t->bounds[k], -INFINITY);
  }
  for (k = 0; k < sizeof specials / sizeof *specials && n < cap; k++) x[n++] = specials[k];
  while (n < cap) x[n++] = (float)(test_rand_normal(&st) * 3);
  return n;
}

static void check_table(const fewbit_table *t, actq_dtype dt, size_t n0) {
  const size_t n = n0 | 1, cb = (n * t->bits + 7) / 8, es = test_dtype_size(dt);
  float *xf = malloc(n * 4);
  void *x = guard_alloc(n * es), *g = guard_alloc(n * es);
  uint8_t *codes = guard_alloc(cb), *ref_codes = malloc(cb), *unpacked = malloc(n);
  void *gin = guard_alloc(n * es), *ref_gin = malloc(n * es);
  size_t i;
  int b;
  uint64_t st = 3;
  make_inputs(t, xf, n, n0);
  for (i = 0; i < n; i++) {
    test_store(x, dt, i, xf[i]);
    test_store(g, dt, i, (float)test_rand_normal(&st));
  }
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    actq_context *ctx;
    cr_assert_eq(actq_context_create(test_cpu_backends[b], &ctx), ACTQ_OK);
    memset(codes, 0xee, cb);
    cr_assert_eq(fewbit_encode(ctx, t, n, dt, x, NULL, codes), ACTQ_OK);
    cr_assert_eq(actq_unpack(ctx, t->bits, n, codes, unpacked), ACTQ_OK);
    if ((n * t->bits) % 8) cr_assert_eq(codes[cb - 1] >> ((n * t->bits) % 8), 0, "high bits zero");
    for (i = 0; i < n; i++) {
      const float xv = test_load(x, dt, i);
      cr_assert_eq(unpacked[i], code_by_definition(t, xv), "bits %u dtype %s x=%a", t->bits,
                   test_dtype_name(dt), xv);
    }
    cr_assert_eq(fewbit_backward(ctx, t, n, codes, dt, g, gin), ACTQ_OK);
    for (i = 0; i < n; i++) {
      float want;
      test_store(&want, dt, 0, test_load(g, dt, i) * t->levels[unpacked[i]]);
      cr_assert(memcmp((uint8_t *)gin + i * es, &want, es) == 0, "grad_in[%zu]", i);
    }
    if (b == 0) {
      memcpy(ref_codes, codes, cb);
      memcpy(ref_gin, gin, n * es);
    } else {
      cr_assert(memcmp(ref_codes, codes, cb) == 0, "CPU codes equal the reference's");
      cr_assert(memcmp(ref_gin, gin, n * es) == 0, "CPU grad_in equals the reference's");
    }
    actq_context_destroy(ctx);
  }
  free(xf);
  guard_free(x);
  guard_free(g);
  guard_free(codes);
  free(ref_codes);
  free(unpacked);
  guard_free(gin);
  free(ref_gin);
}

Test(encode, codes_and_gradients_every_width_and_dtype, .timeout = 120) {
  static const actq_dtype dts[3] = {ACTQ_F32, ACTQ_F16, ACTQ_BF16};
  static const size_t sizes[] = {1, 7, 8, 9, 255, 1001, 100001};
  uint32_t bits;
  size_t d, s;
  for (bits = 1; bits <= 8; bits++) {
    fewbit_table t;
    cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, bits, NULL, &t), ACTQ_OK);
    for (d = 0; d < 3; d++)
      for (s = 0; s < sizeof sizes / sizeof *sizes; s++) check_table(&t, dts[d], sizes[s]);
  }
}

Test(encode, nan_gets_code_zero_and_is_reported) {
  fewbit_table t;
  float x[9] = {1, 2, NAN, -1, 0, 3, -NAN, 5, 6};
  uint8_t codes[9];
  actq_context *ctx;
  int b;
  cr_assert_eq(fewbit_table_build(FEWBIT_SILU, 0, 8, NULL, &t), ACTQ_OK);
  for (b = 0; b < TEST_CPU_BACKENDS; b++) {
    cr_assert_eq(actq_context_create(test_cpu_backends[b], &ctx), ACTQ_OK);
    cr_assert_eq(fewbit_encode(ctx, &t, 9, ACTQ_F32, x, NULL, codes), ACTQ_ERR_NONFINITE);
    cr_assert_eq(codes[2], 0);
    cr_assert_eq(codes[6], 0);
    cr_assert_eq(codes[8], code_by_definition(&t, 6), "processing went on past the NaN");
    actq_context_destroy(ctx);
  }
}

Test(encode, bad_input) {
  fewbit_table t, bad;
  float x[4] = {0}, y[4];
  uint8_t codes[4];
  actq_context *ctx;
  cr_assert_eq(fewbit_table_build(FEWBIT_TANH, 0, 2, NULL, &t), ACTQ_OK);
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &ctx), ACTQ_OK);
  cr_assert_eq(fewbit_encode(NULL, &t, 4, ACTQ_F32, x, y, codes), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_encode(ctx, NULL, 4, ACTQ_F32, x, y, codes), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_encode(ctx, &t, 4, (actq_dtype)3, x, y, codes), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_encode(ctx, &t, 4, ACTQ_F32, NULL, y, codes), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_encode(ctx, &t, 4, ACTQ_F32, x, y, NULL), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_encode(ctx, &t, 0, ACTQ_F32, NULL, NULL, NULL), ACTQ_OK);
  cr_assert_eq(fewbit_encode(ctx, &t, SIZE_MAX / 2, ACTQ_F32, x, y, codes), ACTQ_ERR_SIZE_OVERFLOW);
  cr_assert_eq(fewbit_backward(ctx, &t, 4, codes, ACTQ_F32, x, NULL), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_backward(ctx, &t, 4, NULL, ACTQ_F32, x, y), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_backward(ctx, &t, 0, NULL, ACTQ_F32, NULL, NULL), ACTQ_OK);
  bad = t;
  bad.bits = 0;
  cr_assert_eq(fewbit_encode(ctx, &bad, 4, ACTQ_F32, x, y, codes), ACTQ_ERR_INVALID_ARGUMENT);
  bad = t;
  bad.bounds[1] = bad.bounds[0];
  cr_assert_eq(fewbit_encode(ctx, &bad, 4, ACTQ_F32, x, y, codes), ACTQ_ERR_INVALID_ARGUMENT, "bounds must increase");
  bad = t;
  bad.bounds[2] = NAN;
  cr_assert_eq(fewbit_backward(ctx, &bad, 4, codes, ACTQ_F32, x, y), ACTQ_ERR_INVALID_ARGUMENT);
  bad = t;
  bad.activation = 99;
  cr_assert_eq(fewbit_encode(ctx, &bad, 4, ACTQ_F32, x, y, codes), ACTQ_ERR_INVALID_ARGUMENT);
  bad.activation = FEWBIT_CUSTOM;
  cr_assert_eq(fewbit_encode(ctx, &bad, 4, ACTQ_F32, x, y, codes), ACTQ_ERR_UNSUPPORTED, "no f for custom tables");
  cr_assert_eq(fewbit_encode(ctx, &bad, 4, ACTQ_F32, x, NULL, codes), ACTQ_OK);
  actq_context_destroy(ctx);
}

/* y = f(x) as written by every backend equals the shared float32 forward, rounded to the
 * dtype, for every activation (the functions' accuracy is tests/arith/test_act.c's subject). */
#include "src/arith/act.h"
#include "fewbit/forward_double.h"

Test(encode, y_is_the_shared_forward_every_activation, .timeout = 120) {
  static const actq_dtype dts[3] = {ACTQ_F32, ACTQ_F16, ACTQ_BF16};
  const size_t n = 4099;
  float *xf = malloc(n * 4);
  size_t a, d, i;
  int b;
  for (a = 0; a < N_ACTS; a++) {
    fewbit_table t;
    cr_assert_eq(fewbit_table_build(ALL_ACTS[a].act, ALL_ACTS[a].param, 3, NULL, &t), ACTQ_OK);
    make_inputs(&t, xf, n, a);
    xf[n - 1] = NAN;
    for (d = 0; d < 3; d++) {
      const size_t es = test_dtype_size(dts[d]);
      void *x = guard_alloc(n * es), *y = guard_alloc(n * es);
      uint8_t *codes = guard_alloc((n * 3 + 7) / 8);
      for (i = 0; i < n; i++) test_store(x, dts[d], i, xf[i]);
      for (b = 0; b < TEST_CPU_BACKENDS; b++) {
        actq_context *ctx;
        cr_assert_eq(actq_context_create(test_cpu_backends[b], &ctx), ACTQ_OK);
        cr_assert_eq(fewbit_encode(ctx, &t, n, dts[d], x, y, codes), ACTQ_ERR_NONFINITE);
        for (i = 0; i < n; i++) {
          float f = actq_act_forward((int)t.activation, t.param, test_load(x, dts[d], i)), want;
          if (f != f) f = NAN;
          test_store(&want, dts[d], 0, f);
          if (f != f)
            cr_assert(test_load(y, dts[d], i) != test_load(y, dts[d], i));
          else
            cr_assert(memcmp((uint8_t *)y + i * es, &want, es) == 0,
                      "act %d dtype %s backend %d x=%a", t.activation, test_dtype_name(dts[d]), b,
                      test_load(x, dts[d], i));
        }
        actq_context_destroy(ctx);
      }
      guard_free(x);
      guard_free(y);
      guard_free(codes);
    }
  }
  free(xf);
}

/* Large calls split across threads (each thread's range ends inside a unit stream that
 * the next thread continues): every thread count gives the reference's bytes. */
Test(encode, threads_give_the_reference_bytes, .timeout = 120) {
  static const uint32_t widths[4] = {1, 3, 4, 8};
  static const int threads[3] = {2, 3, 5};
  const size_t n = ((size_t)1 << 20) + 13;
  float *x = malloc(n * 4), *g = malloc(n * 4), *y_ref = malloc(n * 4), *y = malloc(n * 4);
  float *gi_ref = malloc(n * 4), *gi = malloc(n * 4);
  uint8_t *c_ref = malloc(n), *c = malloc(n);
  actq_context *ref, *cpu;
  uint64_t st = 9;
  size_t i, w, k;
  for (i = 0; i < n; i++) {
    x[i] = (float)(test_rand_normal(&st) * 2);
    g[i] = (float)test_rand_normal(&st);
  }
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref), ACTQ_OK);
  cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU, &cpu), ACTQ_OK);
  for (w = 0; w < 4; w++) {
    fewbit_table t;
    const size_t cb = (n * widths[w] + 7) / 8;
    cr_assert_eq(fewbit_table_build(FEWBIT_SILU, 0, widths[w], NULL, &t), ACTQ_OK);
    cr_assert_eq(fewbit_encode(ref, &t, n, ACTQ_F32, x, y_ref, c_ref), ACTQ_OK);
    cr_assert_eq(fewbit_backward(ref, &t, n, c_ref, ACTQ_F32, g, gi_ref), ACTQ_OK);
    for (k = 0; k < 3; k++) {
      cr_assert_eq(actq_context_set_threads(cpu, threads[k]), ACTQ_OK);
      memset(c, 0xee, cb);
      cr_assert_eq(fewbit_encode(cpu, &t, n, ACTQ_F32, x, y, c), ACTQ_OK);
      cr_assert(memcmp(c, c_ref, cb) == 0, "codes, bits %u threads %d", widths[w], threads[k]);
      cr_assert(memcmp(y, y_ref, n * 4) == 0, "y, bits %u threads %d", widths[w], threads[k]);
      cr_assert_eq(fewbit_backward(cpu, &t, n, c, ACTQ_F32, g, gi), ACTQ_OK);
      cr_assert(memcmp(gi, gi_ref, n * 4) == 0, "grad_in, bits %u threads %d", widths[w], threads[k]);
    }
  }
  actq_context_destroy(ref);
  actq_context_destroy(cpu);
  free(x); free(g); free(y_ref); free(y); free(gi_ref); free(gi); free(c_ref); free(c);
}
