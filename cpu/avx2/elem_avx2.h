/* elem_avx2.h - 8 elements of f32/f16/bf16 to and from float32 lanes, with the shared
 * arithmetic's conversions: f16 through F16C (round-to-nearest-even, the bits of
 * actq_f32_to_f16), bf16 through the integer rounding of actq_f32_to_bf16. A canonical
 * NaN (0x7fc00000) stores as the canonical NaN of either half type. */
#ifndef ACTQ_CPU_AVX2_ELEM_H
#define ACTQ_CPU_AVX2_ELEM_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "actq.h"

static inline __attribute__((always_inline)) __m256 actq_avx2_load8(const void *x, int dt,
                                                                    size_t i) {
  __m128i h;
  if (dt == ACTQ_F32) return _mm256_loadu_ps((const float *)x + i);
  h = _mm_loadu_si128((const __m128i *)((const uint16_t *)x + i));
  if (dt == ACTQ_F16) return _mm256_cvtph_ps(h);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

static inline __attribute__((always_inline)) void actq_avx2_store8(void *y, int dt, size_t i,
                                                                   __m256 v) {
  if (dt == ACTQ_F32) {
    _mm256_storeu_ps((float *)y + i, v);
  } else if (dt == ACTQ_F16) {
    _mm_storeu_si128((__m128i *)((uint16_t *)y + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else {
    __m256i x = _mm256_castps_si256(v);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    x = _mm256_srli_epi32(_mm256_add_epi32(x, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff))), 16);
    x = _mm256_permute4x64_epi64(_mm256_packus_epi32(x, x), 0x08);
    _mm_storeu_si128((__m128i *)((uint16_t *)y + i), _mm256_castsi256_si128(x));
  }
}

/* NaN lanes -> the canonical quiet NaN, as the scalar code writes it. */
static inline __attribute__((always_inline)) __m256 actq_avx2_canonical_nan(__m256 v) {
  return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)),
                          _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

#endif /* ACTQ_CPU_AVX2_ELEM_H */
