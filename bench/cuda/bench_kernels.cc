// bench_kernels.cc - the CUDA kernels against a device-to-device copy of the same bytes,
// measured in the same run with CUDA events (Google Benchmark, manual time).
//
// Bytes moved by a call = bytes it must read + bytes it must write (x, packed stream and
// metadata for quantize; the reverse for dequantize; codes and stream for pack/unpack;
// x, codes and y for fewbit_encode, without y for its codes alone; codes, grad_out and
// grad_in for fewbit_backward).
// The copy baseline is cudaMemcpyAsync of half that many bytes (a copy reads and writes
// each byte), timed in the same benchmark run just before the kernel. Counters:
//   GBps         bytes moved / median kernel time
//   copy_GBps    the same for the copy
//   pct_of_copy  100 * GBps / copy_GBps
// Sizes are the bytes of the tensor side (x or y for (de)quantize, codes for pack).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "actq.h"
#include "fewbit.h"
#include "fill.cuh"

namespace {

const uint32_t kGroup = 256;
const size_t kCols = 4096;

enum Kernel {
  QUANT_STOCHASTIC, QUANT_NEAREST, DEQUANT, PACK, UNPACK,
  FEWBIT_CODES, FEWBIT_Y_GELU, FEWBIT_Y_SILU, FEWBIT_BACKWARD
};
const char *kKernelName[] = {"quantize_stochastic", "quantize_nearest", "dequantize", "pack",
                             "unpack", "fewbit_codes", "fewbit_y_gelu", "fewbit_y_silu",
                             "fewbit_backward"};

actq_context *g_ctx = nullptr;
cudaStream_t g_stream = nullptr;

bool ok(cudaError_t e, benchmark::State &st, const char *what) {
  if (e == cudaSuccess) return true;
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s: %s", what, cudaGetErrorString(e));
  st.SkipWithError(msg);
  return false;
}

cudaEvent_t g_ev[2];

// Median time in ms of `reps` runs of fn on g_stream (events on the GPU's clock).
template <class F>
double median_ms(F fn, int reps) {
  std::vector<float> t;
  for (int i = 0; i < reps; i++) {
    cudaEventRecord(g_ev[0], g_stream);
    fn();
    cudaEventRecord(g_ev[1], g_stream);
    cudaEventSynchronize(g_ev[1]);
    float ms = 0;
    cudaEventElapsedTime(&ms, g_ev[0], g_ev[1]);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// A fixed count per size keeps the whole run short and predictable (the device check
// has minutes): many at small sizes, where launch noise matters, few at large ones.
long iterations_for(long mib) {
  const long it = 5 * 256 / mib;
  return it < 5 ? 5 : (it > 200 ? 200 : it);
}

void BM_kernel(benchmark::State &st) {
  const Kernel kernel = static_cast<Kernel>(st.range(0));
  const uint32_t bits = static_cast<uint32_t>(st.range(1));
  const actq_dtype dt = static_cast<actq_dtype>(st.range(2));
  const size_t tensor_bytes = static_cast<size_t>(st.range(3)) << 20;
  const bool packs = kernel == PACK || kernel == UNPACK;
  const bool fewbit = kernel >= FEWBIT_CODES;
  // fewbit_encode with y and fewbit_backward write a second tensor: y, grad_in.
  const bool second = kernel == FEWBIT_Y_GELU || kernel == FEWBIT_Y_SILU || kernel == FEWBIT_BACKWARD;
  const size_t esize = packs ? 1 : (dt == ACTQ_F32 ? 4 : 2);
  const size_t n = tensor_bytes / esize;
  fewbit_table table;
  if (fewbit && fewbit_table_build(kernel == FEWBIT_Y_SILU ? FEWBIT_SILU : FEWBIT_GELU, 0.0f,
                                   bits, nullptr, &table) != ACTQ_OK) {
    st.SkipWithError("fewbit_table_build");
    return;
  }

  actq_layout l = {};
  l.rows = n / kCols;
  l.cols = kCols;
  l.group_size = kGroup;
  l.bits = bits;
  l.meta_dtype = dt; // metadata in the tensor's dtype, as a framework would keep it
  size_t packed_bytes = 0, groups = 0;
  if (packs || fewbit) {
    packed_bytes = (n / 8) * bits + ((n % 8) * bits + 7) / 8;
  } else if (actq_layout_sizes(&l, &packed_bytes, &groups) != ACTQ_OK) {
    st.SkipWithError("layout");
    return;
  }
  const size_t meta_bytes = 2 * groups * esize;
  const size_t moved = tensor_bytes * (second ? 2 : 1) + packed_bytes + meta_bytes;

  void *tensor = nullptr, *packed = nullptr, *meta = nullptr, *csrc = nullptr, *cdst = nullptr,
       *out2 = nullptr;
  const size_t copy_bytes = moved / 2;
  if (!ok(cudaMalloc(&tensor, tensor_bytes), st, "cudaMalloc") ||
      (second && !ok(cudaMalloc(&out2, tensor_bytes), st, "cudaMalloc")) ||
      !ok(cudaMalloc(&packed, packed_bytes), st, "cudaMalloc") ||
      !ok(cudaMalloc(&meta, meta_bytes + 16), st, "cudaMalloc") ||
      !ok(cudaMalloc(&csrc, copy_bytes), st, "cudaMalloc") ||
      !ok(cudaMalloc(&cdst, copy_bytes), st, "cudaMalloc")) {
    cudaFree(tensor); cudaFree(packed); cudaFree(meta); cudaFree(csrc); cudaFree(cdst);
    cudaFree(out2);
    return;
  }
  char *mn = static_cast<char *>(meta), *sc = mn + groups * esize;
  bench_fill(tensor, n, packs ? 3 : (int)dt, bits, 1234);
  bench_fill(csrc, copy_bytes, 3, 8, 99);

  // Inputs of dequantize and unpack: what quantize and pack produce.
  if (kernel == DEQUANT)
    actq_quantize(g_ctx, &l, dt, tensor, ACTQ_ROUND_STOCHASTIC, 1, 0, packed, mn, sc);
  if (kernel == UNPACK) actq_pack(g_ctx, bits, n, static_cast<uint8_t *>(tensor), packed);
  // fewbit_backward's codes: those of x (tensor), which then serves as grad_out.
  if (kernel == FEWBIT_BACKWARD) fewbit_encode(g_ctx, &table, n, dt, tensor, nullptr, packed);
  actq_context_synchronize(g_ctx);

  auto run = [&]() {
    switch (kernel) {
      case QUANT_STOCHASTIC:
        actq_quantize(g_ctx, &l, dt, tensor, ACTQ_ROUND_STOCHASTIC, 7, 0, packed, mn, sc);
        break;
      case QUANT_NEAREST:
        actq_quantize(g_ctx, &l, dt, tensor, ACTQ_ROUND_NEAREST, 7, 0, packed, mn, sc);
        break;
      case DEQUANT: actq_dequantize(g_ctx, &l, packed, mn, sc, dt, tensor); break;
      case PACK: actq_pack(g_ctx, bits, n, static_cast<uint8_t *>(tensor), packed); break;
      case UNPACK: actq_unpack(g_ctx, bits, n, packed, static_cast<uint8_t *>(tensor)); break;
      case FEWBIT_CODES: fewbit_encode(g_ctx, &table, n, dt, tensor, nullptr, packed); break;
      case FEWBIT_Y_GELU:
      case FEWBIT_Y_SILU: fewbit_encode(g_ctx, &table, n, dt, tensor, out2, packed); break;
      case FEWBIT_BACKWARD: fewbit_backward(g_ctx, &table, n, packed, dt, tensor, out2); break;
    }
  };
  auto copy = [&]() { cudaMemcpyAsync(cdst, csrc, copy_bytes, cudaMemcpyDeviceToDevice, g_stream); };

  const int reps = tensor_bytes >= (size_t(256) << 20) ? 5 : 20;
  run();
  copy();
  const double copy_ms = median_ms(copy, reps);

  std::vector<double> times;
  for (auto _ : st) {
    const double ms = median_ms(run, 1);
    times.push_back(ms);
    st.SetIterationTime(ms / 1e3);
  }
  const actq_status sync = actq_context_synchronize(g_ctx);
  if (sync != ACTQ_OK && sync != ACTQ_ERR_NONFINITE) st.SkipWithError(actq_context_describe(g_ctx));
  std::sort(times.begin(), times.end());
  const double med = times.empty() ? 0 : times[times.size() / 2];
  const double gbps = med > 0 ? moved / (med * 1e6) : 0;
  const double copy_gbps = 2.0 * copy_bytes / (copy_ms * 1e6);
  st.counters["median_us"] = med * 1e3;
  st.counters["GBps"] = gbps;
  st.counters["copy_GBps"] = copy_gbps;
  st.counters["pct_of_copy"] = copy_gbps > 0 ? 100.0 * gbps / copy_gbps : 0;
  st.counters["MiB"] = (double)(tensor_bytes >> 20);
  st.SetLabel(std::string(kKernelName[kernel]) + " b" + std::to_string(bits) +
              (packs ? "" : (dt == ACTQ_F32 ? " f32" : " bf16")));

  cudaFree(tensor); cudaFree(packed); cudaFree(meta); cudaFree(csrc); cudaFree(cdst);
  cudaFree(out2);
}

void register_all() {
  const long sizes_mib[] = {1, 4, 16, 64, 256, 1024, 4096};
  const long bit_list[] = {1, 2, 4, 8};
  for (long k = QUANT_STOCHASTIC; k <= FEWBIT_BACKWARD; k++) {
    const bool packs = k == PACK || k == UNPACK;
    for (long b : bit_list)
      for (long dt : {(long)ACTQ_F32, (long)ACTQ_BF16}) {
        if (packs && dt != ACTQ_F32) continue; // pack/unpack have no float dtype
        for (long mib : sizes_mib) {
          std::string name = std::string(kKernelName[k]) + "/b" + std::to_string(b) +
                             (packs ? "" : (dt == ACTQ_F32 ? "/f32" : "/bf16")) + "/" +
                             std::to_string(mib) + "MiB";
          benchmark::RegisterBenchmark(name.c_str(), BM_kernel)
              ->Args({k, b, dt, mib})
              ->UseManualTime()
              ->Iterations(iterations_for(mib))
              ->Unit(benchmark::kMicrosecond);
        }
      }
  }
}

} // namespace

int main(int argc, char **argv) {
  const actq_status s = actq_context_create(ACTQ_BACKEND_CUDA, &g_ctx);
  if (s != ACTQ_OK) {
    std::printf("bench_cuda: skipped: no usable CUDA device (%s)\n", actq_status_string(s));
    return 77;
  }
  cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking);
  cudaEventCreate(&g_ev[0]);
  cudaEventCreate(&g_ev[1]);
  actq_context_set_stream(g_ctx, g_stream);
  std::printf("bench_cuda on %s\n", actq_context_describe(g_ctx));
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  actq_context_set_stream(g_ctx, nullptr);
  actq_context_destroy(g_ctx);
  cudaStreamDestroy(g_stream);
  return 0;
}
