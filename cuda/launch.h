/* launch.h - the CUDA backend's operations, each in its own file (quantize.cu, ...). */
#ifndef ACTQ_CUDA_LAUNCH_H
#define ACTQ_CUDA_LAUNCH_H

extern "C" {
#include "src/backend.h"
}

actq_status actq_cuda_quantize(actq_context *ctx, const actq_quant_job *job);
actq_status actq_cuda_dequantize(actq_context *ctx, const actq_dequant_job *job);
actq_status actq_cuda_pack(actq_context *ctx, uint32_t bits, size_t n, const uint8_t *codes,
                           uint8_t *packed);
actq_status actq_cuda_unpack(actq_context *ctx, uint32_t bits, size_t n,
                             const uint8_t *packed, uint8_t *codes);
actq_status actq_cuda_fewbit_encode(actq_context *ctx, const actq_fewbit_job *job);
actq_status actq_cuda_fewbit_backward(actq_context *ctx, const actq_fewbit_job *job);

#endif /* ACTQ_CUDA_LAUNCH_H */
