/* dequantize_instance.h - the out-of-line instances of a dequantize kernel, one a dtype and
 * width.
 *
 * Each its own function, as quantize's (cpu/quantize_groups.h): with the 24 dtype x width
 * instances of the AVX2 kernel inlined into one function, gcc's inliner ran out of budget and
 * the group loop called actq_load_elem for its metadata (0.84-0.92x at groups of 64 from
 * memory, docs/bench-cpu.md "The Ice Lake VM, 2026-12-06 (evening)"). Each holds two variants
 * of the kernel's group loop `groups_t`: with the extra lines of a group's codes prefetched
 * (actq_prefetch_group_bytes), and with a constant 0 for groups of one line or less and
 * cached calls, which then run without the per-group test. */
#ifndef ACTQ_CPU_DEQUANTIZE_INSTANCE_H
#define ACTQ_CPU_DEQUANTIZE_INSTANCE_H

#include "cpu/prefetch.h"
#include "src/job.h"

typedef void (*actq_dequantize_instance_fn)(const actq_dequant_job *job, size_t r, size_t g0,
                                            size_t g1, const uint8_t *row_packed, int nt);

/* prefix_DT_B(job, r, g0, g1, row_packed, nt), an actq_dequantize_instance_fn */
#define ACTQ_DEQUANTIZE_INSTANCE(prefix, groups_t, DT, B)                                      \
  static __attribute__((noinline)) void prefix##_##DT##_##B(                                   \
      const actq_dequant_job *job, size_t r, size_t g0, size_t g1, const uint8_t *row_packed,  \
      int nt) {                                                                                \
    const size_t pf = actq_prefetch_group_bytes(job->grid.group_size, B, nt);                  \
    if (pf > 64) groups_t(job, r, g0, g1, row_packed, DT, B, nt, pf);                          \
    else groups_t(job, r, g0, g1, row_packed, DT, B, nt, 0);                                   \
  }

#endif /* ACTQ_CPU_DEQUANTIZE_INSTANCE_H */
