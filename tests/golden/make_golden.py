#!/usr/bin/env python3
"""Generates golden_vectors.h: packed bytes, metadata and dequantized values of a few
fixed inputs, computed from docs/format.md alone with exact rational arithmetic (every
float operation is done exactly in Fractions, then rounded once to the target format).
It shares no code with the library, so the vectors freeze the format as documented.

    python3 tests/golden/make_golden.py > tests/golden/golden_vectors.h
"""
import math
import struct
from fractions import Fraction as F

# ---- binary formats: (precision bits incl. hidden bit, minimum normal exponent, max exponent)
FMT = {"f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}
INF = float("inf")


def ulp_exp(v, fmt):
    p, emin, _ = FMT[fmt]
    e = max(math.floor(math.log2(abs(v))) if v else emin, emin)
    # fix log2 imprecision on exact fractions
    while F(2) ** e > abs(v) and e > emin:
        e -= 1
    while F(2) ** (e + 1) <= abs(v):
        e += 1
    return max(e, emin) - (p - 1)


def max_finite(fmt):
    p, _, emax = FMT[fmt]
    return (2 - F(2) ** (1 - p)) * F(2) ** emax


def round_fmt(v, fmt, mode="rne"):
    """v: Fraction (or +-INF). Rounds to fmt: 'rne', 'down' (toward -inf), 'up'."""
    if v in (INF, -INF):
        return v
    if v == 0:
        return F(0)
    q = F(2) ** ulp_exp(v, fmt)
    n = v / q
    lo = math.floor(n)
    if mode == "down":
        k = lo
    elif mode == "up":
        k = math.ceil(n)
    else:
        r = n - lo
        k = lo + 1 if (r > F(1, 2) or (r == F(1, 2) and lo % 2 == 1)) else lo
    out = k * q
    mx = max_finite(fmt)
    if out > mx:
        if mode == "down":
            return mx
        # RNE overflows at max + half ulp of max; out > mx means it got there
        return INF
    if out < -mx:
        return -mx if mode == "up" else -INF
    return out


def step_up(v, fmt):
    """next value of fmt above v (v exact in fmt, finite)."""
    if v == 0:
        p, emin, _ = FMT[fmt]
        return F(2) ** (emin - (p - 1))
    if v > 0:
        return round_fmt(v + F(2) ** ulp_exp(v, fmt), fmt)
    # negative: the magnitude decreases; its ulp may halve at a power of two
    cand = v + F(2) ** ulp_exp(v, fmt)
    smaller = v + F(2) ** (ulp_exp(v, fmt) - 1)
    return smaller if round_fmt(smaller, fmt) == smaller and smaller != v else cand


# ---- bit patterns
def f32_bits(v):
    if v != v:
        return 0x7FC00000
    return struct.unpack("<I", struct.pack("<f", float(v)))[0]


def f32_val(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def h_bits(v, fmt):
    """bits of a value exact in f16/bf16 (or NaN / inf)."""
    if fmt == "bf16":
        if v != v:
            return 0x7FC0
        return f32_bits(v) >> 16
    if v != v:
        return 0x7E00
    if v in (INF, -INF):
        return 0x7C00 | (0x8000 if v < 0 else 0)
    sign = 0x8000 if (v < 0 or (v == 0 and math.copysign(1, v) < 0)) else 0
    a = abs(F(v))
    if a == 0:
        return sign
    e = ulp_exp(a, "f16") + 10  # exponent of the leading bit
    if a < F(2) ** -14:
        return sign | int(a / F(2) ** -24)
    m = a / F(2) ** e - 1
    return sign | ((e + 15) << 10) | int(m * 1024)


def meta_bits(v, fmt):
    return f32_bits(v) if fmt == "f32" else h_bits(v, fmt)


# ---- Philox4x32-10 and the noise mapping of docs/format.md
M32 = 0xFFFFFFFF


def philox(ctr, key):
    c = list(ctr)
    k0, k1 = key
    for _ in range(10):
        p0 = 0xD2511F53 * c[0]
        p1 = 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & M32, (p0 >> 32) ^ c[3] ^ k1, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return c


assert philox([0, 0, 0, 0], [0, 0]) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def noise_u(seed, offset, e):
    blk = e // 8
    out = philox([blk & M32, blk >> 32, offset & M32, offset >> 32], [seed & M32, seed >> 32])
    r16 = (out[(e % 8) // 2] >> (16 * (e % 2))) & 0xFFFF
    return F(r16, 65536) + F(1, 131072)


# ---- float32 operations, each exact then rounded once (RNE)
def r32(v):
    return round_fmt(v, "f32")


def quantize(x, rows, cols, G, row_bits, meta, rounding, seed, offset):
    """x: list of Fractions/float specials (already values of the input dtype)."""
    packed, mins, scales, ys = [], [], [], []
    for r in range(rows):
        b = row_bits[r]
        L = 2 ** b - 1
        codes = []
        for g0 in range(0, cols, G):
            grp = [x[r * cols + c] for c in range(g0, min(g0 + G, cols))]
            nonfinite = any(v != v or v in (INF, -INF) for v in grp)
            m = s = None
            if not nonfinite:
                mn, mx = min(grp), max(grp)
                m = round_fmt(F(mn), meta, "down")
                if m in (INF, -INF):
                    nonfinite = True
                else:
                    if mx == m:
                        s = F(0)
                    else:
                        s = round_fmt((F(mx) - m) / L, meta, "up")
                        while s not in (INF, -INF) and m + L * s < mx:
                            s = step_up(s, meta)
                        if s in (INF, -INF):
                            nonfinite = True
            if nonfinite:
                mins.append(float("nan"))
                scales.append(float("nan"))
                codes += [0] * len(grp)
                ys += [float("nan")] * len(grp)
                continue
            mins.append(m)
            scales.append(s)
            c = F(1, 2) if (s != 0 and F(mx) - m >= F(2) ** 127) else F(1)
            mc, sc = r32(m * c), (r32(s * c) if s != 0 else F(1))
            for i, v in enumerate(grp):
                t = r32(r32(r32(F(v) * c) - mc) / sc)
                if rounding == "stochastic":
                    e = r * cols + g0 + i
                    q = math.floor(r32(t + noise_u(seed, offset, e)))
                else:
                    fl = math.floor(t)
                    fr = t - fl
                    q = fl + 1 if (fr > F(1, 2) or (fr == F(1, 2) and fl % 2 == 1)) else fl
                q = min(max(q, 0), L)
                codes.append(q)
                ys.append(r32(q * s + m))
        acc, nbits = 0, 0
        for i, q in enumerate(codes):
            acc |= q << (i * b)
        packed += list(acc.to_bytes((cols * b + 7) // 8, "little"))
    return packed, mins, scales, ys


def in_dtype(v, dt):
    """value of float v after storing it in dtype dt (RNE)."""
    if v != v or v in (INF, -INF) or v == 0:
        return v  # keeps the sign of zero
    return round_fmt(F(v), dt)


def x_bits(v, dt):
    return f32_bits(v) if dt == "f32" else h_bits(v, dt)


def y_bits(v, dt):
    if v != v:
        return {"f32": 0x7FC00000, "f16": 0x7E00, "bf16": 0x7FC0}[dt]
    return x_bits(round_fmt(F(v), dt) if v not in (INF, -INF) else v, dt)


def series(n, seed):
    """deterministic test values: a mix of scales, signs, repeats"""
    out, s = [], seed
    for i in range(n):
        s = (s * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        u = (s >> 11) / 2 ** 53
        v = (u - 0.3) * (1 + (i % 5)) * 3.7
        if i % 11 == 0:
            v = 1.25
        out.append(float(struct.unpack("<f", struct.pack("<f", v))[0]))
    return out


CASES = []


def case(name, rows, cols, G, bits, meta, xdt, ydt, rounding, seed, offset, values=None, row_bits=None):
    vals = values if values is not None else series(rows * cols, hash(name) & 0xFFFF)
    x = [in_dtype(v, xdt) for v in vals]
    rb = row_bits or [bits] * rows
    packed, mins, scales, ys = quantize(x, rows, cols, G, rb, meta, rounding, seed, offset)
    CASES.append(dict(name=name, rows=rows, cols=cols, G=G, bits=0 if row_bits else bits,
                      row_bits=row_bits, meta=meta, xdt=xdt, ydt=ydt, rounding=rounding,
                      seed=seed, offset=offset, x=[x_bits(v, xdt) for v in x], packed=packed,
                      mins=[meta_bits(v, meta) for v in mins],
                      scales=[meta_bits(v, meta) for v in scales],
                      y=[y_bits(v, ydt) for v in ys]))


def stable_series_seed(name):
    return sum(ord(ch) * (i + 1) for i, ch in enumerate(name))


hash = stable_series_seed  # noqa: A001 - deterministic across runs

for b in range(1, 9):
    case(f"f32_b{b}_stochastic", 2, 21, 8, b, "f32", "f32", "f32", "stochastic",
         0x0123456789ABCDEF, 0xFEDCBA9876543210 + b)
    case(f"f32_b{b}_nearest", 2, 21, 8, b, "f32", "f32", "f32", "nearest", 0, 0)
case("bf16_in_f16_meta_b3", 3, 17, 16, 3, "f16", "bf16", "bf16", "stochastic", 42, 7)
case("f16_in_bf16_meta_b5", 2, 24, 8, 5, "bf16", "f16", "f16", "nearest", 0, 0)
case("f16_in_f16_meta_b2_stoch", 2, 33, 32, 2, "f16", "f16", "f32", "stochastic", 9, 1 << 40)
case("row_bits_mixed", 4, 13, 8, 0, "f32", "f32", "f32", "stochastic", 5, 6, row_bits=[1, 8, 3, 6])
FLT_MAX = f32_val(0x7F7FFFFF)
case("specials", 1, 40, 8, 4, "f32", "f32", "f32", "nearest", 0, 0,
     values=[2.5] * 8 + [-FLT_MAX, FLT_MAX, 0.0, 1.0, -1.0, 3e38, -2e38, 1e-40]
     + [1.0, float("nan"), 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
     + [-0.0, 0.0, -0.0, 0.0, 0.0, 0.0, -0.0, 0.0]
     + [1e-45, 3e-45, -1e-45, 0.0, 7e-45, 1e-44, 2e-45, 4e-45])
case("specials_f16_meta", 1, 24, 8, 6, "f16", "f32", "f16", "stochastic", 3, 4,
     values=[0.1] * 8 + [-70000.0, 1, 2, 3, 4, 5, 6, 7] + [60000.0, -60000.0, 0, 1, 2, 3, 4, 5])


def arr(name, ctype, items, per=12, fmt="0x%x"):
    body = ",".join((("\n    " if i % per == 0 else " ") + fmt % v) for i, v in enumerate(items))
    return f"static const {ctype} {name}[] = {{{body}}};\n"


print("/* golden_vectors.h - generated by tests/golden/make_golden.py from docs/format.md.\n"
      " * Frozen: a change here is a change of ACTQ_FORMAT_VERSION. Do not edit. */")
print("#include <stddef.h>\n#include <stdint.h>\n")
for i, c in enumerate(CASES):
    xt = "uint32_t" if c["xdt"] == "f32" else "uint16_t"
    mt = "uint32_t" if c["meta"] == "f32" else "uint16_t"
    yt = "uint32_t" if c["ydt"] == "f32" else "uint16_t"
    print(f"/* {c['name']} */")
    print(arr(f"g{i}_x", xt, c["x"]))
    print(arr(f"g{i}_packed", "uint8_t", c["packed"], 16, "0x%02x"))
    print(arr(f"g{i}_min", mt, c["mins"]))
    print(arr(f"g{i}_scale", mt, c["scales"]))
    print(arr(f"g{i}_y", yt, c["y"]))
    if c["row_bits"]:
        print(arr(f"g{i}_row_bits", "uint8_t", c["row_bits"], 16, "%d"))
DT = {"f32": "ACTQ_F32", "f16": "ACTQ_F16", "bf16": "ACTQ_BF16"}
print("static const golden_case golden_cases[] = {")
for i, c in enumerate(CASES):
    rb = f"g{i}_row_bits" if c["row_bits"] else "NULL"
    rnd = "ACTQ_ROUND_STOCHASTIC" if c["rounding"] == "stochastic" else "ACTQ_ROUND_NEAREST"
    print(f'  {{"{c["name"]}", {c["rows"]}, {c["cols"]}, {c["G"]}, {c["bits"]}, {rb}, '
          f'{DT[c["meta"]]}, {DT[c["xdt"]]}, {DT[c["ydt"]]}, {rnd}, 0x{c["seed"]:x}ull, '
          f'0x{c["offset"]:x}ull, g{i}_x, g{i}_packed, sizeof g{i}_packed, g{i}_min, g{i}_scale, '
          f'sizeof g{i}_min / sizeof g{i}_min[0], g{i}_y}},')
print("};")
