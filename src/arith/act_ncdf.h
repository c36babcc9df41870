/* act_ncdf.h - the upper tail of the standard normal distribution, Q(t) = 1 - Phi(t), behind
 * the exact GELU (act.h): GELU(x) = x Phi(x) is x (1 - Q(t)) for x >= 0 and x Q(t) below,
 * t = |x|, so one function of t serves both signs (1 - Q >= 1/2: no cancellation).
 *
 * - t in [0, 6]: Q itself, without the exponential. 16 pieces, piece i where
 *   i <= t (A t + B) < i + 1 (one fmaf, one product, a truncation: the same rounded
 *   operations on every backend). The pieces narrow like 1/t as Q's relative slope grows
 *   like t, so each spans about the same ratio of Q (e^0.9 to e^1.4) and one degree-7
 *   polynomial in t - mid serves it (relative error of the float coefficients <= 2^-26.7;
 *   each fit reaches 2^-20 past its edges, beyond where the product's rounding can move t).
 *   mid = 0 on the first piece (c0 = 1/2), elsewhere a float near the centre where Q(mid)
 *   is within 1/16 ulp of a float, so that c0 need not be a float pair (act_pieces.h
 *   evaluates it).
 * - t in (6, 14.75], GELU's negative tail only: x Q(t) = -e^(-t^2/2) H(t) with
 *   H(t) = t Q(t) e^(t^2/2) (0.389 to 0.397 there), one degree-11 polynomial in t - mid
 *   (2^-28.1) whose coefficients are immediates. t^2/2 enters the exponent as the exact
 *   pair t * (-t/2) + fmaf's remainder (act.h): e^(-t^2/2) falls to 2^-150 at t = 14.4,
 *   where a float t^2 alone would be off by up to 2^-17.
 * Coefficients, mids and A from tools/act_fit.py gelu.
 */
#ifndef ACTQ_ARITH_ACT_NCDF_H
#define ACTQ_ARITH_ACT_NCDF_H

#include "src/arith/act_fexp.h"
#include "src/arith/act_pieces.h"

/* t is clamped to TAIL_MAX: GELU's x Q is below 2^-150 from -14.357 on */
#define ACTQ_NCDF_TAIL_MAX_F 14.75f

/* ---- Q(t) on [0, 6] ---------------------------------------------------------------------- */

#define ACTQ_NCDF_Q_T_MAX_F 6.0f
#define ACTQ_NCDF_Q_A_F 0x1.1be024p-2f
#define ACTQ_NCDF_Q_B_F 1.0f
#define ACTQ_NCDF_Q_MID_INIT \
  {0.0f, 0x1.1f4fb0p+0f, 0x1.b0b442p+0f, 0x1.16550ep+1f, 0x1.4d90fap+1f, 0x1.7fbc32p+1f, 0x1.ae2c16p+1f, 0x1.d97adep+1f, 0x1.0125cep+2f, 0x1.147dc6p+2f, 0x1.26f08ep+2f, 0x1.389232p+2f, 0x1.497a9cp+2f, 0x1.59c93cp+2f, 0x1.69871ep+2f, 0x1.78aa46p+2f}
#define ACTQ_NCDF_Q_COEF_INIT { \
  {0x1.000000p-1f, 0x1.0c0328p-3f, 0x1.74a77cp-5f, 0x1.e61c30p-7f, 0x1.2c3006p-8f, 0x1.644776p-10f, 0x1.97942ap-12f, 0x1.c5d19ap-14f, 0x1.ec80fap-16f, 0x1.05906cp-17f, 0x1.10458ep-19f, 0x1.172948p-21f, 0x1.1a879cp-23f, 0x1.199e3cp-25f, 0x1.157646p-27f, 0x1.10e456p-29f}, /* c0 */ \
  {-0x1.988466p-2f, -0x1.b33cb2p-3f, -0x1.87a4f6p-4f, -0x1.334bf0p-5f, -0x1.b63454p-7f, -0x1.2440ecp-8f, -0x1.70e308p-10f, -0x1.bef66ap-12f, -0x1.05318ep-13f, -0x1.28553cp-15f, -0x1.475020p-17f, -0x1.622302p-19f, -0x1.78767ap-21f, -0x1.88a68cp-23f, -0x1.937212p-25f, -0x1.9c859ep-27f}, /* c1 */ \
  {0x1.0988cap-17f, 0x1.e87882p-4f, 0x1.4afd0ep-4f, 0x1.4e1a8cp-5f, 0x1.1d7d20p-6f, 0x1.b613fep-8f, 0x1.35ee6ap-9f, 0x1.9d55e8p-11f, 0x1.065d54p-12f, 0x1.400d82p-14f, 0x1.79199ap-16f, 0x1.b064eep-18f, 0x1.e4849cp-20f, 0x1.092e90p-21f, 0x1.1ce06ep-23f, 0x1.2f7b5ap-25f}, /* c2 */ \
  {0x1.10079ap-4f, -0x1.2d4876p-7f, -0x1.e4d74ep-6f, -0x1.7de600p-6f, -0x1.a6f3f2p-7f, -0x1.851126p-8f, -0x1.3c74eap-9f, -0x1.d867b2p-11f, -0x1.499f48p-12f, -0x1.b433b6p-14f, -0x1.140090p-15f, -0x1.51352ap-17f, -0x1.9009ecp-19f, -0x1.cd38a6p-21f, -0x1.03cc72p-22f, -0x1.2116fcp-24f}, /* c3 */ \
  {0x1.747f34p-12f, -0x1.1b5f48p-6f, -0x1.f91da0p-11f, 0x1.80f828p-8f, 0x1.68c616p-8f, 0x1.b52b64p-9f, 0x1.ac7708p-10f, 0x1.6ff978p-11f, 0x1.1f5e22p-12f, 0x1.a1c290p-14f, 0x1.1e8cccp-15f, 0x1.77ad00p-17f, 0x1.da7530p-19f, 0x1.21611ep-20f, 0x1.5720f4p-22f, 0x1.900860p-24f}, /* c4 */ \
  {-0x1.63494ep-7f, 0x1.59053cp-8f, 0x1.381cfcp-8f, 0x1.ebaadap-11f, -0x1.e8dac0p-11f, -0x1.22c518p-10f, -0x1.822c24p-11f, -0x1.92ab02p-12f, -0x1.6ae0c4p-13f, -0x1.2768e2p-14f, -0x1.bd647cp-16f, -0x1.3c6416p-17f, -0x1.ac93d0p-19f, -0x1.164544p-20f, -0x1.5ce3ccp-22f, -0x1.aba8fep-24f}, /* c5 */ \
  {0x1.264b12p-10f, 0x1.58da34p-10f, -0x1.39cd8cp-10f, -0x1.265376p-10f, -0x1.59e09ap-12f, 0x1.c4a392p-14f, 0x1.946760p-13f, 0x1.2c2e02p-13f, 0x1.4dc7acp-14f, 0x1.3bcf66p-15f, 0x1.0b486cp-16f, 0x1.a1da12p-18f, 0x1.330994p-19f, 0x1.ab7f0ep-21f, 0x1.1d7970p-22f, 0x1.71dd56p-24f}, /* c6 */ \
  {0x1.1c5524p-11f, -0x1.ba4128p-11f, -0x1.0b0e66p-12f, 0x1.231926p-12f, 0x1.d3c5fcp-13f, 0x1.59c3e0p-14f, -0x1.401126p-19f, -0x1.0542e0p-15f, -0x1.b1c2dep-16f, -0x1.03891ep-16f, -0x1.ebea72p-18f, -0x1.ac3a40p-19f, -0x1.57b43ap-20f, -0x1.f71e04p-22f, -0x1.69fc50p-23f, -0x1.f9e2acp-25f}, /* c7 */ \
}
ACTQ_PIECES_TABLES(actq_ncdf_q, ACTQ_NCDF_Q_MID_INIT, ACTQ_NCDF_Q_COEF_INIT)

/* the piece of t in [0, 6]: t (A t + B) < 15.99 there */
ACTQ_HD int actq_ncdf_q_piece(float t) {
  return (int)(t * fmaf(t, ACTQ_NCDF_Q_A_F, ACTQ_NCDF_Q_B_F));
}

/* Q(t) = 1 - Phi(t) for t in [0, 6] */
ACTQ_HD float actq_ncdf_q(float t) {
  return actq_pieces_poly(ACTQ_PIECES_TAB(actq_ncdf_q_mid), ACTQ_PIECES_TAB(actq_ncdf_q_coef),
                          actq_ncdf_q_piece(t), t);
}

/* ---- H(t) = t Q(t) e^(t^2/2) on [6, 14.75] ------------------------------------------------ */

#define ACTQ_NCDF_H_MID_F 0x1.4c1180p+3f
#define ACTQ_NCDF_H_POLY(FIRST, NEXT, p, x) \
  FIRST(p, x, 0x1.15cf7cp-42f) NEXT(p, x, -0x1.66863ep-39f) NEXT(p, x, 0x1.b43dbep-37f) \
  NEXT(p, x, -0x1.1c6a70p-33f) NEXT(p, x, 0x1.b65ab8p-30f) NEXT(p, x, -0x1.0b08b0p-26f) \
  NEXT(p, x, 0x1.370434p-23f) NEXT(p, x, -0x1.64bf7cp-20f) NEXT(p, x, 0x1.8616d6p-17f) \
  NEXT(p, x, -0x1.8c3cc2p-14f) NEXT(p, x, 0x1.62d478p-11f) NEXT(p, x, 0x1.94d308p-2f)

ACTQ_HD float actq_ncdf_h(float t) {
  float u = t - ACTQ_NCDF_H_MID_F;
  float p;
  ACTQ_FHORNER(ACTQ_NCDF_H_POLY, p, u);
  return p;
}

#endif /* ACTQ_ARITH_ACT_NCDF_H */
