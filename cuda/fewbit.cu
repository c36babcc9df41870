/* fewbit.cu - fewbit_encode and fewbit_backward on the device: one thread per unit of 8
 * elements (exactly `bits` bytes of codes), grid-stride, 64-bit indices. The table (host
 * memory per the contract) travels as a kernel parameter and is copied into shared memory
 * by each block, where the binary search of actq_fewbit_code reads it. Every formula is
 * the shared one of src/arith (codes, f, the gradient product), so bytes equal the
 * reference's. A NaN input is reported through the deferred error word
 * (ACTQ_ERR_NONFINITE at the next actq_context_synchronize).
 */
#include "arith/bitstream.h"
#include "arith/fewbit.h"
#include "cuda/device_io.cuh"
#include "cuda/launch.h"
#include "cuda/state.h"

#define FEWBIT_BLOCK 256

namespace {

struct table_param { /* 2 KiB + a few words: fits the kernel parameter space */
  float bounds[256];
  float levels[256];
  uint32_t bits;
  int act;
  float param;
};

__device__ __forceinline__ void table_to_shared(const table_param &t, float *s_bounds,
                                                float *s_levels) {
  for (int i = threadIdx.x; i < 256; i += FEWBIT_BLOCK) {
    s_bounds[i] = t.bounds[i];
    s_levels[i] = t.levels[i];
  }
  __syncthreads();
}

template <int DT, bool VEC>
__global__ void __launch_bounds__(FEWBIT_BLOCK)
encode_kernel(const table_param t, size_t n, const void *__restrict__ x, void *__restrict__ y,
              uint8_t *__restrict__ codes, uint32_t *error) {
  __shared__ float s_bounds[256], s_levels[256];
  const size_t units = (n + 7) / 8;
  int nan = 0;
  table_to_shared(t, s_bounds, s_levels);
  for (size_t u = (size_t)blockIdx.x * FEWBIT_BLOCK + threadIdx.x; u < units;
       u += (size_t)gridDim.x * FEWBIT_BLOCK) {
    const int k = n - 8 * u < 8 ? (int)(n - 8 * u) : 8;
    const bool full = VEC && k == 8;
    float v[8], fy[8];
    uint32_t c[8];
    if (full) actq_cuda_io::load_unit<DT, true>(x, 8 * u, 8, v);
    else actq_cuda_io::load_unit<DT, false>(x, 8 * u, k, v);
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) {
      nan |= j < k && v[j] != v[j];
      c[j] = j < k ? actq_fewbit_code(s_bounds, t.bits, v[j]) : 0u;
      if (y) fy[j] = actq_fewbit_forward(t.act, t.param, v[j]);
    }
    actq_cuda_io::store_word(codes + u * t.bits, actq_pack_word(c, 8, t.bits),
                             ((uint32_t)k * t.bits + 7) / 8);
    if (y) {
      if (full) actq_cuda_io::store_unit<DT, true>(y, 8 * u, 8, fy);
      else actq_cuda_io::store_unit<DT, false>(y, 8 * u, k, fy);
    }
  }
  if (nan) atomicCAS(error, 0u, (uint32_t)ACTQ_ERR_NONFINITE);
}

template <int DT, bool VEC>
__global__ void __launch_bounds__(FEWBIT_BLOCK)
backward_kernel(const table_param t, size_t n, const uint8_t *__restrict__ codes,
                const void *__restrict__ grad_out, void *__restrict__ grad_in) {
  __shared__ float s_bounds[256], s_levels[256];
  const size_t units = (n + 7) / 8;
  table_to_shared(t, s_bounds, s_levels);
  for (size_t u = (size_t)blockIdx.x * FEWBIT_BLOCK + threadIdx.x; u < units;
       u += (size_t)gridDim.x * FEWBIT_BLOCK) {
    const int k = n - 8 * u < 8 ? (int)(n - 8 * u) : 8;
    const bool full = VEC && k == 8;
    const uint64_t word = actq_cuda_io::load_word(codes + u * t.bits, ((uint32_t)k * t.bits + 7) / 8);
    float g[8];
    if (full) actq_cuda_io::load_unit<DT, true>(grad_out, 8 * u, 8, g);
    else actq_cuda_io::load_unit<DT, false>(grad_out, 8 * u, k, g);
ACTQ_UNROLL
    for (int j = 0; j < 8; j++)
      g[j] = actq_fewbit_grad(g[j], s_levels[actq_unpack_code(word, j, t.bits)]);
    if (full) actq_cuda_io::store_unit<DT, true>(grad_in, 8 * u, 8, g);
    else actq_cuda_io::store_unit<DT, false>(grad_in, 8 * u, k, g);
  }
}

table_param make_param(const fewbit_table *table) {
  table_param t;
  const uint32_t K = 1u << table->bits;
  for (uint32_t i = 0; i < 256; i++) {
    t.bounds[i] = i + 1 < K ? table->bounds[i] : 0.0f;
    t.levels[i] = i < K ? table->levels[i] : 0.0f;
  }
  t.bits = table->bits;
  t.act = (int)table->activation;
  t.param = table->param;
  return t;
}

unsigned blocks_for(size_t n, int sm_count) {
  const size_t need = ((n + 7) / 8 + FEWBIT_BLOCK - 1) / FEWBIT_BLOCK;
  const size_t cap = (size_t)(sm_count > 0 ? sm_count : 1) * 32;
  return (unsigned)(need < cap ? need : cap);
}

bool aligned16(const void *p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

template <int DT>
void launch_encode(const actq_fewbit_job *job, const table_param &t, cudaStream_t s,
                   unsigned blocks, uint32_t *error) {
  if (aligned16(job->x) && (!job->y || aligned16(job->y)))
    encode_kernel<DT, true><<<blocks, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->x, job->y, job->codes, error);
  else
    encode_kernel<DT, false><<<blocks, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->x, job->y, job->codes, error);
}

template <int DT>
void launch_backward(const actq_fewbit_job *job, const table_param &t, cudaStream_t s,
                     unsigned blocks) {
  if (aligned16(job->grad_out) && aligned16(job->grad_in))
    backward_kernel<DT, true><<<blocks, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->codes_in, job->grad_out, job->grad_in);
  else
    backward_kernel<DT, false><<<blocks, FEWBIT_BLOCK, 0, s>>>(t, job->n, job->codes_in, job->grad_out, job->grad_in);
}

} /* namespace */

actq_status actq_cuda_fewbit_encode(actq_context *ctx, const actq_fewbit_job *job) {
  actq_cuda_state *st = actq_cuda(ctx);
  const table_param t = make_param(job->table);
  const unsigned blocks = blocks_for(job->n, st->sm_count);
  if (job->dtype == ACTQ_F16) launch_encode<ACTQ_ARITH_F16>(job, t, st->stream, blocks, st->d_error);
  else if (job->dtype == ACTQ_BF16) launch_encode<ACTQ_ARITH_BF16>(job, t, st->stream, blocks, st->d_error);
  else launch_encode<ACTQ_ARITH_F32>(job, t, st->stream, blocks, st->d_error);
  return actq_cuda_launch_status(ctx);
}

actq_status actq_cuda_fewbit_backward(actq_context *ctx, const actq_fewbit_job *job) {
  actq_cuda_state *st = actq_cuda(ctx);
  const table_param t = make_param(job->table);
  const unsigned blocks = blocks_for(job->n, st->sm_count);
  if (job->dtype == ACTQ_F16) launch_backward<ACTQ_ARITH_F16>(job, t, st->stream, blocks);
  else if (job->dtype == ACTQ_BF16) launch_backward<ACTQ_ARITH_BF16>(job, t, st->stream, blocks);
  else launch_backward<ACTQ_ARITH_F32>(job, t, st->stream, blocks);
  return actq_cuda_launch_status(ctx);
}
