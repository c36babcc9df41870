// contexts.h - CPU contexts lent to FFI calls, one call at a time each.
//
// A context may be used by one thread at a time (the contract, section 2), and XLA runs
// custom calls of one program on several threads at once. Each CPU context owns a pool
// of worker threads, so one per XLA thread would multiply them: instead idle contexts
// wait in a free list, and at most as many exist as calls ever ran concurrently.
#ifndef ACTQ_JAX_CONTEXTS_H
#define ACTQ_JAX_CONTEXTS_H

#include <mutex>
#include <vector>

#include "actq.h"

namespace actq_jax {

class ContextPool {
 public:
  // Idle contexts live until the process ends: XLA may still run calls while Python
  // unloads modules, so they are never destroyed earlier.
  static ContextPool &instance() {
    static ContextPool *pool = new ContextPool();
    return *pool;
  }

  // A context of its own for the caller, or NULL with the status of the failure.
  actq_context *acquire(actq_status *status) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        actq_context *ctx = free_.back();
        free_.pop_back();
        *status = ACTQ_OK;
        return ctx;
      }
    }
    actq_context *ctx = nullptr;
    *status = actq_context_create(ACTQ_BACKEND_CPU, &ctx);
    return ctx;
  }

  void release(actq_context *ctx) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(ctx);
  }

 private:
  std::mutex mutex_;
  std::vector<actq_context *> free_;
};

// Holds one context for the lifetime of a handler call.
class LentContext {
 public:
  LentContext() : ctx_(ContextPool::instance().acquire(&status_)) {}
  ~LentContext() {
    if (ctx_) ContextPool::instance().release(ctx_);
  }
  LentContext(const LentContext &) = delete;
  LentContext &operator=(const LentContext &) = delete;

  actq_context *get() const { return ctx_; }
  actq_status status() const { return status_; }

 private:
  actq_status status_ = ACTQ_OK;
  actq_context *ctx_;
};

}  // namespace actq_jax

#endif  // ACTQ_JAX_CONTEXTS_H
