/* ref.h - the reference kernels, also the scalar tails of the ISA kernels. */
#ifndef ACTQ_CPU_REF_H
#define ACTQ_CPU_REF_H

#include "cpu/kernels.h"
#include "src/arith/elem.h"

/* The stored minimum and scale of group gi of row r, as float32 (every dequantize kernel
 * reads them so). Always inlined: in a function of many width instances gcc left it a call
 * in the group loop, 0.84x at groups of 64 from memory (cpu/dequantize_instance.h). */
static inline __attribute__((always_inline)) void actq_ref_group_meta(const actq_dequant_job *job,
                                                                      size_t r, size_t gi,
                                                                      float *m, float *s) {
  const actq_grid *gr = &job->grid;
  const size_t meta_index = r * gr->groups_per_row + gi;
  *m = actq_load_elem(job->group_min, gr->meta_dtype, meta_index);
  *s = actq_load_elem(job->group_scale, gr->meta_dtype, meta_index);
}

size_t actq_ref_quantize_groups(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                uint8_t *row_packed);
void actq_ref_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                const uint8_t *row_packed);
int actq_ref_pack(uint32_t bits, size_t n, const uint8_t *codes, uint8_t *out);
void actq_ref_unpack(uint32_t bits, size_t n, const uint8_t *in, uint8_t *codes);
size_t actq_ref_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1);
void actq_ref_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1);

#endif /* ACTQ_CPU_REF_H */
