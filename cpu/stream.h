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

/* Output bytes of one call from which its kernels stream: half the last-level cache of a
 * Zen 3 CCX (32 MiB), several times a Xeon core's share (1.5-2 MiB); an output this large
 * is mostly out of the cache by the time anything reads it. A modelled choice, not a
 * measured crossover: on the Zen 3 VM of bench/results/cpu/streaming-zen3-2026-12-02.md
 * the kernels' A/B was within its noise either way (a plain copy streams in 0.72-0.88x
 * the time); measure it where the proxy shows the read for ownership (Intel). */
#ifndef ACTQ_STREAM_MIN_BYTES /* a build may set it (-D...), e.g. to measure the crossover */
#define ACTQ_STREAM_MIN_BYTES ((size_t)16 << 20)
#endif

/* Whether a call whose output is out_bytes at out, written 8 elements at a time from
 * indices that are multiples of 8, streams. The streaming stores are 16 bytes wide (8
 * halves, or half of 8 floats): 16-byte alignment is what malloc and every framework's
 * allocator give, where 32 would leave glibc's large blocks (16 bytes past a page) out. */
static inline int actq_stream_ok(const void *out, size_t out_bytes) {
  return out_bytes >= ACTQ_STREAM_MIN_BYTES && (uintptr_t)out % 16 == 0;
}

static inline void actq_stream_fence(void) { _mm_sfence(); }

#endif /* ACTQ_CPU_STREAM_H */
