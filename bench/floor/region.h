/* region.h - llvm-mca region markers for the floor harnesses (bench/floor/floor.sh). Each
 * region is a function of straight-line code (flatten: every call inlined, the
 * constant-count loops unrolled at -O3). */
#ifndef ACTQ_BENCH_FLOOR_REGION_H
#define ACTQ_BENCH_FLOOR_REGION_H

#define REGION(name, body)                                   \
  __asm__ volatile("# LLVM-MCA-BEGIN " name ::: "memory");   \
  body;                                                      \
  __asm__ volatile("# LLVM-MCA-END " name ::: "memory")

#define FLOOR __attribute__((noinline, flatten))

#endif /* ACTQ_BENCH_FLOOR_REGION_H */
