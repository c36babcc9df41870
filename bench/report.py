#!/usr/bin/env python3
"""report.py - the benchmark table from bench_cpu's JSON output (Google Benchmark).

For each kernel/dtype/width/size/threads it takes the median of the repetitions of the CPU
backend, of its same-run traffic proxy and of the reference backend, and prints a Markdown
table: G elem/s, GB/s moved, % of proxy, x reference and, with --peers (bench/peers.py's
JSON: the ratio measured there, against the fastest peer of the row; for fewbit rows the
GELU entries, as bench_cpu measures GELU), x peer. --size picks the size of the table
(default: the largest measured).
--csv writes every row (all sizes) for bench/plot.py.
A paired run (ACTQ_BENCH_PAIRED=1, bench_cpu.cpp) gives % of proxy as the median of the
per-pair ratios and their quartiles in place of the CPU-time column.
"""
import argparse
import collections
import json
import re
import sys

BENCH_ACTIVATION = "gelu"  # the activation of bench_cpu's fewbit_* tables
NAME = re.compile(r"^(\w+)/(\w+)/b(\d+)/n(\d+)/t(\d+)/(\w+)")


def load(path):
    with open(path) as f:
        doc = json.load(f)
    rows = collections.defaultdict(dict)
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        m = NAME.match(b["name"])
        if not m:
            continue
        kernel, dt, bits, n, t, impl = m.groups()
        key = (kernel, dt, int(bits), int(n), int(t))
        # items/s on CPU time too: on a shared machine a 1-thread run that is descheduled
        # loses wall time that CPU time does not count (only meaningful for 1 thread:
        # Google Benchmark's CPU time is the main thread's)
        cpu_rate = b["items_per_second"] * b["real_time"] / b["cpu_time"] if b["cpu_time"] else 0.0
        rows[key][impl] = (b["items_per_second"], b["bytes_per_second"], cpu_rate)
        if impl == "pair":  # ACTQ_BENCH_PAIRED=1: the kernel's rate and its paired proxy's
            rows[key]["cpu"] = rows[key][impl]
            rows[key]["proxy"] = (b["proxy_items_per_second"], 0.0, 0.0)
            rows[key]["paired"] = (b["pct_of_proxy"], b["pct_q1"], b["pct_q3"])
    return doc.get("context", {}), rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--size", type=int, default=0)
    ap.add_argument("--peers")
    ap.add_argument("--csv")
    a = ap.parse_args()
    ctx, rows = load(a.json)
    peers = {}
    if a.peers:
        with open(a.peers) as f:
            for p in json.load(f)["results"]:
                # {"kernel","dtype","bits","threads","peer","gelem_s","actq_gelem_s"} and,
                # for fewbit kernels, "activation"; the ratio measured inside peers.py (same
                # process, same tensor); the best peer for each row
                if p.get("activation", BENCH_ACTIVATION) != BENCH_ACTIVATION:
                    continue  # bench_cpu's fewbit rows are GELU's
                k = (p["kernel"], p["dtype"], p["bits"], p["threads"])
                ratio = p["actq_gelem_s"] / p["gelem_s"]
                if k not in peers or ratio < peers[k][1]:
                    peers[k] = (p["peer"], ratio)
    sizes = sorted({k[3] for k in rows})
    size = a.size or sizes[-1]
    ref = {}
    for (kernel, dt, bits, n, t), v in rows.items():
        if "ref" in v:
            ref[(kernel, dt, bits, n)] = v["ref"][0]
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("kernel,dtype,bits,n,threads,cpu_items_s,cpu_bytes_s,proxy_items_s,proxy_bytes_s,ref_items_s\n")
            for k in sorted(rows):
                v = rows[k]
                if "cpu" not in v or "proxy" not in v:
                    continue
                r = ref.get(k[:4], 0.0)
                f.write("%s,%s,%d,%d,%d,%g,%g,%g,%g,%g\n" % (k + v["cpu"][:2] + v["proxy"][:2] + (r,)))
    print("libactq %s, %s; size %d elements (%.0f MiB of f32)" % (
        ctx.get("actq_version", "?"), ctx.get("actq_cpu", "?"), size, size * 4 / 2**20))
    print()
    paired = ctx.get("paired") == "1"
    if paired:
        print("Paired (ACTQ_BENCH_PAIRED=1): % of proxy is the median of time(proxy) / time(kernel) over")
        print("calls timed back to back, the quartiles beside it (each the median over the repetitions);")
        print("G elem/s are the medians of the repetitions.")
        print()
    print("| kernel | dtype | bits | threads | G elem/s | GB/s | proxy G elem/s | %% of proxy | %s | x reference | x peer |"
          % ("quartiles of the pairs" if paired else "% of proxy, CPU time (1 thread)"))
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    order = ["quantize", "quantize_nearest", "dequantize", "pack", "unpack", "fewbit_encode", "fewbit_encode_y",
             "fewbit_backward"]
    for k in sorted(rows, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1], k[2], k[4])):
        kernel, dt, bits, n, t = k
        if n != size:
            continue
        v = rows[k]
        if "cpu" not in v or "proxy" not in v:
            continue
        cpu, cpub, cpu_c = v["cpu"]
        prox, _, prox_c = v["proxy"]
        r = ref.get((kernel, dt, bits, n))
        p = peers.get((kernel, dt, bits, t))
        pct = v["paired"][0] if "paired" in v else 100.0 * cpu / prox
        if "paired" in v:
            second = "%.0f-%.0f%%" % v["paired"][1:]
        else:
            second = "%.0f%%" % (100.0 * cpu_c / prox_c) if t == 1 and prox_c else "-"
        print("| %s | %s | %d | %d | %.2f | %.1f | %.2f | %.0f%% | %s | %s | %s |" % (
            kernel, dt, bits, t, cpu / 1e9, cpub / 1e9, prox / 1e9, pct, second,
            "%.1f" % (cpu / r) if r else "-",
            "%.1f (%s)" % (p[1], p[0]) if p else "-"))
    builds = [b for b in load_raw(a.json) if b["name"].startswith("table_build/")]
    if builds:
        print()
        print("| table build (default grid) | ms |")
        print("|---|---:|")
        for b in builds:
            print("| %s | %.1f |" % (b["name"][len("table_build/"):], b["real_time"]))
    return 0


def load_raw(path):
    with open(path) as f:
        doc = json.load(f)
    return [b for b in doc["benchmarks"]
            if b.get("run_type") != "aggregate" or b.get("aggregate_name") == "median"]


if __name__ == "__main__":
    sys.exit(main())
