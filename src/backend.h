/* backend.h - what a backend provides, and the context that holds one.
 *
 * Two levels of dispatch, as in BLIS: a context holds the operations of its backend
 * (CPU driver or CUDA), and the CPU driver holds a table of kernels that each ISA fills
 * slot by slot (cpu/kernels.h). The front end never knows which one runs.
 */
#ifndef ACTQ_BACKEND_H
#define ACTQ_BACKEND_H

#include "src/job.h"

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

/* What every backend shares. Everything else a backend needs lives in its own state,
 * which only that backend reads: cpu/state.h, cuda/state.h. */
struct actq_context {
  actq_backend backend;
  const actq_backend_ops *ops;
  void *state;          /* the backend's private state; its destroy frees it */
  char description[96]; /* what actq_context_describe returns; the backend keeps it true */
};

/* Backend constructors: fill ctx (already zeroed, backend set) or fail. */
actq_status actq_cpu_context_init(actq_context *ctx, int reference);
actq_status actq_cuda_context_init(actq_context *ctx);

#endif /* ACTQ_BACKEND_H */
