/* context.cu - the CUDA backend's context: device check, stream, error word, settings.
 *
 * A context is bound to the device that is current when it is created (as a cuBLAS
 * handle is); calls on it must be made with that device current. It creates its own
 * non-blocking stream, so that it never serializes with the legacy default stream unless
 * the user asks for that through actq_context_set_stream(ctx, NULL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/launch.h"
#include "cuda/state.h"

/* The description is "<device> (sm_XY, N SMs)" and, after a CUDA failure, the failure:
 * "<device>: cudaErrorName: message", cut to fit ctx->description. */
static void describe_ok(actq_context *ctx) {
  actq_cuda_state *st = actq_cuda(ctx);
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, st->device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, st->device) != cudaSuccess)
    cudaGetLastError();
  snprintf(ctx->description, sizeof ctx->description, "cuda %s (sm_%d%d, %d SMs)",
           st->device_name, major, minor, st->sm_count);
}

actq_status actq_cuda_status(actq_context *ctx, cudaError_t e) {
  if (e == cudaSuccess) return ACTQ_OK;
  cudaGetLastError(); /* clear a non-sticky error so that later calls can go on */
  snprintf(ctx->description, sizeof ctx->description, "cuda %s: %s: %s",
           actq_cuda(ctx)->device_name, cudaGetErrorName(e), cudaGetErrorString(e));
  return e == cudaErrorMemoryAllocation ? ACTQ_ERR_OUT_OF_MEMORY : ACTQ_ERR_DEVICE;
}

actq_status actq_cuda_launch_status(actq_context *ctx) {
  return actq_cuda_status(ctx, cudaGetLastError());
}

static actq_status cuda_set_threads(actq_context *ctx, int threads) {
  (void)ctx;
  (void)threads;
  return ACTQ_ERR_UNSUPPORTED;
}

/* Work already queued on the old stream comes before work on the new one: the new
 * stream waits for an event recorded on the old, without blocking the host. */
static actq_status cuda_set_stream(actq_context *ctx, void *stream) {
  actq_cuda_state *st = actq_cuda(ctx);
  cudaStream_t next = (cudaStream_t)stream;
  cudaEvent_t ev;
  cudaError_t e;
  if (next == st->stream) return ACTQ_OK;
  e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (e != cudaSuccess) return actq_cuda_status(ctx, e);
  e = cudaEventRecord(ev, st->stream);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(next, ev, 0);
  cudaEventDestroy(ev); /* safe: destruction waits for nothing and the wait is queued */
  if (e != cudaSuccess) return actq_cuda_status(ctx, e);
  st->stream = next;
  return ACTQ_OK;
}

/* Waits for the stream, then reads and clears the deferred error word (queued behind
 * all earlier work, so it sees every kernel's report). */
static actq_status cuda_synchronize(actq_context *ctx) {
  actq_cuda_state *st = actq_cuda(ctx);
  cudaError_t e = cudaMemcpyAsync(st->h_error, st->d_error, sizeof *st->h_error,
                                  cudaMemcpyDeviceToHost, st->stream);
  if (e == cudaSuccess) e = cudaMemsetAsync(st->d_error, 0, sizeof *st->d_error, st->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st->stream);
  if (e != cudaSuccess) return actq_cuda_status(ctx, e);
  if (*st->h_error != 0) {
    actq_status deferred = (actq_status)*st->h_error;
    *st->h_error = 0;
    return deferred;
  }
  return ACTQ_OK;
}

static void cuda_destroy(actq_context *ctx) {
  actq_cuda_state *st = actq_cuda(ctx);
  if (!st) return;
  if (st->stream) cudaStreamSynchronize(st->stream); /* nothing of ours may be in flight */
  if (st->own_stream) {
    cudaStreamSynchronize(st->own_stream);
    cudaStreamDestroy(st->own_stream);
  }
  if (st->staging_done) cudaEventDestroy(st->staging_done);
  if (st->d_error) cudaFree(st->d_error);
  if (st->h_error) cudaFreeHost(st->h_error);
  if (st->d_scratch) cudaFree(st->d_scratch);
  if (st->h_staging) cudaFreeHost(st->h_staging);
  cudaGetLastError(); /* leave no error of ours behind for the caller */
  free(st);
  ctx->state = NULL;
}

/* In the order of actq_backend_ops' slots, one a line (this file is C++17, which has no
 * designated initializers). */
static const actq_backend_ops cuda_ops = {
    /* quantize */ actq_cuda_quantize,
    /* dequantize */ actq_cuda_dequantize,
    /* pack */ actq_cuda_pack,
    /* unpack */ actq_cuda_unpack,
    /* fewbit_encode */ actq_cuda_fewbit_encode,
    /* fewbit_backward */ actq_cuda_fewbit_backward,
    /* set_threads */ cuda_set_threads,
    /* set_stream */ cuda_set_stream,
    /* synchronize */ cuda_synchronize,
    /* destroy */ cuda_destroy,
};

extern "C" actq_status actq_cuda_context_init(actq_context *ctx) {
  actq_cuda_state *st;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= 0) {
    cudaGetLastError(); /* no driver or no device: not an error the caller must see */
    return ACTQ_ERR_UNSUPPORTED;
  }
  st = (actq_cuda_state *)calloc(1, sizeof *st);
  if (!st) return ACTQ_ERR_OUT_OF_MEMORY;
  ctx->state = st;
  ctx->ops = &cuda_ops; /* from here on, failures are cleaned up by cuda_destroy */
  strcpy(st->device_name, "device");

  e = cudaGetDevice(&st->device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, st->device);
  if (e == cudaSuccess) {
    cudaDeviceProp prop;
    e = cudaGetDeviceProperties(&prop, st->device);
    if (e == cudaSuccess) {
      strncpy(st->device_name, prop.name, sizeof st->device_name - 1);
      st->device_name[sizeof st->device_name - 1] = 0;
    }
  }
  if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&st->own_stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) st->stream = st->own_stream;
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&st->staging_done, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaMalloc((void **)&st->d_error, sizeof *st->d_error);
  if (e == cudaSuccess) e = cudaMallocHost((void **)&st->h_error, sizeof *st->h_error);
  if (e == cudaSuccess) e = cudaMemsetAsync(st->d_error, 0, sizeof *st->d_error, st->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(st->stream);
  if (e != cudaSuccess) {
    /* A device that is listed but cannot be used (busy, wrong driver) is no device. */
    cudaGetLastError();
    return e == cudaErrorMemoryAllocation ? ACTQ_ERR_OUT_OF_MEMORY : ACTQ_ERR_UNSUPPORTED;
  }
  *st->h_error = 0;
  describe_ok(ctx);
  return ACTQ_OK;
}
