/* avx512_emulated_quantize.c - cpu/avx512/noise_avx512.c and quantize_avx512.c, unchanged,
 * over SIMDe's AVX-512 (avx512_emulated_simde.h), under the names of avx512_emulated.h.
 * Compiled with the AVX2 kernels' flags and no -mavx512*: the intrinsics become AVX2 code or
 * lane loops with the instructions' results. */
#include "avx512_emulated_simde.h"

#include "cpu/avx512/noise_avx512.c"
#include "cpu/avx512/quantize_avx512.c"
