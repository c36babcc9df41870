// contexts.h - the actq contexts the operators run on, lent one call at a time.
//
// A context may be used by one thread at a time (the contract, section 2), and PyTorch
// calls operators from any thread (the autograd engine's device threads, DataLoader
// workers, user threads). A context per thread would leak a CPU thread pool with every
// thread that ends, so idle contexts wait in a free list per (backend, device) instead:
// at most as many exist as calls ever ran at once, and one uncontended lock is the cost.
//
// CPU contexts run with torch.get_num_threads() threads, read at every call, so
// torch.set_num_threads governs actq's operators as it governs PyTorch's own. CUDA
// contexts are created with their device current and run on PyTorch's current stream
// of that device, set at every call.
#ifndef ACTQ_TORCH_CONTEXTS_H
#define ACTQ_TORCH_CONTEXTS_H

#include <cstdint>
#include <mutex>
#include <vector>

#include "actq.h"
#include "bindings/torch/src/errors.h"

namespace actq_torch {

struct PooledContext {
  actq_context *ctx;
  int backend;
  int device;   // CUDA device index; -1 on the CPU
  int threads;  // the thread count last set (CPU), -1 before the first
};

class ContextPool {
 public:
  // Contexts live until the process ends: PyTorch may still run operators while Python
  // unloads modules, so they are never destroyed earlier.
  static ContextPool &instance() {
    static ContextPool *pool = new ContextPool();
    return *pool;
  }

  // An idle context of (backend, device), or a new one; throws when none can be made.
  PooledContext acquire(actq_backend backend, int device) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = free_.size(); i-- > 0;) {
        if (free_[i].backend == backend && free_[i].device == device) {
          PooledContext c = free_[i];
          free_[i] = free_.back();
          free_.pop_back();
          return c;
        }
      }
    }
    PooledContext c{nullptr, static_cast<int>(backend), device, -1};
    check("actq_context_create", actq_context_create(backend, &c.ctx));
    return c;
  }

  void release(const PooledContext &c) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(c);
  }

  // Waits for the idle contexts of (backend, device) and returns the first deferred error
  // among them (actq_context_synchronize clears each context's as it reports it). A
  // context lent to a call in flight belongs to that call until it returns.
  actq_status synchronize_idle(actq_backend backend, int device) {
    std::vector<PooledContext> mine;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = free_.size(); i-- > 0;) {
        if (free_[i].backend == backend && free_[i].device == device) {
          mine.push_back(free_[i]);
          free_[i] = free_.back();
          free_.pop_back();
        }
      }
    }
    actq_status first = ACTQ_OK;
    for (const PooledContext &c : mine) {
      const actq_status s = actq_context_synchronize(c.ctx);
      if (first == ACTQ_OK) first = s;
    }
    for (const PooledContext &c : mine) release(c);
    return first;
  }

 private:
  std::mutex mutex_;
  std::vector<PooledContext> free_;
};

// Holds one context for the lifetime of an operator call.
class LentContext {
 public:
  LentContext(actq_backend backend, int device)
      : c_(ContextPool::instance().acquire(backend, device)) {}
  ~LentContext() { ContextPool::instance().release(c_); }
  LentContext(const LentContext &) = delete;
  LentContext &operator=(const LentContext &) = delete;

  actq_context *get() const { return c_.ctx; }

  // CPU: the thread count; set only when it changed (setting it re-describes the context).
  void use_threads(int threads) {
    if (threads != c_.threads) {
      check("actq_context_set_threads", actq_context_set_threads(c_.ctx, threads));
      c_.threads = threads;
    }
  }

 private:
  PooledContext c_;
};

}  // namespace actq_torch

#endif  // ACTQ_TORCH_CONTEXTS_H
