/* instances.cuh - which compiled instance of the quantize and dequantize kernels a call
 * runs, written once: the launchers (quantize_kernel.cuh, dequantize.cu) start the kernel
 * of the instance, and tests/cuda/test_unit_ops_host.cu walks the same instance's lane
 * code on the host, so the test follows the launchers' choice by construction.
 *
 * `run` is a callable that takes the instance's template arguments as
 * std::integral_constant values:
 *   quantize:   run(team, fast, stochastic, metadata dtype, width)
 *   dequantize: run(width, fast, metadata dtype)
 * (ANY_META and width 0: the instance of run-time metadata dtype and width). Host code. */
#ifndef ACTQ_CUDA_INSTANCES_CUH
#define ACTQ_CUDA_INSTANCES_CUH

#include <type_traits>

#include "cuda/group_team.cuh"
#include "cuda/unit_ops.cuh"

namespace actq_cuda_instance {

template <int V>
using int_c = std::integral_constant<int, V>;
template <bool V>
using bool_c = std::integral_constant<bool, V>;

using actq_cuda_unit::ANY_META;

/* An aligned call of a team of at most a warp with a metadata dtype and a width of their
 * own (meta_instance, quantize_width_instance) runs that instance; false otherwise. */
template <actq_dtype DT, int TEAM, bool STOCH, class F>
bool quantize_exact(const actq_cuda_unit::quant_args &a, F &&run) {
  if constexpr (TEAM > 32) {
    return false;
  } else {
    const uint32_t bits = actq_cuda_unit::quantize_width_instance(a.rows, a.packed);
    const int mdt = actq_cuda_unit::meta_instance(a.meta_dtype, DT);
    if (bits == 0 || mdt == ANY_META) return false;
    auto width = [&](auto md) {
      if (bits == 2) run(int_c<TEAM>(), bool_c<true>(), bool_c<STOCH>(), md, int_c<2>());
      else if (bits == 4) run(int_c<TEAM>(), bool_c<true>(), bool_c<STOCH>(), md, int_c<4>());
      else run(int_c<TEAM>(), bool_c<true>(), bool_c<STOCH>(), md, int_c<8>());
    };
    if (mdt == ACTQ_F32) width(int_c<ACTQ_F32>());
    else if constexpr (DT != ACTQ_F32) width(int_c<DT>());
    return true;
  }
}

template <actq_dtype DT, int TEAM, class F>
void quantize_team(const actq_cuda_unit::quant_args &a, bool fast, bool stoch, F &&run) {
  const auto generic = int_c<ANY_META>();
  if (fast) {
    if (stoch) {
      if (!quantize_exact<DT, TEAM, true>(a, run))
        run(int_c<TEAM>(), bool_c<true>(), bool_c<true>(), generic, int_c<0>());
    } else {
      if (!quantize_exact<DT, TEAM, false>(a, run))
        run(int_c<TEAM>(), bool_c<true>(), bool_c<false>(), generic, int_c<0>());
    }
  } else {
    if (stoch) run(int_c<TEAM>(), bool_c<false>(), bool_c<true>(), generic, int_c<0>());
    else run(int_c<TEAM>(), bool_c<false>(), bool_c<false>(), generic, int_c<0>());
  }
}

/* team: one that team_for_call returns. */
template <actq_dtype DT, class F>
void quantize(const actq_cuda_unit::quant_args &a, int team, bool fast, bool stoch, F &&run) {
  switch (team) {
    case 1: quantize_team<DT, 1>(a, fast, stoch, run); break;
    case 2: quantize_team<DT, 2>(a, fast, stoch, run); break;
    case 4: quantize_team<DT, 4>(a, fast, stoch, run); break;
    case 8: quantize_team<DT, 8>(a, fast, stoch, run); break;
    case 16: quantize_team<DT, 16>(a, fast, stoch, run); break;
    case 32: quantize_team<DT, 32>(a, fast, stoch, run); break;
    default: quantize_team<DT, ACTQ_CUDA_BLOCK>(a, fast, stoch, run); break;
  }
}

/* Aligned calls of one width with float32 metadata or metadata of y's dtype
 * (dequantize_meta_instance: at widths 1, 2, 4 and 8 packed must be 8-byte aligned too)
 * run the instance with the metadata dtype compiled in. */
template <actq_dtype DT, int BITS, class F>
void dequantize_width(const actq_cuda_unit::dequant_args &a, bool fast, F &&run) {
  if (!fast) return run(int_c<BITS>(), bool_c<false>(), int_c<ANY_META>());
  if constexpr (BITS != 0) {
    const int mdt = actq_cuda_unit::dequantize_meta_instance(a.meta_dtype, DT, BITS, a.packed);
    if (mdt == ACTQ_F32) return run(int_c<BITS>(), bool_c<true>(), int_c<ACTQ_F32>());
    if constexpr (DT != ACTQ_F32)
      if (mdt == DT) return run(int_c<BITS>(), bool_c<true>(), int_c<DT>());
  }
  run(int_c<BITS>(), bool_c<true>(), int_c<ANY_META>());
}

/* bits: the uniform width, or 0 for per-row widths. */
template <actq_dtype DT, class F>
void dequantize(const actq_cuda_unit::dequant_args &a, uint32_t bits, bool fast, F &&run) {
  switch (bits) {
    case 1: dequantize_width<DT, 1>(a, fast, run); break;
    case 2: dequantize_width<DT, 2>(a, fast, run); break;
    case 3: dequantize_width<DT, 3>(a, fast, run); break;
    case 4: dequantize_width<DT, 4>(a, fast, run); break;
    case 5: dequantize_width<DT, 5>(a, fast, run); break;
    case 6: dequantize_width<DT, 6>(a, fast, run); break;
    case 7: dequantize_width<DT, 7>(a, fast, run); break;
    case 8: dequantize_width<DT, 8>(a, fast, run); break;
    default: dequantize_width<DT, 0>(a, fast, run); break;
  }
}

} /* namespace actq_cuda_instance */

#endif /* ACTQ_CUDA_INSTANCES_CUH */
