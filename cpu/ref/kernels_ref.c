/* kernels_ref.c - the reference kernel table. */
#include "cpu/ref/ref.h"

const actq_cpu_kernels actq_cpu_reference_kernels = {
    "reference",
    actq_ref_quantize_groups,
    actq_ref_dequantize_groups,
    actq_ref_pack,
    actq_ref_unpack,
    actq_ref_fewbit_encode,
    actq_ref_fewbit_backward,
};
