/* act_avx2.h - the activation forwards of src/arith/act.h on 8 float32 lanes (AVX2).
 *
 * Each function repeats its scalar twin in src/arith/act*.h operation for operation (a
 * scalar `c ? a : b` is a blend, `a > b` an ordered-quiet compare, (int) a vcvttps2dq, a
 * scalar max/min written as `a > b ? a : b` is vmaxps/vminps, which return the second
 * operand on NaN and on equal zeros exactly like the ternary), so lane i of the result
 * has the bits of the scalar function at lane i of the input, for every input; the test
 * tests/arith/test_act.c checks that over the same inputs as the accuracy test.
 *
 * The functions carry target("avx2,fma") and are meant to be inlined into an AVX2 kernel
 * (cpu/isa.c selects AVX2 only with FMA); callers must check the CPU first. A fused
 * multiply-add appears only where the scalar twin calls fmaf(): includers compile with
 * -ffp-contract=off (the library's flags, the tests', bench/floor's), so that no
 * _mm256_mul_ps / _mm256_add_ps pair is ever fused. Every number (coefficient, threshold,
 * piece edge) and the list of activations come from src/arith/act*.h, so that a change
 * there reaches both versions. GELU, GELU_TANH, SiLU, Sigmoid and Tanh are written once for
 * every SIMD width in cpu/act_fma_lanes.h; this file gives them their 8-lane operations.
 */
#ifndef ACTQ_CPU_AVX2_ACT_AVX2_H
#define ACTQ_CPU_AVX2_ACT_AVX2_H

#include <immintrin.h>

#include "src/arith/act.h"

#define ACTQ_AVX2_ACT_FN static inline __attribute__((target("avx2,fma")))

/* ---- lane-wise helpers ------------------------------------------------------------------ */

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_set(float v) { return _mm256_set1_ps(v); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_div(__m256 a, __m256 b) { return _mm256_div_ps(a, b); }
/* scalar `m ? a : b` */
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_sel(__m256 m, __m256 a, __m256 b) {
  return _mm256_blendv_ps(b, a, m);
}
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_gt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_lt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_ge(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_le(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_abs(__m256 a) {
  return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_with_sign(__m256 a, __m256 s) {
  __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u));
  return _mm256_or_ps(_mm256_andnot_ps(sign, a), _mm256_and_ps(s, sign));
}
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_hi12(__m256 a) {
  return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xfffff000u)));
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_two_prod(__m256 a, __m256 b, __m256 *err) {
  __m256 p = _mm256_mul_ps(a, b);
  __m256 ah = actq_avx2_act_hi12(a), al = _mm256_sub_ps(a, ah);
  __m256 bh = actq_avx2_act_hi12(b), bl = _mm256_sub_ps(b, bh);
  __m256 e = _mm256_sub_ps(_mm256_mul_ps(ah, bh), p);
  e = _mm256_add_ps(e, _mm256_mul_ps(ah, bl));
  e = _mm256_add_ps(e, _mm256_mul_ps(al, bh));
  *err = _mm256_add_ps(e, _mm256_mul_ps(al, bl));
  return p;
}

/* the Horner chain of a coefficient list of src/arith/act_exp.h (ACTQ_HORNER) on 8 lanes */
#define ACTQ_AVX2_HORNER_FIRST(p, x, c) p = _mm256_set1_ps(c);
#define ACTQ_AVX2_HORNER_NEXT(p, x, c) p = _mm256_add_ps(_mm256_mul_ps(p, x), _mm256_set1_ps(c));
#define ACTQ_AVX2_HORNER_ADD(p, x, c) p = _mm256_add_ps(p, _mm256_set1_ps(c));
#define ACTQ_AVX2_HORNER(LIST, p, x) \
  LIST(ACTQ_AVX2_HORNER_FIRST, ACTQ_AVX2_HORNER_NEXT, ACTQ_AVX2_HORNER_ADD, p, x)

/* ---- exp kernel (act_exp.h) --------------------------------------------------------------- */

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_expm1_kernel(__m256 r) {
  __m256 q;
  ACTQ_AVX2_HORNER(ACTQ_EXPM1_Q_POLY, q, r);
  return _mm256_add_ps(r, _mm256_mul_ps(_mm256_mul_ps(r, r), q));
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_exp_reduce(__m256 hi, __m256 lo, __m256i *k) {
  __m256 h = _mm256_max_ps(hi, _mm256_set1_ps(ACTQ_EXP_ARG_MIN_F));
  h = _mm256_min_ps(h, _mm256_set1_ps(ACTQ_EXP_ARG_MAX_F));
  __m256 magic = _mm256_set1_ps(ACTQ_ROUND_MAGIC_F);
  __m256 kf = _mm256_sub_ps(
      _mm256_add_ps(_mm256_mul_ps(h, _mm256_set1_ps(ACTQ_LOG2E_F)), magic), magic);
  __m256 r = _mm256_sub_ps(h, _mm256_mul_ps(kf, _mm256_set1_ps(ACTQ_LN2_HI_F)));
  r = _mm256_sub_ps(r, _mm256_mul_ps(kf, _mm256_set1_ps(ACTQ_LN2_LO_F)));
  r = _mm256_add_ps(r, lo);
  *k = _mm256_cvttps_epi32(kf);
  return actq_avx2_act_expm1_kernel(r);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_exp2i(__m256i k) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k, _mm256_set1_epi32(127)), 23));
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_scale2k(__m256 y, __m256i k) {
  __m256i k1 = _mm256_srai_epi32(k, 1);
  __m256i k2 = _mm256_sub_epi32(k, k1);
  return _mm256_mul_ps(_mm256_mul_ps(y, actq_avx2_act_exp2i(k1)), actq_avx2_act_exp2i(k2));
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_exp(__m256 x) {
  __m256i k;
  __m256 p = actq_avx2_act_exp_reduce(x, _mm256_setzero_ps(), &k);
  return actq_avx2_act_scale2k(_mm256_add_ps(_mm256_set1_ps(1.0f), p), k);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_expm1(__m256 x) {
  __m256i k;
  __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(ACTQ_EXPM1_ARG_MIN_F)),
                            _mm256_set1_ps(ACTQ_EXPM1_ARG_MAX_F));
  __m256 p = actq_avx2_act_exp_reduce(xc, _mm256_setzero_ps(), &k);
  __m256 c = _mm256_sub_ps(_mm256_set1_ps(1.0f),
                           actq_avx2_act_exp2i(_mm256_sub_epi32(_mm256_setzero_si256(), k)));
  return _mm256_mul_ps(_mm256_add_ps(p, c), actq_avx2_act_exp2i(k));
}

/* ---- log1p on [0, 1] (act_log.h) ----------------------------------------------------------- */

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_log1p_unit(__m256 u) {
  const __m256 one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
  __m256 s = _mm256_add_ps(one, u);
  __m256 e = _mm256_sub_ps(u, _mm256_sub_ps(s, one));
  __m256 big = actq_avx2_act_gt(s, _mm256_set1_ps(ACTQ_SQRT2_F));
  __m256 m = actq_avx2_act_sel(big, _mm256_mul_ps(s, half), s);
  __m256 eh = actq_avx2_act_sel(big, _mm256_mul_ps(e, half), e);
  __m256 jf = actq_avx2_act_sel(big, one, _mm256_setzero_ps());
  __m256 f = _mm256_sub_ps(m, one);
  __m256 w = _mm256_div_ps(f, _mm256_add_ps(_mm256_set1_ps(2.0f), f));
  __m256 z = _mm256_mul_ps(w, w);
  __m256 r1;
  ACTQ_AVX2_HORNER(ACTQ_LOG1P_R1_POLY, r1, z);
  __m256 r = _mm256_mul_ps(z, r1);
  __m256 hfsq = _mm256_mul_ps(_mm256_mul_ps(half, f), f);
  __m256 c = _mm256_div_ps(eh, m);
  __m256 t = _mm256_add_ps(_mm256_mul_ps(jf, _mm256_set1_ps(ACTQ_LN2_LO_LOG_F)), c);
  t = _mm256_add_ps(_mm256_mul_ps(w, _mm256_add_ps(hfsq, r)), t);
  t = _mm256_sub_ps(_mm256_sub_ps(hfsq, t), f);
  return _mm256_sub_ps(_mm256_mul_ps(jf, _mm256_set1_ps(ACTQ_LN2_F)), t);
}

/* ---- GELU, GELU_TANH, SiLU, Sigmoid, Tanh: cpu/act_fma_lanes.h on 8 lanes ---------------- */

#define ACTQ_L_FN ACTQ_AVX2_ACT_FN
#define ACTQ_L(name) actq_avx2_act_##name
#define LV __m256
#define LM __m256
#define LI __m256i
#define L_SET(c) _mm256_set1_ps(c)
#define L_ADD(a, b) _mm256_add_ps(a, b)
#define L_SUB(a, b) _mm256_sub_ps(a, b)
#define L_MUL(a, b) _mm256_mul_ps(a, b)
#define L_DIV(a, b) _mm256_div_ps(a, b)
#define L_MIN(a, b) _mm256_min_ps(a, b)
#define L_MAX(a, b) _mm256_max_ps(a, b)
#define L_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define L_FMS(a, b, c) _mm256_fmsub_ps(a, b, c)
#define L_OR(a, b) _mm256_or_ps(a, b)
#define L_XOR(a, b) _mm256_xor_ps(a, b)
#define L_LT(a, b) actq_avx2_act_lt(a, b)
#define L_GT(a, b) actq_avx2_act_gt(a, b)
#define L_SEL(m, a, b) actq_avx2_act_sel(m, a, b)
#define L_ABS(a) actq_avx2_act_abs(a)
#define L_WITH_SIGN(a, s) actq_avx2_act_with_sign(a, s)
#define L_POW2(t) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23))
/* vpermps reads the index's low 3 bits; bit 3, moved to the sign, picks the half */
#define L_ROW16(row, i)                                                                  \
  _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(row), i),                   \
                   _mm256_permutevar8x32_ps(_mm256_loadu_ps((row) + 8), i),             \
                   _mm256_castsi256_ps(_mm256_slli_epi32(i, 28)))
#define L_CVTT(a) _mm256_cvttps_epi32(a)
#define L_ANY(m) (_mm256_movemask_ps(m) != 0)
#include "cpu/act_fma_lanes.h"
#include "cpu/act_fma_lanes_undef.h"

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_tanhshrink_t(__m256 s) {
  __m256 p;
  ACTQ_AVX2_HORNER(ACTQ_TANHSHRINK_T_POLY, p, s);
  return p;
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_tanhshrink(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 t = actq_avx2_act_abs(x);
  __m256 s = _mm256_mul_ps(x, x);
  __m256 y_small = _mm256_mul_ps(x, _mm256_mul_ps(s, actq_avx2_act_tanhshrink_t(s)));
  __m256i k;
  __m256 p = actq_avx2_act_exp_reduce(_mm256_mul_ps(_mm256_set1_ps(-2.0f), t), _mm256_setzero_ps(), &k);
  __m256 e = actq_avx2_act_scale2k(_mm256_add_ps(one, p), k);
  __m256 y_big = actq_avx2_act_with_sign(
      _mm256_add_ps(_mm256_sub_ps(t, one), _mm256_div_ps(_mm256_add_ps(e, e), _mm256_add_ps(one, e))), x);
  return actq_avx2_act_sel(actq_avx2_act_lt(t, _mm256_set1_ps(ACTQ_TANHSHRINK_SERIES_MAX_F)),
                           y_small, y_big);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_softplus(float beta_s, __m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  const __m256 msign = _mm256_set1_ps(-0.0f);
  __m256 beta = _mm256_set1_ps(beta_s);
  __m256 tl;
  __m256 th = actq_avx2_act_two_prod(beta, x, &tl);
  __m256 inr = _mm256_and_ps(actq_avx2_act_gt(th, _mm256_set1_ps(-ACTQ_SOFTPLUS_PAIR_MAX_F)),
                             actq_avx2_act_lt(th, _mm256_set1_ps(ACTQ_SOFTPLUS_PAIR_MAX_F)));
  tl = actq_avx2_act_sel(inr, tl, zero);
  __m256 pos = actq_avx2_act_gt(th, zero);
  __m256i k;
  __m256 p = actq_avx2_act_exp_reduce(_mm256_xor_ps(actq_avx2_act_abs(th), msign),
                                      actq_avx2_act_sel(pos, _mm256_xor_ps(tl, msign), tl), &k);
  __m256 l1p = actq_avx2_act_log1p_unit(actq_avx2_act_scale2k(_mm256_add_ps(one, p), k));
  __m256 y_pos = _mm256_add_ps(x, _mm256_div_ps(l1p, beta));
  __m256 y_neg = _mm256_div_ps(l1p, beta);
  __m256 y_tiny = actq_avx2_act_scale2k(_mm256_div_ps(_mm256_add_ps(one, p), beta), k);
  y_neg = actq_avx2_act_sel(actq_avx2_act_lt(th, _mm256_set1_ps(-ACTQ_SOFTPLUS_LINEAR_F)), y_tiny, y_neg);
  y_neg = actq_avx2_act_sel(actq_avx2_act_lt(th, _mm256_set1_ps(ACTQ_SOFTPLUS_ZERO_F)), zero, y_neg);
  y_pos = actq_avx2_act_sel(actq_avx2_act_gt(th, _mm256_set1_ps(ACTQ_SOFTPLUS_LINEAR_F)), x, y_pos);
  return actq_avx2_act_sel(pos, y_pos, y_neg);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_logsigmoid(__m256 x) {
  __m256 msign = _mm256_set1_ps(-0.0f);
  return _mm256_xor_ps(actq_avx2_act_softplus(1.0f, _mm256_xor_ps(x, msign)), msign);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_elu(float alpha, __m256 x) {
  __m256 y_neg = _mm256_mul_ps(_mm256_set1_ps(alpha), actq_avx2_act_expm1(x));
  return actq_avx2_act_sel(actq_avx2_act_ge(x, _mm256_setzero_ps()), x, y_neg);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_selu(__m256 x) {
  __m256 em = actq_avx2_act_expm1(x);
  __m256 y_neg = _mm256_add_ps(_mm256_mul_ps(em, _mm256_set1_ps(ACTQ_SELU_LAMBDA_ALPHA_HI)),
                               _mm256_mul_ps(em, _mm256_set1_ps(ACTQ_SELU_LAMBDA_ALPHA_LO)));
  __m256 y_pos = _mm256_add_ps(_mm256_mul_ps(x, _mm256_set1_ps(ACTQ_SELU_LAMBDA_HI)),
                               _mm256_mul_ps(x, _mm256_set1_ps(ACTQ_SELU_LAMBDA_LO)));
  y_pos = actq_avx2_act_sel(actq_avx2_act_gt(x, _mm256_set1_ps(ACTQ_FLT_MAX)), x, y_pos);
  __m256 y = actq_avx2_act_sel(actq_avx2_act_gt(x, _mm256_setzero_ps()), y_pos, y_neg);
  return actq_avx2_act_sel(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ), x, y);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_celu(float alpha_s, __m256 x) {
  __m256 alpha = _mm256_set1_ps(alpha_s);
  __m256 y_neg = _mm256_mul_ps(alpha, actq_avx2_act_expm1(_mm256_div_ps(x, alpha)));
  return actq_avx2_act_sel(actq_avx2_act_gt(x, _mm256_set1_ps(ACTQ_CELU_LINEAR_F)), x, y_neg);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_mish(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
  __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(ACTQ_MISH_X_MIN_F)),
                            _mm256_set1_ps(ACTQ_MISH_X_MAX_F));
  __m256i k;
  __m256 p = actq_avx2_act_exp_reduce(xc, _mm256_setzero_ps(), &k);
  __m256 c = _mm256_sub_ps(one, actq_avx2_act_exp2i(_mm256_sub_epi32(_mm256_setzero_si256(), k)));
  __m256 em = _mm256_mul_ps(_mm256_add_ps(p, c), actq_avx2_act_exp2i(k));
  __m256 e2 = _mm256_mul_ps(em, _mm256_add_ps(_mm256_set1_ps(4.0f), em));
  __m256 y_pos = _mm256_div_ps(_mm256_mul_ps(xc, _mm256_add_ps(_mm256_set1_ps(3.0f), e2)),
                               _mm256_add_ps(_mm256_set1_ps(5.0f), e2));
  __m256 u = actq_avx2_act_scale2k(_mm256_add_ps(one, p), k);
  __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(u, u), _mm256_mul_ps(u, u)), two);
  __m256 xu = actq_avx2_act_scale2k(_mm256_add_ps(xc, _mm256_mul_ps(xc, p)), k);
  __m256 y_neg = _mm256_mul_ps(
      xu, _mm256_sub_ps(one, _mm256_div_ps(_mm256_mul_ps(u, _mm256_add_ps(u, one)), d)));
  __m256 y = actq_avx2_act_sel(actq_avx2_act_lt(x, _mm256_set1_ps(ACTQ_MISH_NEG_SPLIT_F)), y_neg, y_pos);
  return actq_avx2_act_sel(actq_avx2_act_gt(x, _mm256_set1_ps(ACTQ_MISH_X_MAX_F)), x, y);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_hardswish(__m256 x) {
  __m256 c = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(x, _mm256_set1_ps(3.0f)), _mm256_setzero_ps()),
                           _mm256_set1_ps(6.0f));
  __m256 y = _mm256_div_ps(_mm256_mul_ps(x, c), _mm256_set1_ps(6.0f));
  y = actq_avx2_act_sel(actq_avx2_act_ge(x, _mm256_set1_ps(3.0f)), x, y);
  return actq_avx2_act_sel(actq_avx2_act_le(x, _mm256_set1_ps(-3.0f)), _mm256_set1_ps(-0.0f), y);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_hardsigmoid(__m256 x) {
  __m256 c = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(x, _mm256_set1_ps(3.0f)), _mm256_setzero_ps()),
                           _mm256_set1_ps(6.0f));
  return _mm256_div_ps(c, _mm256_set1_ps(6.0f));
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_hardtanh(__m256 x) {
  return _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-1.0f)), _mm256_set1_ps(1.0f));
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_softsign(__m256 x) {
  __m256 t = actq_avx2_act_abs(x);
  __m256 y = _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), t));
  return actq_avx2_act_sel(actq_avx2_act_gt(t, _mm256_set1_ps(ACTQ_SOFTSIGN_BIG_F)),
                           actq_avx2_act_with_sign(_mm256_set1_ps(1.0f), x), y);
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_relu(__m256 x) {
  return _mm256_max_ps(x, _mm256_setzero_ps());
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_relu6(__m256 x) {
  return _mm256_min_ps(_mm256_max_ps(x, _mm256_setzero_ps()), _mm256_set1_ps(6.0f));
}

ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_leaky_relu(float slope, __m256 x) {
  __m256 y_neg = slope == 0.0f ? _mm256_set1_ps(-0.0f) : _mm256_mul_ps(_mm256_set1_ps(slope), x);
  return actq_avx2_act_sel(actq_avx2_act_ge(x, _mm256_setzero_ps()), x, y_neg);
}

#define ACTQ_AVX2_ACT_CASE(a, name) case a: y = actq_avx2_act_##name(x); break;
#define ACTQ_AVX2_ACT_CASE_P(a, name) case a: y = actq_avx2_act_##name(param, x); break;

/* The activation before any NaN handling (an unknown one: NaN) */
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_raw(int act, float param, __m256 x) {
  __m256 y;
  switch (act) {
  ACTQ_ACT_FORWARDS(ACTQ_AVX2_ACT_CASE, ACTQ_AVX2_ACT_CASE_P)
  default: y = _mm256_castsi256_ps(_mm256_set1_epi32((int)ACTQ_F32_QNAN_BITS)); break;
  }
  return y;
}

/* actq_act_forward on 8 lanes: same results lane for lane */
ACTQ_AVX2_ACT_FN __m256 actq_avx2_act_forward(int act, float param, __m256 x) {
  return actq_avx2_act_sel(_mm256_cmp_ps(x, x, _CMP_UNORD_Q),
                           _mm256_castsi256_ps(_mm256_set1_epi32((int)ACTQ_F32_QNAN_BITS)),
                           actq_avx2_act_raw(act, param, x));
}

/* actq_fewbit_forward on 8 lanes (y with every NaN canonical): a NaN x or a NaN y is
 * the canonical NaN, found by one compare of x with y */
ACTQ_AVX2_ACT_FN __m256 actq_avx2_fewbit_forward(int act, float param, __m256 x) {
  const __m256 y = actq_avx2_act_raw(act, param, x);
  return actq_avx2_act_sel(_mm256_cmp_ps(x, y, _CMP_UNORD_Q),
                           _mm256_castsi256_ps(_mm256_set1_epi32((int)ACTQ_F32_QNAN_BITS)), y);
}

#endif /* ACTQ_CPU_AVX2_ACT_AVX2_H */
