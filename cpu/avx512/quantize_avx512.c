/* quantize_avx512.c - the fused quantize kernel of cpu/avx2/quantize_avx2.c, 16 lanes wide.
 *
 * Same passes, same formulas, same tails (see that file); what changes is the width: with
 * the 16-lane Philox generator running on the two 512-bit ports, the AVX2 pass 2 needed
 * twice the micro-ops per element on the same ports, so quantize stayed compute-bound.
 * Codes are packed 64 at a time and stored exactly with a byte-masked store (AVX-512 VBMI).
 */
#include <immintrin.h>
#include <string.h>

#include "arith/elem.h"
#include "arith/quant.h"
#include "cpu/avx2/avx2.h"
#include "cpu/prefetch.h"
#include "cpu/avx512/bits_tables_avx512.h"
#include "cpu/avx512/avx512.h"

#define CHUNK 1024 /* elements per noise batch: the buffer stays in L1 */

#define INLINE static inline __attribute__((always_inline))

/* 16 elements from index i of x (dtype dt), as float32; `mask` selects the lanes read
 * (the others are `fill`). */
INLINE __m512 load16(const void *x, int dt, size_t i, __mmask16 mask, __m512 fill) {
  __m256i h;
  if (dt == ACTQ_F32) return _mm512_mask_loadu_ps(fill, mask, (const float *)x + i);
  h = _mm256_maskz_loadu_epi16(mask, (const uint16_t *)x + i);
  if (dt == ACTQ_F16) return _mm512_mask_mov_ps(fill, mask, _mm512_cvtph_ps(h));
  return _mm512_mask_mov_ps(fill, mask,
                            _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
}

/* Pass 1 (see group_range in quantize_avx2.c). Lanes past the whole units repeat the
 * first vector, so they change neither min, max nor the nonfinite check. */
INLINE void group_range(const void *x, int dt, size_t i0, size_t n, float *mn, float *mx,
                        int *finite) {
  const __m512i absmask = _mm512_set1_epi32(0x7fffffff);
  size_t full = n & ~(size_t)7, j;
  float lo = 0.0f, hi = 0.0f;
  int fin = 1, seen = 0;
  if (full) {
    __mmask16 m0 = full >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff;
    __m512 v = load16(x, dt, i0, m0, _mm512_setzero_ps());
    __m512 mn0, mx0, mn1, mx1;
    __m512i big0, big1;
    if (full < 16) v = _mm512_mask_mov_ps(v, 0xff00, _mm512_permutexvar_ps(
                                                      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7), v));
    mn0 = mx0 = mn1 = mx1 = v;
    big0 = big1 = _mm512_and_si512(_mm512_castps_si512(v), absmask);
    for (j = 16; j + 32 <= full; j += 32) {
      __m512 a = load16(x, dt, i0 + j, 0xffff, v), b = load16(x, dt, i0 + j + 16, 0xffff, v);
      mn0 = _mm512_min_ps(mn0, a);
      mx0 = _mm512_max_ps(mx0, a);
      mn1 = _mm512_min_ps(mn1, b);
      mx1 = _mm512_max_ps(mx1, b);
      big0 = _mm512_max_epu32(big0, _mm512_and_si512(_mm512_castps_si512(a), absmask));
      big1 = _mm512_max_epu32(big1, _mm512_and_si512(_mm512_castps_si512(b), absmask));
    }
    for (; j < full && full >= 16; j += 16) {
      __mmask16 m = full - j >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff;
      __m512 a = load16(x, dt, i0 + j, m, v);
      mn0 = _mm512_min_ps(mn0, a);
      mx0 = _mm512_max_ps(mx0, a);
      big0 = _mm512_max_epu32(big0, _mm512_and_si512(_mm512_castps_si512(a), absmask));
    }
    lo = _mm512_reduce_min_ps(_mm512_min_ps(mn0, mn1));
    hi = _mm512_reduce_max_ps(_mm512_max_ps(mx0, mx1));
    fin = (uint32_t)_mm512_reduce_max_epu32(_mm512_max_epu32(big0, big1)) < 0x7f800000u;
    seen = 1;
  }
  for (j = full; j < n; j++) /* the reference's step, for the row's last partial unit */
    actq_minmax_step(actq_load_elem(x, dt, i0 + j), &lo, &hi, &fin, &seen);
  *mn = lo;
  *mx = hi;
  *finite = fin;
}


typedef struct vec_meta {
  __m512 c, mc, sc;
  __m512i levels;
  int wide;
} vec_meta;

/* Codes of 16 elements as bytes, as actq_code_stochastic / actq_code_nearest. Since
 * x >= m, t = (x*c - m*c) / (s*c) >= 0 (every step is monotone), and t + u > 0: so
 * floor(t + u) is the truncating conversion, and the float clamp to [0, L] of an integer
 * value equals the integer clamp after it. rint(t) is the conversion with embedded
 * round-to-nearest-even. One conversion instead of a rounding plus a conversion. */
INLINE __m512i codes16(__m512 x, const vec_meta *vm, int stochastic, const uint16_t *noise) {
  __m512 num = _mm512_sub_ps(vm->wide ? _mm512_mul_ps(x, vm->c) : x, vm->mc);
  __m512 t = _mm512_div_ps(num, vm->sc);
  __m512i q;
  if (stochastic) {
    __m512 r = _mm512_cvtepi32_ps(
        _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)noise)));
    __m512 u = _mm512_fmadd_ps(r, _mm512_set1_ps(1.0f / 65536.0f),
                               _mm512_set1_ps(1.0f / 131072.0f));
    q = _mm512_cvttps_epi32(_mm512_add_ps(t, u));
  } else {
    q = _mm512_cvt_roundps_epi32(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  return _mm512_min_epi32(_mm512_max_epi32(q, _mm512_setzero_si512()), vm->levels);
}

/* 4 vectors of 16 codes (32-bit lanes, each < 2^b) -> 8 units = 8b bytes, stored exactly:
 * bytes in element order (two packs and a dword permute), then the AVX2 packer's pairwise
 * merges (16-, 32-, 64-bit lanes of 2b, 4b, 8b bits), then vpermb gathers the 8 units'
 * b bytes, and a masked store writes only the `nunits` whole units asked for. */
INLINE void pack64_store(__m512i q0, __m512i q1, __m512i q2, __m512i q3, uint32_t b,
                         size_t nunits, uint8_t *out) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m512i v = _mm512_packus_epi16(_mm512_packus_epi32(q0, q1), _mm512_packus_epi32(q2, q3));
  v = _mm512_permutexvar_epi32(order, v);
  if (b <= 6) {
    v = _mm512_maddubs_epi16(v, _mm512_set1_epi16((short)((1 << b) << 8 | 1)));
  } else if (b == 7) {
    const __m512i lo = _mm512_set1_epi16(0x00ff);
    v = _mm512_or_si512(_mm512_and_si512(v, lo), _mm512_srli_epi16(_mm512_andnot_si512(lo, v), 1));
  }
  if (b <= 7) v = _mm512_madd_epi16(v, _mm512_set1_epi32((1 << (2 * b)) << 16 | 1));
  /* (v & 0xffffffff) | ((v >> 32) << 4b) */
  v = _mm512_ternarylogic_epi64(v, _mm512_set1_epi64(0xffffffffLL),
                                _mm512_sllv_epi64(_mm512_srli_epi64(v, 32), _mm512_set1_epi64(4 * b)),
                                0xea);
  v = _mm512_permutexvar_epi8(_mm512_load_si512((const void *)actq_avx512_gather_units[b]), v);
  _mm512_mask_storeu_epi8(out, nunits * b >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (nunits * b)) - 1), v);
}

INLINE void quantize_chunk(const actq_quant_job *job, int dt, int stochastic, size_t base,
                           size_t c, size_t n, uint32_t bits, const actq_group_meta *g,
                           const vec_meta *vm, uint8_t *out, uint16_t *nbuf) {
  const size_t full = n / 8;
  size_t k = 0, u, j;
  if (stochastic) {
    const uint64_t e0 = (uint64_t)(base + c), b0 = e0 >> 3;
    const uint64_t nb = ((e0 + n - 1) >> 3) - b0 + 1;
    actq_avx512_noise_fill(job->seed, job->offset, b0, (size_t)nb, nbuf);
    k = (size_t)(e0 & 7);
  }
  for (u = 0; u + 8 <= full; u += 8) {
    const size_t i = base + c + 8 * u;
    const uint16_t *nz = nbuf + k + 8 * u;
    const __m512 z = _mm512_setzero_ps();
    pack64_store(codes16(load16(job->x, dt, i, 0xffff, z), vm, stochastic, nz),
                 codes16(load16(job->x, dt, i + 16, 0xffff, z), vm, stochastic, nz + 16),
                 codes16(load16(job->x, dt, i + 32, 0xffff, z), vm, stochastic, nz + 32),
                 codes16(load16(job->x, dt, i + 48, 0xffff, z), vm, stochastic, nz + 48), bits,
                 8, out);
    out += 8 * bits;
  }
  if (u < full) { /* 1 to 7 whole units left; lanes past them are computed, not stored */
    const size_t left = full - u, i = base + c + 8 * u;
    const uint16_t *nz = nbuf + k + 8 * u;
    const __m512 z = _mm512_setzero_ps();
    __m512i q[4];
    for (j = 0; j < 4; j++) {
      const size_t have = left * 8 > 16 * j ? left * 8 - 16 * j : 0; /* elements in vector j */
      const __mmask16 m = have >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << have) - 1u);
      q[j] = codes16(load16(job->x, dt, i + 16 * j, m, z), vm, stochastic, nz + 16 * j);
    }
    pack64_store(q[0], q[1], q[2], q[3], bits, left, out);
    out += left * bits;
  }
  if (n % 8) { /* the row's last, partial unit: the reference's scalar code */
    uint32_t codes[8];
    const size_t c8 = c + 8 * full;
    for (j = 0; j < n % 8; j++) {
      float v = actq_load_elem(job->x, dt, base + c8 + j);
      codes[j] = stochastic ? actq_code_stochastic(v, g, nbuf[k + 8 * full + j])
                            : actq_code_nearest(v, g);
    }
    actq_pack_unit(codes, n % 8, bits, out);
  }
}

INLINE size_t quantize_groups_t(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                uint8_t *row_packed, int dt, int stochastic) {
  const actq_grid *gr = &job->grid;
  const uint32_t bits = actq_grid_row_bits(gr, r);
  const size_t base = r * gr->cols;
  /* + 64: the remainder reads noise past the chunk's last block (never used) */
  uint16_t nbuf[CHUNK + 128 + 64] __attribute__((aligned(64)));
  size_t nonfinite = 0, gi, c;

  for (gi = g0; gi < g1; gi++) {
    const size_t c0 = actq_grid_group_begin(gr, gi), c1 = actq_grid_group_end(gr, gi);
    const size_t meta_index = r * gr->groups_per_row + gi;
    uint8_t *gout = row_packed + (c0 / 8) * bits;
    float mn, mx;
    int finite;
    actq_group_meta g;
    vec_meta vm;

    actq_prefetch_group(job->x, dt == ACTQ_F32 ? 4 : 2, base + c0, c1 - c0, base + gr->cols);
    group_range(job->x, dt, base + c0, c1 - c0, &mn, &mx, &finite);
    actq_group_meta_compute(mn, mx, finite, bits, (int)gr->meta_dtype, &g);
    actq_store_elem(job->group_min, (int)gr->meta_dtype, meta_index, g.m);
    actq_store_elem(job->group_scale, (int)gr->meta_dtype, meta_index, g.s);
    if (g.nonfinite) { /* codes 0 */
      nonfinite++;
      memset(gout, 0, actq_stream_bytes(c1 - c0, bits));
      continue;
    }
    vm.c = _mm512_set1_ps(g.c);
    vm.mc = _mm512_set1_ps(g.mc);
    vm.sc = _mm512_set1_ps(g.sc);
    vm.levels = _mm512_set1_epi32((1 << bits) - 1);
    vm.wide = g.c != 1.0f;
    for (c = c0; c < c1; c += CHUNK) {
      const size_t n = c1 - c < CHUNK ? c1 - c : CHUNK;
      quantize_chunk(job, dt, stochastic, base, c, n, bits, &g, &vm,
                     gout + ((c - c0) / 8) * bits, nbuf);
    }
  }
  return nonfinite;
}

size_t actq_avx512_quantize_groups(const actq_quant_job *job, size_t r, size_t g0, size_t g1,
                                   uint8_t *row_packed) {
  const int st = job->rounding == ACTQ_ROUND_STOCHASTIC;
  switch (job->x_dtype) {
  case ACTQ_F16:
    return st ? quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F16, 1)
              : quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F16, 0);
  case ACTQ_BF16:
    return st ? quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_BF16, 1)
              : quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_BF16, 0);
  default:
    return st ? quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F32, 1)
              : quantize_groups_t(job, r, g0, g1, row_packed, ACTQ_F32, 0);
  }
}
