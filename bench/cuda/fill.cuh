/* fill.cuh - benchmark inputs made on the device: a hash of the element index, so that no
 * benchmark reads zeros (they can run faster than real data) and no host copy is timed. */
#ifndef ACTQ_BENCH_FILL_CUH
#define ACTQ_BENCH_FILL_CUH

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

/* dtype 0: f32, 2: bf16 values in about [-4, 4); dtype 3: codes below 2^bits (bytes). */
cudaError_t bench_fill(void *p, size_t n, int dtype, uint32_t bits, uint64_t seed);

#endif
