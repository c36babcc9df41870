/* act_lanes16.c - actq_avx512_act_forward (cpu/avx512/act_avx512.h) over an input array,
 * for tests/arith/test_act.c. Compiled twice: with the library's AVX-512 flags (the
 * function ACT16_FN runs only where the CPU has AVX-512 F and DQ), and with
 * ACT16_EMULATED over SIMDe's AVX-512 on AVX2 (tests/support/simde_avx512_extra.h), so
 * that machines without AVX-512 check the same 16-lane code. */
#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#ifdef ACT16_EMULATED
#  define SIMDE_ENABLE_NATIVE_ALIASES
#  include <simde/x86/avx512.h>
#  include "support/simde_avx512_extra.h"
#endif

#include "cpu/avx512/act_avx512.h"

#include "act_lanes16.h"

#ifndef ACT16_FN
#  define ACT16_FN actq_test_act16_native
#endif

/* out[i] = the 16-lane forward of in[i], n a multiple of 16 */
void ACT16_FN(int act, float param, const float *in, float *out, size_t n) {
  size_t i;
  for (i = 0; i + 16 <= n; i += 16)
    _mm512_storeu_ps(out + i, actq_avx512_act_forward(act, param, _mm512_loadu_ps(in + i)));
}
