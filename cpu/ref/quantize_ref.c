/* quantize_ref.c - reference group quantization: the shared group loop with scalar passes,
 * element by element straight from the shared arithmetic (the true division included).
 * The oracle the other backends must equal. */
#include "src/arith/elem.h"
#include "src/arith/quant.h"
#include "cpu/kernels.h"
#include "cpu/quantize_groups.h"
#include "cpu/ref/ref.h"

ACTQ_INLINE void range_ref(const void *x, actq_dtype dt, size_t i0, size_t n, float *mn, float *mx,
                           int *finite) {
  int seen = 0;
  size_t j;
  for (j = 0; j < n; j++) actq_minmax_step(actq_load_elem(x, dt, i0 + j), mn, mx, finite, &seen);
}

ACTQ_INLINE void noise_ref(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                           uint16_t *out) {
  size_t i;
  for (i = 0; i < nblocks; i++) actq_noise_block(seed, offset, block0 + i, out + 8 * i);
}

ACTQ_INLINE void units_ref(const void *x, actq_dtype dt, int stochastic, size_t i, size_t units,
                           const actq_group_meta *g, const uint16_t *noise, uint32_t bits,
                           uint8_t *out, const uint8_t *end, size_t x_end, size_t ahead,
                           size_t ahead_l2) {
  size_t u;
  (void)end;
  (void)x_end; /* the oracle does not prefetch */
  (void)ahead;
  (void)ahead_l2;
  for (u = 0; u < units; u++)
    actq_quantize_partial_unit(x, dt, stochastic, i + 8 * u, 8, g, noise + 8 * u, bits,
                               out + u * bits);
}

static const actq_quantize_hooks hooks_ref = {range_ref, noise_ref, units_ref, NULL, NULL, 0, 0, NULL, NULL, 0};

ACTQ_QUANTIZE_DISPATCH(actq_ref_quantize_groups, hooks_ref)
