/* kernels_avx512.c - the AVX-512 kernel table: quantize 16 lanes wide (compute-bound in
 * AVX2: Philox and the division), dequantize to bf16 and f16 from 6 bits (compute-bound in
 * AVX2 on cores without AVX512_BF16), fewbit_encode's codes and fewbit_backward (bounds and
 * levels from registers at every width, where AVX2 gathers past 5 bits); the other
 * dequantize cases, pack and unpack keep the AVX2 kernels, which run at the memory's speed
 * (docs/bench-cpu.md);
 * fewbit_encode's y takes the 16-lane activations of act_avx512.h. This file holds no ISA
 * code; it is compiled without ISA flags and only reached through cpu/select.c. */
#include "cpu/avx2/avx2.h"
#include "cpu/avx512/avx512.h"

/* The slots both AVX-512 tables share */
#define AVX512_SLOTS                                                                       \
  .quantize_groups = actq_avx512_quantize_groups,                                          \
  .dequantize_groups = actq_avx512_dequantize_groups, .pack = actq_avx2_pack,              \
  .unpack = actq_avx2_unpack,                                                              \
  /* bf16 codes: 16-bit keys at every width */                                             \
  .fewbit_no_code_lut = 1u << ACTQ_BF16,                                                   \
  /* f32 at 6 bits: the 16-lane search (6 permutes) beat the table's gathers, 19.5-20.4    \
   * against 26.2-27.6 ms at 2^26 on one thread of a Zen 5 (docs/fewbit.md); 7-8 bits      \
   * (16 permutes and blends) lost to them */                                              \
  .fewbit_code_lut_min_bits = 7,                                                          \
  /* y of 16-bit x from the context's table (cpu/y_lut.h) */                               \
  .fewbit_y_lut_dtypes = 1u << ACTQ_BF16 | 1u << ACTQ_F16

const actq_cpu_kernels actq_cpu_avx512_kernels = {
    .isa = "avx512",
    AVX512_SLOTS,
    .fewbit_encode = actq_avx512_fewbit_encode,
    .fewbit_backward = actq_avx512_fewbit_backward,
};

/* The few-bit kernels' bf16 y and grad_in by vcvtne2ps2bf16 / vcvtneps2bf16 (AVX512_BF16)
 * instead of five integer operations and a narrowing a vector (docs/fewbit.md) */
const actq_cpu_kernels actq_cpu_avx512bf16_kernels = {
    .isa = "avx512bf16",
    AVX512_SLOTS,
    .fewbit_encode = actq_avx512bf16_fewbit_encode,
    .fewbit_backward = actq_avx512bf16_fewbit_backward,
};
