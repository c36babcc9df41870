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
#include "cuda/occupancy.cuh"
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

  group_walk w(a.grid, (size_t)blockIdx.x * PER_BLOCK + slot, (size_t)gridDim.x * PER_BLOCK);
  /* No reduction, so each team leaves the loop on its own. */
  for (; w.more(a.grid); w.next(a.grid)) dequantize_lane<DT, TEAM, FAST>(a, group_at(a.grid, w.row, w.gi), lane);
}

template <int DT, int TEAM, bool FAST>
void launch(const dequant_args &a, int sm_count, cudaStream_t s) {
  constexpr auto kernel = dequantize_kernel<DT, TEAM, FAST>;
  const unsigned blocks = blocks_for(a.grid.groups, TEAM, sm_count,
                                     actq_cuda_resident_per_sm<kernel>(ACTQ_CUDA_BLOCK));
  kernel<<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a);
}

template <int DT>
void launch_dtype(const dequant_args &a, int team, bool fast, int sm_count, cudaStream_t s) {
#define DQ(T) (fast ? launch<DT, T, true>(a, sm_count, s) : launch<DT, T, false>(a, sm_count, s))
  switch (team) {
    case 1: DQ(1); break;
    case 2: DQ(2); break;
    case 4: DQ(4); break;
    case 8: DQ(8); break;
    case 16: DQ(16); break;
    case 32: DQ(32); break;
    default: DQ(ACTQ_CUDA_BLOCK); break;
  }
#undef DQ
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
  const int team = team_for(gr->group_size);
  switch (job->y_dtype) {
    case ACTQ_F16: launch_dtype<ACTQ_ARITH_F16>(a, team, fast, st->sm_count, st->stream); break;
    case ACTQ_BF16: launch_dtype<ACTQ_ARITH_BF16>(a, team, fast, st->sm_count, st->stream); break;
    default: launch_dtype<ACTQ_ARITH_F32>(a, team, fast, st->sm_count, st->stream); break;
  }
  return actq_cuda_launch_status(ctx);
}
