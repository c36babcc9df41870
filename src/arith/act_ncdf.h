/* act_ncdf.h - the standard normal CDF Phi pieces behind the exact GELU (act.h).
 *
 * GELU(x) = x Phi(x) = x erfc(-x/sqrt2)/2 is written with Phi in x directly (no x/sqrt2
 * rounding) in two regimes:
 * - |x| < 43/64: Phi(x) = 1/2 + x P(x^2), P a degree-7 fit of (Phi(x)-1/2)/x (error
 *   2^-28.6). 43/64 keeps Phi(x) >= 1/4 on the negative side, so the sum does not cancel.
 * - |x| >= 43/64: the upper tail Q(t) = 1 - Phi(t) = e^(-t^2/2) g(t), g = Q e^(t^2/2) (the
 *   Mills ratio over sqrt(2 pi)), fitted on 8 pieces of [43/64, 14.75] by degree-9
 *   polynomials in t - mid (tools/act_fit.py, relative error <= 2^-26.5 with float
 *   coefficients; the constant term is a float pair). t - mid is exact (Sterbenz: every
 *   piece's ends are within a factor 1.5). t^2/2 enters the exponent as the exact hi part
 *   t_hi^2/2 (t_hi = t with 12 bits) plus t_lo (t + t_hi)/2: e^(-t^2/2) falls to 2^-150 at
 *   t = 14.4, where a float t^2 alone would be off by up to 2^-17 in the exponent.
 * AVX2 selects each lane's coefficients with vpermps on the piece index.
 */
#ifndef ACTQ_ARITH_ACT_NCDF_H
#define ACTQ_ARITH_ACT_NCDF_H

#include "src/arith/act_exp.h"

/* The tail [43/64, 14.75] is cut at the inner edges below into ACTQ_NCDF_NPIECE pieces:
 * piece i covers [edge i-1, edge i), edge -1 = CENTRAL_MAX and edge NPIECE-1 = TAIL_MAX.
 * EDGES(STEP, i, t) expands to STEP(i, t, edge) for each inner edge, in increasing order
 * (tools/act_fit.py fits on the same pieces). */
#define ACTQ_NCDF_CENTRAL_MAX_F 0.671875f
#define ACTQ_NCDF_TAIL_MAX_F 14.75f
#define ACTQ_NCDF_EDGES(STEP, i, t) \
  STEP(i, t, 1.0f) STEP(i, t, 1.5f) STEP(i, t, 2.25f) STEP(i, t, 3.375f) STEP(i, t, 5.0f) \
  STEP(i, t, 7.5f) STEP(i, t, 11.0f)
#define ACTQ_NCDF_PLUS_ONE(i, t, e) + 1
#define ACTQ_NCDF_NPIECE (1 ACTQ_NCDF_EDGES(ACTQ_NCDF_PLUS_ONE, , ))
#define ACTQ_NCDF_NCOEF 11 /* c0 hi, c0 lo, c1..c9 */

/* P(s), s = x^2 (tools/act_fit.py, phi_central); its constant term a float pair */
#define ACTQ_NCDF_CENTRAL_POLY(FIRST, NEXT, ADD, p, x) \
  FIRST(p, x, -0x1.40d0c8p-25f) NEXT(p, x, 0x1.640c18p-21f) NEXT(p, x, -0x1.3ce004p-17f) \
  NEXT(p, x, 0x1.e42ad2p-14f) NEXT(p, x, -0x1.374040p-10f) NEXT(p, x, 0x1.46d042p-7f) \
  NEXT(p, x, -0x1.105838p-4f) NEXT(p, x, -0x1.857936p-27f) ADD(p, x, 0x1.988454p-2f)

/* Phi(x) - 1/2 = x P(x^2) for |x| < 43/64 */
ACTQ_HD float actq_ncdf_central_p(float s) {
  float p;
  ACTQ_HORNER(ACTQ_NCDF_CENTRAL_POLY, p, s);
  return p;
}

/* Tail pieces: centres and coefficients by power. CUDA device code cannot read host
 * arrays, so under nvcc the tables are also defined in __constant__ memory, from the same
 * initializers, and ACTQ_NCDF_MID / ACTQ_NCDF_COEF name the copy the compiling side sees. */
#define ACTQ_NCDF_MID_INIT {0.8359375f, 1.25f, 1.875f, 2.8125f, 4.1875f, 6.25f, 9.25f, 12.875f}
#define ACTQ_NCDF_COEF_INIT { \
  {0x1.24c410p-2f, 0x1.d898dep-3f, 0x1.690b32p-3f, 0x1.06c322p-3f, 0x1.72fc72p-4f, 0x1.fe6e5ep-5f, 0x1.5d51d0p-5f, 0x1.f8a9a8p-6f}, /* c0 hi */ \
  {-0x1.58113ap-27f, 0x1.38dfe4p-32f, 0x1.cf4e24p-28f, 0x1.d88bc0p-28f, -0x1.406866p-30f, 0x1.8cc1cap-32f, -0x1.d6753ep-31f, -0x1.94d3f4p-33f}, /* c0 lo */ \
  {-0x1.4790dcp-3f, -0x1.c49322p-4f, -0x1.18274ep-4f, -0x1.380f52p-5f, -0x1.4240c4p-6f, -0x1.37c334p-7f, -0x1.276ed2p-8f, -0x1.35e71cp-9f}, /* c1 */ \
  {0x1.37b506p-4f, 0x1.7b79d2p-5f, 0x1.899966p-6f, 0x1.5ac2f0p-7f, 0x1.0d0528p-8f, 0x1.74d5b8p-10f, 0x1.ee6b56p-12f, 0x1.7a6e14p-13f}, /* c2 */ \
  {-0x1.070af0p-5f, -0x1.1f33fep-6f, -0x1.fe2774p-8f, -0x1.6bf6aep-9f, -0x1.b14e98p-11f, -0x1.b50500p-13f, -0x1.99759ep-15f, -0x1.cb8204p-17f}, /* c3 */ \
  {0x1.9386e8p-7f, 0x1.8ff2a8p-8f, 0x1.34eddcp-9f, 0x1.6b6636p-11f, 0x1.51b0c2p-13f, 0x1.f69faep-16f, 0x1.4fb7c2p-18f, 0x1.156f28p-20f}, /* c4 */ \
  {-0x1.1df062p-8f, -0x1.038d10p-9f, -0x1.60da64p-11f, -0x1.5b098ap-13f, -0x1.fea7bcp-16f, -0x1.1bdb3ap-18f, -0x1.10926cp-21f, -0x1.4d2e02p-24f}, /* c5 */ \
  {0x1.7aae3ap-10f, 0x1.3cf4eap-11f, 0x1.7eaf4ap-13f, 0x1.3e3a00p-15f, 0x1.77183cp-18f, 0x1.3a9678p-21f, 0x1.b5897cp-25f, 0x1.8da660p-28f}, /* c6 */ \
  {-0x1.d8af98p-12f, -0x1.6ed914p-13f, -0x1.8c6b5cp-15f, -0x1.1983d0p-17f, -0x1.0cc042p-20f, -0x1.57d102p-24f, -0x1.5ce274p-28f, -0x1.d898eap-32f}, /* c7 */ \
  {0x1.194e86p-13f, 0x1.98eadap-15f, 0x1.918a86p-17f, 0x1.f1bbdep-20f, 0x1.89f29cp-23f, 0x1.8c0038p-27f, 0x1.28d6b0p-31f, 0x1.250e9ep-35f}, /* c8 */ \
  {-0x1.3d0444p-15f, -0x1.ae5086p-17f, -0x1.7dc30ep-19f, -0x1.993b68p-22f, -0x1.0a7a5ep-25f, -0x1.9ec672p-30f, -0x1.cc29cep-35f, -0x1.56a976p-39f}, /* c9 */ \
}
#if defined(__GNUC__)
#  define ACTQ_NCDF_UNUSED __attribute__((unused)) /* not every includer calls GELU */
#else
#  define ACTQ_NCDF_UNUSED
#endif
ACTQ_NCDF_UNUSED static const float actq_ncdf_mid_host[ACTQ_NCDF_NPIECE] = ACTQ_NCDF_MID_INIT;
ACTQ_NCDF_UNUSED static const float actq_ncdf_coef_host[ACTQ_NCDF_NCOEF][ACTQ_NCDF_NPIECE] = ACTQ_NCDF_COEF_INIT;
#if defined(__CUDACC__)
static __constant__ const float actq_ncdf_mid_dev[ACTQ_NCDF_NPIECE] = ACTQ_NCDF_MID_INIT;
static __constant__ const float actq_ncdf_coef_dev[ACTQ_NCDF_NCOEF][ACTQ_NCDF_NPIECE] =
    ACTQ_NCDF_COEF_INIT;
#endif
#if defined(__CUDA_ARCH__)
#  define ACTQ_NCDF_MID actq_ncdf_mid_dev
#  define ACTQ_NCDF_COEF actq_ncdf_coef_dev
#else
#  define ACTQ_NCDF_MID actq_ncdf_mid_host
#  define ACTQ_NCDF_COEF actq_ncdf_coef_host
#endif

/* index of t's piece: the number of inner edges <= t (one compare-and-add per edge) */
#define ACTQ_NCDF_COUNT_EDGE(i, t, e) i += (t) >= (e);
ACTQ_HD int actq_ncdf_piece(float t) {
  int i = 0;
  ACTQ_NCDF_EDGES(ACTQ_NCDF_COUNT_EDGE, i, t);
  return i;
}

/* g(t) = Q(t) e^(t^2/2) for t in [43/64, 14.75] */
ACTQ_HD float actq_ncdf_tail_g(float t) {
  int i = actq_ncdf_piece(t);
  float u = t - ACTQ_NCDF_MID[i];
  float p = ACTQ_NCDF_COEF[10][i];
  p = p * u + ACTQ_NCDF_COEF[9][i];
  p = p * u + ACTQ_NCDF_COEF[8][i];
  p = p * u + ACTQ_NCDF_COEF[7][i];
  p = p * u + ACTQ_NCDF_COEF[6][i];
  p = p * u + ACTQ_NCDF_COEF[5][i];
  p = p * u + ACTQ_NCDF_COEF[4][i];
  p = p * u + ACTQ_NCDF_COEF[3][i];
  p = p * u + ACTQ_NCDF_COEF[2][i];
  p = p * u + ACTQ_NCDF_COEF[1][i];
  p = p + ACTQ_NCDF_COEF[0][i];
  return p;
}

/* -t^2/2 as hi + lo, hi exact, for t >= 0 */
ACTQ_HD float actq_neg_half_square(float t, float *lo) {
  float th = actq_act_hi12(t);
  float tl = t - th;
  *lo = -0.5f * (tl * (t + th));
  return -0.5f * (th * th);
}

#endif /* ACTQ_ARITH_ACT_NCDF_H */
