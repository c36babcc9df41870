#!/usr/bin/env python3
"""noise_sass_count.py - SASS instructions per element of each bench/noise_sass.cu kernel
(cuobjdump -sass output on stdin or as the argument). Every kernel is straight-line code
for one 8-element unit; the generator's own cost is its kernel minus k_null (same index
arithmetic and 16-byte store, no generator). NOPs and the trailing BRA self-loop are not
counted. Opcodes are grouped by their mnemonic before the first '.', except that
IMAD.WIDE / IMAD.HI (32x32->64 halves) are kept apart from the plain 32-bit IMAD/IMAD.MOV."""
import re
import sys
from collections import Counter, OrderedDict

ELEMS = 8  # elements per thread (one unit)
text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
kernels = OrderedDict()
cur = None
for line in text.splitlines():
    m = re.search(r"Function : (\S+)", line)
    if m:
        cur = m.group(1)
        kernels[cur] = Counter()
        continue
    m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if m and cur:
        op = m.group(1)
        base = op.split(".")[0]
        if base in ("NOP",) or (base == "BRA" and "BRA `" in line and "EXIT" not in line and kernels[cur]["EXIT"]):
            continue
        if base == "IMAD" and (".WIDE" in op or ".HI" in op):
            base = "IMAD.WIDE/HI"
        elif base == "IMAD" and ".MOV" in op:
            base = "IMAD.MOV"
        kernels[cur][base] += 1

def demangle(k):  # _Z<len><name>...: the kernel's plain name
    m = re.match(r"_Z(\d+)", k)
    name = k[len(m.group(0)):len(m.group(0)) + int(m.group(1))] if m else k
    if name.endswith("_rk") and "ILi7E" in k:  # template argument: rounds
        name += "7"
    return name


short = {k: demangle(k) for k in kernels}
null = next((c for k, c in kernels.items() if short[k].startswith("k_null")), Counter())
ops = sorted({o for c in kernels.values() for o in c})
print("# SASS instructions per element (sm_90, one thread = one 8-element unit)")
print("# total = whole kernel / 8; gen = (kernel - k_null) / 8")
print("%-12s %7s %7s | %s" % ("kernel", "total", "gen", "generator's instructions per element, by opcode"))
for k, c in kernels.items():
    tot = sum(c.values())
    diff = {o: c[o] - null[o] for o in ops if c[o] - null[o] != 0}
    gen = sum(diff.values())
    detail = " ".join("%s %+.3g" % (o, v / ELEMS) for o, v in sorted(diff.items(), key=lambda x: -abs(x[1])))
    print("%-12s %7.2f %7.2f | %s" % (short[k], tot / ELEMS, gen / ELEMS, detail))
