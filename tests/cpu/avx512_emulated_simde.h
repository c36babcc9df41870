/* avx512_emulated_simde.h - what every file of the emulated AVX-512 kernels starts with:
 * SIMDe's AVX-512 (with tests/support/simde_avx512_extra.h for what SIMDe 0.7.4 lacks), the
 * names of avx512_emulated.h for the kernels' external symbols, and AVX512_BF16's
 * conversions. The kernels' files are split (avx512_emulated_quantize.c,
 * avx512_emulated_fewbit.c) so that their long compiles run side by side. */
#ifndef ACTQ_TEST_AVX512_EMULATED_SIMDE_H
#define ACTQ_TEST_AVX512_EMULATED_SIMDE_H

#include <immintrin.h>

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#include "support/simde_avx512_extra.h"

#include "avx512_emulated.h"

/* every external symbol of the three files */
#define actq_avx512_quantize_groups actq_emu512_quantize_groups
#define actq_avx512_noise_fill actq_emu512_noise_fill
#define actq_avx512_dequantize_groups actq_emu512_dequantize_groups
#define actq_cpu_avx512_kernels actq_cpu_emu512_kernels
#define actq_avx512_fewbit_backward actq_emu512_fewbit_backward
#define actq_avx512_fewbit_encode actq_emu512_fewbit_encode
#define actq_avx512bf16_fewbit_backward actq_emu512bf16_fewbit_backward
#define actq_avx512bf16_fewbit_encode actq_emu512bf16_fewbit_encode

/* AVX512_BF16's conversions, which SIMDe 0.7.4 lacks (fewbit_avx512.c writes them as
 * inline assembly), by Intel's pseudocode for VCVTNEPS2BF16: a zero or denormal becomes
 * the signed zero, an infinity and a NaN are truncated (a NaN quieted), any other value
 * rounded to nearest even by adding 0x7fff + bit 16. */
#define ACTQ_AVX512_BF16_CVT_DEFINED
static inline uint16_t emu_cvtne_bf16(uint32_t x) {
  if ((x & 0x7f800000u) == 0) return (uint16_t)((x >> 16) & 0x8000u);
  if ((x & 0x7f800000u) == 0x7f800000u)
    return (uint16_t)((x >> 16) | ((x & 0x7fffffu) ? 0x40u : 0u));
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
static inline __m512i fb_cvtne2ps_bf16(__m512 hi, __m512 lo) {
  uint32_t a[32];
  uint16_t r[32];
  __m512i v;
  int i;
  memcpy(a, &lo, 64);
  memcpy(a + 16, &hi, 64);
  for (i = 0; i < 32; i++) r[i] = emu_cvtne_bf16(a[i]);
  memcpy(&v, r, 64);
  return v;
}
static inline __m256i fb_cvtneps_bf16(__m512 x) {
  uint32_t a[16];
  uint16_t r[16];
  __m256i v;
  int i;
  memcpy(a, &x, 64);
  for (i = 0; i < 16; i++) r[i] = emu_cvtne_bf16(a[i]);
  memcpy(&v, r, 32);
  return v;
}

#endif /* ACTQ_TEST_AVX512_EMULATED_SIMDE_H */
