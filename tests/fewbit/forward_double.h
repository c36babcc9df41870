/* forward_double.h - the activations' forward functions in double, written for the tests
 * from their definitions (independent of the library's derivative formulas). */
#ifndef ACTQ_TEST_FORWARD_DOUBLE_H
#define ACTQ_TEST_FORWARD_DOUBLE_H

#include <math.h>

#include "fewbit.h"

static inline double ref_softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

static inline double ref_forward(fewbit_activation act, double p, double x) {
  const double selu_l = 1.0507009873554804934193349852946, selu_a = 1.6732632423543772848170429916717;
  switch (act) {
    case FEWBIT_GELU: return 0.5 * x * erfc(-x / sqrt(2.0));
    case FEWBIT_GELU_TANH:
      return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case FEWBIT_SILU: return x / (1 + exp(-x));
    case FEWBIT_SIGMOID: return 1 / (1 + exp(-x));
    case FEWBIT_TANH: return tanh(x);
    case FEWBIT_SOFTPLUS: return ref_softplus(p * x) / p;
    case FEWBIT_ELU: return x > 0 ? x : p * expm1(x);
    case FEWBIT_SELU: return selu_l * (x > 0 ? x : selu_a * expm1(x));
    case FEWBIT_CELU: return (x > 0 ? x : 0) + (x < 0 ? p * expm1(x / p) : 0);
    case FEWBIT_MISH: return x * tanh(ref_softplus(x));
    case FEWBIT_HARDSWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
    case FEWBIT_HARDSIGMOID: return fmin(fmax(x + 3, 0), 6) / 6;
    case FEWBIT_HARDTANH: return fmin(fmax(x, -1), 1);
    case FEWBIT_SOFTSIGN: return x / (1 + fabs(x));
    case FEWBIT_LOGSIGMOID: return -ref_softplus(-x);
    case FEWBIT_TANHSHRINK: return x - tanh(x);
    case FEWBIT_RELU: return x > 0 ? x : 0;
    case FEWBIT_RELU6: return fmin(fmax(x, 0), 6);
    case FEWBIT_LEAKY_RELU: return x > 0 ? x : p * x;
    default: return NAN;
  }
}

/* f' by a 4th-order central difference of ref_forward with step h (smooth stretches). */
static inline double ref_numeric_deriv_h(fewbit_activation act, double p, double x, double h) {
  return (ref_forward(act, p, x - 2 * h) - 8 * ref_forward(act, p, x - h) +
          8 * ref_forward(act, p, x + h) - ref_forward(act, p, x + 2 * h)) / (12 * h);
}

static inline double ref_numeric_deriv(fewbit_activation act, double p, double x) {
  return ref_numeric_deriv_h(act, p, x, 1e-3 * (1 + fabs(x)));
}

/* The same, never reaching across a point where some activation's f' has a kink. */
static inline double ref_numeric_deriv_safe(fewbit_activation act, double p, double x) {
  static const double kinks[] = {-3, -1, 0, 1, 3, 6};
  double h = 1e-3 * (1 + fabs(x));
  size_t i;
  for (i = 0; i < sizeof kinks / sizeof *kinks; i++)
    if (fabs(x - kinks[i]) / 3 < h) h = fabs(x - kinks[i]) / 3;
  return ref_numeric_deriv_h(act, p, x, h);
}

typedef struct act_case {
  fewbit_activation act;
  float param;
} act_case;

static const act_case ALL_ACTS[] = {
    {FEWBIT_GELU, 0},       {FEWBIT_GELU_TANH, 0},  {FEWBIT_SILU, 0},
    {FEWBIT_SIGMOID, 0},    {FEWBIT_TANH, 0},       {FEWBIT_SOFTPLUS, 1},
    {FEWBIT_SOFTPLUS, 4},   {FEWBIT_ELU, 1},        {FEWBIT_ELU, 0.5f},
    {FEWBIT_SELU, 0},       {FEWBIT_CELU, 1},       {FEWBIT_CELU, 2},
    {FEWBIT_MISH, 0},       {FEWBIT_HARDSWISH, 0},  {FEWBIT_HARDSIGMOID, 0},
    {FEWBIT_HARDTANH, 0},   {FEWBIT_SOFTSIGN, 0},   {FEWBIT_LOGSIGMOID, 0},
    {FEWBIT_TANHSHRINK, 0}, {FEWBIT_RELU, 0},       {FEWBIT_RELU6, 0},
    {FEWBIT_LEAKY_RELU, 0.01f}, {FEWBIT_LEAKY_RELU, -0.2f},
};
#define N_ACTS (sizeof ALL_ACTS / sizeof *ALL_ACTS)

#endif
