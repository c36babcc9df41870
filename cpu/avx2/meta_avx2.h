/* meta_avx2.h - the metadata of several groups at once, in vector lanes: the `meta` hook of
 * the AVX2 and AVX-512 quantize kernels (cpu/quantize_groups.h).
 *
 * actq_group_meta_compute (src/arith/quant.h) costs a group about 30 cycles of scalar
 * double arithmetic, compares and conversions (23% of quantize's time at groups of 64 on a
 * Zen 5, perf), most of it a dependency chain per group. Here eight groups share each
 * operation: the same IEEE operations lane by lane (the TwoSum of the range, hi / L in
 * double, its rounding up to float by RN and one step where RN fell below, the directed
 * rounding to bf16 on the bits), so a lane's result is the scalar's bits, with subnormals
 * flushed or not (tests/cpu/test_meta_batch.c). Lanes outside that common case go to the
 * scalar function, which then decides everything for them: a nonfinite group, a wide
 * group (range >= 2^127, which a minimum beyond bf16's range makes too), a scale that the
 * first guess leaves short of the range (the scalar's step-up loop), and f16 metadata
 * (its narrower exponent range would need checks of its own; bf16 and f32 are the
 * formats in use).
 *
 * No target attribute: compiled by AVX2 and AVX-512 units alike (and by the tests' emulated
 * AVX-512 unit, -mavx2), which check the CPU before calling.
 */
#ifndef ACTQ_CPU_AVX2_META_AVX2_H
#define ACTQ_CPU_AVX2_META_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "src/arith/quant.h"

#define ACTQ_META_INLINE static inline __attribute__((always_inline))

/* 8 float lanes as their 32-bit patterns and back */
#define ACTQ_META_BITS(v) _mm256_castps_si256(v)
#define ACTQ_META_FLOAT(v) _mm256_castsi256_ps(v)

/* The 8 bf16 values of 8 finite floats rounded away from zero where `away` (all ones) and
 * toward zero elsewhere: the truncated pattern, plus one bf16 step where bits were cut. */
ACTQ_META_INLINE __m256 actq_meta_bf16_dir(__m256 f, __m256i away) {
  const __m256i b = ACTQ_META_BITS(f);
  const __m256i cut = _mm256_and_si256(b, _mm256_set1_epi32(0xffff));
  const __m256i inexact = _mm256_andnot_si256(_mm256_cmpeq_epi32(cut, _mm256_setzero_si256()),
                                              away);
  return ACTQ_META_FLOAT(_mm256_add_epi32(_mm256_and_si256(b, _mm256_set1_epi32((int)0xffff0000u)),
                                          _mm256_and_si256(inexact, _mm256_set1_epi32(0x10000))));
}

/* 4 compare masks of 64-bit lanes -> the same 4 as 32-bit lanes */
ACTQ_META_INLINE __m128i actq_meta_narrow_mask(__m256d m) {
  const __m256i lo = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(m),
                                                 _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
  return _mm256_castsi256_si128(lo);
}

/* Groups k < n <= 8 from their min, max and finite flag, into g[k]. */
ACTQ_META_INLINE void actq_meta8(const float *mn, const float *mx, const int *finite, size_t n,
                                 uint32_t bits, actq_dtype md, actq_group_meta *g) {
  const double L = (double)((1u << bits) - 1u);
  const __m256d vl = _mm256_set1_pd(L), lo_wide = _mm256_set1_pd(0x1p127);
  /* lanes j < n; the others read nothing and are 0 (a group of one value) */
  const __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n),
                                           _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  float ms[8], ss[8], scs[8], rcps[8];
  __m256 m, s, sc, rcp, zero_s, rcp_ok;
  __m128 sh[2];
  int scalar, rcp_bits, k;
  size_t j;
  /* a nonfinite group: the scalar function writes its NaNs */
  scalar = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(
      lanes, _mm256_cmpeq_epi32(_mm256_maskload_epi32(finite, lanes), _mm256_setzero_si256()))));
  {
    const __m256 vmn = _mm256_maskload_ps(mn, lanes), vmx = _mm256_maskload_ps(mx, lanes);
    /* m: RD(mn), exact in f32; bf16: away from zero (down) for negative mn */
    m = md == ACTQ_BF16 ? actq_meta_bf16_dir(vmn, _mm256_srai_epi32(ACTQ_META_BITS(vmn), 31)) : vmn;
    m = _mm256_add_ps(m, _mm256_setzero_ps()); /* -0 -> +0 */
    zero_s = _mm256_cmp_ps(vmx, m, _CMP_EQ_OQ);
    for (k = 0; k < 2; k++) {
      const __m256d dmx = _mm256_cvtps_pd(k ? _mm256_extractf128_ps(vmx, 1) : _mm256_castps256_ps128(vmx));
      const __m256d dm = _mm256_cvtps_pd(k ? _mm256_extractf128_ps(m, 1) : _mm256_castps256_ps128(m));
      /* d = mx - m exactly as hi + lo (TwoSum) */
      const __m256d hi = _mm256_sub_pd(dmx, dm);
      const __m256d bv = _mm256_sub_pd(hi, dmx), av = _mm256_sub_pd(hi, bv);
      const __m256d lo = _mm256_add_pd(_mm256_sub_pd(dmx, av),
                                       _mm256_sub_pd(_mm256_sub_pd(_mm256_setzero_pd(), dm), bv));
      const __m256d q = _mm256_div_pd(hi, vl);
      __m128 f = _mm256_cvtpd_ps(q);
      __m256d sd, ls, bad;
      /* RU(q) for q >= 0: RN, one step up where RN fell below */
      f = _mm_castsi128_ps(_mm_sub_epi32(_mm_castps_si128(f),
                                         actq_meta_narrow_mask(_mm256_cmp_pd(_mm256_cvtps_pd(f), q, _CMP_LT_OQ))));
      if (md == ACTQ_BF16)
        f = _mm256_castps256_ps128(actq_meta_bf16_dir(_mm256_castps128_ps256(f), _mm256_set1_epi32(-1)));
      sh[k] = f;
      /* short: L*s (exact in double) < hi, or == hi with lo > 0; wide: hi >= 2^127 */
      sd = _mm256_cvtps_pd(f);
      ls = _mm256_mul_pd(vl, sd);
      bad = _mm256_or_pd(_mm256_cmp_pd(ls, hi, _CMP_LT_OQ),
                         _mm256_and_pd(_mm256_cmp_pd(ls, hi, _CMP_EQ_OQ),
                                       _mm256_cmp_pd(lo, _mm256_setzero_pd(), _CMP_GT_OQ)));
      bad = _mm256_or_pd(bad, _mm256_cmp_pd(hi, lo_wide, _CMP_GE_OQ));
      scalar |= (_mm256_movemask_pd(bad) << (4 * k)) & ~_mm256_movemask_ps(zero_s);
    }
  }
  s = _mm256_andnot_ps(zero_s, _mm256_set_m128(sh[1], sh[0]));
  sc = _mm256_blendv_ps(s, _mm256_set1_ps(1.0f), zero_s);
  rcp_ok = _mm256_and_ps(_mm256_cmp_ps(sc, _mm256_set1_ps(ACTQ_QUOT_SC_MIN), _CMP_GE_OQ),
                         _mm256_cmp_ps(sc, _mm256_set1_ps(ACTQ_QUOT_SC_MAX), _CMP_LE_OQ));
  rcp = _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_div_ps(_mm256_set1_ps(1.0f), sc), rcp_ok);
  rcp_bits = _mm256_movemask_ps(rcp_ok);
  _mm256_storeu_ps(ms, m);
  _mm256_storeu_ps(ss, s);
  _mm256_storeu_ps(scs, sc);
  _mm256_storeu_ps(rcps, rcp);
  for (j = 0; j < n; j++) {
    actq_group_meta *gj = g + j;
    if (scalar >> j & 1) {
      actq_group_meta_compute(mn[j], mx[j], finite[j], bits, md, gj);
      continue;
    }
    gj->m = gj->mc = ms[j]; /* c = 1: m * c is m */
    gj->s = ss[j];
    gj->sc = scs[j];
    gj->c = 1.0f;
    gj->levels = (float)L;
    gj->rcp = rcps[j];
    gj->rcp_ok = rcp_bits >> j & 1;
    gj->nonfinite = 0;
  }
}

/* The hook: n <= 16 groups, eight at a time; f16 metadata by the scalar function. */
ACTQ_META_INLINE void actq_meta_groups_avx2(const float *mn, const float *mx, const int *finite,
                                            size_t n, uint32_t bits, actq_dtype md,
                                            actq_group_meta *g) {
  size_t j;
  if (md == ACTQ_F16) {
    for (j = 0; j < n; j++) actq_group_meta_compute(mn[j], mx[j], finite[j], bits, md, g + j);
    return;
  }
  for (j = 0; j < n; j += 8)
    actq_meta8(mn + j, mx + j, finite + j, n - j < 8 ? n - j : 8, bits, md, g + j);
}

#undef ACTQ_META_BITS
#undef ACTQ_META_FLOAT

#endif /* ACTQ_CPU_AVX2_META_AVX2_H */
