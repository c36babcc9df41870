#!/bin/sh
# Compile src/arith/act.h as CUDA device code (no GPU needed) and check the generated PTX
# for what would break bit-identity with the CPU backends: approximate division or
# transcendental instructions, and contracted multiply-adds. The FMA activations call
# fmaf() (act_fexp.h), one fma.rn.f32 each whatever -fmad says; -fmad=false forbids nvcc
# to fuse a written-out a*b+c (it would otherwise), so the check also compiles with
# -fmad=true and requires more fma there: proof that the flag is what keeps them apart.
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
"$NVCC" -x cu -std=c++17 -fmad=false -I"$root" -I"$root/include" -c "$tmp/act_check.cu" -o "$tmp/act_check.o"
"$NVCC" -x cu -std=c++17 -fmad=false -I"$root" -I"$root/include" -ptx "$tmp/act_check.cu" -o "$tmp/act_check.ptx"
if grep -E 'div\.(approx|full)|ex2\.|lg2\.|rcp\.approx|sqrt\.approx' "$tmp/act_check.ptx"; then
  echo "act.h: PTX has approximate instructions (above)" >&2
  exit 1
fi
"$NVCC" -x cu -std=c++17 -fmad=true -I"$root" -I"$root/include" -ptx "$tmp/act_check.cu" -o "$tmp/act_fused.ptx"
explicit=$(grep -c 'fma\.rn\.f32' "$tmp/act_check.ptx" || true)
fused=$(grep -c 'fma\.rn\.f32' "$tmp/act_fused.ptx" || true)
if [ "$fused" -le "$explicit" ]; then
  echo "act.h: -fmad=true gives no more fma than -fmad=false ($fused, $explicit)" >&2
  exit 1
fi
echo "act.h compiles as CUDA device code; PTX has only IEEE division and $explicit explicit fma ($fused with -fmad=true)"
