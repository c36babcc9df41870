/* kernels_avx512.c - the AVX-512 kernel table: quantize 16 lanes wide (compute-bound in
 * AVX2: Philox and the division) and fewbit_backward (levels from registers at every width,
 * where AVX2 gathers past 5 bits); dequantize, pack, unpack and fewbit_encode keep the AVX2
 * kernels (dequantize, pack and unpack run at the memory's speed: docs/bench-cpu.md; the
 * few-bit encode's AVX-512 twin is not written yet, issue 23). This file holds no ISA
 * code; it is compiled without ISA flags and only reached through cpu/select.c. */
#include "cpu/avx2/avx2.h"
#include "cpu/avx512/avx512.h"

const actq_cpu_kernels actq_cpu_avx512_kernels = {
    .isa = "avx512",
    .quantize_groups = actq_avx512_quantize_groups,
    .dequantize_groups = actq_avx2_dequantize_groups,
    .pack = actq_avx2_pack,
    .unpack = actq_avx2_unpack,
    .fewbit_encode = actq_avx2_fewbit_encode,
    .fewbit_backward = actq_avx512_fewbit_backward,
};
