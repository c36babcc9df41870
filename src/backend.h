/* backend.h - what a backend provides, and the context that holds one.
 *
 * Two levels of dispatch, as in BLIS: a context holds the operations of its backend
 * (CPU driver or CUDA), and the CPU driver holds a table of kernels that each ISA fills
 * slot by slot (cpu/kernels.h). The front end never knows which one runs.
 */
#ifndef ACTQ_BACKEND_H
#define ACTQ_BACKEND_H

#include "job.h"

typedef struct actq_backend_ops {
  actq_status (*quantize)(actq_context *ctx, const actq_quant_job *job);
  actq_status (*dequantize)(actq_context *ctx, const actq_dequant_job *job);
  actq_status (*pack)(actq_context *ctx, uint32_t bits, size_t n, const uint8_t *codes,
                      uint8_t *packed);
  actq_status (*unpack)(actq_context *ctx, uint32_t bits, size_t n, const uint8_t *packed,
                        uint8_t *codes);
  actq_status (*fewbit_encode)(actq_context *ctx, const actq_fewbit_job *job);
  actq_status (*fewbit_backward)(actq_context *ctx, const actq_fewbit_job *job);
  actq_status (*set_threads)(actq_context *ctx, int threads);
  actq_status (*set_stream)(actq_context *ctx, void *stream);
  actq_status (*synchronize)(actq_context *ctx);
  void (*destroy)(actq_context *ctx);
} actq_backend_ops;

struct actq_cpu_kernels; /* cpu/kernels.h */

struct actq_context {
  actq_backend backend;
  const actq_backend_ops *ops;
  const struct actq_cpu_kernels *kernels; /* CPU backends */
  int threads;                            /* CPU: resolved thread count, >= 1 */
  void *impl;                             /* backend-private state (CUDA) */
  char description[96];
};

/* Backend constructors: fill ctx (already zeroed, backend set) or fail. */
actq_status actq_cpu_context_init(actq_context *ctx, int reference);
actq_status actq_cuda_context_init(actq_context *ctx);

#endif /* ACTQ_BACKEND_H */
