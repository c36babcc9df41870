/* test_special.c - groups at the edges: constant, huge (+-FLT_MAX), NaN/Inf, metadata
 * the meta dtype cannot hold, signed zeros and denormals. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "actq.h"
#include "support/quantcheck.h"
#include "support/tensor.h"

#define G 8

typedef struct one_call {
  actq_status st;
  uint8_t packed[64];
  float mn[8], sc[8], y[64];
} one_call;

/* Quantizes `groups` groups of 8 f32 values with f32/f16/bf16 metadata (read back as f32). */
static one_call run(actq_backend be, const float *x, size_t groups, uint32_t bits,
                    actq_dtype md, actq_rounding rnd) {
  const actq_layout lay = {1, groups * G, G, bits, NULL, md};
  one_call r;
  uint16_t mn16[8], sc16[8];
  actq_context *ctx;
  size_t g;
  memset(&r, 0, sizeof r);
  cr_assert_eq(actq_context_create(be, &ctx), ACTQ_OK);
  r.st = actq_quantize(ctx, &lay, ACTQ_F32, x, rnd, 1, 2, r.packed,
                       md == ACTQ_F32 ? (void *)r.mn : (void *)mn16,
                       md == ACTQ_F32 ? (void *)r.sc : (void *)sc16);
  cr_assert_eq(actq_dequantize(ctx, &lay, r.packed, md == ACTQ_F32 ? (void *)r.mn : (void *)mn16,
                               md == ACTQ_F32 ? (void *)r.sc : (void *)sc16, ACTQ_F32, r.y),
               ACTQ_OK);
  if (md != ACTQ_F32)
    for (g = 0; g < groups; g++) {
      r.mn[g] = test_load(mn16, md, g);
      r.sc[g] = test_load(sc16, md, g);
    }
  actq_context_destroy(ctx);
  return r;
}

static const actq_dtype metas[3] = {ACTQ_F32, ACTQ_F16, ACTQ_BF16};

Test(special, constant_groups_reconstruct_exactly) {
  static const float values[] = {0.0f, 1.0f, -2.5f, 1024.0f, -448.0f, 0.125f, 3e-5f};
  int be, mi, rnd;
  uint32_t bits;
  size_t v, i;
  for (be = 0; be < TEST_CPU_BACKENDS; be++)
    for (mi = 0; mi < 3; mi++)
      for (rnd = 0; rnd < 2; rnd++)
        for (bits = 1; bits <= 8; bits++)
          for (v = 0; v < sizeof values / sizeof *values - (mi != 0); v++) { /* 3e-5: f32 only */
            float x[G];
            one_call r;
            for (i = 0; i < G; i++) x[i] = values[v];
            r = run(test_cpu_backends[be], x, 1, bits, metas[mi], (actq_rounding)rnd);
            cr_assert_eq(r.st, ACTQ_OK);
            cr_assert_eq(r.mn[0], values[v]);
            cr_assert_eq(r.sc[0], 0.0f);
            for (i = 0; i < (G * bits + 7) / 8; i++) cr_assert_eq(r.packed[i], 0);
            for (i = 0; i < G; i++) cr_assert_eq(r.y[i], values[v]);
          }
}

Test(special, constant_group_not_representable_in_meta_dtype) {
  float x[G];
  one_call r;
  size_t i;
  for (i = 0; i < G; i++) x[i] = 0.1f; /* not an f16 value */
  r = run(ACTQ_BACKEND_CPU_REFERENCE, x, 1, 4, ACTQ_F16, ACTQ_ROUND_NEAREST);
  cr_assert_eq(r.st, ACTQ_OK);
  cr_assert(r.mn[0] < 0.1f && r.sc[0] > 0.0f);
  cr_assert((double)r.mn[0] + 15.0 * r.sc[0] >= 0.1f);
}

/* Scales decided by the last bit. A range of the form L * s for a float s needs exactly s
 * (and the scan that finds it must not step past it); the range of {-2^-100, L} is
 * L + 2^-100, whose double difference rounds to L, so only the rounding error of that
 * difference tells that s = 1 would leave the maximum uncovered: s must be the next float
 * above 1. */
Test(special, scale_is_the_least_that_covers_the_exact_range) {
  int be, rnd;
  uint32_t bits;
  size_t i;
  for (be = 0; be < TEST_CPU_BACKENDS; be++)
    for (rnd = 0; rnd < 2; rnd++)
      for (bits = 1; bits <= 8; bits++) {
        const float L = (float)((1u << bits) - 1u);
        float x[2 * G];
        one_call r;
        for (i = 0; i < G; i++) { /* group 0: range exactly L * 0.375 */
          x[i] = (float)i / (float)(G - 1) * L * 0.375f;
          x[G + i] = (float)i / (float)(G - 1) * L; /* group 1: from -2^-100 to L */
        }
        x[0] = 0.0f;
        x[G - 1] = L * 0.375f;
        x[G] = -0x1p-100f;
        x[2 * G - 1] = L;
        r = run(test_cpu_backends[be], x, 2, bits, ACTQ_F32, (actq_rounding)rnd);
        cr_assert_eq(r.st, ACTQ_OK);
        cr_assert_eq(r.mn[0], 0.0f, "bits %u", bits);
        cr_assert_eq(r.sc[0], 0.375f, "bits %u: scale %a", bits, r.sc[0]);
        cr_assert_eq(r.mn[1], -0x1p-100f, "bits %u", bits);
        cr_assert_eq(r.sc[1], nextafterf(1.0f, 2.0f), "bits %u: scale %a", bits, r.sc[1]);
      }
}

Test(special, flt_max_groups_are_finite_and_monotone) {
  float x[G] = {-FLT_MAX, FLT_MAX, 0.0f, 1.0f, -1.0f, FLT_MAX / 2, -FLT_MAX / 3, 1e38f};
  int be, rnd;
  uint32_t bits;
  size_t i, j;
  for (be = 0; be < TEST_CPU_BACKENDS; be++)
    for (rnd = 0; rnd < 2; rnd++)
      for (bits = 2; bits <= 8; bits++) {
        one_call r = run(test_cpu_backends[be], x, 1, bits, ACTQ_F32, (actq_rounding)rnd);
        uint8_t codes[G];
        actq_context *ctx;
        cr_assert_eq(r.st, ACTQ_OK, "bits %u", bits);
        cr_assert(isfinite(r.mn[0]) && isfinite(r.sc[0]), "bits %u", bits);
        cr_assert_eq(r.mn[0], -FLT_MAX);
        actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ctx);
        actq_unpack(ctx, bits, G, r.packed, codes);
        actq_context_destroy(ctx);
        cr_assert_eq(codes[0], 0);
        cr_assert_eq(codes[1], (1u << bits) - 1u);
        for (i = 0; i < G; i++)
          for (j = 0; j < G; j++)
            if (rnd == ACTQ_ROUND_NEAREST && x[i] < x[j])
              cr_assert(codes[i] <= codes[j], "monotone: bits %u %zu %zu", bits, i, j);
        if (rnd == ACTQ_ROUND_NEAREST)
          for (i = 0; i < G; i++)
            cr_assert(fabs((double)r.y[i] - x[i]) <= 0.5 * r.sc[0] * (1 + 1e-6) || isinf(r.y[i]),
                      "bits %u element %zu", bits, i);
      }
}

Test(special, nan_and_inf_groups_are_nan_others_untouched) {
  const float bad[3] = {NAN, INFINITY, -INFINITY};
  int be, mi, k;
  size_t i;
  for (be = 0; be < TEST_CPU_BACKENDS; be++)
    for (mi = 0; mi < 3; mi++)
      for (k = 0; k < 3; k++) {
        float x[3 * G];
        one_call r, clean;
        for (i = 0; i < 3 * G; i++) x[i] = (float)i * 0.25f - 2.0f;
        clean = run(test_cpu_backends[be], x, 3, 4, metas[mi], ACTQ_ROUND_STOCHASTIC);
        x[G + 3] = bad[k];
        r = run(test_cpu_backends[be], x, 3, 4, metas[mi], ACTQ_ROUND_STOCHASTIC);
        cr_assert_eq(r.st, ACTQ_ERR_NONFINITE);
        cr_assert(isnan(r.mn[1]) && isnan(r.sc[1]));
        for (i = G / 2; i < G; i++) cr_assert_eq(r.packed[i], 0, "codes of the NaN group are 0");
        for (i = G; i < 2 * G; i++) cr_assert(isnan(r.y[i]));
        /* the groups around it are exactly what they are without the bad value */
        cr_assert(memcmp(r.packed, clean.packed, G / 2) == 0);
        cr_assert(memcmp(r.packed + G, clean.packed + G, G / 2) == 0);
        cr_assert(r.mn[0] == clean.mn[0] && r.mn[2] == clean.mn[2]);
        cr_assert(memcmp(r.y, clean.y, G * 4) == 0 && memcmp(r.y + 2 * G, clean.y + 2 * G, G * 4) == 0);
      }
}

Test(special, unrepresentable_metadata_gives_nan_group) {
  float x[G] = {-70000.0f, 0, 1, 2, 3, 4, 5, 6}; /* min below the f16 range */
  float wide[G] = {-FLT_MAX, FLT_MAX, 0, 0, 0, 0, 0, 0};
  one_call r = run(ACTQ_BACKEND_CPU_REFERENCE, x, 1, 4, ACTQ_F16, ACTQ_ROUND_NEAREST);
  cr_assert_eq(r.st, ACTQ_ERR_NONFINITE);
  cr_assert(isnan(r.mn[0]) && isnan(r.sc[0]) && isnan(r.y[0]));
  /* bf16's largest value is below FLT_MAX: -FLT_MAX has no bf16 minimum */
  r = run(ACTQ_BACKEND_CPU_REFERENCE, wide, 1, 4, ACTQ_BF16, ACTQ_ROUND_NEAREST);
  cr_assert_eq(r.st, ACTQ_ERR_NONFINITE);
  /* at 1 bit the scale would be the whole range, 2*FLT_MAX: overflow */
  r = run(ACTQ_BACKEND_CPU_REFERENCE, wide, 1, 1, ACTQ_F32, ACTQ_ROUND_NEAREST);
  cr_assert_eq(r.st, ACTQ_ERR_NONFINITE);
  cr_assert(isnan(r.mn[0]) && isnan(r.sc[0]));
  r = run(ACTQ_BACKEND_CPU, wide, 1, 1, ACTQ_F32, ACTQ_ROUND_STOCHASTIC);
  cr_assert_eq(r.st, ACTQ_ERR_NONFINITE);
}

Test(special, signed_zero_and_denormals) {
  float z[G] = {-0.0f, 0.0f, -0.0f, 0.0f, 0.0f, -0.0f, 0.0f, 0.0f};
  float d[G] = {1e-45f, 2e-45f, 1e-40f, -1e-42f, 0.0f, 5e-39f, -3e-39f, 1e-44f};
  int be;
  uint32_t bits;
  for (be = 0; be < TEST_CPU_BACKENDS; be++) {
    one_call r = run(test_cpu_backends[be], z, 1, 3, ACTQ_F32, ACTQ_ROUND_NEAREST);
    uint32_t mbits;
    memcpy(&mbits, &r.mn[0], 4);
    cr_assert_eq(mbits, 0u, "a zero minimum is stored as +0 whatever the order of signs");
    cr_assert_eq(r.sc[0], 0.0f);
    for (bits = 1; bits <= 8; bits++) {
      qcase c = {test_cpu_backends[be], 1, G, G, bits, NULL, ACTQ_F32, ACTQ_F32, ACTQ_F32,
                 ACTQ_ROUND_NEAREST, 0, 0};
      cr_assert_eq(qcheck_run(&c, d).quantize_status, ACTQ_OK);
      c.rounding = ACTQ_ROUND_STOCHASTIC;
      cr_assert_eq(qcheck_run(&c, d).quantize_status, ACTQ_OK);
    }
  }
}

/* At 8 bits, x at the top of its group has t = 255, and t + u rounds to 256 in float32
 * when u = 1 - 2^-17 (noise value 65535): the clamp must hold the code at 255. Enough
 * elements at the top that this noise value occurs (about 4 times in 2^18 draws). */
Test(special, stochastic_top_code_is_clamped_not_wrapped) {
  const size_t rows = 4, cols = 65536;
  float *x = malloc(rows * cols * 4);
  size_t i;
  int be;
  for (i = 0; i < rows * cols; i++) x[i] = (i % cols == 0) ? 0.0f : 255.0f;
  for (be = 0; be < TEST_CPU_BACKENDS; be++) {
    qcase c = {test_cpu_backends[be], rows, cols, 65536, 8, NULL, ACTQ_F32, ACTQ_F32, ACTQ_F32,
               ACTQ_ROUND_STOCHASTIC, 2024, 0};
    cr_assert_eq(qcheck_run(&c, x).quantize_status, ACTQ_OK);
  }
  free(x);
}
