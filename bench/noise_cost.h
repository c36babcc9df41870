/* noise_cost.h - the fill functions bench/noise_cost.c times. Each writes the r16 values
 * of elements e0 .. e0 + n - 1 (e0 and n multiples of 64) in element order. */
#ifndef ACTQ_BENCH_NOISE_COST_H
#define ACTQ_BENCH_NOISE_COST_H

#include <stddef.h>
#include <stdint.h>

#include "noise_gen.h"

typedef void (*nc_fill_fn)(uint64_t seed, uint64_t offset, uint64_t e0, size_t n,
                           uint16_t *out);

/* scalar C (noise_cost_ref.c, compiled without ISA flags like cpu/ref) */
void nc_philox10_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_philox7_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_mx2_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_mx3_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
/* AVX2 (noise_cost_avx2.c) and the library's own kernel, cpu/avx2/noise_avx2.c */
void nc_philox10_lib_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_philox7_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_mx2_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_mx3_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_ars5_aesni(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
/* AVX-512 (noise_cost_avx512.c); run only where the CPU has AVX-512F/BW/DQ/VL (+VAES for
 * ars5), counted from the disassembly otherwise */
void nc_philox10_lib_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_philox7_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_mx2_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_mx3_avx512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);
void nc_ars5_vaes512(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out);

/* one instruction's throughput on this core, cycles per instruction (noise_cost_avx2.c) */
double nc_insn_cycles(int which, double hz);
#endif
