/* quantize_kernel.cuh - the fused group-quantization kernel and its launchers, included
 * by one translation unit per input dtype (quantize_f32.cu, ...) so that the builds of
 * their many instantiations (team x alignment x rounding) run in parallel.
 *
 * A team (cuda/group_team.cuh) loads its group's units (16-byte vectors where aligned),
 * reduces min/max, computes the metadata with the shared actq_group_meta_compute, then
 * turns each unit into codes (shared actq_code_* with the shared Philox noise) and
 * stores the unit's packed word (`bits` bytes) with one store where alignment allows. A
 * lane keeps its first ACTQ_CUDA_LANE_UNITS units in registers between the two steps, so
 * groups up to 16384 elements read x from memory once; larger groups read it again
 * (L1/L2). The rounding is a template parameter, so each kernel has one code path, and
 * the seed's Philox round keys are computed once per call on the host (kernel
 * parameters, read as constant operands). Aligned calls of teams of at most a warp also
 * have instances per metadata dtype and width (cuda/instances.cuh; cuda/unit_ops.cuh says
 * which), so that their body is the path they run.
 */
#ifndef ACTQ_CUDA_QUANTIZE_KERNEL_CUH
#define ACTQ_CUDA_QUANTIZE_KERNEL_CUH

#include "src/arith/bitstream.h"
#include "src/arith/quant.h"
#include "cuda/device_io.cuh"
#include "cuda/group_team.cuh"
#include "cuda/instances.cuh"
#include "cuda/occupancy.cuh"
#include "cuda/quantize_launch.h"
#include "cuda/state.h"
#include "cuda/unit_ops.cuh"

namespace {

using namespace actq_cuda_team;

using namespace actq_cuda_unit;

/* No minimum of resident blocks: forcing 4 (64 registers) spills the cached units to the
 * stack. At 2 blocks of 256 a SM (118-126 registers), each lane's 64 cached f32 elements
 * are 16 independent 16-byte loads: 128 KiB in flight a SM, more than the
 * bandwidth-latency product needs. */
template <actq_dtype DT, int TEAM, bool FAST, bool STOCH, int MDT = ANY_META, int BITS = 0>
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
    unit_cache<DT, CACHE> c;
    minmax m = quantize_lane_scan<DT, TEAM, CACHE, FAST>(a, p, lane, c);
    m = team_reduce<TEAM>(m);
    if (!p.valid) continue;
    actq_group_meta g;
    const uint32_t bits = quantize_group_meta<MDT, BITS>(a, p, m, lane == 0, &g);
    if (lane == 0 && g.nonfinite) atomicCAS(a.error, 0u, (uint32_t)ACTQ_ERR_NONFINITE);
    quantize_lane_codes<DT, TEAM, CACHE, FAST, STOCH, BITS != 0>(a, p, lane, g, bits, c);
  }
}

template <actq_dtype DT, int TEAM, bool FAST, bool STOCH, int MDT = ANY_META, int BITS = 0>
void launch(const quant_args &a, int sm_count, cudaStream_t s) {
  constexpr auto kernel = quantize_kernel<DT, TEAM, FAST, STOCH, MDT, BITS>;
  const unsigned blocks = blocks_for(a.grid.groups, TEAM, sm_count,
                                     actq_cuda_resident_per_sm<kernel>(ACTQ_CUDA_BLOCK));
  kernel<<<blocks, ACTQ_CUDA_BLOCK, 0, s>>>(a);
}

/* The instance of the call (cuda/instances.cuh: the choice the host test walks too). */
template <actq_dtype DT>
void launch_dtype(const quant_args &a, int team, bool fast, bool stoch, int sm_count,
                  cudaStream_t s) {
  actq_cuda_instance::quantize<DT>(a, team, fast, stoch, [&](auto tm, auto fa, auto st, auto md, auto bi) {
    launch<DT, decltype(tm)::value, decltype(fa)::value, decltype(st)::value, decltype(md)::value,
           decltype(bi)::value>(a, sm_count, s);
  });
}

} /* namespace */


/* The launcher of one input dtype, for quantize.cu. */
#define ACTQ_CUDA_QUANTIZE_LAUNCHER(NAME, DT)                                                \
  void NAME(const actq_cuda_unit::quant_args &a, int team, bool fast, bool stoch, int sm_count, \
            cudaStream_t s) {                                                                 \
    launch_dtype<DT>(a, team, fast, stoch, sm_count, s);                                      \
  }

#endif /* ACTQ_CUDA_QUANTIZE_KERNEL_CUH */
