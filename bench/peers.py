#!/usr/bin/env python3
"""peers.py - libactq against its peers on the same tensor, in one process.

Peers (CPU, float32 input, groups = rows of 256 values):
  torch-composed : ActNN-style stochastic quantize-and-pack written with PyTorch ops only
                   (per-group min/max, scale, torch.rand noise, floor, clamp, bit packing by
                   shifts), and its dequantize (unpacking by shifts, q * scale + min).
  fbgemm         : row-wise 8/4/2-bit quantization as torch exposes FBGEMM:
                   torch.ops.quantized.embedding_bag_{byte,4bit,2bit}_prepack and _unpack.
                   (Rounding to nearest, no noise: it does less work than ours.)
  actq           : libactq through ctypes (ACTQ_BACKEND_CPU), stochastic rounding, f32 meta.

Prints G elements/s and the ratios, and writes JSON for bench/report.py (x peer column).
Usage: peers.py [--lib path/to/libactq.so] [--n ELEMENTS] [--reps R] [--json OUT]
Needs a torch from PyPI (its x86 wheel carries FBGEMM); say which one was measured.
"""
import argparse
import ctypes
import json
import os
import sys
import time

import torch

GROUP = 256


class Layout(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_size_t), ("cols", ctypes.c_size_t),
                ("group_size", ctypes.c_uint32), ("bits", ctypes.c_uint32),
                ("row_bits", ctypes.c_void_p), ("meta_dtype", ctypes.c_int)]


def best_time(fn, reps):
    fn()  # warm-up (allocations, first-touch)
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


# ---- torch-composed ActNN-style quantization --------------------------------------------
def torch_quantize_pack(x, bits):
    """x: [groups, 256] float32 -> (packed uint8 [groups, 256*bits/8], min, scale)."""
    levels = (1 << bits) - 1
    mn = x.min(dim=1, keepdim=True).values
    mx = x.max(dim=1, keepdim=True).values
    scale = (mx - mn) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    t = (x - mn) / scale
    q = torch.floor(t + torch.rand_like(t)).clamp_(0, levels).to(torch.uint8)
    per_byte = 8 // bits
    q = q.view(x.shape[0], -1, per_byte)
    shifts = torch.arange(0, 8, bits, dtype=torch.uint8)
    packed = (q << shifts).sum(dim=2, dtype=torch.uint8) if bits < 8 else q.view(x.shape[0], -1)
    return packed, mn, scale


def torch_dequantize(packed, mn, scale, bits):
    per_byte = 8 // bits
    if bits < 8:
        shifts = torch.arange(0, 8, bits, dtype=torch.uint8)
        q = (packed.unsqueeze(2) >> shifts) & ((1 << bits) - 1)
        q = q.view(packed.shape[0], -1)
    else:
        q = packed
    return q.to(torch.float32) * scale + mn


FBGEMM = {
    8: ("embedding_bag_byte_prepack", "embedding_bag_byte_unpack"),
    4: ("embedding_bag_4bit_prepack", "embedding_bag_4bit_unpack"),
    2: ("embedding_bag_2bit_prepack", "embedding_bag_2bit_unpack"),
}


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--lib", default=os.path.join(here, "..", "build-install", "lib", "libactq.so"))
    ap.add_argument("--n", type=int, default=1 << 26)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()

    lib = ctypes.CDLL(a.lib)
    lib.actq_context_describe.restype = ctypes.c_char_p
    lib.actq_quantize.argtypes = [ctypes.c_void_p, ctypes.POINTER(Layout), ctypes.c_int,
                                  ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64,
                                  ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_void_p]
    lib.actq_dequantize.argtypes = [ctypes.c_void_p, ctypes.POINTER(Layout), ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                    ctypes.c_void_p]
    ctx = ctypes.c_void_p()
    assert lib.actq_context_create(1, ctypes.byref(ctx)) == 0

    n = a.n - a.n % GROUP
    torch.manual_seed(0)
    x = torch.randn(n // GROUP, GROUP, dtype=torch.float32)
    ncpu = os.cpu_count() or 1
    results = []
    print("torch %s (FBGEMM: %s), %d elements (%.0f MiB f32), groups of %d, best of %d"
          % (torch.__version__, torch.backends.quantized.supported_engines, n, n * 4 / 2**20,
             GROUP, a.reps))
    print("%-10s %4s %7s %16s %10s %10s %8s" % ("kernel", "bits", "threads", "peer", "peer G/s",
                                                "actq G/s", "ratio"))
    for threads in sorted({1, ncpu}):
        torch.set_num_threads(threads)
        lib.actq_context_set_threads(ctx, threads)
        for bits in (1, 2, 3, 4, 8):
            lay = Layout(1, n, GROUP, bits, None, 0)
            packed = torch.empty((n * bits + 7) // 8, dtype=torch.uint8)
            gmin = torch.empty(n // GROUP, dtype=torch.float32)
            gscale = torch.empty(n // GROUP, dtype=torch.float32)
            y = torch.empty(n, dtype=torch.float32)
            seed = [1]

            def ours_q():
                seed[0] += 1
                lib.actq_quantize(ctx, ctypes.byref(lay), 0, x.data_ptr(), 0, seed[0], 0,
                                  packed.data_ptr(), gmin.data_ptr(), gscale.data_ptr())

            def ours_dq():
                lib.actq_dequantize(ctx, ctypes.byref(lay), packed.data_ptr(), gmin.data_ptr(),
                                    gscale.data_ptr(), 0, y.data_ptr())

            tq = n / best_time(ours_q, a.reps) / 1e9
            tdq = n / best_time(ours_dq, a.reps) / 1e9
            peers = []
            if 8 % bits == 0:
                tp = torch_quantize_pack(x, bits)
                peers.append(("quantize", "torch-composed",
                              n / best_time(lambda: torch_quantize_pack(x, bits), a.reps) / 1e9, tq))
                peers.append(("dequantize", "torch-composed",
                              n / best_time(lambda: torch_dequantize(*tp, bits), a.reps) / 1e9, tdq))
            if bits in FBGEMM:
                pre, unp = (getattr(torch.ops.quantized, f) for f in FBGEMM[bits])
                q = pre(x)
                peers.append(("quantize", "fbgemm", n / best_time(lambda: pre(x), a.reps) / 1e9, tq))
                peers.append(("dequantize", "fbgemm", n / best_time(lambda: unp(q), a.reps) / 1e9, tdq))
            if not peers:
                print("%-10s %4d %7d %16s %10s %10.3f %8s" % ("quantize", bits, threads, "-", "-", tq, "-"))
            for kernel, peer, g, ours in peers:
                print("%-10s %4d %7d %16s %10.3f %10.3f %7.1fx" % (kernel, bits, threads, peer, g,
                                                                  ours, ours / g))
                results.append(dict(kernel=kernel, dtype="f32", bits=bits, threads=threads,
                                    peer=peer, gelem_s=g, actq_gelem_s=ours))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(torch=torch.__version__, n=n, group=GROUP,
                           actq=lib.actq_context_describe(ctx).decode(), results=results), f,
                      indent=1)
    lib.actq_context_destroy(ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
