/* state.h - what a CUDA context owns (the context's `state`), and the helpers that every
 * launcher uses to reach it: the stream, the scratch areas and the error bookkeeping.
 *
 * Deferred errors: kernels cannot return a status, so a kernel that meets a data error
 * (a nonfinite group in quantize, a code out of range in pack) writes the status into the
 * device word `d_error` with atomicCAS(0 -> status). Kernels on one stream run in order,
 * so the word holds the first such error in stream order; actq_context_synchronize reads
 * it, clears it and returns it.
 */
#ifndef ACTQ_CUDA_STATE_H
#define ACTQ_CUDA_STATE_H

#include <cuda_runtime.h>

extern "C" {
#include "src/backend.h"
}

struct actq_cuda_state {
  int device;
  int sm_count;
  cudaStream_t own_stream; /* the non-blocking stream the context created */
  cudaStream_t stream;     /* where calls run: own_stream, or the user's */
  uint32_t *d_error;       /* first deferred actq_status in stream order, 0 = none */
  uint32_t *h_error;       /* pinned: where synchronize reads d_error back */
  /* Per-row tables for row_bits (device copy of row byte offsets, then widths). Grown
   * only when a call needs more; never freed per call. */
  void *d_scratch;
  size_t d_scratch_bytes;
  void *h_staging; /* pinned; the host side of the copy into d_scratch */
  size_t h_staging_bytes;
  cudaEvent_t staging_done; /* recorded after each copy out of h_staging */
  int staging_busy;         /* staging_done recorded and maybe not yet reached */
  char device_name[48];
};

static inline actq_cuda_state *actq_cuda(actq_context *ctx) {
  return (actq_cuda_state *)ctx->state;
}

/* Maps a CUDA error to a status and keeps its name and message in the context's
 * description (read with actq_context_describe). cudaSuccess maps to ACTQ_OK. */
actq_status actq_cuda_status(actq_context *ctx, cudaError_t e);

/* After a launch: the launch's own error, if any, as a status. */
actq_status actq_cuda_launch_status(actq_context *ctx);

/* Device copies of the per-row tables of a grid with row_bits: row_offset[rows] (bytes of
 * the packed stream before each row) followed by row_bits[rows]. Uploaded on the
 * context's stream; *d_offsets / *d_bits point into the context's scratch. */
actq_status actq_cuda_upload_rows(actq_context *ctx, const actq_grid *grid,
                                  const size_t **d_offsets, const uint8_t **d_bits);

namespace actq_cuda_team {
struct group_grid;
struct row_map;
}

/* The device view of a validated grid: its group geometry, and its row table (per-row
 * widths and offsets uploaded into the context's scratch). Shared by quantize and
 * dequantize. */
actq_status actq_cuda_grid_view(actq_context *ctx, const actq_grid *grid,
                                actq_cuda_team::group_grid *g, actq_cuda_team::row_map *rows);

#endif /* ACTQ_CUDA_STATE_H */
