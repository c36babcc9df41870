/* act_fexp.h - the FMA exp kernel of the throughput activations (GELU, GELU_TANH, SiLU,
 * Sigmoid, Tanh in act.h).
 *
 * The rules of act_exp.h hold (a fixed sequence of correctly rounded operations, selects
 * for branches, mirrored lane for lane by cpu/avx2/act_avx2.h), with one more operation:
 * the fused multiply-add fmaf(a, b, c), rounded once. Every backend has it: the scalar
 * code calls fmaf() (correctly rounded in C99, a library call where the compiler may not
 * use the instruction; the reference's -ffp-contract=off does not touch it), AVX2 uses
 * _mm256_fmadd_ps, CUDA one FFMA (explicit fmaf() is fused even under -fmad=false, which
 * still forbids contracting a * b + c written out). So fewer operations give the same
 * bits everywhere: Dekker's splits and Cody-Waite's 15-bit ln2 are not needed.
 *
 * Method, for h <= 0 (all the callers need): k = rint(h log2e) from one fmaf with a
 * round-to-integer constant whose low significand bits also carry k plus a bias, so that
 * 2^(k + bias - 127) is those bits shifted into the exponent field (no conversion to int);
 * r = h - k ln2 with ln2 as a float pair (act_log.h's), the first step exact (k ln2_hi
 * has at most 32 bits, and r, a multiple of ulp(ln2_hi) or of ulp(h), fits in 24); then
 * e^r = 1 + r Q(r), Q(r) = 1 + r q(r), q a degree-5 fit of (expm1(r) - r)/r^2
 * (tools/act_fit.py fma, fexp_q). expm1(r) = r Q(r) stays accurate near 0 (Tanh).
 * Results that may be subnormal (Sigmoid, SiLU, the GELUs' tails) take bias 191: 2^(k+64) is a
 * normal float for every k >= -190, and the product is scaled back by 2^-64 last, so it is
 * rounded once where it is subnormal.
 */
#ifndef ACTQ_ARITH_ACT_FEXP_H
#define ACTQ_ARITH_ACT_FEXP_H

#include <math.h> /* fmaf */

#include "src/arith/act_exp.h"
#include "src/arith/act_log.h" /* ln2 as a float pair: ACTQ_LN2_F + ACTQ_LN2_LO_LOG_F */

/* 1.5 * 2^23 + bias: h log2e + M rounds to the integer k + M (for |h log2e| < 2^22), and
 * (bits(k + M) << 23) is the float 2^(k + bias - 127). */
#define ACTQ_FEXP_MAGIC_F 0x1.8000fep+23f     /* bias 127: 2^k, k in [-126, 127] */
#define ACTQ_FEXP_MAGIC_LOW_F 0x1.80017ep+23f /* bias 191: 2^(k+64), k in [-190, 63] */
#define ACTQ_FEXP_2M64_F 0x1.0p-64f
/* The lowest argument the kernel takes: e^-110 * 110 < 2^-150 (SiLU's x e^x, Sigmoid's e^x,
 * GELU's x Q(x), GELU_TANH's x e^v round to 0 there), and k >= -159 keeps 2^(k+64) normal. */
#define ACTQ_FEXP_ARG_MIN_F (-110.0f)

/* q(r) of expm1(r) = r + r^2 q(r) on |r| <= 0.35 (tools/act_fit.py fma, fexp_q) */
#define ACTQ_FEXP_Q_POLY(FIRST, NEXT, p, x) \
  FIRST(p, x, 0x1.9fdb7ep-13f) NEXT(p, x, 0x1.6d3446p-10f) NEXT(p, x, 0x1.1111acp-7f) \
  NEXT(p, x, 0x1.5554fep-5f) NEXT(p, x, 0x1.555554p-3f) NEXT(p, x, 0x1.000000p-1f)

/* The FMA Horner chain of a coefficient list (highest power first): LIST(FIRST, NEXT, p, x)
 * expands to FIRST(p, x, c_n) NEXT(p, x, c_n-1) ...; AVX2 expands the same list. */
#define ACTQ_FHORNER_FIRST(p, x, c) p = (c);
#define ACTQ_FHORNER_NEXT(p, x, c) p = fmaf(p, x, c);
#define ACTQ_FHORNER(LIST, p, x) LIST(ACTQ_FHORNER_FIRST, ACTQ_FHORNER_NEXT, p, x)

/* r with e^h = 2^k e^r, |r| <= 0.35, for h in [-160, 0]; *t = k + magic, whose bits give
 * the power of two (actq_fexp_pow2); magic is ACTQ_FEXP_MAGIC_F or ACTQ_FEXP_MAGIC_LOW_F. */
ACTQ_HD float actq_fexp_reduce(float h, float magic, float *t) {
  float tt = fmaf(h, ACTQ_LOG2E_F, magic);
  float kf = tt - magic;
  *t = tt;
  return fmaf(kf, -ACTQ_LN2_LO_LOG_F, fmaf(kf, -ACTQ_LN2_F, h));
}

/* 2^(k + bias - 127) from actq_fexp_reduce's t */
ACTQ_HD float actq_fexp_pow2(float t) { return actq_f32_from_bits(actq_f32_bits(t) << 23); }

/* Q(r) = expm1(r)/r = 1 + r q(r) */
ACTQ_HD float actq_fexp_q(float r) {
  float q;
  ACTQ_FHORNER(ACTQ_FEXP_Q_POLY, q, r);
  return fmaf(q, r, 1.0f);
}

#endif /* ACTQ_ARITH_ACT_FEXP_H */
