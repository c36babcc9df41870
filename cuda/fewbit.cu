/* fewbit.cu - fewbit_encode and fewbit_backward on the device: one thread per chunk of
 * 128 bytes of elements (cuda/fewbit_ops.cuh), one kernel per dtype and width (and, for
 * encode, whether y is written), 16-byte vectors when the launcher finds the pointers
 * aligned; then a warp of full chunks goes through its shared-memory tile
 * (cuda/warp_tile.cuh): encode's x (and its wide codes) and backward's grad_in. The table
 * (host memory per the contract) travels as a kernel parameter, the bounds in level order
 * (level_order_bounds); each block copies the part it needs (the bounds, or the levels)
 * into shared memory, where the search of actq_fewbit_code_level_order and the level
 * lookup read it. A NaN input is reported
 * through the deferred error word (ACTQ_ERR_NONFINITE at the next
 * actq_context_synchronize).
 */
#include "cuda/fewbit_ops.cuh"
#include "cuda/launch.h"
#include "cuda/state.h"

/* At least 4 blocks an SM (<= 64 registers): half occupancy, and no spills in the wide
 * searches, which ptxas otherwise trades against registers. */
#define FEWBIT_MIN_BLOCKS 4

namespace {

using namespace actq_cuda_fewbit;

struct table_param { /* 2 KiB + a few words: fits the kernel parameter space */
  float bounds[256]; /* in level order (level_order_bounds) */
  float levels[256];
  int act;
  float param;
};

/* A thread's own chunk, where its warp does not go through the tile: out of line, so that
 * the kernel's straight-line code is the tile path that large aligned calls run. */
template <actq_dtype DT, uint32_t BITS, bool VEC>
__device__ __noinline__ int encode_own(const encode_args a, size_t c) {
  return encode_chunk<DT, BITS, VEC>(a, c);
}

/* Y: whether y is written (a kernel of its own, so that the activation's code and its
 * registers stay out of the codes-only kernel); ACT: y's activation compiled in, or 0
 * for the table's (with_y_act). With Y, VEC also means y is aligned (encode_y_vec_ok). */
template <actq_dtype DT, uint32_t BITS, bool Y, bool VEC, int ACT = 0>
__global__ void __launch_bounds__(FEWBIT_BLOCK, FEWBIT_MIN_BLOCKS)
encode_kernel(const table_param t, size_t n, const void *__restrict__ x, void *__restrict__ y,
              uint8_t *__restrict__ codes, uint32_t *error) {
  constexpr uint32_t NV = chunk_vectors<DT>();
  __shared__ float s_bounds[(1u << BITS) - 1u];
  __shared__ uint4 tiles[VEC ? FEWBIT_BLOCK / 32 * actq_cuda_tile::warp_tile<NV>::VECTORS : 1];
  for (uint32_t i = threadIdx.x; i < (1u << BITS) - 1u; i += FEWBIT_BLOCK) s_bounds[i] = t.bounds[i];
  __syncthreads();
  const size_t c = (size_t)blockIdx.x * FEWBIT_BLOCK + threadIdx.x;
  const encode_args a = {s_bounds, t.act, t.param, n, x, y, codes};
  int nan = 0;
  if (chunk_tiled<DT, VEC>(n, c)) {
    uint4 *tile = tiles + threadIdx.x / 32 * actq_cuda_tile::warp_tile<NV>::VECTORS;
    encode_load<DT>(a, c, tile, threadIdx.x % 32);
    nan = encode_fill<DT, BITS>(a, c, tile, threadIdx.x % 32);
    encode_flush<DT, BITS>(a, c, tile, threadIdx.x % 32);
  } else if (c < chunks(n, chunk_units<DT>())) {
    /* With y, out of line would cost the kernel a stack frame (its registers at the cap). */
    nan = Y ? encode_chunk<DT, BITS, VEC>(a, c) : encode_own<DT, BITS, VEC>(a, c);
  }
  if (nan) atomicCAS(error, 0u, (uint32_t)ACTQ_ERR_NONFINITE);
  if (Y) encode_y_block<DT, ACT, VEC>(a, blockIdx.x, threadIdx.x);
}

/* A thread's own chunk, where its warp does not go through the tile: out of line, so that
 * the kernel's straight-line code is the tile path that large aligned calls run. */
template <actq_dtype DT, uint32_t BITS, bool VEC>
__device__ __noinline__ void backward_own(const backward_args a, size_t c) {
  backward_chunk<DT, BITS, VEC>(a, c);
}

template <actq_dtype DT, uint32_t BITS, bool VEC>
__global__ void __launch_bounds__(FEWBIT_BLOCK, FEWBIT_MIN_BLOCKS)
backward_kernel(const table_param t, size_t n, const uint8_t *__restrict__ codes,
                const void *__restrict__ grad_out, void *__restrict__ grad_in) {
  constexpr uint32_t NV = chunk_vectors<DT>();
  __shared__ float s_levels[1u << BITS];
  __shared__ uint4 tiles[VEC ? FEWBIT_BLOCK / 32 * actq_cuda_tile::warp_tile<NV>::VECTORS : 1];
  for (uint32_t i = threadIdx.x; i < (1u << BITS); i += FEWBIT_BLOCK) s_levels[i] = t.levels[i];
  __syncthreads();
  const size_t c = (size_t)blockIdx.x * FEWBIT_BLOCK + threadIdx.x;
  const backward_args a = {s_levels, n, codes, grad_out, grad_in};
  if (chunk_tiled<DT, VEC>(n, c)) {
    uint4 *tile = tiles + threadIdx.x / 32 * actq_cuda_tile::warp_tile<NV>::VECTORS;
    backward_fill<DT, BITS>(a, c, tile, threadIdx.x % 32);
    backward_flush<DT>(a, c, tile, threadIdx.x % 32);
  } else if (c < chunks(n, chunk_units<DT>())) {
    backward_own<DT, BITS, VEC>(a, c);
  }
}

table_param make_param(const fewbit_table *table) {
  table_param t;
  const uint32_t K = 1u << table->bits;
  for (uint32_t i = 0; i < 256; i++) {
    t.bounds[i] = 0.0f;
    t.levels[i] = i < K ? table->levels[i] : 0.0f;
  }
  level_order_bounds(table->bounds, table->bits, t.bounds);
  t.act = (int)table->activation;
  t.param = table->param;
  return t;
}

/* One thread per chunk, no grid-stride loop: 2^31 - 1 blocks cover 2^44 elements. */
template <actq_dtype DT>
unsigned blocks_for(size_t n) {
  return (unsigned)((chunks(n, chunk_units<DT>()) + FEWBIT_BLOCK - 1) / FEWBIT_BLOCK);
}

template <actq_dtype DT>
void launch_encode(const actq_fewbit_job *job, const table_param &t, cudaStream_t s,
                   uint32_t *error) {
  actq_cuda_packing::with_bits(job->table->bits, [&](auto b) {
    const unsigned g = blocks_for<DT>(job->n);
    if (!job->y) {
      if (encode_vec_ok<DT, b>(job->x, job->codes))
        encode_kernel<DT, b, false, true><<<g, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->x, nullptr, job->codes, error);
      else
        encode_kernel<DT, b, false, false><<<g, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->x, nullptr, job->codes, error);
      return;
    }
    const bool vec = encode_y_vec_ok<DT, b>(job->x, job->y, job->codes);
    with_y_act(t.act, vec, [&](auto act) {
      if (vec)
        encode_kernel<DT, b, true, true, act><<<g, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->x, job->y, job->codes, error);
      else if constexpr (act == 0)
        encode_kernel<DT, b, true, false><<<g, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->x, job->y, job->codes, error);
    });
  });
}

template <actq_dtype DT>
void launch_backward(const actq_fewbit_job *job, const table_param &t, cudaStream_t s) {
  actq_cuda_packing::with_bits(job->table->bits, [&](auto b) {
    const unsigned g = blocks_for<DT>(job->n);
    if (backward_vec_ok<DT, b>(job->codes_in, job->grad_out, job->grad_in))
      backward_kernel<DT, b, true><<<g, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->codes_in, job->grad_out, job->grad_in);
    else
      backward_kernel<DT, b, false><<<g, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->codes_in, job->grad_out, job->grad_in);
  });
}

} /* namespace */

actq_status actq_cuda_fewbit_encode(actq_context *ctx, const actq_fewbit_job *job) {
  actq_cuda_state *st = actq_cuda(ctx);
  const table_param t = make_param(job->table);
  if (job->dtype == ACTQ_F16) launch_encode<ACTQ_F16>(job, t, st->stream, st->d_error);
  else if (job->dtype == ACTQ_BF16) launch_encode<ACTQ_BF16>(job, t, st->stream, st->d_error);
  else launch_encode<ACTQ_F32>(job, t, st->stream, st->d_error);
  return actq_cuda_launch_status(ctx);
}

actq_status actq_cuda_fewbit_backward(actq_context *ctx, const actq_fewbit_job *job) {
  actq_cuda_state *st = actq_cuda(ctx);
  const table_param t = make_param(job->table);
  if (job->dtype == ACTQ_F16) launch_backward<ACTQ_F16>(job, t, st->stream);
  else if (job->dtype == ACTQ_BF16) launch_backward<ACTQ_BF16>(job, t, st->stream);
  else launch_backward<ACTQ_F32>(job, t, st->stream);
  return actq_cuda_launch_status(ctx);
}
