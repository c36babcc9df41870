// bench_cpu.cpp - Google Benchmark suite of the CPU backend against its memory-traffic proxy
// and the reference backend, all in one process and one run.
//
// Names: <kernel>/<dtype>/b<bits>/n<elements>/t<threads>/<impl>, impl one of
//   proxy - traffic_proxy() moving exactly the bytes the kernel must read and write,
//   cpu   - ACTQ_BACKEND_CPU (the ISA path it reports is printed in the context line),
//   ref   - ACTQ_BACKEND_CPU_REFERENCE (single-threaded by design; run with t1 only),
//   pair  - proxy and cpu timed in alternation (ACTQ_BENCH_PAIRED=1, below).
// quantize: stochastic rounding (quantize_nearest: round to nearest), groups of 256, f32
// metadata, one row; the dtype is the input's.
// dequantize: the same layout; the dtype is the output's. pack/unpack: one row of n codes.
// Counters: items_per_second (elements), bytes_per_second (the bytes the kernel must move).
// bench/report.py turns the JSON output into the table (% of proxy, x reference).
//
// fewbit_encode (codes only), fewbit_encode_y (codes and y = GELU(x)) and fewbit_backward
// use GELU tables of each width; the dtype is x's / the gradients'. table_build/<act>/b<bits>
// times fewbit_table_build at the default grid.
// alloc/greedy/m1000000 and alloc/exact/m1024 time actq_allocate_bits (widths {1,2,4,8},
// 2 bits on average; numel log-uniform in 1e3..1e7, s = numel * exp(U(0,8)), fixed seed).
// Environment: ACTQ_BENCH_SIZES="262144,67108864" (elements) overrides the sizes,
// ACTQ_BENCH_KERNELS="quantize,pack" the kernels, ACTQ_BENCH_REF=0 skips the reference,
// ACTQ_BENCH_WIDTHS="2,4" the widths (default 1..8), ACTQ_BENCH_DTYPES="0,2" the dtypes as
// actq_dtype values (default f32, bf16, f16), ACTQ_BENCH_GROUP=64 the group size of quantize
// and dequantize, ACTQ_BENCH_COLS=64 their row length (rows = n / cols; n must be a multiple,
// default one row of n): both go into the context of the JSON output, the names stay.
// ACTQ_BENCH_PAIRED=1: instead of the proxy and the kernel as two benchmarks, one "pair"
// benchmark a case whose iterations time a proxy call and a kernel call back to back
// (alternating which goes first); its time is the kernel's, its counters the median and
// quartiles of the per-pair % of proxy (pct_of_proxy, pct_q1, pct_q3) and the proxy's rate.
// ACTQ_BENCH_ACT=3 the few-bit kernels' activation as a fewbit_activation value (default 1,
// GELU; 3 is SiLU). ACTQ_BENCH_OFFSET=16: every buffer starts that many bytes past a 64-byte
// boundary (default 0). Buffers are 64-byte aligned by default because PyTorch's and JAX's
// tensors are (c10's CPU allocator aligns to 64); a std::vector as large as these comes from
// mmap at 16 bytes past a page, where every 64-byte load of a 16-lane kernel straddles two
// cache lines (NumPy's large arrays sit there too: ACTQ_BENCH_OFFSET=16 measures that case).
#include <actq.h>
#include <benchmark/benchmark.h>
#include <fewbit.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cpu/stream.h"  // the library's streaming threshold, which the proxy follows
#include "traffic_proxy.h"

namespace {

uint32_t g_group = 256;  // ACTQ_BENCH_GROUP
size_t g_cols = 0;       // ACTQ_BENCH_COLS; 0: one row of n elements

size_t cols_for(size_t n) { return g_cols ? g_cols : n; }
// groups of n elements in rows of cols_for(n)
size_t groups_for(size_t n) {
  const size_t cols = cols_for(n);
  return n / cols * ((cols + g_group - 1) / g_group);
}

actq_context *g_cpu = nullptr, *g_ref = nullptr;

// Bytes past a 64-byte boundary at which every buffer starts (ACTQ_BENCH_OFFSET).
size_t buffer_offset() {
  static const size_t off = [] {
    const char *v = std::getenv("ACTQ_BENCH_OFFSET");
    return v && *v ? (size_t)std::strtoul(v, nullptr, 10) % 64 : (size_t)0;
  }();
  return off;
}

// The buffers' allocator: 64-byte aligned storage, handed out buffer_offset() bytes in.
template <class T>
struct Aligned {
  using value_type = T;
  Aligned() = default;
  template <class U>
  Aligned(const Aligned<U> &) {}
  T *allocate(size_t n) {
    const size_t bytes = (n * sizeof(T) + 64 + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    return (T *)((uint8_t *)p + buffer_offset());
  }
  void deallocate(T *p, size_t) { std::free((uint8_t *)p - buffer_offset()); }
  template <class U>
  bool operator==(const Aligned<U> &) const { return true; }
  template <class U>
  bool operator!=(const Aligned<U> &) const { return false; }
};
template <class T>
using buffer = std::vector<T, Aligned<T>>;

struct Data {  // inputs of one size, made once and shared by all benchmarks of that size
  size_t n = 0;
  buffer<float> x_f32;
  buffer<uint16_t> x_bf16, x_f16;
  std::map<uint32_t, buffer<uint8_t>> packed;  // by width, quantized from x_f32
  buffer<float> gmin, gscale;
  buffer<uint8_t> codes;
  buffer<uint8_t> out;  // scratch output, large enough for any kernel
  buffer<uint8_t> out2; // a second output (the codes of fewbit_encode_y)
};
std::unique_ptr<Data> g_data;

// float32 -> binary16, round to nearest even (normal inputs of the benchmark's range)
uint16_t f32_to_f16(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  const uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  // rounds to Inf (inputs are finite)
  if (a < 0x38800000u) {                                     // f16 subnormal or zero
    const float m = std::fabs(v) * 16777216.0f;              // units of 2^-24, rounded by rint
    return (uint16_t)(sign | (uint32_t)std::nearbyint(m));
  }
  const uint32_t r = a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u;
  return (uint16_t)(sign | (r >> 13));
}

Data &data_for(size_t n) {
  if (g_data && g_data->n == n) return *g_data;
  g_data.reset();  // one size in memory at a time
  g_data = std::make_unique<Data>();
  Data &d = *g_data;
  d.n = n;
  std::mt19937_64 rng(42);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  d.x_f32.resize(n);
  d.x_bf16.resize(n);
  d.x_f16.resize(n);
  for (size_t i = 0; i < n; ++i) {
    float v = nd(rng);
    d.x_f32[i] = v;
    uint32_t u;
    std::memcpy(&u, &v, 4);
    d.x_bf16[i] = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    d.x_f16[i] = f32_to_f16(v);
  }
  d.codes.resize(n);
  for (size_t i = 0; i < n; ++i) d.codes[i] = (uint8_t)rng();
  size_t groups = groups_for(n);
  d.gmin.resize(groups);
  d.gscale.resize(groups);
  d.out.resize(n * 4 + 64);
  d.out2.resize(n + 64);
  return d;
}

actq_layout layout_for(size_t n, uint32_t bits) {
  actq_layout l{};
  l.rows = n / cols_for(n);
  l.cols = cols_for(n);
  l.group_size = g_group;
  l.bits = bits;
  l.row_bits = nullptr;
  l.meta_dtype = ACTQ_F32;
  return l;
}

const buffer<uint8_t> &packed_for(Data &d, uint32_t bits) {
  auto it = d.packed.find(bits);
  if (it != d.packed.end()) return it->second;
  actq_layout l = layout_for(d.n, bits);
  size_t pb = 0;
  actq_layout_sizes(&l, &pb, nullptr);
  buffer<uint8_t> p(pb);
  actq_context_set_threads(g_cpu, 0);
  actq_quantize(g_cpu, &l, ACTQ_F32, d.x_f32.data(), ACTQ_ROUND_STOCHASTIC, 1, 0, p.data(),
                d.gmin.data(), d.gscale.data());
  return d.packed[bits] = std::move(p);
}

enum Kernel {
  kQuantize, kQuantizeNearest, kDequantize, kPack, kUnpack, kFewEncode, kFewEncodeY, kFewBackward
};
enum Impl { kProxy, kCpu, kRef, kPair };
const char *kernel_name[] = {"quantize",      "quantize_nearest", "dequantize",
                             "pack",          "unpack",           "fewbit_encode",
                             "fewbit_encode_y", "fewbit_backward"};
constexpr int kKernels = 8;

const fewbit_table &gelu_table(uint32_t bits) {
  static std::map<uint32_t, fewbit_table> tables;
  auto it = tables.find(bits);
  if (it != tables.end()) return it->second;
  fewbit_table t;
  const char *act = std::getenv("ACTQ_BENCH_ACT");
  fewbit_table_build(act ? (fewbit_activation)std::atoi(act) : FEWBIT_GELU, 0.0f, bits, nullptr, &t);
  return tables[bits] = t;
}
const char *impl_name[] = {"proxy", "cpu", "ref", "pair"};

struct Case {
  Kernel kernel;
  actq_dtype dtype;  // input (quantize) or output (dequantize); unused by pack/unpack
  uint32_t bits;
  size_t n;
  int threads;
  Impl impl;
};

size_t packed_bytes(size_t n, uint32_t bits) { return (n / 8) * bits + ((n % 8) * bits + 7) / 8; }

void run_case(benchmark::State &st, Case c) {
  Data &d = data_for(c.n);
  const size_t esize = c.dtype == ACTQ_F32 ? 4 : 2;
  const size_t groups = groups_for(c.n), meta = 2 * groups * 4;
  size_t pb = packed_bytes(c.n, c.bits);  // one row; the layout's rows for (de)quantize
  if (c.kernel == kQuantize || c.kernel == kQuantizeNearest || c.kernel == kDequantize) {
    const actq_layout l = layout_for(c.n, c.bits);
    actq_layout_sizes(&l, &pb, nullptr);
  }
  const void *x = c.dtype == ACTQ_F32    ? (const void *)d.x_f32.data()
                  : c.dtype == ACTQ_BF16 ? (const void *)d.x_bf16.data()
                                         : (const void *)d.x_f16.data();
  const buffer<uint8_t> *packed = nullptr;
  if (c.kernel == kDequantize || c.kernel == kUnpack) packed = &packed_for(d, c.bits);
  const fewbit_table *table = c.kernel >= kFewEncode ? &gelu_table(c.bits) : nullptr;
  buffer<uint8_t> fcodes;  // the codes fewbit_backward reads
  if (c.kernel == kFewBackward) {
    fcodes.resize(pb + 8);
    fewbit_encode(g_cpu, table, c.n, c.dtype, x, nullptr, fcodes.data());
  }
  size_t in_bytes = 0, out_bytes = 0;
  switch (c.kernel) {
    case kQuantize:
    case kQuantizeNearest: in_bytes = c.n * esize; out_bytes = pb + meta; break;
    case kDequantize: in_bytes = pb + meta; out_bytes = c.n * esize; break;
    case kPack: in_bytes = c.n; out_bytes = pb; break;
    case kUnpack: in_bytes = pb; out_bytes = c.n; break;
    case kFewEncode: in_bytes = c.n * esize; out_bytes = pb; break;
    case kFewEncodeY: in_bytes = c.n * esize; out_bytes = pb + c.n * esize; break;
    case kFewBackward: in_bytes = pb + c.n * esize; out_bytes = c.n * esize; break;
  }
  actq_context *ctx = c.impl == kRef ? g_ref : g_cpu;
  if (c.impl != kRef) actq_context_set_threads(g_cpu, c.threads);
  actq_layout l = layout_for(c.n, c.bits);
  // pack must see valid codes: mask them for this width once (kept in a copy)
  buffer<uint8_t> codes;
  if (c.kernel == kPack) {
    codes = d.codes;
    for (auto &v : codes) v &= (uint8_t)((1u << c.bits) - 1u);
  }
  // Outputs of 2 bytes an element or more: streamed by the proxy where the library
  // streams them (a call's output of actq_stream_min_bytes() or more).
  const bool nt = c.n * esize >= actq_stream_min_bytes();
  uint64_t seed = 7;
  // The same-run traffic proxy for this case, on the kernel's own buffers, so that proxy and
  // kernel see the same cache state.
  auto proxy_once = [&]() {
    uint64_t r = 0;
    switch (c.kernel) {
      case kQuantize:
      case kQuantizeNearest:
        r = traffic_proxy((const uint8_t *)x, c.n * esize, d.out.data(), pb, c.threads);
        r ^= traffic_proxy(nullptr, 0, (uint8_t *)d.gmin.data(), meta / 2, c.threads);
        r ^= traffic_proxy(nullptr, 0, (uint8_t *)d.gscale.data(), meta / 2, c.threads);
        break;
      case kDequantize:
        r = traffic_proxy(packed->data(), pb, d.out.data(), c.n * esize, c.threads, nt);
        r ^= traffic_proxy((const uint8_t *)d.gmin.data(), meta / 2, nullptr, 0, c.threads);
        r ^= traffic_proxy((const uint8_t *)d.gscale.data(), meta / 2, nullptr, 0, c.threads);
        break;
      case kPack: r = traffic_proxy(codes.data(), c.n, d.out.data(), pb, c.threads); break;
      case kUnpack: r = traffic_proxy(packed->data(), pb, d.out.data(), c.n, c.threads); break;
      case kFewEncode:
        r = traffic_proxy((const uint8_t *)x, c.n * esize, d.out2.data(), pb, c.threads);
        break;
      case kFewEncodeY:
        r = traffic_proxy((const uint8_t *)x, c.n * esize, d.out.data(), c.n * esize, c.threads,
                          nt);
        r ^= traffic_proxy(nullptr, 0, d.out2.data(), pb, c.threads);
        break;
      case kFewBackward:
        r = traffic_proxy((const uint8_t *)x, c.n * esize, d.out.data(), c.n * esize, c.threads,
                          nt);
        r ^= traffic_proxy(fcodes.data(), pb, nullptr, 0, c.threads);
        break;
    }
    benchmark::DoNotOptimize(r);
  };
  auto kernel_once = [&]() -> actq_status {
    switch (c.kernel) {
      case kQuantize:
        return actq_quantize(ctx, &l, c.dtype, x, ACTQ_ROUND_STOCHASTIC, seed++, 0, d.out.data(),
                             d.gmin.data(), d.gscale.data());
      case kQuantizeNearest:
        return actq_quantize(ctx, &l, c.dtype, x, ACTQ_ROUND_NEAREST, 0, 0, d.out.data(),
                             d.gmin.data(), d.gscale.data());
      case kDequantize:
        return actq_dequantize(ctx, &l, packed->data(), d.gmin.data(), d.gscale.data(), c.dtype,
                               d.out.data());
      case kPack: return actq_pack(ctx, c.bits, c.n, codes.data(), d.out.data());
      case kUnpack: return actq_unpack(ctx, c.bits, c.n, packed->data(), d.out.data());
      case kFewEncode: return fewbit_encode(ctx, table, c.n, c.dtype, x, nullptr, d.out2.data());
      case kFewEncodeY:
        return fewbit_encode(ctx, table, c.n, c.dtype, x, d.out.data(), d.out2.data());
      case kFewBackward:  // x serves as grad_out
        return fewbit_backward(ctx, table, c.n, fcodes.data(), c.dtype, x, d.out.data());
    }
    return ACTQ_OK;
  };
  // Paired: each iteration times one proxy call and one kernel call, in the order P K, K P,
  // P K, ... (the kernel's time is the iteration's, UseManualTime), so that both see the
  // machine of the same moment; on a shared VM whose memory bandwidth drifts 10-30% between
  // minutes, the per-pair ratio is what says how far a kernel is from its proxy.
  std::vector<double> t_kernel, t_proxy;
  for (auto _ : st) {
    actq_status s = ACTQ_OK;
    if (c.impl == kPair) {
      double tk = 0.0, tp = 0.0;
      const bool kernel_first = t_kernel.size() % 2 == 1;  // P K, K P, P K, ...
      for (int half = 0; half < 2; ++half) {
        const bool kernel_now = (half == 0) == kernel_first;
        const auto t0 = std::chrono::steady_clock::now();
        if (kernel_now) s = kernel_once();
        else proxy_once();
        benchmark::ClobberMemory();
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        (kernel_now ? tk : tp) = dt;
      }
      t_kernel.push_back(tk);
      t_proxy.push_back(tp);
      st.SetIterationTime(tk);
    } else if (c.impl == kProxy) {
      proxy_once();
    } else {
      s = kernel_once();
    }
    if (s != ACTQ_OK) {
      st.SkipWithError(actq_status_string(s));
      break;
    }
    benchmark::ClobberMemory();
  }
  if (c.impl == kPair && !t_kernel.empty()) {
    // % of proxy: the median and quartiles of time(proxy) / time(kernel) over the pairs
    std::vector<double> ratio(t_kernel.size());
    for (size_t i = 0; i < ratio.size(); ++i) ratio[i] = 100.0 * t_proxy[i] / t_kernel[i];
    std::sort(ratio.begin(), ratio.end());
    std::sort(t_proxy.begin(), t_proxy.end());
    const size_t m = ratio.size();
    st.counters["pct_of_proxy"] = ratio[m / 2];
    st.counters["pct_q1"] = ratio[m / 4];
    st.counters["pct_q3"] = ratio[3 * m / 4];
    st.counters["pairs"] = (double)m;
    st.counters["proxy_items_per_second"] = (double)c.n / t_proxy[m / 2];
  }
  st.SetItemsProcessed((int64_t)st.iterations() * (int64_t)c.n);
  st.SetBytesProcessed((int64_t)st.iterations() * (int64_t)(in_bytes + out_bytes));
  st.counters["threads_used"] = c.impl == kRef ? 1 : c.threads;
}

std::vector<size_t> env_list(const char *name, std::vector<size_t> dflt) {
  const char *v = std::getenv(name);
  if (!v || !*v) return dflt;
  std::vector<size_t> out;
  std::stringstream ss(v);
  std::string tok;
  while (std::getline(ss, tok, ',')) out.push_back(std::strtoull(tok.c_str(), nullptr, 10));
  return out;
}

bool kernel_wanted(Kernel k) {
  const char *v = std::getenv("ACTQ_BENCH_KERNELS");
  if (!v || !*v) return true;
  std::stringstream ss(v);
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (tok == kernel_name[k]) return true;
  return false;
}

}  // namespace

int main(int argc, char **argv) {
  if (actq_context_create(ACTQ_BACKEND_CPU, &g_cpu) != ACTQ_OK ||
      actq_context_create(ACTQ_BACKEND_CPU_REFERENCE, &g_ref) != ACTQ_OK) {
    std::fprintf(stderr, "cannot create contexts\n");
    return 1;
  }
  const int all = (int)std::thread::hardware_concurrency();
  benchmark::AddCustomContext("actq_cpu", actq_context_describe(g_cpu));
  benchmark::AddCustomContext("actq_version", std::to_string(actq_version()));
  if (const char *v = std::getenv("ACTQ_BENCH_GROUP")) g_group = (uint32_t)std::strtoul(v, nullptr, 10);
  if (const char *v = std::getenv("ACTQ_BENCH_COLS")) g_cols = std::strtoull(v, nullptr, 10);
  benchmark::AddCustomContext("group_size", std::to_string(g_group));
  benchmark::AddCustomContext("buffer_offset", std::to_string(buffer_offset()));
  benchmark::AddCustomContext("cols", g_cols ? std::to_string(g_cols) : "n");
  // 1 MiB f32 (L2-resident) .. 256 MiB f32
  std::vector<size_t> sizes =
      env_list("ACTQ_BENCH_SIZES", {1u << 18, 1u << 20, 1u << 23, 1u << 26});
  const bool with_ref = !std::getenv("ACTQ_BENCH_REF") || std::atoi(std::getenv("ACTQ_BENCH_REF"));
  const bool paired = std::getenv("ACTQ_BENCH_PAIRED") && std::atoi(std::getenv("ACTQ_BENCH_PAIRED"));
  benchmark::AddCustomContext("paired", paired ? "1" : "0");
  std::vector<int> threads = {1};
  if (all > 1) threads.push_back(all);
  std::vector<size_t> widths = env_list("ACTQ_BENCH_WIDTHS", {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<size_t> dtype_ids = env_list("ACTQ_BENCH_DTYPES", {ACTQ_F32, ACTQ_BF16, ACTQ_F16});
  for (size_t n : sizes)
    for (int k = 0; k < kKernels; ++k) {
      Kernel kern = (Kernel)k;
      if (!kernel_wanted(kern)) continue;
      std::vector<actq_dtype> dts;
      for (size_t id : dtype_ids) dts.push_back((actq_dtype)id);
      if (kern == kPack || kern == kUnpack) dts = {ACTQ_F32};  // bytes in, bytes out
      for (actq_dtype dt : dts)
        for (size_t bw : widths)
          for (int t : threads)
            for (int im = 0; im < 4; ++im) {
              if (im == kRef && (!with_ref || t != 1)) continue;
              if ((im == kPair) != paired && im != kRef) continue;
              const uint32_t b = (uint32_t)bw;
              Case c{kern, dt, b, n, t, (Impl)im};
              char name[160];
              std::snprintf(name, sizeof name, "%s/%s/b%u/n%zu/t%d/%s", kernel_name[k],
                            kern == kPack || kern == kUnpack ? "u8"
                            : dt == ACTQ_F32                 ? "f32"
                            : dt == ACTQ_BF16                ? "bf16"
                                                             : "f16",
                            b, n, t, impl_name[im]);
              auto *bm = benchmark::RegisterBenchmark(name, run_case, c);
              (im == kPair ? bm->UseManualTime() : bm->UseRealTime())->Unit(benchmark::kMillisecond);
            }
    }
  // Table builds: the solver's time at the default grid, per width.
  if (kernel_wanted(kFewEncode) || std::getenv("ACTQ_BENCH_TABLES"))
    for (uint32_t b = 1; b <= 8; ++b) {
      char name[64];
      std::snprintf(name, sizeof name, "table_build/gelu/b%u", b);
      benchmark::RegisterBenchmark(name, [b](benchmark::State &st) {
        fewbit_table t;
        for (auto _ : st) {
          if (fewbit_table_build(FEWBIT_GELU, 0.0f, b, nullptr, &t) != ACTQ_OK) {
            st.SkipWithError("table build failed");
            break;
          }
          benchmark::DoNotOptimize(t.error);
        }
      })->Unit(benchmark::kMillisecond);
    }
  // Bit allocation: the greedy at 10^6 items, the exact solver at 1024 layers.
  {
    const char *kv = std::getenv("ACTQ_BENCH_KERNELS");
    if (!kv || !*kv || std::strstr(kv, "alloc"))
      for (size_t m : {size_t(1000000), size_t(1024)}) {
        auto s = std::make_shared<std::vector<double>>(m);
        auto nm = std::make_shared<std::vector<uint64_t>>(m);
        std::mt19937_64 gen(42);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (size_t i = 0; i < m; ++i) {
          (*nm)[i] = (uint64_t)std::exp(std::log(1e3) + std::log(1e4) * u(gen));
          (*s)[i] = (double)(*nm)[i] * std::exp(8.0 * u(gen));
        }
        actq_alloc_method meth = m == 1024 ? ACTQ_ALLOC_EXACT : ACTQ_ALLOC_GREEDY;
        char name[64];
        std::snprintf(name, sizeof name, "alloc/%s/m%zu", m == 1024 ? "exact" : "greedy", m);
        benchmark::RegisterBenchmark(name, [s, nm, m, meth](benchmark::State &st) {
          std::vector<uint8_t> bits(m);
          double obj = 0.0;
          for (auto _ : st) {
            if (actq_allocate_bits(m, s->data(), nm->data(), 2.0, 0x116, meth, bits.data(),
                                   &obj) != ACTQ_OK) {
              st.SkipWithError("actq_allocate_bits failed");
              break;
            }
            benchmark::DoNotOptimize(obj);
          }
        })->Unit(benchmark::kMillisecond);
      }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  actq_context_destroy(g_cpu);
  actq_context_destroy(g_ref);
  return 0;
}
