/* quantize_avx512.c - the passes of the shared group loop (cpu/quantize_groups.h), 16 lanes
 * wide: the formulas of cpu/avx2/quantize_avx2.c; what changes is the width: with the
 * 16-lane Philox generator running on the two 512-bit ports, the AVX2 pass 2 needed twice
 * the micro-ops per element on the same ports. Codes are packed 64 at a time and stored
 * exactly with a byte-masked store (AVX-512 VBMI).
 */
#include <immintrin.h>

#include "cpu/avx512/avx512.h"
#include "cpu/avx2/meta_avx2.h"
#include "cpu/avx512/bits_tables_avx512.h"
#include "cpu/avx512/philox_avx512.h"
#include "cpu/prefetch.h"
#include "cpu/quantize_groups.h"
#include "cpu/quantize_step.h"

#define INLINE ACTQ_INLINE

/* 16 elements from index i of x (f32 or f16; bf16 goes through load_v and range16), as
 * float32; `mask` selects the lanes read (the others are `fill`). */
INLINE __m512 load16(const void *x, actq_dtype dt, size_t i, __mmask16 mask, __m512 fill) {
  if (dt == ACTQ_F32) return _mm512_mask_loadu_ps(fill, mask, (const float *)x + i);
  return _mm512_mask_mov_ps(fill, mask,
                            _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, (const uint16_t *)x + i)));
}

/* Pass 2's vector v of a run from element e, as float32. f32 and f16: elements e + 16v ..
 * e + 16v + 15. bf16: the 32 elements from e + 32(v / 2) loaded once and widened by
 * vpunpck{l,h}wd with zero words (one micro-op for 16 elements, against a zero-extension and
 * a shift), so that lane k of vector 2c holds elements 32c + 8k .. 32c + 8k + 3 and of
 * vector 2c + 1 the next 4 ("quads"): the noise comes in that order (noise64,
 * philox8_noise64) and pack64_store puts the codes back in element order. `have`: the
 * elements present from vector v's first (32 or more: all); lanes past them are zero and
 * their codes are not stored. */
INLINE __m512 load_v(const void *x, actq_dtype dt, size_t e, int v, size_t have) {
  const size_t c = e + 32 * (size_t)(v >> 1);
  if (dt == ACTQ_BF16) {
    const __m512i w =
        have >= 32 ? _mm512_loadu_si512((const void *)((const uint16_t *)x + c))
                   : _mm512_maskz_loadu_epi16(((__mmask32)1 << have) - 1, (const uint16_t *)x + c);
    return _mm512_castsi512_ps(v & 1 ? _mm512_unpackhi_epi16(_mm512_setzero_si512(), w)
                                     : _mm512_unpacklo_epi16(_mm512_setzero_si512(), w));
  } else {
    const size_t h = v & 1 ? (have > 16 ? have - 16 : 0) : have;
    return load16(x, dt, c + 16 * (size_t)(v & 1),
                  h >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << h) - 1u), _mm512_setzero_ps());
  }
}

/* Order keys of 32 16-bit floats (actq_h16_key): a shift and a three-way logic op. */
INLINE __m512i h16_keys(__m512i v) {
  return _mm512_ternarylogic_epi32(v, _mm512_srai_epi16(v, 15), _mm512_set1_epi16(0x7fff),
                                   0x78); /* a ^ (b & c) */
}

/* The smallest of 32 signed 16-bit lanes. */
INLINE int16_t hmin_epi16(__m512i v) {
  __m256i h = _mm256_min_epi16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  __m128i q = _mm_min_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
  /* unsigned order of k ^ 0x8000 is the signed order of k */
  q = _mm_minpos_epu16(_mm_xor_si128(q, _mm_set1_epi16((short)0x8000)));
  return (int16_t)(_mm_extract_epi16(q, 0) ^ 0x8000);
}

/* Pass 1 of a 16-bit dtype (bf16, f16), as range_avx512, on order keys 32 lanes at a time:
 * no conversion to f32 (two micro-ops a vector of 16 for bf16, two for f16's vcvtph2ps)
 * and no NaN compare, since the min and max keys tell a NaN or an Inf
 * (actq_h16_keys_finite). Lanes past n repeat the first element. */
INLINE void range16_avx512(const uint16_t *x, actq_dtype dt, size_t i0, size_t n, float *mn,
                           float *mx, int *finite) {
  const __mmask32 m0 = n >= 32 ? ~(__mmask32)0 : (((__mmask32)1 << n) - 1);
  uint16_t h0;
  __m512i first, lo0, hi0, lo1, hi1;
  int16_t kmin, kmax;
  size_t j;
  memcpy(&h0, x + i0, sizeof h0); /* x may sit at an odd address */
  first = _mm512_set1_epi16((short)h0);
  lo0 = hi0 = lo1 = hi1 = h16_keys(_mm512_mask_loadu_epi16(first, m0, x + i0));
  for (j = 32; j + 64 <= n; j += 64) { /* two accumulator sets: min/max latency */
    const __m512i a = h16_keys(_mm512_loadu_si512((const void *)(x + i0 + j)));
    const __m512i b = h16_keys(_mm512_loadu_si512((const void *)(x + i0 + j + 32)));
    lo0 = _mm512_min_epi16(lo0, a);
    hi0 = _mm512_max_epi16(hi0, a);
    lo1 = _mm512_min_epi16(lo1, b);
    hi1 = _mm512_max_epi16(hi1, b);
  }
  for (; j < n; j += 32) {
    const __mmask32 m = n - j >= 32 ? ~(__mmask32)0 : (((__mmask32)1 << (n - j)) - 1);
    const __m512i a = h16_keys(_mm512_mask_loadu_epi16(first, m, x + i0 + j));
    lo0 = _mm512_min_epi16(lo0, a);
    hi0 = _mm512_max_epi16(hi0, a);
  }
  kmin = hmin_epi16(_mm512_min_epi16(lo0, lo1));
  /* max(k) = -1 - min(-1 - k), and -1 - k is ~k */
  kmax = (int16_t)~hmin_epi16(_mm512_xor_si512(_mm512_max_epi16(hi0, hi1),
                                                 _mm512_set1_epi32(-1)));
  actq_h16_keys_range(kmin, kmax, dt, mn, mx, finite);
}

/* Pass 1 (see range_avx2 in quantize_avx2.c), n a positive multiple of 8. Lanes past the
 * whole units repeat the first vector, so they change neither min, max nor the nonfinite
 * check. The check is a mask of NaN lanes (one unordered compare covers two vectors); an
 * Inf, if no NaN, is the min or the max itself. */
INLINE void range_avx512(const void *x, actq_dtype dt, size_t i0, size_t n, float *mn, float *mx,
                         int *finite) {
  const __mmask16 m0 = n >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff;
  __m512 v, mn0, mx0, mn1, mx1;
  __mmask16 nan;
  size_t j;
  if (dt != ACTQ_F32) {
    range16_avx512((const uint16_t *)x, dt, i0, n, mn, mx, finite);
    return;
  }
  v = load16(x, dt, i0, m0, _mm512_setzero_ps());
  if (n < 16)
    v = _mm512_mask_mov_ps(v, 0xff00, _mm512_permutexvar_ps(
                                          _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7), v));
  mn0 = mx0 = mn1 = mx1 = v;
  nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  for (j = 16; j + 32 <= n; j += 32) {
    __m512 a = load16(x, dt, i0 + j, 0xffff, v), b = load16(x, dt, i0 + j + 16, 0xffff, v);
    mn0 = _mm512_min_ps(mn0, a);
    mx0 = _mm512_max_ps(mx0, a);
    mn1 = _mm512_min_ps(mn1, b);
    mx1 = _mm512_max_ps(mx1, b);
    nan |= _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
  }
  for (; j < n; j += 16) {
    const __mmask16 m = n - j >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff;
    __m512 a = load16(x, dt, i0 + j, m, v);
    mn0 = _mm512_min_ps(mn0, a);
    mx0 = _mm512_max_ps(mx0, a);
    nan |= _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q);
  }
  *mn = _mm512_reduce_min_ps(_mm512_min_ps(mn0, mn1));
  *mx = _mm512_reduce_max_ps(_mm512_max_ps(mx0, mx1));
  *finite = (nan == 0) & actq_f32_is_finite(*mn) & actq_f32_is_finite(*mx);
}

typedef struct vec_meta {
  __m512 c, mc, sc, rcp, num_min;
} vec_meta;

/* t for 16 elements, as quot8 in quantize_avx2.c (rcp: ACTQ_QUOT_*): the true division for
 * the whole vector where a lane has 0 < num < 2^-64 (outside actq_quot_rcp's domain). */
INLINE __m512 quot16(__m512 num, const vec_meta *vm, int rcp) {
  __m512 q, r;
  if (rcp == ACTQ_QUOT_DIVIDE) return _mm512_div_ps(num, vm->sc);
  q = _mm512_mul_ps(num, vm->rcp);
  r = _mm512_fnmadd_ps(q, vm->sc, num);
  if (rcp == ACTQ_QUOT_RCP_CHECK &&
      _mm512_mask_cmp_ps_mask(_mm512_test_epi32_mask(_mm512_castps_si512(num),
                                                     _mm512_castps_si512(num)),
                              num, vm->num_min, _CMP_LT_OQ))
    return _mm512_div_ps(num, vm->sc);
  return _mm512_fmadd_ps(r, vm->rcp, q);
}

/* Codes of 16 elements, as actq_code_stochastic / actq_code_nearest before the clamp to L,
 * which the packer applies (pack64_store): floor(t + u) is the truncating conversion,
 * rint(t) the conversion with embedded round-to-nearest-even.
 * rn: the elements' 16-bit noise r16, a dword each as the float 2^23 + r16
 * (ACTQ_NOISE_F32_HI; stochastic only): u = (2^23 + r16) * 2^-16 - (2^7 - 2^-17) =
 * r16 * 2^-16 + 2^-17, which the fma gives exactly (a float of 17 bits). */
INLINE __m512 quot16_x(__m512 x, const vec_meta *vm, int wide, int rcp) {
  return quot16(_mm512_sub_ps(wide ? _mm512_mul_ps(x, vm->c) : x, vm->mc), vm, rcp);
}
INLINE __m512 stochastic_sum16(__m512 t, __m512i rn) { /* t + u */
  return _mm512_add_ps(t, _mm512_fmadd_ps(_mm512_castsi512_ps(rn), _mm512_set1_ps(0x1p-16f),
                                          _mm512_set1_ps(-(0x1p7f - 0x1p-17f))));
}
INLINE __m512i codes16(__m512 x, const vec_meta *vm, int wide, int rcp, int stochastic,
                       __m512i rn) {
  const __m512 t = quot16_x(x, vm, wide, rcp);
  if (stochastic) return _mm512_cvttps_epi32(stochastic_sum16(t, rn));
  return _mm512_cvt_roundps_epi32(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

/* Stochastic codes of 16 elements at 1 bit, as a mask: with t + u >= 0, the clamp of
 * floor(t + u) to 1 is 1 exactly where t + u >= 1, so one compare replaces the
 * conversion, the clamp and the packer's arithmetic. */
INLINE __mmask16 codes16_bit(__m512 x, const vec_meta *vm, int wide, int rcp, __m512i rn) {
  return _mm512_cmp_ps_mask(stochastic_sum16(quot16_x(x, vm, wide, rcp), rn),
                            _mm512_set1_ps(1.0f), _CMP_GE_OQ);
}

/* The 64 1-bit codes of 4 vectors (codes16_bit, in load_v's order for dt) stored as 8
 * bytes: mask m_j is bits 16j .. 16j + 15; bf16's quads put back in element order by a
 * byte permute of the mask as bytes (actq_avx512_bf16_bit_order). */
INLINE void store_bits64(__mmask16 m0, __mmask16 m1, __mmask16 m2, __mmask16 m3, actq_dtype dt,
                         uint8_t *out) {
  __mmask64 k = _mm512_kunpackd(_mm512_kunpackw(m3, m2), _mm512_kunpackw(m1, m0));
  uint64_t w;
  if (dt == ACTQ_BF16)
    k = _mm512_movepi8_mask(_mm512_permutexvar_epi8(
        _mm512_load_si512((const void *)actq_avx512_bf16_bit_order), _mm512_movm_epi8(k)));
  w = _cvtmask64_u64(k);
  memcpy(out, &w, 8);
}

/* 4 vectors of 16 codes (32-bit lanes, in load_v's order for dt) -> 8 units = 8b bytes,
 * stored exactly: bytes in element order (two packs and a dword permute, whose index also
 * undoes bf16's quads), then the AVX2 packer's pairwise merges (16-, 32-, 64-bit lanes of
 * 2b, 4b, 8b bits; for even b the 4b bits of a dword are whole bytes, so the 64-bit merge
 * is left to vpermb), then vpermb gathers the 8 units' b bytes, and a masked store writes
 * only the `nunits` whole units asked for.
 * The clamp of actq_code_clamp is here, once for 64 codes: a present lane's code is at
 * most L + 1, and only for stochastic codes at 7 and 8 bits (see actq_code_clamp): at 8
 * bits the byte pack's unsigned saturation holds 256 at 255, at 7 bits one byte min holds
 * 128 at 127 (`stochastic`: a constant, so nearest loops carry no test). Lanes
 * past the units (units_rest) may hold any value: the merges only combine lanes within a
 * unit, and the store leaves out those units. */
INLINE void pack64_store(__m512i q0, __m512i q1, __m512i q2, __m512i q3, actq_dtype dt,
                         int stochastic, uint32_t b, size_t nunits, uint8_t *out) {
  /* after the packs, dword 4k + j holds the 4 codes of lane k of q_j */
  const __m512i order =
      dt == ACTQ_BF16 ? _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15)
                      : _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m512i v = _mm512_packus_epi16(_mm512_packus_epi32(q0, q1), _mm512_packus_epi32(q2, q3));
  if (stochastic && b == 7) v = _mm512_min_epu8(v, _mm512_set1_epi8(127));
  v = _mm512_permutexvar_epi32(order, v);
  if (b <= 6) {
    v = _mm512_maddubs_epi16(v, _mm512_set1_epi16((short)((1 << b) << 8 | 1)));
  } else if (b == 7) {
    const __m512i lo = _mm512_set1_epi16(0x00ff);
    v = _mm512_or_si512(_mm512_and_si512(v, lo), _mm512_srli_epi16(_mm512_andnot_si512(lo, v), 1));
  }
  if (b <= 7) v = _mm512_madd_epi16(v, _mm512_set1_epi32((1 << (2 * b)) << 16 | 1));
  if (b & 1) /* (v & 0xffffffff) | ((v >> 32) << 4b) */
    v = _mm512_ternarylogic_epi64(v, _mm512_set1_epi64(0xffffffffLL),
                                  _mm512_sllv_epi64(_mm512_srli_epi64(v, 32), _mm512_set1_epi64(4 * b)),
                                  0xea);
  if (b != 8)
    v = _mm512_permutexvar_epi8(_mm512_load_si512((const void *)actq_avx512_gather_units[b]), v);
  _mm512_mask_storeu_epi8(out, nunits * b >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (nunits * b)) - 1), v);
}

/* Round key word i, broadcast from memory at each use: an embedded broadcast operand of
 * the xor. The keys are too many to stay in registers beside the codes' constants, and
 * vectors of them set up per call, spilled and reloaded, cost more than the generator for
 * a group of 64 elements. step128's empty asm hides the keys' pointer from the compiler,
 * so that it cannot hoist the broadcasts out of the loop. */
#define KEY(nk, i) _mm512_set1_epi32((int)(nk)->rk[i])

/* The noise of the 128 elements from element 8 * blocks[0]: two generators interleaved,
 * so that each round's multiplies overlap the other's latency. */
INLINE void noise_philox(const actq_noise_keys *nk, actq_dtype dt, __m512i blocks, __m512i r[8]) {
  const __m512i t0 = _mm512_set1_epi32((int)nk->t[0]), t1 = _mm512_set1_epi32((int)nk->t[1]),
                t2 = _mm512_set1_epi32((int)nk->t[2]);
  philox8 a = philox8_after_round0(blocks, t0, t1, t2);
  philox8 b = philox8_after_round0(_mm512_add_epi64(blocks, _mm512_set1_epi64(8)), t0, t1, t2);
  __m512i pa[2], pb[2];
  int round;
#pragma GCC unroll 8
  for (round = 1; round < 9; round++) {
    philox8_round(&a, KEY(nk, 2 * round), KEY(nk, 2 * round + 1));
    philox8_round(&b, KEY(nk, 2 * round), KEY(nk, 2 * round + 1));
  }
  philox8_last_pairs(&a, KEY(nk, 18), KEY(nk, 19), &pa[0], &pa[1]);
  philox8_last_pairs(&b, KEY(nk, 18), KEY(nk, 19), &pb[0], &pb[1]);
  philox8_noise64(pa[0], pa[1], dt == ACTQ_BF16, r);
  philox8_noise64(pb[0], pb[1], dt == ACTQ_BF16, r + 4);
}

/* The noise of 64 elements from the buffer (noise[j]: element j), or none (nearest), in
 * load_v's order for dt. */
INLINE void noise64(int stochastic, actq_dtype dt, const uint16_t *noise, __m512i r[4]) {
  size_t j;
  for (j = 0; j < 4; j++) {
    if (!stochastic) {
      r[j] = _mm512_setzero_si512();
    } else if (dt == ACTQ_BF16) {
      const __m512i w = _mm512_loadu_si512((const void *)(noise + 32 * (j >> 1)));
      const __m512i hi = _mm512_set1_epi16(ACTQ_NOISE_F32_HI);
      r[j] = j & 1 ? _mm512_unpackhi_epi16(w, hi) : _mm512_unpacklo_epi16(w, hi);
    } else {
      r[j] = _mm512_or_si512(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(noise + 16 * j))),
                             _mm512_set1_epi32(ACTQ_NOISE_F32_HI << 16));
    }
  }
}

/* The codes of the 128 elements from e, whose noise is r, and, with `gen`, the noise of
 * the 128 elements of blocks `blocks` into rn: one step of the generator running a step
 * ahead of the codes. The generator is 10 rounds of dependent multiplies, swaps and xors;
 * its rounds alternate here with the codes of one vector each, so that the scheduler
 * always holds codes micro-ops ready to issue beside the chain's waiting ones. With the
 * whole generator first, its waiting micro-ops filled the scheduler (in L2, 5-7% slower
 * than the generator into a buffer before the loop). */
INLINE void step128(const void *x, actq_dtype dt, int wide, int rcp, size_t e,
                    const vec_meta *vm, const __m512i r[8], const actq_noise_keys *vk, int gen,
                    __m512i blocks, __m512i rn[8], int one, uint32_t bits, uint8_t *out,
                    size_t x_end, size_t ahead, int l2, size_t ahead_l2) {
  const size_t es = actq_dtype_size(dt);
  philox8 a, b;
  __m512i q[8];
  __mmask16 m[8];
  int v;
  if (gen) {
    const __m512i t0 = _mm512_set1_epi32((int)vk->t[0]), t1 = _mm512_set1_epi32((int)vk->t[1]),
                  t2 = _mm512_set1_epi32((int)vk->t[2]);
    __asm__("" : "+r"(vk));
    a = philox8_after_round0(blocks, t0, t1, t2);
    b = philox8_after_round0(_mm512_add_epi64(blocks, _mm512_set1_epi64(8)), t0, t1, t2);
  }
  /* unrolled: a loop kept here (gcc did for bf16) runs the 8 vectors and rounds in turn
   * with the keys indexed, and the codes loop is then no longer one block */
#pragma GCC unroll 8
  for (v = 0; v < 8; v++) {
    /* the step's 128 * es bytes asked for ahead a line at a time beside the vectors: 8
     * prefetches at once stalled the core on the fill buffers from memory */
    if (16 * v * es % 64 == 0)
      actq_prefetch_ahead(x, (e + 16 * v) * es, 64, x_end * es, ahead);
    if (l2 && 16 * v * es % 64 == 0)
      actq_prefetch_ahead_l2(x, (e + 16 * v) * es, 64, x_end * es, ahead_l2);
    if (gen) {
      philox8_round(&a, KEY(vk, 2 * v + 2), KEY(vk, 2 * v + 3));
      philox8_round(&b, KEY(vk, 2 * v + 2), KEY(vk, 2 * v + 3));
    }
    if (one)
      m[v] = codes16_bit(load_v(x, dt, e, v, 32), vm, wide, rcp, r[v]);
    else
      q[v] = codes16(load_v(x, dt, e, v, 32), vm, wide, rcp, 1, r[v]);
  }
  if (one) {
    store_bits64(m[0], m[1], m[2], m[3], dt, out);
    store_bits64(m[4], m[5], m[6], m[7], dt, out + 8);
  } else {
    pack64_store(q[0], q[1], q[2], q[3], dt, 1, bits, 8, out);
    pack64_store(q[4], q[5], q[6], q[7], dt, 1, bits, 8, out + 8 * bits);
  }
  if (gen) {
    __m512i pa[2], pb[2];
    philox8_last_pairs(&a, KEY(vk, 18), KEY(vk, 19), &pa[0], &pa[1]);
    philox8_last_pairs(&b, KEY(vk, 18), KEY(vk, 19), &pb[0], &pb[1]);
    philox8_noise64(pa[0], pa[1], dt == ACTQ_BF16, rn);
    philox8_noise64(pb[0], pb[1], dt == ACTQ_BF16, rn + 4);
  }
}

/* Codes of the 1 to 15 units (`left`) from element e whose noise is r (the noise of the
 * 128 elements from e; the buffer's when r is NULL and stochastic): a whole vector of 4
 * if 8 or more, then the rest with lanes past them computed, not stored. */
INLINE void units_rest(const void *x, actq_dtype dt, int stochastic, int wide, int rcp,
                       size_t e, size_t left, const vec_meta *vm, const uint16_t *noise,
                       __m512i *r, uint32_t bits, uint8_t *out) {
  __m512i n[4], q[4];
  size_t j;
  if (left >= 8) {
    if (!r) noise64(stochastic, dt, noise, n);
    for (j = 0; j < 4; j++)
      q[j] = codes16(load_v(x, dt, e, (int)j, 32), vm, wide, rcp, stochastic, r ? r[j] : n[j]);
    pack64_store(q[0], q[1], q[2], q[3], dt, stochastic, bits, 8, out);
    e += 64;
    left -= 8;
    out += 8 * bits;
    if (r) r += 4;
    else noise += 64;
  }
  if (!left) return;
  if (!r) noise64(stochastic, dt, noise, n);
  for (j = 0; j < 4; j++) {
    /* the elements present from vector j's first (load_v), and whether it has a lane
     * among them (units are 8 elements: both vectors of a bf16 chunk have, or neither) */
    const size_t base = dt == ACTQ_BF16 ? 32 * (j >> 1) : 16 * j;
    const size_t have = left * 8 > base ? left * 8 - base : 0;
    /* a vector past the units is not loaded: a load with no lane (fault suppressed)
     * still waits for its line on some cores */
    q[j] = have ? codes16(load_v(x, dt, e, (int)j, dt == ACTQ_BF16 ? have : have + 16 * (j & 1)),
                          vm, wide, rcp, stochastic, r ? r[j] : n[j])
                : _mm512_setzero_si512();
  }
  pack64_store(q[0], q[1], q[2], q[3], dt, stochastic, bits, left, out);
}

/* Codes of `units` units from element i, the noise from the buffer `noise` (stochastic) or
 * none (nearest); l2 (a constant): the input also asked for ahead_l2 bytes ahead into L2. */
INLINE void units_t(const void *x, actq_dtype dt, int stochastic, int wide, int rcp, size_t i,
                    size_t units, const vec_meta *vm, const uint16_t *noise, uint32_t bits,
                    uint8_t *out, size_t x_end, size_t ahead, int l2, size_t ahead_l2) {
  const size_t es = actq_dtype_size(dt);
  __m512i r[4];
  size_t u;
  for (u = 0; u + 8 <= units; u += 8) {
    const size_t e = i + 8 * u;
    actq_prefetch_ahead(x, e * es, 64 * es, x_end * es, ahead);
    if (l2) actq_prefetch_ahead_l2(x, e * es, 64 * es, x_end * es, ahead_l2);
    noise64(stochastic, dt, noise + 8 * u, r);
    pack64_store(codes16(load_v(x, dt, e, 0, 32), vm, wide, rcp, stochastic, r[0]),
                 codes16(load_v(x, dt, e, 1, 32), vm, wide, rcp, stochastic, r[1]),
                 codes16(load_v(x, dt, e, 2, 32), vm, wide, rcp, stochastic, r[2]),
                 codes16(load_v(x, dt, e, 3, 32), vm, wide, rcp, stochastic, r[3]),
                 dt, stochastic, bits, 8, out);
    out += 8 * bits;
  }
  if (u < units)
    units_rest(x, dt, stochastic, wide, rcp, i + 8 * u, units - u, vm, noise + 8 * u, NULL,
               bits, out);
}

/* Stochastic codes of `units` units from element i (a multiple of 8), the noise made by the
 * generator 128 elements ahead of the codes (step128), starting from the carry when it
 * holds block i / 8 and leaving the next call's noise in it. */
INLINE void units_philox_t(const void *x, actq_dtype dt, int wide, int rcp, size_t i,
                           size_t units, const vec_meta *vm, const actq_noise_keys *vk,
                           actq_noise_carry *cy, int one, uint32_t bits, uint8_t *out,
                           size_t x_end, size_t ahead, int l2, size_t ahead_l2) {
  const uint64_t b0 = (uint64_t)(i >> 3);
  __m512i *cv = (__m512i *)cy->v;
  __m512i blocks = _mm512_add_epi64(_mm512_set1_epi64((long long)b0),
                                    _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  __m512i r[8], rn[8];
  size_t u = 0, j;
  int made = 1;
  if (cy->block == b0) {
    for (j = 0; j < 8; j++) r[j] = _mm512_load_si512((const void *)(cv + j));
  } else {
    noise_philox(vk, dt, blocks, r);
  }
  cy->block = ACTQ_NOISE_NONE;
  for (; u + 16 <= units; u += 16) {
    /* the next 128 elements' noise, unless they lie past the range */
    made = b0 + u + 16 <= cy->last_block;
    blocks = _mm512_add_epi64(blocks, _mm512_set1_epi64(16));
    if (made) {
      step128(x, dt, wide, rcp, i + 8 * u, vm, r, vk, 1, blocks, rn, one, bits, out, x_end, ahead,
              l2, ahead_l2);
      for (j = 0; j < 8; j++) r[j] = rn[j];
    } else { /* the range's last step: no units follow */
      step128(x, dt, wide, rcp, i + 8 * u, vm, r, vk, 0, blocks, rn, one, bits, out, x_end, ahead,
              l2, ahead_l2);
    }
    out += 16 * bits;
  }
  if (u < units) {
    units_rest(x, dt, 1, wide, rcp, i + 8 * u, units - u, vm, NULL, r, bits, out);
  } else if (made) {
    for (j = 0; j < 8; j++) _mm512_store_si512((void *)(cv + j), r[j]);
    cy->block = b0 + units;
  }
}

/* The group's constants as vectors. */
INLINE void vec_meta_set(const actq_group_meta *g, vec_meta *vm) {
  vm->c = _mm512_set1_ps(g->c);
  vm->mc = _mm512_set1_ps(g->mc);
  vm->sc = _mm512_set1_ps(g->sc);
  vm->rcp = _mm512_set1_ps(g->rcp);
  vm->num_min = _mm512_set1_ps(ACTQ_QUOT_NUM_MIN);
}

/* The quotient path a group allows (see quot16): wide groups divide; otherwise the
 * reciprocal, proven for the whole group or checked per vector. */
INLINE int group_wide(const actq_group_meta *g) { return g->c != 1.0f; }
INLINE int group_rcp(const actq_group_meta *g) {
  return g->c != 1.0f                 ? ACTQ_QUOT_DIVIDE
         : actq_quot_rcp_group_ok(g) ? ACTQ_QUOT_RCP
         : g->rcp_ok                  ? ACTQ_QUOT_RCP_CHECK
                                      : ACTQ_QUOT_DIVIDE;
}

/* Stores are exact (masked), so `end` is not needed. Each (wide, rcp) pair is its own
 * instance of the loop (constants in the inlined code). ACTQ_BY_QUOT_ONE also names `one`:
 * 1 for 1-bit groups on the proven reciprocal (step128's compare codes), else 0. */
#define ACTQ_BY_QUOT_SPLIT(g, RCP_CALL, CALL)                                                  \
  do {                                                                                         \
    switch (group_rcp(g)) {                                                                    \
    case ACTQ_QUOT_RCP: { const int wide = 0, rcp = ACTQ_QUOT_RCP; RCP_CALL; break; }          \
    case ACTQ_QUOT_RCP_CHECK: { const int wide = 0, rcp = ACTQ_QUOT_RCP_CHECK; CALL; break; }  \
    default:                                                                                   \
      if (group_wide(g)) { const int wide = 1, rcp = ACTQ_QUOT_DIVIDE; CALL; }                 \
      else { const int wide = 0, rcp = ACTQ_QUOT_DIVIDE; CALL; }                               \
    }                                                                                          \
  } while (0)
#define ACTQ_BY_QUOT(g, CALL) ACTQ_BY_QUOT_SPLIT(g, CALL, CALL)
#define ACTQ_BY_QUOT_ONE(g, bits, CALL)                                                        \
  ACTQ_BY_QUOT_SPLIT(g,                                                                        \
                     if ((bits) == 1) { const int one = 1; CALL; }                             \
                     else { const int one = 0; CALL; },                                        \
                     { const int one = 0; CALL; })

/* ---- nearest rounding at 1 bit: the step hooks (cpu/quantize_groups.h) ----------------- */
/* The step: actq_quantize_step (cpu/quantize_step.h). */

/* Nearest 1-bit codes of f32 units from element i: x - mc >= num, 16 lanes a compare;
 * ahead_l2 (0: none) as units_t's. */
INLINE void units_step_f32(const float *x, size_t i, size_t units, float mc, float num,
                           uint8_t *out, size_t x_end, size_t ahead, size_t ahead_l2) {
  const __m512 m = _mm512_set1_ps(mc), n = _mm512_set1_ps(num);
  size_t u, v;
  for (u = 0; u + 8 <= units; u += 8) {
    const float *p = x + i + 8 * u;
    uint64_t w = 0;
    actq_prefetch_ahead(x, (i + 8 * u) * 4, 256, x_end * 4, ahead);
    if (ahead_l2) actq_prefetch_ahead_l2(x, (i + 8 * u) * 4, 256, x_end * 4, ahead_l2);
    for (v = 0; v < 4; v++)
      w |= (uint64_t)_mm512_cmp_ps_mask(_mm512_sub_ps(_mm512_loadu_ps(p + 16 * v), m), n,
                                        _CMP_GE_OQ)
           << (16 * v);
    memcpy(out + u, &w, 8);
  }
  if (u < units) {
    const size_t left = 8 * (units - u);
    uint64_t w = 0;
    for (v = 0; v < left; v += 16) {
      const __mmask16 k = left - v >= 16 ? (__mmask16)0xffff : (__mmask16)0x00ff;
      const __m512 xv = _mm512_mask_loadu_ps(_mm512_setzero_ps(), k, x + i + 8 * u + v);
      w |= (uint64_t)_mm512_mask_cmp_ps_mask(k, _mm512_sub_ps(xv, m), n, _CMP_GE_OQ) << v;
    }
    memcpy(out + u, &w, units - u);
  }
}

/* Nearest 1-bit codes of 16-bit units from element i: key(x) >= key, 32 lanes a compare. */
INLINE void units_step_h16(const uint16_t *x, size_t i, size_t units, int16_t key,
                           uint8_t *out, size_t x_end, size_t ahead) {
  const __m512i k = _mm512_set1_epi16(key);
  size_t u, v;
  for (u = 0; u + 8 <= units; u += 8) {
    const uint16_t *p = x + i + 8 * u;
    uint64_t w;
    actq_prefetch_ahead(x, (i + 8 * u) * 2, 128, x_end * 2, ahead);
    w = (uint64_t)_mm512_cmpge_epi16_mask(h16_keys(_mm512_loadu_si512((const void *)p)), k) |
        (uint64_t)_mm512_cmpge_epi16_mask(h16_keys(_mm512_loadu_si512((const void *)(p + 32))), k)
            << 32;
    memcpy(out + u, &w, 8);
  }
  if (u < units) {
    const size_t left = 8 * (units - u);
    uint64_t w = 0;
    for (v = 0; v < left; v += 32) {
      const __mmask32 m = left - v >= 32 ? ~(__mmask32)0 : (((__mmask32)1 << (left - v)) - 1);
      const __m512i xv = _mm512_maskz_loadu_epi16(m, x + i + 8 * u + v);
      w |= (uint64_t)(_mm512_cmpge_epi16_mask(h16_keys(xv), k) & m) << v;
    }
    memcpy(out + u, &w, units - u);
  }
}

INLINE void units_step_avx512(const void *x, actq_dtype dt, size_t i, size_t units,
                              const actq_group_meta *g, int32_t key, uint8_t *out, size_t x_end,
                              size_t ahead, size_t ahead_l2) {
  if (dt == ACTQ_F32)
    units_step_f32((const float *)x, i, units, g->mc, actq_f32_from_bits((uint32_t)key), out,
                   x_end, ahead, ahead_l2);
  else
    units_step_h16((const uint16_t *)x, i, units, (int16_t)key, out, x_end, ahead);
}

INLINE void units_avx512(const void *x, actq_dtype dt, int stochastic, size_t i, size_t units,
                         const actq_group_meta *g, const uint16_t *noise, uint32_t bits,
                         uint8_t *out, const uint8_t *end, size_t x_end, size_t ahead,
                         size_t ahead_l2) {
  vec_meta vm;
  (void)end;
  vec_meta_set(g, &vm);
  /* ahead_l2: f32 from memory only (cpu/quantize_groups.h) */
  ACTQ_BY_L2(ahead_l2, ACTQ_BY_QUOT(g, units_t(x, dt, stochastic, wide, rcp, i, units, &vm,
                                               noise, bits, out, x_end, ahead, l2, ahead_l2)));
}

INLINE __attribute__((unused)) void units_philox_avx512(const void *x, actq_dtype dt, size_t i, size_t units,
                                const actq_group_meta *g, const actq_noise_keys *keys,
                                actq_noise_carry *carry, uint32_t bits, uint8_t *out,
                                const uint8_t *end, size_t x_end, size_t ahead,
                                size_t ahead_l2) {
  vec_meta vm;
  (void)end;
  vec_meta_set(g, &vm);
  /* 1 bit, for the quotient nearly every group takes: step128's codes are then compares
   * (codes16_bit, `one`); other widths and quotients take the packer. ahead_l2: f32 from
   * memory only (cpu/quantize_groups.h) */
  ACTQ_BY_L2(ahead_l2, ACTQ_BY_QUOT_ONE(g, bits, units_philox_t(x, dt, wide, rcp, i, units, &vm,
                                                                keys, carry, one, bits, out,
                                                                x_end, ahead, l2, ahead_l2)));
}

INLINE void noise_avx512(uint64_t seed, uint64_t offset, uint64_t block0, size_t nblocks,
                         uint16_t *out) {
  actq_avx512_noise_fill(seed, offset, block0, nblocks, out);
}

/* ASan builds (ACTQ_QUANTIZE_ASAN, cpu/quantize_groups.h) leave the codes-loop generator
 * out: clang-14 took 300 s to compile this file with it under ASan and UBSan at -O1 (27 s
 * without). */
#ifdef ACTQ_QUANTIZE_ASAN
#define ACTQ_UNITS_PHILOX_AVX512 NULL
#else
#define ACTQ_UNITS_PHILOX_AVX512 units_philox_avx512
#endif

static const actq_quantize_hooks hooks_avx512 = {range_avx512, noise_avx512, units_avx512,
                                                 actq_meta_groups_avx2, ACTQ_UNITS_PHILOX_AVX512,
                                                 ACTQ_PREFETCH_BYTES / 2, ACTQ_PREFETCH_L2_BEYOND,
                                                 actq_quantize_step, units_step_avx512,
                                                 ACTQ_PREFETCH_STEP_AHEAD};

ACTQ_QUANTIZE_DISPATCH(actq_avx512_quantize_groups, hooks_avx512)
