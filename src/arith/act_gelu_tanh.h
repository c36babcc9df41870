/* act_gelu_tanh.h - GELU_TANH's central form without the exponential (act.h).
 *
 * GELU_TANH(x) = x sigmoid(v), v = x (C1 + C3 x^2) (act.h's constants), is x (1 - R(t)) for
 * x >= 0 and x R(t) below, t = |x|, with R(t) = sigmoid(-v(t)) = 1/(1 + e^v(t)) <= 1/2 (no
 * cancellation in 1 - R). On t in [0, 5.5], R is 16 pieces of act_pieces.h, piece i where
 * i <= t (B + A t^2) < i + 1 (t^2, one fmaf, one product, a truncation), with B/A = C1/C3: the index is proportional to v, the log of R's
 * tail, so each piece spans about the same ratio of R. Degree 7 in t - mid, relative error
 * of the float coefficients <= 2^-27.0 (tools/act_fit.py gelu_tanh; each fit reaches 2^-20
 * past its edges). At 5.5, R < 2^-29, so 1 - R rounds to 1 and x >= 5.5 gives x (the exact
 * value rounds to x from 5.1 on). Below -5.5, act.h's exponential form.
 */
#ifndef ACTQ_ARITH_ACT_GELU_TANH_H
#define ACTQ_ARITH_ACT_GELU_TANH_H

#include "src/arith/act_pieces.h"

#define ACTQ_GTANH_R_T_MAX_F 5.5f
#define ACTQ_GTANH_R_A_F 0x1.c46168p-5f
#define ACTQ_GTANH_R_B_F 0x1.3c27cap+0f
#define ACTQ_GTANH_R_MID_INIT \
  {0.0f, 0x1.2191d8p+0f, 0x1.c30ce0p+0f, 0x1.245ce2p+1f, 0x1.5c9b5cp+1f, 0x1.8d3a12p+1f, 0x1.b7e89ep+1f, 0x1.de0ae0p+1f, 0x1.003fd0p+2f, 0x1.1008f6p+2f, 0x1.1ea022p+2f, 0x1.2c3974p+2f, 0x1.38ea12p+2f, 0x1.44e522p+2f, 0x1.503942p+2f, 0x1.5ad7bap+2f}
#define ACTQ_GTANH_R_COEF_INIT { \
  {0x1.000000p-1f, 0x1.088bc4p-3f, 0x1.404350p-5f, 0x1.69c088p-7f, 0x1.90956ap-9f, 0x1.b6d946p-11f, 0x1.e0949ap-13f, 0x1.071372p-14f, 0x1.20ec72p-16f, 0x1.3d19b2p-18f, 0x1.5be2c0p-20f, 0x1.7d0292p-22f, 0x1.a35478p-24f, 0x1.cbf604p-26f, 0x1.f8bc70p-28f, 0x1.19b400p-29f}, /* c0 */ \
  {-0x1.988462p-2f, -0x1.aeb840p-3f, -0x1.5bcb80p-4f, -0x1.e5381ep-6f, -0x1.3dd8e8p-7f, -0x1.90ebb4p-9f, -0x1.ef6350p-11f, -0x1.2d4e0cp-12f, -0x1.6b21f8p-14f, -0x1.b11a12p-16f, -0x1.001998p-17f, -0x1.2c594ep-19f, -0x1.5fdedcp-21f, -0x1.98ed10p-23f, -0x1.d96daep-25f, -0x1.159408p-26f}, /* c1 */ \
  {0x1.b71a70p-18f, 0x1.e5b072p-4f, 0x1.304af4p-4f, 0x1.160cb6p-5f, 0x1.bca538p-7f, 0x1.498d78p-8f, 0x1.d2598ap-10f, 0x1.3ec762p-11f, 0x1.a970cep-13f, 0x1.15bc34p-14f, 0x1.64376cp-16f, 0x1.c19d7cp-18f, 0x1.198c6ep-19f, 0x1.5bef0ep-21f, 0x1.aa5320p-23f, 0x1.074d18p-24f}, /* c2 */ \
  {0x1.116bc2p-4f, -0x1.4a9c00p-7f, -0x1.ddd19ap-6f, -0x1.50d08cp-6f, -0x1.5e0a9cp-7f, -0x1.3b9f8cp-8f, -0x1.05ac44p-9f, -0x1.98c430p-11f, -0x1.31dfe0p-12f, -0x1.b9828ap-14f, -0x1.357fa4p-15f, -0x1.a727fep-17f, -0x1.1cc860p-18f, -0x1.77eb66p-20f, -0x1.e95ec4p-22f, -0x1.3f6834p-23f}, /* c3 */ \
  {0x1.4df9d6p-12f, -0x1.12973ep-6f, 0x1.6c0ab6p-11f, 0x1.83f69cp-8f, 0x1.3e0518p-8f, 0x1.77ccdep-9f, 0x1.7c4e18p-10f, 0x1.5c9a96p-11f, 0x1.2a1542p-12f, 0x1.e2723ep-14f, 0x1.75badcp-15f, 0x1.1722b6p-16f, 0x1.969e3ep-18f, 0x1.204db2p-19f, 0x1.90a7dcp-21f, 0x1.1577c0p-22f}, /* c4 */ \
  {-0x1.68be44p-7f, 0x1.691f66p-8f, 0x1.045756p-8f, 0x1.3a2eb0p-12f, -0x1.0065ccp-10f, -0x1.060c42p-10f, -0x1.64a960p-11f, -0x1.9450ccp-12f, -0x1.979534p-13f, -0x1.7a4632p-14f, -0x1.490f36p-15f, -0x1.0fd086p-16f, -0x1.b0f8f4p-18f, -0x1.4c265ap-19f, -0x1.efb9ccp-21f, -0x1.6e23bcp-22f}, /* c5 */ \
  {0x1.1aa4e8p-10f, 0x1.2c861ep-10f, -0x1.4fd364p-10f, -0x1.b6bcccp-11f, -0x1.7c1ac6p-13f, 0x1.dc9c72p-14f, 0x1.744672p-13f, 0x1.2cf214p-13f, 0x1.82a85ep-14f, 0x1.ac0116p-15f, 0x1.ae0732p-16f, 0x1.91d14ep-17f, 0x1.620de6p-18f, 0x1.29f544p-19f, 0x1.e1ac2ap-21f, 0x1.7dec1ep-22f}, /* c6 */ \
  {0x1.3d49dep-11f, -0x1.c5025ep-11f, -0x1.8e1546p-14f, 0x1.00809cp-12f, 0x1.1a051ep-13f, 0x1.3f2ee4p-14f, -0x1.11a2d2p-20f, -0x1.210cfcp-16f, -0x1.ef7e70p-16f, -0x1.4fc0b2p-16f, -0x1.a0e8bcp-17f, -0x1.cbe6b0p-18f, -0x1.9fb584p-19f, -0x1.9c9042p-20f, -0x1.73365cp-21f, -0x1.3caa08p-22f}, /* c7 */ \
}
ACTQ_PIECES_TABLES(actq_gtanh_r, ACTQ_GTANH_R_MID_INIT, ACTQ_GTANH_R_COEF_INIT)

/* the piece of t in [0, 5.5]: t (B + A t^2) < 15.99 there */
ACTQ_HD int actq_gtanh_r_piece(float t) {
  return (int)(t * fmaf(t * t, ACTQ_GTANH_R_A_F, ACTQ_GTANH_R_B_F));
}

/* R(t) = sigmoid(-v(t)) for t in [0, 5.5] */
ACTQ_HD float actq_gtanh_r(float t) {
  return actq_pieces_poly(ACTQ_PIECES_TAB(actq_gtanh_r_mid), ACTQ_PIECES_TAB(actq_gtanh_r_coef),
                          actq_gtanh_r_piece(t), t);
}

#endif /* ACTQ_ARITH_ACT_GELU_TANH_H */
