/* act_avx512.h - the activation forwards of src/arith/act.h on 16 float32 lanes.
 *
 * GELU, GELU_TANH, SiLU, Sigmoid and Tanh are cpu/act_fma_lanes.h with 16-lane operations
 * (compares into mask registers, vblendmps, and GELU's coefficients by one vpermps of a
 * 16-float row); the other activations run their AVX2 twin on each 256-bit half. Either
 * way lane i has the bits of the scalar function at lane i (tests/arith/test_act.c).
 *
 * No target attribute: the includer is compiled for AVX-512 (F, DQ; the library's AVX-512
 * files), or over SIMDe's emulation in the tests, and must check the CPU before calling.
 * As in act_avx2.h, a fused multiply-add appears only where the scalar calls fmaf():
 * includers compile with -ffp-contract=off.
 */
#ifndef ACTQ_CPU_AVX512_ACT_AVX512_H
#define ACTQ_CPU_AVX512_ACT_AVX512_H

#include <immintrin.h>

#include "cpu/avx2/act_avx2.h"

#define ACTQ_AVX512_ACT_FN static inline __attribute__((always_inline))

ACTQ_AVX512_ACT_FN __m512 actq_avx512_act_bits(uint32_t u) {
  return _mm512_castsi512_ps(_mm512_set1_epi32((int)u));
}
ACTQ_AVX512_ACT_FN __m512 actq_avx512_act_abs(__m512 a) {
  return _mm512_and_ps(a, actq_avx512_act_bits(0x7fffffffu));
}
ACTQ_AVX512_ACT_FN __m512 actq_avx512_act_with_sign(__m512 a, __m512 s) {
  const __m512 sign = actq_avx512_act_bits(0x80000000u);
  return _mm512_or_ps(_mm512_andnot_ps(sign, a), _mm512_and_ps(s, sign));
}

#define ACTQ_L_FN ACTQ_AVX512_ACT_FN
#define ACTQ_L(name) actq_avx512_act_##name
#define LV __m512
#define LM __mmask16
#define LI __m512i
#define L_SET(c) _mm512_set1_ps(c)
#define L_ADD(a, b) _mm512_add_ps(a, b)
#define L_SUB(a, b) _mm512_sub_ps(a, b)
#define L_MUL(a, b) _mm512_mul_ps(a, b)
#define L_DIV(a, b) _mm512_div_ps(a, b)
#define L_MIN(a, b) _mm512_min_ps(a, b)
#define L_MAX(a, b) _mm512_max_ps(a, b)
#define L_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define L_FMS(a, b, c) _mm512_fmsub_ps(a, b, c)
#define L_OR(a, b) _mm512_or_ps(a, b)
#define L_XOR(a, b) _mm512_xor_ps(a, b)
#define L_LT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define L_GT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)
#define L_SEL(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define L_ABS(a) actq_avx512_act_abs(a)
#define L_WITH_SIGN(a, s) actq_avx512_act_with_sign(a, s)
#define L_POW2(t) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(t), 23))
#define L_ROW16(row, i) _mm512_permutexvar_ps(i, _mm512_loadu_ps(row))
#define L_CVTT(a) _mm512_cvttps_epi32(a)
#define L_ANY(m) ((m) != 0)
#include "cpu/act_fma_lanes.h"
#include "cpu/act_fma_lanes_undef.h"

/* Activations with a 16-lane form (the rest take actq_avx512_act_forward's halves). */
#define ACTQ_AVX512_ACTS(X)                                                              \
  X(ACTQ_ACT_GELU, gelu) X(ACTQ_ACT_GELU_TANH, gelu_tanh) X(ACTQ_ACT_SILU, silu)         \
  X(ACTQ_ACT_SIGMOID, sigmoid) X(ACTQ_ACT_TANH, tanh)

#define ACTQ_AVX512_ACT_CASE(a, name) case a: return actq_avx512_act_##name(x);

/* The activation before any NaN handling: the 16-lane forms, or the AVX2 twin's on each
 * half */
ACTQ_AVX512_ACT_FN __m512 actq_avx512_act_raw(int act, float param, __m512 x) {
  switch (act) {
  ACTQ_AVX512_ACTS(ACTQ_AVX512_ACT_CASE)
  default: {
    const __m256 lo = actq_avx2_act_raw(act, param, _mm512_castps512_ps256(x));
    const __m256 hi = actq_avx2_act_raw(
        act, param, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
  }
  }
}

/* actq_act_forward on 16 lanes: same results lane for lane */
ACTQ_AVX512_ACT_FN __m512 actq_avx512_act_forward(int act, float param, __m512 x) {
  return _mm512_mask_mov_ps(actq_avx512_act_raw(act, param, x),
                            _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q),
                            actq_avx512_act_bits(ACTQ_F32_QNAN_BITS));
}

/* actq_fewbit_forward on 16 lanes (y with every NaN canonical): a NaN x or a NaN y is
 * the canonical NaN, found by one compare of x with y instead of one of each */
ACTQ_AVX512_ACT_FN __m512 actq_avx512_fewbit_forward(int act, float param, __m512 x) {
  const __m512 y = actq_avx512_act_raw(act, param, x);
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, y, _CMP_UNORD_Q),
                            actq_avx512_act_bits(ACTQ_F32_QNAN_BITS));
}

#undef ACTQ_AVX512_ACT_CASE

#endif /* ACTQ_CPU_AVX512_ACT_AVX512_H */
