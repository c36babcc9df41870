/* avx512.h - the AVX-512 kernel table: the AVX2 table with the Philox noise generator
 * widened to 16 lanes, the one place where AVX-512 measured faster (docs/bench-cpu.md). */
#ifndef ACTQ_CPU_AVX512_H
#define ACTQ_CPU_AVX512_H

#include "cpu/kernels.h"

extern const actq_cpu_kernels actq_cpu_avx512_kernels;

void actq_avx512_noise_fill(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                            uint16_t *out);

#endif /* ACTQ_CPU_AVX512_H */
