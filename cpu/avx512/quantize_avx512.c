/* quantize_avx512.c - the passes of the shared group loop (cpu/quantize_groups.h), 16 lanes
 * wide: the formulas of cpu/avx2/quantize_avx2.c; what changes is the width: with the
 * 16-lane Philox generator running on the two 512-bit ports, the AVX2 pass 2 needed twice
 * the micro-ops per element on the same ports. Codes are packed 64 at a time and stored
 * exactly with a byte-masked store (AVX-512 VBMI).
 */
#include <immintrin.h>

#include "cpu/avx512/avx512.h"
#include "cpu/avx2/meta_avx2.h"
#include "cpu/avx512/bits_tables_avx512.h"
#include "cpu/prefetch.h"
#include "cpu/quantize_groups.h"

#define INLINE ACTQ_INLINE

/* 16 elements from index i of x (dtype dt), as float32; `mask` selects the lanes read
 * (the others are `fill`). */
INLINE __m512 load16(const void *x, actq_dtype dt, size_t i, __mmask16 mask, __m512 fill) {
  __m256i h;
  if (dt == ACTQ_F32) return _mm512_mask_loadu_ps(fill, mask, (const float *)x + i);
  h = _mm256_maskz_loadu_epi16(mask, (const uint16_t *)x + i);
  if (dt == ACTQ_F16) return _mm512_mask_mov_ps(fill, mask, _mm512_cvtph_ps(h));
  return _mm512_mask_mov_ps(fill, mask,
                            _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
}

/* Pass 1 (see range_avx2 in quantize_avx2.c), n a positive multiple of 8. Lanes past the
 * whole units repeat the first vector, so they change neither min, max nor the nonfinite
 * check. The check is a mask of NaN lanes (one unordered compare covers two vectors); an
 * Inf, if no NaN, is the min or the max itself. */
INLINE void range_avx512(const void *x, actq_dtype dt, size_t i0, size_t n, float *mn, float *mx,
                         int *finite) {
  const __mmask16 m0 = n >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff;
  __m512 v = load16(x, dt, i0, m0, _mm512_setzero_ps());
  __m512 mn0, mx0, mn1, mx1;
  __mmask16 nan;
  size_t j;
  if (n < 16)
    v = _mm512_mask_mov_ps(v, 0xff00, _mm512_permutexvar_ps(
                                          _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7), v));
  mn0 = mx0 = mn1 = mx1 = v;
  nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  for (j = 16; j + 32 <= n; j += 32) {
    __m512 a = load16(x, dt, i0 + j, 0xffff, v), b = load16(x, dt, i0 + j + 16, 0xffff, v);
    mn0 = _mm512_min_ps(mn0, a);
    mx0 = _mm512_max_ps(mx0, a);
    mn1 = _mm512_min_ps(mn1, b);
    mx1 = _mm512_max_ps(mx1, b);
    nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
  }
  for (; j < n; j += 16) {
    const __mmask16 m = n - j >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff;
    __m512 a = load16(x, dt, i0 + j, m, v);
    mn0 = _mm512_min_ps(mn0, a);
    mx0 = _mm512_max_ps(mx0, a);
    nan |= _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
  }
  *mn = _mm512_reduce_min_ps(_mm512_min_ps(mn0, mn1));
  *mx = _mm512_reduce_max_ps(_mm512_max_ps(mx0, mx1));
  *finite = (nan == 0) & actq_f32_is_finite(*mn) & actq_f32_is_finite(*mx);
}

typedef struct vec_meta {
  __m512 c, mc, sc, rcp, num_min;
  __m512i levels;
} vec_meta;

/* t for 16 elements, as quot8 in quantize_avx2.c (rcp: ACTQ_QUOT_*): the true division for
 * the whole vector where a lane has 0 < num < 2^-64 (outside actq_quot_rcp's domain). */
INLINE __m512 quot16(__m512 num, const vec_meta *vm, int rcp) {
  __m512 q, r;
  if (rcp == ACTQ_QUOT_DIVIDE) return _mm512_div_ps(num, vm->sc);
  q = _mm512_mul_ps(num, vm->rcp);
  r = _mm512_fnmadd_ps(q, vm->sc, num);
  if (rcp == ACTQ_QUOT_RCP_CHECK &&
      _mm512_mask_cmp_ps_mask(_mm512_test_epi32_mask(_mm512_castps_si512(num),
                                                     _mm512_castps_si512(num)),
                              num, vm->num_min, _CMP_LT_OQ))
    return _mm512_div_ps(num, vm->sc);
  return _mm512_fmadd_ps(r, vm->rcp, q);
}

/* Codes of 16 elements, as actq_code_stochastic / actq_code_nearest (see codes8 in
 * quantize_avx2.c for why only the stochastic upper clamp is needed): floor(t + u) is the
 * truncating conversion, rint(t) the conversion with embedded round-to-nearest-even. */
INLINE __m512i codes16(__m512 x, const vec_meta *vm, int wide, int rcp, int stochastic,
                       const uint16_t *noise) {
  __m512 t = quot16(_mm512_sub_ps(wide ? _mm512_mul_ps(x, vm->c) : x, vm->mc), vm, rcp);
  __m512i q;
  if (stochastic) {
    __m512 r = _mm512_cvtepi32_ps(
        _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)noise)));
    __m512 u = _mm512_fmadd_ps(r, _mm512_set1_ps(1.0f / 65536.0f),
                               _mm512_set1_ps(1.0f / 131072.0f));
    q = _mm512_min_epi32(_mm512_cvttps_epi32(_mm512_add_ps(t, u)), vm->levels);
  } else {
    q = _mm512_cvt_roundps_epi32(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  return q;
}

/* 4 vectors of 16 codes (32-bit lanes, each < 2^b) -> 8 units = 8b bytes, stored exactly:
 * bytes in element order (two packs and a dword permute), then the AVX2 packer's pairwise
 * merges (16-, 32-, 64-bit lanes of 2b, 4b, 8b bits), then vpermb gathers the 8 units'
 * b bytes, and a masked store writes only the `nunits` whole units asked for. */
INLINE void pack64_store(__m512i q0, __m512i q1, __m512i q2, __m512i q3, uint32_t b,
                         size_t nunits, uint8_t *out) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m512i v = _mm512_packus_epi16(_mm512_packus_epi32(q0, q1), _mm512_packus_epi32(q2, q3));
  v = _mm512_permutexvar_epi32(order, v);
  if (b <= 6) {
    v = _mm512_maddubs_epi16(v, _mm512_set1_epi16((short)((1 << b) << 8 | 1)));
  } else if (b == 7) {
    const __m512i lo = _mm512_set1_epi16(0x00ff);
    v = _mm512_or_si512(_mm512_and_si512(v, lo), _mm512_srli_epi16(_mm512_andnot_si512(lo, v), 1));
  }
  if (b <= 7) v = _mm512_madd_epi16(v, _mm512_set1_epi32((1 << (2 * b)) << 16 | 1));
  /* (v & 0xffffffff) | ((v >> 32) << 4b) */
  v = _mm512_ternarylogic_epi64(v, _mm512_set1_epi64(0xffffffffLL),
                                _mm512_sllv_epi64(_mm512_srli_epi64(v, 32), _mm512_set1_epi64(4 * b)),
                                0xea);
  v = _mm512_permutexvar_epi8(_mm512_load_si512((const void *)actq_avx512_gather_units[b]), v);
  _mm512_mask_storeu_epi8(out, nunits * b >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (nunits * b)) - 1), v);
}

INLINE void units_t(const void *x, actq_dtype dt, int stochastic, int wide, int rcp, size_t i,
                    size_t units, const vec_meta *vm, const uint16_t *noise, uint32_t bits,
                    uint8_t *out, size_t x_end, size_t ahead) {
  const __m512 z = _mm512_setzero_ps();
  const size_t es = actq_dtype_size(dt);
  size_t u, j;
  for (u = 0; u + 8 <= units; u += 8) {
    const size_t e = i + 8 * u;
    const uint16_t *nz = noise + 8 * u;
    actq_prefetch_ahead(x, e * es, 64 * es, x_end * es, ahead);
    pack64_store(codes16(load16(x, dt, e, 0xffff, z), vm, wide, rcp, stochastic, nz),
                 codes16(load16(x, dt, e + 16, 0xffff, z), vm, wide, rcp, stochastic, nz + 16),
                 codes16(load16(x, dt, e + 32, 0xffff, z), vm, wide, rcp, stochastic, nz + 32),
                 codes16(load16(x, dt, e + 48, 0xffff, z), vm, wide, rcp, stochastic, nz + 48),
                 bits, 8, out);
    out += 8 * bits;
  }
  if (u < units) { /* 1 to 7 whole units left; lanes past them are computed, not stored */
    const size_t left = units - u, e = i + 8 * u;
    const uint16_t *nz = noise + 8 * u;
    __m512i q[4];
    for (j = 0; j < 4; j++) {
      const size_t have = left * 8 > 16 * j ? left * 8 - 16 * j : 0; /* elements in vector j */
      const __mmask16 m = have >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << have) - 1u);
      /* a vector past the units is not loaded: a load with no lane (fault suppressed)
       * still waits for its line on some cores */
      q[j] = have ? codes16(load16(x, dt, e + 16 * j, m, z), vm, wide, rcp, stochastic, nz + 16 * j)
                  : _mm512_setzero_si512();
    }
    pack64_store(q[0], q[1], q[2], q[3], bits, left, out);
  }
}

/* Stores are exact (masked), so `end` is not needed. */
INLINE void units_avx512(const void *x, actq_dtype dt, int stochastic, size_t i, size_t units,
                         const actq_group_meta *g, const uint16_t *noise, uint32_t bits,
                         uint8_t *out, const uint8_t *end, size_t x_end, size_t ahead) {
  vec_meta vm;
  (void)end;
  vm.c = _mm512_set1_ps(g->c);
  vm.mc = _mm512_set1_ps(g->mc);
  vm.sc = _mm512_set1_ps(g->sc);
  vm.rcp = _mm512_set1_ps(g->rcp);
  vm.num_min = _mm512_set1_ps(ACTQ_QUOT_NUM_MIN);
  vm.levels = _mm512_set1_epi32((int)g->levels);
  if (g->c != 1.0f)
    units_t(x, dt, stochastic, 1, ACTQ_QUOT_DIVIDE, i, units, &vm, noise, bits, out, x_end, ahead);
  else if (actq_quot_rcp_group_ok(g))
    units_t(x, dt, stochastic, 0, ACTQ_QUOT_RCP, i, units, &vm, noise, bits, out, x_end, ahead);
  else if (g->rcp_ok)
    units_t(x, dt, stochastic, 0, ACTQ_QUOT_RCP_CHECK, i, units, &vm, noise, bits, out, x_end, ahead);
  else
    units_t(x, dt, stochastic, 0, ACTQ_QUOT_DIVIDE, i, units, &vm, noise, bits, out, x_end, ahead);
}

INLINE void noise_avx512(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                         uint16_t *out) {
  actq_avx512_noise_fill(seed, offset, block0, nblocks, out);
}

static const actq_quantize_hooks hooks_avx512 = {range_avx512, noise_avx512, units_avx512,
                                                 actq_meta_groups_avx2};

ACTQ_QUANTIZE_DISPATCH(actq_avx512_quantize_groups, hooks_avx512)
