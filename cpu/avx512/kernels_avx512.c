/* kernels_avx512.c - the AVX-512 kernel table: the AVX2 kernels, with quantize's Philox
 * generator 16 lanes wide. Dequantize, pack and unpack are memory-bound already in AVX2
 * and keep those kernels (measured: docs/bench-cpu.md). This file holds no ISA code; it
 * is compiled without ISA flags and only reached through cpu/select.c. */
#include "cpu/avx2/avx2.h"
#include "cpu/avx512/avx512.h"

static size_t quantize_groups_avx512(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                     uint8_t *row_packed) {
  return actq_avx2_quantize_groups_with(job, r, g0, g1, row_packed, actq_avx512_noise_fill);
}

const actq_cpu_kernels actq_cpu_avx512_kernels = {
    "avx512",
    quantize_groups_avx512,
    actq_avx2_dequantize_groups,
    actq_avx2_pack,
    actq_avx2_unpack,
};
