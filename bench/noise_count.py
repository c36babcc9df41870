#!/usr/bin/env python3
"""noise_count.py - instructions per 16-bit output in the hot loop of each vector fill,
counted from `objdump -d` of the objects bench/noise_cost.sh builds.

The hot loop of a function is the backward branch whose body holds the most of the
generator's multiplies (or AES rounds), the innermost such; the elements one pass of it writes are known from
the source (below) and checked against its stores. Instructions are put in classes; "work"
is everything but loop control (cmp/test/jcc and scalar pointer/counter arithmetic).
usage: noise_count.py BUILD_DIR"""
import re
import sys
from collections import Counter

# function -> (object, elements written per pass of the hot loop, ISA)
FUNCS = {
    "actq_avx2_noise_fill": ("lib_noise_avx2", 64, "AVX2"),
    "nc_philox7_avx2": ("nc_avx2", 64, "AVX2"),
    "nc_mx2_avx2": ("nc_avx2", 32, "AVX2"),
    "nc_mx3_avx2": ("nc_avx2", 32, "AVX2"),
    "nc_ars5_aesni": ("nc_avx2", 32, "AES-NI xmm"),
    "actq_avx512_noise_fill": ("lib_noise_avx512", 128, "AVX-512"),
    "nc_philox7_avx512": ("nc_avx512", 128, "AVX-512"),
    "nc_mx2_avx512": ("nc_avx512", 64, "AVX-512"),
    "nc_mx3_avx512": ("nc_avx512", 64, "AVX-512"),
    "nc_ars5_vaes512": ("nc_avx512", 64, "AVX-512 VAES"),
}

CLASSES = [
    ("mul", r"^v?p?mul|^imul|^mul|^v?aesenc"),
    ("shuffle", r"^v?(pshuf|perm|punpck|shufp|unpck|palignr|pblend|pbroadcast|broadcast|insert|extract)"),
    ("logic", r"^v?p?(xor|and|or|ternlog)"),
    ("shift", r"^v?p(sr|sl)|^v?pro[lr]"),
    ("add", r"^v?padd|^v?psub"),
    ("store", r"^v?movdq[au]|^v?movup|^v?movap"),
]
CONTROL = r"^(cmp|test|j[a-z]+|add|sub|inc|dec|lea|mov|nop|xchg)"


def parse(path):
    funcs, cur = {}, None
    for line in open(path):
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            cur = m.group(2)
            funcs[cur] = []
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m and cur:
            funcs[cur].append((int(m.group(1), 16), m.group(2), m.group(3)))
    return funcs


def hot_loop(ins):
    best = None
    for i, (addr, op, args) in enumerate(ins):
        if not op.startswith("j") or op == "jmp":
            continue
        m = re.match(r"([0-9a-f]+)\s", args + " ")
        if not m:
            continue
        tgt = int(m.group(1), 16)
        if tgt >= addr:
            continue
        body = [x for x in ins if tgt <= x[0] <= addr]
        muls = sum(1 for x in body if re.match(CLASSES[0][1], x[1]))
        # the main loop: most multiplies (a tail loop has fewer), innermost of those
        key = (muls, -len(body))
        if muls and (best is None or key > best[0]):
            best = (key, body)
    return best[1] if best else None


def classify(op, args):
    for name, rx in CLASSES:
        if re.match(rx, op):
            if name == "store":  # a vector move is a store when its destination is memory
                return "store" if re.search(r",\s*-?(0x[0-9a-f]+)?\([^,]*(,[^,]*)*\)$", args) else "move"
            return name
    if re.match(CONTROL, op):
        if op.startswith("v") or "mm" in args:
            return "move"
        return "control"
    return "other"


def main():
    bdir = sys.argv[1]
    cache = {}
    print("# instructions per 16-bit output in the hot loop (objdump -d, gcc -O3)")
    print("%-24s %-13s %5s %7s | %s" % ("function", "ISA", "elem", "work/e", "per element by class (whole loop body)"))
    for fn, (obj, elems, isa) in FUNCS.items():
        if obj not in cache:
            cache[obj] = parse("%s/%s.dis" % (bdir, obj))
        ins = cache[obj].get(fn)
        if not ins:
            print("%-24s missing" % fn)
            continue
        body = hot_loop(ins)
        c = Counter(classify(op, args) for _, op, args in body)
        width = {"AVX2": 32, "AES-NI xmm": 16}.get(isa, 64)  # bytes per store
        stored = c["store"] * width // 2
        work = sum(v for k, v in c.items() if k not in ("control",))
        detail = " ".join("%s %.3f" % (k, v / elems) for k, v in sorted(c.items()))
        note = "" if stored == elems else "  (stores cover %d elements)" % stored
        print("%-24s %-13s %5d %7.3f | %s%s" % (fn, isa, elems, work / elems, detail, note))


if __name__ == "__main__":
    main()
