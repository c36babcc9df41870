/* half.h - float16 and bfloat16 conversions, round-to-nearest-even and directed.
 *
 * Written out in integer arithmetic so that they give the same bits on every compiler and
 * device. f16/bf16 -> f32 is exact (a signalling f16 NaN becomes quiet, as in F16C; bf16
 * keeps every bit). f32 -> f16/bf16 rounds to nearest-even, overflows to
 * Inf, and turns a NaN into a quiet NaN keeping the top payload bits (the F16C rule).
 * The directed conversions from double serve the group metadata, whose minimum must be
 * rounded down and scale rounded up (docs/format.md).
 */
#ifndef ACTQ_ARITH_HALF_H
#define ACTQ_ARITH_HALF_H

#include "src/arith/common.h"

ACTQ_HD float actq_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1fu) {
    /* Inf, or NaN made quiet with its payload kept (what F16C's vcvtph2ps does) */
    bits = sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0u);
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    /* subnormal: value = mant * 2^-24; normalize */
    uint32_t e = 113u; /* biased f32 exponent of 2^-14 */
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      e--;
    }
    bits = sign | (e << 23) | ((mant & 0x3ffu) << 13);
  }
  return actq_f32_from_bits(bits);
}

ACTQ_HD uint16_t actq_f32_to_f16(float f) {
  uint32_t x = actq_f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) /* NaN: quiet, top payload bits kept */
    return (uint16_t)(sign | 0x7e00u | ((absx >> 13) & 0x3ffu));
  if (absx >= 0x477ff000u) /* >= 65520 rounds to Inf */
    return (uint16_t)(sign | 0x7c00u);
  if (absx >= 0x38800000u) { /* normal f16 range, >= 2^-14 */
    uint32_t r = absx - 0x38000000u; /* rebias exponent 127 -> 15 */
    r += 0x0fffu + ((r >> 13) & 1u);  /* round to nearest even at bit 13 */
    return (uint16_t)(sign | (r >> 13));
  }
  if (absx < 0x33000000u) /* < 2^-25: rounds to zero (2^-25 itself ties to even 0) */
    return (uint16_t)sign;
  {
    /* subnormal f16: value = m * 2^-24 with m in [0, 1023] (1024 carries into normal) */
    uint32_t e = absx >> 23;                   /* 102..112 */
    uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e;                 /* 14..24: mant * 2^(e-150) / 2^-24 */
    uint32_t q = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u)))
      q++;
    return (uint16_t)(sign | q);
  }
}

ACTQ_HD float actq_bf16_to_f32(uint16_t h) { return actq_f32_from_bits((uint32_t)h << 16); }

ACTQ_HD uint16_t actq_f32_to_bf16(float f) {
  uint32_t x = actq_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

/* ---- directed rounding, for metadata ---------------------------------------------------
 * Each returns the rounded value as a float (exact in the target dtype); a value beyond
 * the dtype's finite range comes back as +-Inf. Rounding down twice (double -> f32 -> f16)
 * equals rounding down once, since every f16/bf16 value is an f32 value. */

/* next float toward +Inf (dir > 0) or -Inf (dir < 0); x finite or infinite, not NaN. */
ACTQ_HD float actq_f32_step(float x, int dir) {
  uint32_t u = actq_f32_bits(x);
  if ((u & 0x7fffffffu) == 0) /* +-0 */
    return actq_f32_from_bits(dir > 0 ? 0x00000001u : 0x80000001u);
  if (((u >> 31) == 0) == (dir > 0)) {
    if ((u & 0x7fffffffu) == 0x7f800000u) return x; /* Inf stays */
    u++;
  } else {
    u--;
  }
  return actq_f32_from_bits(u);
}

ACTQ_HD float actq_f32_round_down(double d) {
  float f = (float)d;
  if ((double)f > d) f = actq_f32_step(f, -1);
  return f;
}

ACTQ_HD float actq_f32_round_up(double d) {
  float f = (float)d;
  /* d > 0 (every scale): f is +0, positive or +Inf, and one step up is the next bit
   * pattern (+0 -> the least subnormal, FLT_MAX -> +Inf; +Inf is never below d). Written
   * as an addition of the comparison, without a branch: whether RN(d) fell below d is a
   * coin toss that a branch predictor cannot learn. The sign of d, by contrast, is
   * predictable; one formula for both signs (adding -1 for a negative f) measured 2%
   * slower on quantize with groups of 64 (Zen 1). */
  if (d > 0.0) return actq_f32_from_bits(actq_f32_bits(f) + (uint32_t)((double)f < d));
  if ((double)f < d) f = actq_f32_step(f, +1);
  return f;
}

/* The same one step on a sign-magnitude 16-bit pattern (f16 and bf16 alike). */
ACTQ_HD uint16_t actq_h16_step(uint16_t h, int dir, uint16_t inf_bits) {
  if ((h & 0x7fffu) == 0) return dir > 0 ? (uint16_t)0x0001u : (uint16_t)0x8001u;
  if (((h >> 15) == 0) == (dir > 0)) {
    if ((h & 0x7fffu) == inf_bits) return h;
    return (uint16_t)(h + 1u);
  }
  return (uint16_t)(h - 1u);
}

/* The two 16-bit formats through one interface, t = ACTQ_F16 or ACTQ_BF16. */
ACTQ_HD uint16_t actq_f32_to_h16(float f, actq_dtype t) {
  return t == ACTQ_F16 ? actq_f32_to_f16(f) : actq_f32_to_bf16(f);
}

ACTQ_HD float actq_h16_to_f32(uint16_t h, actq_dtype t) {
  return t == ACTQ_F16 ? actq_f16_to_f32(h) : actq_bf16_to_f32(h);
}

/* The bits of +Inf, where actq_h16_step stops. */
ACTQ_HD uint16_t actq_h16_inf_bits(actq_dtype t) { return t == ACTQ_F16 ? 0x7c00u : 0x7f80u; }

/* The order key of a 16-bit float (sign and magnitude): k = h ^ ((h >> 15) & 0x7fff) as a
 * signed 16-bit integer orders like the values (-0 just below +0). It is its own inverse.
 * A NaN's key lies above +Inf's or below -Inf's (~inf as int16), so the min and max keys
 * of a set also tell whether it holds a NaN or an Inf: the vector pass 1 of 16-bit inputs
 * runs on keys, 32 lanes a 512-bit vector, with no conversion. */
ACTQ_HD int16_t actq_h16_key(uint16_t h) {
  return (int16_t)(h ^ ((h & 0x8000u) ? 0x7fffu : 0u));
}

/* Whether min and max keys kmin, kmax of a set of values of format t are both finite. */
ACTQ_HD int actq_h16_keys_finite(int16_t kmin, int16_t kmax, actq_dtype t) {
  const uint16_t inf = actq_h16_inf_bits(t);
  return (kmax < (int16_t)inf) & (kmin > (int16_t)(uint16_t)~inf);
}

/* What the min and max keys of a set of values of format t tell: min and max as f32, and
 * whether both are finite (the vector pass 1 of 16-bit inputs ends here). */
ACTQ_HD void actq_h16_keys_range(int16_t kmin, int16_t kmax, actq_dtype t, float *mn, float *mx,
                                 int *finite) {
  *finite = actq_h16_keys_finite(kmin, kmax, t);
  *mn = actq_h16_to_f32((uint16_t)actq_h16_key((uint16_t)kmin), t);
  *mx = actq_h16_to_f32((uint16_t)actq_h16_key((uint16_t)kmax), t);
}

/* d rounded down (dir < 0) or up (dir > 0) to a value of the 16-bit format t. */
ACTQ_HD float actq_h16_round_dir(double d, int dir, actq_dtype t) {
  float f = dir < 0 ? actq_f32_round_down(d) : actq_f32_round_up(d);
  uint16_t h = actq_f32_to_h16(f, t);
  float back = actq_h16_to_f32(h, t);
  if (dir < 0 ? back > f : back < f) h = actq_h16_step(h, dir, actq_h16_inf_bits(t));
  return actq_h16_to_f32(h, t);
}

#endif /* ACTQ_ARITH_HALF_H */
