/* test_act.c - the float32 activation forwards of src/arith/act.h and their AVX2 twins.
 *
 * accuracy/<act>: every activation (and parameter values) against a double-precision
 * evaluation, over all bf16 patterns, all f16 patterns, 2^22 random float32 bit patterns,
 * 2^20 uniform values in [-40, 40] and hard points (zeros, subnormals, range and piece
 * edges with their neighbours, FLT_MAX); the error is measured in ulps of the exact value's
 * float32 binade (2^-149 below FLT_MIN, so "4 ulp" there is the 4 * 2^-149 absolute bound).
 * The limits at +-Inf and NaN handling are checked exactly. The max ulp of each activation
 * is printed (ctest -V, or run the binary).
 * avx2/<act>: actq_avx2_act_forward gives the scalar's bits on every lane, same inputs
 * (AVX2 with FMA, as the kernels that use it).
 * avx512/<act>, avx512_emulated/<act>: actq_avx512_act_forward (16 lanes) likewise, natively
 * where the CPU has AVX-512 and over SIMDe's emulation where the build has SIMDe.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/arith/act.h"
#include "cpu/avx2/act_avx2.h"
#include "support/act_ref.h"
#include "act_lanes16.h"

#define MAX_ULP 4.0

/* ---- inputs --------------------------------------------------------------------------- */

static float *inputs;
static size_t n_inputs;

static void push(size_t *cap, float x) {
  if (n_inputs == *cap) {
    *cap = *cap ? 2 * *cap : 1u << 20;
    inputs = realloc(inputs, *cap * sizeof *inputs);
    cr_assert(inputs != NULL);
  }
  inputs[n_inputs++] = x;
}

/* x and its 16 neighbours on each side, both signs */
static void push_around(size_t *cap, float x) {
  uint32_t b = actq_f32_bits(fabsf(x));
  for (int d = -16; d <= 16; d++) {
    uint32_t v = b + (uint32_t)d;
    if ((int64_t)b + d < 0 || v > 0x7f800000u) continue;
    push(cap, actq_f32_from_bits(v));
    push(cap, actq_f32_from_bits(v | 0x80000000u));
  }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rng32(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static float f16_bits_to_f32(uint32_t h) {
  uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 1023u;
  if (e == 31) return actq_f32_from_bits(s | 0x7f800000u | (m << 13));
  float v = e ? ldexpf((float)(1024 + m), (int)e - 25) : ldexpf((float)m, -24);
  return s ? -v : v;
}

static void build_inputs(void) {
  size_t cap = 0;
  n_inputs = 0;
  rng_state = 0x9e3779b97f4a7c15ull;
  for (uint32_t h = 0; h < 65536; h++) push(&cap, actq_f32_from_bits(h << 16)); /* bf16 */
  for (uint32_t h = 0; h < 65536; h++) push(&cap, f16_bits_to_f32(h));
  for (uint32_t i = 0; i < (1u << 22); i++) push(&cap, actq_f32_from_bits(rng32()));
  for (uint32_t i = 0; i < (1u << 20); i++)
    push(&cap, (float)(((double)rng32() / 4294967296.0 * 2.0 - 1.0) * 40.0));
  /* hard points: zeros, subnormals, FLT_MIN, FLT_MAX, 1, and every threshold and piece
   * edge the implementations use, plus exp's reduction boundaries (j + 1/2) ln2 */
  static const float hard[] = {
      0.0f, 0x1p-149f, 0x1p-140f, 0x1.fffffcp-127f, FLT_MIN, 0x1p-100f, 0x1p-60f, 0x1p-30f,
      0x1p-24f, 0x1p-12f, 0x1p-6f, 0.0625f, 0.25f, 0.5f, 0.671875f, 0.75f, 1.0f, 1.5f,
      2.0f, 2.25f, 3.0f, 3.375f, 5.0f, 6.0f, 7.5f, 9.0f, 10.0f, 11.0f, 13.146f, 14.357f,
      14.75f, 15.0f, 17.0f, 17.4f, 20.0f, 40.0f, 82.9f, 87.3f, 88.0f, 88.72f, 89.0f, 100.0f,
      103.97f, 104.0f, 150.0f, 160.0f, 200.0f, 1e10f, 0x1p24f, 0x1p26f, 1e30f, FLT_MAX};
  for (size_t i = 0; i < sizeof hard / sizeof hard[0]; i++) push_around(&cap, hard[i]);
  /* the implementation's named switch points and piece edges, so that the inputs follow
   * them when they move */
  static const float named[] = {
      ACTQ_EXP_ARG_MIN_F, ACTQ_EXP_ARG_MAX_F, ACTQ_EXPM1_ARG_MIN_F, ACTQ_EXPM1_ARG_MAX_F,
      ACTQ_FEXP_ARG_MIN_F, ACTQ_NCDF_TAIL_MAX_F, ACTQ_GELU_TANH_X_MIN_F,
      ACTQ_GELU_TANH_X_MAX_F, ACTQ_TANHSHRINK_SERIES_MAX_F,
      ACTQ_SOFTPLUS_PAIR_MAX_F, ACTQ_SOFTPLUS_LINEAR_F, ACTQ_SOFTPLUS_ZERO_F, ACTQ_CELU_LINEAR_F,
      ACTQ_MISH_X_MIN_F, ACTQ_MISH_X_MAX_F, ACTQ_MISH_NEG_SPLIT_F, ACTQ_SOFTSIGN_BIG_F};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) push_around(&cap, named[i]);
  /* the central pieces' edges and ends: GELU's t (A t + B) = i, GELU_TANH's
   * t (B + A t^2) = i (by bisection) */
  for (int i = 1; i < ACTQ_PIECES_N; i++) {
    double a = ACTQ_NCDF_Q_A_F, b = ACTQ_NCDF_Q_B_F, lo = 0, hi = ACTQ_GTANH_R_T_MAX_F;
    push_around(&cap, (float)((-b + sqrt(b * b + 4.0 * a * i)) / (2.0 * a)));
    for (int k = 0; k < 60; k++) {
      double m = (lo + hi) / 2;
      if (m * (ACTQ_GTANH_R_B_F + ACTQ_GTANH_R_A_F * m * m) < i) lo = m;
      else hi = m;
    }
    push_around(&cap, (float)lo);
  }
  push_around(&cap, ACTQ_NCDF_Q_T_MAX_F);
  push_around(&cap, ACTQ_GTANH_R_T_MAX_F);
  for (int j = 0; j < 160; j++) push_around(&cap, (float)((j + 0.5) * 0.69314718055994531));
  for (int j = 0; j < 80; j++) push_around(&cap, (float)((j + 0.5) * 0.69314718055994531 / 2));
  /* the sqrt2 boundary of log1p's argument 1 + e^-|x| */
  push_around(&cap, (float)-log(sqrt(2.0) - 1.0));
}

/* ---- the activations under test --------------------------------------------------------- */

typedef struct act_case {
  const char *name;
  int act;
  float param;
  double lim_neg, lim_pos; /* f(-Inf), f(+Inf) */
} act_case;

#define INF ((double)INFINITY)
static const act_case cases[] = {
    {"gelu", ACTQ_ACT_GELU, 0, -0.0, INF},
    {"gelu_tanh", ACTQ_ACT_GELU_TANH, 0, -0.0, INF},
    {"silu", ACTQ_ACT_SILU, 0, -0.0, INF},
    {"sigmoid", ACTQ_ACT_SIGMOID, 0, 0.0, 1.0},
    {"tanh", ACTQ_ACT_TANH, 0, -1.0, 1.0},
    {"softplus_b0.5", ACTQ_ACT_SOFTPLUS, 0.5f, 0.0, INF},
    {"softplus_b1", ACTQ_ACT_SOFTPLUS, 1.0f, 0.0, INF},
    {"softplus_b4", ACTQ_ACT_SOFTPLUS, 4.0f, 0.0, INF},
    {"softplus_b0.7", ACTQ_ACT_SOFTPLUS, 0.7f, 0.0, INF},
    {"softplus_b100", ACTQ_ACT_SOFTPLUS, 100.0f, 0.0, INF},
    {"softplus_b0.003", ACTQ_ACT_SOFTPLUS, 0.003f, 0.0, INF},
    {"elu_a0.5", ACTQ_ACT_ELU, 0.5f, -0.5, INF},
    {"elu_a1", ACTQ_ACT_ELU, 1.0f, -1.0, INF},
    {"elu_a2", ACTQ_ACT_ELU, 2.0f, -2.0, INF},
    {"elu_a0.7", ACTQ_ACT_ELU, 0.7f, -0.7f, INF},
    {"selu", ACTQ_ACT_SELU, 0, -1.0507009873554804934 * 1.6732632423543772848, INF},
    {"celu_a0.5", ACTQ_ACT_CELU, 0.5f, -0.5, INF},
    {"celu_a1", ACTQ_ACT_CELU, 1.0f, -1.0, INF},
    {"celu_a2", ACTQ_ACT_CELU, 2.0f, -2.0, INF},
    {"celu_a0.7", ACTQ_ACT_CELU, 0.7f, -0.7f, INF},
    {"celu_a1000", ACTQ_ACT_CELU, 1000.0f, -1000.0, INF},
    {"mish", ACTQ_ACT_MISH, 0, -0.0, INF},
    {"hardswish", ACTQ_ACT_HARDSWISH, 0, -0.0, INF},
    {"hardsigmoid", ACTQ_ACT_HARDSIGMOID, 0, 0.0, 1.0},
    {"hardtanh", ACTQ_ACT_HARDTANH, 0, -1.0, 1.0},
    {"softsign", ACTQ_ACT_SOFTSIGN, 0, -1.0, 1.0},
    {"logsigmoid", ACTQ_ACT_LOGSIGMOID, 0, -INF, -0.0},
    {"tanhshrink", ACTQ_ACT_TANHSHRINK, 0, -INF, INF},
    {"relu", ACTQ_ACT_RELU, 0, 0.0, INF},
    {"relu6", ACTQ_ACT_RELU6, 0, 0.0, 6.0},
    {"leaky_relu_0.01", ACTQ_ACT_LEAKY_RELU, 0.01f, -INF, INF},
    {"leaky_relu_-0.2", ACTQ_ACT_LEAKY_RELU, -0.2f, INF, INF},
    {"leaky_relu_0", ACTQ_ACT_LEAKY_RELU, 0.0f, -0.0, INF},
};

static const act_case *find_case(const char *name) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!strcmp(cases[i].name, name)) return &cases[i];
  cr_assert_fail("no case %s", name);
  return NULL;
}

static void check_accuracy(const char *name) {
  const act_case *c = find_case(name);
  build_inputs();
  double worst = 0;
  float worst_x = 0, worst_y = 0;
  double worst_r = 0;
  for (size_t i = 0; i < n_inputs; i++) {
    float x = inputs[i];
    if (!actq_f32_is_finite(x)) continue;
    float y = actq_act_forward(c->act, c->param, x);
    double r = reference(c->act, (double)c->param, (double)x);
    double e = ulp_error(y, r);
    if (e > worst) {
      worst = e;
      worst_x = x;
      worst_y = y;
      worst_r = r;
    }
  }
  printf("%-18s max %.3f ulp (x = %a: y = %.9g, exact %.17g)\n", name, worst, worst_x,
         worst_y, worst_r);
  fflush(stdout);
  cr_expect(worst <= MAX_ULP, "%s: %.3f ulp at x = %a (%.9g): y = %.9g, exact %.17g", name,
            worst, worst_x, worst_x, worst_y, worst_r);

  /* limits at +-Inf: within 4 ulp of the limit, and the sign of a zero limit exactly */
  float lims[2] = {actq_act_forward(c->act, c->param, -INFINITY),
                   actq_act_forward(c->act, c->param, INFINITY)};
  double want[2] = {c->lim_neg, c->lim_pos};
  for (int s = 0; s < 2; s++) {
    cr_expect(ulp_error(lims[s], want[s]) <= MAX_ULP, "%s(%cInf) = %a, want %a", name,
              s ? '+' : '-', lims[s], want[s]);
    if (want[s] == 0)
      cr_expect(actq_f32_bits(lims[s]) == actq_f32_bits((float)want[s]),
                "%s(%cInf) = %a, want %a", name, s ? '+' : '-', lims[s], want[s]);
  }
  /* signed zeros: f(+0) = +0 where f(0) = 0; f(-0) = -0 except RELU, RELU6 (+0) */
  if (reference(c->act, (double)c->param, 0.0) == 0.0) {
    float yp = actq_act_forward(c->act, c->param, 0.0f);
    float yn = actq_act_forward(c->act, c->param, -0.0f);
    int want_neg = !(c->act == ACTQ_ACT_RELU || c->act == ACTQ_ACT_RELU6);
    cr_expect(actq_f32_bits(yp) == 0u, "%s(+0) = %a", name, yp);
    cr_expect(actq_f32_bits(yn) == (want_neg ? 0x80000000u : 0u), "%s(-0) = %a", name, yn);
  }
  /* NaN in (quiet, signalling, negative) -> the canonical quiet NaN */
  static const uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x7fffffffu};
  for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
    cr_expect_eq(actq_f32_bits(actq_act_forward(c->act, c->param, actq_f32_from_bits(nans[i]))),
                 ACTQ_F32_QNAN_BITS, "%s(NaN %08x)", name, nans[i]);
}

__attribute__((target("avx2,fma"))) static size_t avx2_mismatches(const act_case *c,
                                                                  size_t *first) {
  size_t bad = 0;
  float out[8];
  for (size_t i = 0; i + 8 <= n_inputs; i += 8) {
    _mm256_storeu_ps(out, actq_avx2_act_forward(c->act, c->param, _mm256_loadu_ps(inputs + i)));
    for (int l = 0; l < 8; l++) {
      float y = actq_act_forward(c->act, c->param, inputs[i + l]);
      if (actq_f32_bits(y) != actq_f32_bits(out[l])) {
        if (!bad) *first = i + l;
        bad++;
      }
    }
  }
  return bad;
}

static void check_avx2(const char *name) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    cr_skip_test("the CPU has no AVX2 and FMA");
  const act_case *c = find_case(name);
  build_inputs();
  /* the specials too, and a length that is a multiple of 8 */
  static const uint32_t extra[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                                   0xffc12345u, 0x80000000u, 0x00000000u, 0x80000001u};
  size_t cap = n_inputs; /* push() only grows when full */
  for (size_t i = 0; i < 8; i++) push(&cap, actq_f32_from_bits(extra[i]));
  while (n_inputs % 8) push(&cap, 1.0f);
  size_t first = 0;
  size_t bad = avx2_mismatches(c, &first);
  cr_expect(bad == 0, "%s: %zu lanes differ from the scalar; first x = %a: scalar %a", name,
            bad, inputs[first], actq_act_forward(c->act, c->param, inputs[first]));
}

typedef void act16_fn(int act, float param, const float *in, float *out, size_t n);

static void check_16_lanes(const char *name, act16_fn *fn) {
  const act_case *c = find_case(name);
  build_inputs();
  static const uint32_t extra[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                                   0xffc12345u, 0x80000000u, 0x00000000u, 0x80000001u};
  size_t cap = n_inputs;
  for (size_t i = 0; i < 8; i++) push(&cap, actq_f32_from_bits(extra[i]));
  while (n_inputs % 16) push(&cap, 1.0f);
  float *out = malloc(n_inputs * sizeof *out);
  cr_assert(out != NULL);
  fn(c->act, c->param, inputs, out, n_inputs);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n_inputs; i++) {
    float y = actq_act_forward(c->act, c->param, inputs[i]);
    if (actq_f32_bits(y) != actq_f32_bits(out[i]) && !bad++) first = i;
  }
  cr_expect(bad == 0, "%s: %zu lanes differ from the scalar; first x = %a: scalar %a, lanes %a",
            name, bad, inputs[first], actq_act_forward(c->act, c->param, inputs[first]),
            out[first]);
  free(out);
}

static void check_avx512(const char *name) {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq") ||
      !__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl"))
    cr_skip_test("the CPU has no AVX-512 (F, DQ, BW, VL)");
  check_16_lanes(name, actq_test_act16_native);
}

static void check_avx512_emulated(const char *name) {
#ifdef ACTQ_TEST_ACT16_EMULATED
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    cr_skip_test("the CPU has no AVX2 and FMA");
  check_16_lanes(name, actq_test_act16_emulated);
#else
  cr_skip_test("built without SIMDe (libsimde-dev) or with a sanitizer");
  (void)name;
#endif
}

#define ACT_TESTS(id, name)                                                                    \
  Test(accuracy, id) { check_accuracy(name); }                                                  \
  Test(avx2, id) { check_avx2(name); }                                                          \
  Test(avx512, id) { check_avx512(name); }                                                      \
  Test(avx512_emulated, id) { check_avx512_emulated(name); }

ACT_TESTS(gelu, "gelu")
ACT_TESTS(gelu_tanh, "gelu_tanh")
ACT_TESTS(silu, "silu")
ACT_TESTS(sigmoid, "sigmoid")
ACT_TESTS(tanh, "tanh")
ACT_TESTS(softplus_b0_5, "softplus_b0.5")
ACT_TESTS(softplus_b1, "softplus_b1")
ACT_TESTS(softplus_b4, "softplus_b4")
ACT_TESTS(softplus_b0_7, "softplus_b0.7")
ACT_TESTS(softplus_b100, "softplus_b100")
ACT_TESTS(softplus_b0_003, "softplus_b0.003")
ACT_TESTS(elu_a0_5, "elu_a0.5")
ACT_TESTS(elu_a1, "elu_a1")
ACT_TESTS(elu_a2, "elu_a2")
ACT_TESTS(elu_a0_7, "elu_a0.7")
ACT_TESTS(selu, "selu")
ACT_TESTS(celu_a0_5, "celu_a0.5")
ACT_TESTS(celu_a1, "celu_a1")
ACT_TESTS(celu_a2, "celu_a2")
ACT_TESTS(celu_a0_7, "celu_a0.7")
ACT_TESTS(celu_a1000, "celu_a1000")
ACT_TESTS(mish, "mish")
ACT_TESTS(hardswish, "hardswish")
ACT_TESTS(hardsigmoid, "hardsigmoid")
ACT_TESTS(hardtanh, "hardtanh")
ACT_TESTS(softsign, "softsign")
ACT_TESTS(logsigmoid, "logsigmoid")
ACT_TESTS(tanhshrink, "tanhshrink")
ACT_TESTS(relu, "relu")
ACT_TESTS(relu6, "relu6")
ACT_TESTS(leaky_relu_0_01, "leaky_relu_0.01")
ACT_TESTS(leaky_relu_m0_2, "leaky_relu_-0.2")
ACT_TESTS(leaky_relu_0, "leaky_relu_0")

/* CUSTOM and unknown numbers have no forward: NaN */
Test(accuracy, no_forward) {
  cr_expect_eq(actq_f32_bits(actq_act_forward(ACTQ_ACT_CUSTOM, 0, 1.0f)), ACTQ_F32_QNAN_BITS);
  cr_expect_eq(actq_f32_bits(actq_act_forward(0, 0, 1.0f)), ACTQ_F32_QNAN_BITS);
  cr_expect_eq(actq_f32_bits(actq_act_forward(99, 0, 1.0f)), ACTQ_F32_QNAN_BITS);
}
