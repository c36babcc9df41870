/* noise_cost.c - cost per element of the noise generators, buffer in L1.
 *
 * For each fill (bench/noise_cost.h): checks its bytes against the scalar reference, then
 * fills the same N-element buffer (default 1024 elements = 2 KiB, L1-resident) with
 * advancing e0 for about 0.2 s of thread CPU time, best of 7 runs, and prints G elem/s, ns/elem and core
 * cycles per element. The core clock is measured, not assumed: a chain of dependent adds
 * runs at one add per cycle, so its rate is the clock the fills see (turbo included).
 * Single thread; run it niced and pinned on a shared machine (bench/noise_cost.sh).
 *
 * usage: noise_cost [N (elements, multiple of 128)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cpuid.h>

#include "noise_cost.h"

/* The thread's CPU time, not wall time: on a machine shared with other jobs the fills and
 * the clock measurement are then both timed only while this thread runs. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Core cycles per second from 8 dependent adds per iteration (latency 1 on every x86). */
static double clock_hz(void) {
  double best = 0;
  int run;
  for (run = 0; run < 5; run++) {
    unsigned long long x = 0, i, iters = 50000000ull;
    double t0 = now(), dt;
    for (i = 0; i < iters; i++) {
      __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                       "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                       : "+r"(x));
    }
    dt = now() - t0;
    if (8.0 * (double)iters / dt > best) best = 8.0 * (double)iters / dt;
  }
  return best;
}

typedef struct fill_case {
  const char *name;   /* generator */
  const char *impl;   /* how it is computed */
  nc_fill_fn fn, ref; /* ref: the scalar reference it must match */
  int isa;            /* 0 scalar, 1 AVX2 (+AES-NI), 2 AVX-512, 3 AVX-512 + VAES */
} fill_case;

static void ars5_ref(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_ars_key k = ng_ars_derive(seed);
  size_t i;
  for (i = 0; i < n; i += 8)
    _mm_storeu_si128((__m128i *)(out + i), ng_ars5(&k, offset, (e0 + i) >> 3));
}

static uint32_t ars_te[256];

static void ars5_soft(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_ars_rk k = ng_ars_rk_derive(seed);
  size_t i;
  for (i = 0; i < n; i += 8) ng_ars5_soft(&k, ars_te, offset, (e0 + i) >> 3, (uint32_t *)(out + i));
}

static const fill_case cases[] = {
    {"philox10", "scalar C (actq_noise_block)", nc_philox10_ref, nc_philox10_ref, 0},
    {"philox10", "AVX2 library actq_avx2_noise_fill", nc_philox10_lib_avx2, nc_philox10_ref, 1},
    {"philox10", "AVX-512 library actq_avx512_noise_fill", nc_philox10_lib_avx512, nc_philox10_ref, 2},
    {"philox7", "scalar C", nc_philox7_ref, nc_philox7_ref, 0},
    {"philox7", "AVX2", nc_philox7_avx2, nc_philox7_ref, 1},
    {"philox7", "AVX-512", nc_philox7_avx512, nc_philox7_ref, 2},
    {"mx2", "scalar C", nc_mx2_ref, nc_mx2_ref, 0},
    {"mx2", "AVX2", nc_mx2_avx2, nc_mx2_ref, 1},
    {"mx2", "AVX-512", nc_mx2_avx512, nc_mx2_ref, 2},
    {"mx3", "scalar C", nc_mx3_ref, nc_mx3_ref, 0},
    {"mx3", "AVX2", nc_mx3_avx2, nc_mx3_ref, 1},
    {"mx3", "AVX-512", nc_mx3_avx512, nc_mx3_ref, 2},
    {"ars5", "portable C, T-table (no AES instructions)", ars5_soft, ars5_ref, 1},
    {"ars5", "AES-NI, 1 block at a time", ars5_ref, ars5_ref, 1},
    {"ars5", "AES-NI, 4 blocks in flight", nc_ars5_aesni, ars5_ref, 1},
    {"ars5", "AVX-512 VAES", nc_ars5_vaes512, ars5_ref, 3},
};

static int isa_ok(int isa) {
  __builtin_cpu_init();
  if (isa == 0) return 1;
  if (isa == 1) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("aes");
  if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")))
    return 0;
  if (isa == 2) return 1;
  { /* VAES is CPUID.(EAX=7,ECX=0):ECX bit 9 (not every compiler's cpu_supports knows it) */
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c >> 9 & 1);
  }
}

/* Same bytes as the reference at several places, including across a change of the high
 * counter word (block 2^32 for Philox, pair 2^32 for mx3). */
static int check(const fill_case *c) {
  static const uint64_t seeds[] = {0, 1, 0x0123456789abcdefull, ~0ull};
  static const uint64_t starts[] = {0, 1024, ((uint64_t)1 << 33) - 512, ((uint64_t)1 << 35) - 512};
  enum { N = 4096 };
  static uint16_t a[N + 64], b[N + 64];
  size_t s, t;
  for (s = 0; s < 4; s++)
    for (t = 0; t < 4; t++) {
      memset(a, 0, sizeof a);
      memset(b, 0, sizeof b);
      c->fn(seeds[s], seeds[3 - s] ^ t, starts[t], N, a);
      c->ref(seeds[s], seeds[3 - s] ^ t, starts[t], N, b);
      if (memcmp(a, b, sizeof a)) return 0;
    }
  return 1;
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 0) : 1024;
  uint16_t *buf;
  double hz;
  size_t i;
  if (n == 0 || n % 128) {
    fprintf(stderr, "N must be a positive multiple of 128\n");
    return 2;
  }
  buf = aligned_alloc(64, n * sizeof *buf + 128);
  ng_aes_te0_init(ars_te, ng_aes_sbox);
  hz = clock_hz();
  printf("# noise_cost: buffer %zu elements (%zu bytes), single thread, core clock %.3f GHz "
         "(measured)\n",
         n, n * sizeof *buf, hz * 1e-9);
  printf("%-9s %-40s %10s %9s %11s\n", "generator", "implementation", "G elem/s", "ns/elem",
         "cycles/elem");
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const fill_case *c = &cases[i];
    double best = 1e30;
    uint64_t e0 = 0;
    unsigned sink = 0;
    int run;
    if (!isa_ok(c->isa)) {
      printf("%-9s %-40s %10s\n", c->name, c->impl, "(no ISA)");
      continue;
    }
    if (!check(c)) {
      printf("%-9s %-40s MISMATCH against the scalar reference\n", c->name, c->impl);
      return 1;
    }
    for (run = 0; run < 7; run++) {
      size_t reps = 0, k;
      double t0 = now(), dt;
      do {
        for (k = 0; k < 64; k++) {
          c->fn(12345, 678, e0, n, buf);
          e0 += n;
        }
        reps += 64;
        dt = now() - t0;
      } while (dt < 0.2);
      sink += buf[n / 2];
      if (dt / ((double)reps * (double)n) < best) best = dt / ((double)reps * (double)n);
    }
    printf("%-9s %-40s %10.3f %9.3f %11.3f\n", c->name, c->impl, 1e-9 / best, best * 1e9,
           best * hz);
    if (sink == 0xdeadbeef) puts(""); /* keeps the stores alive */
  }
  if (isa_ok(1)) {
    static const char *const names[] = {"vpmuludq ymm", "vpmulld ymm", "vpxor ymm",
                                        "vpshufd ymm", "aesenc xmm"};
    printf("# throughput, 8 independent chains: cycles per instruction\n");
    for (i = 0; i < 5; i++) printf("%-13s %.3f\n", names[i], nc_insn_cycles((int)i, hz));
  }
  free(buf);
  return 0;
}
