/* kernels_avx2.c - the AVX2 kernel table (every slot accelerated). */
#include "cpu/avx2/avx2.h"

const actq_cpu_kernels actq_cpu_avx2_kernels = {
    "avx2",
    actq_avx2_quantize_groups,
    actq_avx2_dequantize_groups,
    actq_avx2_pack,
    actq_avx2_unpack,
    actq_avx2_fewbit_encode,
    actq_avx2_fewbit_backward,
};
