/* fuzz_support.h - what every libFuzzer harness of fuzz/ shares: a reader of the fuzz
 * input, the contexts under test (the reference plus the CPU backend on every ISA path this
 * machine has), output buffers that end right before a PROT_NONE page and start after a
 * canary, and the check that turns a broken contract into a crash libFuzzer keeps.
 *
 * White-box: the harnesses link the internal archive, so that one process can run every
 * ISA path (the public ACTQ_CPU_ISA cap is read once per process). Nothing here is part
 * of the public ABI.
 */
#ifndef ACTQ_FUZZ_SUPPORT_H
#define ACTQ_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "actq.h"

/* ---- reading the input: past its end every read gives zeros ----------------------- */
typedef struct fz_input {
  const uint8_t *p;
  size_t n;
} fz_input;

uint8_t fz_u8(fz_input *in);
uint16_t fz_u16(fz_input *in);
uint32_t fz_u32(fz_input *in);
uint64_t fz_u64(fz_input *in);
size_t fz_below(fz_input *in, size_t n); /* 0..n-1 (n >= 1) */
/* A float that is often special: NaN (several payloads), +-Inf, +-FLT_MAX, +-0,
 * denormals, the f16 limits, values just past them, or raw bits. */
float fz_float(fz_input *in);
double fz_double(fz_input *in); /* the same for doubles */

/* splitmix64: bulk values derived from a seed the input gives. */
uint64_t fz_mix(uint64_t *state);

/* ---- the contexts under test ---------------------------------------------------------- */
#define FZ_MAX_CONTEXTS 8
typedef struct fz_context {
  actq_context *ctx;
  const char *name; /* "reference", "scalar/1t", "avx2/2t", ... */
} fz_context;

/* [0] is ACTQ_BACKEND_CPU_REFERENCE; the others ACTQ_BACKEND_CPU forced onto each ISA
 * path the machine has, with 1, 2 and 3 threads. Created once per process. */
int fz_contexts(const fz_context **list);

/* ---- output buffers: canary before, guard page after ---------------------------------- */
#define FZ_CANARY 32
typedef struct fz_buf {
  uint8_t *p; /* n usable bytes; p[n] is the first byte of a PROT_NONE page */
  size_t n;
} fz_buf;

fz_buf fz_buf_new(size_t n, uint8_t fill); /* the FZ_CANARY bytes before p hold a canary */
fz_buf fz_buf_copy(const void *src, size_t n); /* an input placed before a guard page */
void fz_buf_free(fz_buf *b);
/* Dies unless the canary before b is intact (nothing written below the output). */
void fz_buf_check(const fz_buf *b, const char *what);
/* Dies unless every byte of b still equals fill (a call that failed wrote nothing). */
void fz_buf_untouched(const fz_buf *b, uint8_t fill, const char *what);

/* ---- contract checks ------------------------------------------------------------------ */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
#define FZ_CHECK(cond, ...) \
  do {                      \
    if (!(cond)) fz_fail(__VA_ARGS__); \
  } while (0)

#define FZ_ST(s) (1u << (unsigned)(s))
/* Dies unless got is one of the statuses in the mask. */
void fz_expect_status(actq_status got, unsigned allowed, const char *call);
/* Dies unless a and b hold the same bytes; names the first difference. */
void fz_expect_same(const void *a, const void *b, size_t n, const char *what, const char *ctx);

size_t fz_dtype_size(actq_dtype t);
int fz_dtype_valid(int t);
/* The float an element of dtype t holds (f16/bf16 widened exactly). */
float fz_load(actq_dtype t, const void *base, size_t i);
/* Stores f rounded to nearest-even into dtype t. */
void fz_store(actq_dtype t, void *base, size_t i, float f);

#endif /* ACTQ_FUZZ_SUPPORT_H */
