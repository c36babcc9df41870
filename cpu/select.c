/* select.c - which kernel table ACTQ_BACKEND_CPU runs. */
#include "cpu/parallel.h"
#include "cpu/ref/ref.h"

/* The portable kernels under the name the CPU backend reports when no ISA path applies. */
static const actq_cpu_kernels scalar_kernels = {
    "scalar", actq_ref_quantize_groups, actq_ref_dequantize_groups, actq_ref_pack,
    actq_ref_unpack, actq_ref_fewbit_encode, actq_ref_fewbit_backward,
};

const struct actq_cpu_kernels *actq_cpu_select_kernels(void) { return &scalar_kernels; }
