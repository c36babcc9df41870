#!/usr/bin/env python3
"""summarize.py - turns a device-check run into bench/results/<gpu>-<date>.md.

Reads the Google Benchmark JSON of bench_cuda (counters pct_of_copy, GBps, median_us),
the optional torch comparison JSON, and the step status lines; prints markdown:
the steps, the targets (>= 85% of copy at 256 MiB+ for 2 and 4 bits f32/bf16, 1 MiB in
<= 10 us, >= 5x PyTorch), and a table of % of copy by size for every kernel.
"""
import argparse
import json
import os
import sys
from collections import defaultdict


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", default="unknown")
    ap.add_argument("--bench")
    ap.add_argument("--torch")
    ap.add_argument("--log")
    ap.add_argument("--steps", default="")
    a = ap.parse_args()

    out = [f"# actq CUDA device check: {a.gpu}", ""]
    bench = load(a.bench) if a.bench else None
    if bench:
        ctx = bench.get("context", {})
        out.append(f"Run {ctx.get('date', '?')}, host {ctx.get('host_name', '?')}; "
                   "numbers from scripts/device-check (CUDA events, median).")
        out.append("")
    out += ["## Steps", "", "```", a.steps.strip(), "```", ""]

    rows = defaultdict(dict)  # (kernel, bits, dtype) -> {MiB: (pct, us, GBps)}
    copy = {}
    if bench:
        for b in bench.get("benchmarks", []):
            if "pct_of_copy" not in b:
                continue
            parts = b["name"].split("/")
            kernel, bits = parts[0], parts[1]
            dtype = parts[2] if len(parts) == 4 else "-"
            mib = int(b["MiB"])
            rows[(kernel, bits, dtype)][mib] = (b["pct_of_copy"], b["median_us"], b["GBps"])
            copy[mib] = max(copy.get(mib, 0), b["copy_GBps"])
    sizes = sorted({m for r in rows.values() for m in r})

    if rows:
        out += ["## Targets", ""]
        miss = []
        for (k, bits, dt), r in sorted(rows.items()):
            if k.startswith("quantize") or k == "dequantize":
                if bits in ("b2", "b4"):
                    for m in sizes:
                        if m >= 256 and m in r and r[m][0] < 85:
                            miss.append(f"{k} {bits} {dt} {m} MiB: {r[m][0]:.0f}% of copy")
            if 1 in r and r[1][1] > 10:
                miss.append(f"{k} {bits} {dt} 1 MiB: {r[1][1]:.1f} us")
        out.append("All met." if not miss else "Missed:")
        out += [f"- {m}" for m in miss]
        out.append("")
        out += ["## % of a same-run device-to-device copy moving the same bytes", "",
                "| kernel | bits | dtype | " + " | ".join(f"{m} MiB" for m in sizes) +
                " | 1 MiB us |",
                "|---|---|---|" + "---|" * len(sizes) + "---|"]
        for (k, bits, dt), r in sorted(rows.items()):
            cells = [f"{r[m][0]:.0f}" if m in r else "" for m in sizes]
            us = f"{r[1][1]:.1f}" if 1 in r else ""
            out.append(f"| {k} | {bits[1:]} | {dt} | " + " | ".join(cells) + f" | {us} |")
        out.append("")
        out.append("Copy bandwidth (GB/s, read + write): " +
                   ", ".join(f"{m} MiB {copy[m]:.0f}" for m in sizes))
        out.append("")

    torch = load(a.torch) if a.torch else None
    if torch:
        out += ["## Against the same stochastic quantize-and-pack composed from PyTorch ops", "",
                f"torch {torch.get('torch', '?')}, {torch.get('mib', '?')} MiB input, group "
                f"{torch.get('group', '?')}", "",
                "| bits | dtype | actq us | torch us | speedup |", "|---|---|---|---|---|"]
        for r in torch.get("rows", []):
            out.append(f"| {r['bits']} | {r['dtype']} | {r['actq_us']:.1f} | "
                       f"{r['torch_us']:.1f} | {r['speedup']:.1f}x |")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
