/* act.h - float32 forward y = f(x) of every few-bit activation (ABI.md section 4).
 *
 * fewbit_encode writes these y on every backend, so each function is a fixed sequence of
 * correctly rounded float32 operations with selects for branches (act_exp.h states the
 * rules); cpu/avx2/act_avx2.h repeats each one on 8 lanes with the same bits. GELU,
 * GELU_TANH, SiLU, Sigmoid and Tanh are built for throughput with fmaf (one correctly
 * rounded operation on every backend): GELU for x >= -6 and GELU_TANH for x >= -5.5 as one
 * polynomial piece of 16 chosen by index, no exponential (act_pieces.h, act_ncdf.h,
 * act_gelu_tanh.h), the others and those two's far tails on the FMA exp kernel of
 * act_fexp.h; the rest keep act_exp.h's kernel without FMA.
 * Accuracy against double-precision references (tests/support/act_ref.h): within 4 ulp
 * for every input whose result is a normal float, absolute error within 4 * 2^-149 where
 * the exact result is subnormal. Max errors in ulp found by tools/act_scan.c, exhaustive over
 * |x| in [2^-37, 2^33) (outside, only limits and first-order terms are computed, covered by
 * tests/arith/test_act.c's random and hard inputs):
 *   GELU 2.07  GELU_TANH 2.03  SiLU 3.34  Sigmoid 2.40  Tanh 2.57  Mish 2.82
 *   Tanhshrink 3.13  Softplus(1) 1.64, (4) 1.64, (0.7) 2.52  LogSigmoid 1.64
 *   ELU(1) 0.85  SELU 1.86  CELU(0.7) 2.01, (2) 0.85  Hardswish 1.91
 *   Hardsigmoid 1.00  Softsign 1.50  LeakyReLU 0.5  ReLU, ReLU6, Hardtanh exact.
 *
 * Conventions, the same on every backend:
 * - NaN in -> the canonical quiet NaN 0x7fc00000 out.
 * - The limits at +-Inf. Where an activation tends to 0 from below (GELU, GELU_TANH,
 *   SiLU, Mish, Hardswish as x -> -Inf) the result is -0 there and wherever it rounds to
 *   zero, i.e. the sign of x * (tiny positive); Sigmoid, Softplus tend to +0.
 * - Subnormal inputs are not flushed; f(x) ~ c x near 0 keeps its subnormal results.
 * - -0 in: RELU, RELU6 give +0 (max(x, 0) as vmaxps computes it); LEAKY_RELU and
 *   the activations that are ~c x near 0 with c > 0 (GELU, SiLU, Tanh, ELU,
 *   Mish, Softsign, ...) give -0; Sigmoid, Softplus, LogSigmoid their value at 0.
 * - Parameters: ELU/CELU alpha and Softplus beta in [2^-20, 2^20] (positive, as the ABI
 *   requires; the accuracy statement holds in that range), LeakyReLU any finite slope
 *   (slope 0 gives -0 for every x < 0, including -Inf).
 */
#ifndef ACTQ_ARITH_ACT_H
#define ACTQ_ARITH_ACT_H

#include "src/arith/act_exp.h"
#include "src/arith/act_fexp.h"
#include "src/arith/act_gelu_tanh.h"
#include "src/arith/act_log.h"
#include "src/arith/act_ncdf.h"

/* The activation numbers of fewbit_activation (ABI.md section 4). */
enum {
  ACTQ_ACT_GELU = 1, ACTQ_ACT_GELU_TANH, ACTQ_ACT_SILU, ACTQ_ACT_SIGMOID, ACTQ_ACT_TANH,
  ACTQ_ACT_SOFTPLUS, ACTQ_ACT_ELU, ACTQ_ACT_SELU, ACTQ_ACT_CELU, ACTQ_ACT_MISH,
  ACTQ_ACT_HARDSWISH, ACTQ_ACT_HARDSIGMOID, ACTQ_ACT_HARDTANH, ACTQ_ACT_SOFTSIGN,
  ACTQ_ACT_LOGSIGMOID, ACTQ_ACT_TANHSHRINK, ACTQ_ACT_RELU, ACTQ_ACT_RELU6,
  ACTQ_ACT_LEAKY_RELU, ACTQ_ACT_CUSTOM
};

/* GELU_TANH's sqrt(2/pi) (1 + 0.044715 x^2), doubled (x sigmoid(2u) = x (1 + tanh u)/2),
 * as float pairs: C1 = 2 sqrt(2/pi), C3 = C1 * 0.044715 */
#define ACTQ_GELU_TANH_C1_HI 0x1.988454p+0f
#define ACTQ_GELU_TANH_C1_LO (-0x1.857936p-25f)
#define ACTQ_GELU_TANH_C3_HI 0x1.2444f2p-4f
#define ACTQ_GELU_TANH_C3_LO 0x1.49b16ap-29f
/* SELU lambda and lambda * alpha as float pairs */
#define ACTQ_SELU_LAMBDA_HI 0x1.0cfabep+0f
#define ACTQ_SELU_LAMBDA_LO (-0x1.2adddap-25f)
#define ACTQ_SELU_LAMBDA_ALPHA_HI 0x1.c212ccp+0f
#define ACTQ_SELU_LAMBDA_ALPHA_LO 0x1.903c0cp-26f

/* Where the activations switch to a limit or a first-order form, or clamp their argument
 * so that a discarded branch stays finite; the functions below say why each holds. */
#define ACTQ_GELU_TANH_X_MIN_F (-20.0f)
#define ACTQ_GELU_TANH_X_MAX_F 10.0f
#define ACTQ_TANHSHRINK_SERIES_MAX_F 1.0f
#define ACTQ_SOFTPLUS_PAIR_MAX_F 200.0f
#define ACTQ_SOFTPLUS_LINEAR_F 20.0f
#define ACTQ_SOFTPLUS_ZERO_F (-150.0f)
#define ACTQ_CELU_LINEAR_F (-0x1.0p-60f)
#define ACTQ_MISH_X_MIN_F (-200.0f)
#define ACTQ_MISH_X_MAX_F 10.0f
#define ACTQ_MISH_NEG_SPLIT_F (-0.75f)
#define ACTQ_SOFTSIGN_BIG_F 0x1.0p26f

/* GELU(x) = x Q(t) = -e^(-t^2/2) H(t), t = -x, for x < -6 (act_ncdf.h): e^(-t^2/2) =
 * e^r 2^(k+64) 2^-64 from the FMA kernel, and the product is scaled by 2^-64 last, so that
 * it is rounded once where it is subnormal. t is clamped to 14.75 (the exact value is below
 * 2^-150 from -14.357 on), so -Inf gives -0. */
ACTQ_COLD float actq_gelu_tail(float x) {
  float t = actq_act_min(-x, ACTQ_NCDF_TAIL_MAX_F);
  float hp = actq_ncdf_h(t);
  float tm = -0.5f * t;
  float h = t * tm;
  float l = fmaf(t, tm, -h); /* -t^2/2 = h + l exactly */
  float tk;
  float r = actq_fexp_reduce(h, ACTQ_FEXP_MAGIC_LOW_F, &tk) + l;
  /* H e^r = H + (H Q(r)) r, rounded once; times 2^(k+64): a normal float */
  float hs = fmaf(hp * actq_fexp_q(r), r, hp) * actq_fexp_pow2(tk);
  return -(hs * ACTQ_FEXP_2M64_F);
}

/* x F(x) for a distribution function F symmetric about 0 whose upper tail at t = |x| is p:
 * x (1 - p) for x >= 0 (1 - p >= 1/2: no cancellation), x p below. GELU and GELU_TANH. */
ACTQ_HD float actq_act_x_cdf(float x, float p) { return x * (x < 0.0f ? p : 1.0f - p); }

/* GELU(x) = x Phi(x) = x (1 - Q(t)) for x >= 0, x Q(t) below, t = |x| (act_ncdf.h).
 * - x >= -6: Q(t) from the central pieces, no exponential; t is clamped to 6, where
 *   Q < 2^-29 and 1 - Q rounds to 1, so x >= 6 (+Inf included) gives x, as the exact
 *   x Phi(x) rounds to x from 5.5 on. x (1 - Q) has 1 - Q >= 1/2: no cancellation.
 * - x < -6: actq_gelu_tail. The vector versions compute it only for vectors with such a
 *   lane, CUDA only in threads with one, out of line (rare for activations; the same bits
 *   either way).
 * NaN: t clamps to 6 (vminps's rule) and x * (...) stays NaN. */
ACTQ_HD float actq_act_gelu(float x) {
  float t = actq_act_min(actq_act_abs(x), ACTQ_NCDF_Q_T_MAX_F);
  float q = actq_ncdf_q(t);
  return x < -ACTQ_NCDF_Q_T_MAX_F ? actq_gelu_tail(x) : actq_act_x_cdf(x, q);
}

/* GELU_TANH(x) = x sigmoid(v), v = x (C1 + C3 x^2), by the exponential; right for every x,
 * called for x < -5.5 (act_gelu_tanh.h serves the rest). For x < 0 the result is ~ x e^v
 * with |v| up to 100 before it underflows, so v is carried as a float pair (error ~2^-40 |v|):
 * a float v would put |v| 2^-24 (up to 6 ulp) into the exponent. The pair takes exact
 * products from fmaf (x^2, C3_HI x^2, x w) and one two-sum (C1 + C3 x^2). Then SiLU's
 * form on e^-|v| from the FMA kernel: x/(1+e) for x >= 0, (x es) 2^-64/(1+e) below.
 * x > 10: x; x < -20: -0. */
ACTQ_COLD float actq_gelu_tanh_tail(float x) {
  float xc = actq_act_min(actq_act_max(x, ACTQ_GELU_TANH_X_MIN_F), ACTQ_GELU_TANH_X_MAX_F);
  float s = xc * xc;
  float sl = fmaf(xc, xc, -s);
  float p = ACTQ_GELU_TANH_C3_HI * s;
  float pl = fmaf(ACTQ_GELU_TANH_C3_HI, s, -p);
  float wl;
  float wh = actq_act_two_sum(ACTQ_GELU_TANH_C1_HI, p, &wl);
  float c = fmaf(ACTQ_GELU_TANH_C3_LO, s, fmaf(ACTQ_GELU_TANH_C3_HI, sl, pl));
  wl = wl + (c + ACTQ_GELU_TANH_C1_LO);
  float vh = xc * wh;
  float vl = fmaf(xc, wl, fmaf(xc, wh, -vh)); /* v = vh + vl */
  int neg = x < 0.0f;
  float ah = actq_act_max(neg ? vh : -vh, ACTQ_FEXP_ARG_MIN_F);
  float tk;
  float r = actq_fexp_reduce(ah, ACTQ_FEXP_MAGIC_LOW_F, &tk) + (neg ? vl : -vl);
  float es = fmaf(actq_fexp_q(r), r, 1.0f) * actq_fexp_pow2(tk); /* e^-|v| 2^64 */
  float num = neg ? (xc * es) * ACTQ_FEXP_2M64_F : x;
  float y = num / (1.0f + es * ACTQ_FEXP_2M64_F); /* one division */
  y = x > ACTQ_GELU_TANH_X_MAX_F ? x : y;
  return x < ACTQ_GELU_TANH_X_MIN_F ? -0.0f : y;
}

/* GELU_TANH: x (1 - R(t)) for x >= 0, x R(t) below, t = min(|x|, 5.5), R from the central
 * pieces (act_gelu_tanh.h; x >= 5.5 and +Inf give x); x < -5.5: actq_gelu_tanh_tail, out
 * of line as GELU's tail. NaN: t clamps to 5.5 and x * (...) stays NaN. */
ACTQ_HD float actq_act_gelu_tanh(float x) {
  float t = actq_act_min(actq_act_abs(x), ACTQ_GTANH_R_T_MAX_F);
  float r = actq_gtanh_r(t);
  return x < -ACTQ_GTANH_R_T_MAX_F ? actq_gelu_tanh_tail(x) : actq_act_x_cdf(x, r);
}

/* sigmoid(x): e = e^-|x| = E 2^(k+64) 2^-64 from the FMA kernel (|x| clamped to 110,
 * where e rounds to 0); 1/(1+e) for x >= 0, e/(1+e) below, one division for both. */
ACTQ_HD float actq_act_sigmoid(float x) {
  float h = actq_act_max(-actq_act_abs(x), ACTQ_FEXP_ARG_MIN_F);
  float tk;
  float r = actq_fexp_reduce(h, ACTQ_FEXP_MAGIC_LOW_F, &tk);
  float e = (fmaf(actq_fexp_q(r), r, 1.0f) * actq_fexp_pow2(tk)) * ACTQ_FEXP_2M64_F;
  return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

/* SiLU(x) = x sigmoid(x): x/(1+e) for x >= 0, x e/(1+e) below, with x e = (x es) 2^-64
 * from es = e 2^64 (normal), so that x e^x is rounded once where e^x alone would already
 * be subnormal (x < -87.3; the product is normal down to x = -82.9...). x is clamped at
 * -110 with the kernel's argument (x e^x rounds to -0 there). */
ACTQ_HD float actq_act_silu(float x) {
  float h = actq_act_max(-actq_act_abs(x), ACTQ_FEXP_ARG_MIN_F);
  float tk;
  float r = actq_fexp_reduce(h, ACTQ_FEXP_MAGIC_LOW_F, &tk);
  float es = fmaf(actq_fexp_q(r), r, 1.0f) * actq_fexp_pow2(tk);
  float xc = actq_act_max(x, ACTQ_FEXP_ARG_MIN_F);
  float num = x < 0.0f ? (xc * es) * ACTQ_FEXP_2M64_F : x;
  return num / (1.0f + es * ACTQ_FEXP_2M64_F); /* one division */
}

/* tanh(x) = -expm1(h) / (2 + expm1(h)), h = -2|x|, with x's sign: no cancellation, no
 * overflow (expm1 of a non-positive argument lies in [-1, 0]). expm1(h) = 2^k e^r - 1 =
 * fmaf(2^k, r Q(r), 2^k - 1), rounded once: 2^k - 1 is exact for k >= -24 and beyond it
 * errs by less than 2^-24 of the result; near 0 it is r Q(r), no cancellation. h is
 * clamped at -40 (expm1 rounds to -1 from -17.4 on). */
ACTQ_HD float actq_act_tanh(float x) {
  float h = actq_act_max(-2.0f * actq_act_abs(x), ACTQ_EXPM1_ARG_MIN_F);
  float tk;
  float r = actq_fexp_reduce(h, ACTQ_FEXP_MAGIC_F, &tk);
  float s = actq_fexp_pow2(tk);
  float em = fmaf(s, r * actq_fexp_q(r), s - 1.0f);
  return actq_act_with_sign(em / (-2.0f - em), x);
}

/* x - tanh(x) for |x| < 1: x s T(s), s = x^2, T a degree-9 fit of (x - tanh x)/x^3
 * (tools/act_fit.py, tanhshrink_t, 2^-31.1), its constant a float pair */
#define ACTQ_TANHSHRINK_T_POLY(FIRST, NEXT, ADD, p, x) \
  FIRST(p, x, -0x1.d3cf86p-17f) NEXT(p, x, 0x1.d1e50ap-14f) NEXT(p, x, -0x1.dcd88ep-12f) \
  NEXT(p, x, 0x1.64881cp-10f) NEXT(p, x, -0x1.d0f9b0p-9f) NEXT(p, x, 0x1.21ff00p-7f) \
  NEXT(p, x, -0x1.66456cp-6f) NEXT(p, x, 0x1.ba1b2cp-5f) NEXT(p, x, -0x1.111110p-3f) \
  NEXT(p, x, -0x1.55ce66p-27f) ADD(p, x, 0x1.555556p-2f)

ACTQ_HD float actq_tanhshrink_t(float s) {
  float p;
  ACTQ_HORNER(ACTQ_TANHSHRINK_T_POLY, p, s);
  return p;
}

/* Tanhshrink: the series for |x| < 1; above, |x| - tanh|x| = (|x| - 1) + 2e/(1+e) with
 * e = e^(-2|x|), two non-negative terms (|x| - 1 is exact). */
ACTQ_HD float actq_act_tanhshrink(float x) {
  float t = actq_act_abs(x);
  float s = x * x;
  float y_small = x * (s * actq_tanhshrink_t(s));
  int k;
  float p = actq_exp_reduce(-2.0f * t, 0.0f, &k);
  float e = actq_scale2k(1.0f + p, k);
  float y_big = actq_act_with_sign((t - 1.0f) + (e + e) / (1.0f + e), x);
  return t < ACTQ_TANHSHRINK_SERIES_MAX_F ? y_small : y_big;
}

/* Softplus(beta, x) = log1p(e^(beta x))/beta. t = beta x is a float pair (exact product):
 * for t < 0 the result is ~e^t/beta, whose condition number is |t|.
 * - t > 20: x (log1p(e^-t)/beta < 2^-26 x).
 * - 0 < t <= 20: x + log1p(e^-t)/beta (two positive terms).
 * - -20 <= t <= 0: log1p(e^t)/beta.
 * - t < -20: e^t/beta = 2^k ((1+p)/beta) (log1p(u) = u to 2^-30), subnormal-safe;
 *   t < -150: +0 (exact for beta >= 2^-20). */
ACTQ_HD float actq_act_softplus(float beta, float x) {
  float tl;
  float th = actq_act_two_prod(beta, x, &tl);
  /* Inf/NaN in tl from an overflow */
  tl = (th > -ACTQ_SOFTPLUS_PAIR_MAX_F && th < ACTQ_SOFTPLUS_PAIR_MAX_F) ? tl : 0.0f;
  int pos = th > 0.0f;
  int k;
  float p = actq_exp_reduce(-actq_act_abs(th), pos ? -tl : tl, &k);
  float l1p = actq_log1pf_unit(actq_scale2k(1.0f + p, k));
  float y_pos = x + l1p / beta;
  float y_neg = l1p / beta;
  float y_tiny = actq_scale2k((1.0f + p) / beta, k);
  y_neg = th < -ACTQ_SOFTPLUS_LINEAR_F ? y_tiny : y_neg;
  y_neg = th < ACTQ_SOFTPLUS_ZERO_F ? 0.0f : y_neg;
  y_pos = th > ACTQ_SOFTPLUS_LINEAR_F ? x : y_pos;
  return pos ? y_pos : y_neg;
}

/* LogSigmoid(x) = -Softplus(1, -x) */
ACTQ_HD float actq_act_logsigmoid(float x) { return -actq_act_softplus(1.0f, -x); }

/* ELU(alpha, x) = x for x >= 0, alpha expm1(x) otherwise */
ACTQ_HD float actq_act_elu(float alpha, float x) {
  float y_neg = alpha * actq_expm1f(x);
  return x >= 0.0f ? x : y_neg; /* >=: -0 stays -0 (expm1f(-0) is +0) */
}

/* SELU(x) = lambda x for x >= 0, lambda alpha expm1(x) otherwise; both constants as float
 * pairs (a rounded float constant alone costs up to 0.5 ulp). Near FLT_MAX/lambda the
 * overflow decision follows x * lambda_hi, which can differ from the exact lambda x's in a
 * sliver of about one ulp. */
ACTQ_HD float actq_act_selu(float x) {
  float em = actq_expm1f(x);
  float y_neg = em * ACTQ_SELU_LAMBDA_ALPHA_HI + em * ACTQ_SELU_LAMBDA_ALPHA_LO;
  float y_pos = x * ACTQ_SELU_LAMBDA_HI + x * ACTQ_SELU_LAMBDA_LO;
  y_pos = x > ACTQ_FLT_MAX ? x : y_pos; /* +Inf: Inf + (-Inf) otherwise */
  float y = x > 0.0f ? y_pos : y_neg;
  return x == 0.0f ? x : y; /* -0: -0 * lambda_lo would make it +0 */
}

/* CELU(alpha, x) = max(0, x) + min(0, alpha expm1(x/alpha)); x/alpha is a correctly
 * rounded division (expm1's condition number on x <= 0 is at most 1). Above -2^-60 the
 * result is x (alpha expm1(x/alpha) = x (1 + x/(2 alpha) + ...)), which also avoids a
 * subnormal, bit-poor x/alpha for alpha > 1 where the result x is still normal. */
ACTQ_HD float actq_act_celu(float alpha, float x) {
  float y_neg = alpha * actq_expm1f(x / alpha);
  return x > ACTQ_CELU_LINEAR_F ? x : y_neg;
}

/* Mish(x) = x tanh(softplus(x)) = x n/(n+2), n = u(u+2), u = e^x = 2^k (1 + p).
 * - x >= -3/4: n = 3 + e (4 + e) with e = expm1(x) = 2^k (p + 1 - 2^-k) from the same
 *   reduction, so that n is accurate near 0 where u(u+2) would carry u's rounding; then
 *   (x n)/(n + 2), whose n-errors are damped by 2/(n+2) < 0.65.
 * - x < -3/4: (x u) (1 - u(u+1)/(n+2)), the correction below 0.22 and x u = 2^k (x + x p)
 *   with e^x's 1 + p unrounded; subnormal-safe, and -0 as x -> -Inf (x is clamped at
 *   -200, where the result has long underflowed).
 * - x > 10: x (1 - tanh(softplus x) < 2e^-20). */
ACTQ_HD float actq_act_mish(float x) {
  float xc = actq_act_min(actq_act_max(x, ACTQ_MISH_X_MIN_F), ACTQ_MISH_X_MAX_F);
  int k;
  float p = actq_exp_reduce(xc, 0.0f, &k);
  /* 2^-k is garbage (but defined) for k < -126, in lanes that select y_neg */
  float em = (p + (1.0f - actq_exp2i(-k))) * actq_exp2i(k);
  float e2 = em * (4.0f + em);
  float y_pos = (xc * (3.0f + e2)) / (5.0f + e2);
  float u = actq_scale2k(1.0f + p, k);
  float d = (u + u) + u * u + 2.0f;
  float xu = actq_scale2k(xc + xc * p, k);
  float y_neg = xu * (1.0f - (u * (u + 1.0f)) / d);
  float y = x < ACTQ_MISH_NEG_SPLIT_F ? y_neg : y_pos;
  return x > ACTQ_MISH_X_MAX_F ? x : y;
}

/* Hardswish(x) = x relu6(x+3)/6, rounded as written ((x * c) / 6); x for x >= 3 (no
 * overflow of x * 6), -0 for x <= -3 (no -Inf * 0) */
ACTQ_HD float actq_act_hardswish(float x) {
  float c = actq_act_min(actq_act_max(x + 3.0f, 0.0f), 6.0f);
  float y = (x * c) / 6.0f;
  y = x >= 3.0f ? x : y;
  return x <= -3.0f ? -0.0f : y;
}

ACTQ_HD float actq_act_hardsigmoid(float x) {
  return actq_act_min(actq_act_max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
}

ACTQ_HD float actq_act_hardtanh(float x) {
  return actq_act_min(actq_act_max(x, -1.0f), 1.0f);
}

/* x/(1+|x|); +-1 beyond 2^26 (where 1+|x| = |x| and Inf/Inf would be NaN) */
ACTQ_HD float actq_act_softsign(float x) {
  float t = actq_act_abs(x);
  float y = x / (1.0f + t);
  return t > ACTQ_SOFTSIGN_BIG_F ? actq_act_with_sign(1.0f, x) : y;
}

ACTQ_HD float actq_act_relu(float x) { return actq_act_max(x, 0.0f); }

ACTQ_HD float actq_act_relu6(float x) {
  return actq_act_min(actq_act_max(x, 0.0f), 6.0f);
}

ACTQ_HD float actq_act_leaky_relu(float slope, float x) {
  float y_neg = slope == 0.0f ? -0.0f : slope * x;
  return x >= 0.0f ? x : y_neg; /* +-0 stay themselves whatever the slope's sign */
}

/* Every activation with its forward's name, so that each backend's dispatch is expanded
 * from one list: LIST(X, XP) gives X(ACT, name) for name(x), XP(ACT, name) for
 * name(param, x), the name without its prefix (actq_act_ here, actq_avx2_act_ in AVX2). */
#define ACTQ_ACT_FORWARDS(X, XP) \
  X(ACTQ_ACT_GELU, gelu) X(ACTQ_ACT_GELU_TANH, gelu_tanh) X(ACTQ_ACT_SILU, silu) \
  X(ACTQ_ACT_SIGMOID, sigmoid) X(ACTQ_ACT_TANH, tanh) XP(ACTQ_ACT_SOFTPLUS, softplus) \
  XP(ACTQ_ACT_ELU, elu) X(ACTQ_ACT_SELU, selu) XP(ACTQ_ACT_CELU, celu) X(ACTQ_ACT_MISH, mish) \
  X(ACTQ_ACT_HARDSWISH, hardswish) X(ACTQ_ACT_HARDSIGMOID, hardsigmoid) \
  X(ACTQ_ACT_HARDTANH, hardtanh) X(ACTQ_ACT_SOFTSIGN, softsign) \
  X(ACTQ_ACT_LOGSIGMOID, logsigmoid) X(ACTQ_ACT_TANHSHRINK, tanhshrink) X(ACTQ_ACT_RELU, relu) \
  X(ACTQ_ACT_RELU6, relu6) XP(ACTQ_ACT_LEAKY_RELU, leaky_relu)

#define ACTQ_ACT_CASE(a, name) case a: y = actq_act_##name(x); break;
#define ACTQ_ACT_CASE_P(a, name) case a: y = actq_act_##name(param, x); break;

/* y = f(x) for activation `act` (ACTQ_ACT_*, = fewbit_activation) with its parameter
 * (ignored where there is none). NaN for a NaN x, for CUSTOM and for unknown numbers. */
ACTQ_HD float actq_act_forward(int act, float param, float x) {
  float y;
  switch (act) {
  ACTQ_ACT_FORWARDS(ACTQ_ACT_CASE, ACTQ_ACT_CASE_P)
  default: return actq_f32_from_bits(ACTQ_F32_QNAN_BITS);
  }
  return x != x ? actq_f32_from_bits(ACTQ_F32_QNAN_BITS) : y;
}

#endif /* ACTQ_ARITH_ACT_H */
