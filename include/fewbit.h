/* fewbit.h - few-bit backward for pointwise activations (Few-Bit Backward, Novikov et al.).
 *
 * Forward stores, per element of a pointwise activation's input, only a b-bit code: the
 * index of the interval of an optimal piecewise-constant approximation q of the
 * activation's derivative f'. Backward multiplies the incoming gradient by the level of
 * that interval. Tables minimize integral (f'(x) - q(x))^2 w(x) dx exactly on a fine grid,
 * by dynamic programming. Codes are packed exactly as actq_pack packs them.
 */
#ifndef FEWBIT_H
#define FEWBIT_H

#include "actq.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fewbit_activation {
  FEWBIT_GELU = 1,     /* x * Phi(x) */
  FEWBIT_GELU_TANH,    /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
  FEWBIT_SILU,         /* x * sigmoid(x) */
  FEWBIT_SIGMOID,
  FEWBIT_TANH,
  FEWBIT_SOFTPLUS,     /* param: beta > 0; log1p(exp(beta x)) / beta */
  FEWBIT_ELU,          /* param: alpha > 0; x > 0 ? x : alpha (exp(x) - 1) */
  FEWBIT_SELU,
  FEWBIT_CELU,         /* param: alpha > 0; max(0, x) + min(0, alpha (exp(x / alpha) - 1)) */
  FEWBIT_MISH,         /* x * tanh(softplus(x)) */
  FEWBIT_HARDSWISH,    /* x * relu6(x + 3) / 6 */
  FEWBIT_HARDSIGMOID,  /* relu6(x + 3) / 6 */
  FEWBIT_HARDTANH,     /* clamp(x, -1, 1) */
  FEWBIT_SOFTSIGN,     /* x / (1 + |x|) */
  FEWBIT_LOGSIGMOID,   /* -softplus(-x) */
  FEWBIT_TANHSHRINK,   /* x - tanh(x) */
  FEWBIT_RELU,
  FEWBIT_RELU6,
  FEWBIT_LEAKY_RELU,   /* param: negative slope (finite) */
  FEWBIT_CUSTOM        /* a table fitted to user samples: fewbit_table_build_custom */
} fewbit_activation;

typedef enum fewbit_weight { FEWBIT_WEIGHT_NORMAL = 0, FEWBIT_WEIGHT_UNIFORM = 1 } fewbit_weight;

typedef struct fewbit_options {
  fewbit_weight weight; /* NORMAL: density of N(mean, std^2); UNIFORM: constant on [lo, hi] */
  double mean, std;     /* NORMAL */
  double lo, hi;        /* UNIFORM: the domain; NORMAL: ignored (mean +- 10 std is used) */
  uint32_t grid;        /* solver cells, 16..2^20 and >= 2^bits; 0 = the default (32 per level, >= 1024) */
} fewbit_options;       /* NULL options = NORMAL with mean 0, std 1 */

typedef struct fewbit_table {
  uint32_t bits;        /* 1..8 */
  uint32_t activation;  /* fewbit_activation */
  float param;
  float bounds[255];    /* 2^bits - 1 increasing inner borders */
  float levels[256];    /* 2^bits derivative values */
  double error;         /* the weighted L2 error the table reaches: integral of (f' - q)^2 w */
} fewbit_table;

/* The globally optimal table on the solver's grid (within 0.1% of the continuous optimum
 * at the default grid). Unknown activation, FEWBIT_CUSTOM, bits outside 1..8, a bad
 * parameter, std <= 0, lo >= hi, non-finite options or a grid outside 16..1048576:
 * ACTQ_ERR_INVALID_ARGUMENT. ACTQ_ERR_OUT_OF_MEMORY when the solver's tables cannot be
 * allocated. The table is written only on success. */
ACTQ_API actq_status fewbit_table_build(fewbit_activation act, float param, uint32_t bits,
                                        const fewbit_options *opt, fewbit_table *table);

/* A table for sampled data: x strictly increasing (n >= 2), dydx[i] and weight[i] (a
 * density, >= 0; NULL = 1) at x[i]. The objective is the trapezoid rule on the samples;
 * borders lie between samples (at float midpoints). */
ACTQ_API actq_status fewbit_table_build_custom(size_t n, const double *x, const double *dydx,
                                               const double *weight, uint32_t bits,
                                               fewbit_table *table);

/* codes (packed, table->bits each) of x, and y = f(x) in dtype unless y is NULL.
 * Code = number of bounds strictly below x; NaN gets code 0 and y NaN, and the call then
 * returns ACTQ_ERR_NONFINITE after processing everything. y with FEWBIT_CUSTOM:
 * ACTQ_ERR_UNSUPPORTED. */
ACTQ_API actq_status fewbit_encode(actq_context *ctx, const fewbit_table *table, size_t n,
                                   actq_dtype dtype, const void *x, void *y, void *codes);

/* grad_in = grad_out * levels[code], in float32, rounded once to dtype. */
ACTQ_API actq_status fewbit_backward(actq_context *ctx, const fewbit_table *table, size_t n,
                                     const void *codes, actq_dtype dtype, const void *grad_out,
                                     void *grad_in);

#ifdef __cplusplus
}
#endif

#endif /* FEWBIT_H */
