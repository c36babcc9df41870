// contexts.h - actq contexts lent to FFI calls, one call at a time each.
//
// A context may be used by one thread at a time (the contract, section 2), and XLA runs
// custom calls of one program on several threads at once. Each CPU context owns a pool
// of worker threads, so one per XLA thread would multiply them: instead idle contexts
// wait in a free list, and at most as many exist as calls ever ran concurrently. CUDA
// contexts belong to the device current when they were made (XLA's, for the call that
// made them), so the list keeps them by device; each call sets XLA's stream.
#ifndef ACTQ_JAX_CONTEXTS_H
#define ACTQ_JAX_CONTEXTS_H

#include <mutex>
#include <vector>

#include "actq.h"

namespace actq_jax {

// Where a handler runs: the CPU backend, or the CUDA backend on device `device` and the
// stream XLA gives the call.
struct Place {
  actq_backend backend;
  int device;    // -1 on the CPU
  void *stream;  // cudaStream_t; NULL on the CPU
};

class ContextPool {
 public:
  // Idle contexts live until the process ends: XLA may still run calls while Python
  // unloads modules, so they are never destroyed earlier.
  static ContextPool &instance() {
    static ContextPool *pool = new ContextPool();
    return *pool;
  }

  // A context of its own for the caller, or NULL with the status of the failure.
  actq_context *acquire(const Place &p, actq_status *status) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = free_.size(); i-- > 0;) {
        if (free_[i].backend == p.backend && free_[i].device == p.device) {
          actq_context *ctx = free_[i].ctx;
          free_[i] = free_.back();
          free_.pop_back();
          *status = ACTQ_OK;
          return ctx;
        }
      }
    }
    actq_context *ctx = nullptr;
    *status = actq_context_create(p.backend, &ctx);
    return ctx;
  }

  void release(const Place &p, actq_context *ctx) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(Idle{ctx, p.backend, p.device});
  }

 private:
  struct Idle {
    actq_context *ctx;
    actq_backend backend;
    int device;
  };
  std::mutex mutex_;
  std::vector<Idle> free_;
};

// Holds one context of a place for the lifetime of a handler call (CUDA: on the call's
// stream).
class LentContext {
 public:
  explicit LentContext(const Place &p) : place_(p), ctx_(ContextPool::instance().acquire(p, &status_)) {
    if (ctx_ && p.backend == ACTQ_BACKEND_CUDA) {
      status_ = actq_context_set_stream(ctx_, p.stream);
      if (status_ != ACTQ_OK) {
        ContextPool::instance().release(place_, ctx_);
        ctx_ = nullptr;
        failed_ = "actq_context_set_stream";
      }
    }
  }
  ~LentContext() {
    if (ctx_) ContextPool::instance().release(place_, ctx_);
  }
  LentContext(const LentContext &) = delete;
  LentContext &operator=(const LentContext &) = delete;

  actq_context *get() const { return ctx_; }
  actq_status status() const { return status_; }
  // The call that failed when get() is NULL.
  const char *failed_call() const { return failed_; }

 private:
  Place place_;
  actq_status status_ = ACTQ_OK;
  const char *failed_ = "actq_context_create";
  actq_context *ctx_;
};

}  // namespace actq_jax

#endif  // ACTQ_JAX_CONTEXTS_H
