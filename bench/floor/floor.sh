#!/bin/sh
# floor.sh - the compute floor of the CPU quantize kernels from llvm-mca's static
# throughput model: each loop body of quantize_floor_avx2.c / quantize_floor_avx512.c
# compiled with the library's Release flags, its steady-state cycles per iteration on a CPU
# model, divided by the elements one iteration handles. No need to run the ISA: the AVX-512
# floor is modelled on any machine.
#   bench/floor/floor.sh [AVX2_MODEL [AVX512_MODEL]]   (default znver1 icelake-server;
#                                                     llvm-mca -mcpu=help lists them)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
m2=${1:-znver1}
m5=${2:-icelake-server}
cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags="-O3 -DNDEBUG -ffp-contract=off -fno-fast-math -I$root/src -I$root -I$root/include"
$cc $flags -mavx2 -mfma -mf16c -S "$root/bench/floor/quantize_floor_avx2.c" -o "$tmp/avx2.s"
$cc $flags -mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512vbmi -mavx2 -mfma -mf16c \
  -S "$root/bench/floor/quantize_floor_avx512.c" -o "$tmp/avx512.s"
report() { # isa model file
  echo "## $1 on llvm-mca -mcpu=$2 ($(llvm-mca --version | sed -n 's/.*LLVM version //p' | head -1))"
  echo "region | cycles per iteration | elements | cycles per element"
  llvm-mca -mcpu="$2" -iterations=400 "$3" 2>&1 |
    awk '/Code Region - /{name=$NF} /^Total Cycles:/{c=$3/400; n=name; sub(/.*_/, "", n);
         printf "%s | %.1f | %s | %.3f\n", name, c, n, c / n}'
}
report avx2 "$m2" "$tmp/avx2.s"
echo
report avx512 "$m5" "$tmp/avx512.s"
