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
#include "cuda/unit_ops.cuh"
#include "cuda/state.h"

#define PACK_BLOCK 256

namespace {

__global__ void __launch_bounds__(PACK_BLOCK)
pack_kernel(uint32_t bits, size_t n, const uint8_t *__restrict__ codes,
            uint8_t *__restrict__ packed, uint32_t *error) {
  const size_t units = (n + 7) / 8;
  for (size_t u = (size_t)blockIdx.x * PACK_BLOCK + threadIdx.x; u < units;
       u += (size_t)gridDim.x * PACK_BLOCK)
    if (actq_cuda_unit::pack_unit(bits, n, codes, packed, u))
      atomicCAS(error, 0u, (uint32_t)ACTQ_ERR_INVALID_ARGUMENT);
}

__global__ void __launch_bounds__(PACK_BLOCK)
unpack_kernel(uint32_t bits, size_t n, const uint8_t *__restrict__ packed,
              uint8_t *__restrict__ codes) {
  const size_t units = (n + 7) / 8;
  for (size_t u = (size_t)blockIdx.x * PACK_BLOCK + threadIdx.x; u < units;
       u += (size_t)gridDim.x * PACK_BLOCK)
    actq_cuda_unit::unpack_unit(bits, n, packed, codes, u);
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
