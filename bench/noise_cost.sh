#!/usr/bin/env bash
# noise_cost.sh - builds bench/noise_cost (and the library's own noise kernels, compiled
# from cpu/ with the flags CMakeLists.txt gives them, at -O3 as a Release build) into
# build-noise/, runs it niced on one core, and counts the vector instructions of each fill
# in its disassembly (bench/noise_count.py). usage: bench/noise_cost.sh [OUT_DIR] [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/noise-data}
n=${2:-1024}
b=$root/build-noise
mkdir -p "$b" "$out"
cc=${CC:-cc}
inc=(-I"$root/include" -I"$root" -I"$root/bench")
base=(-O3 -DNDEBUG -ffp-contract=off -fno-fast-math "${inc[@]}")
avx2=(-mavx2 -mfma -mf16c)
avx512=(-mavx512f -mavx512bw -mavx512dq -mavx512vl -mavx512vbmi "${avx2[@]}")
"$cc" "${base[@]}" -c "$root/bench/noise_cost_ref.c" -o "$b/nc_ref.o"
"$cc" "${base[@]}" "${avx2[@]}" -maes -c "$root/bench/noise_cost_avx2.c" -o "$b/nc_avx2.o"
"$cc" "${base[@]}" "${avx512[@]}" -maes -mvaes -c "$root/bench/noise_cost_avx512.c" -o "$b/nc_avx512.o"
"$cc" "${base[@]}" -maes -msse4.2 -c "$root/bench/noise_cost.c" -o "$b/nc_main.o"
"$cc" "${base[@]}" "${avx2[@]}" -c "$root/cpu/avx2/noise_avx2.c" -o "$b/lib_noise_avx2.o"
"$cc" "${base[@]}" "${avx512[@]}" -c "$root/cpu/avx512/noise_avx512.c" -o "$b/lib_noise_avx512.o"
"$cc" "$b"/nc_*.o "$b"/lib_noise_*.o -o "$b/noise_cost"
{ "$cc" --version | head -1; grep -m1 'model name' /proc/cpuinfo || true; } >"$out/noise_cost-machine.txt"
pin=(); command -v taskset >/dev/null && pin=(taskset -c "$(( $(nproc) - 1 ))")
nice -n 19 "${pin[@]}" "$b/noise_cost" "$n" | tee "$out/noise_cost.txt"
for o in nc_ref nc_avx2 nc_avx512 lib_noise_avx2 lib_noise_avx512; do
  objdump -d --no-show-raw-insn "$b/$o.o" >"$b/$o.dis"
done
python3 "$root/bench/noise_count.py" "$b" | tee "$out/noise_count_x86.txt"
