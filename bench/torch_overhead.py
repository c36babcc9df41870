#!/usr/bin/env python3
"""torch_overhead.py - what a call of actq's PyTorch operators costs next to a PyTorch op,
in one process, on the same tensors: the host code around each call, and a few-bit
activation layer against PyTorch's own.

Rows (x: torch.randn(--n), float32, CPU, groups of 256, 2 bits, stochastic rounding):
  torch.add(x, 1.0)                 the yardstick: one aten elementwise op
  fbgemm 2-bit prepack              torch.ops.quantized.embedding_bag_2bit_prepack of x
                                    viewed as [n/256, 256]: a C++ quantize op of PyTorch's
  torch.ops.actq.quantize           the operator, arguments prebuilt
  torch.ops.actq.dequantize
  actq.torch.quantize / dequantize  the package's entry points (argument handling + op)
  hooks pack + unpack               what compressed_saved_tensors runs per saved tensor
                                    (SavedTensorHooks.pack then .unpack)
  ctypes quantize                   actq.torch.kernels.quantize: the library through ctypes
  fewbit_encode (y) / backward      torch.ops.actq.fewbit_encode with y, fewbit_backward,
                                    GELU 2-bit table
and at --big elements (2^16): torch.ops.actq.quantize against the same C call timed from C
(bench_cpu's quantize/f32/b2/n<big>/t1/cpu/real_time, when --bench-cpu names the binary; it links the
library the package loaded when LD_LIBRARY_PATH points there) and from ctypes with its
arguments prebuilt. Few-bit layers: actq.torch.nn.GELU(bits=2) / SiLU against
torch.nn.GELU / SiLU, forward with grad enabled, and forward + backward, at --layer-sizes.

Timing: --runs runs (default 5) of --calls calls (default 2000; layers: --layer-calls,
default 20 x more for small sizes, see below), each run's mean per call; the median of the
runs is printed, with min-max. One thread by default (--threads: torch.set_num_threads;
actq's C++ operators follow it, the Python path's default context is set to it too).
OMP_WAIT_POLICY=PASSIVE is set before torch loads (peers.py says why).

  python bench/torch_overhead.py [--n 4096] [--big 65536] [--calls 2000] [--runs 5]
         [--threads 1] [--bench-cpu build-bench/bench_cpu] [--no-layers] [--json OUT]
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

import actq  # noqa: E402
import actq.torch as at  # noqa: E402
from actq import _lib, raw  # noqa: E402
from actq.enums import DType, Rounding  # noqa: E402
from actq.torch import kernels, library  # noqa: E402
from actq.torch.device import addr  # noqa: E402


def per_call_us(fn, calls, runs, sync=lambda: None):
    """[mean us per call of each run], after a warm-up of calls // 10 calls; sync() waits
    for a device's queued work at the end of each run."""
    for _ in range(max(calls // 10, 1)):
        fn()
    sync()
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        out.append((time.perf_counter() - t) / calls * 1e6)
    return out


def hook_pair(quantizer):
    """(pack, unpack) of compressed_saved_tensors with every tensor compressed; read off
    the hooks installed by the context manager where the package has no SavedTensorHooks
    (a tree before it, for before/after tables)."""
    from actq.torch import hooks
    if hasattr(hooks, "SavedTensorHooks"):
        h = hooks.SavedTensorHooks(quantizer, min_numel=1)
        return h.pack, h.unpack
    with hooks.compressed_saved_tensors(quantizer=quantizer, min_numel=1):
        return torch._C._autograd._top_saved_tensors_default_hooks(False)


def cpu_model():
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def bench_cpu_us(binary, n):
    """quantize/f32/b2/n<n>/t1/cpu from bench_cpu: microseconds per call (median of 5)."""
    env = dict(os.environ, ACTQ_BENCH_SIZES=str(n), ACTQ_BENCH_KERNELS="quantize",
               ACTQ_BENCH_WIDTHS="2", ACTQ_BENCH_DTYPES="0", ACTQ_BENCH_REF="0")
    name = "quantize/f32/b2/n%d/t1/cpu/real_time" % n
    r = subprocess.run([binary, "--benchmark_filter=^%s$" % name, "--benchmark_format=json",
                        "--benchmark_repetitions=5", "--benchmark_min_time=0.2"],
                       capture_output=True, text=True, env=env, check=True)
    runs = [b for b in json.loads(r.stdout)["benchmarks"] if b.get("run_type") == "iteration"]
    unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3}
    return [b["real_time"] * unit[b["time_unit"]] for b in runs]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--big", type=int, default=65536)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                    help="where the tensors are (cuda: the per-call rows only)")
    ap.add_argument("--bench-cpu", help="the bench_cpu binary, for the C-timed row")
    ap.add_argument("--layer-sizes", default="65536,1048576,4194304")
    ap.add_argument("--layer-calls", type=int, default=20)
    ap.add_argument("--no-layers", action="store_true")
    ap.add_argument("--json", help="write the rows as JSON here")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    actq.default_context().set_threads(a.threads)
    torch.manual_seed(0)
    rows = []

    def row(name, us, ref=None, note=""):
        med = statistics.median(us)
        rows.append({"name": name, "us": med, "min": min(us), "max": max(us),
                     "ratio": med / ref if ref else None, "note": note})
        return med

    impl = getattr(library, "IMPLEMENTATION", "Python custom operators (a tree before the "
                   "C++ ones)" if library.AVAILABLE else "direct library calls")
    gpu = "; GPU: %s" % torch.cuda.get_device_name() if a.device == "cuda" else ""
    print("CPU: %s%s; torch %s; actq %s (%s); %d thread(s); operators: %s"
          % (cpu_model(), gpu, torch.__version__, actq.__version__,
             os.path.dirname(actq.__file__), a.threads, impl))
    print("per call, median of %d runs of %d calls (min-max)" % (a.runs, a.calls))

    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    def timed(fn, calls=None):
        return per_call_us(fn, calls or a.calls, a.runs, sync)

    x = torch.randn(a.n, device=dev)
    base = row("torch.add(x, 1.0), %d f32" % a.n, timed(lambda: torch.add(x, 1.0)))
    prepack = getattr(getattr(torch.ops, "quantized", None), "embedding_bag_2bit_prepack", None)
    if prepack is not None and a.n % 256 == 0 and dev.type == "cpu":
        x2 = x.view(-1, 256)
        row("fbgemm embedding_bag_2bit_prepack", timed(lambda: prepack(x2)), base)
    off = torch.zeros((), dtype=torch.int64)
    if library.AVAILABLE:
        qop, dqop = torch.ops.actq.quantize.default, torch.ops.actq.dequantize.default
        args = (x, None, 1, 2, 256, "stochastic", 5, off, "f32")
        row("torch.ops.actq.quantize", timed(lambda: qop(*args)), base)
        p, mn, sc = qop(*args)
        dargs = (p, mn, sc, None, [a.n], 1, 2, 256, torch.float32)
        row("torch.ops.actq.dequantize", timed(lambda: dqop(*dargs)), base)
    row("actq.torch.quantize", timed(lambda: at.quantize(x, 2, seed=5, offset=off, rows=1)),
        base)
    q = at.quantize(x, 2, seed=5, rows=1)
    row("actq.torch.dequantize", timed(lambda: at.dequantize(q)), base)
    pack, unpack = hook_pair(at.Quantizer(2, seed=5))
    row("hooks pack + unpack (Quantizer.compress, decompress)",
        timed(lambda: unpack(pack(x))), base)
    row("ctypes quantize (actq.torch.kernels)",
        timed(lambda: kernels.quantize(x, 1, 2, 256, None, Rounding.STOCHASTIC, 5, 0,
                                       DType.F32)), base)
    if library.AVAILABLE:
        spec = library.table_spec(actq.cached_table("gelu", 2))
        eop, bop = torch.ops.actq.fewbit_encode.default, torch.ops.actq.fewbit_backward.default
        row("torch.ops.actq.fewbit_encode with y", timed(lambda: eop(x, *spec, True)), base)
        codes, _ = eop(x, *spec, False)
        row("torch.ops.actq.fewbit_backward", timed(lambda: bop(codes, x, *spec)), base)

    if dev.type != "cpu":
        a.no_layers = True
        a.big = 0
    # At --big elements: the operator against the same C call timed from C and from ctypes.
    xb = torch.randn(a.big)
    big_calls = max(a.calls // 8, 50)
    c_ref = None
    if a.bench_cpu and a.big:
        c_ref = row("C quantize, %d f32, timed by bench_cpu" % a.big,
                    bench_cpu_us(a.bench_cpu, a.big))
    if not a.big:
        return report(a, rows, impl)
    lay = raw.layout(1, a.big, 256, 2, None, DType.F32)
    nbytes, groups = raw.layout_sizes(lay)
    pb = torch.empty(nbytes, dtype=torch.uint8)
    gb, sb = torch.empty(groups), torch.empty(groups)
    ctx = actq.default_context()
    fn, h = _lib.actq_quantize, ctx.handle
    xa, pa, ga, sa = addr(xb), addr(pb), addr(gb), addr(sb)
    ct = row("C quantize, %d f32, from ctypes (arguments prebuilt)" % a.big,
             timed(lambda: fn(h, lay, 0, xa, 0, 5, 0, pa, ga, sa), big_calls), c_ref)
    if library.AVAILABLE:
        bargs = (xb, None, 1, 2, 256, "stochastic", 5, off, "f32")
        row("torch.ops.actq.quantize, %d f32" % a.big, timed(lambda: qop(*bargs), big_calls),
            c_ref or ct, "ratio to the C call")

    if not a.no_layers:
        for name, ours, theirs in (("GELU", at.nn.GELU(bits=2), torch.nn.GELU()),
                                   ("SiLU", at.nn.SiLU(bits=2), torch.nn.SiLU())):
            for n in [int(s) for s in a.layer_sizes.split(",")]:
                for dt in (torch.float32, torch.bfloat16):
                    xl = torch.randn(n, dtype=dt, requires_grad=True)
                    g = torch.randn(n, dtype=dt)
                    calls = a.layer_calls * max(1, (1 << 20) // n)
                    t_ref = row("nn.%s forward, %d %s" % (name, n, str(dt)[6:]),
                                timed(lambda: theirs(xl), calls))
                    row("actq %s(bits=2) forward" % name, timed(lambda: ours(xl), calls), t_ref)
                    t_ref = row("nn.%s forward + backward" % name,
                                timed(lambda: theirs(xl).backward(g), calls))
                    row("actq %s(bits=2) forward + backward" % name,
                        timed(lambda: ours(xl).backward(g), calls), t_ref)
    report(a, rows, impl)


def report(a, rows, impl):
    w = max(len(r["name"]) for r in rows)
    for r in rows:
        ratio = "%6.2fx" % r["ratio"] if r["ratio"] else "       "
        print("%-*s %9.2f us (%.2f-%.2f) %s %s" % (w, r["name"], r["us"], r["min"], r["max"],
                                                   ratio, r["note"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_model(), "torch": torch.__version__, "threads": a.threads,
                       "device": a.device,
                       "implementation": impl, "argv": sys.argv[1:],
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
