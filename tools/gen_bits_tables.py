#!/usr/bin/env python3
"""Writes the generated tables of the CPU bit-stream code:

  python3 tools/gen_bits_tables.py avx2 > cpu/avx2/bits_tables_avx2.h
  python3 tools/gen_bits_tables.py avx512 > cpu/avx512/bits_tables_avx512.h
  python3 tools/gen_bits_tables.py --check    (exit 1 with a diff where a header differs)

avx2: the shuffle tables of cpu/avx2/bits_avx2.h. Every table is indexed by the width
b = 1..8 (row 0 unused). A pshufb index >= 16 would leave its 128-bit half, so such bytes
are 0x80 (zero): the tables are laid out so that no code bit ever comes from one of them
(checked below).
avx512: the vpermb indices of the packer in cpu/avx512/quantize_avx512.c.

--check is the ctest test bits_tables_generated, so that the headers are only ever changed
through this file.
"""
import difflib
import os
import sys

Z = 0x80


def rows(fn):
    return [[Z] * 32 if b == 0 else fn(b) for b in range(9)]


def dup(half):
    """The same 16 entries in both 128-bit halves."""
    return half + half


def low_bytes(width, lanes, k):
    """Byte indices of the k low bytes of each of `lanes` lanes of `width` bytes, in order:
    how every packer table gathers its units' bytes together."""
    return [width * lane + j for lane in range(lanes) for j in range(k)]


def compress(b):
    """pshufb that moves the b low bytes of both 64-bit lanes of a half together."""
    half = low_bytes(8, 2, b)
    return dup(half + [Z] * (16 - len(half)))


def compress_dword(b):
    """The same for 4b-bit dwords (b even): the b/2 low bytes of each dword."""
    if b % 2:
        return [Z] * 32
    half = low_bytes(4, 4, b // 2)
    return dup(half + [Z] * (16 - len(half)))


def unpack_shuf(b):
    """gives 32-bit lane i the 4 bytes from byte (i*b)/8 of an 8-byte unit."""
    out = []
    for i in range(8):
        k = (i * b) // 8
        out += [k + j if k + j < 8 else Z for j in range(4)]
    return out


def unpack_shift(b):
    return [(i * b) % 8 for i in range(8)]


def byte_positions(b, layout):
    """Stream bit of each of the 16 code bytes of a half, relative to the half's source.
    natural: 16 consecutive codes. units: the unit at byte 0, then the unit at byte 2b."""
    if layout == "natural":
        return [j * b for j in range(16)]
    return [j * b if j < 8 else 16 * b + (j - 8) * b for j in range(16)]


def bytes_tables(b, layout):
    """Codes -> one byte each, by two 16-bit multiplies (AVX2 has no per-byte shift):
    even byte 2w is the low byte of mulhi(window, 2^(16-s)) = window >> s, odd byte 2w+1
    the high byte of mullo(window, 2^(8-s)) = window << (8-s)."""
    idx_e, idx_o, mul_e, mul_o = [], [], [], []
    for j, p in enumerate(byte_positions(b, layout)):
        k, s = p // 8, p % 8
        if j % 2 == 0:
            lo, sh = (k - 1, 8) if s == 0 else (k, s)
            win = [lo, lo + 1]
            # the code's bits [p, p+b) lie inside the two window bytes
            assert 8 * lo <= p and p + b <= 8 * lo + 16
            idx_e += [x if 0 <= x < 16 else Z for x in win]
            mul_e.append(1 << (16 - sh))
        else:
            win = [k, k + 1]
            assert p + b <= 8 * k + 16
            if k + 1 >= 16:
                assert p + b <= 8 * k + 8
            idx_o += [x if x < 16 else Z for x in win]
            mul_o.append(1 << (8 - s))
    return dup(idx_e), dup(idx_o), dup(mul_e), dup(mul_o)


def eo_tables(b):
    """Even/odd elements of a block of 16 codes (2b bytes, broadcast to both halves):
    lane i of half h gets element 8h + 2i (table 0) or 8h + 2i + 1 (table 1) as the 4
    bytes from its first byte, and the shift of the code inside them."""
    idx, sh = [], []
    for par in (0, 1):
        t, s = [], []
        for h in range(2):
            for i in range(4):
                e = 8 * h + 2 * i + par
                p = e * b
                k = p // 8
                assert p + b <= 8 * k + 32 and p + b <= 128
                t += [k + j if k + j < 16 else Z for j in range(4)]
                s.append(p % 8)
        idx.append(t)
        sh.append(s)
    return idx, sh


def fmt_u8(name, table, comment):
    lines = [f"/* {comment} */",
             f"static const uint8_t {name}[9][32] __attribute__((aligned(32))) = {{"]
    for r in table:
        lines.append("  {" + ", ".join(f"0x{x:02x}" for x in r) + "},")
    lines.append("};")
    return "\n".join(lines)


def fmt_int(name, ctype, dims, table, comment, align=32):
    lines = [f"/* {comment} */",
             f"static const {ctype} {name}{dims} __attribute__((aligned({align}))) = {{"]
    for r in table:
        if r and isinstance(r[0], list):
            lines.append("  {" + ", ".join("{" + ", ".join(str(x) for x in q) + "}" for q in r)
                         + "},")
        else:
            lines.append("  {" + ", ".join(str(x) for x in r) + "},")
    lines.append("};")
    return "\n".join(lines)


def avx2_header():
    out = ["/* bits_tables_avx2.h - shuffle tables of the AVX2 bit-stream code (cpu/avx2/bits_avx2.h),",
           " * indexed by the width b = 1..8 (row 0 unused).",
           " * Generated by `python3 tools/gen_bits_tables.py avx2 > cpu/avx2/bits_tables_avx2.h`:",
           " * edit the generator, not this file (ctest's bits_tables_generated compares them). */",
           "#ifndef ACTQ_CPU_AVX2_BITS_TABLES_H",
           "#define ACTQ_CPU_AVX2_BITS_TABLES_H",
           "",
           "#include <stdint.h>",
           ""]
    out.append(fmt_u8("actq_avx2_compress_shuf", rows(compress),
                      "pshufb that moves the b low bytes of both 64-bit lanes of a 128-bit half together."))
    out.append(fmt_u8("actq_avx2_unpack_shuf", rows(unpack_shuf),
                      "pshufb that gives 32-bit lane i the 4 bytes from byte (i*b)/8 of an 8-byte unit."))
    out.append(fmt_int("actq_avx2_unpack_shift", "int32_t", "[9][8]",
                       [[0] * 8 if b == 0 else unpack_shift(b) for b in range(9)],
                       "the right shift that then brings code i to bit 0: (i*b) % 8."))
    out.append(fmt_u8("actq_avx2_compress_dword_shuf", rows(compress_dword),
                      "even b: pshufb that moves the b/2 low bytes of each 32-bit lane (4b bits) of a\n"
                      " * half together (odd b: unused)."))
    for layout, tag, what in (("natural", "", "16 consecutive codes per half"),
                              ("units", "_units", "units 0 and 2 of the half's source (at bytes 0 and 2b)")):
        # the units layout needs units 0 and 2 (bytes [0, b) and [2b, 3b)) inside the
        # half's 16-byte source: b <= 5
        t = [bytes_tables(b, layout) if b and (layout == "natural" or b <= 5)
             else ([Z] * 32, [Z] * 32, [0] * 16, [0] * 16) for b in range(9)]
        out.append(fmt_u8(f"actq_avx2_bytes{tag}_idx_even", [r[0] for r in t],
                          f"codes to bytes, {what}: the 16-bit window of even code byte 2w."))
        out.append(fmt_u8(f"actq_avx2_bytes{tag}_idx_odd", [r[1] for r in t],
                          f"codes to bytes, {what}: the 16-bit window of odd code byte 2w+1."))
        out.append(fmt_int(f"actq_avx2_bytes{tag}_mul_even", "uint16_t", "[9][16]",
                           [r[2] for r in t], "mulhi factors 2^(16-s) of the even windows."))
        out.append(fmt_int(f"actq_avx2_bytes{tag}_mul_odd", "uint16_t", "[9][16]",
                           [r[3] for r in t], "mullo factors 2^(8-s) of the odd windows."))
    eo = [eo_tables(b) if b else ([[Z] * 32] * 2, [[0] * 8] * 2) for b in range(9)]
    out.append(fmt_int("actq_avx2_eo_shuf", "uint8_t", "[9][2][32]", [r[0] for r in eo],
                       "16 codes (2b bytes in both halves) -> 32-bit lanes: lane i of half h gets the 4\n"
                       " * bytes of element 8h + 2i ([0], even) or 8h + 2i + 1 ([1], odd)."))
    out.append(fmt_int("actq_avx2_eo_shift", "int32_t", "[9][2][8]", [r[1] for r in eo],
                       "where the code then starts inside its lane."))
    out += ["", "#endif /* ACTQ_CPU_AVX2_BITS_TABLES_H */", ""]
    return "\n".join(out) + "\n"


def gather_units(b):
    """vpermb indices that gather 8 units of 8 codes into 8b contiguous bytes; the rest is 0
    (not stored: the store is masked). Odd b: the b low bytes of each of the 8 qwords (one
    unit each). Even b: the b / 2 low bytes of each of the 16 dwords (half a unit each: 4
    codes of 4b bits, a whole number of bytes), so the packer needs no qword merge."""
    idx = low_bytes(8, 8, b) if b % 2 else low_bytes(4, 16, b // 2)
    return idx + [0] * (64 - len(idx))


def window16(b):
    """vpermb indices that give 32-bit lane i (16 lanes) the 4 stream bytes from byte
    (i*b)/8 of 16 codes (2b bytes, zero-extended: indices past them read zeros, and no code
    bit lies there) for the AVX-512 dequantize."""
    out = []
    for i in range(16):
        k = (i * b) // 8
        assert (i * b) % 8 + b <= 32 and k + ((i * b) % 8 + b - 1) // 8 < 2 * b
        out += [k + j for j in range(4)]
    return out


def window16_shift(b):
    """where code i then starts inside its lane: (i*b) % 8."""
    return [(i * b) % 8 for i in range(16)]


def high_halves16():
    """vpermb indices of the high 16 bits of 16 dwords, in order (their 32 bytes first)."""
    idx = [4 * i + 2 + j for i in range(16) for j in range(2)]
    return idx + [0] * 32


def bf16_bit_order():
    """Byte p: where element p's 1-bit code lies among 64 mask bits made of four 16-lane
    masks of bf16's quads (load_v): mask 2h holds elements 32h + 8k + i, mask 2h + 1 the
    elements 32h + 8k + 4 + i, at bit 4k + i."""
    out = []
    for p in range(64):
        h, q = divmod(p, 32)
        k, r = divmod(q, 8)
        out.append(32 * h + (4 * k + r if r < 4 else 16 + 4 * k + r - 4))
    assert sorted(out) == list(range(64))
    return out


def avx512_header():
    out = ["/* bits_tables_avx512.h - vpermb indices of the AVX-512 packer (cpu/avx512/quantize_avx512.c):",
           " * row b gathers 8 units of 8 codes into 8b contiguous bytes: for odd b the b low bytes of",
           " * each of the 8 qwords (a unit each), for even b the b / 2 low bytes of each of the 16",
           " * dwords (half a unit each); row 0 unused, row 8 the identity (the packer skips it).",
           " * actq_avx512_bf16_bit_order: byte p of 64 1-bit codes as bytes in bf16's quad order",
           " * (store_bits64) is taken from byte bf16_bit_order[p].",
           " * actq_avx512_window16[b], actq_avx512_window16_shift[b] (cpu/avx512/dequantize_avx512.c):",
           " * lane i of 16 gets the 4 stream bytes from byte (i*b)/8 of 16 codes, its code then at",
           " * bit (i*b) % 8; actq_avx512_high_halves16: the high halves of 16 dwords, in order.",
           " * Generated by `python3 tools/gen_bits_tables.py avx512 > cpu/avx512/bits_tables_avx512.h`:",
           " * edit the generator, not this file (ctest's bits_tables_generated compares them). */",
           "#ifndef ACTQ_CPU_AVX512_BITS_TABLES_H",
           "#define ACTQ_CPU_AVX512_BITS_TABLES_H",
           "",
           "#include <stdint.h>",
           "",
           "static const uint8_t actq_avx512_gather_units[9][64] __attribute__((aligned(64))) = {"]
    for b in range(9):
        out.append("  {" + ", ".join(str(x) for x in ([0] * 64 if b == 0 else gather_units(b))) + "},")
    out += ["};", "",
            "static const uint8_t actq_avx512_bf16_bit_order[64] __attribute__((aligned(64))) = {",
            "  " + ", ".join(str(x) for x in bf16_bit_order()) + "};",
            "",
            "static const uint8_t actq_avx512_window16[9][64] __attribute__((aligned(64))) = {"]
    for b in range(9):
        out.append("  {" + ", ".join(str(x) for x in ([0] * 64 if b == 0 else window16(b))) + "},")
    out += ["};", "",
            "static const int32_t actq_avx512_window16_shift[9][16] __attribute__((aligned(64))) = {"]
    for b in range(9):
        out.append("  {" + ", ".join(str(x) for x in ([0] * 16 if b == 0 else window16_shift(b))) + "},")
    out += ["};", "",
            "static const uint8_t actq_avx512_high_halves16[64] __attribute__((aligned(64))) = {",
            "  " + ", ".join(str(x) for x in high_halves16()) + "};",
            "", "#endif /* ACTQ_CPU_AVX512_BITS_TABLES_H */", ""]
    return "\n".join(out)


# target -> (generator, the header's path from the repository root)
TARGETS = {
    "avx2": (avx2_header, "cpu/avx2/bits_tables_avx2.h"),
    "avx512": (avx512_header, "cpu/avx512/bits_tables_avx512.h"),
}


def check():
    """Compares every header with what its generator writes now; 0 when all agree."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = 0
    for name, (gen, path) in TARGETS.items():
        want = gen()
        with open(os.path.join(root, path), newline="") as f:
            have = f.read()
        if have == want:
            print(f"{path}: as generated")
            continue
        bad = 1
        print(f"{path} differs from `python3 tools/gen_bits_tables.py {name}`:")
        sys.stdout.writelines(difflib.unified_diff(
            want.splitlines(True), have.splitlines(True), "generated", path))
    return bad


def main(argv):
    if len(argv) == 2 and argv[1] == "--check":
        return check()
    if len(argv) == 2 and argv[1] in TARGETS:
        sys.stdout.write(TARGETS[argv[1]][0]())
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
