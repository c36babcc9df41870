/* warp_tile.cuh - contiguous global accesses for kernels in which each thread owns one
 * contiguous chunk of 16-byte vectors and a warp's 32 chunks are adjacent: the warp loads
 * its chunks' input into its shared-memory tile with loads that are 512 contiguous bytes
 * an instruction (lane l takes the warp's vectors l, l + 32, ...), each lane works on its
 * own row, and the warp stores the rows the same way. Straight, the k-th access of a warp
 * touches 32 lines, 16 bytes each. On the H200 (2026-12-04, bench/results/
 * NVIDIA-H200-2026-12-04-run6-ab.md) such stores held unpack at 18-26% of a device copy and
 * fewbit_backward at 33-49%, 92-97% and 85-92% through the tile; such loads cost little
 * while L1 kept the lines, but once the tiles took most of L1, pack and unpack at 8 bits
 * ran at 65-69% until their loads went through the tile too (97-99%).
 *
 * Host builds (tests/cuda/test_unit_ops_host.cu) walk the same functions: every lane's
 * load, then every lane's work on its row, then every lane's flush.
 */
#ifndef ACTQ_CUDA_WARP_TILE_CUH
#define ACTQ_CUDA_WARP_TILE_CUH

#include <stdint.h>

#include "cuda/unroll.cuh"

namespace actq_cuda_tile {

/* The tile of up to NV vectors a lane. Lanes' rows are an odd number of vectors apart, so
 * a quarter-warp's 16-byte accesses to one vector index of 8 rows fall in 8 different
 * bank groups. */
template <uint32_t NV>
struct warp_tile {
  static constexpr uint32_t STRIDE = NV % 2 ? NV : NV + 1;
  static constexpr uint32_t VECTORS = 32 * STRIDE;
};

/* Lane `lane`'s row of a tile of up to NV vectors a lane. */
template <uint32_t NV>
__host__ __device__ __forceinline__ uint4 *tile_row(uint4 *tile, uint32_t lane) {
  return tile + lane * warp_tile<NV>::STRIDE;
}

/* Where vector i of a chunk's output goes: a tile row, or straight to memory (a thread
 * that stores its own chunk: warps that are not whole, misaligned calls). */
struct direct_sink {
  uint4 *p;
  __host__ __device__ __forceinline__ void operator()(uint32_t i, const uint4 &v) const { p[i] = v; }
};

/* Vector j of a warp's run of chunks of N vectors each: its slot in a tile of up to TNV
 * vectors a row (row j / N, vector j % N). Lane l handles j = l, l + 32, ...: contiguous
 * in memory across the warp; in the tile 8 consecutive j (a quarter-warp) sit in at most
 * two rows (for N = 8, one), so at worst a two-way bank conflict. */
template <uint32_t N, uint32_t TNV>
__host__ __device__ __forceinline__ uint32_t tile_slot(uint32_t j) {
  return (j / N) * warp_tile<TNV>::STRIDE + j % N;
}

/* Lane `lane`'s share of loading the warp's 32 * N input vectors from src (16-byte
 * aligned) into the rows of the tile; the warp is synchronized before any lane reads its
 * row. */
template <uint32_t N, uint32_t TNV = N>
__host__ __device__ __forceinline__ void warp_tile_load(uint4 *tile, uint32_t lane, const uint4 *src) {
ACTQ_UNROLL
  for (uint32_t r = 0; r < N; r++) {
    const uint32_t j = lane + 32 * r;
    tile[tile_slot<N, TNV>(j)] = src[j];
  }
#if defined(__CUDA_ARCH__)
  __syncwarp();
#endif
}

/* Lane `lane`'s share of storing a filled tile, the rows' first N vectors, to dst (the
 * warp's first chunk's output, 16-byte aligned), after the warp is synchronized. */
template <uint32_t N, uint32_t TNV = N>
__host__ __device__ __forceinline__ void warp_tile_flush(const uint4 *tile, uint32_t lane, uint4 *dst) {
#if defined(__CUDA_ARCH__)
  __syncwarp();
#endif
ACTQ_UNROLL
  for (uint32_t r = 0; r < N; r++) {
    const uint32_t j = lane + 32 * r;
    dst[j] = tile[tile_slot<N, TNV>(j)];
  }
}

/* Whether every one of the 32 chunks of chunk c's warp (c & ~31 on) is full: the same
 * answer for every lane, so a warp takes the tile path together or not at all. */
__host__ __device__ __forceinline__ bool warp_chunks_full(size_t c, size_t full_chunks) {
  return (c | 31) < full_chunks;
}

} /* namespace actq_cuda_tile */

#endif /* ACTQ_CUDA_WARP_TILE_CUH */
