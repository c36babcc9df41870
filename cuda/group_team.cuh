/* group_team.cuh - how quantize and dequantize map groups onto threads.
 *
 * A group of G elements is G/8 units (8 elements, one packed word each). A "team" of TEAM
 * threads (a power of two) owns one group at a time; its lanes take units lane,
 * lane + TEAM, ... A block of 256 threads holds 256/TEAM teams; TEAM = 256 is a whole
 * block per group, for large groups. The launcher picks the smallest team that covers
 * the group's units (up to a warp), so that small groups do not leave lanes idle, and a
 * block-team for groups of more than 1024 elements. Blocks walk the groups with a
 * grid-stride loop, with 64-bit indices throughout.
 */
#ifndef ACTQ_CUDA_GROUP_TEAM_CUH
#define ACTQ_CUDA_GROUP_TEAM_CUH

#include <stdint.h>

#include <cmath>

#include <cub/block/block_reduce.cuh>

#include "arith/common.h"
#include "cuda/unroll.cuh"

#define ACTQ_CUDA_BLOCK 256

namespace actq_cuda_team {

/* Where each row's packed stream starts and how wide its codes are: uniform, or the
 * per-row tables uploaded from row_bits (cuda/scratch.cu). */
struct row_map {
  const size_t *offsets; /* NULL for a uniform width */
  const uint8_t *widths;
  size_t row_bytes;
  uint32_t bits;

  __host__ __device__ __forceinline__ size_t offset(size_t r) const {
    return offsets ? offsets[r] : r * row_bytes;
  }
  __host__ __device__ __forceinline__ uint32_t width(size_t r) const {
    return widths ? (uint32_t)widths[r] : bits;
  }
};

/* The geometry of a call: rows x cols in groups of G. */
struct group_grid {
  size_t rows, cols, group_size, groups_per_row, groups;
};

/* The group a team works on in one step of the grid-stride loop. */
struct group_pos {
  bool valid;    /* false for teams past the last group (they still join reductions) */
  size_t index;  /* flat group index r * groups_per_row + gi: the metadata entry */
  size_t row;
  size_t c0;     /* first column */
  size_t e0;     /* flat index of the first element: row * cols + c0 */
  size_t units;  /* ceil(group length / 8) */
  size_t len;    /* elements in the group */
};

__host__ __device__ __forceinline__ group_pos locate(const group_grid &g, size_t index) {
  group_pos p;
  p.valid = index < g.groups;
  p.index = index;
  p.row = p.c0 = p.e0 = p.units = p.len = 0;
  if (p.valid) {
    p.row = index / g.groups_per_row;
    const size_t gi = index - p.row * g.groups_per_row;
    p.c0 = gi * g.group_size;
    const size_t c1 = p.c0 + g.group_size < g.cols ? p.c0 + g.group_size : g.cols;
    p.len = c1 - p.c0;
    p.units = (p.len + 7) / 8;
    p.e0 = p.row * g.cols + p.c0;
  }
  return p;
}

/* Elements of unit u of the group: 8, or fewer for the last unit of a short group. */
__host__ __device__ __forceinline__ int unit_len(const group_pos &p, size_t u) {
  const size_t rest = p.len - 8 * u;
  return rest < 8 ? (int)rest : 8;
}

/* Minimum and maximum over the finite values, and whether every value was finite. */
struct minmax {
  float mn, mx;
  int finite;
};

__host__ __device__ __forceinline__ minmax minmax_identity() {
  minmax m;
  m.mn = actq_f32_from_bits(0x7f800000u); /* +Inf */
  m.mx = actq_f32_from_bits(0xff800000u); /* -Inf */
  m.finite = 1;
  return m;
}

/* min/max of finite values are order-independent except for the sign of a zero, which
 * actq_group_meta_compute ignores (it stores m + 0 and compares mx == m), so any
 * reduction order gives the reference's metadata. */
struct minmax_op {
  __host__ __device__ __forceinline__ minmax operator()(const minmax &a, const minmax &b) const {
    minmax r;
    r.mn = fminf(a.mn, b.mn);
    r.mx = fmaxf(a.mx, b.mx);
    r.finite = a.finite & b.finite;
    return r;
  }
};

__host__ __device__ __forceinline__ void minmax_add(minmax &m, const float v[8], int k) {
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) {
    if (j < k) {
      if (!actq_f32_is_finite(v[j])) {
        m.finite = 0;
      } else {
        m.mn = fminf(m.mn, v[j]);
        m.mx = fmaxf(m.mx, v[j]);
      }
    }
  }
}

/* The team's combined minmax, in every lane of the team. Teams of up to a warp use a
 * butterfly of shuffles (every lane needs the result; CUB's warp reduction leaves it in
 * lane 0 only); a block-team uses CUB's block reduction and broadcasts through shared
 * memory. Every thread of the block must call this (teams past the end included). */
template <int TEAM>
__device__ __forceinline__ minmax team_reduce(minmax m) {
  if constexpr (TEAM <= 32) {
ACTQ_UNROLL
    for (int o = TEAM / 2; o > 0; o /= 2) {
      minmax other;
      other.mn = __shfl_xor_sync(0xffffffffu, m.mn, o);
      other.mx = __shfl_xor_sync(0xffffffffu, m.mx, o);
      other.finite = __shfl_xor_sync(0xffffffffu, m.finite, o);
      m = minmax_op()(m, other);
    }
    return m;
  } else {
    typedef cub::BlockReduce<minmax, TEAM> reduce_t;
    __shared__ typename reduce_t::TempStorage tmp;
    __shared__ minmax result;
    const minmax all = reduce_t(tmp).Reduce(m, minmax_op());
    if (threadIdx.x == 0) result = all;
    __syncthreads();
    m = result;
    __syncthreads(); /* tmp and result are reused by the next group */
    return m;
  }
}

/* How many threads own a group (TEAM) and how many of a lane's units stay in registers
 * between reduction and coding (CACHE). A lane should load about 32 bytes per group for
 * enough bytes in flight: one unit of f32, two units of f16/bf16. Small groups get the
 * smallest power-of-two team up to a warp that covers them (no idle lanes, several groups
 * per warp); groups up to 4 units a lane of a warp stay a warp's; larger ones get a whole
 * block (its first 4 units a thread cached, the rest read again from L1/L2). */
struct team_config {
  int team, cache;
};

static inline team_config team_for(size_t group_size, size_t elem_bytes) {
  const size_t units = group_size / 8;
  const size_t per_lane = elem_bytes == 4 ? 1 : 2;
  team_config c;
  if (units <= 32 * per_lane) {
    const size_t lanes = (units + per_lane - 1) / per_lane;
    c.team = 1;
    while ((size_t)c.team < lanes) c.team *= 2;
    c.cache = (int)per_lane;
  } else if (units <= 128) {
    c.team = 32;
    c.cache = 4;
  } else {
    c.team = ACTQ_CUDA_BLOCK;
    c.cache = 4;
  }
  return c;
}

/* Blocks for a grid-stride loop over `groups` groups: enough to fill the device several
 * times over, never more than there is work. */
static inline unsigned blocks_for(size_t groups, int team, int sm_count) {
  const size_t per_block = ACTQ_CUDA_BLOCK / (size_t)team;
  size_t need = (groups + per_block - 1) / per_block;
  const size_t cap = (size_t)(sm_count > 0 ? sm_count : 1) * 32;
  return (unsigned)(need < cap ? need : cap);
}

} /* namespace actq_cuda_team */

#endif /* ACTQ_CUDA_GROUP_TEAM_CUH */
