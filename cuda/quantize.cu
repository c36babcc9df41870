/* quantize.cu - fused group quantization: one pass over x per group.
 *
 * A team (cuda/group_team.cuh) loads its group's units (16-byte vectors where aligned),
 * reduces min/max, computes the metadata with the shared actq_group_meta_compute, then
 * turns each unit into codes (shared actq_code_* with the shared Philox noise) and
 * stores the unit's packed word (`bits` bytes) with one store where alignment allows. A
 * lane keeps its first ACTQ_CUDA_LANE_UNITS units in registers between the two steps, so
 * groups up to 8192 elements read x from memory once; larger groups read it again
 * (L1/L2). The rounding is a template parameter, so each kernel has one code path, and
 * the seed's Philox round keys are computed once per call on the host (kernel
 * parameters, read as constant operands).
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

template <int DT, int TEAM, bool FAST, bool STOCH>
__global__ void __launch_bounds__(ACTQ_CUDA_BLOCK) quantize_kernel(const quant_args a) {
  constexpr int PER_BLOCK = ACTQ_CUDA_BLOCK / TEAM;
  constexpr int CACHE = ACTQ_CUDA_LANE_UNITS;
  const size_t lane = threadIdx.x % TEAM;
  const size_t slot = threadIdx.x / TEAM;

  const size_t stride = (size_t)gridDim.x * PER_BLOCK;
  group_walk w(a.grid, (size_t)blockIdx.x * PER_BLOCK + slot, stride);
  /* The loop is uniform over the block: teams past the last group still join the
   * reduction (full-warp shuffles, or the block-team's barrier). */
  for (size_t first = (size_t)blockIdx.x * PER_BLOCK; first < a.grid.groups; first += stride) {
    const group_pos p = group_at(a.grid, w.row, w.gi);
    w.next(a.grid);
    float v[CACHE][8];
    minmax m = quantize_lane_scan<DT, TEAM, CACHE, FAST>(a, p, lane, v);
    m = team_reduce<TEAM>(m);
    if (!p.valid) continue;
    actq_group_meta g;
    const uint32_t bits = quantize_group_meta(a, p, m, lane == 0, &g);
    if (lane == 0 && g.nonfinite) atomicCAS(a.error, 0u, (uint32_t)ACTQ_ERR_NONFINITE);
    quantize_lane_codes<DT, TEAM, CACHE, FAST, STOCH>(a, p, lane, g, bits, v);
  }
}

template <int DT, int TEAM, bool FAST, bool STOCH>
void launch(const quant_args &a, int sm_count, cudaStream_t s) {
  constexpr auto kernel = quantize_kernel<DT, TEAM, FAST, STOCH>;
  const unsigned blocks = blocks_for(a.grid.groups, TEAM, sm_count,
                                     actq_cuda_resident_per_sm<kernel>(ACTQ_CUDA_BLOCK));
  kernel<<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a);
}

template <int DT, int TEAM>
void launch_team(const quant_args &a, bool fast, bool stoch, int sm_count, cudaStream_t s) {
  if (fast) {
    if (stoch) launch<DT, TEAM, true, true>(a, sm_count, s);
    else launch<DT, TEAM, true, false>(a, sm_count, s);
  } else {
    if (stoch) launch<DT, TEAM, false, true>(a, sm_count, s);
    else launch<DT, TEAM, false, false>(a, sm_count, s);
  }
}

/* The teams team_for can return. */
template <int DT>
void launch_dtype(const quant_args &a, int team, bool fast, bool stoch, int sm_count,
                  cudaStream_t s) {
  switch (team) {
    case 1: launch_team<DT, 1>(a, fast, stoch, sm_count, s); break;
    case 2: launch_team<DT, 2>(a, fast, stoch, sm_count, s); break;
    case 4: launch_team<DT, 4>(a, fast, stoch, sm_count, s); break;
    case 8: launch_team<DT, 8>(a, fast, stoch, sm_count, s); break;
    case 16: launch_team<DT, 16>(a, fast, stoch, sm_count, s); break;
    case 32: launch_team<DT, 32>(a, fast, stoch, sm_count, s); break;
    default: launch_team<DT, ACTQ_CUDA_BLOCK>(a, fast, stoch, sm_count, s); break;
  }
}

} /* namespace */

actq_status actq_cuda_quantize(actq_context *ctx, const actq_quant_job *job) {
  actq_cuda_state *st = actq_cuda(ctx);
  const actq_grid *gr = &job->grid;
  quant_args a;
  actq_status s;

  s = actq_cuda_grid_view(ctx, gr, &a.grid, &a.rows);
  if (s != ACTQ_OK) return s;
  a.x = job->x;
  a.meta_dtype = (int)gr->meta_dtype;
  actq_noise_round_keys(job->seed, a.rk);
  a.offset = job->offset;
  a.packed = job->packed;
  a.group_min = job->group_min;
  a.group_scale = job->group_scale;
  a.error = st->d_error;

  /* Vector loads need every unit 16-byte aligned: x aligned, whole units per row. */
  const bool fast = gr->cols % 8 == 0 && ((uintptr_t)job->x % 16) == 0;
  const bool stoch = job->rounding == ACTQ_ROUND_STOCHASTIC;
  const int team = team_for(gr->group_size);
  switch (job->x_dtype) {
    case ACTQ_F16: launch_dtype<ACTQ_ARITH_F16>(a, team, fast, stoch, st->sm_count, st->stream); break;
    case ACTQ_BF16: launch_dtype<ACTQ_ARITH_BF16>(a, team, fast, stoch, st->sm_count, st->stream); break;
    default: launch_dtype<ACTQ_ARITH_F32>(a, team, fast, stoch, st->sm_count, st->stream); break;
  }
  return actq_cuda_launch_status(ctx);
}
