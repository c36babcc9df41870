/* avx512.h - the AVX-512 kernel table: the AVX2 table with quantize 16 lanes wide (its
 * Philox generator and its code arithmetic; measured faster, docs/bench-cpu.md), dequantize
 * to 16-bit outputs from 6 bits 16 lanes wide, and the few-bit codes, y and backward 16
 * lanes wide (no gather at any width; modelled, scripts/cpu-model). */
#ifndef ACTQ_CPU_AVX512_H
#define ACTQ_CPU_AVX512_H

#include "cpu/kernels.h"

extern const actq_cpu_kernels actq_cpu_avx512_kernels;
/* The same with bf16 outputs of the few-bit kernels rounded by AVX512_BF16's conversions
 * (ACTQ_ISA_AVX512_BF16: Cooper Lake, Sapphire Rapids, Zen 4 and later); same bytes. */
extern const actq_cpu_kernels actq_cpu_avx512bf16_kernels;

size_t actq_avx512_quantize_groups(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                   uint8_t *row_packed);
/* bf16 and f16 outputs from ACTQ_AVX512_DEQUANTIZE_MIN_BITS; the rest by the AVX2 kernel */
void actq_avx512_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                   const uint8_t *row_packed);
#define ACTQ_AVX512_DEQUANTIZE_MIN_BITS 6

size_t actq_avx512_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1);
void actq_avx512_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1);
size_t actq_avx512bf16_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1);
void actq_avx512bf16_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1);

void actq_avx512_noise_fill(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                            uint16_t *out);

#endif /* ACTQ_CPU_AVX512_H */
