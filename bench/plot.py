#!/usr/bin/python3
"""plot.py - throughput against size for each kernel beside its same-run traffic proxy.

Input: the CSV that `report.py --csv` writes; output: a PNG (default docs/bench-cpu.png).
One panel per kernel, at one width (default 4 bits) and f32 data (bytes for pack/unpack):
the CPU backend (solid) and its proxy (dashed) for 1 thread and for all threads, and the
reference backend (dotted). Uses Debian's python3-matplotlib.
Usage: plot.py bench.csv [--bits 4] [--out docs/bench-cpu.png] [--title TEXT]
"""
import argparse
import collections
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--bits", type=int, default=4)
    ap.add_argument("--out", default="docs/bench-cpu.png")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    series = collections.defaultdict(list)
    for r in csv.DictReader(open(a.csv)):
        if int(r["bits"]) != a.bits or r["dtype"] not in ("f32", "u8"):
            continue
        n, t = int(r["n"]), int(r["threads"])
        series[(r["kernel"], "cpu", t)].append((n, float(r["cpu_items_s"]) / 1e9))
        series[(r["kernel"], "proxy", t)].append((n, float(r["proxy_items_s"]) / 1e9))
        if float(r["ref_items_s"]) > 0 and t == 1:
            series[(r["kernel"], "ref", 1)].append((n, float(r["ref_items_s"]) / 1e9))
    kernels = ["quantize", "dequantize", "pack", "unpack"]
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    style = {"cpu": "-", "proxy": "--", "ref": ":"}
    colors = {1: "tab:blue", 2: "tab:orange"}
    for ax, k in zip(axes.flat, kernels):
        for (kk, impl, t), pts in sorted(series.items()):
            if kk != k:
                continue
            pts.sort()
            xs = [p[0] * (4 if k in ("quantize", "dequantize") else 1) / 2**20 for p in pts]
            label = {"cpu": "actq CPU", "proxy": "traffic proxy", "ref": "reference"}[impl]
            ax.plot(xs, [p[1] for p in pts], style[impl], marker="o", ms=3,
                    color=colors.get(t, "tab:green") if impl != "ref" else "gray",
                    label="%s, %d thread%s" % (label, t, "" if t == 1 else "s"))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s, %d bits" % (k, a.bits))
        ax.set_xlabel("MiB of f32 data" if k in ("quantize", "dequantize") else "MiB of byte codes")
        ax.set_ylabel("G elements / s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(a.title or "libactq CPU kernels against the same-run memory-traffic proxy")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
