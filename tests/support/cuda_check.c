/* cuda_check.c - see cuda_check.h. Device buffers are poisoned before each call and
 * surrounded by guard bytes, so unwritten outputs and stray writes both show up. */
#include "support/cuda_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "support/bytes_compare.h"

#define GUARD 64
#define POISON 0xA5

static size_t dsize(actq_dtype t) { return t == ACTQ_F32 ? 4 : 2; }

/* A device buffer of n bytes at base + GUARD + shift, guards and poison around it. */
typedef struct dbuf {
  unsigned char *base;
  size_t n, shift, total;
} dbuf;

static int dbuf_alloc(dbuf *b, size_t n, size_t shift, char *msg, size_t cap) {
  cudaError_t e;
  b->n = n;
  b->shift = shift;
  b->total = n + shift + 2 * GUARD;
  b->base = NULL;
  e = cudaMalloc((void **)&b->base, b->total);
  if (e == cudaSuccess) e = cudaMemset(b->base, POISON, b->total);
  /* The context's stream is non-blocking: it does not wait for the legacy stream. */
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    snprintf(msg, cap, "cudaMalloc/cudaMemset of %zu bytes: %s", b->total, cudaGetErrorString(e));
    return 0;
  }
  return 1;
}

static void *dbuf_ptr(const dbuf *b) { return b->base + GUARD + b->shift; }

static void dbuf_free(dbuf *b) {
  if (b->base) cudaFree(b->base);
  b->base = NULL;
}

static int dbuf_upload(dbuf *b, const void *host, char *msg, size_t cap) {
  cudaError_t e = cudaMemcpy(dbuf_ptr(b), host, b->n, cudaMemcpyHostToDevice);
  /* A pageable copy may return before its DMA lands; the context's non-blocking stream
   * would not wait for it. */
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    snprintf(msg, cap, "cudaMemcpy to device: %s", cudaGetErrorString(e));
    return 0;
  }
  return 1;
}

/* Copies the buffer back and checks its guards; host receives the n payload bytes. */
static int dbuf_download(const dbuf *b, void *host, const char *what, char *msg, size_t cap) {
  unsigned char *all = (unsigned char *)malloc(b->total);
  int ok = 1;
  cudaError_t e;
  char name[96];
  if (!all) {
    snprintf(msg, cap, "out of host memory");
    return 0;
  }
  e = cudaMemcpy(all, b->base, b->total, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    snprintf(msg, cap, "cudaMemcpy from device (%s): %s", what, cudaGetErrorString(e));
    free(all);
    return 0;
  }
  snprintf(name, sizeof name, "%s: guard before", what);
  ok = bytes_all(name, all, POISON, GUARD + b->shift, msg, cap);
  if (ok) {
    snprintf(name, sizeof name, "%s: guard after", what);
    ok = bytes_all(name, all + GUARD + b->shift + b->n, POISON, GUARD, msg, cap);
  }
  if (ok && host) memcpy(host, all + GUARD + b->shift, b->n);
  free(all);
  return ok;
}

void describe_quant_case(const quant_case *c, char *out, size_t cap) {
  static const char *dt[] = {"f32", "f16", "bf16"};
  snprintf(out, cap,
           "quant %zux%zu G=%u b=%u%s x=%s y=%s meta=%s %s seed=%llu offset=%llu "
           "shift x/p/m/y=%zu/%zu/%zu/%zu",
           c->layout.rows, c->layout.cols, c->layout.group_size, c->layout.bits,
           c->layout.row_bits ? " row_bits" : "", dt[c->x_dtype], dt[c->y_dtype],
           dt[c->layout.meta_dtype],
           c->rounding == ACTQ_ROUND_STOCHASTIC ? "stochastic" : "nearest",
           (unsigned long long)c->seed, (unsigned long long)c->offset, c->shift_x,
           c->shift_packed, c->shift_meta, c->shift_y);
}

int check_quant_case(actq_context *cuda, const quant_case *c, const void *x_host, char *msg,
                     size_t cap) {
  actq_context *ref = NULL;
  size_t packed_bytes = 0, groups = 0, n, mbytes, ybytes;
  unsigned char *h = NULL, *rp, *rmin, *rsc, *ry, *gp, *gmin, *gsc, *gy;
  dbuf dx = {0}, dp = {0}, dmin = {0}, dsc = {0}, dy = {0};
  actq_status rst, cst, sst;
  int ok = 0;
  char what[512];

  describe_quant_case(c, what, sizeof what);
  if (actq_layout_sizes(&c->layout, &packed_bytes, &groups) != ACTQ_OK ||
      actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref) != ACTQ_OK) {
    snprintf(msg, cap, "%s: invalid case", what);
    return 0;
  }
  n = c->layout.rows * c->layout.cols;
  mbytes = groups * dsize(c->layout.meta_dtype);
  ybytes = n * dsize(c->y_dtype);
  h = (unsigned char *)malloc(2 * (packed_bytes + 2 * mbytes + ybytes) + 8);
  if (!h) {
    snprintf(msg, cap, "out of host memory");
    goto done;
  }
  rp = h;
  rmin = rp + packed_bytes;
  rsc = rmin + mbytes;
  ry = rsc + mbytes;
  gp = ry + ybytes;
  gmin = gp + packed_bytes;
  gsc = gmin + mbytes;
  gy = gsc + mbytes;
  memset(h, POISON, 2 * (packed_bytes + 2 * mbytes + ybytes));

  /* The oracle. */
  rst = actq_quantize(ref, &c->layout, c->x_dtype, x_host, c->rounding, c->seed, c->offset,
                      rp, rmin, rsc);
  if (rst != ACTQ_OK && rst != ACTQ_ERR_NONFINITE) {
    snprintf(msg, cap, "%s: reference quantize failed: %s", what, actq_status_string(rst));
    goto done;
  }
  if (actq_dequantize(ref, &c->layout, rp, rmin, rsc, c->y_dtype, ry) != ACTQ_OK) {
    snprintf(msg, cap, "%s: reference dequantize failed", what);
    goto done;
  }

  /* The device. */
  if (!dbuf_alloc(&dx, n * dsize(c->x_dtype), c->shift_x, msg, cap) ||
      !dbuf_alloc(&dp, packed_bytes, c->shift_packed, msg, cap) ||
      !dbuf_alloc(&dmin, mbytes, c->shift_meta, msg, cap) ||
      !dbuf_alloc(&dsc, mbytes, c->shift_meta, msg, cap) ||
      !dbuf_alloc(&dy, ybytes, c->shift_y, msg, cap) || !dbuf_upload(&dx, x_host, msg, cap))
    goto done;
  cst = actq_quantize(cuda, &c->layout, c->x_dtype, dbuf_ptr(&dx), c->rounding, c->seed,
                      c->offset, dbuf_ptr(&dp), dbuf_ptr(&dmin), dbuf_ptr(&dsc));
  sst = actq_context_synchronize(cuda);
  if (cst != ACTQ_OK || sst != rst) {
    snprintf(msg, cap, "%s: CUDA quantize returned %s, synchronize %s; reference %s (%s)", what,
             actq_status_string(cst), actq_status_string(sst), actq_status_string(rst),
             actq_context_describe(cuda));
    goto done;
  }
  cst = actq_dequantize(cuda, &c->layout, dbuf_ptr(&dp), dbuf_ptr(&dmin), dbuf_ptr(&dsc),
                        c->y_dtype, dbuf_ptr(&dy));
  sst = actq_context_synchronize(cuda);
  if (cst != ACTQ_OK || sst != ACTQ_OK) {
    snprintf(msg, cap, "%s: CUDA dequantize returned %s, synchronize %s (%s)", what,
             actq_status_string(cst), actq_status_string(sst), actq_context_describe(cuda));
    goto done;
  }
  {
    char m2[400], sub[600];
    int good = dbuf_download(&dp, gp, "packed", m2, sizeof m2) &&
               bytes_equal("packed", gp, rp, packed_bytes, m2, sizeof m2) &&
               dbuf_download(&dmin, gmin, "group_min", m2, sizeof m2) &&
               bytes_equal("group_min", gmin, rmin, mbytes, m2, sizeof m2) &&
               dbuf_download(&dsc, gsc, "group_scale", m2, sizeof m2) &&
               bytes_equal("group_scale", gsc, rsc, mbytes, m2, sizeof m2) &&
               dbuf_download(&dy, gy, "y", m2, sizeof m2) &&
               bytes_equal("y", gy, ry, ybytes, m2, sizeof m2);
    if (!good) {
      snprintf(sub, sizeof sub, "%s", m2);
      snprintf(msg, cap, "%s: %s", what, sub);
      goto done;
    }
  }
  ok = 1;
done:
  dbuf_free(&dx);
  dbuf_free(&dp);
  dbuf_free(&dmin);
  dbuf_free(&dsc);
  dbuf_free(&dy);
  free(h);
  actq_context_destroy(ref);
  return ok;
}

int check_pack_case(actq_context *cuda, uint32_t bits, size_t n, const uint8_t *codes,
                    size_t shift_codes, size_t shift_packed, char *msg, size_t cap) {
  actq_context *ref = NULL;
  const size_t pbytes = (n / 8) * bits + ((n % 8) * bits + 7) / 8;
  unsigned char *rp = (unsigned char *)malloc(pbytes + 1), *gp = (unsigned char *)malloc(pbytes + 1);
  unsigned char *rc = (unsigned char *)malloc(n + 1), *gc = (unsigned char *)malloc(n + 1);
  dbuf dc = {0}, dp = {0}, du = {0};
  actq_status rst, cst, sst;
  int ok = 0;
  char what[160], m2[400];

  snprintf(what, sizeof what, "pack n=%zu b=%u shift codes/packed=%zu/%zu", n, bits,
           shift_codes, shift_packed);
  if (!rp || !gp || !rc || !gc || actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &ref) != ACTQ_OK) {
    snprintf(msg, cap, "%s: setup failed", what);
    goto done;
  }
  rst = actq_pack(ref, bits, n, codes, rp);
  actq_unpack(ref, bits, n, rp, rc);
  if (!dbuf_alloc(&dc, n, shift_codes, msg, cap) || !dbuf_alloc(&dp, pbytes, shift_packed, msg, cap) ||
      !dbuf_alloc(&du, n, shift_codes, msg, cap) || !dbuf_upload(&dc, codes, msg, cap))
    goto done;
  cst = actq_pack(cuda, bits, n, (const uint8_t *)dbuf_ptr(&dc), dbuf_ptr(&dp));
  sst = actq_context_synchronize(cuda);
  if (cst != ACTQ_OK || sst != rst) {
    snprintf(msg, cap, "%s: CUDA pack returned %s, synchronize %s; reference %s", what,
             actq_status_string(cst), actq_status_string(sst), actq_status_string(rst));
    goto done;
  }
  cst = actq_unpack(cuda, bits, n, dbuf_ptr(&dp), (uint8_t *)dbuf_ptr(&du));
  sst = actq_context_synchronize(cuda);
  if (cst != ACTQ_OK || sst != ACTQ_OK) {
    snprintf(msg, cap, "%s: CUDA unpack returned %s, synchronize %s", what,
             actq_status_string(cst), actq_status_string(sst));
    goto done;
  }
  if (!dbuf_download(&dp, gp, "packed", m2, sizeof m2) ||
      !bytes_equal("packed", gp, rp, pbytes, m2, sizeof m2) ||
      !dbuf_download(&du, gc, "codes", m2, sizeof m2) ||
      !bytes_equal("unpacked codes", gc, rc, n, m2, sizeof m2)) {
    snprintf(msg, cap, "%s: %s", what, m2);
    goto done;
  }
  ok = 1;
done:
  dbuf_free(&dc);
  dbuf_free(&dp);
  dbuf_free(&du);
  free(rp);
  free(gp);
  free(rc);
  free(gc);
  actq_context_destroy(ref);
  return ok;
}

size_t cuda_free_bytes(void) {
  size_t free_b = 0, total = 0;
  if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return free_b;
}
