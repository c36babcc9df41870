/* noise_cost_avx2.c - AVX2 (+AES-NI) versions of the candidate generators of
 * bench/noise_gen.h, written the way the library's kernel would (cpu/avx2/noise_avx2.c).
 * Each fills out[] with the r16 values of elements e0 .. e0 + n - 1 (e0 and n multiples of
 * 64) and must give exactly the bytes of the scalar reference; noise_cost checks that. */
#include <immintrin.h>

#include "noise_cost.h"

/* ---- philox7: cpu/avx2/noise_avx2.c with the round count as a parameter --------------- */
typedef struct ph4 {
  __m256i c0, c1, c2, c3;
} ph4;

static inline void ph4_round(ph4 *p, __m256i k0, __m256i k1) {
  const __m256i m0 = _mm256_set1_epi64x(ACTQ_PHILOX_M0);
  const __m256i m1 = _mm256_set1_epi64x(ACTQ_PHILOX_M1);
  __m256i p0 = _mm256_mul_epu32(p->c0, m0);
  __m256i p1 = _mm256_mul_epu32(p->c2, m1);
  __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi32(p1, 0xb1), p->c1), k0);
  __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi32(p0, 0xb1), p->c3), k1);
  p->c0 = n0;
  p->c1 = p1;
  p->c2 = n2;
  p->c3 = p0;
}

static inline void ph4_store(const ph4 *p, uint16_t *out) {
  const __m256i lo = _mm256_set1_epi64x(0xffffffffLL);
  __m256i a = _mm256_or_si256(_mm256_and_si256(p->c0, lo), _mm256_slli_epi64(p->c1, 32));
  __m256i b = _mm256_or_si256(_mm256_and_si256(p->c2, lo), _mm256_slli_epi64(p->c3, 32));
  __m256i i02 = _mm256_unpacklo_epi64(a, b);
  __m256i i13 = _mm256_unpackhi_epi64(a, b);
  _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(i02, i13, 0x20));
  _mm256_storeu_si256((__m256i *)(out + 16), _mm256_permute2x128_si256(i02, i13, 0x31));
}

void nc_philox7_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  enum { R = 7 };
  __m256i k0[R], k1[R];
  const __m256i off_lo = _mm256_set1_epi64x((long long)(uint32_t)offset);
  const __m256i off_hi = _mm256_set1_epi64x((long long)(offset >> 32));
  const __m256i four = _mm256_set1_epi64x(4), eight = _mm256_set1_epi64x(8);
  __m256i blocks = _mm256_add_epi64(_mm256_set1_epi64x((long long)(e0 >> 3)),
                                    _mm256_setr_epi64x(0, 1, 2, 3));
  uint32_t s0 = (uint32_t)seed, s1 = (uint32_t)(seed >> 32);
  size_t i;
  int r;
  for (r = 0; r < R; r++) {
    k0[r] = _mm256_set1_epi64x(s0);
    k1[r] = _mm256_set1_epi64x(s1);
    s0 += ACTQ_PHILOX_W0;
    s1 += ACTQ_PHILOX_W1;
  }
  for (i = 0; i < n / 8; i += 8) {
    __m256i b4 = _mm256_add_epi64(blocks, four);
    ph4 a = {blocks, _mm256_srli_epi64(blocks, 32), off_lo, off_hi};
    ph4 b = {b4, _mm256_srli_epi64(b4, 32), off_lo, off_hi};
    for (r = 0; r < R; r++) {
      ph4_round(&a, k0[r], k1[r]);
      ph4_round(&b, k0[r], k1[r]);
    }
    ph4_store(&a, out + 8 * i);
    ph4_store(&b, out + 8 * i + 32);
    blocks = _mm256_add_epi64(blocks, eight);
  }
}

/* ---- mx3: 8 pairs (16 elements) per vector, two vectors interleaved ------------------- */
static inline __m256i mx3_8(__m256i q, __m256i k0, __m256i k1h, __m256i k2) {
  const __m256i c1 = _mm256_set1_epi32((int)NG_MX_C1);
  const __m256i c2 = _mm256_set1_epi32((int)NG_MX_C2);
  const __m256i c3 = _mm256_set1_epi32((int)NG_MX_C3);
  __m256i x = _mm256_xor_si256(q, k0);
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 17));
  x = _mm256_mullo_epi32(x, c1);
  x = _mm256_xor_si256(_mm256_xor_si256(x, _mm256_srli_epi32(x, 11)), k1h);
  x = _mm256_mullo_epi32(x, c2);
  x = _mm256_xor_si256(_mm256_xor_si256(x, _mm256_srli_epi32(x, 15)), k2);
  x = _mm256_mullo_epi32(x, c3);
  return _mm256_xor_si256(x, _mm256_srli_epi32(x, 14));
}

void nc_mx3_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(seed, offset);
  const __m256i k0 = _mm256_set1_epi32((int)k.k0), k2 = _mm256_set1_epi32((int)k.k2);
  const __m256i sixteen = _mm256_set1_epi32(16), eight = _mm256_set1_epi32(8);
  uint64_t q0 = e0 >> 1;
  size_t i = 0;
  while (i < n) {
    /* hi32(q) is the same for the whole run up to the next 2^32 boundary of q, so it is
     * folded into k1 once per run (a per-element xor in the scalar reference) */
    const uint64_t q = q0 + i / 2;
    const uint64_t run_end = ((q >> 32) + 1) << 32; /* first q with another hi32 */
    size_t stop = n;
    if ((run_end - q) * 2 < (uint64_t)(n - i)) stop = i + (size_t)(run_end - q) * 2;
    const __m256i k1h = _mm256_set1_epi32((int)(k.k1 ^ (uint32_t)(q >> 32)));
    __m256i qa = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)q),
                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (; i < stop; i += 32) { /* 2^32 boundaries of q are at multiples of 2^33 elements */
      __m256i qb = _mm256_add_epi32(qa, eight);
      _mm256_storeu_si256((__m256i *)(out + i), mx3_8(qa, k0, k1h, k2));
      _mm256_storeu_si256((__m256i *)(out + i + 16), mx3_8(qb, k0, k1h, k2));
      qa = _mm256_add_epi32(qa, sixteen);
    }
  }
}

static inline __m256i mx2_8(__m256i q, __m256i k0, __m256i k1h, __m256i unused) {
  const __m256i c1 = _mm256_set1_epi32((int)NG_MX2_C1);
  const __m256i c2 = _mm256_set1_epi32((int)NG_MX2_C2);
  __m256i x = _mm256_xor_si256(q, k0);
  (void)unused;
  x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
  x = _mm256_mullo_epi32(x, c1);
  x = _mm256_xor_si256(_mm256_xor_si256(x, _mm256_srli_epi32(x, 15)), k1h);
  x = _mm256_mullo_epi32(x, c2);
  return _mm256_xor_si256(x, _mm256_srli_epi32(x, 15));
}

/* mx2: the fill of mx3 with the two-multiply hash */
void nc_mx2_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_mx_key k = ng_mx_derive(seed, offset);
  const __m256i k0 = _mm256_set1_epi32((int)k.k0), k2 = _mm256_set1_epi32((int)k.k2);
  const __m256i sixteen = _mm256_set1_epi32(16), eight = _mm256_set1_epi32(8);
  uint64_t q0 = e0 >> 1;
  size_t i = 0;
  while (i < n) {
    /* hi32(q) is the same for the whole run up to the next 2^32 boundary of q, so it is
     * folded into k1 once per run (a per-element xor in the scalar reference) */
    const uint64_t q = q0 + i / 2;
    const uint64_t run_end = ((q >> 32) + 1) << 32; /* first q with another hi32 */
    size_t stop = n;
    if ((run_end - q) * 2 < (uint64_t)(n - i)) stop = i + (size_t)(run_end - q) * 2;
    const __m256i k1h = _mm256_set1_epi32((int)(k.k1 ^ (uint32_t)(q >> 32)));
    __m256i qa = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)q),
                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (; i < stop; i += 32) { /* 2^32 boundaries of q are at multiples of 2^33 elements */
      __m256i qb = _mm256_add_epi32(qa, eight);
      _mm256_storeu_si256((__m256i *)(out + i), mx2_8(qa, k0, k1h, k2));
      _mm256_storeu_si256((__m256i *)(out + i + 16), mx2_8(qb, k0, k1h, k2));
      qa = _mm256_add_epi32(qa, sixteen);
    }
  }
}

/* ---- ars5 (AES-NI, 128-bit): four blocks in flight for the aesenc latency ------------- */
void nc_ars5_aesni(uint64_t seed, uint64_t offset, uint64_t e0, size_t n, uint16_t *out) {
  const ng_ars_key k = ng_ars_derive(seed);
  const __m128i one = _mm_set_epi64x(0, 1), three = _mm_set_epi64x(0, 3);
  const __m128i four = _mm_set_epi64x(0, 4);
  /* counter = {block (low 64 bits), offset (high 64 bits)} */
  __m128i c = _mm_set_epi64x((long long)offset, (long long)(e0 >> 3));
  size_t i;
  int r;
  for (i = 0; i < n; i += 32) {
    __m128i v0 = _mm_xor_si128(c, k.rk[0]);
    __m128i v1 = _mm_xor_si128(_mm_add_epi64(c, one), k.rk[0]);
    __m128i v2 = _mm_xor_si128(_mm_add_epi64(c, _mm_add_epi64(one, one)), k.rk[0]);
    __m128i v3 = _mm_xor_si128(_mm_add_epi64(c, three), k.rk[0]);
    for (r = 1; r < 5; r++) {
      v0 = _mm_aesenc_si128(v0, k.rk[r]);
      v1 = _mm_aesenc_si128(v1, k.rk[r]);
      v2 = _mm_aesenc_si128(v2, k.rk[r]);
      v3 = _mm_aesenc_si128(v3, k.rk[r]);
    }
    _mm_storeu_si128((__m128i *)(out + i), _mm_aesenclast_si128(v0, k.rk[5]));
    _mm_storeu_si128((__m128i *)(out + i + 8), _mm_aesenclast_si128(v1, k.rk[5]));
    _mm_storeu_si128((__m128i *)(out + i + 16), _mm_aesenclast_si128(v2, k.rk[5]));
    _mm_storeu_si128((__m128i *)(out + i + 24), _mm_aesenclast_si128(v3, k.rk[5]));
    c = _mm_add_epi64(c, four); /* the block word of a call never wraps in 2^64 */
  }
}

/* ---- the library's Philox4x32-10 kernel, cpu/avx2/noise_avx2.c, linked in as it is ---- */
void actq_avx2_noise_fill(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                          uint16_t *out);

void nc_philox10_lib_avx2(uint64_t seed, uint64_t offset, uint64_t e0, size_t n,
                          uint16_t *out) {
  actq_avx2_noise_fill(seed, offset, e0 >> 3, n / 8, out);
}

/* ---- throughput of the instructions the generators are made of ---------------------- */
/* 8 independent chains of one instruction, so latency is hidden and the rate is the
 * core's throughput for it: the figures that explain the fills' cycles on this core.
 * which: 0 vpmuludq ymm, 1 vpmulld ymm, 2 vpxor ymm, 3 vpshufd ymm, 4 aesenc xmm. */
#include <time.h>

#define NC_X8(insn)                                                                        \
  insn " %%ymm8, %%ymm0, %%ymm0\n\t" insn " %%ymm8, %%ymm1, %%ymm1\n\t" insn                \
       " %%ymm8, %%ymm2, %%ymm2\n\t" insn " %%ymm8, %%ymm3, %%ymm3\n\t" insn                \
       " %%ymm8, %%ymm4, %%ymm4\n\t" insn " %%ymm8, %%ymm5, %%ymm5\n\t" insn                \
       " %%ymm8, %%ymm6, %%ymm6\n\t" insn " %%ymm8, %%ymm7, %%ymm7\n\t"

static double nc_cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double nc_insn_cycles(int which, double hz) {
  const long iters = 20000000;
  double best = 1e30;
  int run;
  for (run = 0; run < 3; run++) {
    long i;
    double t0 = nc_cpu_now(), dt;
    for (i = 0; i < iters; i++) {
      switch (which) {
        case 0: __asm__ volatile(NC_X8("vpmuludq") ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7"); break;
        case 1: __asm__ volatile(NC_X8("vpmulld") ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7"); break;
        case 2: __asm__ volatile(NC_X8("vpxor") ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7"); break;
        case 3:
          __asm__ volatile("vpshufd $0xb1, %%ymm0, %%ymm0\n\tvpshufd $0xb1, %%ymm1, %%ymm1\n\t"
                           "vpshufd $0xb1, %%ymm2, %%ymm2\n\tvpshufd $0xb1, %%ymm3, %%ymm3\n\t"
                           "vpshufd $0xb1, %%ymm4, %%ymm4\n\tvpshufd $0xb1, %%ymm5, %%ymm5\n\t"
                           "vpshufd $0xb1, %%ymm6, %%ymm6\n\tvpshufd $0xb1, %%ymm7, %%ymm7\n\t"
                           ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
          break;
        default:
          __asm__ volatile("aesenc %%xmm8, %%xmm0\n\taesenc %%xmm8, %%xmm1\n\t"
                           "aesenc %%xmm8, %%xmm2\n\taesenc %%xmm8, %%xmm3\n\t"
                           "aesenc %%xmm8, %%xmm4\n\taesenc %%xmm8, %%xmm5\n\t"
                           "aesenc %%xmm8, %%xmm6\n\taesenc %%xmm8, %%xmm7\n\t"
                           ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
      }
    }
    dt = nc_cpu_now() - t0;
    if (dt < best) best = dt;
  }
  return best * hz / (8.0 * (double)iters);
}
