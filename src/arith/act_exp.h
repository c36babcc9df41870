/* act_exp.h - float32 exp, expm1 and a*exp for the activation forwards (act.h) other than
 * GELU, GELU_TANH, SiLU, Sigmoid and Tanh, which use the FMA kernel of act_fexp.h.
 *
 * Every function is a fixed sequence of correctly rounded float32 operations (+ - * /,
 * comparisons used as selects, exact float<->int conversions and exponent-field bit
 * manipulation): no fma, no libm, no data-dependent loop. cpu/avx2/act_avx2.h repeats the
 * same sequence on 8 lanes, so the two give the same bits for every input; the CUDA build
 * must compile with -fmad=false (no contraction) and IEEE division/denormals (the nvcc
 * defaults without --use_fast_math). A select `c ? a : b` stands for a lane blend: both
 * sides are always finite-or-harmless, and where a value feeds a conversion to int it is
 * clamped first with a comparison that also maps NaN to the clamp (the way vmaxps treats
 * a NaN first operand), so nothing undefined happens in C for any input.
 *
 * Method: x = k ln2 + r, |r| <= ln2/2 (+ a tiny low part), with k = rint(x log2e) by the
 * 1.5*2^23 trick and ln2 split Cody-Waite style so that k*ln2_hi and x - k*ln2_hi are exact.
 * expm1(r) = r + r^2 q(r) with q a degree-6 fit (tools/act_fit.py, error 2^-30.3), and the
 * result 2^k (1 + expm1(r)) is scaled in two exact power-of-two steps so that results in
 * the subnormal range are rounded once and 2^k never has to be representable.
 * Functions that multiply by exp (Mish's x e^x) take the 1 + p factor unrounded:
 * a e^x = 2^k (a + a p), which saves one rounding against a * expf(x).
 */
#ifndef ACTQ_ARITH_ACT_EXP_H
#define ACTQ_ARITH_ACT_EXP_H

#include "src/arith/common.h"

#define ACTQ_LOG2E_F 0x1.715476p+0f
#define ACTQ_ROUND_MAGIC_F 0x1.8p+23f /* (v + M) - M = rint(v) for |v| < 2^22 */
/* ln2 = LN2_HI + LN2_LO: LN2_HI has 15 significant bits, so k*LN2_HI is exact for |k| < 2^9 */
#define ACTQ_LN2_HI_F 0x1.62e4p-1f
#define ACTQ_LN2_LO_F 0x1.7f7d1cp-20f
/* The reduction's input range: below -160 every use underflows to 0 (or is selected away),
 * above 100 overflows; keeps k in [-231, 145], within the two-step scaling's range. */
#define ACTQ_EXP_ARG_MIN_F (-160.0f)
#define ACTQ_EXP_ARG_MAX_F 100.0f

/* expm1f's argument range: below -40 the float result is -1 (it is from -17.4 on); above 88
 * it would overflow, which the activations never ask for (they call it on x <= 0). */
#define ACTQ_EXPM1_ARG_MIN_F (-40.0f)
#define ACTQ_EXPM1_ARG_MAX_F 88.0f

/* ---- polynomials ------------------------------------------------------------------------ */

/* Every polynomial of the activations is one coefficient list, highest power first, from
 * which both the scalar Horner chain below (ACTQ_HORNER) and the vector one of
 * cpu/avx2/act_avx2.h are expanded, so that its numbers are written once.
 * LIST(FIRST, NEXT, ADD, p, x) expands to FIRST(p, x, c_n) NEXT(p, x, c_n-1) ... : FIRST
 * sets p, NEXT is one step p = p x + c, and ADD, last in the lists whose constant term is a
 * float pair (hi, lo), adds hi after the step that added lo. */
#define ACTQ_HORNER_FIRST(p, x, c) p = (c);
#define ACTQ_HORNER_NEXT(p, x, c) p = p * (x) + (c);
#define ACTQ_HORNER_ADD(p, x, c) p = p + (c);
#define ACTQ_HORNER(LIST, p, x) LIST(ACTQ_HORNER_FIRST, ACTQ_HORNER_NEXT, ACTQ_HORNER_ADD, p, x)

/* ---- lane-wise helpers (each maps to one AVX2 instruction) ---------------------------- */

/* vmaxps(a, b) / vminps(a, b): the second operand when either is NaN or both are zeros */
ACTQ_HD float actq_act_max(float a, float b) { return a > b ? a : b; }
ACTQ_HD float actq_act_min(float a, float b) { return a < b ? a : b; }
ACTQ_HD float actq_act_abs(float a) { return actq_f32_from_bits(actq_f32_bits(a) & 0x7fffffffu); }
/* |a| with the sign bit of s */
ACTQ_HD float actq_act_with_sign(float a, float s) {
  return actq_f32_from_bits((actq_f32_bits(a) & 0x7fffffffu) | (actq_f32_bits(s) & 0x80000000u));
}
/* a with its 12 low significand bits cleared: 12 significant bits, so a product of two
 * such values, or of one and a 12-bit remainder, is exact in float32 */
ACTQ_HD float actq_act_hi12(float a) { return actq_f32_from_bits(actq_f32_bits(a) & 0xfffff000u); }

/* ---- double-float (unevaluated sum of two floats) helpers ------------------------------- */

/* a*b = p + *err exactly (Dekker's product with 12-bit halves), barring over/underflow */
ACTQ_HD float actq_act_two_prod(float a, float b, float *err) {
  float p = a * b;
  float ah = actq_act_hi12(a), al = a - ah;
  float bh = actq_act_hi12(b), bl = b - bh;
  *err = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
  return p;
}

/* a+b = s + *err exactly (Knuth's two-sum, no ordering needed) */
ACTQ_HD float actq_act_two_sum(float a, float b, float *err) {
  float s = a + b;
  float bb = s - a;
  *err = (a - (s - bb)) + (b - bb);
  return s;
}

/* ---- the exp kernel --------------------------------------------------------------------- */

/* q(r) of expm1(r) = r + r^2 q(r) on |r| <= 0.35 (tools/act_fit.py, expm1_q) */
#define ACTQ_EXPM1_Q_POLY(FIRST, NEXT, ADD, p, x) \
  FIRST(p, x, 0x1.a4e8c6p-16f) NEXT(p, x, 0x1.a2bfccp-13f) NEXT(p, x, 0x1.6c1412p-10f) \
  NEXT(p, x, 0x1.110fccp-7f) NEXT(p, x, 0x1.555556p-5f) NEXT(p, x, 0x1.555556p-3f) \
  NEXT(p, x, 0x1.0p-1f)

/* expm1(r) for |r| <= 0.35 */
ACTQ_HD float actq_expm1_kernel(float r) {
  float q;
  ACTQ_HORNER(ACTQ_EXPM1_Q_POLY, q, r);
  return r + (r * r) * q;
}

/* Reduces hi + lo (|lo| tiny against hi or against ln2) to e^(hi+lo) = 2^k (1 + p) and
 * returns p = expm1(r). hi is clamped to [-160, 100] first (NaN goes to -160). */
ACTQ_HD float actq_exp_reduce(float hi, float lo, int *k) {
  float h = actq_act_max(hi, ACTQ_EXP_ARG_MIN_F);
  h = actq_act_min(h, ACTQ_EXP_ARG_MAX_F);
  float kf = (h * ACTQ_LOG2E_F + ACTQ_ROUND_MAGIC_F) - ACTQ_ROUND_MAGIC_F;
  /* h - kf*LN2_HI is exact: the product has at most 23 bits and lies within a factor
   * of 2 of h (Sterbenz) or is 0 */
  float r = (h - kf * ACTQ_LN2_HI_F) - kf * ACTQ_LN2_LO_F;
  r = r + lo;
  *k = (int)kf;
  return actq_expm1_kernel(r);
}

/* 2^k as a float, k in [-126, 127] */
ACTQ_HD float actq_exp2i(int k) { return actq_f32_from_bits((uint32_t)(k + 127) << 23); }

/* y * 2^k for k in [-252, 254], rounded once: the first step is exact unless |y| 2^(k/2)
 * is below 2^-126, which the callers' operands (|y| >= 2^-8 where k < -200) exclude; only
 * the second step can round (subnormal result) or overflow.
 * k >> 1 is an arithmetic shift (gcc, clang, nvcc; vpsrad in the AVX2 version). */
ACTQ_HD float actq_scale2k(float y, int k) {
  int k1 = k >> 1;
  int k2 = k - k1;
  return (y * actq_exp2i(k1)) * actq_exp2i(k2);
}

/* e^x: within 1 ulp; 0 below -103.97 (subnormal results rounded once), +Inf above 88.72 */
ACTQ_HD float actq_expf(float x) {
  int k;
  float p = actq_exp_reduce(x, 0.0f, &k);
  return actq_scale2k(1.0f + p, k);
}

/* a * e^(hi+lo) = 2^k (a + a p): no intermediate underflow, so a product that is normal
 * is accurate even where e^x alone would be subnormal (|a| >= 2^-8 where hi < -140). */
ACTQ_HD float actq_mul_exp(float a, float hi, float lo) {
  int k;
  float p = actq_exp_reduce(hi, lo, &k);
  return actq_scale2k(a + a * p, k);
}

/* e^x - 1 for x <= 88 (the activations use x <= 0): 2^k (p + (1 - 2^-k)). 1 - 2^-k is
 * exact for |k| <= 24 and rounded beyond, where its error is below 2^-25 of the result;
 * p + (1 - 2^-k) rounds once and the scaling is exact. x is clamped to
 * [ACTQ_EXPM1_ARG_MIN_F, ACTQ_EXPM1_ARG_MAX_F]. */
ACTQ_HD float actq_expm1f(float x) {
  int k;
  float xc = actq_act_min(actq_act_max(x, ACTQ_EXPM1_ARG_MIN_F), ACTQ_EXPM1_ARG_MAX_F);
  float p = actq_exp_reduce(xc, 0.0f, &k);
  float c = 1.0f - actq_exp2i(-k);
  return (p + c) * actq_exp2i(k);
}

#endif /* ACTQ_ARITH_ACT_EXP_H */
