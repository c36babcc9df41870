#!/usr/bin/env bash
# noise_sass.sh - compiles bench/noise_sass.cu for sm_90 (no GPU needed) and counts the
# SASS instructions per element of each generator (bench/noise_sass_count.py).
# Needs nvcc, and cuobjdump on PATH: it is not in every CUDA install, but PyPI has it
# (pip download nvidia-cuda-cuobjdump; the wheel is a zip with bin/cuobjdump).
# usage: bench/noise_sass.sh [OUT_DIR] [ARCH (default sm_90)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/noise-data}
arch=${2:-sm_90}
b=$root/build-noise
mkdir -p "$b" "$out"
nvcc -arch="$arch" -O3 -cubin -I"$root/include" -I"$root" -I"$root/bench" \
  "$root/bench/noise_sass.cu" -o "$b/noise_sass_$arch.cubin"
cuobjdump -sass "$b/noise_sass_$arch.cubin" >"$out/noise_sass_$arch.sass"
{ nvcc --version | tail -1; python3 "$root/bench/noise_sass_count.py" "$out/noise_sass_$arch.sass"; } |
  tee "$out/noise_sass_count_$arch.txt"
