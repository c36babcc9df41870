/* quantize_groups.h - the one group loop of every CPU quantize kernel.
 *
 * For each group of the range: pass 1 (min, max, nonfinite check), the metadata from
 * src/arith/quant.h, stored; a nonfinite group gets codes 0; otherwise pass 2 in chunks of
 * ACTQ_QUANTIZE_CHUNK elements: the chunk's Philox blocks from a buffer that stays in L1
 * (filled for several small groups at once), the whole units (8 elements) through the
 * ISA's code, a row's last partial unit through the reference's scalar functions, so
 * tails are the reference's by construction.
 *
 * An ISA supplies the three passes as hooks: constant pointers to static inline
 * functions, which the compiler inlines into each of the six dtype x rounding kernels that
 * ACTQ_QUANTIZE_DISPATCH instantiates (no indirect call is left in the loop).
 */
#ifndef ACTQ_CPU_QUANTIZE_GROUPS_H
#define ACTQ_CPU_QUANTIZE_GROUPS_H

#include <string.h>

#include "src/arith/elem.h"
#include "src/arith/quant.h"
#include "cpu/prefetch.h"
#include "src/job.h"

#define ACTQ_QUANTIZE_CHUNK 1024 /* the most elements of one pass-2 step */

#define ACTQ_INLINE static inline __attribute__((always_inline))

typedef struct actq_quantize_hooks {
  /* Pass 1 over elements [i0, i0 + n) of x, n a positive multiple of 8: min and max
   * (equal to the reference's up to the sign of zero, which the metadata ignores) and
   * whether every value is finite. */
  void (*range)(const void *x, actq_dtype dt, size_t i0, size_t n, float *mn, float *mx,
                int *finite);
  /* The 16-bit noise of Philox blocks block0 .. block0 + nblocks - 1 in element order;
   * may write up to ACTQ_QUANTIZE_NOISE_SLACK values more. */
  void (*noise)(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                uint16_t *out);
  /* Codes of the `units` whole units of 8 elements from flat index i (noise[j] is the
   * noise of element i + j), packed to out. Stores may run past the units' bytes up to
   * `end` (the range's last byte: later stores, in order, rewrite the overshoot). */
  void (*units)(const void *x, actq_dtype dt, int stochastic, size_t i, size_t units,
                const actq_group_meta *g, const uint16_t *noise, uint32_t bits, uint8_t *out,
                const uint8_t *end);
} actq_quantize_hooks;

/* How an ISA's pass 2 gets t = num / sc, chosen per group (its units hook). */
enum {
  ACTQ_QUOT_DIVIDE = 0,    /* the division (wide groups, scales outside the domain) */
  ACTQ_QUOT_RCP_CHECK = 1, /* actq_quot_rcp, each vector checked for lanes outside it */
  ACTQ_QUOT_RCP = 2        /* actq_quot_rcp, every lane proven inside it for the group
                            * (actq_quot_rcp_group_ok: |m| >= 2^-40, nearly every group) */
};

/* Room after a chunk's noise: the generators write whole batches of blocks, and the
 * vector code may read one vector past the last unit. */
#define ACTQ_QUANTIZE_NOISE_SLACK 192

/* A row's last, partial unit (k < 8 elements from flat index i). */
ACTQ_INLINE void actq_quantize_partial_unit(const void *x, actq_dtype dt, int stochastic, size_t i,
                                            size_t k, const actq_group_meta *g,
                                            const uint16_t *noise, uint32_t bits,
                                            uint8_t *out) {
  uint32_t codes[8];
  size_t j;
  for (j = 0; j < k; j++) {
    float v = actq_load_elem(x, dt, i + j);
    codes[j] = stochastic ? actq_code_stochastic(v, g, noise[j]) : actq_code_nearest(v, g);
  }
  actq_pack_unit(codes, k, bits, out);
}

/* Philox blocks of one noise batch: those of ACTQ_QUANTIZE_CHUNK aligned elements, so that
 * the chunks of a large group and the batches of small ones meet without overlap; one more
 * for a chunk that starts inside a block. */
#define ACTQ_QUANTIZE_NOISE_BLOCKS (ACTQ_QUANTIZE_CHUNK / 8)

/* Groups [g0, g1) of row r, whose packed bytes start at row_packed; returns how many of
 * them were nonfinite.
 *
 * The noise comes in batches of ACTQ_QUANTIZE_NOISE_BLOCKS blocks from the first block a
 * chunk needs (one more if the chunk needs it), cut at the range's end: groups smaller
 * than a batch share one generator call (its setup is a good part of a call for 8
 * blocks) instead of one each. */
ACTQ_INLINE size_t actq_quantize_groups_loop(const actq_quant_job *job, size_t r, size_t g0,
                                             size_t g1, uint8_t *row_packed, actq_dtype dt,
                                             int stochastic, const actq_quantize_hooks *h) {
  const actq_grid *gr = &job->grid;
  const uint32_t bits = actq_grid_row_bits(gr, r);
  const size_t base = r * gr->cols; /* flat index of the row's first element */
  uint16_t nbuf[8 * (ACTQ_QUANTIZE_NOISE_BLOCKS + 1) + ACTQ_QUANTIZE_NOISE_SLACK]
      __attribute__((aligned(64)));
  /* one past the range's last packed byte: stores never go beyond it, so threads working
   * on neighbouring ranges never touch each other's bytes */
  uint8_t *range_end = row_packed + actq_stream_bytes(actq_grid_group_end(gr, g1 - 1), bits);
  /* nbuf holds the noise of blocks [nb0, nb1); the range's elements end before block
   * last_block + 1 */
  const uint64_t last_block = (uint64_t)(base + actq_grid_group_end(gr, g1 - 1) - 1) >> 3;
  uint64_t nb0 = 0, nb1 = 0;
  size_t nonfinite = 0, gi, c;

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    const size_t meta_index = r * gr->groups_per_row + gi;
    uint8_t *gout = row_packed + (c0 / 8) * bits; /* c0 % 8 == 0 */
    const size_t whole = (c1 - c0) & ~(size_t)7;
    float mn = 0.0f, mx = 0.0f;
    int finite = 1, seen = 0;
    actq_group_meta g;

    actq_prefetch_group(job->x, dt == ACTQ_F32 ? 4 : 2, base + c0, c1 - c0, base + gr->cols);
    if (whole) {
      h->range(job->x, dt, base + c0, whole, &mn, &mx, &finite);
      seen = 1;
    }
    for (c = c0 + whole; c < c1; c++) /* the row's last, partial unit */
      actq_minmax_step(actq_load_elem(job->x, dt, base + c), &mn, &mx, &finite, &seen);
    actq_group_meta_compute(mn, mx, finite, bits, gr->meta_dtype, &g);
    actq_store_elem(job->group_min, gr->meta_dtype, meta_index, g.m);
    actq_store_elem(job->group_scale, gr->meta_dtype, meta_index, g.s);
    if (g.nonfinite) {
      nonfinite++;
      memset(gout, 0, actq_stream_bytes(c1 - c0, bits));
      continue;
    }
    for (c = c0; c < c1; c += ACTQ_QUANTIZE_CHUNK) {
      const size_t n = c1 - c < ACTQ_QUANTIZE_CHUNK ? c1 - c : ACTQ_QUANTIZE_CHUNK;
      const size_t e0 = base + c, full = n / 8;
      uint8_t *out = gout + ((c - c0) / 8) * bits;
      size_t k = 0; /* element e0 is nbuf[k] */
      if (stochastic) {
        const uint64_t b0 = (uint64_t)e0 >> 3, b1 = (uint64_t)(e0 + n - 1) >> 3;
        if (b0 < nb0 || b1 >= nb1) {
          nb0 = b0;
          nb1 = last_block - b0 < ACTQ_QUANTIZE_NOISE_BLOCKS ? last_block + 1
                                                            : b0 + ACTQ_QUANTIZE_NOISE_BLOCKS;
          if (nb1 <= b1) nb1 = b1 + 1; /* a chunk that starts inside a block */
          h->noise(job->seed, job->offset, nb0, (size_t)(nb1 - nb0), nbuf);
        }
        k = (size_t)(e0 - 8 * nb0);
      }
      if (full) h->units(job->x, dt, stochastic, e0, full, &g, nbuf + k, bits, out, range_end);
      if (n % 8)
        actq_quantize_partial_unit(job->x, dt, stochastic, e0 + 8 * full, n % 8, &g,
                                   nbuf + k + 8 * full, bits, out + full * bits);
    }
  }
  return nonfinite;
}

/* Defines `name` (a quantize_groups kernel) over six instances of the loop, one per input
 * dtype and rounding, each with its dtype and rounding as constants. */
#define ACTQ_QUANTIZE_DISPATCH(name, hooks)                                                 \
  size_t name(const actq_quant_job *job, size_t r, size_t g0, size_t g1, uint8_t *row_packed) { \
    const int st = job->rounding == ACTQ_ROUND_STOCHASTIC;                                  \
    switch (job->x_dtype) {                                                                 \
    case ACTQ_F16:                                                                          \
      return st ? actq_quantize_groups_loop(job, r, g0, g1, row_packed, ACTQ_F16, 1, &hooks)  \
                : actq_quantize_groups_loop(job, r, g0, g1, row_packed, ACTQ_F16, 0, &hooks); \
    case ACTQ_BF16:                                                                         \
      return st ? actq_quantize_groups_loop(job, r, g0, g1, row_packed, ACTQ_BF16, 1, &hooks) \
                : actq_quantize_groups_loop(job, r, g0, g1, row_packed, ACTQ_BF16, 0, &hooks); \
    default:                                                                                \
      return st ? actq_quantize_groups_loop(job, r, g0, g1, row_packed, ACTQ_F32, 1, &hooks)  \
                : actq_quantize_groups_loop(job, r, g0, g1, row_packed, ACTQ_F32, 0, &hooks); \
    }                                                                                       \
  }

#endif /* ACTQ_CPU_QUANTIZE_GROUPS_H */
