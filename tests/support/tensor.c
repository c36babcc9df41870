/* tensor.c - shared test helpers (see tensor.h). Conversions are written independently of
 * the library's src/arith so that the tests do not share the code they check. */
#include "tensor.h"

#include <math.h>
#include <string.h>

const actq_backend test_cpu_backends[TEST_CPU_BACKENDS] = {ACTQ_BACKEND_CPU_REFERENCE,
                                                           ACTQ_BACKEND_CPU};

uint64_t test_rand_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double test_rand_uniform(uint64_t *s) { return (double)(test_rand_u64(s) >> 11) * 0x1p-53; }

double test_rand_normal(uint64_t *s) {
  double u1 = test_rand_uniform(s), u2 = test_rand_uniform(s);
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

size_t test_dtype_size(actq_dtype t) { return t == ACTQ_F32 ? 4 : 2; }

const char *test_dtype_name(actq_dtype t) {
  return t == ACTQ_F32 ? "f32" : t == ACTQ_F16 ? "f16" : t == ACTQ_BF16 ? "bf16" : "?";
}

/* f16 <-> f32 through frexp/ldexp arithmetic, bf16 through bit truncation with RNE. */
static float f16_to_float(uint16_t h) {
  int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 31) return m ? NAN : (sign ? -INFINITY : INFINITY);
  v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m + 1024), e - 25);
  return sign ? -v : v;
}

static uint16_t float_to_f16(float f) {
  /* exhaustive nearest search over the 2^15 magnitudes would be slow per element; use
   * the exact rule: scale to the f16 quantum and round with rint (ties to even) */
  uint16_t sign = signbit(f) ? 0x8000 : 0;
  float a = fabsf(f), q;
  int e;
  if (isnan(f)) return 0x7e00;
  if (a >= 65520.0f) return sign | 0x7c00;
  if (a < ldexpf(1.0f, -14)) { /* subnormal quantum 2^-24 */
    q = rintf(ldexpf(a, 24));
    return sign | (uint16_t)q; /* q == 1024 is the smallest normal's pattern */
  }
  frexpf(a, &e); /* a = f * 2^e, f in [0.5, 1): quantum 2^(e-11) */
  q = rintf(ldexpf(a, 11 - e)); /* in [1024, 2048] */
  if (q == 2048.0f) {
    q = 1024.0f;
    e++;
  }
  if (e - 1 + 15 >= 31) return sign | 0x7c00;
  return sign | (uint16_t)(((e - 1 + 15) << 10) | ((int)q - 1024));
}

static float bf16_to_float(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint16_t float_to_bf16(float f) {
  uint32_t u;
  double d = f, lo, hi;
  uint16_t cand;
  if (isnan(f)) return 0x7fc0;
  memcpy(&u, &f, 4);
  cand = (uint16_t)(u >> 16); /* truncation toward zero */
  lo = bf16_to_float(cand);
  /* next magnitude; past the largest finite one it stands for 2^128 (rounding to Inf) */
  hi = ((cand + 1) & 0x7fff) == 0x7f80 ? copysign(0x1p128, d) : bf16_to_float((uint16_t)(cand + 1));
  if (fabs(d - lo) < fabs(hi - d)) return cand;
  if (fabs(d - lo) > fabs(hi - d)) return (uint16_t)(cand + 1);
  return (cand & 1) ? (uint16_t)(cand + 1) : cand;
}

float test_load(const void *base, actq_dtype t, size_t i) {
  if (t == ACTQ_F16) return f16_to_float(((const uint16_t *)base)[i]);
  if (t == ACTQ_BF16) return bf16_to_float(((const uint16_t *)base)[i]);
  return ((const float *)base)[i];
}

void test_store(void *base, actq_dtype t, size_t i, float v) {
  if (t == ACTQ_F16)
    ((uint16_t *)base)[i] = float_to_f16(v);
  else if (t == ACTQ_BF16)
    ((uint16_t *)base)[i] = float_to_bf16(v);
  else
    ((float *)base)[i] = v;
}

float test_dtype_max(actq_dtype t) {
  if (t == ACTQ_F16) return 65504.0f;
  if (t == ACTQ_BF16) return bf16_to_float(0x7f7f);
  return 3.40282347e+38f;
}
