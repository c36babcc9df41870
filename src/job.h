/* job.h - a validated call, described once for every backend.
 *
 * The front end (api_*.c) checks arguments and fills a job; backends only execute jobs.
 * A job's arrays are whole-tensor pointers; kernels address rows and groups through the
 * helpers below, so that the row and group arithmetic lives in one place.
 */
#ifndef ACTQ_JOB_H
#define ACTQ_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "actq.h"
#include "src/arith/bitstream.h"
#include "fewbit.h"

typedef struct actq_grid {
  size_t rows, cols;
  size_t group_size;
  size_t groups_per_row;     /* ceil(cols / group_size) */
  uint32_t bits;             /* width of every row when row_bits == NULL */
  const uint8_t *row_bits;   /* or per-row widths */
  actq_dtype meta_dtype;
} actq_grid;

typedef struct actq_quant_job {
  actq_grid grid;
  actq_dtype x_dtype;
  const void *x;
  actq_rounding rounding;
  uint64_t seed, offset;
  uint8_t *packed;
  void *group_min, *group_scale;
} actq_quant_job;

typedef struct actq_dequant_job {
  actq_grid grid;
  const uint8_t *packed;
  const void *group_min, *group_scale;
  actq_dtype y_dtype;
  void *y;
} actq_dequant_job;

/* fewbit_encode (x -> codes, y) and fewbit_backward (codes, grad_out -> grad_in) over n
 * elements; the table is host memory and was validated. */
typedef struct actq_fewbit_job {
  const fewbit_table *table;
  size_t n;
  actq_dtype dtype;
  const void *x;
  void *y;              /* may be NULL */
  uint8_t *codes;       /* encode output */
  const uint8_t *codes_in;
  const void *grad_out;
  void *grad_in;
  /* encode: the constant-time code table of the bounds (src/fewbit/code_lut.h), when the
   * backend built one for this call; shared read-only by its threads. NULL: search. */
  const struct actq_fewbit_lut *code_lut;
  /* encode with y, 16-bit dtypes: y of every input, y_lut[x's bits] (cpu/y_lut.h), when
   * the backend keeps one for this activation; shared read-only by its threads. NULL:
   * compute y. */
  const uint16_t *y_lut;
} actq_fewbit_job;

static inline size_t actq_dtype_size(actq_dtype t) { return t == ACTQ_F32 ? 4 : 2; }

static inline uint32_t actq_grid_row_bits(const actq_grid *g, size_t r) {
  return g->row_bits ? g->row_bits[r] : g->bits;
}

/* Byte offset of row r in the packed stream: O(1) for uniform widths, O(r) otherwise
 * (callers walking rows in order keep a running offset instead). */
static inline size_t actq_grid_row_offset(const actq_grid *g, size_t r) {
  size_t i, off = 0;
  if (!g->row_bits) return r * actq_stream_bytes(g->cols, g->bits);
  for (i = 0; i < r; i++) off += actq_stream_bytes(g->cols, g->row_bits[i]);
  return off;
}

/* Elements [begin, end) of group gi in its row. */
static inline size_t actq_grid_group_begin(const actq_grid *g, size_t gi) {
  return gi * g->group_size;
}
static inline size_t actq_grid_group_end(const actq_grid *g, size_t gi) {
  size_t e = (gi + 1) * g->group_size;
  return e < g->cols ? e : g->cols;
}

#endif /* ACTQ_JOB_H */
