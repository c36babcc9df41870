/* quantize_launch.h - the per-dtype quantize launchers (one translation unit each:
 * quantize_f32.cu, quantize_f16.cu, quantize_bf16.cu), called by quantize.cu. */
#ifndef ACTQ_CUDA_QUANTIZE_LAUNCH_H
#define ACTQ_CUDA_QUANTIZE_LAUNCH_H

#include <cuda_runtime.h>

#include "cuda/unit_ops.cuh"

void actq_cuda_quantize_f32(const actq_cuda_unit::quant_args &a, int team, bool fast, bool stoch,
                            int sm_count, cudaStream_t s);
void actq_cuda_quantize_f16(const actq_cuda_unit::quant_args &a, int team, bool fast, bool stoch,
                            int sm_count, cudaStream_t s);
void actq_cuda_quantize_bf16(const actq_cuda_unit::quant_args &a, int team, bool fast, bool stoch,
                             int sm_count, cudaStream_t s);

#endif /* ACTQ_CUDA_QUANTIZE_LAUNCH_H */
