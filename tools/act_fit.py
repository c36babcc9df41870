#!/usr/bin/env python3
"""Coefficients of the float32 activation approximations in src/arith/act_*.h.

Each function is fitted by relative least squares at Chebyshev nodes (see fit()), at 40
digits, with float32 coefficients, and the rounded polynomial is checked against the
function at 2001 points: the printed
`maxrel` is the relative error of the float32-coefficient polynomial in exact arithmetic
(the float32 evaluation adds its own rounding on top, measured by tests/arith/test_act.c).

Usage: python3 tools/act_fit.py         the kernels without FMA (ELU, Softplus, ...)
       python3 tools/act_fit.py fma     the FMA kernels of GELU, SiLU, Sigmoid, Tanh
       python3 tools/act_fit.py gelu    GELU's pieces of Q(t) and its tail
       python3 tools/act_fit.py gelu_tanh  GELU_TANH's pieces of sigmoid(-v(t))
(needs mpmath from PyPI)
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 40


def f32(v):
    return struct.unpack('<f', struct.pack('<f', float(v)))[0]


def fhex(v):
    """a float32 value as a C hex literal, its 23 significand bits in 6 hex digits"""
    if float(v) == 0:
        return '0.0f'
    h = float(v).hex()
    sign = '-' if h.startswith('-') else ''
    mant, exp = h.lstrip('-')[4:].split('p')
    return f'{sign}0x1.{mant[:6]:0<6}p{exp}f'


def fit(name, fn, a, b, deg, shift=0, seq=1, pair=True):
    """Polynomial in u = x - shift approximating fn on [a, b]; coefficients low to high.

    Relative-error least squares at Chebyshev nodes (close to minimax for these smooth
    functions). The constant term is rounded to a float pair (hi, lo), or to one float
    with pair=False (the FMA kernels: their last Horner step rounds once); the next seq - 1
    coefficients are rounded one at a time, refitting the rest after each, and the
    remaining ones are then rounded directly (their rounding, |c_j u^j| 2^-24, is
    negligible; refitting after every rounding only makes the top coefficients chase
    noise)."""
    n = 4 * (deg + 1)
    xs = [(mp.mpf(a) + b) / 2 + (mp.mpf(b) - a) / 2 * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n)
          for k in range(n)]
    fs = [fn(x) for x in xs]
    fixed = []
    for j in range(deg + 1):
        cols = list(range(j, deg + 1))
        A = mp.matrix(n, len(cols))
        rhs = mp.matrix(n, 1)
        for i, x in enumerate(xs):
            u = x - shift
            acc = sum(c * u**m for m, c in enumerate(fixed))
            for jj, m in enumerate(cols):
                A[i, jj] = u**m / fs[i]
            rhs[i] = (fs[i] - acc) / fs[i]
        sol, _ = mp.qr_solve(A, rhs)
        if j == 0 and pair:  # the constant term as a float pair (hi, lo): its rounding
            hi = mp.mpf(f32(sol[0]))  # would otherwise be an error of up to 2^-25 at u = 0
            fixed.append(hi + mp.mpf(f32(sol[0] - hi)))
        elif j == 0:
            fixed.append(mp.mpf(f32(sol[0])))
        elif j < seq:
            fixed.append(mp.mpf(f32(sol[0])))
        else:
            fixed.extend(mp.mpf(f32(c)) for c in sol)
            break
    hi = f32(fixed[0])
    coeffs = [float(c) for c in fixed]
    printed = [hi, f32(fixed[0] - hi)] + coeffs[1:] if pair else coeffs
    maxrel = 0
    for i in range(2001):
        x = mp.mpf(a) + (mp.mpf(b) - a) * i / 2000
        u = x - shift
        p = mp.mpf(0)
        for c in reversed(fixed):
            p = p * u + c
        fx = fn(x)
        if fx != 0:
            maxrel = max(maxrel, abs(p / fx - 1))
    print(f'/* {name}: degree {deg} on [{a}, {b}] in (x - {shift}): max rel err of the '
          f'float coefficients 2^{float(mp.log(maxrel, 2)) if maxrel else -999:.1f} */')
    print('  ' + ', '.join(fhex(c) for c in printed) +
          ('  /* c0 hi, c0 lo, c1, ... */' if pair else '  /* c0, c1, ... */'))
    return coeffs, maxrel


def expm1_q(r):
    # q(r) = (expm1(r) - r) / r^2, so expm1(r) = r + r^2 q(r)
    if r == 0:
        return mp.mpf(1) / 2
    return (mp.expm1(r) - r) / r**2


def log1p_r(z):
    # log(1+f) = 2 atanh(w), w = f/(2+f) = 2w + w R(z), z = w^2; R(z)/z = 2/3 + 2z/5 + ...
    if z == 0:
        return mp.mpf(2) / 3
    w = mp.sqrt(z)
    return (2 * mp.atanh(w) - 2 * w) / (w * z)


def tanhshrink_t(s):
    # x - tanh(x) = x^3 T(x^2)
    if s == 0:
        return mp.mpf(1) / 3
    x = mp.sqrt(s)
    return (x - mp.tanh(x)) / x**3


# The FMA exp kernel's q(r) (act_fexp.h), its constant one float (1/2): the FMA Horner chain
# ends with fmaf(p, u, c0).
FEXP_Q_DEG = 5
GELU_SEQ = 4  # c0 .. c3 rounded one at a time, refitting the rest (fit())


# Central pieces (src/arith/act_pieces.h): f(t) itself on [0, T] in 16 pieces, piece i where
# i <= s(t) < i + 1 for an index s that one or two fmaf and a product compute (then a
# truncation), chosen so that every piece spans about the same ratio of f: f's relative
# slope grows with t, so the pieces narrow. The index's rounding can move t into the
# neighbouring piece from up to 2^-22 (relative) beyond an edge, so each fit reaches
# 2^-20 past both of its edges; mids as in near_float_mid. Degree 7 in t - mid.
NPIECE = 16
PIECE_DEG = 7

# GELU (ACTQ_NCDF_Q_*): Q(t) = 1 - Phi(t) on [0, 6], s = t (A t + B): Q's relative slope
# is about t, so the widths go like 1/t.
GELU_Q_T_MAX = 6.0
GELU_Q_B = 1.0
GELU_Q_A = f32((NPIECE - 0.02 - GELU_Q_B * GELU_Q_T_MAX) / GELU_Q_T_MAX**2)

# GELU_TANH (ACTQ_GTANH_R_*): R(t) = sigmoid(-v(t)), v = t (C1 + C3 t^2), on [0, 5.5],
# s = t (B + A t^2) with B/A = C1/C3, i.e. s proportional to v, the log of R's tail.
GTANH_C1 = 2 * mp.sqrt(2 / mp.pi)
GTANH_C3 = GTANH_C1 * mp.mpf('0.044715')
GTANH_T_MAX = 5.5
GTANH_K = (NPIECE - 0.02) / float(GTANH_T_MAX * (GTANH_C1 + GTANH_C3 * GTANH_T_MAX**2))
GTANH_A = f32(GTANH_K * float(GTANH_C3))
GTANH_B = f32(GTANH_K * float(GTANH_C1))


def normal_q(t):
    return mp.ncdf(-t)


def gtanh_r(t):
    return 1 / (1 + mp.exp(t * (GTANH_C1 + GTANH_C3 * t * t)))


def near_float_mid(a, b, fn):
    """the float nearest (a + b)/2, within (b - a)/8 of it, where fn is within 1/16 ulp of
    a float, so that rounding c0 costs almost nothing at u = 0 (a = 0: mid 0)"""
    if a == 0:
        return 0.0
    centre, d = (a + b) / 2, (b - a) / 4096
    for j in range(512):
        for c in ((centre + j * d, centre - j * d) if j else (centre,)):
            c = f32(c)
            v = fn(mp.mpf(c))
            f = mp.mpf(f32(v))
            ulp = mp.mpf(2) ** (mp.floor(mp.log(f, 2)) - 23)
            if abs(v - f) < ulp / 16:
                return c
    raise ValueError('no mid')


def piece_fits(prefix, fn, index, t_max):
    """the 16 pieces of fn on [0, t_max] whose edges solve index(t) = i, printed as
    prefix_MID_INIT and prefix_COEF_INIT (rows by power, c0 first, then by piece)"""
    edges = [mp.mpf(0)] + [mp.findroot(lambda t, i=i: index(t) - i, (0, t_max), solver='bisect')
                           for i in range(1, NPIECE)] + [mp.mpf(t_max)]
    rows = [[] for _ in range(PIECE_DEG + 1)]
    mids = []
    worst = 0
    for i in range(NPIECE):
        lo, hi = edges[i] * (1 - mp.mpf(2)**-20), edges[i + 1] * (1 + mp.mpf(2)**-20)
        mid = near_float_mid(float(edges[i]), float(edges[i + 1]), fn)
        mids.append(mid)
        c, rel = fit(f'{prefix}[{i}]', fn, lo, hi, PIECE_DEG, shift=mid, seq=GELU_SEQ,
                     pair=False)
        worst = max(worst, rel)
        for j in range(PIECE_DEG + 1):
            rows[j].append(c[j])
    print(f'/* worst piece 2^{float(mp.log(worst, 2)):.1f} */')
    print(f'#define {prefix}_MID_INIT \\')
    print('  {' + ', '.join(fhex(v) for v in mids) + '}')
    print(f'#define {prefix}_COEF_INIT {{ \\')
    for j, r in enumerate(rows):
        print('  {' + ', '.join(fhex(v) for v in r) + '}, /* c%d */ \\' % j)
    print('}')


def gelu_q_fits():
    print(f'/* A = {fhex(GELU_Q_A)}, B = {fhex(GELU_Q_B)} */')
    piece_fits('ACTQ_NCDF_Q', normal_q, lambda t: t * (GELU_Q_A * t + GELU_Q_B), GELU_Q_T_MAX)


def gtanh_fits():
    print(f'/* A = {fhex(GTANH_A)}, B = {fhex(GTANH_B)} */')
    piece_fits('ACTQ_GTANH_R', gtanh_r, lambda t: t * (GTANH_B + GTANH_A * t * t), GTANH_T_MAX)


def fma_fits():
    print('/* FMA exp kernel q(r), |r| <= ln2/2 (ACTQ_FEXP_Q_POLY) */')
    fit('fexp_q', expm1_q, -0.35, 0.35, FEXP_Q_DEG, pair=False)


# GELU's tail (x < -6, ACTQ_NCDF_H_POLY): x Q(t) = -e^(-t^2/2) H(t), t = -x, with
# H(t) = t Q(t) e^(t^2/2), which falls from 0.389 to 0.397 (1/sqrt(2 pi)) over [6, 14.75]:
# one polynomial in t - mid, its coefficients immediates on every backend.
GELU_H_DEG = 11


def normal_h(t):
    return t * mp.ncdf(-t) * mp.exp(t * t / 2)


def gelu_fits():
    gelu_q_fits()
    lo, hi = GELU_Q_T_MAX * (1 - 2.0**-20), 14.75
    mid = near_float_mid(GELU_Q_T_MAX, hi, normal_h)
    c, _ = fit('H', normal_h, lo, hi, GELU_H_DEG, shift=mid, seq=GELU_SEQ, pair=False)
    print(f'#define ACTQ_NCDF_H_MID_F {fhex(mid)}')
    print('#define ACTQ_NCDF_H_POLY(FIRST, NEXT, p, x) \\')
    terms = [f'FIRST(p, x, {fhex(c[-1])})'] + [f'NEXT(p, x, {fhex(v)})' for v in c[-2::-1]]
    for k in range(0, len(terms), 3):
        print('  ' + ' '.join(terms[k:k + 3]) + (' \\' if k + 3 < len(terms) else ''))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == 'fma':
        fma_fits()
        return
    if len(sys.argv) > 1 and sys.argv[1] == 'gelu':
        gelu_fits()
        return
    if len(sys.argv) > 1 and sys.argv[1] == 'gelu_tanh':
        gtanh_fits()
        return
    print('/* expm1 kernel q(r), |r| <= ln2/2 */')
    fit('expm1_q', expm1_q, -0.35, 0.35, 6)
    print('/* log1p kernel R(z)/z, z = w^2, |w| <= 3 - 2 sqrt(2) */')
    fit('log1p_r', log1p_r, 0, 0.0295, 4)
    print('/* tanhshrink T(s), s = x^2 <= 1 */')
    fit('tanhshrink_t', tanhshrink_t, 0, 1, 9, seq=4)


if __name__ == '__main__':
    main()
