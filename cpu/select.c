/* select.c - which kernel table ACTQ_BACKEND_CPU runs: the best ISA that cpu/isa.c found,
 * capped by ACTQ_CPU_ISA. ISA tables are only returned after that check, so no AVX2 or
 * AVX-512 instruction can run on a CPU or OS without it. */
#if defined(__x86_64__)
#  include "cpu/avx2/avx2.h"
#  include "cpu/avx512/avx512.h"
#endif
#include "cpu/isa.h"
#include "cpu/kernels.h"
#include "cpu/ref/ref.h"

/* The portable kernels under the name the CPU backend reports when no ISA path applies. */
static const actq_cpu_kernels scalar_kernels = {
    .isa = "scalar",
    .quantize_groups = actq_ref_quantize_groups,
    .dequantize_groups = actq_ref_dequantize_groups,
    .pack = actq_ref_pack,
    .unpack = actq_ref_unpack,
    .fewbit_encode = actq_ref_fewbit_encode,
    .fewbit_backward = actq_ref_fewbit_backward,
};

const actq_cpu_kernels *actq_cpu_select_kernels(void) {
#if defined(__x86_64__)
  switch (actq_cpu_isa_selected()) {
  case ACTQ_ISA_AVX512_BF16: return &actq_cpu_avx512bf16_kernels;
  case ACTQ_ISA_AVX512: return &actq_cpu_avx512_kernels;
  case ACTQ_ISA_AVX2: return &actq_cpu_avx2_kernels;
  default: break;
  }
#endif
  return &scalar_kernels;
}
