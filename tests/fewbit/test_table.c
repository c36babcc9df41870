/* test_table.c - optimal derivative tables: cases solvable by hand, optimality conditions,
 * the reported error against an independent integration, grid convergence to within 0.1%
 * of the continuous optimum, custom tables, and bad arguments. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "fewbit.h"
#include "fewbit/forward_double.h"

static double normal_pdf(double x) { return exp(-0.5 * x * x) / sqrt(2 * 3.14159265358979323846); }

/* The objective of a table by adaptive Simpson on f' from numerical differentiation of the
 * test's own forward functions, piece by piece between bounds (and kinks). */
static double simpson(fewbit_activation act, double p, double level, double a, double b,
                      double fa, double fm, double fb, double whole, int depth) {
  const double m = 0.5 * (a + b), lm = 0.5 * (a + m), rm = 0.5 * (m + b);
#define G(x) ((ref_numeric_deriv_safe(act, p, x) - level) * (ref_numeric_deriv_safe(act, p, x) - level) * normal_pdf(x))
  const double flm = G(lm), frm = G(rm);
  const double left = (m - a) / 6 * (fa + 4 * flm + fm), right = (b - m) / 6 * (fm + 4 * frm + fb);
  if (depth <= 0 || fabs(left + right - whole) < 1e-15) return left + right + (left + right - whole) / 15;
  return simpson(act, p, level, a, m, fa, flm, fm, left, depth - 1) +
         simpson(act, p, level, m, b, fm, frm, fb, right, depth - 1);
}

static double piece(fewbit_activation act, double p, double level, double a, double b) {
  const double fa = G(a), fb = G(b), fm = G(0.5 * (a + b));
  return simpson(act, p, level, a, b, fa, fm, fb, (b - a) / 6 * (fa + 4 * fm + fb), 30);
#undef G
}

static double independent_error(const fewbit_table *t) {
  const uint32_t K = 1u << t->bits;
  const fewbit_activation act = (fewbit_activation)t->activation;
  double err = 0, kinks[6] = {-3, -1, 0, 1, 3, 6};
  uint32_t k;
  int i;
  for (k = 0; k < K; k++) {
    double a = k ? t->bounds[k - 1] : -10, b = k + 1 < K ? t->bounds[k] : 10, x = a;
    a = fmax(a, -10);
    b = fmin(b, 10);
    x = a;
    for (i = 0; i < 6; i++) /* integrate up to kinks, never across them */
      if (kinks[i] > x && kinks[i] < b) {
        err += piece(act, t->param, t->levels[k], x + 1e-9, kinks[i] - 1e-9);
        x = kinks[i];
      }
    if (b > x) err += piece(act, t->param, t->levels[k], x + 1e-9, b - 1e-9);
  }
  return err;
}

Test(table, exact_cases_have_zero_error) {
  fewbit_table t;
  cr_assert_eq(fewbit_table_build(FEWBIT_RELU, 0, 1, NULL, &t), ACTQ_OK);
  cr_assert_eq(t.error, 0.0);
  cr_assert_eq(t.bounds[0], 0.0f);
  cr_assert(t.levels[0] == 0.0f && t.levels[1] == 1.0f);
  cr_assert_eq(fewbit_table_build(FEWBIT_LEAKY_RELU, 0.1f, 1, NULL, &t), ACTQ_OK);
  cr_assert_eq(t.error, 0.0);
  cr_assert(t.levels[0] == 0.1f && t.levels[1] == 1.0f && t.bounds[0] == 0.0f);
  cr_assert_eq(fewbit_table_build(FEWBIT_RELU6, 0, 2, NULL, &t), ACTQ_OK);
  cr_assert_eq(t.error, 0.0);
  cr_assert_eq(fewbit_table_build(FEWBIT_HARDTANH, 0, 2, NULL, &t), ACTQ_OK);
  cr_assert_eq(t.error, 0.0);
  cr_assert_eq(fewbit_table_build(FEWBIT_HARDSIGMOID, 0, 2, NULL, &t), ACTQ_OK);
  cr_assert(t.error < 1e-15, "exact but for the float rounding of the level 1/6: %g", t.error);
  cr_assert_eq(fewbit_table_build(FEWBIT_RELU, 0, 8, NULL, &t), ACTQ_OK);
  cr_assert_eq(t.error, 0.0, "more levels than needed stay exact");
}

Test(table, linear_derivative_under_uniform_weight_by_hand) {
  /* Hardswish on [-3, 3]: f' = (2x + 3)/6 is linear, so with uniform weight the optimal K
   * levels split [-3, 3] into equal intervals, the levels are f' at their middles, and the
   * error is K * (1/3)^2 * (6/K)^3 / 12 = 2 / K^2. */
  const fewbit_options o = {FEWBIT_WEIGHT_UNIFORM, 0, 0, -3, 3, 0};
  uint32_t bits, k;
  for (bits = 1; bits <= 4; bits++) {
    const uint32_t K = 1u << bits;
    fewbit_table t;
    cr_assert_eq(fewbit_table_build(FEWBIT_HARDSWISH, 0, bits, &o, &t), ACTQ_OK);
    cr_assert(fabs(t.error - 2.0 / (K * K)) < 1e-3 * 2.0 / (K * K), "bits %u: %g", bits, t.error);
    for (k = 0; k + 1 < K; k++)
      cr_assert(fabs(t.bounds[k] - (-3 + 6.0 * (k + 1) / K)) < 0.02, "bits %u border %u: %g", bits,
                k, t.bounds[k]);
    for (k = 0; k < K; k++) {
      const double a = k ? t.bounds[k - 1] : -3, b = k + 1 < K ? t.bounds[k] : 3;
      cr_assert(fabs(t.levels[k] - (a + b + 3) / 6) < 1e-5, "level = f' at the middle");
    }
  }
}

Test(table, reported_error_equals_independent_integration, .timeout = 120) {
  static const fewbit_activation acts[] = {FEWBIT_GELU, FEWBIT_SILU, FEWBIT_TANH, FEWBIT_ELU,
                                           FEWBIT_MISH, FEWBIT_HARDSWISH, FEWBIT_SOFTPLUS};
  size_t a;
  uint32_t bits;
  for (a = 0; a < sizeof acts / sizeof *acts; a++)
    for (bits = 1; bits <= 4; bits++) {
      fewbit_table t;
      double ind;
      cr_assert_eq(fewbit_table_build(acts[a], 1.0f, bits, NULL, &t), ACTQ_OK);
      ind = independent_error(&t);
      cr_assert(fabs(t.error - ind) <= 1e-6 * ind + 1e-12, "act %d bits %u: %.10g vs %.10g",
                acts[a], bits, t.error, ind);
    }
}

Test(table, first_order_optimality_and_no_better_single_move, .timeout = 120) {
  static const fewbit_activation acts[] = {FEWBIT_GELU, FEWBIT_SILU, FEWBIT_TANH, FEWBIT_MISH};
  size_t a;
  uint32_t bits, k;
  for (a = 0; a < sizeof acts / sizeof *acts; a++)
    for (bits = 1; bits <= 3; bits++) {
      fewbit_table t;
      const uint32_t K = 1u << bits;
      cr_assert_eq(fewbit_table_build(acts[a], 1.0f, bits, NULL, &t), ACTQ_OK);
      for (k = 0; k + 1 < K; k++) {
        /* at an optimal border f' crosses the mean of the neighbouring levels */
        const double mid = 0.5 * (t.levels[k] + t.levels[k + 1]);
        const double d = ref_numeric_deriv(acts[a], 1.0, t.bounds[k]);
        const double gap = fabs(t.levels[k + 1] - t.levels[k]);
        double delta;
        cr_assert(fabs(d - mid) <= 0.02 * gap, "act %d bits %u border %u: f' %g, mid %g", acts[a],
                  bits, k, d, mid);
        /* moving this border alone (levels re-fitted by the objective's own integral) does
         * not lower the error */
        for (delta = -0.05; delta <= 0.05; delta += 0.025) {
          fewbit_table m = t;
          if (delta == 0) continue;
          m.bounds[k] = t.bounds[k] + (float)delta;
          if ((k && m.bounds[k] <= m.bounds[k - 1]) || (k + 2 < K && m.bounds[k] >= m.bounds[k + 1]))
            continue;
          cr_assert(independent_error(&m) >= independent_error(&t) * (1 - 1e-6),
                    "act %d bits %u: moving border %u by %g helps", acts[a], bits, k, delta);
        }
      }
    }
}

Test(table, within_a_thousandth_of_the_continuous_optimum, .timeout = 300) {
  static const act_case cases[] = {{FEWBIT_GELU, 0}, {FEWBIT_SILU, 0}, {FEWBIT_TANH, 0},
                                   {FEWBIT_ELU, 1},  {FEWBIT_HARDSWISH, 0}, {FEWBIT_SOFTSIGN, 0}};
  size_t a;
  uint32_t bits;
  for (a = 0; a < sizeof cases / sizeof *cases; a++)
    for (bits = 1; bits <= 6; bits++) {
      fewbit_table t, fine;
      fewbit_options o = {FEWBIT_WEIGHT_NORMAL, 0, 1, 0, 0, 0};
      cr_assert_eq(fewbit_table_build(cases[a].act, cases[a].param, bits, &o, &t), ACTQ_OK);
      o.grid = (32u << bits) > 1024 ? (32u << bits) * 8 : 1024 * 8; /* 8x the default */
      cr_assert_eq(fewbit_table_build(cases[a].act, cases[a].param, bits, &o, &fine), ACTQ_OK);
      cr_assert(t.error <= fine.error * 1.001 + 1e-15, "act %d bits %u: %.9g vs fine %.9g",
                cases[a].act, bits, t.error, fine.error);
      cr_assert(fine.error <= t.error * (1 + 1e-9) + 1e-15, "a finer grid cannot be worse");
    }
}

Test(table, uniform_weight_and_all_activations_all_widths, .timeout = 300) {
  size_t a;
  uint32_t bits, k;
  for (a = 0; a < N_ACTS; a++)
    for (bits = 1; bits <= 5; bits++) {
      fewbit_table t;
      fewbit_options u = {FEWBIT_WEIGHT_UNIFORM, 0, 0, -100, 100, 0};
      cr_assert_eq(fewbit_table_build(ALL_ACTS[a].act, ALL_ACTS[a].param, bits, NULL, &t), ACTQ_OK);
      for (k = 0; k + 2 < (1u << bits); k++) cr_assert(t.bounds[k] < t.bounds[k + 1]);
      cr_assert(t.error >= 0 && isfinite(t.error));
      cr_assert_eq(fewbit_table_build(ALL_ACTS[a].act, ALL_ACTS[a].param, bits, &u, &t), ACTQ_OK);
      for (k = 0; k + 2 < (1u << bits); k++) cr_assert(t.bounds[k] < t.bounds[k + 1]);
      cr_assert(t.bounds[0] >= -100 && t.bounds[(1u << bits) - 2] <= 100);
    }
}

Test(table, custom_samples_reproduce_the_analytic_table) {
  enum { N = 20001 };
  static double x[N], d[N], w[N];
  fewbit_table c, t;
  size_t i;
  for (i = 0; i < N; i++) {
    x[i] = -10 + 20.0 * (double)i / (N - 1);
    d[i] = ref_numeric_deriv(FEWBIT_GELU, 0, x[i]);
    w[i] = normal_pdf(x[i]);
  }
  cr_assert_eq(fewbit_table_build_custom(N, x, d, w, 3, &c), ACTQ_OK);
  cr_assert_eq(c.activation, FEWBIT_CUSTOM);
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 3, NULL, &t), ACTQ_OK);
  cr_assert(fabs(c.error - t.error) < 1e-3 * t.error, "%g vs %g", c.error, t.error);
  for (i = 0; i < 7; i++) cr_assert(fabs(c.bounds[i] - t.bounds[i]) < 2e-3, "bound %zu", i);
}

Test(table, custom_few_samples_and_bad_input) {
  double x[3] = {0, 1, 2}, d[3] = {5, 6, 7}, w[3] = {1, 1, 1};
  fewbit_table t;
  uint32_t k;
  cr_assert_eq(fewbit_table_build_custom(3, x, d, NULL, 3, &t), ACTQ_OK);
  for (k = 0; k < 6; k++) cr_assert(t.bounds[k] < t.bounds[k + 1]);
  cr_assert(t.bounds[0] > 0 && t.bounds[0] < 1 && t.bounds[1] > 1 && t.bounds[1] < 2);
  cr_assert(t.levels[0] == 5 && t.levels[1] == 6 && t.levels[2] == 7 && t.error == 0);
  cr_assert_eq(fewbit_table_build_custom(1, x, d, w, 2, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build_custom(3, NULL, d, w, 2, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build_custom(3, x, NULL, w, 2, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build_custom(3, x, d, w, 0, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build_custom(3, x, d, w, 9, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build_custom(3, x, d, w, 2, NULL), ACTQ_ERR_INVALID_ARGUMENT);
  x[1] = 0;
  cr_assert_eq(fewbit_table_build_custom(3, x, d, w, 2, &t), ACTQ_ERR_INVALID_ARGUMENT, "not increasing");
  x[1] = 1;
  w[1] = -1;
  cr_assert_eq(fewbit_table_build_custom(3, x, d, w, 2, &t), ACTQ_ERR_INVALID_ARGUMENT, "negative weight");
  w[1] = 1;
  d[2] = NAN;
  cr_assert_eq(fewbit_table_build_custom(3, x, d, w, 2, &t), ACTQ_ERR_INVALID_ARGUMENT);
}

Test(table, bad_arguments) {
  fewbit_table t;
  fewbit_options o = {FEWBIT_WEIGHT_NORMAL, 0, 1, 0, 0, 0};
  memset(&t, 0x5a, sizeof t);
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 0, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 9, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build((fewbit_activation)0, 0, 2, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build((fewbit_activation)21, 0, 2, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build(FEWBIT_CUSTOM, 0, 2, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build(FEWBIT_ELU, 0, 2, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build(FEWBIT_SOFTPLUS, -1, 2, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build(FEWBIT_LEAKY_RELU, NAN, 2, NULL, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, NULL, NULL), ACTQ_ERR_INVALID_ARGUMENT);
  o.std = 0;
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  o.std = -1;
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  o.std = 1;
  o.mean = NAN;
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  o.mean = 0;
  o.grid = 8;
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  o.grid = 0;
  o.weight = FEWBIT_WEIGHT_UNIFORM;
  o.lo = 1;
  o.hi = 1;
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  o.hi = INFINITY;
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  o.weight = (fewbit_weight)2;
  o.hi = 2;
  cr_assert_eq(fewbit_table_build(FEWBIT_GELU, 0, 2, &o, &t), ACTQ_ERR_INVALID_ARGUMENT);
  cr_assert_eq(((uint8_t *)&t)[0], 0x5a, "the table is written only on success");
}

/* Samples at or beyond the float range leave no floats above the last sample (nor below
 * the first) for the bounds of the intervals the samples cannot fill: the table must
 * still be one that encode accepts (strictly increasing bounds), with every sample's
 * level its interval's. The fuzzers found this with x = -+1.5e300. */
Test(table, custom_samples_beyond_the_float_range_give_a_usable_table) {
  const double xs[][2] = {{-0x1.7e43c8800759cp+996, 0x1.7e43c8800759cp+996},
                          {-1.0, 3.4028234663852886e38}, {-1e300, -1e299}};
  const double d[2] = {15.875, -1.125};
  size_t c;
  for (c = 0; c < sizeof xs / sizeof xs[0]; c++) {
    uint32_t bits;
    for (bits = 1; bits <= 8; bits++) {
      fewbit_table t;
      actq_context *ctx;
      float x[2] = {(float)xs[c][0], (float)xs[c][1]}, g[2] = {1.0f, 1.0f}, gin[2];
      uint8_t codes[2];
      uint32_t i;
      cr_assert_eq(fewbit_table_build_custom(2, xs[c], d, NULL, bits, &t), ACTQ_OK);
      for (i = 1; i + 1 < (1u << bits); i++)
        cr_assert(t.bounds[i - 1] < t.bounds[i], "case %zu bits %u: bounds %u, %u: %a, %a", c,
                  bits, i - 1, i, t.bounds[i - 1], t.bounds[i]);
      cr_assert_eq(actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ctx), ACTQ_OK);
      cr_assert_eq(fewbit_encode(ctx, &t, 2, ACTQ_F32, x, NULL, codes), ACTQ_OK,
                   "case %zu bits %u", c, bits);
      cr_assert_eq(fewbit_backward(ctx, &t, 2, codes, ACTQ_F32, g, gin), ACTQ_OK);
      /* cases 0 and 1 are two floats apart: each sample keeps its own derivative; case 2
       * rounds both samples to -Inf: one interval, their (equal-weight) mean */
      cr_assert_eq(gin[0], c == 2 ? (float)(0.5 * (d[0] + d[1])) : (float)d[0],
                   "case %zu bits %u: %a", c, bits, gin[0]);
      cr_assert_eq(gin[1], c == 2 ? (float)(0.5 * (d[0] + d[1])) : (float)d[1],
                   "case %zu bits %u: %a", c, bits, gin[1]);
      actq_context_destroy(ctx);
    }
  }
}
