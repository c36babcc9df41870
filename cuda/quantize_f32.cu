/* quantize_f32.cu - the quantize kernels of f32 input (cuda/quantize_kernel.cuh). */
#include "cuda/quantize_kernel.cuh"

ACTQ_CUDA_QUANTIZE_LAUNCHER(actq_cuda_quantize_f32, ACTQ_F32)
