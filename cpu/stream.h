/* stream.h - when the CPU kernels write their large outputs with streaming (non-temporal)
 * stores.
 *
 * An ordinary store to a line that is not cached first reads the line (read for
 * ownership): an output of 4 bytes an element costs 8 bytes of traffic. A streaming store
 * writes whole lines without reading them, so a kernel whose output is 2 bytes an element
 * or more (dequantize's y, fewbit_encode's y, fewbit_backward's grad_in) moves a third to
 * a half fewer bytes once its output cannot stay in the caches anyway. Below that size
 * the output is better left in the cache for the next layer to read, so small calls keep
 * ordinary stores. The bytes written are the same either way.
 *
 * The kernels stream only where every vector store of the loop is aligned (the output
 * pointer aligned to the store's width; the loops store 8 elements at element indices
 * that are multiples of 8); other pointers take ordinary stores. Streaming stores are
 * weakly ordered: a kernel that used them ends with actq_stream_fence(), so that the
 * caller (or the thread that joins the workers) sees every byte when the call returns. */
#ifndef ACTQ_CPU_STREAM_H
#define ACTQ_CPU_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <xmmintrin.h>

#include "cpu/isa.h"

/* Output bytes of one call from which its kernels stream: the last-level cache's size
 * (cpu/isa.h), and at least 16 MiB, several times a Xeon core's share of L3 (1.5-2 MiB).
 * An output that fits in the LLC is left there for the next layer (and a repeated call)
 * to read: on a Zen 5 VM with 32 MiB of L3, the fused GELU layer on 2^22 float32 elements
 * (16 MiB of y) took 1.01x nn.GELU's time with streaming stores and 0.73x without
 * (docs/fewbit.md); beyond the LLC the saved read for ownership is what counts. The
 * environment's ACTQ_STREAM_MIN_BYTES, read once, replaces it (actq_cpu_stream_min_env);
 * a build may set ACTQ_STREAM_MIN_BYTES (-D...) to fix it, e.g. to measure the crossover. */
static inline size_t actq_stream_min_bytes(void) {
#ifdef ACTQ_STREAM_MIN_BYTES
  return ACTQ_STREAM_MIN_BYTES;
#else
  const size_t floor = (size_t)16 << 20, llc = actq_cpu_llc_bytes(), env = actq_cpu_stream_min_env();
  return env ? env : llc > floor ? llc : floor;
#endif
}

/* Whether a call whose output is out_bytes at out, written 8 elements at a time from
 * indices that are multiples of 8, streams. The streaming stores are 16 bytes wide (8
 * halves, or half of 8 floats): 16-byte alignment is what malloc and every framework's
 * allocator give, where 32 would leave glibc's large blocks (16 bytes past a page) out. */
static inline int actq_stream_ok(const void *out, size_t out_bytes) {
  return out_bytes >= actq_stream_min_bytes() && (uintptr_t)out % 16 == 0;
}

static inline void actq_stream_fence(void) { _mm_sfence(); }

#endif /* ACTQ_CPU_STREAM_H */
