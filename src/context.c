/* context.c - creating contexts and forwarding their settings to the backend. */
#include <stdlib.h>
#include <string.h>

#include "src/backend.h"

actq_status actq_context_create(actq_backend backend, actq_context **out) {
  actq_context *ctx;
  actq_status st;
  if (!out) return ACTQ_ERR_INVALID_ARGUMENT;
  *out = NULL;
  if (backend != ACTQ_BACKEND_CPU_REFERENCE && backend != ACTQ_BACKEND_CPU &&
      backend != ACTQ_BACKEND_CUDA)
    return ACTQ_ERR_INVALID_ARGUMENT;
  ctx = (actq_context *)calloc(1, sizeof *ctx);
  if (!ctx) return ACTQ_ERR_OUT_OF_MEMORY;
  ctx->backend = backend;
  st = backend == ACTQ_BACKEND_CUDA
           ? actq_cuda_context_init(ctx)
           : actq_cpu_context_init(ctx, backend == ACTQ_BACKEND_CPU_REFERENCE);
  if (st != ACTQ_OK) {
    if (ctx->ops) ctx->ops->destroy(ctx);
    free(ctx);
    return st;
  }
  *out = ctx;
  return ACTQ_OK;
}

void actq_context_destroy(actq_context *ctx) {
  if (!ctx) return;
  ctx->ops->destroy(ctx);
  free(ctx);
}

const char *actq_context_describe(const actq_context *ctx) {
  return ctx ? ctx->description : "(null)";
}

actq_status actq_context_set_threads(actq_context *ctx, int threads) {
  if (!ctx) return ACTQ_ERR_INVALID_ARGUMENT;
  return ctx->ops->set_threads(ctx, threads);
}

actq_status actq_context_set_stream(actq_context *ctx, void *cuda_stream) {
  if (!ctx) return ACTQ_ERR_INVALID_ARGUMENT;
  return ctx->ops->set_stream(ctx, cuda_stream);
}

actq_status actq_context_synchronize(actq_context *ctx) {
  if (!ctx) return ACTQ_ERR_INVALID_ARGUMENT;
  return ctx->ops->synchronize(ctx);
}
