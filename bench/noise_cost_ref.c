/* noise_cost_ref.c - scalar C fills, compiled without ISA flags (as cpu/ref is), so they
 * time what the reference backend's noise costs per element. */
#include "noise_cost.h"

void nc_philox10_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  size_t i;
  for (i = 0; i < n; i += 8) actq_noise_block(seed, offset, (e0 + i) >> 3, out + i);
}

void nc_philox7_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  size_t i;
  for (i = 0; i < n; i += 8) ng_philox_block(7, seed, offset, (e0 + i) >> 3, out + i);
}

void nc_mx3_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(seed, offset);
  size_t i;
  for (i = 0; i < n; i += 2) {
    const uint32_t x = ng_mx3(&k, (e0 + i) >> 1);
    out[i] = (uint16_t)x;
    out[i + 1] = (uint16_t)(x >> 16);
  }
}

void nc_mx2_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(seed, offset);
  size_t i;
  for (i = 0; i < n; i += 2) {
    const uint32_t x = ng_mx2(&k, (e0 + i) >> 1);
    out[i] = (uint16_t)x;
    out[i + 1] = (uint16_t)(x >> 16);
  }
}
