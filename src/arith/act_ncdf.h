/* act_ncdf.h - the upper tail of the standard normal distribution behind the exact GELU
 * (act.h).
 *
 * GELU(x) = x Phi(x) is written with the tail Q(t) = 1 - Phi(t), t = |x|, in one form for
 * every x: Q(t) = e^(-t^2/2) g(t), g = Q e^(t^2/2) (the Mills ratio over sqrt(2 pi)), which
 * is smooth on [0, 14.75] (g(0) = 1/2); GELU is x (1 - Q) for x >= 0 (1 - Q >= 1/2, no
 * cancellation) and x Q below. g is one polynomial per piece, 8 pieces chosen by the bits
 * of t + 1 (its exponent and first significand bit: [0, 1/2) [1/2, 1) [1, 2) [2, 3) [3, 5)
 * [5, 7) [7, 11) [11, 14.75]; t + 1 may round up into the next piece, whose fit starts
 * 2^-21 lower), each of degree 8 in t - mid (exact by Sterbenz; mid = 0 on the first
 * piece, elsewhere a float near the centre where g(mid) is within 1/16 ulp of a float, so
 * that c0 need not be a float pair), evaluated by FMA Horner from a table by power and
 * piece (tools/act_fit.py fma; relative error of the float coefficients <= 2^-27.5). AVX2
 * reads a table row with one vpermps on the piece index; no other piece is evaluated.
 * t^2/2 enters the exponent as the exact pair t * (-t/2) + fmaf's remainder: e^(-t^2/2)
 * falls to 2^-150 at t = 14.4, where a float t^2 alone would be off by up to 2^-17.
 */
#ifndef ACTQ_ARITH_ACT_NCDF_H
#define ACTQ_ARITH_ACT_NCDF_H

#include "src/arith/act_fexp.h"

/* t is clamped to TAIL_MAX: GELU's x Q is below 2^-150 from -14.357 on, 1 - Q rounds to 1
 * from 5.4 on */
#define ACTQ_NCDF_TAIL_MAX_F 14.75f
#define ACTQ_NCDF_NPIECE 8
#define ACTQ_NCDF_DEG 8
/* piece of t = (bits(t + 1) >> PIECE_SHIFT) - PIECE_BASE: bits(1.0f) >> 22 = 254 */
#define ACTQ_NCDF_PIECE_SHIFT 22
#define ACTQ_NCDF_PIECE_BASE 254
/* the pieces' lower edges, for the tests */
#define ACTQ_NCDF_EDGES(STEP, i, t) \
  STEP(i, t, 0.5f) STEP(i, t, 1.0f) STEP(i, t, 2.0f) STEP(i, t, 3.0f) STEP(i, t, 5.0f) \
  STEP(i, t, 7.0f) STEP(i, t, 11.0f)

/* Centres and coefficients by power (c0 first). CUDA device code cannot read host arrays,
 * so under nvcc the tables are also defined in __constant__ memory, from the same
 * initializers, and ACTQ_NCDF_MID / ACTQ_NCDF_COEF name the copy the compiling side sees. */
#define ACTQ_NCDF_MID_INIT \
  {0.0f, 0x1.801000p-1f, 0x1.7ff000p+0f, 0x1.3ff000p+1f, 0x1.000800p+2f, 0x1.801000p+2f, 0x1.200800p+3f, 0x1.9c0f00p+3f}
#define ACTQ_NCDF_COEF_INIT { \
  {0x1.000000p-1f, 0x1.336a94p-2f, 0x1.a57be4p-3f, 0x1.217e00p-3f, 0x1.82a9d4p-4f, 0x1.094b86p-4f, 0x1.66c2fcp-5f, 0x1.f89780p-6f}, /* c0 */ \
  {-0x1.988454p-2f, -0x1.63d592p-3f, -0x1.71d250p-4f, -0x1.75c75ap-5f, -0x1.5ce69cp-6f, -0x1.504eb4p-7f, -0x1.37706ap-8f, -0x1.35d0f0p-9f}, /* c1 */ \
  {0x1.00001cp-2f, 0x1.5bea12p-4f, 0x1.205352p-5f, 0x1.bf68acp-7f, 0x1.2dc280p-8f, 0x1.a0bf30p-10f, 0x1.0b58b4p-11f, 0x1.7a458ap-13f}, /* c2 */ \
  {-0x1.105b22p-3f, -0x1.2c7582p-5f, -0x1.99a2e0p-7f, -0x1.f668c0p-9f, -0x1.f6758ep-11f, -0x1.f982e8p-13f, -0x1.c60e6ap-15f, -0x1.cb40cep-17f}, /* c3 */ \
  {0x1.00254ap-4f, 0x1.d60fc2p-7f, 0x1.0d85d6p-8f, 0x1.0aef0ep-10f, 0x1.940760p-13f, 0x1.2c97a8p-15f, 0x1.7d8a46p-18f, 0x1.1553e6p-20f}, /* c4 */ \
  {-0x1.b5a334p-6f, -0x1.53eadap-8f, -0x1.4bcf1cp-10f, -0x1.0e5d50p-12f, -0x1.3a14a8p-15f, -0x1.5df70cp-18f, -0x1.3c50a4p-21f, -0x1.4cd862p-24f}, /* c5 */ \
  {0x1.5a8476p-7f, 0x1.05af20p-9f, 0x1.7e8868p-12f, 0x1.04ed6ap-14f, 0x1.dc3fb8p-18f, 0x1.855358p-21f, 0x1.044478p-24f, 0x1.8531eap-28f}, /* c6 */ \
  {-0x1.ea3a5ap-9f, -0x1.0dea54p-11f, -0x1.bf3fa4p-14f, -0x1.df744ap-17f, -0x1.78e3a8p-20f, -0x1.ddbcf8p-24f, -0x1.d3a0b2p-28f, -0x1.e746ccp-32f}, /* c7 */ \
  {0x1.c9826ap-11f, -0x1.ab799ap-10f, 0x1.21071cp-15f, 0x1.dde5eap-19f, 0x1.05e182p-22f, 0x1.abf2aep-26f, 0x1.7c63c2p-31f, 0x1.a658c0p-35f}, /* c8 */ \
}
#if defined(__GNUC__)
#  define ACTQ_NCDF_UNUSED __attribute__((unused)) /* not every includer calls GELU */
#else
#  define ACTQ_NCDF_UNUSED
#endif
ACTQ_NCDF_UNUSED static const float actq_ncdf_mid_host[ACTQ_NCDF_NPIECE] = ACTQ_NCDF_MID_INIT;
ACTQ_NCDF_UNUSED static const float actq_ncdf_coef_host[ACTQ_NCDF_DEG + 1][ACTQ_NCDF_NPIECE] =
    ACTQ_NCDF_COEF_INIT;
#if defined(__CUDACC__)
static __constant__ const float actq_ncdf_mid_dev[ACTQ_NCDF_NPIECE] = ACTQ_NCDF_MID_INIT;
static __constant__ const float actq_ncdf_coef_dev[ACTQ_NCDF_DEG + 1][ACTQ_NCDF_NPIECE] =
    ACTQ_NCDF_COEF_INIT;
#endif
#if defined(__CUDA_ARCH__)
#  define ACTQ_NCDF_MID actq_ncdf_mid_dev
#  define ACTQ_NCDF_COEF actq_ncdf_coef_dev
#else
#  define ACTQ_NCDF_MID actq_ncdf_mid_host
#  define ACTQ_NCDF_COEF actq_ncdf_coef_host
#endif

/* the piece of t in [0, 14.75] */
ACTQ_HD int actq_ncdf_piece(float t) {
  return (int)(actq_f32_bits(t + 1.0f) >> ACTQ_NCDF_PIECE_SHIFT) - ACTQ_NCDF_PIECE_BASE;
}

/* g(t) = Q(t) e^(t^2/2) for t in [0, 14.75] */
ACTQ_HD float actq_ncdf_g(float t) {
  int i = actq_ncdf_piece(t);
  float u = t - ACTQ_NCDF_MID[i];
  float p = ACTQ_NCDF_COEF[ACTQ_NCDF_DEG][i];
  for (int j = ACTQ_NCDF_DEG - 1; j >= 0; j--) p = fmaf(p, u, ACTQ_NCDF_COEF[j][i]);
  return p;
}

#endif /* ACTQ_ARITH_ACT_NCDF_H */
