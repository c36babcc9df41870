/* warp_tile.cuh - coalesced stores for kernels in which each thread produces one
 * contiguous run of NV 16-byte vectors (its chunk) and a warp's 32 chunks are adjacent:
 * the threads put their runs in the warp's shared-memory tile, then lane l stores the
 * warp's vectors l, l + 32, ..., so that each store instruction writes 512 contiguous
 * bytes. Stored straight, the k-th store of a warp writes 16 bytes into each of 32 lines
 * NV vectors apart: on the H200 (2026-12-04) the kernels that did so with 4 or 8 vectors
 * a thread (unpack, pack at 4 and 8 bits, fewbit_backward) ran at 15-57% of a device
 * copy, where the same kernels with 1 or 2 vectors a thread (pack at 1 and 2 bits)
 * reached 85%; their strided loads cost little (L1 keeps the lines), their stores did.
 *
 * Host builds (tests/cuda/test_unit_ops_host.cu) walk the same functions: every lane's
 * fill, then every lane's flush.
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
