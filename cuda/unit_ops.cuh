/* unit_ops.cuh - what one lane does to one unit (8 elements / 8 codes) in each kernel,
 * separated from the thread mapping so that a host build can walk the same code serially
 * (tests/cuda/test_unit_ops_host.cu checks it against the reference without a GPU).
 * Every formula comes from src/arith. */
#ifndef ACTQ_CUDA_UNIT_OPS_CUH
#define ACTQ_CUDA_UNIT_OPS_CUH

#include <stdint.h>

#include "arith/bitstream.h"
#include "arith/quant.h"
#include "cuda/device_io.cuh"
#include "cuda/group_team.cuh"

namespace actq_cuda_unit {

using actq_cuda_team::group_grid;
using actq_cuda_team::row_map;

struct quant_args {
  group_grid grid;
  row_map rows;
  const void *x;
  int meta_dtype;
  int stochastic;
  uint64_t seed, offset;
  uint8_t *packed;
  void *group_min, *group_scale;
  uint32_t *error;
};

struct dequant_args {
  group_grid grid;
  row_map rows;
  const uint8_t *packed;
  const void *group_min, *group_scale;
  int meta_dtype;
  void *y;
};

/* Codes of one unit (elements e .. e+k-1, values v) into its packed word at out. FAST:
 * e is a multiple of 8, so the unit's noise is exactly Philox block e/8. */
template <bool FAST>
__host__ __device__ __forceinline__ void quantize_unit(const quant_args &a,
                                                       const actq_group_meta &g, uint32_t bits,
                                                       size_t e, int k, const float v[8],
                                                       uint8_t *out) {
  uint32_t codes[8];
  if (a.stochastic) {
    if (FAST) {
      uint16_t r16[8];
      actq_noise_block(a.seed, a.offset, e >> 3, r16);
ACTQ_UNROLL
      for (int j = 0; j < 8; j++) codes[j] = j < k ? actq_code_stochastic(v[j], &g, r16[j]) : 0u;
    } else {
      actq_noise_cursor nc;
      actq_noise_cursor_init(&nc, a.seed, a.offset);
ACTQ_UNROLL
      for (int j = 0; j < 8; j++)
        codes[j] = j < k ? actq_code_stochastic(v[j], &g, actq_noise_at(&nc, e + j)) : 0u;
    }
  } else {
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) codes[j] = j < k ? actq_code_nearest(v[j], &g) : 0u;
  }
  /* Codes past k are 0, so the word equals the reference's k-code word. */
  actq_cuda_io::store_word(out, actq_pack_word(codes, 8, bits), ((uint32_t)k * bits + 7) / 8);
}

/* Unit u of a located group: packed word in, k values out. */
template <int DT, bool FAST>
__host__ __device__ __forceinline__ void dequantize_unit(const dequant_args &a,
                                                         const actq_cuda_team::group_pos &p,
                                                         uint32_t bits, const uint8_t *in,
                                                         float m, float s, size_t u) {
  const int k = actq_cuda_team::unit_len(p, u);
  const uint64_t word = actq_cuda_io::load_word(in + u * bits, ((uint32_t)k * bits + 7) / 8);
  float v[8];
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) v[j] = actq_dequant(actq_unpack_code(word, j, bits), m, s);
  actq_cuda_io::store_unit<DT, FAST>(a.y, p.e0 + 8 * u, k, v);
}

/* ---- a lane's share of one group, in the order of quantize_kernel ------------------ */

/* Step 1: loads the lane's units (lane, lane + TEAM, ...), keeps the first CACHE of them
 * in v, and returns the lane's minmax. */
template <int DT, int TEAM, int CACHE, bool FAST>
__host__ __device__ __forceinline__ actq_cuda_team::minmax quantize_lane_scan(
    const quant_args &a, const actq_cuda_team::group_pos &p, size_t lane, float v[][8]) {
  actq_cuda_team::minmax m = actq_cuda_team::minmax_identity();
ACTQ_UNROLL
  for (int i = 0; i < CACHE; i++) {
    const size_t u = lane + (size_t)i * TEAM;
    if (u < p.units) {
      const int k = actq_cuda_team::unit_len(p, u);
      actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * u, k, v[i]);
      actq_cuda_team::minmax_add(m, v[i], k);
    }
  }
  for (size_t u = lane + (size_t)CACHE * TEAM; u < p.units; u += TEAM) {
    float w[8];
    const int k = actq_cuda_team::unit_len(p, u);
    actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * u, k, w);
    actq_cuda_team::minmax_add(m, w, k);
  }
  return m;
}

/* Step 2, with the team's minmax: the metadata (stored by one lane); returns the width. */
__host__ __device__ __forceinline__ uint32_t quantize_group_meta(
    const quant_args &a, const actq_cuda_team::group_pos &p, const actq_cuda_team::minmax &m,
    bool store, actq_group_meta *g) {
  const uint32_t bits = a.rows.width(p.row);
  actq_group_meta_compute(m.mn, m.mx, m.finite, bits, a.meta_dtype, g);
  if (store) {
    actq_store_elem(a.group_min, a.meta_dtype, p.index, g->m);
    actq_store_elem(a.group_scale, a.meta_dtype, p.index, g->s);
  }
  return bits;
}

/* Step 3: the lane's units into codes and packed words (cached ones from v). */
template <int DT, int TEAM, int CACHE, bool FAST>
__host__ __device__ __forceinline__ void quantize_lane_codes(
    const quant_args &a, const actq_cuda_team::group_pos &p, size_t lane,
    const actq_group_meta &g, uint32_t bits, const float v[][8]) {
  uint8_t *out = a.packed + a.rows.offset(p.row) + (p.c0 / 8) * bits;
ACTQ_UNROLL
  for (int i = 0; i < CACHE; i++) {
    const size_t u = lane + (size_t)i * TEAM;
    if (u < p.units)
      quantize_unit<FAST>(a, g, bits, p.e0 + 8 * u, actq_cuda_team::unit_len(p, u), v[i],
                          out + u * bits);
  }
  for (size_t u = lane + (size_t)CACHE * TEAM; u < p.units; u += TEAM) {
    float w[8];
    const int k = actq_cuda_team::unit_len(p, u);
    actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * u, k, w);
    quantize_unit<FAST>(a, g, bits, p.e0 + 8 * u, k, w, out + u * bits);
  }
}

/* Dequantize: the lane's units of one located group. */
template <int DT, int TEAM, bool FAST>
__host__ __device__ __forceinline__ void dequantize_lane(const dequant_args &a,
                                                         const actq_cuda_team::group_pos &p,
                                                         size_t lane) {
  if (!p.valid || lane >= p.units) return;
  const uint32_t bits = a.rows.width(p.row);
  const float m = actq_load_elem(a.group_min, a.meta_dtype, p.index);
  const float s = actq_load_elem(a.group_scale, a.meta_dtype, p.index);
  const uint8_t *in = a.packed + a.rows.offset(p.row) + (p.c0 / 8) * bits;
  for (size_t u = lane; u < p.units; u += TEAM) dequantize_unit<DT, FAST>(a, p, bits, in, m, s, u);
}

} /* namespace actq_cuda_unit */

#endif /* ACTQ_CUDA_UNIT_OPS_CUH */
