/* fuzz_support.c - the shared part of the harnesses (see fuzz_support.h). */
#include "fuzz_support.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/arith/half.h"
#include "src/backend.h"
#include "cpu/isa.h"
#include "cpu/kernels.h"
#include "support/guard.h"
#if defined(__x86_64__)
#  include "cpu/avx2/avx2.h"
#  include "cpu/avx512/avx512.h"
#endif

/* ---- input ------------------------------------------------------------------------------ */
uint8_t fz_u8(fz_input *in) {
  uint8_t v = 0;
  if (in->n) {
    v = *in->p++;
    in->n--;
  }
  return v;
}
uint16_t fz_u16(fz_input *in) { return (uint16_t)(fz_u8(in) | (uint16_t)fz_u8(in) << 8); }
uint32_t fz_u32(fz_input *in) { return fz_u16(in) | (uint32_t)fz_u16(in) << 16; }
uint64_t fz_u64(fz_input *in) { return fz_u32(in) | (uint64_t)fz_u32(in) << 32; }
size_t fz_below(fz_input *in, size_t n) { return (size_t)(fz_u32(in) % n); }

static float f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

float fz_float(fz_input *in) {
  const uint8_t kind = fz_u8(in);
  const float sign = (kind & 0x80) ? -1.0f : 1.0f;
  switch (kind & 0x0f) {
  case 0: return f32_from_bits(fz_u32(in)); /* anything, NaN payloads included */
  case 1: return f32_from_bits(0x7fc00000u | (fz_u32(in) & 0x803fffffu)); /* quiet NaN */
  case 2: return f32_from_bits(0x7f800001u | (fz_u32(in) & 0x803fffffu)); /* signalling */
  case 3: return sign * INFINITY;
  case 4: return sign * FLT_MAX;
  case 5: return sign * 0.0f;
  case 6: return sign * f32_from_bits(1u + (fz_u32(in) & 0x7fffffu)); /* denormal */
  case 7: return sign * FLT_MIN;
  case 8: return sign * 65504.0f;  /* the f16 maximum */
  case 9: return sign * 65520.0f;  /* rounds to the f16 Inf */
  case 10: return sign * 6.1035156e-05f; /* the smallest normal f16 */
  case 11: return sign * (float)fz_u8(in) / 16.0f; /* small exact values: ties */
  case 12: return sign * 3.0e38f;
  default: return sign * (float)fz_u16(in) / 4096.0f; /* ordinary values */
  }
}

double fz_double(fz_input *in) {
  const uint8_t kind = fz_u8(in);
  const double sign = (kind & 0x80) ? -1.0 : 1.0;
  uint64_t u;
  double d;
  switch (kind & 0x0f) {
  case 0:
    u = fz_u64(in);
    memcpy(&d, &u, 8);
    return d;
  case 1: return NAN;
  case 2: return sign * INFINITY;
  case 3: return sign * DBL_MAX;
  case 4: return sign * 0.0;
  case 5: return sign * 4.9406564584124654e-324; /* the smallest denormal */
  case 6: return sign * 1e-300;
  case 7: return sign * 1e300;
  case 8: return (double)fz_float(in);
  default: return sign * (double)fz_u16(in) / 1024.0;
  }
}

uint64_t fz_mix(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ---- contexts ------------------------------------------------------------------------------ */
static fz_context contexts[FZ_MAX_CONTEXTS];
static int n_contexts;

static void add_cpu(const actq_cpu_kernels *k, const char *name, int threads) {
  actq_context *c = NULL;
  if (n_contexts == FZ_MAX_CONTEXTS) fz_fail("more than FZ_MAX_CONTEXTS contexts");
  if (actq_context_create(ACTQ_BACKEND_CPU, &c) != ACTQ_OK) fz_fail("cannot create a CPU context");
  /* The kernel table this context runs, whatever ACTQ_CPU_ISA says. */
  if (actq_cpu_context_use_kernels(c, k) != ACTQ_OK) fz_fail("cannot force the %s table", name);
  if (actq_context_set_threads(c, threads) != ACTQ_OK) fz_fail("set_threads(%d) failed", threads);
  contexts[n_contexts].ctx = c;
  contexts[n_contexts].name = name;
  n_contexts++;
}

int fz_contexts(const fz_context **list) {
  if (!n_contexts) {
    actq_context *ref = NULL;
    if (actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref) != ACTQ_OK)
      fz_fail("cannot create the reference context");
    contexts[0].ctx = ref;
    contexts[0].name = "reference";
    n_contexts = 1;
    /* cpu/select.c's "scalar" path runs the reference kernels through the threaded driver */
    add_cpu(&actq_cpu_reference_kernels, "scalar/2t", 2);
#if defined(__x86_64__)
    if (actq_cpu_isa_detected() >= ACTQ_ISA_AVX2) add_cpu(&actq_cpu_avx2_kernels, "avx2/2t", 2);
    if (actq_cpu_isa_detected() >= ACTQ_ISA_AVX512) {
      add_cpu(&actq_cpu_avx512_kernels, "avx512/1t", 1);
      add_cpu(&actq_cpu_avx512_kernels, "avx512/3t", 3);
    }
    if (actq_cpu_isa_detected() >= ACTQ_ISA_AVX512_BF16)
      add_cpu(&actq_cpu_avx512bf16_kernels, "avx512bf16/2t", 2);
#endif
  }
  *list = contexts;
  return n_contexts;
}

/* ---- buffers ------------------------------------------------------------------------------- */
static const uint8_t canary_byte = 0xcb;

fz_buf fz_buf_new(size_t n, uint8_t fill) {
  fz_buf b;
  uint8_t *base = guard_alloc(FZ_CANARY + n);
  memset(base, canary_byte, FZ_CANARY);
  b.p = base + FZ_CANARY;
  b.n = n;
  memset(b.p, fill, n);
  return b;
}

fz_buf fz_buf_copy(const void *src, size_t n) {
  fz_buf b = fz_buf_new(n, 0);
  if (n) memcpy(b.p, src, n);
  return b;
}

void fz_buf_free(fz_buf *b) {
  if (b->p) guard_free(b->p - FZ_CANARY);
  b->p = NULL;
}

void fz_buf_check(const fz_buf *b, const char *what) {
  size_t i;
  for (i = 0; i < FZ_CANARY; i++)
    FZ_CHECK(b->p[(ptrdiff_t)i - FZ_CANARY] == canary_byte,
             "%s: byte %d before the output was written", what, (int)(FZ_CANARY - i));
}

void fz_buf_untouched(const fz_buf *b, uint8_t fill, const char *what) {
  size_t i;
  fz_buf_check(b, what);
  for (i = 0; i < b->n; i++)
    FZ_CHECK(b->p[i] == fill, "%s: byte %zu written by a call that failed", what, i);
}

/* ---- checks -------------------------------------------------------------------------------- */
void fz_fail(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "\nCONTRACT VIOLATION: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  abort(); /* libFuzzer keeps the input as a crash */
}

void fz_expect_status(actq_status got, unsigned allowed, const char *call) {
  FZ_CHECK((unsigned)got < 32 && (allowed & FZ_ST(got)), "%s returned %d (%s), not a status "
           "documented for this input (mask 0x%x)", call, (int)got, actq_status_string(got),
           allowed);
}

void fz_expect_same(const void *a, const void *b, size_t n, const char *what, const char *ctx) {
  const uint8_t *x = a, *y = b;
  size_t i;
  for (i = 0; i < n; i++)
    FZ_CHECK(x[i] == y[i], "%s: %s differs from the reference at byte %zu of %zu "
             "(0x%02x, reference 0x%02x)", what, ctx, i, n, y[i], x[i]);
}

size_t fz_dtype_size(actq_dtype t) { return t == ACTQ_F32 ? 4 : 2; }
int fz_dtype_valid(int t) { return t == ACTQ_F32 || t == ACTQ_F16 || t == ACTQ_BF16; }

float fz_load(actq_dtype t, const void *base, size_t i) {
  if (t == ACTQ_F32) {
    float f;
    memcpy(&f, (const uint8_t *)base + 4 * i, 4);
    return f;
  } else {
    uint16_t h;
    memcpy(&h, (const uint8_t *)base + 2 * i, 2);
    return t == ACTQ_F16 ? actq_f16_to_f32(h) : actq_bf16_to_f32(h);
  }
}

void fz_store(actq_dtype t, void *base, size_t i, float f) {
  if (t == ACTQ_F32) {
    memcpy((uint8_t *)base + 4 * i, &f, 4);
  } else {
    uint16_t h = t == ACTQ_F16 ? actq_f32_to_f16(f) : actq_f32_to_bf16(f);
    memcpy((uint8_t *)base + 2 * i, &h, 2);
  }
}
