/* act_fma_lanes.h - the FMA activations of src/arith/act.h (GELU, GELU_TANH, SiLU, Sigmoid,
 * Tanh and the exp and normal-tail kernels under them), written once over a vector of
 * float32 lanes and instantiated for each SIMD width: cpu/avx2/act_avx2.h (8 lanes) and
 * cpu/avx512/act_avx512.h (16 lanes) include it with their operation macros. Each function
 * repeats its scalar twin in src/arith/act*.h operation for operation (a scalar `c ? a : b`
 * is L_SEL, `a < b` an ordered-quiet compare, fmaf() L_FMA), so lane i has the scalar's
 * bits; tests/arith/test_act.c checks each width against the scalar.
 *
 * No include guard: included once per width. The includer defines
 *   ACTQ_L_FN              the functions' attributes
 *   ACTQ_L(name)           the width's name of a function
 *   LV, LM, LI             float vector, compare-mask and 32-bit integer vector types
 *   L_SET(c)               c in every lane
 *   L_ADD L_SUB L_MUL L_DIV L_MIN L_MAX (a, b)    vminps / vmaxps semantics
 *   L_FMA(a, b, c)         a b + c, rounded once;  L_FMS(a, b, c)  a b - c, rounded once
 *   L_OR L_XOR (a, b)      bitwise on floats
 *   L_LT L_GT (a, b)       ordered quiet compares, giving LM
 *   L_SEL(m, a, b)         m ? a : b, lane by lane
 *   L_ABS(a), L_WITH_SIGN(a, s)   |a|, |a| with the sign of s
 *   L_POW2(t)              the float whose bits are those of t shifted left by 23
 *   L_ROW16(row, i)        row[i] for a 16-float row and LI indices i in [0, 16)
 *   L_CVTT(a)              (int) a, truncating, an LI
 *   L_ANY(m)               whether any lane of the mask m is set (a scalar int)
 */

/* ---- the FMA exp kernel (act_fexp.h) ------------------------------------------------------ */

#define ACTQ_L_FHORNER_FIRST(p, x, c) p = L_SET(c);
#define ACTQ_L_FHORNER_NEXT(p, x, c) p = L_FMA(p, x, L_SET(c));

ACTQ_L_FN LV ACTQ_L(fexp_reduce)(LV h, float magic_s, LV *t) {
  const LV magic = L_SET(magic_s);
  const LV tt = L_FMA(h, L_SET(ACTQ_LOG2E_F), magic);
  const LV kf = L_SUB(tt, magic);
  *t = tt;
  return L_FMA(kf, L_SET(-ACTQ_LN2_LO_LOG_F), L_FMA(kf, L_SET(-ACTQ_LN2_F), h));
}

ACTQ_L_FN LV ACTQ_L(fexp_q)(LV r) {
  LV q;
  ACTQ_FEXP_Q_POLY(ACTQ_L_FHORNER_FIRST, ACTQ_L_FHORNER_NEXT, q, r)
  return L_FMA(q, r, L_SET(1.0f));
}

/* ---- the normal tail (act_ncdf.h) ----------------------------------------------------------- */

/* act_pieces.h: each coefficient row is one 16-float row that L_ROW16 indexes by piece */
typedef char ACTQ_L(pieces_n_is_16)[ACTQ_PIECES_N == 16 ? 1 : -1];

ACTQ_L_FN LV ACTQ_L(pieces_poly)(const float *mid, const float (*coef)[ACTQ_PIECES_N], LI i,
                                  LV t) {
  const LV u = L_SUB(t, L_ROW16(mid, i));
  LV p = L_ROW16(coef[ACTQ_PIECES_DEG], i);
  int j;
  for (j = ACTQ_PIECES_DEG - 1; j >= 0; j--) p = L_FMA(p, u, L_ROW16(coef[j], i));
  return p;
}

/* Q(t) on [0, 6] (act_ncdf.h) */
ACTQ_L_FN LV ACTQ_L(ncdf_q)(LV t) {
  const LI i = L_CVTT(L_MUL(t, L_FMA(t, L_SET(ACTQ_NCDF_Q_A_F), L_SET(ACTQ_NCDF_Q_B_F))));
  return ACTQ_L(pieces_poly)(actq_ncdf_q_mid_host, actq_ncdf_q_coef_host, i, t);
}

/* R(t) on [0, 5.5] (act_gelu_tanh.h) */
ACTQ_L_FN LV ACTQ_L(gtanh_r)(LV t) {
  const LI i = L_CVTT(L_MUL(t, L_FMA(L_MUL(t, t), L_SET(ACTQ_GTANH_R_A_F),
                                     L_SET(ACTQ_GTANH_R_B_F))));
  return ACTQ_L(pieces_poly)(actq_gtanh_r_mid_host, actq_gtanh_r_coef_host, i, t);
}

ACTQ_L_FN LV ACTQ_L(ncdf_h)(LV t) {
  const LV u = L_SUB(t, L_SET(ACTQ_NCDF_H_MID_F));
  LV p;
  ACTQ_NCDF_H_POLY(ACTQ_L_FHORNER_FIRST, ACTQ_L_FHORNER_NEXT, p, u)
  return p;
}

#undef ACTQ_L_FHORNER_FIRST
#undef ACTQ_L_FHORNER_NEXT

/* ---- activations (act.h) ------------------------------------------------------------------ */

ACTQ_L_FN LV ACTQ_L(gelu_tail)(LV x) {
  const LV t = L_MIN(L_ABS(x), L_SET(ACTQ_NCDF_TAIL_MAX_F));
  const LV hp = ACTQ_L(ncdf_h)(t);
  const LV tm = L_MUL(L_SET(-0.5f), t);
  const LV h = L_MUL(t, tm);
  const LV l = L_FMS(t, tm, h);
  LV tk, r, hs;
  r = L_ADD(ACTQ_L(fexp_reduce)(h, ACTQ_FEXP_MAGIC_LOW_F, &tk), l);
  hs = L_MUL(L_FMA(L_MUL(hp, ACTQ_L(fexp_q)(r)), r, hp), L_POW2(tk));
  return L_XOR(L_MUL(hs, L_SET(ACTQ_FEXP_2M64_F)), L_SET(-0.0f));
}

/* act.h's actq_act_x_cdf */
ACTQ_L_FN LV ACTQ_L(x_cdf)(LV x, LV p) {
  return L_MUL(x, L_SEL(L_LT(x, L_SET(0.0f)), p, L_SUB(L_SET(1.0f), p)));
}

/* the tail's form only for vectors that have a lane below -6 */
ACTQ_L_FN LV ACTQ_L(gelu)(LV x) {
  const LV y = ACTQ_L(x_cdf)(x, ACTQ_L(ncdf_q)(L_MIN(L_ABS(x), L_SET(ACTQ_NCDF_Q_T_MAX_F))));
  const LM tail = L_LT(x, L_SET(-ACTQ_NCDF_Q_T_MAX_F));
  /* expected false: the compiler lays the tail out of the loop that calls GELU */
  return __builtin_expect(L_ANY(tail), 0) ? L_SEL(tail, ACTQ_L(gelu_tail)(x), y) : y;
}

ACTQ_L_FN LV ACTQ_L(gelu_tanh_tail)(LV x) {
  const LV one = L_SET(1.0f), msign = L_SET(-0.0f);
  const LV m64 = L_SET(ACTQ_FEXP_2M64_F);
  const LV c3h = L_SET(ACTQ_GELU_TANH_C3_HI);
  const LV xc = L_MIN(L_MAX(x, L_SET(ACTQ_GELU_TANH_X_MIN_F)), L_SET(ACTQ_GELU_TANH_X_MAX_F));
  const LV s = L_MUL(xc, xc);
  const LV sl = L_FMS(xc, xc, s);
  const LV p = L_MUL(c3h, s);
  const LV pl = L_FMS(c3h, s, p);
  const LV c1h = L_SET(ACTQ_GELU_TANH_C1_HI);
  /* two-sum of c1h and p */
  const LV wh = L_ADD(c1h, p), bb = L_SUB(wh, c1h);
  LV wl = L_ADD(L_SUB(c1h, L_SUB(wh, bb)), L_SUB(p, bb));
  const LV c = L_FMA(L_SET(ACTQ_GELU_TANH_C3_LO), s, L_FMA(c3h, sl, pl));
  LV vh, vl, ah, tk, r, es, num, y;
  LM neg;
  wl = L_ADD(wl, L_ADD(c, L_SET(ACTQ_GELU_TANH_C1_LO)));
  vh = L_MUL(xc, wh);
  vl = L_FMA(xc, wl, L_FMS(xc, wh, vh));
  neg = L_LT(x, L_SET(0.0f));
  ah = L_MAX(L_SEL(neg, vh, L_XOR(vh, msign)), L_SET(ACTQ_FEXP_ARG_MIN_F));
  r = L_ADD(ACTQ_L(fexp_reduce)(ah, ACTQ_FEXP_MAGIC_LOW_F, &tk), L_SEL(neg, vl, L_XOR(vl, msign)));
  es = L_MUL(L_FMA(ACTQ_L(fexp_q)(r), r, one), L_POW2(tk));
  num = L_SEL(neg, L_MUL(L_MUL(xc, es), m64), x);
  y = L_DIV(num, L_ADD(one, L_MUL(es, m64)));
  y = L_SEL(L_GT(x, L_SET(ACTQ_GELU_TANH_X_MAX_F)), x, y);
  return L_SEL(L_LT(x, L_SET(ACTQ_GELU_TANH_X_MIN_F)), msign, y);
}

/* the tail's form only for vectors that have a lane below -5.5, as GELU's */
ACTQ_L_FN LV ACTQ_L(gelu_tanh)(LV x) {
  const LV y = ACTQ_L(x_cdf)(x, ACTQ_L(gtanh_r)(L_MIN(L_ABS(x), L_SET(ACTQ_GTANH_R_T_MAX_F))));
  const LM tail = L_LT(x, L_SET(-ACTQ_GTANH_R_T_MAX_F));
  return __builtin_expect(L_ANY(tail), 0) ? L_SEL(tail, ACTQ_L(gelu_tanh_tail)(x), y) : y;
}

/* e^-|x| 2^64 (Sigmoid, SiLU) */
ACTQ_L_FN LV ACTQ_L(exp_neg_abs_2p64)(LV x) {
  const LV h = L_MAX(L_OR(x, L_SET(-0.0f)), L_SET(ACTQ_FEXP_ARG_MIN_F));
  LV tk;
  const LV r = ACTQ_L(fexp_reduce)(h, ACTQ_FEXP_MAGIC_LOW_F, &tk);
  return L_MUL(L_FMA(ACTQ_L(fexp_q)(r), r, L_SET(1.0f)), L_POW2(tk));
}

ACTQ_L_FN LV ACTQ_L(sigmoid)(LV x) {
  const LV one = L_SET(1.0f);
  const LV e = L_MUL(ACTQ_L(exp_neg_abs_2p64)(x), L_SET(ACTQ_FEXP_2M64_F));
  return L_DIV(L_SEL(L_LT(x, L_SET(0.0f)), e, one), L_ADD(one, e));
}

ACTQ_L_FN LV ACTQ_L(silu)(LV x) {
  const LV m64 = L_SET(ACTQ_FEXP_2M64_F);
  const LV es = ACTQ_L(exp_neg_abs_2p64)(x);
  const LV xc = L_MAX(x, L_SET(ACTQ_FEXP_ARG_MIN_F));
  const LV num = L_SEL(L_LT(x, L_SET(0.0f)), L_MUL(L_MUL(xc, es), m64), x);
  return L_DIV(num, L_ADD(L_SET(1.0f), L_MUL(es, m64)));
}

ACTQ_L_FN LV ACTQ_L(tanh)(LV x) {
  const LV one = L_SET(1.0f);
  const LV h = L_MAX(L_MUL(L_SET(-2.0f), L_ABS(x)), L_SET(ACTQ_EXPM1_ARG_MIN_F));
  LV tk;
  const LV r = ACTQ_L(fexp_reduce)(h, ACTQ_FEXP_MAGIC_F, &tk);
  const LV s = L_POW2(tk);
  const LV em = L_FMA(s, L_MUL(r, ACTQ_L(fexp_q)(r)), L_SUB(s, one));
  return L_WITH_SIGN(L_DIV(em, L_SUB(L_SET(-2.0f), em)), x);
}
