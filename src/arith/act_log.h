/* act_log.h - float32 log1p on [0, 1] for softplus, logsigmoid (act.h).
 *
 * Same rules as act_exp.h: fixed sequence of correctly rounded float32 operations, selects
 * instead of branches, mirrored lane for lane by cpu/avx2/act_avx2.h.
 *
 * Method (the fdlibm log1p scheme): s = 1 + u rounded, with its rounding error e = u - (s-1)
 * kept exactly (Fast2Sum, |u| <= 1); s = 2^j m, j in {0, 1}, m in [sqrt2/2, sqrt2], f = m - 1
 * exact; log(1+f) = f - (f^2/2 - w (f^2/2 + R)), w = f/(2+f), R = w^2 R1(w^2) with R1 a
 * degree-4 fit of (2 atanh(w) - 2w)/w^3 on w^2 <= (3-2sqrt2)^2 (tools/act_fit.py,
 * log1p_r; its constant's low half is dropped: R is below 0.02 of the result). The result
 * is j ln2 + log(1+f) + e/(2^j m), the last term first-order in the tiny e.
 */
#ifndef ACTQ_ARITH_ACT_LOG_H
#define ACTQ_ARITH_ACT_LOG_H

#include "src/arith/act_exp.h"

#define ACTQ_SQRT2_F 0x1.6a09e6p+0f
/* ln2 = LN2_F + LN2_LO_F to 2^-53 */
#define ACTQ_LN2_F 0x1.62e430p-1f
#define ACTQ_LN2_LO_LOG_F (-0x1.05c610p-29f)

/* R1(z), z = w^2 (tools/act_fit.py, log1p_r) */
#define ACTQ_LOG1P_R1_POLY(FIRST, NEXT, ADD, p, x) \
  FIRST(p, x, 0x1.8c9840p-3f) NEXT(p, x, 0x1.c67a3cp-3f) NEXT(p, x, 0x1.249326p-2f) \
  NEXT(p, x, 0x1.999998p-2f) NEXT(p, x, 0x1.555556p-1f)

ACTQ_HD float actq_log1p_r1(float z) {
  float p;
  ACTQ_HORNER(ACTQ_LOG1P_R1_POLY, p, z);
  return p;
}

/* log(1 + u) for u in [0, 1] (also right on [-0.29, 0]); within 1 ulp */
ACTQ_HD float actq_log1pf_unit(float u) {
  float s = 1.0f + u;
  float e = u - (s - 1.0f);
  int big = s > ACTQ_SQRT2_F;
  float m = big ? s * 0.5f : s;
  float eh = big ? e * 0.5f : e;
  float jf = big ? 1.0f : 0.0f;
  float f = m - 1.0f;
  float w = f / (2.0f + f);
  float z = w * w;
  float r = z * actq_log1p_r1(z);
  float hfsq = (0.5f * f) * f;
  float c = eh / m;
  return jf * ACTQ_LN2_F - ((hfsq - (w * (hfsq + r) + (jf * ACTQ_LN2_LO_LOG_F + c))) - f);
}

#endif /* ACTQ_ARITH_ACT_LOG_H */
