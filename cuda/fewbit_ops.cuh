/* fewbit_ops.cuh - what one thread of the fewbit_encode / fewbit_backward kernels does,
 * apart from the thread mapping, so that the host test (tests/cuda/test_unit_ops_host.cu)
 * walks the same code serially against the reference. Every formula is the shared one of
 * src/arith: codes (actq_fewbit_code), y (actq_fewbit_forward), the gradient product
 * (actq_fewbit_grad), the packing (actq_pack_word / actq_unpack_code).
 *
 * Mapping: thread c owns chunk c, U units (chunk_units: 4 of f32 or f16, 8 of bf16), so
 * 8 (f16: 4) 16-byte vector loads of elements and U*BITS bytes
 * of codes, stored (loaded) as the widest vectors that divide them. VEC (chosen by the
 * launcher from the pointers' alignment, see *_vec_ok) takes that path for every full
 * chunk; the partial last chunk, and every chunk of a misaligned call, go unit by unit at
 * any alignment. BITS is a template parameter: constant shifts, a fully unrolled search.
 * y, when requested, is a second pass over the block's elements (encode_y).
 */
#ifndef ACTQ_CUDA_FEWBIT_OPS_CUH
#define ACTQ_CUDA_FEWBIT_OPS_CUH

#include <stdint.h>

#include <type_traits>

#include "src/arith/bitstream.h"
#include "src/arith/fewbit_elem.h"
#include "cuda/device_io.cuh"
#include "cuda/pack_ops.cuh"
#include "cuda/unroll.cuh"

/* Threads per block of both kernels. */
#define FEWBIT_BLOCK 256

namespace actq_cuda_fewbit {

using actq_cuda_packing::bytes_at;
using actq_cuda_packing::bytes_put;

/* Units per chunk: 128 bytes of f32 or bf16 elements; 64 bytes of f16, whose software
 * conversions need the registers that 64 elements in flight would take (they spill at
 * the 64-register cap). */
template <actq_dtype DT>
__host__ __device__ constexpr uint32_t chunk_units() {
  return DT == ACTQ_BF16 ? 8u : 4u;
}

/* Vectors of a chunk's elements (also grad_in's, for backward). */
template <actq_dtype DT>
__host__ __device__ constexpr uint32_t chunk_vectors() {
  return chunk_units<DT>() * actq_cuda_io::unit_vectors<DT>();
}

/* The vector that moves a chunk's codes (chunk_units * BITS bytes, a multiple of 4). */
__host__ __device__ constexpr uint32_t code_vec_bytes(uint32_t bytes) {
  return bytes % 16 == 0 ? 16u : bytes % 8 == 0 ? 8u : 4u;
}

template <uint32_t BYTES>
__host__ __device__ __forceinline__ void store_code_words(uint8_t *p, const uint32_t *w) {
  constexpr uint32_t V = code_vec_bytes(BYTES);
ACTQ_UNROLL
  for (uint32_t i = 0; i < BYTES / 4; i += V / 4) {
    if (V == 16) *reinterpret_cast<uint4 *>(p + 4 * i) = make_uint4(w[i], w[i + 1], w[i + 2], w[i + 3]);
    else if (V == 8) *reinterpret_cast<uint2 *>(p + 4 * i) = make_uint2(w[i], w[i + 1]);
    else *reinterpret_cast<uint32_t *>(p + 4 * i) = w[i];
  }
}

template <uint32_t BYTES>
__host__ __device__ __forceinline__ void load_code_words(const uint8_t *p, uint32_t *w) {
  constexpr uint32_t V = code_vec_bytes(BYTES);
ACTQ_UNROLL
  for (uint32_t i = 0; i < BYTES / 4; i += V / 4) {
    if (V == 16) {
      const uint4 v = *reinterpret_cast<const uint4 *>(p + 4 * i);
      w[i] = v.x; w[i + 1] = v.y; w[i + 2] = v.z; w[i + 3] = v.w;
    } else if (V == 8) {
      const uint2 v = *reinterpret_cast<const uint2 *>(p + 4 * i);
      w[i] = v.x; w[i + 1] = v.y;
    } else {
      w[i] = *reinterpret_cast<const uint32_t *>(p + 4 * i);
    }
  }
}

__host__ __device__ __forceinline__ bool aligned(const void *p, uintptr_t a) {
  return (reinterpret_cast<uintptr_t>(p) & (a - 1)) == 0;
}

__host__ __device__ __forceinline__ size_t chunks(size_t n, uint32_t units) {
  return (n + 8 * units - 1) / (8 * units);
}

struct encode_args {
  const float *bounds; /* 2^BITS - 1 of them in level order (level_order_bounds): shared
                          memory in the kernel */
  int act;
  float param;
  size_t n;
  const void *x;
  void *y;
  uint8_t *codes;
};

struct backward_args {
  const float *levels; /* 2^BITS: shared memory in the kernel */
  size_t n;
  const uint8_t *codes;
  const void *grad_out;
  void *grad_in;
};

/* out[i] = the bound of slot i of the level order (actq_fewbit_level_slot_bound), which
 * the search of every lane reads: at 8 bits, in bound order a warp's lanes met up to 8-way
 * bank conflicts at five of the eight steps. */
__host__ __device__ __forceinline__ void level_order_bounds(const float *bounds, uint32_t bits,
                                                            float *out) {
  for (uint32_t i = 0; i + 1 < (1u << bits); i++) out[i] = bounds[actq_fewbit_level_slot_bound(bits, i)];
}

template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ bool encode_vec_ok(const void *x, const void *codes) {
  return aligned(x, 16) && aligned(codes, code_vec_bytes(chunk_units<DT>() * BITS));
}

template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ bool backward_vec_ok(const void *codes, const void *g,
                                                         const void *gin) {
  return aligned(g, 16) && aligned(gin, 16) &&
         aligned(codes, code_vec_bytes(chunk_units<DT>() * BITS));
}

/* Codes of unit u at any alignment (k <= 8 elements); returns nonzero when x held a NaN. */
template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ int encode_unit(const encode_args &a, size_t u) {
  const int k = a.n - 8 * u < 8 ? (int)(a.n - 8 * u) : 8;
  float v[8];
  uint32_t c[8];
  int nan = 0;
  actq_cuda_io::load_unit<DT, false>(a.x, 8 * u, k, v);
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) {
    nan |= j < k && v[j] != v[j];
    c[j] = j < k ? actq_fewbit_code_level_order(a.bounds, BITS, v[j]) : 0u;
  }
  actq_cuda_io::store_word(a.codes + u * BITS, actq_pack_word(c, 8, BITS), ((uint32_t)k * BITS + 7) / 8);
  return nan;
}

/* Codes of a full chunk: its x, vectors at `x` (in memory or a tile row), its codes to
 * `codes` (in memory or the same row: every x is read before the first code is written),
 * both aligned for vectors. */
template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ int encode_full(const uint4 *x, uint8_t *codes,
                                                    const float *bounds) {
  constexpr uint32_t U = chunk_units<DT>(), UV = actq_cuda_io::unit_vectors<DT>();
  int nan = 0;
  float v[U][8];
ACTQ_UNROLL
  for (uint32_t u = 0; u < U; u++) actq_cuda_io::unit_from_vectors<DT>(x + UV * u, v[u]);
  uint32_t w[U * BITS / 4 + 2];
ACTQ_UNROLL
  for (uint32_t i = 0; i < U * BITS / 4 + 2; i++) w[i] = 0;
ACTQ_UNROLL
  for (uint32_t u = 0; u < U; u++) {
    uint32_t code[8];
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) {
      nan |= v[u][j] != v[u][j];
      code[j] = actq_fewbit_code_level_order(bounds, BITS, v[u][j]);
    }
    bytes_put(w, BITS * u, actq_pack_word(code, 8, BITS));
  }
  store_code_words<U * BITS>(codes, w);
  return nan;
}

/* Codes of chunk c of fewbit_encode; returns nonzero when x held a NaN. */
template <actq_dtype DT, uint32_t BITS, bool VEC>
__host__ __device__ __forceinline__ int encode_chunk(const encode_args &a, size_t c) {
  constexpr uint32_t U = chunk_units<DT>();
  const size_t u0 = c * U;
  if constexpr (VEC)
    if (a.n / 8 >= u0 + U)
      return encode_full<DT, BITS>(reinterpret_cast<const uint4 *>(a.x) + c * chunk_vectors<DT>(),
                                   a.codes + u0 * BITS, a.bounds);
  /* misaligned, or the partial last chunk */
  const size_t u1 = actq_cuda_io::chunk_end_unit(a.n, u0, U);
  int nan = 0;
  for (size_t u = u0; u < u1; u++) nan |= encode_unit<DT, BITS>(a, u);
  return nan;
}

/* ---- fewbit_encode, a warp of full chunks through its tile (cuda/warp_tile.cuh): the
 * warp loads its chunks' x (each 128 bytes, f16 64, so straight loads would be strided),
 * each lane encodes its row, and where a chunk's codes are whole vectors and more than one
 * (f32 at 8 bits, bf16 at 4, 6, 8), they leave through the tile too. */

/* Vectors of a chunk's codes when they go through the tile; 0 when they go straight. */
template <actq_dtype DT, uint32_t BITS>
__host__ __device__ constexpr uint32_t encode_code_vectors() {
  return chunk_units<DT>() * BITS % 16 == 0 && chunk_units<DT>() * BITS > 16 ? chunk_units<DT>() * BITS / 16 : 0u;
}

/* Whether chunk c's warp goes through its tile (encode and backward alike): aligned, and
 * its 32 chunks full. */
template <actq_dtype DT, bool VEC>
__host__ __device__ __forceinline__ bool chunk_tiled(size_t n, size_t c) {
  return VEC && actq_cuda_tile::warp_chunks_full(c, n / (8 * chunk_units<DT>()));
}

/* The first chunk of chunk c's warp. */
__host__ __device__ __forceinline__ size_t warp_chunk0(size_t c) { return c & ~(size_t)31; }

template <actq_dtype DT>
__host__ __device__ __forceinline__ void encode_load(const encode_args &a, size_t c, uint4 *tile,
                                                     uint32_t lane) {
  constexpr uint32_t NV = chunk_vectors<DT>();
  actq_cuda_tile::warp_tile_load<NV>(tile, lane, reinterpret_cast<const uint4 *>(a.x) + warp_chunk0(c) * NV);
}

/* Lane `lane` encodes its row: codes into the row (encode_code_vectors) or to memory.
 * Returns nonzero when x held a NaN. */
template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ int encode_fill(const encode_args &a, size_t c, uint4 *tile,
                                                    uint32_t lane) {
  uint4 *row = actq_cuda_tile::tile_row<chunk_vectors<DT>()>(tile, lane);
  uint8_t *out = encode_code_vectors<DT, BITS>() ? reinterpret_cast<uint8_t *>(row)
                                                 : a.codes + c * chunk_units<DT>() * BITS;
  return encode_full<DT, BITS>(row, out, a.bounds);
}

template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ void encode_flush(const encode_args &a, size_t c,
                                                      const uint4 *tile, uint32_t lane) {
  constexpr uint32_t CV = encode_code_vectors<DT, BITS>();
  if constexpr (CV != 0)
    actq_cuda_tile::warp_tile_flush<CV, chunk_vectors<DT>()>(
        tile, lane, reinterpret_cast<uint4 *>(a.codes + warp_chunk0(c) * chunk_units<DT>() * BITS));
}

/* The activations whose y has kernels of their own, the ones that matter for throughput:
 * compiled in, y's code is that one formula, where the kernel of a run-time activation
 * (ACT 0, every other activation and misaligned calls) carries a switch over all of them.
 * fewbit.cu launches, and the host test walks, the instance this picks. */
template <class F>
__host__ void with_y_act(int act, bool vec, F &&f) {
  switch (vec ? act : 0) {
    case ACTQ_ACT_GELU: f(std::integral_constant<int, ACTQ_ACT_GELU>()); break;
    case ACTQ_ACT_GELU_TANH: f(std::integral_constant<int, ACTQ_ACT_GELU_TANH>()); break;
    case ACTQ_ACT_SILU: f(std::integral_constant<int, ACTQ_ACT_SILU>()); break;
    case ACTQ_ACT_SIGMOID: f(std::integral_constant<int, ACTQ_ACT_SIGMOID>()); break;
    case ACTQ_ACT_TANH: f(std::integral_constant<int, ACTQ_ACT_TANH>()); break;
    default: f(std::integral_constant<int, 0>()); break;
  }
}

/* Vector y pass: x (encode_vec_ok) and y 16-byte aligned as well. */
template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ bool encode_y_vec_ok(const void *x, const void *y,
                                                         const void *codes) {
  return encode_vec_ok<DT, BITS>(x, codes) && aligned(y, 16);
}

/* y of element e: the activation ACT, or the table's (ACT 0). */
template <actq_dtype DT, int ACT>
__host__ __device__ __forceinline__ float y_of(const encode_args &a, float x) {
  return actq_fewbit_forward(ACT ? ACT : a.act, a.param, x);
}

/* y for the elements [e0, e1) of a block's chunks that lane `lane` of `lanes` owns in the
 * second pass of an encode with y: lane, lane + lanes, ... A separate pass keeps a
 * single copy of the activation's code per kernel and its loads and stores coalesced;
 * its x comes back from L1/L2. */
template <actq_dtype DT, int ACT>
__host__ __device__ __forceinline__ void encode_y(const encode_args &a, size_t e0, size_t e1,
                                                  size_t lane, size_t lanes) {
  for (size_t e = e0 + lane; e < e1; e += lanes)
    actq_store_elem(a.y, DT, e, y_of<DT, ACT>(a, actq_load_elem(a.x, DT, e)));
}

/* Thread `lane` of block `block`'s share of the y pass: the elements of the block's
 * chunks. VEC (x and y aligned, encode_y_vec_ok): whole units as 16-byte vectors, unit
 * lane, lane + FEWBIT_BLOCK, ... (a warp's loads and stores are contiguous), the call's
 * partial last unit element by element. */
template <actq_dtype DT, int ACT, bool VEC>
__host__ __device__ __forceinline__ void encode_y_block(const encode_args &a, size_t block,
                                                        size_t lane) {
  const size_t span = (size_t)FEWBIT_BLOCK * chunk_units<DT>() * 8, e0 = block * span;
  const size_t e1 = a.n - e0 < span ? a.n : e0 + span;
  size_t tail = e0;
  if constexpr (VEC) {
    for (size_t u = e0 / 8 + lane; u < e1 / 8; u += FEWBIT_BLOCK) {
      float v[8];
      actq_cuda_io::load_unit<DT, true>(a.x, 8 * u, 8, v);
ACTQ_UNROLL
      for (int j = 0; j < 8; j++) v[j] = y_of<DT, ACT>(a, v[j]);
      actq_cuda_io::store_unit<DT, true>(a.y, 8 * u, 8, v);
    }
    tail = e1 / 8 * 8;
  }
  encode_y<DT, ACT>(a, tail, e1, lane, FEWBIT_BLOCK);
}

/* Unit u at any alignment (k <= 8 elements). */
template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ void backward_unit(const backward_args &a, size_t u) {
  const int k = a.n - 8 * u < 8 ? (int)(a.n - 8 * u) : 8;
  const uint64_t word = actq_cuda_io::load_word(a.codes + u * BITS, ((uint32_t)k * BITS + 7) / 8);
  float g[8];
  actq_cuda_io::load_unit<DT, false>(a.grad_out, 8 * u, k, g);
ACTQ_UNROLL
  for (int j = 0; j < 8; j++) g[j] = actq_fewbit_grad(g[j], a.levels[actq_unpack_code(word, j, BITS)]);
  actq_cuda_io::store_unit<DT, false>(a.grad_in, 8 * u, k, g);
}

/* A full chunk from unit u0 on, codes and grad_out aligned for vectors; its grad_in
 * vectors (chunk_units * unit_vectors of them) go to out(i, vector). */
template <actq_dtype DT, uint32_t BITS, class Out>
__host__ __device__ __forceinline__ void backward_full(const backward_args &a, size_t u0,
                                                       const Out &out) {
  constexpr uint32_t U = chunk_units<DT>(), UV = actq_cuda_io::unit_vectors<DT>();
  uint32_t w[U * BITS / 4 + 2];
  load_code_words<U * BITS>(a.codes + u0 * BITS, w);
  w[U * BITS / 4] = w[U * BITS / 4 + 1] = 0;
  float g[U][8];
ACTQ_UNROLL
  for (uint32_t u = 0; u < U; u++) actq_cuda_io::load_unit<DT, true>(a.grad_out, 8 * (u0 + u), 8, g[u]);
ACTQ_UNROLL
  for (uint32_t u = 0; u < U; u++) {
    const uint64_t word = bytes_at(w, BITS * u);
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) g[u][j] = actq_fewbit_grad(g[u][j], a.levels[actq_unpack_code(word, j, BITS)]);
    uint4 v[UV];
    actq_cuda_io::unit_to_vectors<DT>(g[u], v);
ACTQ_UNROLL
    for (uint32_t i = 0; i < UV; i++) out(UV * u + i, v[i]);
  }
}

/* Chunk c of fewbit_backward. */
template <actq_dtype DT, uint32_t BITS, bool VEC>
__host__ __device__ __forceinline__ void backward_chunk(const backward_args &a, size_t c) {
  constexpr uint32_t U = chunk_units<DT>();
  const size_t u0 = c * U;
  if constexpr (VEC)
    if (a.n / 8 >= u0 + U)
      return backward_full<DT, BITS>(
          a, u0, actq_cuda_tile::direct_sink{reinterpret_cast<uint4 *>(
                     static_cast<uint8_t *>(a.grad_in) + 8 * u0 * actq_cuda_io::elem_bytes<DT>())});
  const size_t u1 = actq_cuda_io::chunk_end_unit(a.n, u0, U);
  for (size_t u = u0; u < u1; u++) backward_unit<DT, BITS>(a, u);
}

/* ---- fewbit_backward, a warp of full chunks through its tile (cuda/warp_tile.cuh): the
 * kernel, and the host test in the same order (every lane's fill, then every lane's
 * flush). A chunk's grad_in is 128 bytes (f16: 64), so straight stores would be strided. */

template <actq_dtype DT, uint32_t BITS>
__host__ __device__ __forceinline__ void backward_fill(const backward_args &a, size_t c,
                                                       uint4 *tile, uint32_t lane) {
  backward_full<DT, BITS>(a, c * chunk_units<DT>(),
                          actq_cuda_tile::direct_sink{actq_cuda_tile::tile_row<chunk_vectors<DT>()>(tile, lane)});
}

template <actq_dtype DT>
__host__ __device__ __forceinline__ void backward_flush(const backward_args &a, size_t c,
                                                        const uint4 *tile, uint32_t lane) {
  const size_t e0 = 8 * warp_chunk0(c) * chunk_units<DT>();
  actq_cuda_tile::warp_tile_flush<chunk_vectors<DT>()>(
      tile, lane, reinterpret_cast<uint4 *>(static_cast<uint8_t *>(a.grad_in) + e0 * actq_cuda_io::elem_bytes<DT>()));
}

} /* namespace actq_cuda_fewbit */

#endif /* ACTQ_CUDA_FEWBIT_OPS_CUH */
