/* quantize_floor_avx512.c - the loop bodies of the AVX-512 quantize kernel, one step each
 * between llvm-mca region markers, for a static throughput model (bench/floor/floor.sh):
 * the compute floor of the kernel on a CPU model, without running it. The bodies are the
 * kernel's own inline functions (this file includes the kernel sources) compiled with the
 * library's flags, so the model sees the instructions the library runs (regions:
 * region.h). Not part of the library. */
#include "cpu/avx512/noise_avx512.c"
#include "cpu/avx512/quantize_avx512.c"

#include "bench/floor/region.h"

/* Pass 1 over 48 and over 80 elements (one and two steps of the unrolled loop): the
 * difference is the cost of 32 elements, the rest the per-group reductions. */
FLOOR void floor_range(const void *x, float *mn, float *mx, int *fin) {
  REGION("range_f32_48", range_avx512(x, ACTQ_F32, 0, 48, mn, mx, fin));
  REGION("range_f32_80", range_avx512(x, ACTQ_F32, 0, 80, mn, mx, fin));
  REGION("range_bf16_48", range_avx512(x, ACTQ_BF16, 0, 48, mn, mx, fin));
  REGION("range_bf16_80", range_avx512(x, ACTQ_BF16, 0, 80, mn, mx, fin));
}

/* Pass 2: 64 elements (one step of units_t), 4 bits. */
FLOOR void floor_units(const void *x, const vec_meta *vm, const uint16_t *noise, uint8_t *out) {
  REGION("nearest_f32_64", units_t(x, ACTQ_F32, 0, 0, 1, 0, 8, vm, noise, 4, out));
  REGION("stochastic_f32_64", units_t(x, ACTQ_F32, 1, 0, 1, 0, 8, vm, noise, 4, out));
  REGION("nearest_bf16_64", units_t(x, ACTQ_BF16, 0, 0, 1, 0, 8, vm, noise, 4, out));
  REGION("stochastic_bf16_64", units_t(x, ACTQ_BF16, 1, 0, 1, 0, 8, vm, noise, 4, out));
  REGION("division_nearest_f32_64", units_t(x, ACTQ_F32, 0, 0, 0, 0, 8, vm, noise, 4, out));
}

/* Noise: 128 elements (16 Philox blocks: one step of actq_avx512_noise_fill, key set-up
 * included, which the kernel pays once per 1024 elements). */
FLOOR void floor_noise(uint64_t seed, uint64_t offset, uint16_t *out) {
  REGION("philox_128", actq_avx512_noise_fill(seed, offset, 0, 16, out));
}
