/* cuda_absent.c - the CUDA backend of a build without CUDA: the calls exist and say so. */
#include "src/backend.h"

actq_status actq_cuda_context_init(actq_context *ctx) {
  (void)ctx;
  return ACTQ_ERR_UNSUPPORTED;
}
