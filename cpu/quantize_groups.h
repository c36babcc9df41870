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
#include "src/arith/philox.h"
#include "src/arith/quant.h"
#include "cpu/prefetch.h"
#include "src/job.h"

#define ACTQ_QUANTIZE_CHUNK 1024 /* the most elements of one pass-2 step */

#define ACTQ_INLINE static inline __attribute__((always_inline))

/* What a generator in the codes loop (units_philox below) made ahead of the codes, kept
 * from one call to the next of a row's range: groups follow each other, so the noise made
 * during a group's last step is the next group's first. */
#define ACTQ_NOISE_NONE (~(uint64_t)0)
typedef struct actq_noise_carry {
  uint64_t block;      /* the first block of the noise in v; ACTQ_NOISE_NONE: none */
  uint64_t last_block; /* the range's last block: no noise is made past it */
  void *v;             /* the ISA's vectors, ACTQ_NOISE_CARRY_BYTES, 64-byte aligned */
} actq_noise_carry;
#define ACTQ_NOISE_CARRY_BYTES 512

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
   * `end` (the range's last byte: later stores, in order, rewrite the overshoot). The
   * vector hooks ask for the input `ahead` bytes ahead as they go (cpu/prefetch.h), never
   * at or past flat index x_end (the row's end); where `ahead_l2` is not 0 (f32, a call
   * whose input comes from memory: l2_beyond below) they may also ask for it that far
   * ahead into L2. */
  void (*units)(const void *x, actq_dtype dt, int stochastic, size_t i, size_t units,
                const actq_group_meta *g, const uint16_t *noise, uint32_t bits, uint8_t *out,
                const uint8_t *end, size_t x_end, size_t ahead, size_t ahead_l2);
  /* The metadata of n groups (2 <= n <= ACTQ_QUANTIZE_BATCH) from their pass-1 results,
   * each as actq_group_meta_compute gives it; NULL: that function, group by group. */
  void (*meta)(const float *mn, const float *mx, const int *finite, size_t n, uint32_t bits,
               actq_dtype meta_dtype, actq_group_meta *g);
  /* Optional (NULL: stochastic units take their noise from the `noise` hook's buffer):
   * `units` with stochastic rounding and the noise generated in the codes loop itself from
   * the keys of (seed, offset), for units from a flat index i that is a multiple of 8 (so
   * each unit is one Philox block); `carry`: the noise made ahead (taken when it starts at
   * block i / 8, left for the next call). The generator's work then spreads over the
   * loop's loads instead of running in bursts between them, and no noise goes through
   * memory but the carry. Prefetches as `units`. */
  void (*units_philox)(const void *x, actq_dtype dt, size_t i, size_t units,
                       const actq_group_meta *g, const actq_noise_keys *keys,
                       actq_noise_carry *carry, uint32_t bits, uint8_t *out,
                       const uint8_t *end, size_t x_end, size_t ahead, size_t ahead_l2);
  /* How far past the group nearest rounding's units ask for their input, in bytes (0:
   * ACTQ_PREFETCH_BYTES). A loop that issues its prefetches faster wants them nearer: on
   * the Xeon (docs/bench-cpu.md, "nearest at 1 bit by its step; the nearest
   * prefetch distance") the AVX-512 units ran 1.01-1.08x faster from memory with 4 KiB
   * than with 8 KiB (2 KiB lost at groups of 64), while the AVX2 units on the same core
   * ran 0.98-1.04x with 4 KiB. The step search itself (`step` below) is one function for
   * every vector table (cpu/quantize_step.h); it is a hook because it needs F16C, which
   * the reference's file is not compiled with. */
  size_t nearest_ahead;
  /* How far past their L1 request (`ahead`) the units may also ask for f32 input into L2
   * (actq_prefetch_ahead_l2), in calls of actq_prefetch_l2_min_bytes() of input or more;
   * 0: never. Those calls take instances of the loop of their own, so that the others run
   * the same code as without it (in the caches, the choice made group by group cost
   * 2-3%). Nearest f16 and bf16 ran 0.97-0.99x with it, stochastic bf16 0.97-1.00x. */
  size_t l2_beyond;
  /* Optional, both or neither: nearest rounding at 1 bit without the quotient. Every step
   * of the code (x*c, - mc, / sc, rint, the clamp) is monotone in x, so a group's codes
   * are 1 exactly from a step. `step` finds it for a group, as a key of the ISA's choosing
   * (returns 0 where it cannot: the group then takes `units`); `units_step` gives the codes
   * of whole units by comparing against it, as `units` would, with the same `ahead_l2`
   * (here l2_beyond past its own L1 request, which step_ahead sets). */
  int (*step)(const actq_group_meta *g, actq_dtype dt, int32_t *key);
  void (*units_step)(const void *x, actq_dtype dt, size_t i, size_t units,
                     const actq_group_meta *g, int32_t key, uint8_t *out, size_t x_end,
                     size_t ahead, size_t ahead_l2);
  /* How far units_step asks for its input past the end of the next group, in bytes (0:
   * as `units`, nearest_ahead past its own group). The step loop runs group by group in
   * the pipelined order (actq_quantize_groups_pipelined), so pass 1 has already read the
   * next group; counting from there keeps the distance the same at every group size. Its
   * loop spends a compare on 16 elements where `units` spends a quotient, and it wants its
   * requests nearer: on the Xeon (docs/bench-cpu.md, "nearest at 1 bit: the step's
   * own distance"), f32 from 256 MiB at 1.5 KiB against nearest's distance, paired:
   * 1.00-1.08x at groups of 256 (1 and 2 threads, the VM's state deciding), 1.13-1.15x at
   * 1024, 1.04x at 4096; 0.5 KiB 1.02-1.04x, 3 KiB 0.97x; bf16 and f16 0.99-1.02x. With
   * that distance the L2 request (l2_beyond) pays in the step loop too: 1.10-1.23x at groups
   * of 256 on 1 thread, 1.32x on 2, 1.13x at 512 and 1024, 0.98x at 4096 (with nearest's
   * old distance it had cost 7-9%). */
  size_t step_ahead;
} actq_quantize_hooks;

/* With a meta hook, the loop takes small groups in batches: pass 1 of each, their
 * metadata at once, then pass 2 of each, which rereads the batch's input from L1. A batch
 * holds at most ACTQ_QUANTIZE_BATCH_BYTES of input: larger batches measured slower from
 * memory on a Zen 5 (8-16 KiB: 0.77-0.87x group by group; likely because pass 2 then
 * computes long with few loads in flight). */
#define ACTQ_QUANTIZE_BATCH 16
#define ACTQ_QUANTIZE_BATCH_BYTES 2048

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

/* What pass 2 of a row's groups shares: the row, its bytes, and the noise buffer nbuf,
 * which holds the noise of blocks [nb0, nb1). */
typedef struct actq_quantize_row {
  const actq_quant_job *job;
  size_t r, base; /* base: the flat index of the row's first element */
  uint32_t bits;
  uint8_t *row_packed;
  uint8_t *range_end; /* one past the range's last packed byte: stores never go beyond it,
                       * so threads on neighbouring ranges never touch each other's bytes */
  uint64_t last_block; /* the range's elements end before block last_block + 1 */
  uint64_t nb0, nb1;
  uint16_t *nbuf;
  int in_loop;            /* stochastic, the noise made in the codes loop (a constant) */
  int want_step;          /* nearest at 1 bit, and the hooks have a step (groups one by one
                           * only: batches of small groups measured 0.92-0.95x with it) */
  actq_noise_keys keys;   /* set when in_loop */
  actq_noise_carry carry; /* when in_loop; its vectors in nbuf */
} actq_quantize_row;

/* Pass 1 of group gi: its min, max and whether it is finite. */
ACTQ_INLINE void actq_quantize_group_range(const actq_quantize_row *w, size_t gi, actq_dtype dt,
                                           const actq_quantize_hooks *h, float *mn, float *mx,
                                           int *finite) {
  const actq_grid *gr = &w->job->grid;
  const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
  const size_t whole = (c1 - c0) & ~(size_t)7;
  size_t c;
  int seen = 0;
  *mn = *mx = 0.0f;
  *finite = 1;
  if (whole) {
    h->range(w->job->x, dt, w->base + c0, whole, mn, mx, finite);
    seen = 1;
  }
  for (c = c0 + whole; c < c1; c++) /* the row's last, partial unit */
    actq_minmax_step(actq_load_elem(w->job->x, dt, w->base + c), mn, mx, finite, &seen);
}

/* Group gi's metadata stored, then its codes (pass 2, in chunks of ACTQ_QUANTIZE_CHUNK);
 * returns 1 for a nonfinite group (codes 0), else 0.
 *
 * The noise comes in batches of ACTQ_QUANTIZE_NOISE_BLOCKS blocks from the first block a
 * chunk needs (one more if the chunk needs it), cut at the range's end: groups smaller
 * than a batch share one generator call (its setup is a good part of a call for 8
 * blocks) instead of one each. */
ACTQ_INLINE size_t actq_quantize_group_codes(actq_quantize_row *w, size_t gi,
                                             const actq_group_meta *g, const int32_t *step,
                                             actq_dtype dt, int stochastic, int in_loop, int l2,
                                             const actq_quantize_hooks *h) {
  const actq_quant_job *job = w->job;
  const actq_grid *gr = &job->grid;
  const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
  const size_t meta_index = w->r * gr->groups_per_row + gi;
  const uint32_t bits = w->bits;
  uint8_t *gout = w->row_packed + (c0 / 8) * bits; /* c0 % 8 == 0 */
  /* pass 2 asks for the input a group and ACTQ_PREFETCH_BYTES ahead (nearest: the hooks'
   * distance): pass 1 of the next groups reads it (paired on the Xeon VM of
   * docs/bench-cpu.md, against a prefetch of the group 8 KiB ahead at the start of pass 1:
   * 1.02-1.17x at groups of 256; the group's length added keeps groups of 4096 from
   * reading their own, cached, input). The codes-loop generator's path (in_loop) takes the
   * same 8 KiB: paired against 16 KiB, stochastic f32 at 2^26 ran 1.00-1.06x on 1 and 2
   * threads, bf16 and f16 0.97-1.02x (docs/bench-cpu.md, "the codes-loop path's distance") */
  const size_t beyond = stochastic || !h->nearest_ahead ? ACTQ_PREFETCH_BYTES : h->nearest_ahead;
  const size_t ahead = (c1 - c0) * actq_dtype_size(dt) + beyond;
  const size_t ahead_step = /* past the next group (the hooks' step_ahead) */
      h->step_ahead ? 2 * (c1 - c0) * actq_dtype_size(dt) + h->step_ahead : ahead;
  const size_t ahead_l2 = l2 ? ahead + h->l2_beyond : 0;
  const size_t ahead_step_l2 = l2 ? ahead_step + h->l2_beyond : 0;
  size_t c;
  actq_store_elem(job->group_min, gr->meta_dtype, meta_index, g->m);
  actq_store_elem(job->group_scale, gr->meta_dtype, meta_index, g->s);
  if (g->nonfinite) {
    memset(gout, 0, actq_stream_bytes(c1 - c0, bits));
    return 1;
  }
  for (c = c0; c < c1; c += ACTQ_QUANTIZE_CHUNK) {
    const size_t n = c1 - c < ACTQ_QUANTIZE_CHUNK ? c1 - c : ACTQ_QUANTIZE_CHUNK;
    const size_t e0 = w->base + c, full = n / 8;
    uint8_t *out = gout + ((c - c0) / 8) * bits;
    size_t k = 0; /* element e0 is nbuf[k] */
    if (stochastic && in_loop) {
      if (full)
        h->units_philox(job->x, dt, e0, full, g, &w->keys, &w->carry, bits, out,
                        w->range_end, w->base + gr->cols, ahead, ahead_l2);
      if (n % 8) {
        uint16_t r16[8];
        actq_noise_block_rk(w->keys.rk, w->keys.offset, (uint64_t)(e0 >> 3) + full, r16);
        actq_quantize_partial_unit(job->x, dt, 1, e0 + 8 * full, n % 8, g, r16, bits,
                                   out + full * bits);
      }
      continue;
    }
    if (step) { /* nearest at 1 bit, the group's step found */
      if (full)
        h->units_step(job->x, dt, e0, full, g, *step, out, w->base + gr->cols, ahead_step,
                      ahead_step_l2);
      if (n % 8)
        actq_quantize_partial_unit(job->x, dt, 0, e0 + 8 * full, n % 8, g, NULL, bits,
                                   out + full * bits);
      continue;
    }
    if (stochastic) {
      const uint64_t b0 = (uint64_t)e0 >> 3, b1 = (uint64_t)(e0 + n - 1) >> 3;
      if (b0 < w->nb0 || b1 >= w->nb1) {
        w->nb0 = b0;
        w->nb1 = w->last_block - b0 < ACTQ_QUANTIZE_NOISE_BLOCKS
                     ? w->last_block + 1
                     : b0 + ACTQ_QUANTIZE_NOISE_BLOCKS;
        if (w->nb1 <= b1) w->nb1 = b1 + 1; /* a chunk that starts inside a block */
        h->noise(job->seed, job->offset, w->nb0, (size_t)(w->nb1 - w->nb0), w->nbuf);
      }
      k = (size_t)(e0 - 8 * w->nb0);
    }
    if (full)
      h->units(job->x, dt, stochastic, e0, full, g, w->nbuf + k, bits, out, w->range_end,
               w->base + gr->cols, ahead, ahead_l2);
    if (n % 8)
      actq_quantize_partial_unit(job->x, dt, stochastic, e0 + 8 * full, n % 8, g,
                                 w->nbuf + k + 8 * full, bits, out + full * bits);
  }
  return 0;
}

/* How many groups a batch takes: as many as ACTQ_QUANTIZE_BATCH_BYTES of input hold, at
 * most ACTQ_QUANTIZE_BATCH; groups larger than a quarter of that go one by one (their
 * metadata are a small part of their time, and batches of 2-3 larger groups measured
 * 0.89-0.95x group by group from memory; docs/bench-cpu.md, "The metadata in vector
 * lanes"). */
ACTQ_INLINE size_t actq_quantize_batch_groups(const actq_grid *gr, actq_dtype dt) {
  const size_t n = ACTQ_QUANTIZE_BATCH_BYTES / (gr->group_size * actq_dtype_size(dt));
  return n < 4 ? 1 : n < ACTQ_QUANTIZE_BATCH ? n : ACTQ_QUANTIZE_BATCH;
}

/* Pass 1 and the metadata of the nb groups from gb (a batch of them at once with a meta
 * hook and nb > 1, else group by group); with `step`, where the row wants it, each finite
 * group's step (has[k]: found, key in step[k]). */
ACTQ_INLINE void actq_quantize_batch_meta(actq_quantize_row *w, size_t gb, size_t nb,
                                          actq_dtype dt, const actq_quantize_hooks *h,
                                          actq_group_meta *gm, int32_t *step, int *has) {
  float mn[ACTQ_QUANTIZE_BATCH], mx[ACTQ_QUANTIZE_BATCH];
  int finite[ACTQ_QUANTIZE_BATCH];
  size_t k;
  if (nb == 1) {
    actq_quantize_group_range(w, gb, dt, h, &mn[0], &mx[0], &finite[0]);
    actq_group_meta_compute(mn[0], mx[0], finite[0], w->bits, w->job->grid.meta_dtype, gm);
  } else {
    k = 0;
    do /* (a do loop: gcc then sees element 0 set) */
      actq_quantize_group_range(w, gb + k, dt, h, &mn[k], &mx[k], &finite[k]);
    while (++k < nb);
    h->meta(mn, mx, finite, nb, w->bits, w->job->grid.meta_dtype, gm);
  }
  if (step)
    for (k = 0; k < nb; k++)
      has[k] = w->want_step && !gm[k].nonfinite && h->step(&gm[k], dt, &step[k]);
}

/* Groups [g0, g1) one by one, software-pipelined: pass 1 and the metadata of the next
 * group come before pass 2 of this one. The metadata are a long dependent chain
 * (reduction, a double division, the rounding steps, the reciprocal) that pass 2 of the
 * same group waits for; issued a group early, they run while the previous group's pass 2
 * computes. Nearest only (f32 at 256, paired on the Xeon: in L2 1.17-1.21x, from
 * memory 0.98-0.99x); see actq_quantize_groups_loop. */
ACTQ_INLINE size_t actq_quantize_groups_pipelined(actq_quantize_row *w, size_t g0, size_t g1,
                                                  actq_dtype dt, int stochastic, int in_loop,
                                                  int l2, const actq_quantize_hooks *h) {
  actq_group_meta gm[2];
  int32_t step[2];
  int has[2];
  size_t nonfinite = 0, gi;
  actq_quantize_batch_meta(w, g0, 1, dt, h, &gm[0], &step[0], &has[0]);
  for (gi = g0; gi < g1; gi++) {
    const size_t k = (gi - g0) & 1;
    if (gi + 1 < g1)
      actq_quantize_batch_meta(w, gi + 1, 1, dt, h, &gm[k ^ 1], &step[k ^ 1], &has[k ^ 1]);
    nonfinite += actq_quantize_group_codes(w, gi, &gm[k], has[k] ? &step[k] : NULL, dt,
                                           stochastic, in_loop, l2, h);
  }
  return nonfinite;
}

/* Groups [g0, g1), `batch` (>= 1) at a time: pass 1 of each, their metadata (at once in
 * vector lanes, the meta hook, for batches of 2 or more), then pass 2 of each, which
 * rereads the batch's input from L1. (Pipelined as above, stochastic bf16 batches of 64
 * measured 0.91-0.94x from memory, those with the noise made in the codes loop no
 * faster.) */
ACTQ_INLINE size_t actq_quantize_batches(actq_quantize_row *w, size_t g0, size_t g1,
                                         size_t batch, actq_dtype dt, int stochastic,
                                         int in_loop, int l2, const actq_quantize_hooks *h) {
  size_t nonfinite = 0, gb, nb, k;
  for (gb = g0; gb < g1; gb += nb) {
    actq_group_meta gm[ACTQ_QUANTIZE_BATCH];
    nb = g1 - gb < batch ? g1 - gb : batch;
    actq_quantize_batch_meta(w, gb, nb, dt, h, gm, NULL, NULL);
    for (k = 0; k < nb; k++)
      nonfinite +=
          actq_quantize_group_codes(w, gb + k, &gm[k], NULL, dt, stochastic, in_loop, l2, h);
  }
  return nonfinite;
}

/* Whether row r's stochastic codes take their noise from a generator in the codes loop
 * (the units_philox hook, `have`): groups start at multiples of 8 in the row (c0 % 8 == 0),
 * so at whole Philox blocks when the row starts at one; groups of a multiple of 128
 * elements give the generator whole steps (smaller groups go through the buffer: a step
 * across two groups would need the generator's state kept between them). */
ACTQ_INLINE int actq_quantize_in_loop(const actq_quant_job *job, size_t r, int have) {
  return have && (r * job->grid.cols) % 8 == 0 && job->grid.group_size % 128 == 0;
}

/* Groups [g0, g1) of row r, whose packed bytes start at row_packed, in batches (batched,
 * with a meta hook) or group by group; returns how many of them were nonfinite. */
ACTQ_INLINE size_t actq_quantize_groups_loop(const actq_quant_job *job, size_t r, size_t g0,
                                             size_t g1, uint8_t *row_packed, actq_dtype dt,
                                             int stochastic, int in_loop, int batched, int l2,
                                             const actq_quantize_hooks *h) {
  const actq_grid *gr = &job->grid;
  uint16_t nbuf[8 * (ACTQ_QUANTIZE_NOISE_BLOCKS + 1) + ACTQ_QUANTIZE_NOISE_SLACK]
      __attribute__((aligned(64)));
  actq_quantize_row w;
  w.job = job;
  w.r = r;
  w.base = r * gr->cols;
  w.bits = actq_grid_row_bits(gr, r);
  w.row_packed = row_packed;
  w.range_end = row_packed + actq_stream_bytes(actq_grid_group_end(gr, g1 - 1), w.bits);
  w.last_block = (uint64_t)(w.base + actq_grid_group_end(gr, g1 - 1) - 1) >> 3;
  w.nb0 = w.nb1 = 0;
  w.nbuf = nbuf;
  w.in_loop = in_loop && h->units_philox; /* (a constant: NULL in tables without one) */
  w.want_step = !stochastic && h->step && w.bits == 1;
  if (w.in_loop) {
    actq_noise_keys_init(job->seed, job->offset, &w.keys);
    w.carry.block = ACTQ_NOISE_NONE;
    w.carry.last_block = w.last_block;
    w.carry.v = nbuf;
  }
  if (batched && h->meta)
    return actq_quantize_batches(&w, g0, g1, actq_quantize_batch_groups(gr, dt), dt, stochastic,
                                 w.in_loop, l2, h);
  /* stochastic: the plain order (pipelined, 0.97-1.02x from memory and nothing in L2: its
   * codes loop is long enough to hide the metadata's chain) */
  if (stochastic) return actq_quantize_batches(&w, g0, g1, 1, dt, stochastic, w.in_loop, l2, h);
  return actq_quantize_groups_pipelined(&w, g0, g1, dt, stochastic, w.in_loop, l2, h);
}

/* One instance of the loop: dtype, rounding (ST: 0 nearest, 1 stochastic with the noise
 * buffer, 2 stochastic with the noise made in the codes loop), batching and the second
 * prefetch (L: l2_beyond; f32 only) constant. Out of line, so that each keeps its own
 * code: with both shapes in one function, the group-by-group loop measured 0.74x its own
 * speed on a Zen 5 (groups of 4096 f32, from memory); with the codes-loop generator's path
 * beside the buffer's, the buffer's measured 0.93-0.95x (stochastic at groups of 64, in
 * L2, the Xeon). */
#define ACTQ_QUANTIZE_INSTANCE(name, hooks, DT, ST, B, L)                                      \
  static __attribute__((noinline, unused)) size_t name##_##DT##_##ST##_##B##_##L(                 \
      const actq_quant_job *job, size_t r, size_t g0, size_t g1, uint8_t *row_packed) {          \
    return actq_quantize_groups_loop(job, r, g0, g1, row_packed, DT, ST != 0, ST == 2, B, L,     \
                                     &hooks);                                                  \
  }
#define ACTQ_QUANTIZE_INSTANCES(name, hooks, DT, L)                                            \
  ACTQ_QUANTIZE_INSTANCE(name, hooks, DT, 0, 0, L)                                            \
  ACTQ_QUANTIZE_INSTANCE(name, hooks, DT, 0, 1, L)                                            \
  ACTQ_QUANTIZE_INSTANCE(name, hooks, DT, 1, 0, L)                                            \
  ACTQ_QUANTIZE_INSTANCE(name, hooks, DT, 1, 1, L)                                            \
  ACTQ_QUANTIZE_INSTANCE(name, hooks, DT, 2, 0, L)                                            \
  ACTQ_QUANTIZE_INSTANCE(name, hooks, DT, 2, 1, L)
#define ACTQ_QUANTIZE_CALL(name, DT, L)                                                        \
  return st == 2   ? (b ? name##_##DT##_2_1_##L : name##_##DT##_2_0_##L)(job, r, g0, g1,      \
                                                                         row_packed)          \
         : st == 1 ? (b ? name##_##DT##_1_1_##L : name##_##DT##_1_0_##L)(job, r, g0, g1,      \
                                                                         row_packed)          \
                   : (b ? name##_##DT##_0_1_##L : name##_##DT##_0_0_##L)(job, r, g0, g1,      \
                                                                         row_packed)

/* Whether a call takes the loop's instances with the second prefetch (the hooks'
 * l2_beyond): f32 input of actq_prefetch_l2_min_bytes() or more. */
ACTQ_INLINE int actq_quantize_l2(const actq_quant_job *job, size_t have) {
  return have && job->x_dtype == ACTQ_F32 &&
         job->grid.rows * job->grid.cols * sizeof(float) >= actq_prefetch_l2_min_bytes();
}

/* ASan builds (gcc says so by __SANITIZE_ADDRESS__, clang by __has_feature): the fuzz
 * harnesses and the asan test build. They leave out the loop's variants that cost minutes
 * of instrumented compile time against the test command's budget: the instances with the
 * second prefetch here (with them the fuzz step took 336 s, against 235 s before), the
 * codes-loop generator in quantize_avx512.c. The native, SIMDe-emulated and valgrind runs
 * check both. */
#if defined(__SANITIZE_ADDRESS__)
#define ACTQ_QUANTIZE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACTQ_QUANTIZE_ASAN 1
#endif
#endif
#ifdef ACTQ_QUANTIZE_ASAN
#define ACTQ_QUANTIZE_L2_INSTANCES(name, hooks)
#define ACTQ_QUANTIZE_L2_CALL(name, hooks)
#else
#define ACTQ_QUANTIZE_L2_INSTANCES(name, hooks) ACTQ_QUANTIZE_INSTANCES(name, hooks, ACTQ_F32, 1)
#define ACTQ_QUANTIZE_L2_CALL(name, hooks)                                                     \
  if (actq_quantize_l2(job, (hooks).l2_beyond)) ACTQ_QUANTIZE_CALL(name, ACTQ_F32, 1);
#endif

/* Defines `name` (a quantize_groups kernel) over twenty-four instances of the loop, one
 * per input dtype, rounding (and where the noise comes from), batching and, for f32,
 * whether the second prefetch is made. */
#define ACTQ_QUANTIZE_DISPATCH(name, hooks)                                                   \
  ACTQ_QUANTIZE_INSTANCES(name, hooks, ACTQ_F16, 0)                                           \
  ACTQ_QUANTIZE_INSTANCES(name, hooks, ACTQ_BF16, 0)                                          \
  ACTQ_QUANTIZE_INSTANCES(name, hooks, ACTQ_F32, 0)                                           \
  ACTQ_QUANTIZE_L2_INSTANCES(name, hooks)                                                     \
  size_t name(const actq_quant_job *job, size_t r, size_t g0, size_t g1, uint8_t *row_packed) { \
    const int st = job->rounding != ACTQ_ROUND_STOCHASTIC                        ? 0           \
                   : actq_quantize_in_loop(job, r, (hooks).units_philox != NULL) ? 2           \
                                                                                 : 1;          \
    const int b = (hooks).meta && actq_quantize_batch_groups(&job->grid, job->x_dtype) > 1;     \
    switch (job->x_dtype) {                                                                     \
    case ACTQ_F16: ACTQ_QUANTIZE_CALL(name, ACTQ_F16, 0);                                       \
    case ACTQ_BF16: ACTQ_QUANTIZE_CALL(name, ACTQ_BF16, 0);                                     \
    default:                                                                                    \
      ACTQ_QUANTIZE_L2_CALL(name, hooks)                                                        \
      ACTQ_QUANTIZE_CALL(name, ACTQ_F32, 0);                                                    \
    }                                                                                         \
  }

#endif /* ACTQ_CPU_QUANTIZE_GROUPS_H */
