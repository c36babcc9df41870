/* fill.cu - see fill.cuh. */
#include "fill.cuh"

static __device__ __forceinline__ uint32_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (uint32_t)(z ^ (z >> 31));
}

static __global__ void fill_kernel(void *p, size_t n, int dtype, uint32_t bits, uint64_t seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t h = mix(seed + i * 0x9E3779B97F4A7C15ull);
    /* sum of two uniforms: a triangular bell, so groups have a spread like activations */
    const float v = ((float)(h & 0xffff) + (float)(h >> 16)) * (4.0f / 65536.0f) - 4.0f;
    if (dtype == 0) {
      static_cast<float *>(p)[i] = v;
    } else if (dtype == 2) {
      const uint32_t u = __float_as_uint(v);
      static_cast<uint16_t *>(p)[i] = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    } else {
      static_cast<uint8_t *>(p)[i] = (uint8_t)(h & ((1u << bits) - 1u));
    }
  }
}

cudaError_t bench_fill(void *p, size_t n, int dtype, uint32_t bits, uint64_t seed) {
  fill_kernel<<<1024, 256>>>(p, n, dtype, bits, seed);
  cudaError_t e = cudaGetLastError();
  return e != cudaSuccess ? e : cudaDeviceSynchronize();
}
