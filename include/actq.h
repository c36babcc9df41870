/* actq.h - packed low-bit quantization primitives for activation-compressed training.
 *
 * The public C ABI of libactq. Pure C99; includes only <stddef.h> and <stdint.h>.
 * The contract behind every call is spelled out in docs/format.md (bytes, rounding,
 * noise) and in the comments below. Every call returns an actq_status; the library never
 * prints, aborts or exits, and never writes outside the buffers a call was given.
 */
#ifndef ACTQ_H
#define ACTQ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#  define ACTQ_API __attribute__((visibility("default")))
#else
#  define ACTQ_API
#endif

/* ---- versions ------------------------------------------------------------------------ */

#define ACTQ_VERSION_MAJOR 0
#define ACTQ_VERSION_MINOR 1
#define ACTQ_VERSION_PATCH 0
#define ACTQ_VERSION_NUMBER \
  (ACTQ_VERSION_MAJOR * 10000 + ACTQ_VERSION_MINOR * 100 + ACTQ_VERSION_PATCH)
/* Bumped whenever a byte of the packed format (codes, metadata, noise) changes. */
#define ACTQ_FORMAT_VERSION 1

/* MAJOR*10000 + MINOR*100 + PATCH of the library actually loaded. */
ACTQ_API int actq_version(void);

/* ---- status -------------------------------------------------------------------------- */

typedef enum actq_status {
  ACTQ_OK = 0,
  ACTQ_ERR_INVALID_ARGUMENT = 1, /* NULL where data is needed, value out of range, bad enum */
  ACTQ_ERR_UNSUPPORTED = 2,      /* backend not built in, no device, feature not available */
  ACTQ_ERR_OUT_OF_MEMORY = 3,
  ACTQ_ERR_SIZE_OVERFLOW = 4,
  ACTQ_ERR_NONFINITE = 5,        /* NaN/Inf met in data; handled as documented, reported */
  ACTQ_ERR_DEVICE = 6,           /* CUDA runtime or launch failure */
  ACTQ_ERR_INTERNAL = 7
} actq_status;

/* A static string for every status; "unknown actq status" for values not listed. */
ACTQ_API const char *actq_status_string(actq_status s);

/* ---- contexts and backends ----------------------------------------------------------- */

typedef struct actq_context actq_context;

typedef enum actq_backend {
  ACTQ_BACKEND_CPU_REFERENCE = 0, /* portable scalar C: the oracle every other backend equals */
  ACTQ_BACKEND_CPU = 1,           /* fastest ISA found at run time (AVX2, ...), threaded */
  ACTQ_BACKEND_CUDA = 2           /* data pointers are device pointers */
} actq_backend;

/* Unknown backend: ACTQ_ERR_INVALID_ARGUMENT. Known but not built in, or CUDA without a
 * usable device: ACTQ_ERR_UNSUPPORTED. *ctx is set to NULL on every failure.
 * ACTQ_BACKEND_CPU picks its instruction set once per process, at the first context, from
 * cpuid and XGETBV: "avx512bf16" (the next, plus AVX512_BF16), "avx512" (AVX-512
 * F/BW/DQ/VL/VBMI), "avx2" (AVX2+FMA+F16C) or "scalar". The environment variable
 * ACTQ_CPU_ISA=scalar|avx2|avx512|avx512bf16 caps that choice; an unknown value is ignored
 * (the best path runs). Every path writes the same bytes. */
ACTQ_API actq_status actq_context_create(actq_backend backend, actq_context **ctx);
ACTQ_API void actq_context_destroy(actq_context *ctx); /* NULL is fine */
/* A static description of what the context runs on, e.g. "cpu avx2, 2 threads".
 * Valid until the next call on the context. "(null)" for NULL. CUDA: after a call that
 * returned ACTQ_ERR_DEVICE (or OUT_OF_MEMORY from the device), it names the CUDA error:
 * "cuda <device>: cudaErrorName: message". */
ACTQ_API const char *actq_context_describe(const actq_context *ctx);
/* CPU backends: 0 = all online CPUs (the default), < 0 is invalid. The reference backend
 * accepts the setting and stays single-threaded. CUDA: ACTQ_ERR_UNSUPPORTED. Results are
 * identical for every thread count. */
ACTQ_API actq_status actq_context_set_threads(actq_context *ctx, int threads);
/* CUDA: a cudaStream_t (NULL = the legacy default stream). CPU: ACTQ_ERR_UNSUPPORTED.
 * A CUDA context starts on a non-blocking stream of its own; work queued before a switch
 * is ordered before work queued after it. A CUDA context belongs to the device current
 * when it was created, which must be current for every call on it (as with cuBLAS). */
ACTQ_API actq_status actq_context_set_stream(actq_context *ctx, void *cuda_stream);
/* Waits for all work on the context; returns the first deferred error, then clears it.
 * CPU contexts have no deferred work and return ACTQ_OK. */
ACTQ_API actq_status actq_context_synchronize(actq_context *ctx);

/* ---- group quantization -------------------------------------------------------------- */

typedef enum actq_dtype { ACTQ_F32 = 0, ACTQ_F16 = 1, ACTQ_BF16 = 2 } actq_dtype;
typedef enum actq_rounding { ACTQ_ROUND_STOCHASTIC = 0, ACTQ_ROUND_NEAREST = 1 } actq_rounding;

typedef struct actq_layout {
  size_t rows;             /* a tensor is quantized as rows x cols, row-major */
  size_t cols;
  uint32_t group_size;     /* multiple of 8, 8..65536; a group never spans two rows */
  uint32_t bits;           /* 1..8, for every row when row_bits == NULL */
  const uint8_t *row_bits; /* optional: rows entries, each 1..8 (per-sample mixed precision) */
  actq_dtype meta_dtype;   /* dtype of the stored group minimum and scale */
} actq_layout;

/* Bytes of the packed stream (sum over rows of ceil(cols * b_r / 8)) and the number of
 * groups (rows * ceil(cols / group_size)), i.e. the entries of each metadata array.
 * Either output pointer may be NULL. The layout is validated as by actq_quantize. */
ACTQ_API actq_status actq_layout_sizes(const actq_layout *layout, size_t *packed_bytes,
                                       size_t *groups);

/* Quantizes x (rows x cols of x_dtype) group by group: per-group minimum and scale into
 * group_min / group_scale (meta_dtype, `groups` entries each), codes into packed.
 * Stochastic rounding draws its noise for element e = r*cols + c from Philox4x32-10 keyed
 * by seed, with e and offset in the counter (docs/format.md), so results depend only on
 * (inputs, seed, offset), never on backend, ISA, threads or alignment. `rounding` NEAREST
 * ignores seed and offset. Groups holding NaN/Inf, or whose metadata cannot be
 * represented in meta_dtype, store NaN metadata and zero codes; all other groups are
 * processed and the call returns ACTQ_ERR_NONFINITE (CUDA: at the next synchronize). */
ACTQ_API actq_status actq_quantize(actq_context *ctx, const actq_layout *layout,
                                   actq_dtype x_dtype, const void *x, actq_rounding rounding,
                                   uint64_t seed, uint64_t offset, void *packed,
                                   void *group_min, void *group_scale);

/* y = fma(code, scale, min) in float32, rounded to nearest-even into y_dtype. NaN results
 * are written as the canonical quiet NaN of y_dtype. Values are not inspected. */
ACTQ_API actq_status actq_dequantize(actq_context *ctx, const actq_layout *layout,
                                     const void *packed, const void *group_min,
                                     const void *group_scale, actq_dtype y_dtype, void *y);

/* One row of n codes in the packed bit stream (LSB first). A code >= 2^bits gives
 * ACTQ_ERR_INVALID_ARGUMENT; packed then holds unspecified bytes (but only within its
 * ceil(n*bits/8) bytes). CUDA: the codes are device memory, so the call returns ACTQ_OK
 * and the next actq_context_synchronize returns ACTQ_ERR_INVALID_ARGUMENT. */
ACTQ_API actq_status actq_pack(actq_context *ctx, uint32_t bits, size_t n,
                               const uint8_t *codes, void *packed);
ACTQ_API actq_status actq_unpack(actq_context *ctx, uint32_t bits, size_t n,
                                 const void *packed, uint8_t *codes);

/* ---- bit allocation ------------------------------------------------------------------ */

typedef enum actq_alloc_method { ACTQ_ALLOC_GREEDY = 0, ACTQ_ALLOC_EXACT = 1 } actq_alloc_method;

/* Mixed precision (ActNN per sample or layer, GACT per tensor; docs/mixed-precision.md):
 * chooses bits[i] among the allowed widths to
 *   minimize  sum_i sensitivity[i] / (2^bits[i] - 1)^2
 *   subject to sum_i numel[i] * bits[i] <= floor(average_bits * sum_i numel[i]).
 * Bit b of allowed_bits allows width b (b in 1..8; e.g. 0x116 = {1,2,4,8}, 0x1fe = 1..8).
 *
 * The budget: the right side is computed exactly from the double average_bits (no
 * rounding: a fractional budget is rounded down to whole bits), and the left side in
 * exact 64-bit integers, so "exactly fits" is exact. average_bits >= the largest allowed
 * width (+Inf included) means no constraint.
 *
 * GREEDY: every item starts at the smallest width; upgrades to the next allowed width are
 * taken by best gain per added bit*element while they fit (one that does not fit freezes
 * its item). O(m*widths) after one radix sort; optimal when all numel are equal and the
 * widths consecutive, not in general. Ties (equal gains) go to the smaller width step,
 * then to the larger sensitivity/numel, then to the lower index. EXACT: the optimum, by
 * Lagrangian reduction and dynamic programming over the (cost, loss) frontier of the
 * items the reduction leaves open; objectives within a relative
 * 1e-12 + 4*m*DBL_EPSILON of each other count as floating-point ties (the first solution
 * found in a fixed order wins, starting with GREEDY's, so results are deterministic).
 * When its work or memory limit (about a second of CPU, 100 MB) is hit, or when
 * sensitivities are so large (near DBL_MAX) that its bounds could overflow, it returns
 * ACTQ_ERR_UNSUPPORTED rather than an unproven answer; GREEDY's answer is then the
 * fallback. Both give width max to items with numel 0 (they cost nothing).
 *
 * objective (may be NULL) receives the objective of the returned widths, summed in index
 * order. m = 0: ACTQ_OK, bits untouched, *objective = 0 when objective is not NULL.
 * ACTQ_ERR_INVALID_ARGUMENT: NULL sensitivity, numel or bits with m > 0; a sensitivity that
 * is NaN, negative or infinite; average_bits NaN or negative; allowed_bits with no width or
 * with a bit outside 1..8; an unknown method; an infeasible budget (the smallest width
 * everywhere does not fit). ACTQ_ERR_SIZE_OVERFLOW: 8 * sum numel does not fit in 64 bits,
 * or m >= 2^32. Outputs are written only on ACTQ_OK. Host memory; no context needed. */
ACTQ_API actq_status actq_allocate_bits(size_t m, const double *sensitivity,
                                        const uint64_t *numel, double average_bits,
                                        uint32_t allowed_bits, actq_alloc_method method,
                                        uint8_t *bits, double *objective);

#ifdef __cplusplus
}
#endif

#endif /* ACTQ_H */
