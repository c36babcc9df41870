/* act_ref.h - double-precision references for the float32 activation forwards
 * (src/arith/act.h) and the ulp measure the tests use; shared by tests/arith/test_act.c and
 * tools/act_scan.c. Each reference is accurate to a few double ulps, i.e. far below a
 * float32 ulp: tanhshrink uses its series where x - tanh x would cancel, sigmoid-type
 * products use e^v/(1+e^v) on the negative side, softplus max(t,0) + log1p(e^-|t|).
 */
#ifndef ACTQ_TEST_ACT_REF_H
#define ACTQ_TEST_ACT_REF_H

#include <float.h>
#include <math.h>

#include "src/arith/act.h"

static const double selu_lambda = 1.0507009873554804934193349852946;
static const double selu_alpha = 1.6732632423543772848170429916717;

static double ref_softplus(double beta, double x) {
  double t = beta * x; /* exact: a product of two floats */
  return (fmax(t, 0.0) + log1p(exp(-fabs(t)))) / beta;
}

static double ref_tanhshrink(double x) {
  if (fabs(x) < 0.0625) { /* x - tanh x by its series: the subtraction would cancel */
    double s = x * x;
    double p = 929569.0 / 638512875;
    p = p * s - 21844.0 / 6081075;
    p = p * s + 1382.0 / 155925;
    p = p * s - 62.0 / 2835;
    p = p * s + 17.0 / 315;
    p = p * s - 2.0 / 15;
    p = p * s + 1.0 / 3;
    return x * s * p;
  }
  return x - tanh(x);
}

static double ref_sigmoid_times(double a, double v) { /* a * sigmoid(v) */
  return v >= 0 ? a / (1 + exp(-v)) : a * exp(v) / (1 + exp(v));
}

static double reference(int act, double a, double x) {
  switch (act) {
  case ACTQ_ACT_GELU: return 0.5 * x * erfc(-x * 0.70710678118654752440);
  case ACTQ_ACT_GELU_TANH:
    return ref_sigmoid_times(x, 2 * sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x));
  case ACTQ_ACT_SILU: return ref_sigmoid_times(x, x);
  case ACTQ_ACT_SIGMOID: return ref_sigmoid_times(1, x);
  case ACTQ_ACT_TANH: return tanh(x);
  case ACTQ_ACT_SOFTPLUS: return ref_softplus(a, x);
  case ACTQ_ACT_ELU: return x > 0 ? x : a * expm1(x);
  case ACTQ_ACT_SELU: return x > 0 ? selu_lambda * x : selu_lambda * selu_alpha * expm1(x);
  case ACTQ_ACT_CELU: return x > 0 ? x : a * expm1(x / a);
  case ACTQ_ACT_MISH: return x * tanh(ref_softplus(1, x));
  case ACTQ_ACT_HARDSWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
  case ACTQ_ACT_HARDSIGMOID: return fmin(fmax(x + 3, 0), 6) / 6;
  case ACTQ_ACT_HARDTANH: return fmin(fmax(x, -1), 1);
  case ACTQ_ACT_SOFTSIGN: return x / (1 + fabs(x));
  case ACTQ_ACT_LOGSIGMOID: return -ref_softplus(1, -x);
  case ACTQ_ACT_TANHSHRINK: return ref_tanhshrink(x);
  case ACTQ_ACT_RELU: return fmax(x, 0);
  case ACTQ_ACT_RELU6: return fmin(fmax(x, 0), 6);
  case ACTQ_ACT_LEAKY_RELU: return x > 0 ? x : a * x;
  }
  return NAN;
}

/* |y - r| in units of the float32 ulp of r's binade (2^-149 at the bottom); a result that
 * overflows in float must be the Inf it rounds to */
static double ulp_error(float y, double r) {
  if (isnan(y)) return INFINITY;
  if (fabs(r) > FLT_MAX) {
    float rf = (float)r;
    if (isinf(rf)) return y == rf ? 0.0 : INFINITY;
  }
  if (isinf(y)) return INFINITY;
  int e;
  frexp(fabs(r), &e); /* |r| in [2^(e-1), 2^e) */
  int ue = e - 24 < -149 ? -149 : e - 24;
  return fabs((double)y - r) / ldexp(1.0, ue);
}

#endif /* ACTQ_TEST_ACT_REF_H */
