/* pack_ops.cuh - what one thread of pack_kernel / unpack_kernel does, apart from the
 * thread mapping, so that the host test (tests/cuda/test_unit_ops_host.cu) walks the same
 * code serially against the reference.
 *
 * Mapping: thread c owns chunk c, PACK_CHUNK_UNITS consecutive units of 8 codes (128
 * codes, 16*bits packed bytes: both whole 16-byte vectors). When the launcher has found
 * both pointers 16-byte aligned (VEC), a full chunk is 8 vector loads and `bits` vector
 * stores (the reverse for unpack), all loads issued before the first use; the partial
 * last chunk, and every chunk of a misaligned call, go unit by unit through pack_unit /
 * unpack_unit, which work at any alignment and length. A warp whose 32 chunks are all
 * full and aligned loads and stores through its shared-memory tile (cuda/warp_tile.cuh,
 * the end of this file): unpack always, pack above 2 bits (at 1 and 2 bits a chunk's
 * output is 1 or 2 vectors, contiguous enough without it).
 */
#ifndef ACTQ_CUDA_PACK_OPS_CUH
#define ACTQ_CUDA_PACK_OPS_CUH

#include <stdint.h>

#include <type_traits>

#include "src/arith/bitstream.h"
#include "cuda/device_io.cuh"
#include "cuda/unroll.cuh"
#include "cuda/warp_tile.cuh"

#define PACK_CHUNK_UNITS 16

namespace actq_cuda_packing {

/* Unit u of actq_pack: returns nonzero when a code was >= 2^bits (it is masked, as the
 * reference masks it, so the bytes match for any input). */
__host__ __device__ __forceinline__ uint32_t pack_unit(uint32_t bits, size_t n,
                                                       const uint8_t *codes, uint8_t *packed,
                                                       size_t u) {
  const uint32_t mask = (1u << bits) - 1u;
  const size_t k = n - 8 * u < 8 ? n - 8 * u : 8;
  const uint8_t *p = codes + 8 * u;
  const uint64_t in = (k == 8 && (reinterpret_cast<uintptr_t>(p) & 7) == 0)
                          ? *reinterpret_cast<const uint64_t *>(p)
                          : actq_cuda_io::load_word(p, (uint32_t)k);
  uint32_t c[8], over = 0;
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) {
    const uint32_t code = (uint32_t)(in >> (8 * j)) & 0xffu; /* bytes past k are 0 */
    over |= code & ~mask;
    c[j] = code & mask;
  }
  actq_cuda_io::store_word(packed + u * bits, actq_pack_word(c, 8, bits),
                           (uint32_t)((k * bits + 7) / 8));
  return over;
}

/* Unit u of actq_unpack. */
__host__ __device__ __forceinline__ void unpack_unit(uint32_t bits, size_t n,
                                                     const uint8_t *packed, uint8_t *codes,
                                                     size_t u) {
  const size_t k = n - 8 * u < 8 ? n - 8 * u : 8;
  const uint64_t word = actq_cuda_io::load_word(packed + u * bits, (uint32_t)((k * bits + 7) / 8));
  uint64_t out = 0;
ACTQ_UNROLL
  for (int j = 0; j < 8; j++)
    if ((size_t)j < k) out |= (uint64_t)actq_unpack_code(word, j, bits) << (8 * j);
  actq_cuda_io::store_word(codes + 8 * u, out, (uint32_t)k);
}

/* The launchers' choice of the vector form: both streams 16-byte aligned. */
__host__ __device__ __forceinline__ bool pack_vec_ok(const void *a, const void *b) {
  return ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) & 15) == 0;
}

/* f(std::integral_constant<uint32_t, bits>()): one instantiation per width, shared by the
 * launchers and the host test. */
template <class F>
__host__ void with_bits(uint32_t bits, F &&f) {
  switch (bits) {
    case 1: f(std::integral_constant<uint32_t, 1>()); break;
    case 2: f(std::integral_constant<uint32_t, 2>()); break;
    case 3: f(std::integral_constant<uint32_t, 3>()); break;
    case 4: f(std::integral_constant<uint32_t, 4>()); break;
    case 5: f(std::integral_constant<uint32_t, 5>()); break;
    case 6: f(std::integral_constant<uint32_t, 6>()); break;
    case 7: f(std::integral_constant<uint32_t, 7>()); break;
    default: f(std::integral_constant<uint32_t, 8>()); break;
  }
}

/* Chunks of n codes (the last one may be partial); one thread each. */
__host__ __device__ __forceinline__ size_t pack_chunks(size_t n) {
  return (n + 8 * PACK_CHUNK_UNITS - 1) / (8 * PACK_CHUNK_UNITS);
}

/* Bytes [8u, 8u + 8) of a little-endian run of 32-bit words w, u constant after
 * unrolling, as one 64-bit word: the 8 codes of unit u (pack) or its 8 packed bytes at an
 * offset of bits*u (unpack). */
__host__ __device__ __forceinline__ uint64_t bytes_at(const uint32_t *w, uint32_t byte) {
  const uint32_t i = byte / 4, s = 8 * (byte % 4);
  const uint64_t lo = (uint64_t)w[i] | (uint64_t)w[i + 1] << 32;
  return s ? lo >> s | (uint64_t)w[i + 2] << (64 - s) : lo;
}

/* w[] |= the low 8*nbytes bits of v placed at byte offset `byte` (constant). */
__host__ __device__ __forceinline__ void bytes_put(uint32_t *w, uint32_t byte, uint64_t v) {
  const uint32_t i = byte / 4, s = 8 * (byte % 4);
  w[i] |= (uint32_t)(v << s);
  w[i + 1] |= (uint32_t)(v >> (32 - s));
  if (s) w[i + 2] |= (uint32_t)(v >> (64 - s));
}

/* A full chunk of actq_pack: its 8 vectors of codes at in (16-byte aligned), its BITS
 * output vectors to out(i, vector), which may overwrite in (every input is read first);
 * returns nonzero when a code was >= 2^BITS. */
template <uint32_t BITS, class Out>
__host__ __device__ __forceinline__ uint32_t pack_full(const uint4 *in, const Out &out) {
  uint32_t w[32 + 2], w_out[4 * BITS + 2], over = 0;
ACTQ_UNROLL
  for (int i = 0; i < 8; i++) {
    const uint4 v = in[i];
    w[4 * i] = v.x; w[4 * i + 1] = v.y; w[4 * i + 2] = v.z; w[4 * i + 3] = v.w;
  }
  w[32] = w[33] = 0;
ACTQ_UNROLL
  for (int i = 0; i < 4 * (int)BITS + 2; i++) w_out[i] = 0;
  /* A code >= 2^BITS has a bit outside the mask in its byte: one OR over all words. */
ACTQ_UNROLL
  for (int i = 0; i < 32; i++) over |= w[i];
  over &= ~(((1u << BITS) - 1u) * 0x01010101u);
ACTQ_UNROLL
  for (uint32_t u = 0; u < PACK_CHUNK_UNITS; u++) {
    const uint64_t in8 = bytes_at(w, 8 * u);
    uint32_t code[8];
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) code[j] = (uint32_t)(in8 >> (8 * j)) & ((1u << BITS) - 1u);
    bytes_put(w_out, BITS * u, actq_pack_word(code, 8, BITS));
  }
ACTQ_UNROLL
  for (uint32_t i = 0; i < BITS; i++)
    out(i, make_uint4(w_out[4 * i], w_out[4 * i + 1], w_out[4 * i + 2], w_out[4 * i + 3]));
  return over;
}

/* Chunk c of actq_pack at BITS bits; returns nonzero when a code was >= 2^BITS. */
template <uint32_t BITS, bool VEC>
__host__ __device__ __forceinline__ uint32_t pack_chunk(size_t n, const uint8_t *codes,
                                                        uint8_t *packed, size_t c) {
  const size_t u0 = c * PACK_CHUNK_UNITS;
  if constexpr (VEC)
    if (n / 8 >= u0 + PACK_CHUNK_UNITS)
      return pack_full<BITS>(reinterpret_cast<const uint4 *>(codes + 8 * u0),
                             actq_cuda_tile::direct_sink{reinterpret_cast<uint4 *>(packed + BITS * u0)});
  /* misaligned, or the partial last chunk */
  const size_t u1 = actq_cuda_io::chunk_end_unit(n, u0, PACK_CHUNK_UNITS);
  uint32_t over = 0;
  for (size_t u = u0; u < u1; u++) over |= pack_unit(BITS, n, codes, packed, u);
  return over;
}

/* A full chunk of actq_unpack: its BITS packed vectors at in (16-byte aligned), its 8
 * output vectors to out(i, vector), which may overwrite in (every input is read first). */
template <uint32_t BITS, class Out>
__host__ __device__ __forceinline__ void unpack_full(const uint4 *in, const Out &out) {
  uint32_t w[4 * BITS + 2], w_out[32 + 2];
ACTQ_UNROLL
  for (uint32_t i = 0; i < BITS; i++) {
    const uint4 v = in[i];
    w[4 * i] = v.x; w[4 * i + 1] = v.y; w[4 * i + 2] = v.z; w[4 * i + 3] = v.w;
  }
  w[4 * BITS] = w[4 * BITS + 1] = 0;
ACTQ_UNROLL
  for (int i = 0; i < 34; i++) w_out[i] = 0;
ACTQ_UNROLL
  for (uint32_t u = 0; u < PACK_CHUNK_UNITS; u++) {
    const uint64_t word = bytes_at(w, BITS * u);
    uint64_t codes8 = 0;
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) codes8 |= (uint64_t)actq_unpack_code(word, j, BITS) << (8 * j);
    bytes_put(w_out, 8 * u, codes8);
  }
ACTQ_UNROLL
  for (uint32_t i = 0; i < 8; i++)
    out(i, make_uint4(w_out[4 * i], w_out[4 * i + 1], w_out[4 * i + 2], w_out[4 * i + 3]));
}

/* Chunk c of actq_unpack at BITS bits. */
template <uint32_t BITS, bool VEC>
__host__ __device__ __forceinline__ void unpack_chunk(size_t n, const uint8_t *packed,
                                                      uint8_t *codes, size_t c) {
  const size_t u0 = c * PACK_CHUNK_UNITS;
  if constexpr (VEC)
    if (n / 8 >= u0 + PACK_CHUNK_UNITS)
      return unpack_full<BITS>(reinterpret_cast<const uint4 *>(packed + BITS * u0),
                               actq_cuda_tile::direct_sink{reinterpret_cast<uint4 *>(codes + 8 * u0)});
  const size_t u1 = actq_cuda_io::chunk_end_unit(n, u0, PACK_CHUNK_UNITS);
  for (size_t u = u0; u < u1; u++) unpack_unit(BITS, n, packed, codes, u);
}

/* ---- a warp of full chunks through its tile (cuda/warp_tile.cuh), both ways: the warp
 * loads its 32 chunks' input with contiguous 16-byte loads into the tile, each lane
 * packs (unpacks) its row in place, and the warp stores the tile contiguously. Loaded
 * straight, a thread's 8 vectors of codes (packed: `bits`) are 8 loads that each touch
 * 32 lines, which only L1 turns into whole-line traffic, and the tile itself takes most
 * of L1. The kernels, and the host test in the same order: every lane's load, every
 * lane's fill, every lane's flush. ---- */

/* Vectors in and out of a chunk; a tile row holds the larger. */
template <uint32_t BITS>
__host__ __device__ constexpr uint32_t packed_vectors() { return BITS; }
__host__ __device__ constexpr uint32_t code_vectors() { return 8; }
#define PACK_TILE_NV 8

/* Pack at 1 and 2 bits stores 1 or 2 vectors a chunk: contiguous enough without a tile. */
template <uint32_t BITS>
__host__ __device__ constexpr bool pack_tile_pays() { return BITS > 2; }

/* Vectors of the block's tiles (one per warp); 1 where no tile is used. */
__host__ __device__ constexpr uint32_t tile_vectors(bool used, uint32_t warps) {
  return used ? warps * actq_cuda_tile::warp_tile<PACK_TILE_NV>::VECTORS : 1u;
}

__host__ __device__ __forceinline__ size_t full_chunks(size_t n) {
  return n / (8 * PACK_CHUNK_UNITS);
}

template <uint32_t BITS, bool VEC>
__host__ __device__ __forceinline__ bool pack_tiled(size_t n, size_t c) {
  return VEC && pack_tile_pays<BITS>() && actq_cuda_tile::warp_chunks_full(c, full_chunks(n));
}

template <bool VEC>
__host__ __device__ __forceinline__ bool unpack_tiled(size_t n, size_t c) {
  return VEC && actq_cuda_tile::warp_chunks_full(c, full_chunks(n));
}

/* The first unit of chunk c's warp. */
__host__ __device__ __forceinline__ size_t warp_unit0(size_t c) {
  return (c & ~(size_t)31) * PACK_CHUNK_UNITS;
}

__host__ __device__ __forceinline__ uint4 *tile_row(uint4 *tile, uint32_t lane) {
  return actq_cuda_tile::tile_row<PACK_TILE_NV>(tile, lane);
}

template <uint32_t BITS>
__host__ __device__ __forceinline__ void pack_load(const uint8_t *codes, size_t c, uint4 *tile,
                                                   uint32_t lane) {
  actq_cuda_tile::warp_tile_load<code_vectors(), PACK_TILE_NV>(
      tile, lane, reinterpret_cast<const uint4 *>(codes + 8 * warp_unit0(c)));
}

/* Lane `lane` packs its row in place; returns nonzero when a code was >= 2^BITS. */
template <uint32_t BITS>
__host__ __device__ __forceinline__ uint32_t pack_fill(uint4 *tile, uint32_t lane) {
  return pack_full<BITS>(tile_row(tile, lane), actq_cuda_tile::direct_sink{tile_row(tile, lane)});
}

template <uint32_t BITS>
__host__ __device__ __forceinline__ void pack_flush(uint8_t *packed, size_t c, const uint4 *tile,
                                                    uint32_t lane) {
  actq_cuda_tile::warp_tile_flush<packed_vectors<BITS>(), PACK_TILE_NV>(
      tile, lane, reinterpret_cast<uint4 *>(packed + BITS * warp_unit0(c)));
}

template <uint32_t BITS>
__host__ __device__ __forceinline__ void unpack_load(const uint8_t *packed, size_t c, uint4 *tile,
                                                     uint32_t lane) {
  actq_cuda_tile::warp_tile_load<packed_vectors<BITS>(), PACK_TILE_NV>(
      tile, lane, reinterpret_cast<const uint4 *>(packed + BITS * warp_unit0(c)));
}

template <uint32_t BITS>
__host__ __device__ __forceinline__ void unpack_fill(uint4 *tile, uint32_t lane) {
  unpack_full<BITS>(tile_row(tile, lane), actq_cuda_tile::direct_sink{tile_row(tile, lane)});
}

__host__ __device__ __forceinline__ void unpack_flush(uint8_t *codes, size_t c, const uint4 *tile,
                                                      uint32_t lane) {
  actq_cuda_tile::warp_tile_flush<code_vectors(), PACK_TILE_NV>(
      tile, lane, reinterpret_cast<uint4 *>(codes + 8 * warp_unit0(c)));
}

} /* namespace actq_cuda_packing */

#endif /* ACTQ_CUDA_PACK_OPS_CUH */
