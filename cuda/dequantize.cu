/* dequantize.cu - y = fma(q, s, m) per element (shared actq_dequant), group by group.
 *
 * The same team layout as quantize (cuda/group_team.cuh), so each lane reads its
 * group's metadata once and then streams units: one packed word in, 8 values out
 * (16-byte vector stores where aligned). No reduction, so no team needs a barrier and
 * the team size is a run-time argument; the width is a template argument instead (when
 * all rows share it), which makes every shift and mask of the unpacking a constant, and
 * so is the metadata dtype of aligned calls (launch_bits).
 */
#include "src/arith/bitstream.h"
#include "src/arith/quant.h"
#include "cuda/device_io.cuh"
#include "cuda/group_team.cuh"
#include "cuda/launch.h"
#include "cuda/occupancy.cuh"
#include "cuda/unit_ops.cuh"
#include "cuda/state.h"

namespace {

using namespace actq_cuda_team;

using namespace actq_cuda_unit;

/* team_log2: log2 of the team size (team_for); teams of a block walk their groups. */
template <actq_dtype DT, int BITS, bool FAST, int MDT>
__global__ void __launch_bounds__(ACTQ_CUDA_BLOCK) dequantize_kernel(const dequant_args a,
                                                                     unsigned team_log2) {
  const size_t team = (size_t)1 << team_log2, per_block = ACTQ_CUDA_BLOCK >> team_log2;
  const size_t lane = threadIdx.x & (team - 1), slot = threadIdx.x >> team_log2;
  group_walk w(a.grid, (size_t)blockIdx.x * per_block + slot, (size_t)gridDim.x * per_block);
  /* No reduction, so each team leaves the loop on its own. */
  for (; w.more(a.grid); w.next(a.grid))
    dequantize_lane<DT, BITS, FAST, MDT>(a, group_at(a.grid, w.row, w.gi), lane, team);
}

template <actq_dtype DT, int BITS, bool FAST, int MDT = ANY_META>
void launch(const dequant_args &a, int team, int sm_count, cudaStream_t s) {
  constexpr auto kernel = dequantize_kernel<DT, BITS, FAST, MDT>;
  unsigned team_log2 = 0;
  while ((1 << team_log2) < team) team_log2++;
  const unsigned blocks = blocks_for(a.grid.groups, team, sm_count,
                                     actq_cuda_resident_per_sm<kernel>(ACTQ_CUDA_BLOCK));
  kernel<<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a, team_log2);
}

/* Aligned calls of one width with float32 metadata or metadata of y's dtype
 * (dequantize_meta_instance: at widths 1, 2, 4 and 8 packed must be 8-byte aligned too)
 * have instances with the metadata dtype compiled in. */
template <actq_dtype DT, int BITS>
void launch_bits(const dequant_args &a, int team, bool fast, int sm_count, cudaStream_t s) {
  if (!fast) return launch<DT, BITS, false>(a, team, sm_count, s);
  if constexpr (BITS != 0) {
    const int mdt = dequantize_meta_instance(a.meta_dtype, DT, BITS, a.packed);
    if (mdt == ACTQ_F32) return launch<DT, BITS, true, ACTQ_F32>(a, team, sm_count, s);
    if constexpr (DT != ACTQ_F32)
      if (mdt == DT) return launch<DT, BITS, true, DT>(a, team, sm_count, s);
  }
  launch<DT, BITS, true>(a, team, sm_count, s);
}

/* bits: the uniform width, or 0 for per-row widths. */
template <actq_dtype DT>
void launch_dtype(const dequant_args &a, uint32_t bits, int team, bool fast, int sm_count,
                  cudaStream_t s) {
  switch (bits) {
    case 1: launch_bits<DT, 1>(a, team, fast, sm_count, s); break;
    case 2: launch_bits<DT, 2>(a, team, fast, sm_count, s); break;
    case 3: launch_bits<DT, 3>(a, team, fast, sm_count, s); break;
    case 4: launch_bits<DT, 4>(a, team, fast, sm_count, s); break;
    case 5: launch_bits<DT, 5>(a, team, fast, sm_count, s); break;
    case 6: launch_bits<DT, 6>(a, team, fast, sm_count, s); break;
    case 7: launch_bits<DT, 7>(a, team, fast, sm_count, s); break;
    case 8: launch_bits<DT, 8>(a, team, fast, sm_count, s); break;
    default: launch_bits<DT, 0>(a, team, fast, sm_count, s); break;
  }
}

} /* namespace */

actq_status actq_cuda_dequantize(actq_context *ctx, const actq_dequant_job *job) {
  actq_cuda_state *st = actq_cuda(ctx);
  const actq_grid *gr = &job->grid;
  dequant_args a;
  actq_status s;

  s = actq_cuda_grid_view(ctx, gr, &a.grid, &a.rows);
  if (s != ACTQ_OK) return s;
  a.packed = job->packed;
  a.group_min = job->group_min;
  a.group_scale = job->group_scale;
  a.meta_dtype = gr->meta_dtype;
  a.y = job->y;

  const bool fast = gr->cols % 8 == 0 && ((uintptr_t)job->y % 16) == 0;
  const int team = team_for_call(gr->group_size, a.grid.groups, st->sm_count);
  const uint32_t bits = gr->row_bits ? 0u : gr->bits;
  switch (job->y_dtype) {
    case ACTQ_F16: launch_dtype<ACTQ_F16>(a, bits, team, fast, st->sm_count, st->stream); break;
    case ACTQ_BF16: launch_dtype<ACTQ_BF16>(a, bits, team, fast, st->sm_count, st->stream); break;
    default: launch_dtype<ACTQ_F32>(a, bits, team, fast, st->sm_count, st->stream); break;
  }
  return actq_cuda_launch_status(ctx);
}
