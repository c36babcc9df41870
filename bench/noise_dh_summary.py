#!/usr/bin/env python3
"""noise_dh_summary.py - summary of the dieharder outputs bench/noise_dieharder.sh writes:
per generator, how many result lines PASSED / WEAK / FAILED, which tests ran (a run that
was stopped lists only the tests it finished), and every line that was not PASSED.
usage: noise_dh_summary.py DIR (default docs/noise-data)"""
import glob
import os
import re
import sys
from collections import OrderedDict

d = sys.argv[1] if len(sys.argv) > 1 else "docs/noise-data"
gens = OrderedDict()
for path in sorted(glob.glob(os.path.join(d, "dieharder-*.txt"))):
    gen = re.match(r"dieharder-([a-z0-9]+)", os.path.basename(path)).group(1)
    g = gens.setdefault(gen, {"PASSED": 0, "WEAK": 0, "FAILED": 0, "tests": OrderedDict(), "bad": [], "files": []})
    g["files"].append(os.path.basename(path))
    for line in open(path):
        m = re.match(r"^\s*(\w+)\|\s*(\d+)\|.*\|\s*([0-9.]+)\s*\|\s*(PASSED|WEAK|FAILED)", line)
        if not m:
            continue
        name, ntup, p, verdict = m.groups()
        g[verdict] += 1
        g["tests"][name] = g["tests"].get(name, 0) + 1
        if verdict != "PASSED":
            g["bad"].append("%s ntup=%s p=%s %s (%s)" % (name, ntup, p, verdict, os.path.basename(path)))
for gen, g in gens.items():
    total = g["PASSED"] + g["WEAK"] + g["FAILED"]
    print("%s: %d result lines, PASSED %d, WEAK %d, FAILED %d" % (gen, total, g["PASSED"], g["WEAK"], g["FAILED"]))
    print("  tests: " + ", ".join("%s x%d" % (k, v) for k, v in g["tests"].items()))
    for b in g["bad"]:
        print("  not PASSED: " + b)
