/* quant.h - the arithmetic of group quantization, shared by every backend.
 *
 * A group's metadata comes from its minimum, maximum, width and meta dtype alone
 * (actq_group_meta). Codes are computed from the *stored* minimum m and scale s:
 *     t = (x*c - m*c) / (s*c),  c = 1, or 1/2 for "wide" groups (max - m >= 2^127), so
 *                                that x - m never overflows float32
 *     stochastic: q = floor(t + u)        nearest: q = rint(t) (ties to even)
 *     q = clamp(q, 0, L),  L = 2^b - 1
 * and dequantized as y = fma(q, s, m) in float32. All float32 operations are the single
 * IEEE operations written here (no contraction), so every backend gives the same bits.
 */
#ifndef ACTQ_ARITH_QUANT_H
#define ACTQ_ARITH_QUANT_H

#include "src/arith/half.h"
#include "src/arith/philox.h"

typedef struct actq_group_meta {
  float m;      /* stored minimum (exact in the meta dtype); NaN for a nonfinite group */
  float s;      /* stored scale (exact in the meta dtype); NaN for a nonfinite group */
  float mc;     /* m * c */
  float sc;     /* s * c, or 1 when s == 0 (then every x equals m and t = 0) */
  float c;      /* 1, or 0.5 for wide groups */
  float levels; /* L = 2^b - 1, as float */
  float rcp;    /* RN(1 / sc) when rcp_ok */
  int rcp_ok;   /* the group's quotients may come from rcp (actq_quot_rcp) */
  int nonfinite;
} actq_group_meta;

/* The domain on which actq_quot_rcp is proven to give the correctly rounded quotient
 * (docs/format.md, "Codes without a division"): sc in [2^-32, 2^32] and c = 1 for the
 * group, and for each element num = 0 or num >= 2^-64. Inside it no intermediate
 * underflows or overflows, so the proof on significands carries over to every exponent. */
#define ACTQ_QUOT_SC_MIN 0x1p-32f
#define ACTQ_QUOT_SC_MAX 0x1p32f
#define ACTQ_QUOT_NUM_MIN 0x1p-64f

ACTQ_HD float actq_meta_round(double v, actq_dtype meta_dtype, int dir) {
  if (meta_dtype == ACTQ_F32) return dir < 0 ? actq_f32_round_down(v) : actq_f32_round_up(v);
  return actq_h16_round_dir(v, dir, meta_dtype);
}

ACTQ_HD float actq_meta_step_up(float s, actq_dtype meta_dtype) {
  if (meta_dtype == ACTQ_F32) return actq_f32_step(s, +1);
  return actq_h16_to_f32(
      actq_h16_step(actq_f32_to_h16(s, meta_dtype), +1, actq_h16_inf_bits(meta_dtype)),
      meta_dtype);
}

ACTQ_HD void actq_group_meta_nonfinite(actq_group_meta *g, uint32_t bits) {
  g->m = g->s = actq_f32_from_bits(ACTQ_F32_QNAN_BITS);
  g->mc = 0.0f;
  g->sc = 1.0f;
  g->c = 1.0f;
  g->levels = (float)((1u << bits) - 1u);
  g->rcp = 1.0f;
  g->rcp_ok = 0;
  g->nonfinite = 1;
}

/* One element of a group's min/max scan, exactly as every backend does it: a nonfinite
 * value only marks the group; the first finite value starts the range. */
ACTQ_HD void actq_minmax_step(float v, float *lo, float *hi, int *finite, int *seen) {
  if (!actq_f32_is_finite(v)) {
    *finite = 0;
  } else if (!*seen) {
    *lo = *hi = v;
    *seen = 1;
  } else {
    *lo = v < *lo ? v : *lo;
    *hi = v > *hi ? v : *hi;
  }
}

/* Whether L*s (exact in double: 24 by 8 bits) falls short of the range d = hi + lo, i.e.
 * L*s < hi, or L*s == hi with lo > 0; false once s is Inf. The comparisons are combined
 * without short-circuit branches: the first step-up guess is right nearly always, but
 * which comparison decides varies from group to group (L*s == hi exactly is common where
 * d/L is a short binary fraction), and a mispredicted branch here costs more than the
 * whole computation. */
ACTQ_HD int actq_meta_scale_short(float s, double L, double hi, double lo) {
  const double ls = L * (double)s;
  return actq_f32_is_finite(s) & ((ls < hi) | ((ls == hi) & (lo > 0.0)));
}

/* mn, mx: the group's minimum and maximum; `finite`: 0 if the group held a NaN or Inf
 * (mn and mx are then ignored). Guarantees m <= x <= m + L*s exactly on the stored values,
 * with m the largest and s the smallest meta-dtype values that allow it. */
ACTQ_HD void actq_group_meta_compute(float mn, float mx, int finite, uint32_t bits,
                                     actq_dtype meta_dtype, actq_group_meta *g) {
  double L = (double)((1u << bits) - 1u);
  double hi = 0.0, lo, bv, av;
  float m, s;
  if (!finite) {
    actq_group_meta_nonfinite(g, bits);
    return;
  }
  m = actq_meta_round((double)mn, meta_dtype, -1);
  if (!actq_f32_is_finite(m)) {
    actq_group_meta_nonfinite(g, bits);
    return;
  }
  m = m + 0.0f; /* -0 -> +0: min over +-0 depends on evaluation order, the bytes must not */
  if (mx == m) {
    s = 0.0f;
  } else {
    /* d = mx - m exactly as hi + lo (TwoSum; doubles cannot overflow on float inputs) */
    hi = (double)mx - (double)m;
    bv = hi - (double)mx;
    av = hi - bv;
    lo = ((double)mx - av) + (-(double)m - bv);
    s = actq_meta_round(hi / L, meta_dtype, +1);
    /* hi / L was rounded once in double: step up until L*s (exact in double) covers d */
    while (actq_meta_scale_short(s, L, hi, lo)) s = actq_meta_step_up(s, meta_dtype);
    if (!actq_f32_is_finite(s)) {
      actq_group_meta_nonfinite(g, bits);
      return;
    }
  }
  g->m = m;
  g->s = s;
  g->levels = (float)L;
  g->nonfinite = 0;
  /* Wide groups: x - m could exceed FLT_MAX, so halve every operand (exact for normal
   * numbers; s >= 2^127 / 255 is normal). */
  g->c = (s != 0.0f && hi >= 0x1p127) ? 0.5f : 1.0f;
  g->mc = m * g->c;
  g->sc = s == 0.0f ? 1.0f : s * g->c;
  g->rcp_ok = g->c == 1.0f && g->sc >= ACTQ_QUOT_SC_MIN && g->sc <= ACTQ_QUOT_SC_MAX;
  g->rcp = g->rcp_ok ? 1.0f / g->sc : 1.0f;
}

ACTQ_HD float actq_fmaf(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

/* t = (x*c - m*c) / (s*c) for a finite x of the group: the division itself, as the
 * reference computes it. */
ACTQ_HD float actq_quant_t(float x, const actq_group_meta *g) {
  float xc = x * g->c;
  float num = xc - g->mc;
  return num / g->sc;
}

/* num / sc from rcp = RN(1 / sc) without a division: q = RN(num * rcp), the remainder
 * num - q*sc (one fma), and q corrected by remainder * rcp (one fma). Within the domain of
 * ACTQ_QUOT_* this is RN(num / sc) for every input: the corrected value is within 2^-45.99
 * (relative) of the quotient, so only quotients that close to a rounding midpoint could
 * round differently, and those were enumerated for every significand of sc
 * (tests/arith/test_quotient.c, scripts/check-quotient). */
ACTQ_HD float actq_quot_rcp(float num, float sc, float rcp) {
  float q = num * rcp;
  float r = actq_fmaf(-q, sc, num);
  return actq_fmaf(r, rcp, q);
}

/* Whether element `num` of an rcp_ok group is inside the proven domain. */
ACTQ_HD int actq_quot_rcp_lane_ok(float num) {
  return num == 0.0f || num >= ACTQ_QUOT_NUM_MIN;
}

/* Codes; the float clamp keeps out-of-range intermediates (t a hair above L, t + u
 * rounding up) from wrapping, the bug of 8-bit codes in fp16 in earlier code.
 * How far out of range: t is the correctly rounded quotient of RN(x*c - m*c) <=
 * RN(L*s*c), so t <= RN(L * (1 + 2^-24)) <= L + ulp(L), and rint(t) <= L. With u <= 1 -
 * 2^-17 the exact t + u is at most L + 1 - 2^-17 + ulp(L). Below 7 bits ulp(L) <= 2^-18,
 * so that bound is itself a float below L + 1 and floor(RN(t + u)) <= L: the clamp never
 * acts. At 7 and 8 bits floor(RN(t + u)) reaches L + 1 (t = L + 2^-17 or t = L, with
 * r16 = 65535), never more, and never below 0 (t >= 0, u > 0). The SIMD quantize loops
 * clamp on these facts once their codes are bytes: the unsigned saturation of the byte
 * pack holds 256 at 255, and one byte min holds 128 at 127. */
ACTQ_HD uint32_t actq_code_clamp(float q, float levels) {
  q = q < 0.0f ? 0.0f : q;
  q = q > levels ? levels : q;
  return (uint32_t)q;
}

ACTQ_HD float actq_floorf(float v) {
#if defined(__CUDA_ARCH__)
  return floorf(v);
#else
  return __builtin_floorf(v);
#endif
}

ACTQ_HD float actq_rintf(float v) {
#if defined(__CUDA_ARCH__)
  return rintf(v);
#else
  return __builtin_rintf(v); /* default rounding mode: to nearest, ties to even */
#endif
}

/* Whether every element of an rcp_ok group is inside actq_quot_rcp's lane domain, from the
 * group alone: when |m| >= 2^-40, every float x > m has x - m >= 2^-64 (x - m is a positive
 * multiple of the smaller ulp of x and m; if |x| >= 2^-41 that ulp is >= 2^-64, and
 * otherwise x - m >= |m| - |x| > 2^-41), so num = RN(x - m) is 0 or >= 2^-64. */
ACTQ_HD int actq_quot_rcp_group_ok(const actq_group_meta *g) {
  return g->rcp_ok && (g->m >= 0x1p-40f || g->m <= -0x1p-40f);
}

/* The codes of a finite group from its quotient t (however t was computed, it is the
 * correctly rounded (x*c - m*c) / (s*c), so 0 <= t and t + u < 2^23) and the noise value
 * u. On the device the rounding to an integer is one addition of 2^23 (the floats in
 * [2^23, 2^24) are the integers, and the sum's low bits are the integer): rounding toward
 * -Inf gives floor(t + u), to nearest-even gives rint(t). That replaces a floor or rint
 * and a float-to-integer conversion, quarter-rate instructions there; t + u >= 0 makes
 * the lower clamp a no-op. */
#if defined(__CUDA_ARCH__)
/* The code q of biased = 2^23 + q (its low significand bits), clamped to L. */
ACTQ_HD uint32_t actq_code_clamp_biased(float biased, float levels) {
  const uint32_t q = actq_f32_bits(biased) & 0x7fffffu;
  const uint32_t L = actq_f32_bits(levels + 8388608.0f) & 0x7fffffu; /* per group: hoisted */
  return q < L ? q : L;
}
#endif

ACTQ_HD uint32_t actq_code_stochastic_t(float t, float u, float levels) {
#if defined(__CUDA_ARCH__)
  return actq_code_clamp_biased(__fadd_rd(t + u, 8388608.0f), levels);
#else
  return actq_code_clamp(actq_floorf(t + u), levels);
#endif
}

ACTQ_HD uint32_t actq_code_nearest_t(float t, float levels) {
#if defined(__CUDA_ARCH__)
  return actq_code_clamp_biased(t + 8388608.0f, levels);
#else
  return actq_code_clamp(actq_rintf(t), levels);
#endif
}

/* The same codes as the bits of the float 2^23 + code ("biased"), already clamped:
 * levels_biased is the bits of levels + 2^23. The bits of the floats in [2^23, 2^24)
 * order as the integers they hold, so the clamp is one integer min on the bits, and a
 * packer subtracts the 2^23s once per word (actq_pack_word_biased) instead of masking each
 * code: on the GPU two instructions a code fewer. The host computes the same bits through
 * floor and rint (t + u and t are below 2^22, so adding 2^23 is exact). */
ACTQ_HD uint32_t actq_code_stochastic_biased(float t, float u, uint32_t levels_biased) {
#if defined(__CUDA_ARCH__)
  const uint32_t b = actq_f32_bits(__fadd_rd(t + u, 8388608.0f));
#else
  const uint32_t b = actq_f32_bits(actq_floorf(t + u) + 8388608.0f);
#endif
  return b < levels_biased ? b : levels_biased;
}

ACTQ_HD uint32_t actq_code_nearest_biased(float t, uint32_t levels_biased) {
#if defined(__CUDA_ARCH__)
  const uint32_t b = actq_f32_bits(t + 8388608.0f);
#else
  const uint32_t b = actq_f32_bits(actq_rintf(t) + 8388608.0f);
#endif
  return b < levels_biased ? b : levels_biased;
}

ACTQ_HD uint32_t actq_code_stochastic(float x, const actq_group_meta *g, uint16_t r16) {
  if (g->nonfinite) return 0;
  return actq_code_stochastic_t(actq_quant_t(x, g), actq_noise_u(r16), g->levels);
}

ACTQ_HD uint32_t actq_code_nearest(float x, const actq_group_meta *g) {
  if (g->nonfinite) return 0;
  return actq_code_nearest_t(actq_quant_t(x, g), g->levels);
}

/* (float)q for a code q < 2^23, from bits: 2^23 + q has q as its significand, and
 * subtracting 2^23 is exact. Avoids an integer-to-float conversion, a quarter-rate
 * instruction on GPUs. */
ACTQ_HD float actq_code_float(uint32_t q) {
  return actq_f32_from_bits(0x4b000000u | q) - 8388608.0f;
}

/* y = fma(q, s, m) without the NaN rule: the value when m and s are finite (then y is
 * finite or infinite, never NaN). */
ACTQ_HD float actq_dequant_finite(uint32_t q, float m, float s) {
  return actq_fmaf(actq_code_float(q), s, m);
}

/* y = fma(q, s, m); NaN (from NaN metadata) made canonical. */
ACTQ_HD float actq_dequant(uint32_t q, float m, float s) {
  float y = actq_dequant_finite(q, m, s);
  return y != y ? actq_f32_from_bits(ACTQ_F32_QNAN_BITS) : y;
}

#endif /* ACTQ_ARITH_QUANT_H */
