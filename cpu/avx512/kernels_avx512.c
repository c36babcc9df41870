/* kernels_avx512.c - the AVX-512 kernel table: quantize 16 lanes wide (compute-bound in
 * AVX2: Philox and the division); dequantize, pack and unpack keep the AVX2 kernels, which
 * already run at the memory's speed (measured: docs/bench-cpu.md). This file holds no ISA
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
    .fewbit_backward = actq_avx2_fewbit_backward,
};
