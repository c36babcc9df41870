/* quantize_floor_avx2.c - the loop bodies of the AVX2 quantize kernel, one step each
 * between llvm-mca region markers, for a static throughput model (bench/floor/floor.sh):
 * the compute floor of the kernel on a CPU model, without running it. The bodies are the
 * kernel's own inline functions (this file includes the kernel sources) compiled with the
 * library's flags, so the model sees the instructions the library runs (regions:
 * region.h). Not part of the library. */
#include "cpu/avx2/noise_avx2.c"
#include "cpu/avx2/quantize_avx2.c"

#include "bench/floor/region.h"

/* Pass 1 over 24 and over 40 elements (one and two steps of the unrolled loop): the
 * difference is the cost of 16 elements, the rest the per-group reductions. */
FLOOR void floor_range(const void *x, float *mn, float *mx, int *fin) {
  REGION("range_f32_24", range_avx2(x, ACTQ_F32, 0, 24, mn, mx, fin));
  REGION("range_f32_40", range_avx2(x, ACTQ_F32, 0, 40, mn, mx, fin));
  REGION("range_bf16_24", range_avx2(x, ACTQ_BF16, 0, 24, mn, mx, fin));
  REGION("range_bf16_40", range_avx2(x, ACTQ_BF16, 0, 40, mn, mx, fin));
}

/* Pass 2: 32 elements (one step of units_t), 4 bits. */
FLOOR void floor_units(const void *x, const vec_meta *vm, const uint16_t *noise, uint8_t *out,
                       const uint8_t *end) {
  REGION("nearest_f32_32", units_t(x, ACTQ_F32, 0, 0, 1, 0, 4, vm, noise, 4, out, end));
  REGION("stochastic_f32_32", units_t(x, ACTQ_F32, 1, 0, 1, 0, 4, vm, noise, 4, out, end));
  REGION("nearest_bf16_32", units_t(x, ACTQ_BF16, 0, 0, 1, 0, 4, vm, noise, 4, out, end));
  REGION("stochastic_bf16_32", units_t(x, ACTQ_BF16, 1, 0, 1, 0, 4, vm, noise, 4, out, end));
  REGION("division_nearest_f32_32", units_t(x, ACTQ_F32, 0, 0, 0, 0, 4, vm, noise, 4, out, end));
}

/* Noise: 64 elements (8 Philox blocks: one step of actq_avx2_noise_fill, key set-up
 * included, which the kernel pays once per 1024 elements). */
FLOOR void floor_noise(uint64_t seed, uint64_t offset, uint16_t *out) {
  REGION("philox_64", actq_avx2_noise_fill(seed, offset, 0, 8, out));
}
