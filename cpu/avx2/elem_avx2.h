/* elem_avx2.h - 8 elements of f32/f16/bf16 to and from float32 lanes, with the bits of the
 * shared arithmetic's conversions (src/arith/half.h) for every input, NaN included:
 * f16 through F16C (vcvtps2ph with round-to-nearest-even quiets a NaN and keeps its top
 * payload bits, exactly actq_f32_to_f16; vcvtph2ps is exact like actq_f16_to_f32), bf16
 * through the integer rounding of actq_f32_to_bf16. */
#ifndef ACTQ_CPU_AVX2_ELEM_H
#define ACTQ_CPU_AVX2_ELEM_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "actq.h"

static inline __attribute__((always_inline)) __m256 actq_avx2_load8(const void *x, actq_dtype dt,
                                                                    size_t i) {
  __m128i h;
  if (dt == ACTQ_F32) return _mm256_loadu_ps((const float *)x + i);
  h = _mm_loadu_si128((const __m128i *)((const uint16_t *)x + i));
  if (dt == ACTQ_F16) return _mm256_cvtph_ps(h);
  /* bf16 -> f32 is h << 16: interleaving with zero words does it in two 128-bit unpacks
   * (one micro-op each on Zen 1) instead of a 256-bit zero-extension and shift */
  return _mm256_castsi256_ps(_mm256_setr_m128i(_mm_unpacklo_epi16(_mm_setzero_si128(), h),
                                               _mm_unpackhi_epi16(_mm_setzero_si128(), h)));
}

/* actq_f32_to_bf16's rounding of a non-NaN x, left in the high 16 bits of each lane (the low
 * 16 are garbage): x + 0x7fff + (bit 16 of x). Inf stays Inf, the largest finite values
 * round to Inf, as in the scalar code. */
static inline __attribute__((always_inline)) __m256i actq_avx2_bf16_round_hi(__m256i x) {
  __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
  return _mm256_add_epi32(x, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff)));
}

/* The high 16 bits of 8 lanes, in order. A pshufb and a 128-bit unpack (no srl, pack and
 * cross-lane permute). */
static inline __attribute__((always_inline)) __m128i actq_avx2_hi16_8(__m256i t) {
  const __m256i hi = _mm256_setr_epi8(2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1, -1,
                                      -1, 2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1,
                                      -1, -1);
  t = _mm256_shuffle_epi8(t, hi);
  return _mm_unpacklo_epi64(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

/* 8 floats -> 8 bf16, the bits of actq_f32_to_bf16 for every input: a NaN keeps its high
 * half with the quiet bit set ((x >> 16) | 0x40, no rounding carry into it). */
static inline __attribute__((always_inline)) __m128i actq_avx2_f32_to_bf16_8(__m256 v) {
  __m256i x = _mm256_castps_si256(v);
  __m256i t = actq_avx2_bf16_round_hi(x);
  __m256i q = _mm256_or_si256(x, _mm256_set1_epi32(0x00400000));
  t = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(t), _mm256_castsi256_ps(q),
                                           _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
  return actq_avx2_hi16_8(t);
}

static inline __attribute__((always_inline)) void actq_avx2_store8(void *y, actq_dtype dt, size_t i,
                                                                   __m256 v) {
  if (dt == ACTQ_F32) {
    _mm256_storeu_ps((float *)y + i, v);
  } else if (dt == ACTQ_F16) {
    _mm_storeu_si128((__m128i *)((uint16_t *)y + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else {
    _mm_storeu_si128((__m128i *)((uint16_t *)y + i), actq_avx2_f32_to_bf16_8(v));
  }
}

/* actq_avx2_store8 with a streaming store when nt (cpu/stream.h: the address is then
 * aligned to the store's width, which actq_stream_ok checked for the whole call). */
static inline __attribute__((always_inline)) void actq_avx2_store8_nt(void *y, actq_dtype dt,
                                                                      size_t i, __m256 v, int nt) {
  if (!nt) {
    actq_avx2_store8(y, dt, i, v);
  } else if (dt == ACTQ_F32) { /* two 16-byte halves: 16-byte alignment is what malloc gives */
    _mm_stream_ps((float *)y + i, _mm256_castps256_ps128(v));
    _mm_stream_ps((float *)y + i + 4, _mm256_extractf128_ps(v, 1));
  } else if (dt == ACTQ_F16) {
    _mm_stream_si128((__m128i *)((uint16_t *)y + i),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  } else {
    _mm_stream_si128((__m128i *)((uint16_t *)y + i), actq_avx2_f32_to_bf16_8(v));
  }
}

/* 16 halves at y + i (i a multiple of 8), streamed as two 16-byte stores when nt. */
static inline __attribute__((always_inline)) void actq_avx2_store16h_nt(uint16_t *y, size_t i,
                                                                        __m256i v, int nt) {
  if (!nt) {
    _mm256_storeu_si256((__m256i *)(y + i), v);
  } else {
    _mm_stream_si128((__m128i *)(y + i), _mm256_castsi256_si128(v));
    _mm_stream_si128((__m128i *)(y + i + 8), _mm256_extracti128_si256(v, 1));
  }
}

/* NaN lanes -> the canonical quiet NaN, as the scalar code writes it. */
static inline __attribute__((always_inline)) __m256 actq_avx2_canonical_nan(__m256 v) {
  return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)),
                          _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

#endif /* ACTQ_CPU_AVX2_ELEM_H */
