#!/usr/bin/env python3
"""torch_compare.py - actq's fused stochastic quantize-and-pack against the same operation
composed from PyTorch ops, on the same GPU, same stream, timed with CUDA events.

Usage: torch_compare.py LIBACTQ_SO OUT_JSON [MiB]
The torch version: per-group min/max, scale = (max - min) / L, q = floor((x - min) / s + u)
clamped to [0, L], codes packed 8/bits to a byte with shifts and ORs; min and scale kept
in the input dtype, as actq does with meta_dtype = the input dtype.
"""
import ctypes
import json
import sys

import torch

G = 256


class Layout(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_size_t), ("cols", ctypes.c_size_t),
                ("group_size", ctypes.c_uint32), ("bits", ctypes.c_uint32),
                ("row_bits", ctypes.c_void_p), ("meta_dtype", ctypes.c_int)]


def torch_quant_pack(x, bits):
    L = (1 << bits) - 1
    g = x.view(-1, G).float()
    mn = g.amin(1, keepdim=True)
    mx = g.amax(1, keepdim=True)
    s = (mx - mn) / L
    s = torch.where(s == 0, torch.ones_like(s), s)
    q = torch.floor((g - mn) / s + torch.rand_like(g)).clamp_(0, L).to(torch.uint8)
    per = 8 // bits
    q = q.view(-1, per)
    packed = q[:, 0].clone()
    for i in range(1, per):
        packed |= q[:, i] << (i * bits)
    return packed, mn.to(x.dtype), s.to(x.dtype)


def median_us(fn, reps=10):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    lib = ctypes.CDLL(sys.argv[1])
    out_path = sys.argv[2]
    mib = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    lib.actq_context_create.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    lib.actq_context_set_stream.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.actq_context_synchronize.argtypes = [ctypes.c_void_p]
    lib.actq_context_describe.argtypes = [ctypes.c_void_p]
    lib.actq_context_describe.restype = ctypes.c_char_p
    lib.actq_quantize.argtypes = [ctypes.c_void_p, ctypes.POINTER(Layout), ctypes.c_int,
                                  ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64,
                                  ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_void_p]
    ctx = ctypes.c_void_p()
    st = lib.actq_context_create(2, ctypes.byref(ctx))
    if st != 0:
        print(f"actq CUDA context: status {st}")
        return 1
    stream = torch.cuda.current_stream()
    lib.actq_context_set_stream(ctx, ctypes.c_void_p(stream.cuda_stream))
    print("actq on", lib.actq_context_describe(ctx).decode())

    rows = []
    for dtype, code in ((torch.float32, 0), (torch.bfloat16, 2)):
        n = (mib << 20) // torch.tensor([], dtype=dtype).element_size()
        x = torch.randn(n, device="cuda", dtype=dtype)
        for bits in (2, 4):
            lay = Layout(n // 4096, 4096, G, bits, None, code)
            packed = torch.empty(n * bits // 8, device="cuda", dtype=torch.uint8)
            mn = torch.empty(n // G, device="cuda", dtype=dtype)
            sc = torch.empty(n // G, device="cuda", dtype=dtype)
            seed = [0]

            def ours():
                seed[0] += 1
                r = lib.actq_quantize(ctx, ctypes.byref(lay), code, x.data_ptr(), 0, seed[0], 0,
                                      packed.data_ptr(), mn.data_ptr(), sc.data_ptr())
                assert r == 0, r

            a = median_us(ours)
            assert lib.actq_context_synchronize(ctx) == 0
            t = median_us(lambda: torch_quant_pack(x, bits))
            rows.append({"bits": bits, "dtype": str(dtype).replace("torch.", ""),
                         "actq_us": a, "torch_us": t, "speedup": t / a})
            print(f"bits {bits} {dtype}: actq {a:.1f} us, torch {t:.1f} us, {t / a:.1f}x")
            del packed, mn, sc
        del x
    lib.actq_context_set_stream(ctx, None)
    with open(out_path, "w") as f:
        json.dump({"torch": torch.__version__, "mib": mib, "group": G, "rows": rows}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
