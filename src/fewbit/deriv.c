/* deriv.c - activation derivatives from their closed forms (checked against numerical
 * derivatives of the forward functions in tests/fewbit/test_deriv.c). */
#include "src/fewbit/deriv.h"

#include <math.h>

static const double PI = 3.14159265358979323846;

static const double SELU_LAMBDA = 1.0507009873554804934193349852946;
static const double SELU_ALPHA = 1.6732632423543772848170429916717;

static double sigmoid(double x) {
  return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

int actq_deriv_valid(fewbit_activation act, float param) {
  switch (act) {
    case FEWBIT_SOFTPLUS:
    case FEWBIT_ELU:
    case FEWBIT_CELU:
      return isfinite(param) && param > 0;
    case FEWBIT_LEAKY_RELU:
      return isfinite(param);
    case FEWBIT_GELU: case FEWBIT_GELU_TANH: case FEWBIT_SILU: case FEWBIT_SIGMOID:
    case FEWBIT_TANH: case FEWBIT_SELU: case FEWBIT_MISH: case FEWBIT_HARDSWISH:
    case FEWBIT_HARDSIGMOID: case FEWBIT_HARDTANH: case FEWBIT_SOFTSIGN:
    case FEWBIT_LOGSIGMOID: case FEWBIT_TANHSHRINK: case FEWBIT_RELU: case FEWBIT_RELU6:
      return 1; /* no parameter: ignored */
    case FEWBIT_CUSTOM:
      break;
  }
  return 0;
}

double actq_deriv(fewbit_activation act, double p, double x) {
  switch (act) {
    case FEWBIT_GELU: /* Phi(x) + x phi(x) */
      return 0.5 * erfc(-x / sqrt(2.0)) + x * exp(-0.5 * x * x) / sqrt(2.0 * PI);
    case FEWBIT_GELU_TANH: {
      const double k = sqrt(2.0 / PI), c = 0.044715;
      const double t = tanh(k * (x + c * x * x * x));
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x);
    }
    case FEWBIT_SILU: {
      const double s = sigmoid(x);
      return s * (1 + x * (1 - s));
    }
    case FEWBIT_SIGMOID: {
      const double s = sigmoid(x);
      return s * (1 - s);
    }
    case FEWBIT_TANH: {
      const double t = tanh(x);
      return 1 - t * t;
    }
    case FEWBIT_SOFTPLUS: return sigmoid(p * x);
    case FEWBIT_ELU: return x > 0 ? 1.0 : p * exp(x);
    case FEWBIT_SELU: return x > 0 ? SELU_LAMBDA : SELU_LAMBDA * SELU_ALPHA * exp(x);
    case FEWBIT_CELU: return x > 0 ? 1.0 : exp(x / p);
    case FEWBIT_MISH: { /* tanh(sp) + x sech^2(sp) sigmoid(x) */
      const double t = tanh(softplus(x));
      return t + x * (1 - t * t) * sigmoid(x);
    }
    case FEWBIT_HARDSWISH: return x <= -3 ? 0.0 : (x >= 3 ? 1.0 : (2 * x + 3) / 6);
    case FEWBIT_HARDSIGMOID: return (x > -3 && x < 3) ? 1.0 / 6.0 : 0.0;
    case FEWBIT_HARDTANH: return (x > -1 && x < 1) ? 1.0 : 0.0;
    case FEWBIT_SOFTSIGN: return 1.0 / ((1 + fabs(x)) * (1 + fabs(x)));
    case FEWBIT_LOGSIGMOID: return sigmoid(-x);
    case FEWBIT_TANHSHRINK: {
      const double t = tanh(x);
      return t * t;
    }
    case FEWBIT_RELU: return x > 0 ? 1.0 : 0.0;
    case FEWBIT_RELU6: return (x > 0 && x < 6) ? 1.0 : 0.0;
    case FEWBIT_LEAKY_RELU: return x > 0 ? 1.0 : p;
    case FEWBIT_CUSTOM: break;
  }
  return NAN;
}

int actq_deriv_kinks(fewbit_activation act, double p, double k[4]) {
  (void)p;
  switch (act) {
    case FEWBIT_ELU: case FEWBIT_SELU: case FEWBIT_CELU: case FEWBIT_SOFTSIGN:
    case FEWBIT_RELU: case FEWBIT_LEAKY_RELU:
      k[0] = 0;
      return 1;
    case FEWBIT_RELU6:
      k[0] = 0;
      k[1] = 6;
      return 2;
    case FEWBIT_HARDSWISH: case FEWBIT_HARDSIGMOID:
      k[0] = -3;
      k[1] = 3;
      return 2;
    case FEWBIT_HARDTANH:
      k[0] = -1;
      k[1] = 1;
      return 2;
    default:
      return 0;
  }
}
