// noise_sass.cu - the noise generators as CUDA device code, compiled only to count their
// SASS instructions per element (bench/noise_sass.sh; no GPU needed). One thread makes the
// 8 noise values of one 8-element unit, as cuda/unit_ops.cuh's quantize_unit does, and
// stores them as 16 bytes. k_null has the same shape with no generator, so a generator's
// own cost is its kernel's instructions minus k_null's.
//
// philox10 calls the library's actq_noise_block (src/arith/philox.h), exactly the device
// code quantize inlines. mx3 and ars5 get the per-call key material as kernel arguments:
// it is derived once per call on the host, as their design says.
#include <stdint.h>

#include "noise_gen.h"

// the T-table, filled from the host (ng_aes_te0_init); each thread block copies it to
// shared memory, where the per-element lookups go
__constant__ uint32_t d_te[256];

__global__ void k_null(uint64_t seed, uint64_t offset, uint64_t block0, uint4 *out) {
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  out[b - block0] = make_uint4((uint32_t)b ^ (uint32_t)seed, (uint32_t)(b >> 32),
                               (uint32_t)offset, (uint32_t)(offset >> 32) ^ (uint32_t)(seed >> 32));
}

__global__ void k_philox10(uint64_t seed, uint64_t offset, uint64_t block0, uint4 *out) {
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  uint16_t r16[8];
  actq_noise_block(seed, offset, b, r16);
  out[b - block0] = make_uint4(r16[0] | (uint32_t)r16[1] << 16, r16[2] | (uint32_t)r16[3] << 16,
                               r16[4] | (uint32_t)r16[5] << 16, r16[6] | (uint32_t)r16[7] << 16);
}

// Philox4x32-R with its key schedule computed once per call (kernel arguments) instead of
// per thread: the same bytes as k_philox10 / k_philox7, to show how much of those is the
// key adds (and the zero adds nvcc emits around the 64-bit products)
template <int R>
struct philox_rk {
  uint32_t k0[R], k1[R];
};

template <int R>
__device__ __forceinline__ uint4 philox_rk_block(const philox_rk<R> &rk, uint64_t offset,
                                                 uint64_t b) {
  uint32_t c0 = (uint32_t)b, c1 = (uint32_t)(b >> 32), c2 = (uint32_t)offset,
           c3 = (uint32_t)(offset >> 32);
#pragma unroll
  for (int r = 0; r < R; r++) {
    const uint32_t lo0 = ACTQ_PHILOX_M0 * c0, hi0 = __umulhi(ACTQ_PHILOX_M0, c0);
    const uint32_t lo1 = ACTQ_PHILOX_M1 * c2, hi1 = __umulhi(ACTQ_PHILOX_M1, c2);
    c0 = hi1 ^ c1 ^ rk.k0[r];
    c1 = lo1;
    c2 = hi0 ^ c3 ^ rk.k1[r];
    c3 = lo0;
  }
  return make_uint4(c0, c1, c2, c3);
}

__global__ void k_philox10_rk(philox_rk<10> rk, uint64_t offset, uint64_t block0, uint4 *out) {
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  out[b - block0] = philox_rk_block<10>(rk, offset, b);
}

__global__ void k_philox7_rk(philox_rk<7> rk, uint64_t offset, uint64_t block0, uint4 *out) {
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  out[b - block0] = philox_rk_block<7>(rk, offset, b);
}

__global__ void k_philox7(uint64_t seed, uint64_t offset, uint64_t block0, uint4 *out) {
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  uint16_t r16[8];
  ng_philox_block(7, seed, offset, b, r16);
  out[b - block0] = make_uint4(r16[0] | (uint32_t)r16[1] << 16, r16[2] | (uint32_t)r16[3] << 16,
                               r16[4] | (uint32_t)r16[5] << 16, r16[6] | (uint32_t)r16[7] << 16);
}

// one unit = pairs 4b .. 4b+3; the four 32-bit words are the unit's r16 pairs in order
__global__ void k_mx3(ng_mx_key key, uint64_t block0, uint4 *out) {
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  const uint64_t q = b * 4;
  out[b - block0] = make_uint4(ng_mx3(&key, q), ng_mx3(&key, q + 1), ng_mx3(&key, q + 2),
                               ng_mx3(&key, q + 3));
}

__global__ void k_mx2(ng_mx_key key, uint64_t block0, uint4 *out) {
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  const uint64_t q = b * 4;
  out[b - block0] = make_uint4(ng_mx2(&key, q), ng_mx2(&key, q + 1), ng_mx2(&key, q + 2),
                               ng_mx2(&key, q + 3));
}

// launched with 256 threads per block
__global__ void k_ars5(ng_ars_rk key, uint64_t offset, uint64_t block0, uint4 *out) {
  __shared__ uint32_t te[256];
  const uint64_t b = block0 + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  uint32_t o[4];
  te[threadIdx.x] = d_te[threadIdx.x];
  __syncthreads();
  ng_ars5_soft(&key, te, offset, b, o);
  out[b - block0] = make_uint4(o[0], o[1], o[2], o[3]);
}
