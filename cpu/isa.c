/* isa.c - cpuid + XGETBV feature detection and the ACTQ_CPU_ISA cap (see isa.h).
 *
 * Compiled without any ISA flags: only this check decides whether code from cpu/avx2 or
 * cpu/avx512 may run. A CPU flag alone is not enough: the OS must also save the wider
 * register state on context switches (XCR0), or the upper halves would be lost. */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/isa.h"

#if defined(__x86_64__) || defined(__i386__)
#  include <cpuid.h>

static uint64_t read_xcr0(void) {
  uint32_t lo, hi;
  /* xgetbv spelled as bytes-free inline asm: no -mxsave needed for this file. */
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

static actq_cpu_isa detect(void) {
  unsigned a, b, c, d;
  uint64_t xcr0;
  int avx2;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return ACTQ_ISA_SCALAR;
  /* OSXSAVE (27), AVX (28), FMA (12), F16C (29) */
  if (!(c & (1u << 27)) || !(c & (1u << 28)) || !(c & (1u << 12)) || !(c & (1u << 29)))
    return ACTQ_ISA_SCALAR;
  xcr0 = read_xcr0();
  if ((xcr0 & 0x6u) != 0x6u) return ACTQ_ISA_SCALAR; /* XMM and YMM state */
  if (__get_cpuid_max(0, NULL) < 7) return ACTQ_ISA_SCALAR;
  __cpuid_count(7, 0, a, b, c, d);
  avx2 = (b & (1u << 5)) != 0;
  if (!avx2) return ACTQ_ISA_SCALAR;
  /* AVX-512 F (ebx 16), DQ (17), BW (30), VL (31), VBMI (ecx 1), and BMI2 (ebx 8: the
   * few-bit codes' pdep); opmask + ZMM_Hi256 + Hi16_ZMM state */
  if ((b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) && (b & (1u << 31)) &&
      (b & (1u << 8)) && (c & (1u << 1)) && (xcr0 & 0xe0u) == 0xe0u) {
    /* AVX512_BF16: leaf 7 subleaf 1, eax bit 5 (subleaf 0's eax: the last subleaf) */
    if (a < 1) return ACTQ_ISA_AVX512;
    __cpuid_count(7, 1, a, b, c, d);
    return (a & (1u << 5)) ? ACTQ_ISA_AVX512_BF16 : ACTQ_ISA_AVX512;
  }
  return ACTQ_ISA_AVX2;
}
#else
static actq_cpu_isa detect(void) { return ACTQ_ISA_SCALAR; }
#endif

static actq_cpu_isa detected_isa = ACTQ_ISA_SCALAR;
static actq_cpu_isa selected_isa = ACTQ_ISA_SCALAR;
static size_t llc_bytes = 0;
static size_t stream_min_env = 0;
static size_t prefetch_l2_min_env = 0;
static size_t y_lut_build_env = 0;
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;

/* The size of the highest cache level cpu0 reports in sysfs (Linux; 0 elsewhere). Not
 * sysconf(_SC_LEVEL3_CACHE_SIZE): glibc reported 384 MiB on a Zen 5 VM whose L3 is 32 MiB
 * (the host's L3 slices summed). */
static size_t cache_bytes(void) {
  size_t best = 0;
  int best_level = 0, i;
  for (i = 0; i < 8; i++) {
    char path[64];
    int level = 0;
    unsigned long kib = 0;
    FILE *f;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if (!(f = fopen(path, "r"))) break;
    if (fscanf(f, "%d", &level) != 1) level = 0;
    fclose(f);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!(f = fopen(path, "r"))) break;
    if (fscanf(f, "%luK", &kib) != 1) kib = 0;
    fclose(f);
    if (level > best_level && kib) {
      best_level = level;
      best = (size_t)kib << 10;
    }
  }
  return best;
}

/* A positive decimal count from the environment; 0 when unset or not such a number */
static size_t env_count(const char *name) {
  const char *s = getenv(name);
  if (s && *s >= '0' && *s <= '9') {
    char *end;
    const unsigned long long v = strtoull(s, &end, 10);
    if (*end == '\0' && v > 0 && v <= SIZE_MAX) return (size_t)v;
  }
  return 0;
}

static void decide(void) {
  const char *cap = getenv("ACTQ_CPU_ISA");
  llc_bytes = cache_bytes();
  stream_min_env = env_count("ACTQ_STREAM_MIN_BYTES");
  prefetch_l2_min_env = env_count("ACTQ_PREFETCH_L2_MIN_BYTES");
  y_lut_build_env = env_count("ACTQ_Y_LUT_BUILD_ELEMENTS");
  detected_isa = detect();
  selected_isa = detected_isa;
  if (cap) {
    actq_cpu_isa want = detected_isa; /* unknown value: the best path, as documented */
    if (strcmp(cap, "scalar") == 0) want = ACTQ_ISA_SCALAR;
    else if (strcmp(cap, "avx2") == 0) want = ACTQ_ISA_AVX2;
    else if (strcmp(cap, "avx512") == 0) want = ACTQ_ISA_AVX512;
    else if (strcmp(cap, "avx512bf16") == 0) want = ACTQ_ISA_AVX512_BF16;
    if (want < selected_isa) selected_isa = want;
  }
}

actq_cpu_isa actq_cpu_isa_detected(void) {
  pthread_once(&isa_once, decide);
  return detected_isa;
}

actq_cpu_isa actq_cpu_isa_selected(void) {
  pthread_once(&isa_once, decide);
  return selected_isa;
}

size_t actq_cpu_llc_bytes(void) {
  pthread_once(&isa_once, decide);
  return llc_bytes;
}

size_t actq_cpu_stream_min_env(void) {
  pthread_once(&isa_once, decide);
  return stream_min_env;
}

size_t actq_cpu_prefetch_l2_min_env(void) {
  pthread_once(&isa_once, decide);
  return prefetch_l2_min_env;
}

size_t actq_cpu_y_lut_build_env(void) {
  pthread_once(&isa_once, decide);
  return y_lut_build_env;
}
