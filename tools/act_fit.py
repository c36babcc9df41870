#!/usr/bin/env python3
"""Coefficients of the float32 activation approximations in src/arith/act_*.h.

Each function is fitted by relative least squares at Chebyshev nodes (see fit()), at 40
digits, with float32 coefficients, and the rounded polynomial is checked against the
function at 2001 points: the printed
`maxrel` is the relative error of the float32-coefficient polynomial in exact arithmetic
(the float32 evaluation adds its own rounding on top, measured by tests/arith/test_act.c).

Usage: python3 tools/act_fit.py      (needs mpmath from PyPI)
"""
import struct
import mpmath as mp

mp.mp.dps = 40


def f32(v):
    return struct.unpack('<f', struct.pack('<f', float(v)))[0]


def fhex(v):
    return float(v).hex().replace('0x', '0x') + 'f'


def fit(name, fn, a, b, deg, shift=0, seq=1):
    """Polynomial in u = x - shift approximating fn on [a, b]; coefficients low to high.

    Relative-error least squares at Chebyshev nodes (close to minimax for these smooth
    functions). The constant term is rounded to a float pair (hi, lo); the next seq - 1
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
        if j == 0:  # the constant term as a float pair (hi, lo): its rounding would
            hi = mp.mpf(f32(sol[0]))  # otherwise be an error of up to 2^-25 at u = 0
            fixed.append(hi + mp.mpf(f32(sol[0] - hi)))
        elif j < seq:
            fixed.append(mp.mpf(f32(sol[0])))
        else:
            fixed.extend(mp.mpf(f32(c)) for c in sol)
            break
    hi = f32(fixed[0])
    coeffs = [float(c) for c in fixed]
    printed = [hi, f32(fixed[0] - hi)] + coeffs[1:]
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
    print('  ' + ', '.join(fhex(c) for c in printed) + '  /* c0 hi, c0 lo, c1, ... */')
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


def phi_central(s):
    # Phi(x) = 1/2 + x P(x^2)
    if s == 0:
        return 1 / mp.sqrt(2 * mp.pi)
    x = mp.sqrt(s)
    return (mp.ncdf(x) - mp.mpf(1) / 2) / x


def mills_g(t):
    # Q(t) = 1 - Phi(t) = exp(-t^2/2) g(t)
    return mp.ncdf(-t) * mp.exp(t * t / 2)


def main():
    print('/* expm1 kernel q(r), |r| <= ln2/2 */')
    fit('expm1_q', expm1_q, -0.35, 0.35, 6)
    print('/* log1p kernel R(z)/z, z = w^2, |w| <= 3 - 2 sqrt(2) */')
    fit('log1p_r', log1p_r, 0, 0.0295, 4)
    print('/* tanhshrink T(s), s = x^2 <= 1 */')
    fit('tanhshrink_t', tanhshrink_t, 0, 1, 9, seq=4)
    print('/* Phi central P(s), s = x^2 <= (43/64)^2 */')
    fit('phi_central', phi_central, 0, (43 / 64) ** 2, 7)
    print('/* Mills tail g(t) pieces */')
    bps = [43 / 64, 1.0, 1.5, 2.25, 3.375, 5.0, 7.5, 11.0, 14.75]
    import sys
    deg = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    for i in range(8):
        a, b = bps[i], bps[i + 1]
        mid = f32((a + b) / 2)
        fit(f'g[{i}]', mills_g, a, b, deg, shift=mid)


if __name__ == '__main__':
    main()
