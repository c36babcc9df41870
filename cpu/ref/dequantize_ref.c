/* dequantize_ref.c - reference dequantization: y = fma(q, s, m), element by element. */
#include "src/arith/elem.h"
#include "src/arith/quant.h"
#include "cpu/kernels.h"
#include "cpu/ref/ref.h"

void actq_ref_dequantize_groups(const actq_dequant_job *job, size_t r, size_t g0, size_t g1,
                                const uint8_t *row_packed) {
  const actq_grid *gr = &job->grid;
  const uint32_t bits = actq_grid_row_bits(gr, r);
  const size_t base = r * gr->cols;
  size_t gi, c, j;

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    float m, s;
    const uint8_t *in = row_packed + (c0 / 8) * bits;

    actq_ref_group_meta(job, r, gi, &m, &s);
    for (c = c0; c < c1; c += 8) {
      const size_t k = c1 - c < 8 ? c1 - c : 8;
      uint32_t codes[8];
      actq_unpack_unit(in, k, bits, codes);
      for (j = 0; j < k; j++)
        actq_store_elem(job->y, job->y_dtype, base + c + j, actq_dequant(codes[j], m, s));
      in += bits;
    }
  }
}
