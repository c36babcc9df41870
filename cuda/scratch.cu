/* scratch.cu - the per-row tables of row_bits, uploaded through the context's scratch.
 *
 * row_bits is host memory (contract, section 2). Kernels need each row's width and the
 * byte offset of its packed stream; the host computes the offsets (a prefix sum) into a
 * pinned staging buffer and copies both tables to device scratch on the context's
 * stream. Both buffers are reused across calls and grown only when a call needs more, so
 * steady-state calls allocate nothing. The staging buffer is rewritten only after the
 * previous copy out of it has completed (an event), and the device scratch only by copies
 * queued behind the kernels that read it (same stream; set_stream chains the streams).
 */
#include <stdlib.h>
#include <string.h>

#include "src/arith/bitstream.h"
#include "cuda/group_team.cuh"
#include "cuda/state.h"

static actq_status grow_staging(actq_context *ctx, size_t need) {
  actq_cuda_state *st = actq_cuda(ctx);
  void *p = NULL;
  cudaError_t e;
  if (st->h_staging_bytes >= need) return ACTQ_OK;
  if (need < 2 * st->h_staging_bytes) need = 2 * st->h_staging_bytes;
  e = cudaMallocHost(&p, need);
  if (e != cudaSuccess) return actq_cuda_status(ctx, e);
  if (st->h_staging) cudaFreeHost(st->h_staging); /* no copy is using it (caller waited) */
  st->h_staging = p;
  st->h_staging_bytes = need;
  return ACTQ_OK;
}

static actq_status grow_scratch(actq_context *ctx, size_t need) {
  actq_cuda_state *st = actq_cuda(ctx);
  void *p = NULL;
  cudaError_t e;
  if (st->d_scratch_bytes >= need) return ACTQ_OK;
  if (need < 2 * st->d_scratch_bytes) need = 2 * st->d_scratch_bytes;
  /* Kernels still reading the old tables must finish first (cudaFree waits for the
   * device as well; the explicit wait does not rely on it). Growth is rare: the tables
   * only grow. */
  if (st->d_scratch) {
    e = cudaStreamSynchronize(st->stream);
    if (e != cudaSuccess) return actq_cuda_status(ctx, e);
    e = cudaFree(st->d_scratch);
    st->d_scratch = NULL;
    st->d_scratch_bytes = 0;
    if (e != cudaSuccess) return actq_cuda_status(ctx, e);
  }
  e = cudaMalloc(&p, need);
  if (e != cudaSuccess) return actq_cuda_status(ctx, e);
  st->d_scratch = p;
  st->d_scratch_bytes = need;
  return ACTQ_OK;
}

actq_status actq_cuda_upload_rows(actq_context *ctx, const actq_grid *grid,
                                  const size_t **d_offsets, const uint8_t **d_bits) {
  actq_cuda_state *st = actq_cuda(ctx);
  const size_t rows = grid->rows;
  /* rows <= SIZE_MAX / 4 / cols (layout validation), so this cannot overflow. */
  const size_t need = rows * sizeof(size_t) + rows;
  size_t r, off = 0, *offsets;
  actq_status s;
  cudaError_t e;

  if (st->staging_busy) {
    e = cudaEventSynchronize(st->staging_done);
    if (e != cudaSuccess) return actq_cuda_status(ctx, e);
    st->staging_busy = 0;
  }
  s = grow_staging(ctx, need);
  if (s == ACTQ_OK) s = grow_scratch(ctx, need);
  if (s != ACTQ_OK) return s;

  offsets = (size_t *)st->h_staging;
  for (r = 0; r < rows; r++) {
    offsets[r] = off;
    off += actq_stream_bytes(grid->cols, grid->row_bits[r]);
  }
  memcpy((uint8_t *)st->h_staging + rows * sizeof(size_t), grid->row_bits, rows);

  e = cudaMemcpyAsync(st->d_scratch, st->h_staging, need, cudaMemcpyHostToDevice, st->stream);
  if (e == cudaSuccess) e = cudaEventRecord(st->staging_done, st->stream);
  if (e != cudaSuccess) return actq_cuda_status(ctx, e);
  st->staging_busy = 1;
  *d_offsets = (const size_t *)st->d_scratch;
  *d_bits = (const uint8_t *)st->d_scratch + rows * sizeof(size_t);
  return ACTQ_OK;
}

actq_status actq_cuda_grid_view(actq_context *ctx, const actq_grid *gr,
                                actq_cuda_team::group_grid *g, actq_cuda_team::row_map *rows) {
  g->rows = gr->rows;
  g->cols = gr->cols;
  g->group_size = gr->group_size;
  g->groups_per_row = gr->groups_per_row;
  g->groups = gr->rows * gr->groups_per_row;
  rows->offsets = NULL;
  rows->widths = NULL;
  rows->bits = gr->bits;
  rows->row_bytes = gr->row_bits ? 0 : actq_stream_bytes(gr->cols, gr->bits);
  if (!gr->row_bits) return ACTQ_OK;
  return actq_cuda_upload_rows(ctx, gr, &rows->offsets, &rows->widths);
}
