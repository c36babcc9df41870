/* dequantize.cu - y = fma(q, s, m) per element (shared actq_dequant), group by group.
 *
 * The same team layout as quantize (cuda/group_team.cuh), so each lane reads its
 * group's metadata once and then streams units: one packed word in, 8 values out
 * (16-byte vector stores where aligned). No reduction, so no team needs a barrier.
 */
#include "arith/bitstream.h"
#include "arith/quant.h"
#include "cuda/device_io.cuh"
#include "cuda/group_team.cuh"
#include "cuda/launch.h"
#include "cuda/unit_ops.cuh"
#include "cuda/state.h"

namespace {

using namespace actq_cuda_team;

using namespace actq_cuda_unit;

template <int DT, int TEAM, bool FAST>
__global__ void __launch_bounds__(ACTQ_CUDA_BLOCK) dequantize_kernel(const dequant_args a) {
  constexpr int PER_BLOCK = ACTQ_CUDA_BLOCK / TEAM;
  const size_t lane = threadIdx.x % TEAM;
  const size_t slot = threadIdx.x / TEAM;

  for (size_t first = (size_t)blockIdx.x * PER_BLOCK; first < a.grid.groups;
       first += (size_t)gridDim.x * PER_BLOCK) {
    dequantize_lane<DT, TEAM, FAST>(a, locate(a.grid, first + slot), lane);
  }
}

template <int DT, int TEAM>
void launch_team(const dequant_args &a, bool fast, unsigned blocks, cudaStream_t s) {
  if (fast)
    dequantize_kernel<DT, TEAM, true><<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a);
  else
    dequantize_kernel<DT, TEAM, false><<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a);
}

template <int DT>
void launch_dtype(const dequant_args &a, int team, bool fast, unsigned blocks, cudaStream_t s) {
  switch (team) {
    case 1: launch_team<DT, 1>(a, fast, blocks, s); break;
    case 2: launch_team<DT, 2>(a, fast, blocks, s); break;
    case 4: launch_team<DT, 4>(a, fast, blocks, s); break;
    case 8: launch_team<DT, 8>(a, fast, blocks, s); break;
    case 16: launch_team<DT, 16>(a, fast, blocks, s); break;
    case 32: launch_team<DT, 32>(a, fast, blocks, s); break;
    default: launch_team<DT, ACTQ_CUDA_BLOCK>(a, fast, blocks, s); break;
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
  a.meta_dtype = (int)gr->meta_dtype;
  a.y = job->y;

  const bool fast = gr->cols % 8 == 0 && ((uintptr_t)job->y % 16) == 0;
  /* Dequantize caches nothing; it uses the team sizes only (one unit a lane a step). */
  const int team = team_for(gr->group_size, 4).team;
  const unsigned blocks = blocks_for(a.grid.groups, team, st->sm_count);
  switch (job->y_dtype) {
    case ACTQ_F16: launch_dtype<ACTQ_ARITH_F16>(a, team, fast, blocks, st->stream); break;
    case ACTQ_BF16: launch_dtype<ACTQ_ARITH_BF16>(a, team, fast, blocks, st->stream); break;
    default: launch_dtype<ACTQ_ARITH_F32>(a, team, fast, blocks, st->stream); break;
  }
  return actq_cuda_launch_status(ctx);
}
