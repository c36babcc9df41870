/* group_team.cuh - how quantize and dequantize map groups onto threads.
 *
 * A group of G elements is G/8 units (8 elements, one packed word each). A "team" of TEAM
 * threads (a power of two) owns one group at a time; its lanes take units lane,
 * lane + TEAM, ... (so a team's loads of one step are contiguous). A block of 256 threads
 * holds 256/TEAM teams; TEAM = 256 is a whole block per group, for large groups. The
 * launcher picks the smallest team that gives each lane at most LANE_UNITS units (64
 * elements: enough independent 16-byte loads in flight, and the per-group work of the
 * metadata spread over 64 elements a lane), up to a warp, and a block-team for groups of
 * more than 256 units. Blocks walk the groups with a grid-stride loop, with 64-bit
 * indices throughout; a team steps from group to group without a division
 * (group_walk).
 */
#ifndef ACTQ_CUDA_GROUP_TEAM_CUH
#define ACTQ_CUDA_GROUP_TEAM_CUH

#include <stdint.h>

#include <cmath>

#include <cub/block/block_reduce.cuh>

#include "src/arith/common.h"
#include "src/arith/half.h"
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

/* The group at row `row`, column group `gi` (valid when row < rows). */
__host__ __device__ __forceinline__ group_pos group_at(const group_grid &g, size_t row, size_t gi) {
  group_pos p;
  p.valid = row < g.rows;
  p.index = row * g.groups_per_row + gi;
  p.row = row;
  p.c0 = p.e0 = p.units = p.len = 0;
  if (p.valid) {
    p.c0 = gi * g.group_size;
    const size_t c1 = p.c0 + g.group_size < g.cols ? p.c0 + g.group_size : g.cols;
    p.len = c1 - p.c0;
    p.units = (p.len + 7) / 8;
    p.e0 = row * g.cols + p.c0;
  }
  return p;
}

/* A team's walk over groups first, first + stride, ...: the division of a group index
 * into (row, column group) once at the start, then one carry per step. */
struct group_walk {
  size_t row, gi;          /* the current group */
  size_t step_rows, step_gi; /* stride = step_rows * groups_per_row + step_gi */

  __host__ __device__ __forceinline__ group_walk(const group_grid &g, size_t first, size_t stride) {
    row = first / g.groups_per_row;
    gi = first - row * g.groups_per_row;
    step_rows = stride / g.groups_per_row;
    step_gi = stride - step_rows * g.groups_per_row;
  }
  /* The group index is row * groups_per_row + gi < groups exactly when row < rows. */
  __host__ __device__ __forceinline__ bool more(const group_grid &g) const { return row < g.rows; }
  __host__ __device__ __forceinline__ void next(const group_grid &g) {
    gi += step_gi;
    row += step_rows;
    if (gi >= g.groups_per_row) {
      gi -= g.groups_per_row;
      row++;
    }
  }
};

/* Elements of unit u of the group: 8, or fewer for the last unit of a short group. FAST
 * (cols a multiple of 8, so every group length is too): always 8. */
template <bool FAST = false>
__host__ __device__ __forceinline__ int unit_len(const group_pos &p, size_t u) {
  if (FAST) return 8;
  const size_t rest = p.len - 8 * u;
  return rest < 8 ? (int)rest : 8;
}

/* Minimum and maximum of a group, NaN-propagating: a NaN anywhere makes both NaN, an
 * Inf makes one of them infinite, so "every value finite" is isfinite(mn) && isfinite(mx)
 * and costs nothing per element. */
struct minmax {
  float mn, mx;
};

__host__ __device__ __forceinline__ minmax minmax_identity() {
  minmax m;
  m.mn = actq_f32_from_bits(0x7f800000u); /* +Inf */
  m.mx = actq_f32_from_bits(0xff800000u); /* -Inf */
  return m;
}

__host__ __device__ __forceinline__ int minmax_finite(const minmax &m) {
  return actq_f32_is_finite(m.mn) && actq_f32_is_finite(m.mx);
}

/* min/max with NaN propagation (one instruction each on sm_80 and later). */
__host__ __device__ __forceinline__ float fmin_nan(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return a != a ? a : b != b ? b : (a < b ? a : b);
#endif
}

__host__ __device__ __forceinline__ float fmax_nan(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  return a != a ? a : b != b ? b : (a > b ? a : b);
#endif
}

/* min/max of finite values are order-independent except for the sign of a zero, which
 * actq_group_meta_compute ignores (it stores m + 0 and compares mx == m), so any
 * reduction order gives the reference's metadata. */
struct minmax_op {
  __host__ __device__ __forceinline__ minmax operator()(const minmax &a, const minmax &b) const {
    minmax r;
    r.mn = fmin_nan(a.mn, b.mn);
    r.mx = fmax_nan(a.mx, b.mx);
    return r;
  }
};

__host__ __device__ __forceinline__ void minmax_add(minmax &m, const float v[8], int k) {
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) {
    if (j < k) {
      m.mn = fmin_nan(m.mn, v[j]);
      m.mx = fmax_nan(m.mx, v[j]);
    }
  }
}

/* Minmax of bfloat16 pairs (the two elements of a 32-bit word, each half on its own),
 * NaN-propagating: one instruction a pair on sm_80 and later (HMNMX2.BF16) against one an
 * element for floats. A bfloat16's float is exact and order-preserving, so the float
 * minmax of the two halves' results (to_minmax) is the elements' minmax. */
struct minmax_bf16x2 {
  uint32_t mn = 0x7f807f80u, mx = 0xff80ff80u; /* +Inf, -Inf in both halves */

  __host__ __device__ __forceinline__ void add(uint32_t w) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("min.NaN.bf16x2 %0, %1, %2;" : "=r"(mn) : "r"(mn), "r"(w));
    asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(mx) : "r"(mx), "r"(w));
#else
    mn = halves(fmin_nan(lo(mn), lo(w)), fmin_nan(hi(mn), hi(w)));
    mx = halves(fmax_nan(lo(mx), lo(w)), fmax_nan(hi(mx), hi(w)));
#endif
  }

  __host__ __device__ __forceinline__ minmax to_minmax() const {
    minmax m;
    m.mn = fmin_nan(lo(mn), hi(mn));
    m.mx = fmax_nan(lo(mx), hi(mx));
    return m;
  }

  static __host__ __device__ __forceinline__ float lo(uint32_t w) {
    return actq_bf16_to_f32((uint16_t)w);
  }
  static __host__ __device__ __forceinline__ float hi(uint32_t w) {
    return actq_bf16_to_f32((uint16_t)(w >> 16));
  }
  /* fmin_nan and fmax_nan return one of their operands, a bfloat16's float */
  static __host__ __device__ __forceinline__ uint32_t halves(float l, float h) {
    return actq_f32_bits(l) >> 16 | (actq_f32_bits(h) & 0xffff0000u);
  }
};

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

/* Units a lane keeps in registers between the reduction and the codes: 64 elements, so
 * that a lane's share of each group's fixed work (the team's reduction, the metadata,
 * addressing; as much as 4 to 8 instructions an element at 32) is spread over 64; the
 * cache takes 64 of quantize's at most 128 registers (2 blocks of 256 a SM), and its 16
 * independent 16-byte loads a lane (f32) keep enough bytes in flight at that occupancy. */
#define ACTQ_CUDA_LANE_UNITS 8

/* How many threads own a group: the smallest power of two up to a warp that leaves each
 * lane at most ACTQ_CUDA_LANE_UNITS units (several groups per warp for small groups);
 * larger groups get a whole block (each thread caching its first ACTQ_CUDA_LANE_UNITS
 * units, the rest read again, mostly from L1/L2). */
static inline int team_for(size_t group_size) {
  const size_t units = group_size / 8;
  if (units > 32 * ACTQ_CUDA_LANE_UNITS) return ACTQ_CUDA_BLOCK;
  const size_t lanes = (units + ACTQ_CUDA_LANE_UNITS - 1) / ACTQ_CUDA_LANE_UNITS;
  int team = 1;
  while ((size_t)team < lanes) team *= 2;
  return team;
}

/* The team of one call: team_for's, doubled (up to a warp) while the call has too few
 * groups to give every SM two blocks, so that a small call spreads over the device
 * instead of leaving most SMs idle. Any power of two >= team_for's gives the same bytes:
 * a lane's units are guarded, and min/max combine in any order. */
static inline int team_for_call(size_t group_size, size_t groups, int sm_count) {
  int team = team_for(group_size);
  const size_t want = 2 * (size_t)(sm_count > 0 ? sm_count : 1);
  while (team < 32 && (groups * (size_t)team + ACTQ_CUDA_BLOCK - 1) / ACTQ_CUDA_BLOCK < want)
    team *= 2;
  return team;
}

/* Blocks for a grid-stride loop over `groups` groups: one resident wave (resident blocks
 * per SM x SMs, from the occupancy calculator), never more than there is work, so that
 * no partial second wave leaves the device half idle at the end. */
static inline unsigned blocks_for(size_t groups, int team, int sm_count, int per_sm) {
  const size_t per_block = ACTQ_CUDA_BLOCK / (size_t)team;
  const size_t need = (groups + per_block - 1) / per_block;
  const size_t cap = (size_t)(sm_count > 0 ? sm_count : 1) * (size_t)(per_sm > 0 ? per_sm : 1);
  return (unsigned)(need < cap ? need : cap);
}

} /* namespace actq_cuda_team */

#endif /* ACTQ_CUDA_GROUP_TEAM_CUH */
