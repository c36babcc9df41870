/* quantize_avx2.c - fused group quantization (AVX2 + FMA + F16C).
 *
 * Per group, with the group kept in L1/L2 between the two passes:
 *   pass 1: vector min/max and a nonfinite check (the largest |x| bit pattern);
 *   metadata: actq_group_meta_compute from src/arith/quant.h, scalar, once per group;
 *   pass 2: in chunks of CHUNK elements, Philox noise for the chunk's blocks into a small
 *           buffer, codes t = (x*c - m*c) / (s*c) (vdivps is correctly rounded, so these are
 *           the reference's bits), floor(t + u) or round-to-nearest-even, float clamp to
 *           [0, L], and packing of 32 codes at a time.
 * The noise buffer is indexed from the first block that the chunk touches, so a chunk whose
 * flat index r*cols + c is not a multiple of 8 reads across Philox blocks exactly as the
 * reference's actq_noise_at does. A row's last, partial unit goes through the reference's
 * scalar functions (actq_code_*, actq_pack_unit).
 */
#include <immintrin.h>
#include <string.h>

#include "arith/elem.h"
#include "arith/quant.h"
#include "cpu/avx2/avx2.h"
#include "cpu/prefetch.h"
#include "cpu/avx2/bits_avx2.h"
#include "cpu/avx2/elem_avx2.h"

#define CHUNK 1024 /* elements per noise batch: the buffer stays in L1 */

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

static inline uint32_t hmax8u(__m256i v) {
  __m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0x4e));
  m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0xb1));
  return (uint32_t)_mm_cvtsi128_si32(m);
}

/* Pass 1 over elements [i0, i0 + n) of x. On a group without NaN or Inf, min and max
 * equal the reference's up to the sign of zero, which actq_group_meta_compute ignores;
 * with a NaN or Inf the group is nonfinite and min/max do not matter. */
static inline __attribute__((always_inline)) void group_range(const void *x, int dt, size_t i0,
                                                              size_t n, float *mn, float *mx,
                                                              int *finite) {
  const __m256i absmask = _mm256_set1_epi32(0x7fffffff);
  size_t full = n & ~(size_t)7, j;
  float lo = 0.0f, hi = 0.0f;
  int fin = 1, seen = 0;
  if (full) {
    __m256 v = actq_avx2_load8(x, dt, i0);
    __m256 mn0 = v, mx0 = v, mn1 = v, mx1 = v;
    __m256i big0 = _mm256_and_si256(_mm256_castps_si256(v), absmask), big1 = big0;
    for (j = 8; j + 16 <= full; j += 16) { /* two accumulator sets: min/max latency */
      __m256 a = actq_avx2_load8(x, dt, i0 + j), b = actq_avx2_load8(x, dt, i0 + j + 8);
      mn0 = _mm256_min_ps(mn0, a);
      mx0 = _mm256_max_ps(mx0, a);
      mn1 = _mm256_min_ps(mn1, b);
      mx1 = _mm256_max_ps(mx1, b);
      big0 = _mm256_max_epu32(big0, _mm256_and_si256(_mm256_castps_si256(a), absmask));
      big1 = _mm256_max_epu32(big1, _mm256_and_si256(_mm256_castps_si256(b), absmask));
    }
    for (; j < full; j += 8) {
      __m256 a = actq_avx2_load8(x, dt, i0 + j);
      mn0 = _mm256_min_ps(mn0, a);
      mx0 = _mm256_max_ps(mx0, a);
      big0 = _mm256_max_epu32(big0, _mm256_and_si256(_mm256_castps_si256(a), absmask));
    }
    lo = hmin8(_mm256_min_ps(mn0, mn1));
    hi = hmax8(_mm256_max_ps(mx0, mx1));
    fin = hmax8u(_mm256_max_epu32(big0, big1)) < 0x7f800000u;
    seen = 1;
  }
  for (j = full; j < n; j++) /* the reference's step, for the row's last partial unit */
    actq_minmax_step(actq_load_elem(x, dt, i0 + j), &lo, &hi, &fin, &seen);
  *mn = lo;
  *mx = hi;
  *finite = fin;
}


typedef struct vec_meta {
  __m256 c, mc, sc, levels;
  int wide; /* c != 1 */
} vec_meta;

/* Codes of 8 finite elements, as in actq_code_stochastic / actq_code_nearest. */
static inline __attribute__((always_inline)) __m256i codes8(__m256 x, const vec_meta *vm,
                                                            int stochastic,
                                                            const uint16_t *noise) {
  __m256 num = _mm256_sub_ps(vm->wide ? _mm256_mul_ps(x, vm->c) : x, vm->mc);
  __m256 t = _mm256_div_ps(num, vm->sc);
  __m256 q;
  if (stochastic) {
    /* u = r16 * 2^-16 + 2^-17: both steps exact, so one fma gives the same value */
    __m256 r = _mm256_cvtepi32_ps(
        _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)noise)));
    __m256 u = _mm256_fmadd_ps(r, _mm256_set1_ps(1.0f / 65536.0f),
                               _mm256_set1_ps(1.0f / 131072.0f));
    q = _mm256_floor_ps(_mm256_add_ps(t, u));
  } else {
    q = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  q = _mm256_min_ps(_mm256_max_ps(q, _mm256_setzero_ps()), vm->levels);
  return _mm256_cvttps_epi32(q);
}

/* Pass 2 for elements [c, c + n) of the row (n <= CHUNK; n % 8 != 0 only at the row's
 * end). out: the chunk's first packed byte; gend: one past the last byte of the call's
 * range of groups, up to which stores may overshoot (the following stores, in order,
 * overwrite the overshoot with the right bytes). */
static inline __attribute__((always_inline)) void quantize_chunk(
    const actq_quant_job *job, int dt, int stochastic, size_t base, size_t c, size_t n,
    uint32_t bits, const actq_group_meta *g, const vec_meta *vm, uint8_t *out,
    const uint8_t *gend, actq_noise_fill_fn noise_fill, uint16_t *nbuf) {
  const size_t full = n / 8;
  size_t k = 0, u, j;
  if (stochastic) {
    const uint64_t e0 = (uint64_t)(base + c), b0 = e0 >> 3;
    const uint64_t nb = ((e0 + n - 1) >> 3) - b0 + 1;
    noise_fill(job->seed, job->offset, b0, (size_t)nb, nbuf);
    k = (size_t)(e0 & 7); /* element base + c is nbuf[k] */
  }
  for (u = 0; u + 4 <= full; u += 4) {
    const size_t i = base + c + 8 * u;
    __m256i q0 = codes8(actq_avx2_load8(job->x, dt, i), vm, stochastic, nbuf + k + 8 * u);
    __m256i q1 = codes8(actq_avx2_load8(job->x, dt, i + 8), vm, stochastic, nbuf + k + 8 * u + 8);
    __m256i q2 = codes8(actq_avx2_load8(job->x, dt, i + 16), vm, stochastic, nbuf + k + 8 * u + 16);
    __m256i q3 = codes8(actq_avx2_load8(job->x, dt, i + 24), vm, stochastic, nbuf + k + 8 * u + 24);
    __m256i p = actq_avx2_pack32(actq_avx2_codes_to_bytes(q0, q1, q2, q3), bits);
    actq_avx2_store_pack32(out, p, bits, 4 * bits, (size_t)(gend - out));
    out += 4 * bits;
  }
  if (u < full) { /* 1 to 3 whole units left */
    __m256i q[4];
    const size_t left = full - u;
    for (j = 0; j < 4; j++)
      q[j] = j < left ? codes8(actq_avx2_load8(job->x, dt, base + c + 8 * (u + j)), vm, stochastic,
                               nbuf + k + 8 * (u + j))
                      : _mm256_setzero_si256();
    actq_avx2_store_pack32(out, actq_avx2_pack32(actq_avx2_codes_to_bytes(q[0], q[1], q[2], q[3]), bits),
                           bits, left * bits, (size_t)(gend - out));
    out += left * bits;
  }
  if (n % 8) { /* the row's last, partial unit: the reference's scalar code */
    uint32_t codes[8];
    const size_t c8 = c + 8 * full;
    for (j = 0; j < n % 8; j++) {
      float v = actq_load_elem(job->x, dt, base + c8 + j);
      codes[j] = stochastic ? actq_code_stochastic(v, g, nbuf[k + 8 * full + j])
                            : actq_code_nearest(v, g);
    }
    actq_pack_unit(codes, n % 8, bits, out);
  }
}

static inline __attribute__((always_inline)) size_t quantize_groups_t(
    const actq_quant_job *job, size_t r, size_t g0, size_t g1, uint8_t *row_packed, int dt,
    int stochastic, actq_noise_fill_fn noise_fill) {
  const actq_grid *gr = &job->grid;
  const uint32_t bits = actq_grid_row_bits(gr, r);
  const size_t base = r * gr->cols;
  uint16_t nbuf[CHUNK + 128] __attribute__((aligned(64)));
  /* one past the range's last packed byte: stores never go beyond it, so threads working
   * on neighbouring ranges never touch each other's bytes */
  uint8_t *range_end = row_packed + actq_stream_bytes(actq_grid_group_end(gr, g1 - 1), bits);
  size_t nonfinite = 0, gi, c;

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    const size_t meta_index = r * gr->groups_per_row + gi;
    uint8_t *gout = row_packed + (c0 / 8) * bits;
    uint8_t *gend = gout + actq_stream_bytes(c1 - c0, bits); /* c0 % 8 == 0 */
    float mn, mx;
    int finite;
    actq_group_meta g;
    vec_meta vm;

    actq_prefetch_group(job->x, dt == ACTQ_F32 ? 4 : 2, base + c0, c1 - c0, base + gr->cols);
    group_range(job->x, dt, base + c0, c1 - c0, &mn, &mx, &finite);
    actq_group_meta_compute(mn, mx, finite, bits, (int)gr->meta_dtype, &g);
    actq_store_elem(job->group_min, (int)gr->meta_dtype, meta_index, g.m);
    actq_store_elem(job->group_scale, (int)gr->meta_dtype, meta_index, g.s);
    if (g.nonfinite) { /* codes 0 */
      nonfinite++;
      memset(gout, 0, (size_t)(gend - gout));
      continue;
    }
    vm.c = _mm256_set1_ps(g.c);
    vm.mc = _mm256_set1_ps(g.mc);
    vm.sc = _mm256_set1_ps(g.sc);
    vm.levels = _mm256_set1_ps(g.levels);
    vm.wide = g.c != 1.0f; /* x * 1 == x exactly: the multiply can be skipped */
    for (c = c0; c < c1; c += CHUNK) {
      const size_t n = c1 - c < CHUNK ? c1 - c : CHUNK;
      quantize_chunk(job, dt, stochastic, base, c, n, bits, &g, &vm,
                     gout + ((c - c0) / 8) * bits, range_end, noise_fill, nbuf);
    }
  }
  return nonfinite;
}

size_t actq_avx2_quantize_groups_with(const actq_quant_job *job, size_t r, size_t g0,
                                      size_t g1, uint8_t *row_packed,
                                      actq_noise_fill_fn noise_fill) {
  const int st = job->rounding == ACTQ_ROUND_STOCHASTIC;
  switch (job->x_dtype) {
  case ACTQ_F16:
    return st ? quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F16, 1, noise_fill)
              : quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F16, 0, noise_fill);
  case ACTQ_BF16:
    return st ? quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_BF16, 1, noise_fill)
              : quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_BF16, 0, noise_fill);
  default:
    return st ? quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F32, 1, noise_fill)
              : quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F32, 0, noise_fill);
  }
}

size_t actq_avx2_quantize_groups(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                 uint8_t *row_packed) {
  return actq_avx2_quantize_groups_with(job, r, g0, g1, row_packed, actq_avx2_noise_fill);
}
