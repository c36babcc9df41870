/* unit_ops.cuh - what one lane does to one unit (8 elements / 8 codes) in each kernel,
 * separated from the thread mapping so that a host build can walk the same code serially
 * (tests/cuda/test_unit_ops_host.cu checks it against the reference without a GPU).
 * Every formula comes from src/arith. */
#ifndef ACTQ_CUDA_UNIT_OPS_CUH
#define ACTQ_CUDA_UNIT_OPS_CUH

#include <stdint.h>

#include "src/arith/bitstream.h"
#include "src/arith/quant.h"
#include "cuda/device_io.cuh"
#include "cuda/group_team.cuh"

namespace actq_cuda_unit {

using actq_cuda_team::group_grid;
using actq_cuda_team::row_map;

struct quant_args {
  group_grid grid;
  row_map rows;
  const void *x;
  actq_dtype meta_dtype;
  uint32_t rk[20]; /* the seed's Philox round keys (actq_noise_round_keys), once per call */
  uint64_t offset;
  uint32_t r0[3];  /* round 0's terms of (rk, offset) (actq_noise_round0_terms), once per call */
  uint8_t *packed;
  void *group_min, *group_scale;
  uint32_t *error;
};

struct dequant_args {
  group_grid grid;
  row_map rows;
  const uint8_t *packed;
  const void *group_min, *group_scale;
  actq_dtype meta_dtype;
  void *y;
};

/* ---- instances: what a kernel compiles in -------------------------------------------
 * MDT: the metadata dtype as a constant (ANY_META: the call's, a run-time value, so every
 * dtype's rounding is in the body); BITS: the width when every row has it (0: the row's,
 * run time). Constants fold the metadata rounding, the level count and the packing to the
 * path one configuration runs. The launchers and the host test pick instances with the
 * functions below. */
constexpr int ANY_META = -1;

template <int MDT>
__host__ __device__ __forceinline__ actq_dtype meta_of(actq_dtype run_time) {
  return MDT == ANY_META ? run_time : (actq_dtype)MDT;
}

template <int BITS>
__host__ __device__ __forceinline__ uint32_t width_of(const row_map &rows, size_t row) {
  return BITS ? (uint32_t)BITS : rows.width(row);
}

/* The metadata dtypes with instances of their own: float32 and the data's own dtype
 * (what layers and the hooks store); others run the ANY_META instance. */
__host__ __device__ __forceinline__ int meta_instance(actq_dtype meta, actq_dtype data) {
  return meta == ACTQ_F32 || meta == data ? (int)meta : ANY_META;
}

/* Dequantize's metadata instance (meta_instance) for an aligned call of one width `bits`:
 * at widths 1, 2, 4 and 8 the instances also load each unit's word with one load of its
 * size (dequantize_lane), so they need packed 8-byte aligned; ANY_META otherwise. */
__host__ __device__ __forceinline__ int dequantize_meta_instance(actq_dtype meta, actq_dtype data,
                                                                 uint32_t bits,
                                                                 const uint8_t *packed) {
  const bool pow2 = bits == 1 || bits == 2 || bits == 4 || bits == 8;
  if (pow2 && (reinterpret_cast<uintptr_t>(packed) & 7) != 0) return ANY_META;
  return meta_instance(meta, data);
}

/* The widths whose quantize has instances of their own (with a constant metadata dtype,
 * for teams of at most a warp and aligned calls): ActNN's and GACT's usual 2, 4 and 8,
 * when packed is 8-byte aligned. Then every unit's word (bits bytes at a multiple of bits
 * from packed: rows of whole units) is aligned for one store of its size. 0: the
 * run-time width. */
__host__ __device__ __forceinline__ uint32_t quantize_width_instance(const row_map &rows,
                                                                     const uint8_t *packed) {
  return !rows.widths && (rows.bits == 2 || rows.bits == 4 || rows.bits == 8) &&
                 (reinterpret_cast<uintptr_t>(packed) & 7) == 0
             ? rows.bits
             : 0u;
}

/* actq_noise_u of the low (hi = 0) or high half of a noise word, in two instructions: the
 * float with bits 0x4700:r16 is 2^15 + r16 * 2^-8 (one byte permutation builds it), and
 * u = that * 2^-8 - (2^7 - 2^-17) exactly (one fma; 2^7 - 2^-17 is a float and the exact
 * result r16 * 2^-16 + 2^-17 is one too). */
__host__ __device__ __forceinline__ float noise_u_half(uint32_t w, int hi) {
#if defined(__CUDA_ARCH__)
  const uint32_t b = __byte_perm(w, 0x47000000u, hi ? 0x7632u : 0x7610u);
#else
  const uint32_t b = 0x47000000u | (hi ? w >> 16 : w & 0xffffu);
#endif
  return actq_fmaf(actq_f32_from_bits(b), 0x1p-8f, -0x1.fffffep6f);
}

/* The noise values u of elements e .. e+7 (k of them used). FAST: e is a multiple of 8, so
 * they are exactly Philox block e/8 (`block`, which the caller may compute more cheaply
 * than the shift of a 64-bit sum); otherwise the unit straddles two blocks. */
template <bool FAST>
__host__ __device__ __forceinline__ void unit_noise(const quant_args &a, size_t e, uint64_t block,
                                                    int k, float u[8]) {
  if (FAST) {
    uint32_t w[4];
    actq_noise_words_r0(a.rk, a.r0, block, w);
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) u[j] = noise_u_half(w[j / 2], j % 2);
  } else {
    uint16_t lo[8], hi[8];
    const int first = (int)(e & 7);
    actq_noise_block_rk(a.rk, a.offset, e >> 3, lo);
    if (first + k > 8) actq_noise_block_rk(a.rk, a.offset, (e >> 3) + 1, hi);
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) u[j] = actq_noise_u(first + j < 8 ? lo[(first + j) & 7] : hi[(first + j) & 7]);
  }
}

/* Codes by the reference's own formula (the true division): groups outside the
 * reciprocal's proven domain (wide, extreme scales, nonfinite) and units with an element
 * outside it. Out of line: the hot loop stays the reciprocal path. */
template <bool STOCH>
__host__ __device__ __noinline__ uint64_t unit_word_by_division(actq_group_meta g, uint32_t bits,
                                                                float4 v0, float4 v1, float4 u0,
                                                                float4 u1, int k) {
  const float v[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
  const float u[8] = {u0.x, u0.y, u0.z, u0.w, u1.x, u1.y, u1.z, u1.w};
  uint32_t codes[8];
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) {
    codes[j] = j >= k || g.nonfinite ? 0u
               : STOCH ? actq_code_stochastic_t(actq_quant_t(v[j], &g), u[j], g.levels)
                       : actq_code_nearest_t(actq_quant_t(v[j], &g), g.levels);
  }
  return actq_pack_word(codes, 8, bits);
}

/* Codes of one unit (elements e .. e+k-1, values v) into its packed word at out. In a
 * group with rcp_ok (c = 1, so x*c - m*c is x - m) the quotient is actq_quot_rcp's, which
 * equals the division's inside the proven domain. CHECKED: the group may lie outside it
 * (actq_quot_rcp_group_ok false), so each element is checked and a unit with an element
 * outside takes the division; without CHECKED the caller has proven the whole group
 * inside. Codes past k are 0, so the word equals the reference's k-code word.
 * WORD_ALIGNED: the width is 2, 4 or 8 (quantize_width_instance) and the word is stored
 * with one aligned store; such words are also packed from the biased codes
 * (actq_pack_word_biased). */
template <bool FAST, bool STOCH, bool CHECKED, bool WORD_ALIGNED = false>
__host__ __device__ __forceinline__ uint64_t quantize_unit_word(const quant_args &a,
                                                                const actq_group_meta &g,
                                                                uint32_t bits, size_t e,
                                                                uint64_t block, int k,
                                                                const float v[8]) {
  float u[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (STOCH) unit_noise<FAST>(a, e, block, k, u);
  float num[8], t[8];
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) {
    num[j] = v[j] - g.mc;
    t[j] = actq_quot_rcp(num[j], g.sc, g.rcp);
  }
  bool in_domain = true;
  if (CHECKED) {
    in_domain = g.rcp_ok; /* groups with |m| < 2^-40: each element's num */
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) in_domain = in_domain && (j >= k || actq_quot_rcp_lane_ok(num[j]));
  }
  uint64_t word;
  if (WORD_ALIGNED && in_domain) { /* widths 2, 4, 8: packed from the biased codes */
    const uint32_t levels_biased = actq_f32_bits(g.levels + 8388608.0f); /* per group */
    uint32_t biased[8];
ACTQ_UNROLL
    for (int j = 0; j < 8; j++)
      biased[j] = j >= k ? ACTQ_CODE_BIAS
                  : STOCH ? actq_code_stochastic_biased(t[j], u[j], levels_biased)
                          : actq_code_nearest_biased(t[j], levels_biased);
    word = actq_pack_word_biased(biased, bits);
  } else if (in_domain) {
    uint32_t codes[8];
ACTQ_UNROLL
    for (int j = 0; j < 8; j++)
      codes[j] = j >= k ? 0u
                 : STOCH ? actq_code_stochastic_t(t[j], u[j], g.levels)
                         : actq_code_nearest_t(t[j], g.levels);
    word = actq_pack_word(codes, 8, bits);
  } else {
    word = unit_word_by_division<STOCH>(
        g, bits, make_float4(v[0], v[1], v[2], v[3]), make_float4(v[4], v[5], v[6], v[7]),
        make_float4(u[0], u[1], u[2], u[3]), make_float4(u[4], u[5], u[6], u[7]), k);
  }
  return word;
}

/* The unit's word (quantize_unit_word), stored at out. */
template <bool WORD_ALIGNED>
__host__ __device__ __forceinline__ void store_unit_word(uint8_t *out, uint64_t word,
                                                         uint32_t bits, int k) {
  if (WORD_ALIGNED) actq_cuda_io::store_word_aligned(out, word, bits);
  else actq_cuda_io::store_word(out, word, ((uint32_t)k * bits + 7) / 8);
}

template <bool FAST, bool STOCH, bool CHECKED, bool WORD_ALIGNED = false>
__host__ __device__ __forceinline__ void quantize_unit(const quant_args &a,
                                                       const actq_group_meta &g, uint32_t bits,
                                                       size_t e, uint64_t block, int k,
                                                       const float v[8], uint8_t *out) {
  store_unit_word<WORD_ALIGNED>(
      out, quantize_unit_word<FAST, STOCH, CHECKED, WORD_ALIGNED>(a, g, bits, e, block, k, v),
      bits, k);
}

/* Unit u of a located group: packed word in, k values out. FINITE: m and s are finite,
 * so no value is NaN and the NaN rule and its per-element test are not needed. */
template <actq_dtype DT, bool FAST, bool FINITE, bool WORD_ALIGNED = false>
__host__ __device__ __forceinline__ void dequantize_unit(const dequant_args &a,
                                                         const actq_cuda_team::group_pos &p,
                                                         uint32_t bits, const uint8_t *in,
                                                         float m, float s, size_t u) {
  const int k = actq_cuda_team::unit_len<FAST>(p, u);
  const uint64_t word = WORD_ALIGNED
                            ? actq_cuda_io::load_word_aligned(in + u * bits, bits)
                            : actq_cuda_io::load_word(in + u * bits, ((uint32_t)k * bits + 7) / 8);
  float v[8];
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) {
    const uint32_t q = actq_unpack_code(word, j, bits);
    v[j] = FINITE ? actq_dequant_finite(q, m, s) : actq_dequant(q, m, s);
  }
  if (FINITE) actq_cuda_io::store_unit_nonan<DT, FAST>(a.y, p.e0 + 8 * u, k, v);
  else actq_cuda_io::store_unit<DT, FAST>(a.y, p.e0 + 8 * u, k, v);
}

/* Half h of a located group's units (elements 4h .. 4h+3, of unit h / 2) of a float32 y
 * with whole units (FAST) and finite m and s: the unit's word in, one 16-byte store out.
 * A team's lanes take halves h = lane, lane + team, ..., so that each store instruction of
 * the team is contiguous; with whole units a lane per unit, a float32 unit's two 16-byte
 * stores were 32 bytes apart across the team, each half-filling its sectors. The two
 * lanes of a unit both load its word (one sector). */
template <bool WORD_ALIGNED>
__host__ __device__ __forceinline__ void dequantize_half_f32(const dequant_args &a,
                                                             const actq_cuda_team::group_pos &p,
                                                             uint32_t bits, const uint8_t *in,
                                                             float m, float s, size_t h) {
  const size_t u = h / 2;
  const uint64_t word = WORD_ALIGNED ? actq_cuda_io::load_word_aligned(in + u * bits, bits)
                                     : actq_cuda_io::load_word(in + u * bits, bits);
  const uint64_t half = word >> ((h & 1) * 4 * bits);
  float v[4];
ACTQ_UNROLL
  for (int j = 0; j < 4; j++) v[j] = actq_dequant_finite(actq_unpack_code(half, j, bits), m, s);
  *reinterpret_cast<uint4 *>(static_cast<float *>(a.y) + p.e0 + 4 * h) =
      make_uint4(actq_f32_bits(v[0]), actq_f32_bits(v[1]), actq_f32_bits(v[2]), actq_f32_bits(v[3]));
}

/* ---- a lane's share of one group, in the order of quantize_kernel ------------------ */

/* A lane's cached units, kept from the scan to the codes: floats, or for bfloat16 the
 * elements' own words, two a word (half the registers: 32 for 64 elements; a
 * bfloat16's float is one instruction away, the same instruction as when converted at
 * the load). */
template <actq_dtype DT, int CACHE>
struct unit_cache {
  float v[CACHE][8];
  __host__ __device__ __forceinline__ void get(int i, float x[8]) const {
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) x[j] = v[i][j];
  }
};

template <int CACHE>
struct unit_cache<ACTQ_BF16, CACHE> {
  uint32_t w[CACHE][4];
  /* x: bfloat16 values (or 0 past a partial unit's end), so the words are exact */
  __host__ __device__ __forceinline__ void set(int i, const float x[8]) {
ACTQ_UNROLL
    for (int j = 0; j < 4; j++)
      w[i][j] = actq_f32_bits(x[2 * j]) >> 16 | (actq_f32_bits(x[2 * j + 1]) & 0xffff0000u);
  }
  __host__ __device__ __forceinline__ void get(int i, float x[8]) const {
    actq_cuda_io::unit_from_words16<ACTQ_BF16>(w[i], x);
  }
};

/* The unit a lane caches in slot i: lane + i * TEAM, or past the group's end its last
 * unit again (units >= 1). A duplicate changes neither min nor max and its codes are not
 * stored, so the cached loops run without a branch a unit: one block of straight-line
 * code, in which the compiler also shares the Philox round keys between units. */
template <int TEAM>
__host__ __device__ __forceinline__ uint32_t cached_unit(size_t lane, int i, uint32_t units) {
  const uint32_t u = (uint32_t)lane + (uint32_t)i * TEAM;
  return u < units ? u : units - 1;
}

/* Step 1: loads the lane's units (lane, lane + TEAM, ...), keeps the first CACHE of them
 * in c, and returns the lane's minmax. */
template <actq_dtype DT, int TEAM, int CACHE, bool FAST>
__host__ __device__ __forceinline__ actq_cuda_team::minmax quantize_lane_scan(
    const quant_args &a, const actq_cuda_team::group_pos &p, size_t lane,
    unit_cache<DT, CACHE> &c) {
  actq_cuda_team::minmax m = actq_cuda_team::minmax_identity();
  const uint32_t units = (uint32_t)p.units; /* at most 8192; 0 for teams past the end */
  if (units == 0) return m;
  if constexpr (DT == ACTQ_BF16 && FAST) { /* whole aligned units: minmax of the raw pairs */
    actq_cuda_team::minmax_bf16x2 m2;
ACTQ_UNROLL
    for (int i = 0; i < CACHE; i++)
      actq_cuda_io::load_words16(a.x, p.e0 + 8 * (size_t)cached_unit<TEAM>(lane, i, units), c.w[i]);
ACTQ_UNROLL
    for (int i = 0; i < CACHE; i++) {
ACTQ_UNROLL
      for (int j = 0; j < 4; j++) m2.add(c.w[i][j]);
    }
    m = m2.to_minmax();
  } else if constexpr (DT == ACTQ_BF16) { /* partial or unaligned units: as floats */
ACTQ_UNROLL
    for (int i = 0; i < CACHE; i++) {
      const uint32_t u = cached_unit<TEAM>(lane, i, units);
      const int k = actq_cuda_team::unit_len<FAST>(p, u);
      float v[8];
      actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * (size_t)u, k, v);
      actq_cuda_team::minmax_add(m, v, k);
      c.set(i, v);
    }
  } else {
    /* All cached loads first, then the reductions: CACHE independent loads in flight. */
ACTQ_UNROLL
    for (int i = 0; i < CACHE; i++) {
      const uint32_t u = cached_unit<TEAM>(lane, i, units);
      actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * (size_t)u, actq_cuda_team::unit_len<FAST>(p, u), c.v[i]);
    }
ACTQ_UNROLL
    for (int i = 0; i < CACHE; i++)
      actq_cuda_team::minmax_add(m, c.v[i], actq_cuda_team::unit_len<FAST>(p, cached_unit<TEAM>(lane, i, units)));
  }
  if (TEAM == ACTQ_CUDA_BLOCK)
  for (size_t u = lane + (size_t)CACHE * TEAM; u < p.units; u += TEAM) {
    float w[8];
    const int k = actq_cuda_team::unit_len(p, u);
    actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * u, k, w);
    actq_cuda_team::minmax_add(m, w, k);
  }
  return m;
}

/* Step 2, with the team's minmax: the metadata (stored by one lane); returns the width. */
template <int MDT = ANY_META, int BITS = 0>
__host__ __device__ __forceinline__ uint32_t quantize_group_meta(
    const quant_args &a, const actq_cuda_team::group_pos &p, const actq_cuda_team::minmax &m,
    bool store, actq_group_meta *g) {
  const uint32_t bits = width_of<BITS>(a.rows, p.row);
  const actq_dtype md = meta_of<MDT>(a.meta_dtype);
  actq_group_meta_compute(m.mn, m.mx, actq_cuda_team::minmax_finite(m), bits, md, g);
  if (store) {
    actq_store_elem(a.group_min, md, p.index, g->m);
    actq_store_elem(a.group_scale, md, p.index, g->s);
  }
  return bits;
}

/* Step 3: the lane's units into codes and packed words (cached ones from c). WORD_ALIGNED:
 * whole units whose words are aligned to their size (quantize_width_instance). Groups that
 * actq_quot_rcp_group_ok proves inside the reciprocal's domain (every finite group whose
 * |m| >= 2^-40, nearly all) take the unchecked units; the others (nonfinite groups, wide
 * or extreme scales, |m| < 2^-40) a loop of their own that reloads each unit (from L1/L2)
 * and checks it, so that the hot path carries no per-element checks and no division. */
template <actq_dtype DT, int TEAM, int CACHE, bool FAST, bool STOCH, bool WORD_ALIGNED = false>
__host__ __device__ __forceinline__ void quantize_lane_codes(
    const quant_args &a, const actq_cuda_team::group_pos &p, size_t lane,
    const actq_group_meta &g, uint32_t bits, const unit_cache<DT, CACHE> &c) {
  uint8_t *out = a.packed + a.rows.offset(p.row) + (p.c0 / 8) * bits;
  if (!actq_quot_rcp_group_ok(&g)) {
ACTQ_NO_UNROLL
    for (size_t u = lane; u < p.units; u += TEAM) {
      float w[8];
      const int k = actq_cuda_team::unit_len<FAST>(p, u);
      actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * u, k, w);
      quantize_unit<FAST, STOCH, true>(a, g, bits, p.e0 + 8 * u, (p.e0 + 8 * u) >> 3, k, w,
                                       out + u * bits);
    }
    return;
  }
  /* 32-bit unit indices (a group has at most 8192 units) and the Philox block of a FAST
   * unit as the group's first block plus u: one compare and two adds a unit fewer than
   * with 64-bit element indices. Every slot's word is computed (cached_unit), only the
   * lane's own units' stored. */
  const uint32_t units = (uint32_t)p.units;
  const uint64_t block0 = p.e0 >> 3;
ACTQ_UNROLL
  for (int i = 0; i < CACHE; i++) {
    const uint32_t u = cached_unit<TEAM>(lane, i, units);
    const int k = actq_cuda_team::unit_len<FAST>(p, u);
    float v[8];
    c.get(i, v);
    const uint64_t word = quantize_unit_word<FAST, STOCH, false, WORD_ALIGNED>(
        a, g, bits, p.e0 + 8 * (size_t)u, block0 + u, k, v);
    if ((uint32_t)lane + (uint32_t)i * TEAM < units)
      store_unit_word<WORD_ALIGNED>(out + (size_t)u * bits, word, bits, k);
  }
  /* Only block-teams have units beyond the cached ones (team_for). */
  if (TEAM == ACTQ_CUDA_BLOCK)
  for (size_t u = lane + (size_t)CACHE * TEAM; u < p.units; u += TEAM) {
    float w[8];
    const int k = actq_cuda_team::unit_len(p, u);
    actq_cuda_io::load_unit<DT, FAST>(a.x, p.e0 + 8 * u, k, w);
    quantize_unit<FAST, STOCH, false>(a, g, bits, p.e0 + 8 * u, (p.e0 + 8 * u) >> 3, k, w,
                                      out + u * bits);
  }
}

/* Dequantize: the lane's units of one located group, for a team of `team` lanes (a run-time
 * value: dequantize has no reduction, so the team size is only an index mapping). BITS:
 * the width when every row has it (shifts and masks become constants), 0 for per-row
 * widths. */
template <actq_dtype DT, int BITS, bool FAST, int MDT = ANY_META>
__host__ __device__ __forceinline__ void dequantize_lane(const dequant_args &a,
                                                         const actq_cuda_team::group_pos &p,
                                                         size_t lane, size_t team) {
  /* float32 y with whole units goes by halves of units (dequantize_half_f32) when m and s
   * are finite. */
  constexpr bool HALVES = DT == ACTQ_F32 && FAST;
  if (!p.valid || lane >= (HALVES ? 2 * p.units : p.units)) return;
  const uint32_t bits = width_of<BITS>(a.rows, p.row);
  const actq_dtype md = meta_of<MDT>(a.meta_dtype);
  const float m = actq_load_elem(a.group_min, md, p.index);
  const float s = actq_load_elem(a.group_scale, md, p.index);
  const uint8_t *in = a.packed + a.rows.offset(p.row) + (p.c0 / 8) * bits;
  /* The metadata instances of widths 1, 2, 4, 8 have word-aligned units
   * (dequantize_meta_instance). */
  constexpr bool WA = MDT != ANY_META && (BITS == 1 || BITS == 2 || BITS == 4 || BITS == 8);
  const bool finite = actq_f32_is_finite(m) && actq_f32_is_finite(s);
  if (HALVES && finite) {
ACTQ_UNROLL4
    for (size_t h = lane; h < 2 * p.units; h += team) dequantize_half_f32<WA>(a, p, bits, in, m, s, h);
  } else if (finite) {
ACTQ_UNROLL4
    for (size_t u = lane; u < p.units; u += team) dequantize_unit<DT, FAST, true, WA>(a, p, bits, in, m, s, u);
  } else {
    for (size_t u = lane; u < p.units; u += team) dequantize_unit<DT, FAST, false, WA>(a, p, bits, in, m, s, u);
  }
}

} /* namespace actq_cuda_unit */

#endif /* ACTQ_CUDA_UNIT_OPS_CUH */
