/* kernels_ref.c - the reference kernel table. */
#include "cpu/ref/ref.h"

const actq_cpu_kernels actq_cpu_reference_kernels = {
    .isa = "reference",
    .quantize_groups = actq_ref_quantize_groups,
    .dequantize_groups = actq_ref_dequantize_groups,
    .pack = actq_ref_pack,
    .unpack = actq_ref_unpack,
    .fewbit_encode = actq_ref_fewbit_encode,
    .fewbit_backward = actq_ref_fewbit_backward,
};
