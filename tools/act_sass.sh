#!/bin/sh
# SASS instructions per activation forward on sm_90 (no GPU needed): one kernel per
# activation computing y[i] = actq_act_forward(ACT, 0, x[i]), one element a thread,
# compiled as the CUDA backend compiles src/arith (-fmad=false, IEEE division), counted
# with NOPs left out: in all, and up to the first EXIT (without the IEEE division's slow
# path, which follows it). Needs cuobjdump (and nvdisasm) on PATH, e.g. from the PyPI
# wheels nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm that scripts/cuda-model fetches.
# Usage: tools/act_sass.sh [nvcc]
set -eu
NVCC=${1:-nvcc}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/k.cu" <<'CU'
#include "src/arith/act.h"
#define K(name, A) __global__ void k_##name(const float *x, float *y) { \
  int i = blockIdx.x * blockDim.x + threadIdx.x; y[i] = actq_act_forward(A, 0.0f, x[i]); }
K(gelu, ACTQ_ACT_GELU) K(gelu_tanh, ACTQ_ACT_GELU_TANH) K(silu, ACTQ_ACT_SILU)
K(sigmoid, ACTQ_ACT_SIGMOID) K(tanh, ACTQ_ACT_TANH) K(mish, ACTQ_ACT_MISH)
CU
"$NVCC" -x cu -std=c++17 -fmad=false -ftz=false -prec-div=true -prec-sqrt=true -arch=sm_90 \
  -cubin -I"$root" -I"$root/include" "$tmp/k.cu" -o "$tmp/k.cubin"
cuobjdump -sass "$tmp/k.cubin" | awk '
  /Function : /{ name = $3; sub(/^_Z[0-9]+k_/, "", name); sub(/PKfPf$/, "", name); done = 0 }
  /^ +\/\*[0-9a-f]+\*\/ / { if ($0 !~ / NOP/) { n[name]++; if (!done) m[name]++ }
                            if ($0 ~ / EXIT/) done = 1 }
  END { for (k in n) printf "%s: %d SASS instructions, %d up to the first EXIT\n", k, n[k], m[k] }' |
  sort
