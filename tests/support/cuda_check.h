/* cuda_check.h - runs one call on the CUDA backend and on the reference backend and
 * compares every output byte (bytes_compare.h), the statuses, and guard bytes around
 * each device output (nothing may be written outside the buffers a call was given). */
#ifndef ACTQ_TEST_CUDA_CHECK_H
#define ACTQ_TEST_CUDA_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "actq.h"

typedef struct quant_case {
  actq_layout layout;
  actq_dtype x_dtype, y_dtype;
  actq_rounding rounding;
  uint64_t seed, offset;
  /* Byte offsets added to the device pointers (x and y: multiples of their element size;
   * packed: any; metadata: multiples of the meta element size). */
  size_t shift_x, shift_packed, shift_meta, shift_y;
} quant_case;

/* Quantizes x_host (rows x cols of x_dtype) on both backends and compares packed bytes,
 * metadata, statuses (CUDA's deferred one at synchronize), then dequantizes each
 * backend's own output into y_dtype and compares y. 1 on success; else 0 with msg. */
int check_quant_case(actq_context *cuda, const quant_case *c, const void *x_host, char *msg,
                     size_t cap);

/* Packs n codes and unpacks them again on both backends; compares bytes and statuses. */
int check_pack_case(actq_context *cuda, uint32_t bits, size_t n, const uint8_t *codes,
                    size_t shift_codes, size_t shift_packed, char *msg, size_t cap);

/* "quant 3x1000 G=256 b=2 rowbits f32->bf16 meta=f16 stochastic seed=... shift=..." */
void describe_quant_case(const quant_case *c, char *out, size_t cap);

/* Free device memory in bytes, or 0 when it cannot be read. */
size_t cuda_free_bytes(void);

#endif
