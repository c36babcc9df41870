/* quantize_step.h - nearest rounding at 1 bit without the quotient: a group's step, the
 * `step` hook of cpu/quantize_groups.h for the vector ISAs (compiled with F16C).
 *
 * Every step of a nearest code (x*c, - mc, / sc, rint, the clamp) is monotone in x, so at
 * 1 bit a group's codes are 1 exactly from a step; the ISA's `units_step` compares each
 * element against it, and the compare's mask is the packed codes.
 */
#ifndef ACTQ_CPU_QUANTIZE_STEP_H
#define ACTQ_CPU_QUANTIZE_STEP_H

#include <immintrin.h>
#include <stdint.h>

#include "cpu/quantize_groups.h"
#include "src/arith/half.h"

/* The least num = x*c - mc whose code is 1, for c = 1 (wide groups divide). The code is 1
 * where RN(num / sc) > 0.5, and the floats next to 0.5 are 0.5 - 2^-25 and 0.5 + 2^-24,
 * with a tie going to 0.5 (even): so exactly where num > sc * (0.5 + 2^-25), a product
 * that double holds exactly (48 significant bits). No division: a few scalar operations a
 * group. */
ACTQ_INLINE float actq_quantize_num_step(float sc) {
  const double d = (double)sc * (0.5 + 0x1p-25);
  const float f = (float)d; /* positive and finite: sc is */
  return actq_f32_from_bits(actq_f32_bits(f) + ((double)f <= d)); /* the next float up */
}

/* A 16-bit input value (f16, bf16) and its order key (actq_h16_key), one way and back,
 * with F16C for f16: the step hook runs once a group, and with actq_h16_round_dir and the
 * generic conversions (their branches) f16 at groups of 256 ran 0.73x in L2. */
ACTQ_INLINE float actq_h16_key_value(int32_t k, actq_dtype dt) {
  const uint16_t h = (uint16_t)actq_h16_key((uint16_t)k);
  return dt == ACTQ_BF16 ? actq_f32_from_bits((uint32_t)h << 16) : _cvtsh_ss(h);
}
ACTQ_INLINE int32_t actq_h16_nearest_key(float f, actq_dtype dt) {
  const uint32_t b = actq_f32_bits(f);
  return actq_h16_key(dt == ACTQ_BF16 ? (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16)
                                      : (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}

/* The step hook. f32: the bits of the least num whose code is 1; the codes are then
 * x - mc >= num, a subtraction and a compare a vector. 16-bit inputs: the order key of the
 * least input value whose num reaches it; the codes are then a compare of keys, with no
 * conversion. That value lies next to e = mc + the midpoint of
 * num and the float below it (computed in double): the nearest value to e, one step up
 * where its num falls short (e itself, at a tie to the even float below num). It is taken
 * only once it and the value below it are checked against num as the reference computes
 * num; where not (a sum not exact in double: exponents of mc and num far apart), the group
 * divides. */
ACTQ_INLINE int actq_quantize_step(const actq_group_meta *g, actq_dtype dt, int32_t *key) {
  const float num = actq_quantize_num_step(g->sc);
  int32_t k;
  if (g->c != 1.0f) return 0;
  if (dt == ACTQ_F32) {
    *key = (int32_t)actq_f32_bits(num);
    return 1;
  }
  k = actq_h16_nearest_key(
      (float)((double)g->mc +
              0.5 * ((double)num + (double)actq_f32_from_bits(actq_f32_bits(num) - 1u))),
      dt);
  k += actq_h16_key_value(k, dt) - g->mc < num;
  if (!(actq_h16_key_value(k, dt) - g->mc >= num) ||
      actq_h16_key_value(k - 1, dt) - g->mc >= num || k > 32767)
    return 0;
  *key = k;
  return 1;
}

#endif /* ACTQ_CPU_QUANTIZE_STEP_H */
