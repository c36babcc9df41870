/* device_io.cuh - device loads and stores of one unit: 8 consecutive elements (f32, f16
 * or bf16) or one packed unit word (8 codes = `bits` bytes).
 *
 * Values go through the shared conversions of src/arith/elem.h, so that a bf16 or f16
 * element has the same float value (and a stored float the same bits) on every backend.
 * The VEC forms read or write 16-byte vectors and are used only when the launcher has
 * checked that every unit of the call is 16-byte aligned; the others work at any
 * alignment and for partial units (k < 8).
 */
#ifndef ACTQ_CUDA_DEVICE_IO_CUH
#define ACTQ_CUDA_DEVICE_IO_CUH

#include <stdint.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "src/arith/elem.h"
#include "cuda/unroll.cuh"

namespace actq_cuda_io {

/* The 4 words of 16-bit unit e (elements e .. e+7 of x, two a word, the lower first) with
 * one 16-byte load: e a multiple of 8, x 16-byte aligned (the VEC forms). */
__host__ __device__ __forceinline__ void load_words16(const void *__restrict__ x, size_t e,
                                                      uint32_t w[4]) {
  const uint4 a = *reinterpret_cast<const uint4 *>(static_cast<const uint16_t *>(x) + e);
  w[0] = a.x; w[1] = a.y; w[2] = a.z; w[3] = a.w;
}

/* The 8 values of a 16-bit unit's words as floats. */
template <actq_dtype DT>
__host__ __device__ __forceinline__ void unit_from_words16(const uint32_t w[4], float v[8]) {
ACTQ_UNROLL
  for (int j = 0; j < 4; j++) {
    const uint16_t lo = (uint16_t)w[j], hi = (uint16_t)(w[j] >> 16);
    v[2 * j] = actq_h16_to_f32(lo, DT);
    v[2 * j + 1] = actq_h16_to_f32(hi, DT);
  }
}

/* v[0..k) = elements e .. e+k-1 of x; v[k..8) = 0. */
template <actq_dtype DT, bool VEC>
__host__ __device__ __forceinline__ void load_unit(const void *__restrict__ x, size_t e, int k,
                                          float v[8]) {
  if constexpr (VEC) {
    if (DT == ACTQ_F32) {
      const float4 *p = reinterpret_cast<const float4 *>(static_cast<const float *>(x) + e);
      const float4 a = p[0], b = p[1];
      v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
      v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
    } else {
      uint32_t w[4];
      load_words16(x, e, w);
      unit_from_words16<DT>(w, v);
    }
  } else {
ACTQ_UNROLL
    for (int j = 0; j < 8; j++) v[j] = j < k ? actq_load_elem(x, DT, e + j) : 0.0f;
  }
}

/* Bytes of one element of DT (actq_dtype_size, as a device constant). */
template <actq_dtype DT>
__host__ __device__ constexpr size_t elem_bytes() {
  return DT == ACTQ_F32 ? 4u : 2u;
}

/* 16-byte vectors of one unit in DT: 2 of f32, 1 of f16 or bf16. */
template <actq_dtype DT>
__host__ __device__ constexpr uint32_t unit_vectors() {
  return DT == ACTQ_F32 ? 2u : 1u;
}

/* The 8 values of a unit from its unit_vectors<DT>() vectors (in memory or in a tile,
 * which holds uint4: read as such, never through a float pointer). */
template <actq_dtype DT>
__host__ __device__ __forceinline__ void unit_from_vectors(const uint4 *in, float v[8]) {
  if (DT == ACTQ_F32) {
    const uint4 a = in[0], b = in[1];
    v[0] = actq_f32_from_bits(a.x); v[1] = actq_f32_from_bits(a.y);
    v[2] = actq_f32_from_bits(a.z); v[3] = actq_f32_from_bits(a.w);
    v[4] = actq_f32_from_bits(b.x); v[5] = actq_f32_from_bits(b.y);
    v[6] = actq_f32_from_bits(b.z); v[7] = actq_f32_from_bits(b.w);
  } else {
    const uint4 a = in[0];
    const uint32_t w[4] = {a.x, a.y, a.z, a.w};
    unit_from_words16<DT>(w, v);
  }
}

/* A unit's 8 values as its unit_vectors<DT>() vectors, rounded to nearest-even into DT. */
template <actq_dtype DT>
__host__ __device__ __forceinline__ void unit_to_vectors(const float v[8], uint4 out[]) {
  if (DT == ACTQ_F32) {
    out[0] = make_uint4(actq_f32_bits(v[0]), actq_f32_bits(v[1]), actq_f32_bits(v[2]), actq_f32_bits(v[3]));
    out[1] = make_uint4(actq_f32_bits(v[4]), actq_f32_bits(v[5]), actq_f32_bits(v[6]), actq_f32_bits(v[7]));
  } else {
    uint32_t w[4];
ACTQ_UNROLL
    for (int j = 0; j < 4; j++) {
      const uint32_t lo = actq_f32_to_h16(v[2 * j], DT), hi = actq_f32_to_h16(v[2 * j + 1], DT);
      w[j] = lo | (hi << 16);
    }
    out[0] = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/* Elements e .. e+k-1 of y = v[0..k), rounded to nearest-even into DT. */
template <actq_dtype DT, bool VEC>
__host__ __device__ __forceinline__ void store_unit(void *__restrict__ y, size_t e, int k,
                                           const float v[8]) {
  if constexpr (VEC) {
    uint4 out[unit_vectors<DT>()];
    unit_to_vectors<DT>(v, out);
    uint4 *p = reinterpret_cast<uint4 *>(static_cast<uint8_t *>(y) + e * elem_bytes<DT>());
ACTQ_UNROLL
    for (uint32_t i = 0; i < unit_vectors<DT>(); i++) p[i] = out[i];
  } else {
ACTQ_UNROLL
    for (int j = 0; j < 8; j++)
      if (j < k) actq_store_elem(y, DT, e + j, v[j]);
  }
}

/* Two floats, neither NaN, as a 16-bit pair (lo in the low half), rounded to nearest-even
 * into DT (f16 or bf16). For non-NaN inputs the hardware conversion (cvt.rn.{f16,bf16}x2,
 * IEEE round-to-nearest-even with subnormals and overflow to Inf) is the shared software
 * conversion of src/arith/half.h; only their NaN outputs differ, hence the precondition.
 * Host builds (the host test) use the software one. */
template <actq_dtype DT>
__host__ __device__ __forceinline__ uint32_t pack2_nonan(float lo, float hi) {
#if defined(__CUDA_ARCH__)
  if (DT == ACTQ_F16) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t *>(&h);
  }
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t *>(&h);
#else
  if (DT == ACTQ_F16) return actq_f32_to_f16(lo) | (uint32_t)actq_f32_to_f16(hi) << 16;
  return actq_f32_to_bf16(lo) | (uint32_t)actq_f32_to_bf16(hi) << 16;
#endif
}

/* store_unit for values known not to be NaN (dequantization of a group with finite
 * metadata): the same bytes, with the device's paired conversions. */
template <actq_dtype DT, bool VEC>
__host__ __device__ __forceinline__ void store_unit_nonan(void *__restrict__ y, size_t e, int k,
                                                          const float v[8]) {
  if constexpr (VEC && DT != ACTQ_F32) {
    uint32_t w[4];
ACTQ_UNROLL
    for (int j = 0; j < 4; j++) w[j] = pack2_nonan<DT>(v[2 * j], v[2 * j + 1]);
    *reinterpret_cast<uint4 *>(static_cast<uint16_t *>(y) + e) = make_uint4(w[0], w[1], w[2], w[3]);
  } else {
    store_unit<DT, VEC>(y, e, k, v);
  }
}

/* The nbytes (<= 8) low bytes of word, little-endian, at out: one store when out is
 * aligned for a 2-, 4- or 8-byte word of exactly that size, bytes otherwise. */
__host__ __device__ __forceinline__ void store_word(uint8_t *out, uint64_t word, uint32_t nbytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(out);
  if (nbytes == 8 && (a & 7) == 0) {
    *reinterpret_cast<uint64_t *>(out) = word;
  } else if (nbytes == 4 && (a & 3) == 0) {
    *reinterpret_cast<uint32_t *>(out) = (uint32_t)word;
  } else if (nbytes == 2 && (a & 1) == 0) {
    *reinterpret_cast<uint16_t *>(out) = (uint16_t)word;
  } else {
ACTQ_UNROLL
    for (uint32_t i = 0; i < 8; i++)
      if (i < nbytes) out[i] = (uint8_t)(word >> (8 * i));
  }
}

/* store_word of a whole unit's word of nbytes = 2, 4 or 8 at an address aligned to it
 * (nbytes a constant after inlining: one store, no alignment test). */
__host__ __device__ __forceinline__ void store_word_aligned(uint8_t *out, uint64_t word,
                                                            uint32_t nbytes) {
  if (nbytes == 8) *reinterpret_cast<uint64_t *>(out) = word;
  else if (nbytes == 4) *reinterpret_cast<uint32_t *>(out) = (uint32_t)word;
  else *reinterpret_cast<uint16_t *>(out) = (uint16_t)word;
}

/* The word of nbytes (<= 8) little-endian bytes at in; the same cases as store_word. */
__host__ __device__ __forceinline__ uint64_t load_word(const uint8_t *in, uint32_t nbytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(in);
  uint64_t word = 0;
  if (nbytes == 8 && (a & 7) == 0) return *reinterpret_cast<const uint64_t *>(in);
  if (nbytes == 4 && (a & 3) == 0) return *reinterpret_cast<const uint32_t *>(in);
  if (nbytes == 2 && (a & 1) == 0) return *reinterpret_cast<const uint16_t *>(in);
ACTQ_UNROLL
  for (uint32_t i = 0; i < 8; i++)
    if (i < nbytes) word |= (uint64_t)in[i] << (8 * i);
  return word;
}

/* load_word of a whole unit's word of nbytes = 1, 2, 4 or 8 at an address aligned to it
 * (nbytes a constant after inlining: one load, no alignment test). */
__host__ __device__ __forceinline__ uint64_t load_word_aligned(const uint8_t *in, uint32_t nbytes) {
  if (nbytes == 8) return *reinterpret_cast<const uint64_t *>(in);
  if (nbytes == 4) return *reinterpret_cast<const uint32_t *>(in);
  if (nbytes == 2) return *reinterpret_cast<const uint16_t *>(in);
  return *in;
}

/* The end of the chunk of `units` 8-element units from unit u0 in a call of n elements:
 * u0 + units, or the call's last (maybe partial) unit + 1 for its last chunk. */
__host__ __device__ __forceinline__ size_t chunk_end_unit(size_t n, size_t u0, size_t units) {
  const size_t last = (n + 7) / 8;
  return last < u0 + units ? last : u0 + units;
}

} /* namespace actq_cuda_io */

#endif /* ACTQ_CUDA_DEVICE_IO_CUH */
