#!/usr/bin/env bash
# noise_dieharder.sh - dieharder on a generator's noise stream as quantize consumes it
# (bench/noise_stream.c: 16-bit values in element order, seeds 0,1,2,.. x offsets 0..3,
# 2^24 elements each, raw little-endian bytes on stdin).
# usage: bench/noise_dieharder.sh GEN [OUT_DIR] [dieharder args...]
#   default dieharder args: -a -g 200 (the whole battery, ABI.md section 3 condition 1)
#   e.g. bench/noise_dieharder.sh mx3 docs/noise-data -g 200 -d 0
#   output: OUT_DIR/dieharder-GEN.txt, or dieharder-GEN-TAG.txt with NOISE_DH_TAG=TAG
# Runs at nice 19: the battery takes long and the machine is shared.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gen=${1:?generator: philox10 | philox7 | mx3 | mx2 | ars5}
out=${2:-$root/docs/noise-data}
shift $(( $# >= 2 ? 2 : 1 ))
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(-a -g 200)
mkdir -p "$out" "$root/build-noise"
log=$out/dieharder-$gen${NOISE_DH_TAG:+-$NOISE_DH_TAG}.txt
cc=${CC:-cc}
flags=(-O2 -I"$root/include" -I"$root" -I"$root/bench")
# AES-NI only for the ARS reference (x86)
if [ "$gen" = ars5 ]; then flags+=(-maes -msse4.2); fi
"$cc" "${flags[@]}" "$root/bench/noise_stream.c" -o "$root/build-noise/noise_stream_$gen${NOISE_DH_TAG:+-$NOISE_DH_TAG}"
{
  echo "# generator: $gen   stream: bench/noise_stream.c $gen 24 0"
  echo "# command: noise_stream $gen | dieharder ${args[*]}"
  echo "# started: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$log"
set +o pipefail
nice -n 19 "$root/build-noise/noise_stream_$gen${NOISE_DH_TAG:+-$NOISE_DH_TAG}" "$gen" 24 0 2>/dev/null |
  nice -n 19 dieharder "${args[@]}" >>"$log" 2>&1
echo "# finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$log"
