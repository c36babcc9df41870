// traffic_proxy.cpp - see traffic_proxy.h. The pass is cut in blocks; block k reads its
// share of the input (XOR-reduced in 32-byte vectors) and then writes its share of the
// output with ordinary or streaming stores, the way the kernels interleave reading and
// writing.
#include "traffic_proxy.h"

#include <immintrin.h>

#include <thread>
#include <vector>

namespace {

uint64_t piece(const uint8_t *in, size_t in0, size_t in1, uint8_t *out, size_t out0,
               size_t out1, size_t blocks, bool stream) {
  __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0;
  for (size_t k = 0; k < blocks; ++k) {
    size_t a = in0 + (in1 - in0) * k / blocks, b = in0 + (in1 - in0) * (k + 1) / blocks;
    size_t i = a;
    for (; i + 64 <= b; i += 64) {
      acc0 = _mm256_xor_si256(acc0, _mm256_loadu_si256((const __m256i *)(in + i)));
      acc1 = _mm256_xor_si256(acc1, _mm256_loadu_si256((const __m256i *)(in + i + 32)));
    }
    for (; i < b; ++i) acc0 = _mm256_xor_si256(acc0, _mm256_set1_epi8((char)in[i]));
    size_t c = out0 + (out1 - out0) * k / blocks, d = out0 + (out1 - out0) * (k + 1) / blocks;
    __m256i v = _mm256_xor_si256(acc0, acc1);
    size_t j = c;
    if (stream) {  // 16-byte streaming stores from the first aligned byte, as the kernels
      for (; j < d && (uintptr_t)(out + j) % 16; ++j) out[j] = (uint8_t)k;
      for (; j + 32 <= d; j += 32) {
        _mm_stream_si128((__m128i *)(out + j), _mm256_castsi256_si128(v));
        _mm_stream_si128((__m128i *)(out + j + 16), _mm256_extracti128_si256(v, 1));
      }
    } else {
      for (; j + 32 <= d; j += 32) _mm256_storeu_si256((__m256i *)(out + j), v);
    }
    for (; j < d; ++j) out[j] = (uint8_t)k;
  }
  if (stream) _mm_sfence();
  acc0 = _mm256_xor_si256(acc0, acc1);
  return (uint64_t)_mm256_extract_epi64(acc0, 0) ^ (uint64_t)_mm256_extract_epi64(acc0, 3);
}

}  // namespace

uint64_t traffic_proxy(const uint8_t *in, size_t in_bytes, uint8_t *out, size_t out_bytes,
                       int threads, bool stream_out) {
  const size_t block_bytes = 16384;  // of the larger side: both sides stay in flight together
  size_t big = in_bytes > out_bytes ? in_bytes : out_bytes;
  size_t blocks = big / block_bytes + 1;
  if ((size_t)threads > blocks) threads = (int)blocks;
  std::vector<uint64_t> res(threads);
  std::vector<std::thread> pool;
  auto run = [&](int t) {
    size_t b0 = blocks * t / threads, b1 = blocks * (t + 1) / threads;
    res[t] = piece(in, in_bytes * b0 / blocks, in_bytes * b1 / blocks, out,
                   out_bytes * b0 / blocks, out_bytes * b1 / blocks, b1 - b0, stream_out);
  };
  for (int t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto &th : pool) th.join();
  uint64_t r = 0;
  for (uint64_t v : res) r ^= v;
  return r;
}
