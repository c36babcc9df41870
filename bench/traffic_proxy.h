// traffic_proxy.h - the memory-traffic proxy: the bytes a kernel must move, moved by the
// simplest loop there is, with the same threads, so a kernel can be judged as a percentage
// of what the memory system allows in the same run.
#pragma once
#include <cstddef>
#include <cstdint>

// Reads in_bytes from `in` and writes out_bytes to `out`, in one interleaved pass split in
// `threads` contiguous pieces (one std::thread per piece but the first, as the library's
// fork-join does). Returns a value derived from every byte read, so no read is dead.
// stream_out: the output with streaming (non-temporal) 16-byte stores, as the library's
// kernels write large outputs (cpu/stream.h), so that neither pays a read for ownership.
uint64_t traffic_proxy(const uint8_t *in, size_t in_bytes, uint8_t *out, size_t out_bytes,
                       int threads, bool stream_out = false);
