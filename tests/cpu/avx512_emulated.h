/* avx512_emulated.h - the AVX-512 kernels of cpu/avx512, compiled over SIMDe's portable
 * AVX-512 (avx512_emulated.c) so that a machine without AVX-512 runs their exact code, and
 * the kernel table of cpu/avx512/kernels_avx512.c with those kernels in its AVX-512 slots.
 * For the tests only: emulated, the kernels are many times slower than the real ones. */
#ifndef ACTQ_TEST_AVX512_EMULATED_H
#define ACTQ_TEST_AVX512_EMULATED_H

#include "cpu/kernels.h"

#define ACTQ_EMU512_ISA "avx512 (emulated)"
#define ACTQ_EMU512BF16_ISA "avx512bf16 (emulated)"

extern const actq_cpu_kernels actq_cpu_emu512_kernels;
/* the avx512bf16 table's: AVX512_BF16's conversions emulated as well (avx512_emulated.c) */
extern const actq_cpu_kernels actq_cpu_emu512bf16_kernels;

size_t actq_emu512_quantize_groups(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                   uint8_t *row_packed);
void actq_emu512_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                   const uint8_t *row_packed);
size_t actq_emu512_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1);
void actq_emu512_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1);
size_t actq_emu512bf16_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1);
void actq_emu512bf16_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1);
void actq_emu512_noise_fill(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                            uint16_t *out);

/* NULL when the emulated intrinsics have the instructions' semantics on edge cases (NaN,
 * out-of-range and half-way conversions, f16 denormals and NaNs, masked memory access at
 * a page's end, the in-lane order of shuffles and packs); otherwise what differs. */
const char *actq_emu512_selfcheck(void);

#endif /* ACTQ_TEST_AVX512_EMULATED_H */
