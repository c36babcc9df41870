/* quantize_avx2.c - the passes of the shared group loop (cpu/quantize_groups.h), 8 lanes
 * wide (AVX2 + FMA + F16C).
 *   pass 1: vector min/max and a nonfinite check (the largest |x| bit pattern);
 *   noise:  Philox4x32-10 for 8 blocks at a time (noise_avx2.c);
 *   pass 2: t = (x*c - m*c) / (s*c) from the group's reciprocal and two fma corrections
 *           where proven exact (actq_quot_rcp), by vdivps (correctly rounded) elsewhere;
 *           floor(t + u) or round-to-nearest-even, clamped to [0, L]; 32 codes packed at a
 *           time.
 */
#include <immintrin.h>

#include "cpu/avx2/avx2.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"
#include "cpu/avx2/meta_avx2.h"
#include "cpu/prefetch.h"
#include "cpu/quantize_groups.h"
#include "cpu/quantize_step.h"

static inline float hmin8(__m256 v) {
  __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_min_ps(m, _mm_movehl_ps(m, m));
  m = _mm_min_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

static inline float hmax8(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

/* Order keys (actq_h16_key) of 16 16-bit floats. */
static inline __m256i h16_keys(__m256i v) {
  return _mm256_xor_si256(v, _mm256_and_si256(_mm256_srai_epi16(v, 15), _mm256_set1_epi16(0x7fff)));
}

/* 16 elements from x, or 8 (`half`) twice. */
static inline __m256i load16_h16(const uint16_t *x, int half) {
  __m128i h;
  if (!half) return _mm256_loadu_si256((const __m256i *)x);
  h = _mm_loadu_si128((const __m128i *)x);
  return _mm256_setr_m128i(h, h);
}

/* The smallest of 16 signed 16-bit lanes (the unsigned order of k ^ 0x8000 is the signed
 * order of k). */
static inline int16_t hmin16_epi16(__m256i v) {
  __m128i q = _mm_min_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  q = _mm_minpos_epu16(_mm_xor_si128(q, _mm_set1_epi16((short)0x8000)));
  return (int16_t)(_mm_extract_epi16(q, 0) ^ 0x8000);
}

/* Pass 1 of a 16-bit dtype (bf16, f16) on order keys, 16 lanes at a time: no conversion
 * to f32 and no NaN compare, since the min and max keys tell a NaN or an Inf
 * (actq_h16_keys_finite). n: a positive multiple of 8. */
ACTQ_INLINE void range16_avx2(const uint16_t *x, actq_dtype dt, size_t i0, size_t n, float *mn,
                              float *mx, int *finite) {
  const __m256i k = h16_keys(load16_h16(x + i0, n < 16));
  __m256i lo0 = k, hi0 = k, lo1 = k, hi1 = k;
  int16_t kmin, kmax;
  size_t j;
  for (j = 16; j + 32 <= n; j += 32) { /* two accumulator sets: min/max latency */
    const __m256i a = h16_keys(load16_h16(x + i0 + j, 0));
    const __m256i b = h16_keys(load16_h16(x + i0 + j + 16, 0));
    lo0 = _mm256_min_epi16(lo0, a);
    hi0 = _mm256_max_epi16(hi0, a);
    lo1 = _mm256_min_epi16(lo1, b);
    hi1 = _mm256_max_epi16(hi1, b);
  }
  for (; j < n; j += 16) {
    const __m256i a = h16_keys(load16_h16(x + i0 + j, n - j < 16));
    lo0 = _mm256_min_epi16(lo0, a);
    hi0 = _mm256_max_epi16(hi0, a);
  }
  kmin = hmin16_epi16(_mm256_min_epi16(lo0, lo1));
  /* max(k) = ~min(~k) */
  kmax = (int16_t)~hmin16_epi16(_mm256_xor_si256(_mm256_max_epi16(hi0, hi1),
                                                 _mm256_set1_epi32(-1)));
  actq_h16_keys_range(kmin, kmax, dt, mn, mx, finite);
}

/* Pass 1 over the n (a positive multiple of 8) elements from i0. On a group without NaN
 * or Inf, min and max equal the reference's up to the sign of zero, which
 * actq_group_meta_compute ignores; with a NaN or Inf the group is nonfinite and min/max do
 * not matter. The nonfinite check: the lanes where a NaN was seen (one unordered compare
 * covers two vectors), and, without NaN, an Inf is the min or the max itself. */
ACTQ_INLINE void range_avx2(const void *x, actq_dtype dt, size_t i0, size_t n, float *mn, float *mx,
                            int *finite) {
  __m256 v, mn0, mx0, mn1, mx1, nan;
  size_t j;
  if (dt != ACTQ_F32) {
    range16_avx2((const uint16_t *)x, dt, i0, n, mn, mx, finite);
    return;
  }
  v = actq_avx2_load8(x, dt, i0);
  mn0 = mx0 = mn1 = mx1 = v;
  nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  for (j = 8; j + 16 <= n; j += 16) { /* two accumulator sets: min/max latency */
    __m256 a = actq_avx2_load8(x, dt, i0 + j), b = actq_avx2_load8(x, dt, i0 + j + 8);
    mn0 = _mm256_min_ps(mn0, a);
    mx0 = _mm256_max_ps(mx0, a);
    mn1 = _mm256_min_ps(mn1, b);
    mx1 = _mm256_max_ps(mx1, b);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
  }
  for (; j < n; j += 8) {
    __m256 a = actq_avx2_load8(x, dt, i0 + j);
    mn0 = _mm256_min_ps(mn0, a);
    mx0 = _mm256_max_ps(mx0, a);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  }
  *mn = hmin8(_mm256_min_ps(mn0, mn1));
  *mx = hmax8(_mm256_max_ps(mx0, mx1));
  *finite = (_mm256_movemask_ps(nan) == 0) & actq_f32_is_finite(*mn) & actq_f32_is_finite(*mx);
}

typedef struct vec_meta {
  __m256 c, mc, sc, rcp, num_min;
} vec_meta;

/* t for 8 elements (rcp: ACTQ_QUOT_*): the true division where a lane is outside
 * actq_quot_rcp's domain (0 < num < 2^-64, rare: vptest of that mask against num's bits is
 * one instruction). */
ACTQ_INLINE __m256 quot8(__m256 num, const vec_meta *vm, int rcp) {
  __m256 q, r;
  if (rcp == ACTQ_QUOT_DIVIDE) return _mm256_div_ps(num, vm->sc);
  q = _mm256_mul_ps(num, vm->rcp);
  r = _mm256_fnmadd_ps(q, vm->sc, num);
  if (rcp == ACTQ_QUOT_RCP_CHECK &&
      !_mm256_testz_si256(_mm256_castps_si256(_mm256_cmp_ps(num, vm->num_min, _CMP_LT_OQ)),
                          _mm256_castps_si256(num)))
    return _mm256_div_ps(num, vm->sc);
  return _mm256_fmadd_ps(r, vm->rcp, q);
}

/* Codes of 8 finite elements, as actq_code_stochastic / actq_code_nearest before the clamp
 * to L (codes_bytes applies it): x >= m makes t >= 0 (every step is monotone), so
 * floor(t + u) is the truncating conversion (t + u > 0) and rint(t) the conversion in the
 * default rounding mode, neither below 0. */
ACTQ_INLINE __m256i codes8(__m256 x, const vec_meta *vm, int wide, int rcp, int stochastic,
                           const uint16_t *noise) {
  __m256 t = quot8(_mm256_sub_ps(wide ? _mm256_mul_ps(x, vm->c) : x, vm->mc), vm, rcp);
  __m256i q;
  if (stochastic) {
    /* u = r16 * 2^-16 + 2^-17: both steps exact, so one fma gives the same value */
    __m256 r = _mm256_cvtepi32_ps(
        _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)noise)));
    __m256 u = _mm256_fmadd_ps(r, _mm256_set1_ps(1.0f / 65536.0f),
                               _mm256_set1_ps(1.0f / 131072.0f));
    q = _mm256_cvttps_epi32(_mm256_add_ps(t, u));
  } else {
    q = _mm256_cvtps_epi32(t);
  }
  return q;
}

/* 32 codes (codes8) as bytes in element order, clamped to L: a code is at most L + 1, and
 * only a stochastic one at 7 and 8 bits (see actq_code_clamp); the packs' unsigned
 * saturation holds 256 at 255, and one byte min holds 128 at 127. */
ACTQ_INLINE __m256i codes_bytes(__m256i q0, __m256i q1, __m256i q2, __m256i q3, int stochastic,
                                uint32_t bits) {
  const __m256i v = actq_avx2_codes_to_bytes(q0, q1, q2, q3);
  return stochastic && bits == 7 ? _mm256_min_epu8(v, _mm256_set1_epi8(127)) : v;
}

/* l2 (a constant): the input also asked for ahead_l2 bytes ahead into L2 */
ACTQ_INLINE void units_t(const void *x, actq_dtype dt, int stochastic, int wide, int rcp, size_t i,
                         size_t units, const vec_meta *vm, const uint16_t *noise, uint32_t bits,
                         uint8_t *out, const uint8_t *end, size_t x_end, size_t ahead, int l2,
                         size_t ahead_l2) {
  const size_t es = actq_dtype_size(dt);
  size_t u, j;
  for (u = 0; u + 4 <= units; u += 4) {
    const size_t e = i + 8 * u;
    const uint16_t *nz = noise + 8 * u;
    __m256i q0;
    actq_prefetch_ahead(x, e * es, 32 * es, x_end * es, ahead);
    if (l2) actq_prefetch_ahead_l2(x, e * es, 32 * es, x_end * es, ahead_l2);
    q0 = codes8(actq_avx2_load8(x, dt, e), vm, wide, rcp, stochastic, nz);
    __m256i q1 = codes8(actq_avx2_load8(x, dt, e + 8), vm, wide, rcp, stochastic, nz + 8);
    __m256i q2 = codes8(actq_avx2_load8(x, dt, e + 16), vm, wide, rcp, stochastic, nz + 16);
    __m256i q3 = codes8(actq_avx2_load8(x, dt, e + 24), vm, wide, rcp, stochastic, nz + 24);
    __m256i p = actq_avx2_pack32(codes_bytes(q0, q1, q2, q3, stochastic, bits), bits);
    actq_avx2_store_pack32(out, p, bits, 4 * bits, (size_t)(end - out));
    out += 4 * bits;
  }
  if (u < units) { /* 1 to 3 whole units left */
    __m256i q[4];
    const size_t left = units - u;
    for (j = 0; j < 4; j++)
      q[j] = j < left ? codes8(actq_avx2_load8(x, dt, i + 8 * (u + j)), vm, wide, rcp,
                               stochastic, noise + 8 * (u + j))
                      : _mm256_setzero_si256();
    actq_avx2_store_pack32(out, actq_avx2_pack32(codes_bytes(q[0], q[1], q[2], q[3], stochastic, bits), bits),
                           bits, left * bits, (size_t)(end - out));
  }
}

/* four loops: wide groups (x * c) never take the reciprocal */
ACTQ_INLINE void units_quot(const void *x, actq_dtype dt, int stochastic, size_t i, size_t units,
                            const actq_group_meta *g, const vec_meta *vm, const uint16_t *noise,
                            uint32_t bits, uint8_t *out, const uint8_t *end, size_t x_end,
                            size_t ahead, int l2, size_t ahead_l2) {
#define ACTQ_UNITS_T(wide, rcp)                                                                 \
  units_t(x, dt, stochastic, wide, rcp, i, units, vm, noise, bits, out, end, x_end, ahead, l2,  \
          ahead_l2)
  if (g->c != 1.0f) ACTQ_UNITS_T(1, ACTQ_QUOT_DIVIDE);
  else if (actq_quot_rcp_group_ok(g)) ACTQ_UNITS_T(0, ACTQ_QUOT_RCP);
  else if (g->rcp_ok) ACTQ_UNITS_T(0, ACTQ_QUOT_RCP_CHECK);
  else ACTQ_UNITS_T(0, ACTQ_QUOT_DIVIDE);
#undef ACTQ_UNITS_T
}

ACTQ_INLINE void units_avx2(const void *x, actq_dtype dt, int stochastic, size_t i, size_t units,
                            const actq_group_meta *g, const uint16_t *noise, uint32_t bits,
                            uint8_t *out, const uint8_t *end, size_t x_end, size_t ahead,
                            size_t ahead_l2) {
  vec_meta vm;
  vm.c = _mm256_set1_ps(g->c);
  vm.mc = _mm256_set1_ps(g->mc);
  vm.sc = _mm256_set1_ps(g->sc);
  vm.rcp = _mm256_set1_ps(g->rcp);
  vm.num_min = _mm256_set1_ps(ACTQ_QUOT_NUM_MIN);
  /* ahead_l2: f32 from memory only (cpu/quantize_groups.h) */
  ACTQ_BY_L2(ahead_l2, units_quot(x, dt, stochastic, i, units, g, &vm, noise, bits, out, end,
                                  x_end, ahead, l2, ahead_l2));
}

/* Nearest 1-bit codes of whole units from element i against the group's step
 * (cpu/quantize_step.h): f32, x - mc >= num, a unit's 8 compares one byte of codes
 * (vmovmskps); 16-bit, key(x) >= key, 32 a step (the compares' words narrowed to bytes,
 * then vpmovmskb). */
ACTQ_INLINE void units_step_avx2(const void *x, actq_dtype dt, size_t i, size_t units,
                                 const actq_group_meta *g, int32_t key, uint8_t *out,
                                 size_t x_end, size_t ahead, size_t ahead_l2) {
  size_t u, v;
  (void)ahead_l2; /* no second request: unmeasured on the Zen cores this table is tuned for */
  if (dt == ACTQ_F32) {
    const float *xf = (const float *)x + i;
    const __m256 m = _mm256_set1_ps(g->mc), n = _mm256_set1_ps(actq_f32_from_bits((uint32_t)key));
#define ACTQ_STEP_UNIT(u)                                                                       \
  (uint8_t) _mm256_movemask_ps(_mm256_cmp_ps(_mm256_sub_ps(_mm256_loadu_ps(xf + 8 * (u)), m), n, \
                                             _CMP_GE_OQ))
    for (u = 0; u + 8 <= units; u += 8) {
      actq_prefetch_ahead(x, (i + 8 * u) * 4, 256, x_end * 4, ahead);
      for (v = 0; v < 8; v++) out[u + v] = ACTQ_STEP_UNIT(u + v);
    }
    for (; u < units; u++) out[u] = ACTQ_STEP_UNIT(u);
#undef ACTQ_STEP_UNIT
  } else {
    const uint16_t *xh = (const uint16_t *)x;
    const __m256i below = _mm256_set1_epi16((short)(key - 1)); /* key(x) > key - 1 */
    for (u = 0; u + 4 <= units; u += 4) {
      const __m256i a = _mm256_cmpgt_epi16(h16_keys(load16_h16(xh + i + 8 * u, 0)), below);
      const __m256i b = _mm256_cmpgt_epi16(h16_keys(load16_h16(xh + i + 8 * u + 16, 0)), below);
      /* packs works per 128-bit lane: a.lo b.lo a.hi b.hi, put back in element order */
      const uint32_t w = (uint32_t)_mm256_movemask_epi8(
          _mm256_permute4x64_epi64(_mm256_packs_epi16(a, b), 0xd8));
      actq_prefetch_ahead(x, (i + 8 * u) * 2, 64, x_end * 2, ahead);
      memcpy(out + u, &w, 4);
    }
    for (; u < units; u++) {
      const __m128i a = _mm256_castsi256_si128(
          _mm256_cmpgt_epi16(h16_keys(load16_h16(xh + i + 8 * u, 1)), below));
      out[u] = (uint8_t)_mm_movemask_epi8(_mm_packs_epi16(a, a));
    }
  }
}

ACTQ_INLINE void noise_avx2(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                            uint16_t *out) {
  actq_avx2_noise_fill(seed, offset, block0, nblocks, out);
}

static const actq_quantize_hooks hooks_avx2 = {range_avx2, noise_avx2, units_avx2,
                                               actq_meta_groups_avx2, NULL, 0,
                                               ACTQ_PREFETCH_L2_BEYOND, actq_quantize_step,
                                               units_step_avx2, 0};

ACTQ_QUANTIZE_DISPATCH(actq_avx2_quantize_groups, hooks_avx2)
