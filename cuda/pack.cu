/* pack.cu - actq_pack / actq_unpack on the device: one thread per unit of 8 codes
 * (exactly `bits` bytes of the stream), grid-stride, 64-bit indices.
 *
 * Pack masks every code to `bits` bits as the reference does (an invalid code never
 * spills into its neighbours, so the bytes equal the reference's for any input) and
 * reports a code >= 2^bits through the context's deferred error word: the call returns
 * ACTQ_OK and the next actq_context_synchronize returns ACTQ_ERR_INVALID_ARGUMENT.
 */
#include "arith/bitstream.h"
#include "cuda/device_io.cuh"
#include "cuda/launch.h"
#include "cuda/state.h"

#define PACK_BLOCK 256

namespace {

__device__ __forceinline__ uint64_t load_codes(const uint8_t *p, size_t k) {
  if (k == 8 && (reinterpret_cast<uintptr_t>(p) & 7) == 0)
    return *reinterpret_cast<const uint64_t *>(p);
  return actq_cuda_io::load_word(p, (uint32_t)k);
}

__global__ void __launch_bounds__(PACK_BLOCK)
pack_kernel(uint32_t bits, size_t n, const uint8_t *__restrict__ codes,
            uint8_t *__restrict__ packed, uint32_t *error) {
  const uint32_t mask = (1u << bits) - 1u;
  const size_t units = (n + 7) / 8;
  for (size_t u = (size_t)blockIdx.x * PACK_BLOCK + threadIdx.x; u < units;
       u += (size_t)gridDim.x * PACK_BLOCK) {
    const size_t k = n - 8 * u < 8 ? n - 8 * u : 8;
    const uint64_t in = load_codes(codes + 8 * u, k);
    uint32_t c[8], over = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
      const uint32_t code = (uint32_t)(in >> (8 * j)) & 0xffu; /* bytes past k are 0 */
      over |= code & ~mask;
      c[j] = code & mask;
    }
    actq_cuda_io::store_word(packed + u * bits, actq_pack_word(c, 8, bits),
                             (uint32_t)((k * bits + 7) / 8));
    if (over) atomicCAS(error, 0u, (uint32_t)ACTQ_ERR_INVALID_ARGUMENT);
  }
}

__global__ void __launch_bounds__(PACK_BLOCK)
unpack_kernel(uint32_t bits, size_t n, const uint8_t *__restrict__ packed,
              uint8_t *__restrict__ codes) {
  const size_t units = (n + 7) / 8;
  for (size_t u = (size_t)blockIdx.x * PACK_BLOCK + threadIdx.x; u < units;
       u += (size_t)gridDim.x * PACK_BLOCK) {
    const size_t k = n - 8 * u < 8 ? n - 8 * u : 8;
    const uint64_t word = actq_cuda_io::load_word(packed + u * bits, (uint32_t)((k * bits + 7) / 8));
    uint64_t out = 0;
#pragma unroll
    for (int j = 0; j < 8; j++)
      if ((size_t)j < k) out |= (uint64_t)actq_unpack_code(word, j, bits) << (8 * j);
    actq_cuda_io::store_word(codes + 8 * u, out, (uint32_t)k);
  }
}

unsigned blocks_for_units(size_t units, int sm_count) {
  const size_t need = (units + PACK_BLOCK - 1) / PACK_BLOCK;
  const size_t cap = (size_t)(sm_count > 0 ? sm_count : 1) * 32;
  return (unsigned)(need < cap ? need : cap);
}

} /* namespace */

actq_status actq_cuda_pack(actq_context *ctx, uint32_t bits, size_t n, const uint8_t *codes,
                           uint8_t *packed) {
  actq_cuda_state *st = actq_cuda(ctx);
  pack_kernel<<<blocks_for_units((n + 7) / 8, st->sm_count), PACK_BLOCK, 0, st->stream>>>(
      bits, n, codes, packed, st->d_error);
  return actq_cuda_launch_status(ctx);
}

actq_status actq_cuda_unpack(actq_context *ctx, uint32_t bits, size_t n,
                             const uint8_t *packed, uint8_t *codes) {
  actq_cuda_state *st = actq_cuda(ctx);
  unpack_kernel<<<blocks_for_units((n + 7) / 8, st->sm_count), PACK_BLOCK, 0, st->stream>>>(
      bits, n, packed, codes);
  return actq_cuda_launch_status(ctx);
}
