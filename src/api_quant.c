/* api_quant.c - the public quantization calls: argument checks, then the backend.
 *
 * Checks run in a fixed order: context, enums and scalars, layout, sizes; then empty work
 * returns ACTQ_OK before any data pointer is looked at (NULL is allowed there); then NULL
 * data pointers. No backend sees an invalid job.
 */
#include "src/backend.h"
#include "src/layout.h"

actq_status actq_quantize(actq_context *ctx, const actq_layout *layout, actq_dtype x_dtype,
                          const void *x, actq_rounding rounding, uint64_t seed,
                          uint64_t offset, void *packed, void *group_min,
                          void *group_scale) {
  actq_quant_job job;
  actq_status st;
  if (!ctx || !actq_dtype_valid(x_dtype)) return ACTQ_ERR_INVALID_ARGUMENT;
  if (rounding != ACTQ_ROUND_STOCHASTIC && rounding != ACTQ_ROUND_NEAREST)
    return ACTQ_ERR_INVALID_ARGUMENT;
  st = actq_grid_from_layout(layout, &job.grid);
  if (st != ACTQ_OK) return st;
  if (job.grid.rows == 0 || job.grid.cols == 0) return ACTQ_OK;
  if (!x || !packed || !group_min || !group_scale) return ACTQ_ERR_INVALID_ARGUMENT;
  job.x_dtype = x_dtype;
  job.x = x;
  job.rounding = rounding;
  job.seed = seed;
  job.offset = offset;
  job.packed = (uint8_t *)packed;
  job.group_min = group_min;
  job.group_scale = group_scale;
  return ctx->ops->quantize(ctx, &job);
}

actq_status actq_dequantize(actq_context *ctx, const actq_layout *layout, const void *packed,
                            const void *group_min, const void *group_scale,
                            actq_dtype y_dtype, void *y) {
  actq_dequant_job job;
  actq_status st;
  if (!ctx || !actq_dtype_valid(y_dtype)) return ACTQ_ERR_INVALID_ARGUMENT;
  st = actq_grid_from_layout(layout, &job.grid);
  if (st != ACTQ_OK) return st;
  if (job.grid.rows == 0 || job.grid.cols == 0) return ACTQ_OK;
  if (!packed || !group_min || !group_scale || !y) return ACTQ_ERR_INVALID_ARGUMENT;
  job.packed = (const uint8_t *)packed;
  job.group_min = group_min;
  job.group_scale = group_scale;
  job.y_dtype = y_dtype;
  job.y = y;
  return ctx->ops->dequantize(ctx, &job);
}

actq_status actq_pack(actq_context *ctx, uint32_t bits, size_t n, const uint8_t *codes,
                      void *packed) {
  if (!ctx || bits < 1 || bits > 8) return ACTQ_ERR_INVALID_ARGUMENT;
  if (n == 0) return ACTQ_OK;
  if (!codes || !packed) return ACTQ_ERR_INVALID_ARGUMENT;
  return ctx->ops->pack(ctx, bits, n, codes, (uint8_t *)packed);
}

actq_status actq_unpack(actq_context *ctx, uint32_t bits, size_t n, const void *packed,
                        uint8_t *codes) {
  if (!ctx || bits < 1 || bits > 8) return ACTQ_ERR_INVALID_ARGUMENT;
  if (n == 0) return ACTQ_OK;
  if (!codes || !packed) return ACTQ_ERR_INVALID_ARGUMENT;
  return ctx->ops->unpack(ctx, bits, n, (const uint8_t *)packed, codes);
}
