/* fewbit_ref.c - reference few-bit encode and backward, element by element. */
#include "src/arith/bitstream.h"
#include "src/arith/elem.h"
#include "src/arith/fewbit_elem.h"
#include "cpu/ref/ref.h"

size_t actq_ref_fewbit_encode(const actq_fewbit_job *job, size_t i0, size_t i1) {
  const fewbit_table *t = job->table;
  const actq_dtype dt = job->dtype;
  size_t i, j, nan = 0;
  uint8_t *out = job->codes + (i0 / 8) * t->bits;
  for (i = i0; i < i1; i += 8) {
    const size_t k = i1 - i < 8 ? i1 - i : 8;
    uint32_t codes[8];
    for (j = 0; j < k; j++) {
      const float x = actq_load_elem(job->x, dt, i + j);
      nan += x != x;
      codes[j] = actq_fewbit_code(t->bounds, t->bits, x);
      if (job->y) actq_store_elem(job->y, dt, i + j, actq_fewbit_forward((int)t->activation, t->param, x));
    }
    actq_pack_unit(codes, k, t->bits, out);
    out += t->bits;
  }
  return nan;
}

void actq_ref_fewbit_backward(const actq_fewbit_job *job, size_t i0, size_t i1) {
  const fewbit_table *t = job->table;
  const actq_dtype dt = job->dtype;
  const uint8_t *in = job->codes_in + (i0 / 8) * t->bits;
  size_t i, j;
  for (i = i0; i < i1; i += 8) {
    const size_t k = i1 - i < 8 ? i1 - i : 8;
    uint32_t codes[8];
    actq_unpack_unit(in, k, t->bits, codes);
    for (j = 0; j < k; j++)
      actq_store_elem(job->grad_in, dt, i + j,
                      actq_fewbit_grad(actq_load_elem(job->grad_out, dt, i + j), t->levels[codes[j]]));
    in += t->bits;
  }
}
