/* quantize_bf16.cu - the quantize kernels of bf16 input (cuda/quantize_kernel.cuh). */
#include "cuda/quantize_kernel.cuh"

ACTQ_CUDA_QUANTIZE_LAUNCHER(actq_cuda_quantize_bf16, ACTQ_BF16)
