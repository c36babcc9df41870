/* avx512_emulated_dequantize.c - cpu/avx512/dequantize_avx512.c, unchanged, over SIMDe's
 * AVX-512 (avx512_emulated_simde.h), under the names of avx512_emulated.h; as
 * avx512_emulated_quantize.c. */
#include "avx512_emulated_simde.h"

#include "cpu/avx512/dequantize_avx512.c"
