/* dequantize.cu - y = fma(q, s, m) per element (shared actq_dequant), group by group.
 *
 * The same team layout as quantize (cuda/group_team.cuh), so each lane reads its
 * group's metadata once and then streams units: one packed word in, 8 values out
 * (16-byte vector stores where aligned). No reduction, so no team needs a barrier and
 * the team size is a run-time argument; the width is a template argument instead (when
 * all rows share it), which makes every shift and mask of the unpacking a constant, and
 * so is the metadata dtype of aligned calls (cuda/instances.cuh).
 */
#include "src/arith/bitstream.h"
#include "src/arith/quant.h"
#include "cuda/device_io.cuh"
#include "cuda/group_team.cuh"
#include "cuda/instances.cuh"
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

/* Units a dequantize lane owns at most: half of quantize's (ACTQ_CUDA_LANE_UNITS). On the
 * H200 (2026-12-04, groups of 256, scripts/device-ab) teams of 8 (4 units a lane) ran at
 * 74-80% of a copy for bf16 output where quantize's teams of 4 ran at 32-35%; teams of 16
 * and 32 at 72-81% and 49-62%; for f32, 49-55% against 44-47% (16: 47-56%, 32: 48-59%). */
#define DEQUANT_LANE_UNITS 4

/* The team of a call: the given one, doubled up to a warp while a lane would own more than
 * DEQUANT_LANE_UNITS units of a group (any wider team gives the same bytes). */
int dequantize_team(size_t group_size, int team) {
  const size_t units = (group_size + 7) / 8;
  while (team < 32 && units > (size_t)team * DEQUANT_LANE_UNITS) team *= 2;
  return team;
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

/* bits: the uniform width, or 0 for per-row widths; the instance of the call
 * (cuda/instances.cuh: the choice the host test walks too). */
template <actq_dtype DT>
void launch_dtype(const dequant_args &a, uint32_t bits, int team, bool fast, int sm_count,
                  cudaStream_t s) {
  actq_cuda_instance::dequantize<DT>(a, bits, fast, [&](auto bi, auto fa, auto md) {
    launch<DT, decltype(bi)::value, decltype(fa)::value, decltype(md)::value>(a, team, sm_count, s);
  });
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
  const int team = dequantize_team(gr->group_size, team_for_call(gr->group_size, a.grid.groups, st->sm_count));
  const uint32_t bits = gr->row_bits ? 0u : gr->bits;
  switch (job->y_dtype) {
    case ACTQ_F16: launch_dtype<ACTQ_F16>(a, bits, team, fast, st->sm_count, st->stream); break;
    case ACTQ_BF16: launch_dtype<ACTQ_BF16>(a, bits, team, fast, st->sm_count, st->stream); break;
    default: launch_dtype<ACTQ_F32>(a, bits, team, fast, st->sm_count, st->stream); break;
  }
  return actq_cuda_launch_status(ctx);
}
