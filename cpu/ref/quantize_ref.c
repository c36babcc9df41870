/* quantize_ref.c - reference group quantization: one group at a time, element by element,
 * straight from the shared arithmetic. The oracle the other backends must equal. */
#include "arith/elem.h"
#include "arith/quant.h"
#include "cpu/kernels.h"
#include "cpu/ref/ref.h"

size_t actq_ref_quantize_groups(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                uint8_t *row_packed) {
  const actq_grid *gr = &job->grid;
  const uint32_t bits = actq_grid_row_bits(gr, r);
  const size_t base = r * gr->cols; /* flat index of the row's first element */
  size_t nonfinite = 0, gi, c, j;
  actq_noise_cursor noise;
  actq_noise_cursor_init(&noise, job->seed, job->offset);

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    const size_t meta_index = r * gr->groups_per_row + gi;
    float mn = 0.0f, mx = 0.0f;
    int finite = 1, seen = 0;
    actq_group_meta g;
    uint8_t *out = row_packed + (c0 / 8) * bits;

    for (c = c0; c < c1; c++)
      actq_minmax_step(actq_load_elem(job->x, job->x_dtype, base + c), &mn, &mx, &finite, &seen);
    actq_group_meta_compute(mn, mx, finite, bits, (int)gr->meta_dtype, &g);
    nonfinite += (size_t)g.nonfinite;
    actq_store_elem(job->group_min, (int)gr->meta_dtype, meta_index, g.m);
    actq_store_elem(job->group_scale, (int)gr->meta_dtype, meta_index, g.s);

    for (c = c0; c < c1; c += 8) {
      const size_t k = c1 - c < 8 ? c1 - c : 8;
      uint32_t codes[8];
      for (j = 0; j < k; j++) {
        float v = actq_load_elem(job->x, job->x_dtype, base + c + j);
        codes[j] = job->rounding == ACTQ_ROUND_STOCHASTIC
                       ? actq_code_stochastic(v, &g, actq_noise_at(&noise, base + c + j))
                       : actq_code_nearest(v, &g);
      }
      actq_pack_unit(codes, k, bits, out);
      out += bits;
    }
  }
  return nonfinite;
}
