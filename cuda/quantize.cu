/* quantize.cu - fused group quantization: one pass over x per group.
 *
 * A team (cuda/group_team.cuh) loads its group's units (16-byte vectors where aligned),
 * reduces min/max, computes the metadata with the shared actq_group_meta_compute, then
 * turns each unit into codes (shared actq_code_* with the shared Philox noise) and
 * stores the unit's packed word (`bits` bytes) with one store where alignment allows. A
 * lane keeps its first CACHE units in registers between the two steps, so groups up to
 * TEAM*CACHE*8 elements read x from memory once; larger groups read it again (L1/L2).
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

template <int DT, int TEAM, int CACHE, bool FAST>
__global__ void __launch_bounds__(ACTQ_CUDA_BLOCK) quantize_kernel(const quant_args a) {
  constexpr int PER_BLOCK = ACTQ_CUDA_BLOCK / TEAM;
  const size_t lane = threadIdx.x % TEAM;
  const size_t slot = threadIdx.x / TEAM;

  for (size_t first = (size_t)blockIdx.x * PER_BLOCK; first < a.grid.groups;
       first += (size_t)gridDim.x * PER_BLOCK) {
    const group_pos p = locate(a.grid, first + slot);
    float v[CACHE][8];
    minmax m = quantize_lane_scan<DT, TEAM, CACHE, FAST>(a, p, lane, v);
    m = team_reduce<TEAM>(m);
    if (!p.valid) continue; /* after the reduction: every thread of the block joins it */
    actq_group_meta g;
    const uint32_t bits = quantize_group_meta(a, p, m, lane == 0, &g);
    if (lane == 0 && g.nonfinite) atomicCAS(a.error, 0u, (uint32_t)ACTQ_ERR_NONFINITE);
    quantize_lane_codes<DT, TEAM, CACHE, FAST>(a, p, lane, g, bits, v);
  }
}

template <int DT, int TEAM, int CACHE>
void launch_team(const quant_args &a, bool fast, unsigned blocks, cudaStream_t s) {
  if (fast)
    quantize_kernel<DT, TEAM, CACHE, true><<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a);
  else
    quantize_kernel<DT, TEAM, CACHE, false><<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a);
}

/* The team configurations team_for can return for this element size. */
template <int DT>
void launch_dtype(const quant_args &a, team_config c, bool fast, unsigned blocks,
                  cudaStream_t s) {
  constexpr int PL = DT == ACTQ_ARITH_F32 ? 1 : 2; /* units a lane caches in small groups */
  if (c.team == ACTQ_CUDA_BLOCK) return launch_team<DT, ACTQ_CUDA_BLOCK, 4>(a, fast, blocks, s);
  if (c.cache == 4) return launch_team<DT, 32, 4>(a, fast, blocks, s);
  switch (c.team) {
    case 1: launch_team<DT, 1, PL>(a, fast, blocks, s); break;
    case 2: launch_team<DT, 2, PL>(a, fast, blocks, s); break;
    case 4: launch_team<DT, 4, PL>(a, fast, blocks, s); break;
    case 8: launch_team<DT, 8, PL>(a, fast, blocks, s); break;
    case 16: launch_team<DT, 16, PL>(a, fast, blocks, s); break;
    default: launch_team<DT, 32, PL>(a, fast, blocks, s); break;
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
  a.stochastic = job->rounding == ACTQ_ROUND_STOCHASTIC;
  a.seed = job->seed;
  a.offset = job->offset;
  a.packed = job->packed;
  a.group_min = job->group_min;
  a.group_scale = job->group_scale;
  a.error = st->d_error;

  /* Vector loads need every unit 16-byte aligned: x aligned, whole units per row. */
  const bool fast = gr->cols % 8 == 0 && ((uintptr_t)job->x % 16) == 0;
  const team_config team = team_for(gr->group_size, actq_dtype_size(job->x_dtype));
  const unsigned blocks = blocks_for(a.grid.groups, team.team, st->sm_count);
  switch (job->x_dtype) {
    case ACTQ_F16: launch_dtype<ACTQ_ARITH_F16>(a, team, fast, blocks, st->stream); break;
    case ACTQ_BF16: launch_dtype<ACTQ_ARITH_BF16>(a, team, fast, blocks, st->stream); break;
    default: launch_dtype<ACTQ_ARITH_F32>(a, team, fast, blocks, st->stream); break;
  }
  return actq_cuda_launch_status(ctx);
}
