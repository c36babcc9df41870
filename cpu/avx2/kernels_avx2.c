/* kernels_avx2.c - the AVX2 kernel table (every slot accelerated). */
#include "cpu/avx2/avx2.h"

const actq_cpu_kernels actq_cpu_avx2_kernels = {
    .isa = "avx2",
    .quantize_groups = actq_avx2_quantize_groups,
    .dequantize_groups = actq_avx2_dequantize_groups,
    .pack = actq_avx2_pack,
    .unpack = actq_avx2_unpack,
    .fewbit_encode = actq_avx2_fewbit_encode,
    .fewbit_backward = actq_avx2_fewbit_backward,
    /* y of 16-bit x from the context's table (cpu/y_lut.h) */
    .fewbit_y_lut_dtypes = 1u << ACTQ_BF16 | 1u << ACTQ_F16,
};
