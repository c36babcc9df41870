#!/usr/bin/env python3
"""summarize.py - turns a device-check run into bench/results/<gpu>-<date>.md.

Reads the Google Benchmark JSON of bench_cuda (counters pct_of_copy, GBps, median_us),
the optional torch comparison JSON, the Python binding's pytest JUnit XML and training
examples' JSON (digits-cuda.json, chargpt-cuda.json), and the step status lines; prints
markdown: the steps, the targets (>= 85% of copy at 256 MiB+ for 2 and 4 bits f32/bf16
quantize and dequantize; the few-bit kernels there within 150% of the copy's time, >= 67%;
1 MiB in <= 10 us, >= 5x PyTorch), a table of % of copy by size for every kernel, the
Python tests' counts (failures and skip reasons named), and the examples' memory per
setting (torch.cuda.max_memory_allocated against the saved bytes autograd held).
"""
import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pytest_section(path):
    """The counts of a pytest --junitxml file, its failures and its skip reasons."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        return ["## Python binding: tests", "", "No results (%s)." % e, ""]
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    n = {k: sum(int(s.get(k, 0)) for s in suites)
         for k in ("tests", "failures", "errors", "skipped")}
    secs = sum(float(s.get("time", 0)) for s in suites)
    passed = n["tests"] - n["failures"] - n["errors"] - n["skipped"]
    out = ["## Python binding: tests (CUDA tensors against CPU tensors)", "",
           "%d passed, %d failed, %d errors, %d skipped, of %d, in %.1f s"
           % (passed, n["failures"], n["errors"], n["skipped"], n["tests"], secs), ""]
    skips = Counter()
    for case in root.iter("testcase"):
        name = "%s::%s" % (case.get("classname", "?"), case.get("name", "?"))
        for tag in ("failure", "error"):
            for el in case.findall(tag):
                msg = (el.get("message") or (el.text or "")).strip().splitlines()
                out.append("- %s %s: %s" % (tag.upper(), name, msg[0][:200] if msg else ""))
        for el in case.findall("skipped"):
            skips[(el.get("message") or "").strip()[:200]] += 1
    if skips:
        out += [""] + ["- skipped %d: %s" % (k, reason) for reason, k in skips.most_common()]
    out.append("")
    return out


def examples_section(folder):
    """One table of the training examples run on the device (their *-cuda.json)."""
    if not os.path.isdir(folder):
        return ["## Python binding: training examples on the device", "",
                "No results (no %s)." % folder, ""]
    rows = []
    env = None
    for fname in ("digits-cuda.json", "chargpt-cuda.json"):
        d = load(os.path.join(folder, fname))
        if not d:
            continue
        env = env or d.get("environment", {})
        runs = d.get("runs", {})
        ref = runs.get("fp32", [{}])[0]
        for setting, rs in runs.items():
            r = rs[0]
            peak = r.get("cuda_max_memory_allocated")
            if peak is None:
                continue
            rel = ("%.2fx" % (ref["cuda_max_memory_allocated"] / peak)
                   if ref.get("cuda_max_memory_allocated") else "")
            rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f |" % (
                d.get("task", fname), setting, format(r["saved_bytes_per_step"], ","),
                format(r.get("cuda_forward_allocated_per_step") or 0, ","),
                format(peak, ","), format(r.get("cuda_memory_allocated_at_start", 0), ","),
                rel, format(r.get("step_peak_bytes") or 0, ","),
                r.get("ms_per_step") or "-", r.get("seconds", 0)))
    if not rows:
        return ["## Python binding: training examples on the device", "",
                "No results in %s." % folder, ""]
    return ["## Python binding: training examples on the device (--quick)", "",
            "torch %s on %s; %s. Peak = torch.cuda.max_memory_allocated() over the "
            "setting's training, reset before it (includes the data already on the device, "
            "the column 'at start'); 'forward left' = memory_allocated after minus before "
            "each forward pass (median); 'saved' = the SavedTensorMeter's bytes per step; "
            "'step peak' = the largest sum of the CUDA allocator's records over one step "
            "(stepmeter.py)."
            % (env.get("torch", "?"), env.get("cuda_device", "?"),
               env.get("actq_cuda_context", "?")), "",
            "| task | setting | saved B/step | forward left B/step | peak B | at start B "
            "| fp32 peak / peak | step peak B | ms/step | seconds |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"] + rows + [""] + budget_section(
                load(os.path.join(folder, "chargpt-budget-cuda.json")))


def budget_section(d):
    """The char GPT's largest batch within a memory budget on the device."""
    if not d:
        return []
    out = ["Largest char GPT batch whose step peak (CUDA allocator records) stays within "
           "%.0f MiB:" % (d["budget_bytes"] / (1 << 20)), "",
           "| setting | largest batch | vs fp32 | step peak B |", "|---|---:|---:|---:|"]
    for setting, r in d["settings"].items():
        out.append("| %s | %d | %s | %s |" % (setting, r["largest_batch"], r.get("vs_fp32"),
                                              format(r.get("step_peak_bytes") or 0, ",")))
    return out + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", default="unknown")
    ap.add_argument("--bench")
    ap.add_argument("--torch")
    ap.add_argument("--pytest", help="the Python tests' JUnit XML")
    ap.add_argument("--python", help="the folder of the training examples' JSON")
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
            # Google Benchmark appends "/iterations:N/manual_time" to the registered name.
            dtype = next((p for p in parts[2:] if p in ("f32", "bf16")), "-")
            mib = int(b["MiB"])
            rows[(kernel, bits, dtype)][mib] = (b["pct_of_copy"], b["median_us"], b["GBps"])
            copy[mib] = max(copy.get(mib, 0), b["copy_GBps"])
    sizes = sorted({m for r in rows.values() for m in r})

    if rows:
        out += ["## Targets", ""]
        miss = []
        for (k, bits, dt), r in sorted(rows.items()):
            # % of copy at 2 and 4 bits, 256 MiB and more: quantize and dequantize 85%, the
            # few-bit kernels within 150% of the copy's time
            floor = (85 if k.startswith("quantize") or k == "dequantize" else
                     100 / 1.5 if k.startswith("fewbit") else None)
            if floor is not None and bits in ("b2", "b4"):
                for m in sizes:
                    if m >= 256 and m in r and r[m][0] < floor:
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
    if a.pytest and os.path.exists(a.pytest):
        out += pytest_section(a.pytest)
    if a.python:
        out += examples_section(a.python)
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
