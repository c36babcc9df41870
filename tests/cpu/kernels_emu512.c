/* kernels_emu512.c - the table of cpu/avx512/kernels_avx512.c with the emulated AVX-512
 * kernels in its AVX-512 slots (test_isa_equivalence checks that the two tables agree slot
 * for slot). Compiled without ISA flags, as the original. */
#include "avx512_emulated.h"
#include "cpu/avx2/avx2.h"

/* The slots both emulated tables share, as kernels_avx512.c's AVX512_SLOTS */
#define EMU512_SLOTS                                                                       \
  .quantize_groups = actq_emu512_quantize_groups,                                          \
  .dequantize_groups = actq_emu512_dequantize_groups, .pack = actq_avx2_pack,              \
  .unpack = actq_avx2_unpack, .fewbit_no_code_lut = 1u << ACTQ_BF16,                       \
  .fewbit_code_lut_min_bits = 7, .fewbit_y_lut_dtypes = 1u << ACTQ_BF16 | 1u << ACTQ_F16

const actq_cpu_kernels actq_cpu_emu512_kernels = {
    .isa = ACTQ_EMU512_ISA,
    EMU512_SLOTS,
    .fewbit_encode = actq_emu512_fewbit_encode,
    .fewbit_backward = actq_emu512_fewbit_backward,
};

/* cpu/avx512/kernels_avx512.c's avx512bf16 table, likewise */
const actq_cpu_kernels actq_cpu_emu512bf16_kernels = {
    .isa = ACTQ_EMU512BF16_ISA,
    EMU512_SLOTS,
    .fewbit_encode = actq_emu512bf16_fewbit_encode,
    .fewbit_backward = actq_emu512bf16_fewbit_backward,
};
