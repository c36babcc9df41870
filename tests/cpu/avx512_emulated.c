/* avx512_emulated.c - the emulation's self-check: SIMDe's AVX-512 (avx512_emulated_simde.h,
 * as the emulated kernels of avx512_emulated_quantize.c and avx512_emulated_fewbit.c compile
 * it) against the instructions' semantics on edge cases. */
#include "avx512_emulated_simde.h"

#include <math.h>
#include <stdio.h>

#include "support/guard.h"

static char why[160];

#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      snprintf(why, sizeof why, __VA_ARGS__);                                             \
      return why;                                                                         \
    }                                                                                     \
  } while (0)

/* GCC folds some conversion intrinsics of constants with C's semantics (cvttps of a NaN to
 * 0, not 0x80000000), so the inputs reach the vectors through memory it cannot see. */
static void opaque(const void *p) { __asm__ volatile("" : : "r"(p) : "memory"); }
#define SETV(v, arr) (opaque(arr), memcpy(&(v), (arr), sizeof(v)))

static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* Intel's conversion of an integral double to int32: 0x80000000 when not representable. */
static int32_t to_i32(double d) {
  return d != d || d < -2147483648.0 || d > 2147483647.0 ? INT32_MIN : (int32_t)d;
}
/* round half to even, exactly (|v| < 2^53) */
static double rne(double v) {
  double f = floor(v), d = v - f;
  return d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0) ? f + 1.0 : f;
}
/* f16 -> f32 bits: exact; a NaN keeps its sign and payload, quieted (F16C's VCVTPH2PS). */
static uint32_t h2f_bits(uint16_t h) {
  const uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
  if (e == 31) return s | 0x7f800000u | (m ? 0x400000u | m << 13 : 0);
  if (e == 0) return f2u((s ? -1.0f : 1.0f) * ldexpf((float)m, -24));
  return s | (e + 112) << 23 | m << 13;
}

const char *actq_emu512_selfcheck(void) {
  static const float fv[16] = {NAN, 2147483648.0f, -2147483904.0f, -2147483648.0f,
                               2147483520.0f, 1.9f, -1.9f, INFINITY, -INFINITY, 0.5f, 1.5f,
                               2.5f, -0.5f, -1.5f, 3.4999998f, -2.5f};
  float f[16], g[16];
  int32_t i32[16];
  uint32_t u32[16];
  uint16_t h[16];
  uint8_t b[64];
  int i, k;
  __m512 a, c;
  __m512i v, w;

  /* truncating and rounding conversions */
  memcpy(f, fv, 64); /* not read-only memory: opaque() may then change it */
  SETV(a, f);
  v = _mm512_cvttps_epi32(a);
  memcpy(i32, &v, 64);
  for (i = 0; i < 16; i++)
    CHECK(i32[i] == to_i32(trunc((double)fv[i])), "cvttps_epi32(%a) = %d", fv[i], i32[i]);
  v = _mm512_cvt_roundps_epi32(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  memcpy(i32, &v, 64);
  for (i = 0; i < 16; i++)
    CHECK(i32[i] == to_i32(rne((double)fv[i])), "cvt_roundps_epi32(%a, rn) = %d", fv[i], i32[i]);
  for (i = 0; i < 16; i++) /* ties of the rounding to float, the extremes */
    i32[i] = i == 0 ? 16777217 : i == 1 ? INT32_MAX : i == 2 ? -33554435 : i * 7 - 50;
  SETV(v, i32);
  a = _mm512_cvtepi32_ps(v);
  memcpy(f, &a, 64);
  for (i = 0; i < 16; i++) CHECK(f[i] == (float)i32[i], "cvtepi32_ps(%d) = %a", i32[i], f[i]);

  /* f16 -> f32 (denormals, infinities, NaNs with payloads) and u16 -> u32 */
  for (k = 0; k < 65536; k += 16) {
    __m256i hv;
    for (i = 0; i < 16; i++) h[i] = (uint16_t)(k + i);
    SETV(hv, h);
    a = _mm512_cvtph_ps(hv);
    memcpy(u32, &a, 64);
    for (i = 0; i < 16; i++)
      CHECK(u32[i] == h2f_bits(h[i]), "cvtph_ps(0x%04x) = 0x%08x", h[i], (unsigned)u32[i]);
    v = _mm512_cvtepu16_epi32(hv);
    memcpy(u32, &v, 64);
    for (i = 0; i < 16; i++)
      CHECK(u32[i] == h[i], "cvtepu16_epi32(0x%04x) = 0x%x", h[i], (unsigned)u32[i]);
  }

  /* dword shuffles within each 128-bit lane, masked merge */
  for (i = 0; i < 16; i++) u32[i] = 0x100u * (unsigned)i + 1u;
  SETV(v, u32);
  for (i = 0; i < 16; i++) u32[i] = 0xdead0000u + (unsigned)i;
  SETV(w, u32);
  v = _mm512_mask_shuffle_epi32(w, 0xaaaa, v, _MM_PERM_CDAB);
  memcpy(u32, &v, 64);
  for (i = 0; i < 16; i++)
    CHECK(u32[i] == (i & 1 ? 0x100u * (unsigned)(i ^ 1) + 1u : 0xdead0000u + (unsigned)i),
          "mask_shuffle_epi32 lane %d = 0x%x", i, (unsigned)u32[i]);

  /* ordered compare under a mask */
  for (i = 0; i < 16; i++) {
    f[i] = i == 3 ? NAN : (float)(i % 5);
    g[i] = i == 4 ? NAN : 2.0f;
  }
  SETV(a, f);
  SETV(c, g);
  {
    const __mmask16 k1 = 0x7ff7, m = _mm512_mask_cmp_ps_mask(k1, a, c, _CMP_LT_OQ);
    for (i = 0; i < 16; i++)
      CHECK(((m >> i) & 1) == (((k1 >> i) & 1) && f[i] < g[i]), "mask_cmp_ps_mask lane %d", i);
  }

  /* reductions: the extreme value found in every lane position; unsigned order */
  for (k = 0; k < 16; k++) {
    for (i = 0; i < 16; i++) f[i] = (float)((i * 7 + 3) % 16) + 1.0f;
    f[k] = -5.0f;
    SETV(a, f);
    CHECK(_mm512_reduce_min_ps(a) == -5.0f, "reduce_min_ps, minimum in lane %d", k);
    f[k] = 100.0f;
    SETV(a, f);
    CHECK(_mm512_reduce_max_ps(a) == 100.0f, "reduce_max_ps, maximum in lane %d", k);
    for (i = 0; i < 16; i++) u32[i] = i == k ? 0x80000000u : 0x7fffffffu - (unsigned)i;
    SETV(v, u32);
    CHECK(_mm512_reduce_max_epu32(v) == 0x80000000u, "reduce_max_epu32, maximum in lane %d", k);
  }

  /* masked accesses at a page's end: masked-off elements past it are never touched */
  {
    float *pf = (float *)guard_alloc(8 * sizeof(float));
    uint16_t *ph = (uint16_t *)guard_alloc(5 * sizeof(uint16_t));
    uint8_t *pb = (uint8_t *)guard_alloc(5);
    for (i = 0; i < 8; i++) pf[i] = (float)i + 0.25f;
    for (i = 0; i < 5; i++) ph[i] = (uint16_t)(0xf000 + i);
    memset(pb, 0xee, 5);
    a = _mm512_mask_loadu_ps(_mm512_set1_ps(-1.0f), 0x00ff, pf);
    memcpy(f, &a, 64);
    for (i = 0; i < 16; i++)
      CHECK(f[i] == (i < 8 ? (float)i + 0.25f : -1.0f), "mask_loadu_ps lane %d", i);
    {
      __m256i hv = _mm256_maskz_loadu_epi16(0x001b, ph);
      memcpy(h, &hv, 32);
      for (i = 0; i < 16; i++)
        CHECK(h[i] == ((0x001b >> i) & 1 ? 0xf000 + i : 0), "maskz_loadu_epi16 lane %d", i);
    }
    for (i = 0; i < 64; i++) b[i] = (uint8_t)(i + 1);
    SETV(v, b);
    _mm512_mask_storeu_epi8(pb, 0x15, v); /* bytes 0, 2, 4 */
    for (i = 0; i < 5; i++) CHECK(pb[i] == (i & 1 ? 0xee : i + 1), "mask_storeu_epi8 byte %d", i);
    guard_free(pf);
    guard_free(ph);
    guard_free(pb);
  }

  /* SIMDe's own: in-lane packs, byte permutes, 64-bit shifts by >= 64, the madd fix */
  {
    int32_t vin[16], win[16];
    uint16_t o[32];
    __m512i p;
    for (i = 0; i < 16; i++) {
      vin[i] = i == 5 ? -7 : i == 6 ? 70000 : 16 * i; /* saturated to 0 and 65535 */
      win[i] = 1000 + i;
    }
    SETV(v, vin);
    SETV(w, win);
    p = _mm512_packus_epi32(v, w);
    memcpy(o, &p, 64);
    for (i = 0; i < 32; i++) { /* per 128-bit lane: 4 words of v's lane, then 4 of w's */
      const int lane = i / 8, j = i % 8;
      const int32_t src = j < 4 ? vin[lane * 4 + j] : win[lane * 4 + j - 4];
      CHECK(o[i] == (uint16_t)(src < 0 ? 0 : src > 65535 ? 65535 : src),
            "packus_epi32 word %d = %u", i, o[i]);
    }
  }
  for (i = 0; i < 64; i++) b[i] = (uint8_t)(200 + i);
  SETV(v, b);
  for (i = 0; i < 64; i++) b[i] = (uint8_t)((i * 37 + 11) | 0xc0); /* high bits ignored */
  SETV(w, b);
  v = _mm512_permutexvar_epi8(w, v);
  memcpy(b, &v, 64);
  for (i = 0; i < 64; i++)
    CHECK(b[i] == (uint8_t)(200 + (((i * 37 + 11) | 0xc0) & 63)), "permutexvar_epi8 byte %d", i);
  v = _mm512_sllv_epi64(_mm512_set1_epi64(-1), _mm512_setr_epi64(0, 1, 31, 32, 63, 64, 65, 1000));
  {
    uint64_t q[8];
    static const unsigned sh[8] = {0, 1, 31, 32, 63, 64, 65, 1000};
    memcpy(q, &v, 64);
    for (i = 0; i < 8; i++)
      CHECK(q[i] == (sh[i] >= 64 ? 0 : ~(uint64_t)0 << sh[i]), "sllv_epi64 by %u", sh[i]);
  }
  v = _mm512_madd_epi16(_mm512_set1_epi32((int)(0xfffeu << 16 | 3u)), /* words 3, -2 */
                        _mm512_set1_epi32(5 << 16 | 7));
  memcpy(i32, &v, 64);
  for (i = 0; i < 16; i++) CHECK(i32[i] == 3 * 7 + -2 * 5, "madd_epi16 = %d", i32[i]);
  { /* signed word compare into a mask, lane order across the halves */
    int16_t wa[32], wb[32];
    __mmask32 m;
    for (i = 0; i < 32; i++) {
      wa[i] = (int16_t)(i * 2731 - 32768);
      wb[i] = (int16_t)(i % 3 == 0 ? wa[i] : i % 3 == 1 ? wa[i] - 1 : 0x7fff);
    }
    SETV(v, wa);
    SETV(w, wb);
    m = _mm512_cmpgt_epi16_mask(v, w);
    for (i = 0; i < 32; i++)
      CHECK((int)((m >> i) & 1) == (wa[i] > wb[i]), "cmpgt_epi16_mask word %d", i);
  }
  return NULL;
}
