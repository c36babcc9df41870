/* y_lut.h - the y tables of 16-bit inputs that a CPU context keeps for fewbit_encode: for
 * one activation, parameter and dtype (bf16 or f16), y of every one of the 65536 inputs.
 *
 * A 16-bit x has 65536 values, so its y is a lookup (two dword gathers for 32 lanes on
 * AVX-512) instead of the activation's polynomial: on the Xeon of docs/fewbit.md the GELU
 * bf16 y loop ran 0.46 ns an element computed, against 0.17 looked up in a microbenchmark.
 * The table is written by the context's own kernel over all 65536 inputs (the kernel
 * computes, without a table, exactly the bits the reference computes; the tests hold it
 * to that), so a lookup returns the same bits by construction. Kernels that read one say
 * so in their table (actq_cpu_kernels.fewbit_y_lut_dtypes).
 */
#ifndef ACTQ_CPU_Y_LUT_H
#define ACTQ_CPU_Y_LUT_H

#include <stdint.h>

#include "cpu/state.h"

/* Entries of a table: one per 16-bit input and one more, so that a dword gather (scale 2)
 * at x = 0xffff stays inside it */
#define ACTQ_Y_LUT_ENTRIES (65536u + 2u)

/* The table the kernels should read for this job (encode with y, a 16-bit dtype, a
 * kernel that reads one, an activation it pays for): the context's, or one this call
 * builds when the context has computed y for enough elements of its key (cpu/y_lut.c).
 * NULL: the kernels compute y. */
const uint16_t *actq_cpu_y_lut(actq_cpu_state *st, const actq_fewbit_job *job);

/* Frees the context's tables (when it is destroyed or changes kernel table) */
void actq_cpu_y_lut_clear(actq_cpu_state *st);

#endif /* ACTQ_CPU_Y_LUT_H */
