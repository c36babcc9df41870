#!/usr/bin/env python3
"""compare.py - two libraries under the same bench_cpu binary, same machine, same minutes.

usage: bench/compare.py --before A.json [A2.json ...] --after B.json [B2.json ...]
                        [--title TEXT]

Each JSON is one bench_cpu run (Google Benchmark, --benchmark_out) against one library
(LD_LIBRARY_PATH picks it). Runs of the same library are taken alternately with the other's,
so that a change of machine speed between minutes hits both alike; for each row
(kernel, dtype, width, size, threads) the table gives the median over a library's runs of
each run's median rate, the same for its traffic proxy (% of proxy: over the same run's
proxy), and after / before. Prints Markdown.
"""
import argparse
import statistics
import sys

from report import load


def merged(paths):
    """{key: (rate, % of proxy)} over runs: medians of the per-run values."""
    per = {}
    context = {}
    for p in paths:
        ctx, rows = load(p)
        context = context or ctx
        for key, impls in rows.items():
            if "cpu" not in impls:
                continue
            rate = impls["cpu"][0]
            proxy = impls.get("proxy", (0.0,))[0]
            per.setdefault(key, []).append((rate, rate / proxy if proxy else 0.0))
    out = {k: (statistics.median(r for r, _ in v), statistics.median(p for _, p in v))
           for k, v in per.items()}
    return context, out, {k: len(v) for k, v in per.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    ctx_b, before, nb = merged(a.before)
    ctx_a, after, na = merged(a.after)
    if a.title:
        print(f"{a.title}\n")
    shape = f"groups of {ctx_a.get('group_size', '256')}, rows of {ctx_a.get('cols', 'n')} elements"
    print(f"{ctx_a.get('actq_cpu', '?')}; {shape}; medians over {max(nb.values(), default=0)} "
          f"runs before and {max(na.values(), default=0)} after\n")
    print("| kernel | dtype | bits | n | threads | before G elem/s | before % proxy "
          "| after G elem/s | after % proxy | after / before |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(set(before) & set(after)):
        kernel, dt, bits, n, t = key
        (rb, pb), (ra, pa) = before[key], after[key]
        print(f"| {kernel} | {dt} | {bits} | {n} | {t} | {rb / 1e9:.2f} | {100 * pb:.0f}% "
              f"| {ra / 1e9:.2f} | {100 * pa:.0f}% | {ra / rb:.2f}x |")
    missing = set(before) ^ set(after)
    if missing:
        print(f"\n({len(missing)} rows measured on one side only, left out)", file=sys.stderr)


if __name__ == "__main__":
    main()
