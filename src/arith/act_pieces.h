/* act_pieces.h - one polynomial piece of 16, chosen by index: how GELU (act_ncdf.h) and
 * GELU_TANH (act_gelu_tanh.h) evaluate their central forms without the exponential.
 *
 * A function f(t), t in [0, T], is 16 pieces; the caller computes the piece i from t with
 * a few rounded operations (the same on every backend) and this evaluates piece i's
 * degree-7 polynomial in u = t - mid[i] by FMA Horner from a table by power and piece
 * (row j holds c_j of the 16 pieces: AVX2 reads a row with two vpermps and a blend,
 * AVX-512 with one vpermps, cpu/act_fma_lanes.h). Tables come from tools/act_fit.py.
 *
 * CUDA device code cannot read host arrays, so under nvcc each table is also defined in
 * device memory from the same initializer (ACTQ_PIECES_TABLES) and read through the
 * read-only data cache (__ldg): a warp's lanes read different pieces, which the constant
 * cache would serialize and L1 serves as one 64-byte row. ACTQ_PIECES_TAB(name) names the
 * copy the compiling side sees.
 */
#ifndef ACTQ_ARITH_ACT_PIECES_H
#define ACTQ_ARITH_ACT_PIECES_H

#include <math.h> /* fmaf */

#include "src/arith/common.h"

#define ACTQ_PIECES_N 16
#define ACTQ_PIECES_DEG 7

#if defined(__GNUC__)
#  define ACTQ_PIECES_UNUSED __attribute__((unused)) /* not every includer calls them */
#else
#  define ACTQ_PIECES_UNUSED
#endif

/* name##_mid_host[16], name##_coef_host[DEG + 1][16] (and _dev under nvcc) */
#if defined(__CUDACC__)
#  define ACTQ_PIECES_TABLES(name, MID_INIT, COEF_INIT)                                    \
  ACTQ_PIECES_UNUSED static const float name##_mid_host[ACTQ_PIECES_N] = MID_INIT;         \
  ACTQ_PIECES_UNUSED static const float name##_coef_host[ACTQ_PIECES_DEG + 1][ACTQ_PIECES_N] = \
      COEF_INIT;                                                                           \
  static __device__ const float name##_mid_dev[ACTQ_PIECES_N] = MID_INIT;                  \
  static __device__ const float name##_coef_dev[ACTQ_PIECES_DEG + 1][ACTQ_PIECES_N] = COEF_INIT;
#else
#  define ACTQ_PIECES_TABLES(name, MID_INIT, COEF_INIT)                                    \
  ACTQ_PIECES_UNUSED static const float name##_mid_host[ACTQ_PIECES_N] = MID_INIT;         \
  ACTQ_PIECES_UNUSED static const float name##_coef_host[ACTQ_PIECES_DEG + 1][ACTQ_PIECES_N] = \
      COEF_INIT;
#endif
#if defined(__CUDA_ARCH__)
#  define ACTQ_PIECES_TAB(name) name##_dev
#  define ACTQ_PIECES_LD(p) __ldg(p)
#else
#  define ACTQ_PIECES_TAB(name) name##_host
#  define ACTQ_PIECES_LD(p) (*(p))
#endif

/* piece i's polynomial at t: mid and coef are a table's ACTQ_PIECES_TAB(name##_mid) and
 * ACTQ_PIECES_TAB(name##_coef) */
ACTQ_HD float actq_pieces_poly(const float *mid, const float (*coef)[ACTQ_PIECES_N], int i,
                               float t) {
  float u = t - ACTQ_PIECES_LD(mid + i);
  float p = ACTQ_PIECES_LD(&coef[ACTQ_PIECES_DEG][i]);
  for (int j = ACTQ_PIECES_DEG - 1; j >= 0; j--) p = fmaf(p, u, ACTQ_PIECES_LD(&coef[j][i]));
  return p;
}

#endif /* ACTQ_ARITH_ACT_PIECES_H */
