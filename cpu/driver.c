/* driver.c - the CPU backend: splits a job into ranges of groups (or of 8-code units for
 * pack/unpack) and runs the context's kernel table over them. Work is divided by
 * actq_cpu_parallel (cpu/parallel.c); a range's result never depends on how the job was
 * divided, so every thread count gives the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/backend.h"
#include "cpu/parallel.h"
#include "cpu/ref/ref.h"
#include "cpu/y_lut.h"
#include "src/fewbit/code_lut.h"

/* ---- quantize / dequantize: ranges of the flattened (row, group) index ---------------- */

typedef struct group_range_task {
  const actq_cpu_kernels *k;
  const actq_quant_job *qjob;
  const actq_dequant_job *djob;
} group_range_task;

/* Walks the groups [u0, u1) of the flattened index row by row. The row offset of per-row
 * widths costs O(r) a range: those walks ask actq_cpu_parallel for one range a thread
 * (group_balance). */
static size_t run_group_range(void *arg, size_t u0, size_t u1) {
  const group_range_task *t = (const group_range_task *)arg;
  const actq_grid *gr = t->qjob ? &t->qjob->grid : &t->djob->grid;
  const size_t gpr = gr->groups_per_row;
  size_t r = u0 / gpr, nonfinite = 0;
  size_t row_offset = actq_grid_row_offset(gr, r);
  while (u0 < u1) {
    const size_t g0 = u0 - r * gpr;
    const size_t g1 = (u1 - r * gpr) < gpr ? (u1 - r * gpr) : gpr;
    if (t->qjob)
      nonfinite += t->k->quantize_groups(t->qjob, r, g0, g1, t->qjob->packed + row_offset);
    else
      t->k->dequantize_groups(t->djob, r, g0, g1, t->djob->packed + row_offset);
    u0 += g1 - g0;
    row_offset += actq_stream_bytes(gr->cols, actq_grid_row_bits(gr, r));
    r++;
  }
  return nonfinite;
}

/* Fewest groups worth a thread of their own. Starting and joining a helper thread costs
 * about 15-20 us here (measured with pthread_create per call); 2^17 elements take about
 * 90 us to quantize on one core, so smaller calls stay on the calling thread. */
static size_t groups_per_chunk(const actq_grid *gr) {
  const size_t target_elems = (size_t)1 << 17;
  size_t per = target_elems / gr->group_size;
  return per ? per : 1;
}

/* Whether a walk of `gr` may go out in chunks (actq_cpu_parallel's `balance`): not with
 * per-row widths, whose range start walks the rows before it. */
static int group_balance(const actq_grid *gr) { return gr->row_bits == NULL; }

/* The grid the kernels walk. Rows of one width made of whole groups are, byte for byte,
 * one row of rows * cols elements: the same flat element indices (hence noise), group
 * indices (metadata entries) and packed stream (cols is a multiple of the group size,
 * hence of 8, so every row fills whole bytes and the next starts where it ends). As one
 * row, short rows (a group or two each, as in a layer's activations of 64 features) pay
 * the kernels' per-row setup once per thread instead of once per group. */
static actq_grid walk_grid(const actq_grid *gr) {
  actq_grid g = *gr;
  if (!gr->row_bits && gr->rows > 1 && gr->cols % gr->group_size == 0) {
    g.cols = gr->rows * gr->cols;
    g.groups_per_row = gr->rows * gr->groups_per_row;
    g.rows = 1;
  }
  return g;
}

static actq_status cpu_quantize(actq_context *ctx, const actq_quant_job *job) {
  actq_cpu_state *st = actq_cpu(ctx);
  actq_quant_job walk = *job;
  group_range_task t = {.k = st->kernels, .qjob = &walk};
  walk.grid = walk_grid(&job->grid);
  size_t nonfinite = actq_cpu_parallel(st, walk.grid.rows * walk.grid.groups_per_row,
                                       groups_per_chunk(&walk.grid), group_balance(&walk.grid),
                                       run_group_range, &t);
  return nonfinite ? ACTQ_ERR_NONFINITE : ACTQ_OK;
}

static actq_status cpu_dequantize(actq_context *ctx, const actq_dequant_job *job) {
  actq_cpu_state *st = actq_cpu(ctx);
  actq_dequant_job walk = *job;
  group_range_task t = {.k = st->kernels, .djob = &walk};
  walk.grid = walk_grid(&job->grid);
  actq_cpu_parallel(st, walk.grid.rows * walk.grid.groups_per_row, groups_per_chunk(&walk.grid),
                    group_balance(&walk.grid), run_group_range, &t);
  return ACTQ_OK;
}

/* ---- pack / unpack: ranges of 8-code units (each exactly `bits` bytes) ----------------- */

typedef struct unit_range_task {
  const actq_cpu_kernels *k;
  uint32_t bits;
  size_t n;
  const uint8_t *codes_in;
  uint8_t *codes_out;
  const uint8_t *packed_in;
  uint8_t *packed_out;
} unit_range_task;

static size_t run_unit_range(void *arg, size_t u0, size_t u1) {
  const unit_range_task *t = (const unit_range_task *)arg;
  const size_t c0 = u0 * 8, c1 = (u1 * 8 < t->n) ? u1 * 8 : t->n;
  if (t->packed_out)
    return (size_t)t->k->pack(t->bits, c1 - c0, t->codes_in + c0, t->packed_out + u0 * t->bits);
  t->k->unpack(t->bits, c1 - c0, t->packed_in + u0 * t->bits, t->codes_out + c0);
  return 0;
}

/* 2^15 units = 256 Ki codes, about 16 us of packing on one core: below that a helper
 * thread costs more than it saves (measured, see groups_per_chunk). */
static const size_t units_per_chunk = (size_t)1 << 15;

static actq_status cpu_pack(actq_context *ctx, uint32_t bits, size_t n, const uint8_t *codes,
                            uint8_t *packed) {
  actq_cpu_state *st = actq_cpu(ctx);
  unit_range_task t = {.k = st->kernels, .bits = bits, .n = n, .codes_in = codes,
                       .packed_out = packed};
  size_t bad = actq_cpu_parallel(st, (n + 7) / 8, units_per_chunk, 1, run_unit_range, &t);
  return bad ? ACTQ_ERR_INVALID_ARGUMENT : ACTQ_OK;
}

static actq_status cpu_unpack(actq_context *ctx, uint32_t bits, size_t n,
                              const uint8_t *packed, uint8_t *codes) {
  actq_cpu_state *st = actq_cpu(ctx);
  unit_range_task t = {.k = st->kernels, .bits = bits, .n = n, .codes_out = codes,
                       .packed_in = packed};
  actq_cpu_parallel(st, (n + 7) / 8, units_per_chunk, 1, run_unit_range, &t);
  return ACTQ_OK;
}

/* ---- few-bit encode / backward: ranges of 8-element units ------------------------------ */

typedef struct fewbit_task {
  const actq_cpu_kernels *k;
  const actq_fewbit_job *job;
} fewbit_task;

static size_t run_fewbit_encode(void *arg, size_t u0, size_t u1) {
  const fewbit_task *t = (const fewbit_task *)arg;
  const size_t i1 = u1 * 8 < t->job->n ? u1 * 8 : t->job->n;
  return t->k->fewbit_encode(t->job, u0 * 8, i1);
}

static size_t run_fewbit_backward(void *arg, size_t u0, size_t u1) {
  const fewbit_task *t = (const fewbit_task *)arg;
  const size_t i1 = u1 * 8 < t->job->n ? u1 * 8 : t->job->n;
  t->k->fewbit_backward(t->job, u0 * 8, i1);
  return 0;
}

/* Widths from which the fast kernels look codes up in a code_lut table (narrower codes are
 * cheaper searched in registers), and the fewest elements worth building one: the build
 * writes 256 KiB (some 50-100 us with the allocation) and saves about 10 ns per element
 * over the gather search at these widths. */
#define LUT_MIN_BITS 6
#define LUT_MIN_N ((size_t)1 << 14)

/* The code_lut of the job's table for the kernels: the context's last one while the table
 * is the same (a layer calls with one table step after step, and the build was half the
 * time of 7-8-bit codes at 2^16 elements), else built anew, from LUT_MIN_N elements on.
 * NULL without memory: the kernels search instead. */
static const actq_fewbit_lut *cpu_code_lut(actq_cpu_state *st, const actq_fewbit_job *job) {
  const fewbit_table *t = job->table;
  size_t bytes;
  if (st->lut && actq_fewbit_lut_matches(st->lut, t->bounds, t->bits)) return st->lut;
  if (job->n < LUT_MIN_N) return NULL;
  bytes = actq_fewbit_lut_size(t->bounds, t->bits);
  if (bytes > st->lut_bytes) {
    free(st->lut);
    st->lut = (actq_fewbit_lut *)malloc(bytes);
    st->lut_bytes = st->lut ? bytes : 0;
    if (!st->lut) return NULL;
  }
  actq_fewbit_lut_build(st->lut, t->bounds, t->bits);
  return st->lut;
}

static actq_status cpu_fewbit_encode(actq_context *ctx, const actq_fewbit_job *job) {
  actq_cpu_state *st = actq_cpu(ctx);
  actq_fewbit_job j = *job;
  fewbit_task t = {st->kernels, &j};
  size_t nan;
  /* Before the threads start, and only for kernels that read it (the reference kernels
   * search). */
  const uint32_t lut_min_bits =
      st->kernels->fewbit_code_lut_min_bits ? st->kernels->fewbit_code_lut_min_bits : LUT_MIN_BITS;
  if (st->kernels->fewbit_encode != actq_ref_fewbit_encode && job->table->bits >= lut_min_bits &&
      !(st->kernels->fewbit_no_code_lut & (1u << job->dtype)))
    j.code_lut = cpu_code_lut(st, job);
  j.y_lut = actq_cpu_y_lut(st, job);
  nan = actq_cpu_parallel(st, (job->n + 7) / 8, units_per_chunk, 1, run_fewbit_encode, &t);
  return nan ? ACTQ_ERR_NONFINITE : ACTQ_OK;
}

static actq_status cpu_fewbit_backward(actq_context *ctx, const actq_fewbit_job *job) {
  fewbit_task t = {actq_cpu(ctx)->kernels, job};
  actq_cpu_parallel(actq_cpu(ctx), (job->n + 7) / 8, units_per_chunk, 1, run_fewbit_backward, &t);
  return ACTQ_OK;
}

/* ---- context ---------------------------------------------------------------------------- */

/* The description names what runs: the kernel table and the thread count. Renewed by every
 * change of either, so actq_context_describe never goes stale. */
static void cpu_describe(actq_context *ctx) {
  const actq_cpu_state *st = actq_cpu(ctx);
  snprintf(ctx->description, sizeof ctx->description, "cpu %s, %d thread%s", st->kernels->isa,
           st->threads, st->threads == 1 ? "" : "s");
}

static actq_status cpu_set_stream(actq_context *ctx, void *stream) {
  (void)ctx;
  (void)stream;
  return ACTQ_ERR_UNSUPPORTED;
}

static actq_status cpu_synchronize(actq_context *ctx) {
  (void)ctx;
  return ACTQ_OK;
}

static actq_status cpu_set_threads(actq_context *ctx, int threads) {
  actq_cpu_state *st = actq_cpu(ctx);
  int want;
  if (threads < 0) return ACTQ_ERR_INVALID_ARGUMENT;
  if (ctx->backend == ACTQ_BACKEND_CPU_REFERENCE) return ACTQ_OK; /* documented: stays 1 */
  want = actq_cpu_thread_count(threads);
  if (want != st->threads) { /* a pool of the new size starts at the next call */
    actq_cpu_pool_destroy(st->pool);
    st->pool = NULL;
    st->threads = want;
  }
  cpu_describe(ctx);
  return ACTQ_OK;
}

static void cpu_destroy(actq_context *ctx) {
  actq_cpu_state *st = actq_cpu(ctx);
  if (st) {
    actq_cpu_pool_destroy(st->pool);
    free(st->lut);
    actq_cpu_y_lut_clear(st);
  }
  free(st);
  ctx->state = NULL;
}

static const actq_backend_ops cpu_ops = {
    .quantize = cpu_quantize,
    .dequantize = cpu_dequantize,
    .pack = cpu_pack,
    .unpack = cpu_unpack,
    .fewbit_encode = cpu_fewbit_encode,
    .fewbit_backward = cpu_fewbit_backward,
    .set_threads = cpu_set_threads,
    .set_stream = cpu_set_stream,
    .synchronize = cpu_synchronize,
    .destroy = cpu_destroy,
};

actq_status actq_cpu_context_init(actq_context *ctx, int reference) {
  actq_cpu_state *st = (actq_cpu_state *)calloc(1, sizeof *st);
  if (!st) return ACTQ_ERR_OUT_OF_MEMORY;
  ctx->state = st;
  ctx->ops = &cpu_ops;
  st->kernels = reference ? &actq_cpu_reference_kernels : actq_cpu_select_kernels();
  /* The reference backend stays on the caller's thread; the pool starts with the first
   * call that needs it. */
  st->threads = reference ? 1 : actq_cpu_thread_count(0);
  cpu_describe(ctx);
  return ACTQ_OK;
}

actq_status actq_cpu_context_use_kernels(actq_context *ctx, const actq_cpu_kernels *kernels) {
  if (!ctx || !kernels || ctx->ops != &cpu_ops) return ACTQ_ERR_INVALID_ARGUMENT;
  actq_cpu(ctx)->kernels = kernels;
  actq_cpu_y_lut_clear(actq_cpu(ctx)); /* tables are written by the kernels that read them */
  cpu_describe(ctx);
  return ACTQ_OK;
}
