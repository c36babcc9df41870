/* quantize_f16.cu - the quantize kernels of f16 input (cuda/quantize_kernel.cuh). */
#include "cuda/quantize_kernel.cuh"

ACTQ_CUDA_QUANTIZE_LAUNCHER(actq_cuda_quantize_f16, ACTQ_F16)
