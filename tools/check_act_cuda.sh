#!/bin/sh
# Compile src/arith/act.h as CUDA device code (no GPU needed) and check the generated PTX
# for what would break bit-identity with the CPU backends: a fused multiply-add (nvcc
# contracts a*b+c unless -fmad=false), approximate division or transcendental instructions.
# Usage: tools/check_act_cuda.sh [nvcc]
set -eu
NVCC=${1:-nvcc}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/act_check.cu" <<'CU'
#include "src/arith/act.h"
__global__ void act_check_kernel(int act, float param, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = actq_act_forward(act, param, x[i]);
}
float act_check_host(float x) { return actq_act_forward(ACTQ_ACT_GELU, 0.0f, x); }
CU
"$NVCC" -x cu -std=c++17 -fmad=false -I"$root" -c "$tmp/act_check.cu" -o "$tmp/act_check.o"
"$NVCC" -x cu -std=c++17 -fmad=false -I"$root" -ptx "$tmp/act_check.cu" -o "$tmp/act_check.ptx"
if grep -E 'fma\.|div\.(approx|full)|ex2\.|lg2\.|rcp\.approx|sqrt\.approx' "$tmp/act_check.ptx"; then
  echo "act.h: PTX has contracted or approximate instructions (above)" >&2
  exit 1
fi
echo "act.h compiles as CUDA device code; PTX has no fma and only IEEE division"
