#!/usr/bin/env python3
"""noise_sass_scan.py - finds the Philox4x32-10 arithmetic in any SASS listing (for example
the library's own quantize kernels: cuobjdump -sass of cuda/quantize.cu built for sm_90):
per kernel, the 32x32->64 multiplies by the Philox constants, the adds of a Weyl multiple
(r*0x9E3779B9 or r*0xBB67AE85, r = 1..9: the per-call key schedule) and the instruction
count. 20 multiplies per Philox call; 18 Weyl adds per call mean the key schedule is
recomputed every call. usage: noise_sass_scan.py FILE.sass"""
import re
import sys

W = (0x9E3779B9, 0xBB67AE85)
weyl = {(r * w) & 0xFFFFFFFF for r in range(1, 10) for w in W}
MUL = re.compile(r"IMAD\.(WIDE|HI)\.U32.*(-0x2daee0ad|-0x326172a9|0xd2511f53|0xcd9e8d57)")


def imm_is_weyl(ins):
    for neg, h in re.findall(r"(-?)0x([0-9a-f]+)", ins):
        v = int(h, 16)
        if (((-v) & 0xFFFFFFFF) if neg else v) in weyl:
            return True
    return False


text = open(sys.argv[1]).read()
print("%-60s %7s %6s %6s %8s" % ("kernel", "instr", "mul", "weyl", "calls"))
for f in re.split(r"\n\s*Function : ", text)[1:]:
    name = f.split("\n", 1)[0].strip()
    ins = [i for i in re.findall(r"/\*[0-9a-f]{4,}\*/\s+([^;]*);", f) if not i.startswith("NOP")]
    mul = sum(1 for i in ins if MUL.search(i))
    ks = sum(1 for i in ins if re.match(r"U?V?IADD3?|VIADD", i) and imm_is_weyl(i))
    m = re.search(r"quantize_kernelILi(-?\d+)ELi(\d+)ELi(\d+)ELb(\d)E", name)
    short = "quantize_kernel<%s,%s,%s,%s>" % m.groups() if m else name[:60]
    print("%-60s %7d %6d %6d %8.2f" % (short, len(ins), mul, ks, mul / 20.0))
