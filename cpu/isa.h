/* isa.h - which instruction sets the running CPU and OS allow, decided once per process.
 *
 * ACTQ_BACKEND_CPU picks its kernel table from this, never from the build machine. The
 * environment variable ACTQ_CPU_ISA=scalar|avx2|avx512|avx512bf16 caps the choice (read
 * once, at the first context creation); an unknown or empty value is ignored and the best
 * path runs. A cap above what the machine has (avx512 on an AVX2-only CPU) gives the best
 * it has.
 */
#ifndef ACTQ_CPU_ISA_H
#define ACTQ_CPU_ISA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" { /* bench/bench_cpu.cpp reads the cache size */
#endif

typedef enum actq_cpu_isa {
  ACTQ_ISA_SCALAR = 0,
  ACTQ_ISA_AVX2 = 1,   /* AVX2 + FMA + F16C, YMM state saved by the OS */
  ACTQ_ISA_AVX512 = 2, /* the above + AVX-512 F/BW/DQ/VL/VBMI (Ice Lake, Zen 4 and later),
                           ZMM and opmask state saved */
  ACTQ_ISA_AVX512_BF16 = 3 /* the above + AVX512_BF16 (Cooper Lake, Sapphire Rapids, Zen 4
                              and later; not Ice Lake) */
} actq_cpu_isa;

/* The best ISA this CPU and OS support (cpuid + XGETBV), cached. Thread-safe. */
actq_cpu_isa actq_cpu_isa_detected(void);

/* The detected ISA capped by ACTQ_CPU_ISA, cached. Thread-safe. */
actq_cpu_isa actq_cpu_isa_selected(void);

/* The size in bytes of the highest cache level cpu0 has (Linux sysfs; 0 where unknown),
 * cached. Thread-safe. */
size_t actq_cpu_llc_bytes(void);

/* ACTQ_STREAM_MIN_BYTES from the environment (a positive decimal byte count), read once;
 * 0 when unset or not such a number. cpu/stream.h's threshold then takes it: for machines
 * whose reported LLC is not what one core can use (a VM reporting its host's 480 MiB L3),
 * and for tests that need one size on every machine. */
size_t actq_cpu_stream_min_env(void);

/* ACTQ_PREFETCH_L2_MIN_BYTES from the environment, read once, as above; 0 when unset.
 * cpu/prefetch.h's threshold then takes it (the tests set it low, so that calls of test
 * sizes take both sides of it). */
size_t actq_cpu_prefetch_l2_min_env(void);

/* ACTQ_Y_LUT_BUILD_ELEMENTS from the environment (a positive decimal count), read once;
 * 0 when unset or not such a number. cpu/y_lut.c's rule then takes it: a context builds
 * a y table once it has computed y for that many elements of the table's key (the tests
 * set it low, so that calls of test sizes build tables). */
size_t actq_cpu_y_lut_build_env(void);

#ifdef __cplusplus
}
#endif

#endif /* ACTQ_CPU_ISA_H */
