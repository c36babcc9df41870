/* api_fewbit.c - the public fewbit_encode / fewbit_backward calls: checks, then the
 * backend. The table is host memory on every backend and is validated on each call (its
 * bounds must increase), since a table can come from anywhere (files, other builds). */
#include <math.h>
#include <stdint.h>

#include "src/backend.h"
#include "src/fewbit/deriv.h"
#include "src/layout.h"

static actq_status check_table(const fewbit_table *t) {
  uint32_t i, nb;
  if (!t || t->bits < 1 || t->bits > 8) return ACTQ_ERR_INVALID_ARGUMENT;
  if (t->activation != FEWBIT_CUSTOM &&
      !actq_deriv_valid((fewbit_activation)t->activation, t->param))
    return ACTQ_ERR_INVALID_ARGUMENT;
  nb = (1u << t->bits) - 1u;
  for (i = 0; i < nb; i++)
    if (isnan(t->bounds[i]) || (i && !(t->bounds[i - 1] < t->bounds[i])))
      return ACTQ_ERR_INVALID_ARGUMENT;
  return ACTQ_OK;
}

static actq_status check_common(actq_context *ctx, const fewbit_table *table, size_t n,
                                actq_dtype dtype) {
  actq_status st;
  if (!ctx || !actq_dtype_valid(dtype)) return ACTQ_ERR_INVALID_ARGUMENT;
  st = check_table(table);
  if (st != ACTQ_OK) return st;
  if (n > SIZE_MAX / 4) return ACTQ_ERR_SIZE_OVERFLOW;
  return ACTQ_OK;
}

actq_status fewbit_encode(actq_context *ctx, const fewbit_table *table, size_t n,
                          actq_dtype dtype, const void *x, void *y, void *codes) {
  actq_fewbit_job job = {0};
  actq_status st = check_common(ctx, table, n, dtype);
  if (st != ACTQ_OK) return st;
  if (y && table->activation == FEWBIT_CUSTOM) return ACTQ_ERR_UNSUPPORTED;
  if (n == 0) return ACTQ_OK;
  if (!x || !codes) return ACTQ_ERR_INVALID_ARGUMENT;
  job.table = table;
  job.n = n;
  job.dtype = dtype;
  job.x = x;
  job.y = y;
  job.codes = (uint8_t *)codes;
  return ctx->ops->fewbit_encode(ctx, &job);
}

actq_status fewbit_backward(actq_context *ctx, const fewbit_table *table, size_t n,
                            const void *codes, actq_dtype dtype, const void *grad_out,
                            void *grad_in) {
  actq_fewbit_job job = {0};
  actq_status st = check_common(ctx, table, n, dtype);
  if (st != ACTQ_OK) return st;
  if (n == 0) return ACTQ_OK;
  if (!codes || !grad_out || !grad_in) return ACTQ_ERR_INVALID_ARGUMENT;
  job.table = table;
  job.n = n;
  job.dtype = dtype;
  job.codes_in = (const uint8_t *)codes;
  job.grad_out = grad_out;
  job.grad_in = grad_in;
  return ctx->ops->fewbit_backward(ctx, &job);
}
