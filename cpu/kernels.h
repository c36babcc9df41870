/* kernels.h - the CPU kernel table. The reference fills every slot; an ISA table starts
 * as a copy of the reference and overrides the slots it accelerates (BLIS style), so a
 * missing optimization is slow, never wrong. Kernels get validated jobs and never fail
 * except in the documented data-dependent ways (nonfinite groups, out-of-range codes).
 */
#ifndef ACTQ_CPU_KERNELS_H
#define ACTQ_CPU_KERNELS_H

#include "src/job.h"

typedef struct actq_cpu_kernels {
  const char *isa; /* "reference", "scalar", "avx2", ... */
  /* Groups [g0, g1) of row r, whose packed bytes start at row_packed. Returns how many of
   * them were nonfinite. */
  size_t (*quantize_groups)(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                            uint8_t *row_packed);
  void (*dequantize_groups)(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                            const uint8_t *row_packed);
  /* n codes into ceil(n*bits/8) bytes; returns nonzero when a code was >= 2^bits. */
  int (*pack)(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out);
  void (*unpack)(uint32_t bits, size_t n, const uint8_t *in, uint8_t *codes);
  /* Elements [i0, i1) (i0 a multiple of 8); encode returns nonzero when an x was NaN
   * (the call's ACTQ_ERR_NONFINITE; a count is not needed, so the vector kernels keep one
   * mask of the NaN lanes instead of counting them). */
  size_t (*fewbit_encode)(const actq_fewbit_job *job, size_t i0, size_t i1);
  void (*fewbit_backward)(const actq_fewbit_job *job, size_t i0, size_t i1);
  /* The input dtypes (bit 1 << actq_dtype) whose fewbit_encode never reads a code_lut
   * (src/fewbit/code_lut.h), so that the driver builds none for them. */
  uint32_t fewbit_no_code_lut;
  /* The narrowest width whose fewbit_encode reads a code_lut; 0: the driver's default
   * (LUT_MIN_BITS). */
  uint32_t fewbit_code_lut_min_bits;
  /* The input dtypes (bit 1 << actq_dtype; 16-bit ones only) whose fewbit_encode looks y up
   * in job->y_lut when the driver gives it one (cpu/y_lut.h) */
  uint32_t fewbit_y_lut_dtypes;
} actq_cpu_kernels;

extern const actq_cpu_kernels actq_cpu_reference_kernels;

/* The table ACTQ_BACKEND_CPU runs: the best ISA found at run time, capped by ACTQ_CPU_ISA
 * (cpu/select.c). */
const actq_cpu_kernels *actq_cpu_select_kernels(void);

/* Makes a CPU context run `kernels` (tests and fuzzers compare ISA paths this way; the
 * context's description follows). ACTQ_ERR_INVALID_ARGUMENT for a context of another
 * backend. Defined by the CPU driver (cpu/driver.c). */
actq_status actq_cpu_context_use_kernels(actq_context *ctx, const actq_cpu_kernels *kernels);

#endif /* ACTQ_CPU_KERNELS_H */
