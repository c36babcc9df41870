/* pack.cu - actq_pack / actq_unpack on the device: one thread per chunk of 128 codes
 * (cuda/pack_ops.cuh), one kernel instantiation per width, so that every shift is a
 * constant; 16-byte vectors when the launcher finds both pointers 16-byte aligned, and
 * then a warp of full chunks loads and stores through its shared-memory tile
 * (cuda/warp_tile.cuh), so that each of its global accesses is 512 contiguous bytes.
 *
 * Pack masks every code to `bits` bits as the reference does (an invalid code never
 * spills into its neighbours, so the bytes equal the reference's for any input) and
 * reports a code >= 2^bits through the context's deferred error word: the call returns
 * ACTQ_OK and the next actq_context_synchronize returns ACTQ_ERR_INVALID_ARGUMENT.
 */
#include "cuda/launch.h"
#include "cuda/pack_ops.cuh"
#include "cuda/state.h"

#define PACK_BLOCK 256

namespace {

using namespace actq_cuda_packing;

/* A thread's own chunk, where its warp does not go through the tile: out of line, so that
 * the kernel's straight-line code is the tile path that large aligned calls run (and
 * the static model counts that path). */
template <uint32_t BITS, bool VEC>
__device__ __noinline__ uint32_t pack_own(size_t n, const uint8_t *codes, uint8_t *packed, size_t c) {
  return pack_chunk<BITS, VEC>(n, codes, packed, c);
}

template <uint32_t BITS, bool VEC>
__device__ __noinline__ void unpack_own(size_t n, const uint8_t *packed, uint8_t *codes, size_t c) {
  unpack_chunk<BITS, VEC>(n, packed, codes, c);
}

template <uint32_t BITS, bool VEC>
__global__ void __launch_bounds__(PACK_BLOCK)
pack_kernel(size_t n, const uint8_t *__restrict__ codes, uint8_t *__restrict__ packed,
            uint32_t *error) {
  __shared__ uint4 tiles[tile_vectors(pack_tile_pays<BITS>(), PACK_BLOCK / 32)];
  const size_t c = (size_t)blockIdx.x * PACK_BLOCK + threadIdx.x;
  const uint32_t lane = threadIdx.x % 32;
  uint32_t over = 0;
  if (pack_tiled<BITS, VEC>(n, c)) { /* false at compile time where no tile pays */
    uint4 *tile = tiles + threadIdx.x / 32 * actq_cuda_tile::warp_tile<PACK_TILE_NV>::VECTORS;
    pack_load<BITS>(codes, c, tile, lane);
    over = pack_fill<BITS>(tile, lane);
    pack_flush<BITS>(packed, c, tile, lane);
  } else if (c < pack_chunks(n)) {
    over = pack_tile_pays<BITS>() ? pack_own<BITS, VEC>(n, codes, packed, c) : pack_chunk<BITS, VEC>(n, codes, packed, c);
  }
  if (over) atomicCAS(error, 0u, (uint32_t)ACTQ_ERR_INVALID_ARGUMENT);
}

template <uint32_t BITS, bool VEC>
__global__ void __launch_bounds__(PACK_BLOCK)
unpack_kernel(size_t n, const uint8_t *__restrict__ packed, uint8_t *__restrict__ codes) {
  __shared__ uint4 tiles[tile_vectors(true, PACK_BLOCK / 32)];
  const size_t c = (size_t)blockIdx.x * PACK_BLOCK + threadIdx.x;
  const uint32_t lane = threadIdx.x % 32;
  if (unpack_tiled<VEC>(n, c)) {
    uint4 *tile = tiles + threadIdx.x / 32 * actq_cuda_tile::warp_tile<PACK_TILE_NV>::VECTORS;
    unpack_load<BITS>(packed, c, tile, lane);
    unpack_fill<BITS>(tile, lane);
    unpack_flush(codes, c, tile, lane);
  } else if (c < pack_chunks(n)) {
    unpack_own<BITS, VEC>(n, packed, codes, c);
  }
}

/* One thread per chunk, no grid-stride loop: 2^31 - 1 blocks cover 2^46 codes. */
unsigned blocks_for(size_t n) { return (unsigned)((pack_chunks(n) + PACK_BLOCK - 1) / PACK_BLOCK); }

} /* namespace */

actq_status actq_cuda_pack(actq_context *ctx, uint32_t bits, size_t n, const uint8_t *codes,
                           uint8_t *packed) {
  actq_cuda_state *st = actq_cuda(ctx);
  const bool vec = pack_vec_ok(codes, packed);
  with_bits(bits, [&](auto b) {
    if (vec)
      pack_kernel<b, true><<<blocks_for(n), PACK_BLOCK, 0, st->stream>>>(n, codes, packed, st->d_error);
    else
      pack_kernel<b, false><<<blocks_for(n), PACK_BLOCK, 0, st->stream>>>(n, codes, packed, st->d_error);
  });
  return actq_cuda_launch_status(ctx);
}

actq_status actq_cuda_unpack(actq_context *ctx, uint32_t bits, size_t n,
                             const uint8_t *packed, uint8_t *codes) {
  actq_cuda_state *st = actq_cuda(ctx);
  const bool vec = pack_vec_ok(codes, packed);
  with_bits(bits, [&](auto b) {
    if (vec)
      unpack_kernel<b, true><<<blocks_for(n), PACK_BLOCK, 0, st->stream>>>(n, packed, codes);
    else
      unpack_kernel<b, false><<<blocks_for(n), PACK_BLOCK, 0, st->stream>>>(n, packed, codes);
  });
  return actq_cuda_launch_status(ctx);
}
