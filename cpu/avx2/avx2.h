/* avx2.h - the AVX2 (+FMA +F16C) kernel table and the pieces the AVX-512 table reuses.
 * Only cpu/select.c hands these out, after cpu/isa.c has checked the CPU and the OS. */
#ifndef ACTQ_CPU_AVX2_H
#define ACTQ_CPU_AVX2_H

#include "cpu/kernels.h"

extern const actq_cpu_kernels actq_cpu_avx2_kernels;

/* Writes the 16-bit noise values of Philox blocks block0 .. block0 + nblocks - 1 to out,
 * in element order (out[8*i + lane] is lane `lane` of block block0 + i, exactly as
 * actq_noise_block in src/arith/philox.h). May write up to 63 values more than asked
 * (whole batches of 8 blocks); out must have room for ((nblocks + 7) / 8) * 64 values. */
void actq_avx2_noise_fill(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                          uint16_t *out);

size_t actq_avx2_quantize_groups(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                 uint8_t *row_packed);
void actq_avx2_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                 const uint8_t *row_packed);
int actq_avx2_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out);
void actq_avx2_unpack(uint32_t bits, size_t n, const uint8_t *in, uint8_t *codes);
size_t actq_avx2_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1);
void actq_avx2_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1);

#endif /* ACTQ_CPU_AVX2_H */
