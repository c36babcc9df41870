#!/usr/bin/env bash
# run.sh - builds and installs libactq, builds the benchmarks against the installed copy,
# runs them and prints the table (kernel, width, threads, G elem/s, % of proxy, x reference,
# x peer). Usage: bench/run.sh [OUT_DIR]   (default build-bench/out)
# Environment: ACTQ_BENCH_SIZES / ACTQ_BENCH_KERNELS / ACTQ_BENCH_REF / ACTQ_BENCH_GROUP /
# ACTQ_BENCH_COLS (see bench_cpu.cpp),
# ACTQ_BENCH_REPS (repetitions, default 3), ACTQ_BENCH_PEERS=path/to/peers.json (optional,
# from bench/peers.py, adds the x peer column).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-bench/out}
mkdir -p "$out"
# The CPU benchmarks need no CUDA backend (and a CUDA build takes minutes).
cmake -S "$root" -B "$root/build-bench/lib" -DCMAKE_BUILD_TYPE=Release -DACTQ_BUILD_TESTS=OFF \
  -DACTQ_CUDA=OFF -DACTQ_BUILD_BENCH=OFF >/dev/null
cmake --build "$root/build-bench/lib" -j"$(nproc)" >/dev/null
cmake --install "$root/build-bench/lib" --prefix "$root/build-install" >/dev/null
PKG_CONFIG_PATH="$(dirname "$(ls "$root"/build-install/lib*/pkgconfig/actq.pc)")" \
  cmake -S "$root/bench" -B "$root/build-bench" >/dev/null
cmake --build "$root/build-bench" -j"$(nproc)" >/dev/null
LD_LIBRARY_PATH="$root/build-install/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$root/build-bench/bench_cpu" --benchmark_min_time=0.1 \
  --benchmark_repetitions="${ACTQ_BENCH_REPS:-3}" --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/bench_cpu.json" --benchmark_out_format=json >"$out/bench_cpu.txt"
python3 "$root/bench/report.py" "$out/bench_cpu.json" ${ACTQ_BENCH_PEERS:+--peers "$ACTQ_BENCH_PEERS"}
