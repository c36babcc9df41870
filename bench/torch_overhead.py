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
torch.nn.GELU / SiLU (--layer-acts: also Sigmoid, Tanh, GELU_TANH), forward with grad enabled, and
forward + backward, at --layer-sizes, in --layer-dtypes,
on the layer's default route and on each of --routes (functional.ROUTES: how y is made).

Timing: rows are timed in groups (the per-call rows, the --big rows, each layer's pair);
--runs runs (default 5) time every row of a group in turn, --calls calls each (default
2000; layers: --layer-calls x 2^20 / elements), so a slow moment of the machine hits a
whole run, and each ratio is taken within a run against the group's first row; printed:
the median per call, its min-max, and the median of the ratios. One thread by default (--threads: torch.set_num_threads;
actq's C++ operators follow it, the Python path's default context is set to it too).
OMP_WAIT_POLICY=PASSIVE is set before torch loads (peers.py says why).

The allocator (--malloc): PyTorch's CPU tensors come from glibc's malloc, which by default
moves its mmap threshold with the sizes it sees and gives the top of its heap back to the
kernel when enough is free there. A layer's fresh 4-16 MiB outputs then come back as new
pages, a page fault for every 4 KiB, on whichever row's pattern of sizes tips the heap.
Measured on a Xeon with glibc's defaults (bench/results/torch/
overhead-xeon-2026-12-05-malloc-glibc.txt), the same fused GELU(bits=2) forward + backward
at 2^22 float32 elements took 7121 us as its group's second row and 5959 us as the third,
and nn.GELU's forward at 2^20 545 us, against 371-391 us in the settled runs of the same
hour (-autograd-cpp-*.txt). "settled" (default) fixes both thresholds with mallopt (mmap
above 32 MiB, the heap kept), so no row faults after its warm-up and the order of the rows
no longer matters; "glibc" leaves glibc's defaults.

  python bench/torch_overhead.py [--n 4096] [--big 65536] [--calls 2000] [--runs 5]
         [--threads 1] [--bench-cpu build-bench/bench_cpu] [--no-layers]
         [--malloc settled|glibc] [--json OUT]
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


def layer_autograd():
    """Which autograd the few-bit layers run on the CPU: the C++ node of
    torch.ops.actq.fewbit_activation, or the Python autograd.Function (a tree before the
    C++ one, or ACTQ_TORCH_AUTOGRAD=0)."""
    if getattr(library, "AUTOGRAD_PATH", None):
        return "C++ (torch.ops.actq.fewbit_activation)"
    return "Python autograd.Function (%s)" % getattr(library, "AUTOGRAD_REASON",
                                                     "a tree before the C++ one")


def settle_malloc():
    """glibc's mmap and trim thresholds fixed (see --malloc); a description of what was
    done, for the report."""
    import ctypes
    try:
        libc = ctypes.CDLL(None)
        version = libc.gnu_get_libc_version
        version.restype = ctypes.c_char_p
        glibc = version().decode()
    except (OSError, AttributeError):
        return "the C library's defaults (not glibc)"
    m_trim_threshold, m_mmap_threshold = -1, -3
    if libc.mallopt(m_mmap_threshold, 32 << 20) != 1 or \
            libc.mallopt(m_trim_threshold, 1 << 30) != 1:
        return "glibc %s's defaults (mallopt refused)" % glibc
    return "glibc %s, settled: mmap above 32 MiB, heap kept" % glibc


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
                    help="where the tensors are")
    ap.add_argument("--bench-cpu", help="the bench_cpu binary, for the C-timed row")
    ap.add_argument("--layer-sizes", default="65536,1048576,4194304")
    ap.add_argument("--layer-calls", type=int, default=20)
    ap.add_argument("--no-layers", action="store_true")
    ap.add_argument("--layer-acts", default="gelu,silu",
                    help="the few-bit layers timed: gelu, silu, sigmoid, tanh, gelu_tanh, or any "
                         "other activation's name (elu, mish, relu, ...), against PyTorch's")
    ap.add_argument("--layer-dtypes", default="float32,bfloat16",
                    help="the layers' dtypes: of float32, bfloat16, float16")
    ap.add_argument("--routes", default="torch,fused",
                    help="layer rows on each of these routes too (empty: the default only)")
    ap.add_argument("--malloc", default="settled", choices=("settled", "glibc"),
                    help="glibc's thresholds fixed (default) or as glibc moves them")
    ap.add_argument("--json", help="write the rows as JSON here")
    a = ap.parse_args()
    a.malloc_note = settle_malloc() if a.malloc == "settled" else "glibc's defaults"

    torch.set_num_threads(a.threads)
    actq.default_context().set_threads(a.threads)
    torch.manual_seed(0)
    impl = getattr(library, "IMPLEMENTATION", "Python custom operators (a tree before the "
                   "C++ ones)" if library.AVAILABLE else "direct library calls")
    gpu = "; GPU: %s" % torch.cuda.get_device_name() if a.device == "cuda" else ""
    autograd = layer_autograd()
    print("CPU: %s%s; torch %s; actq %s (%s); %d thread(s); operators: %s; layers' autograd: "
          "%s; malloc: %s" % (cpu_model(), gpu, torch.__version__, actq.__version__,
                              os.path.dirname(actq.__file__), a.threads, impl, autograd,
                              a.malloc_note))
    print("per call: median over %d runs; each run times every row of a group in turn "
          "(%d calls each), the ratio is taken within the run, against the group's first "
          "row (min-max of the per-call times)" % (a.runs, a.calls))
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    rows = []

    def group(entries, note=""):
        """entries: [(name, fn, calls)]; the first is the group's yardstick. Interleaved:
        a slow moment of the machine hits every row of the run alike."""
        for _, fn, calls in entries:  # warm-up
            for _ in range(max(calls // 10, 1)):
                fn()
        sync()
        times = [[] for _ in entries]
        for _ in range(a.runs):
            for k, (_, fn, calls) in enumerate(entries):
                t = time.perf_counter()
                for _ in range(calls):
                    fn()
                sync()
                times[k].append((time.perf_counter() - t) / calls * 1e6)
        for k, (name, _, _) in enumerate(entries):
            ratios = [u / r for u, r in zip(times[k], times[0])] if k else None
            rows.append({"name": name, "us": statistics.median(times[k]),
                         "min": min(times[k]), "max": max(times[k]),
                         "ratio": statistics.median(ratios) if ratios else None,
                         "note": note if k else ""})
        return [statistics.median(t) for t in times]

    x = torch.randn(a.n, device=dev)
    n = a.calls
    calls = [("torch.add(x, 1.0), %d f32 %s" % (a.n, dev.type), lambda: torch.add(x, 1.0), n)]
    prepack = getattr(getattr(torch.ops, "quantized", None), "embedding_bag_2bit_prepack", None)
    if prepack is not None and a.n % 256 == 0 and dev.type == "cpu":
        x2 = x.view(-1, 256)
        calls.append(("fbgemm embedding_bag_2bit_prepack", lambda: prepack(x2), n))
    off = torch.zeros((), dtype=torch.int64)
    if library.AVAILABLE:
        qop, dqop = torch.ops.actq.quantize.default, torch.ops.actq.dequantize.default
        args = (x, None, 1, 2, 256, "stochastic", 5, off, "f32")
        p, mn, sc = qop(*args)
        dargs = (p, mn, sc, None, [a.n], 1, 2, 256, torch.float32)
        calls += [("torch.ops.actq.quantize", lambda: qop(*args), n),
                  ("torch.ops.actq.dequantize", lambda: dqop(*dargs), n)]
    q = at.quantize(x, 2, seed=5, rows=1)
    pack, unpack = hook_pair(at.Quantizer(2, seed=5))
    calls += [("actq.torch.quantize", lambda: at.quantize(x, 2, seed=5, offset=off, rows=1), n),
              ("actq.torch.dequantize", lambda: at.dequantize(q), n),
              ("hooks pack + unpack (Quantizer.compress, decompress)",
               lambda: unpack(pack(x)), n),
              ("ctypes quantize (actq.torch.kernels)",
               lambda: kernels.quantize(x, 1, 2, 256, None, Rounding.STOCHASTIC, 5, 0,
                                        DType.F32), n)]
    if library.AVAILABLE:
        spec = library.table_spec(actq.cached_table("gelu", 2))
        eop, bop = torch.ops.actq.fewbit_encode.default, torch.ops.actq.fewbit_backward.default
        codes, _ = eop(x, *spec, False)
        calls += [("torch.ops.actq.fewbit_encode with y", lambda: eop(x, *spec, True), n),
                  ("torch.ops.actq.fewbit_backward", lambda: bop(codes, x, *spec), n)]
    group(calls)

    if dev.type == "cpu" and a.big:
        # At --big elements: the operator against the same C call from ctypes (arguments
        # prebuilt), and from C (bench_cpu, a process of its own, so not interleaved).
        xb = torch.randn(a.big)
        big_calls = max(a.calls // 8, 50)
        lay = raw.layout(1, a.big, 256, 2, None, DType.F32)
        nbytes, groups = raw.layout_sizes(lay)
        pb = torch.empty(nbytes, dtype=torch.uint8)
        gb, sb = torch.empty(groups), torch.empty(groups)
        fn, h = _lib.actq_quantize, actq.default_context().handle
        xa, pa, ga, sa = addr(xb), addr(pb), addr(gb), addr(sb)
        big = [("C quantize, %d f32, from ctypes (arguments prebuilt)" % a.big,
                lambda: fn(h, lay, 0, xa, 0, 5, 0, pa, ga, sa), big_calls)]
        if library.AVAILABLE:
            bargs = (xb, None, 1, 2, 256, "stochastic", 5, off, "f32")
            big.append(("torch.ops.actq.quantize, %d f32" % a.big, lambda: qop(*bargs),
                        big_calls))
        med = group(big, "ratio to the C call from ctypes")
        if a.bench_cpu:
            us = bench_cpu_us(a.bench_cpu, a.big)
            c = statistics.median(us)
            rows.append({"name": "C quantize, %d f32, timed by bench_cpu" % a.big, "us": c,
                         "min": min(us), "max": max(us), "ratio": None, "note": ""})
            if library.AVAILABLE:
                rows.append({"name": "torch.ops.actq.quantize / bench_cpu's C call",
                             "us": med[1], "min": med[1], "max": med[1],
                             "ratio": med[1] / c, "note": "medians of the two"})

    if not a.no_layers:
        # The layer on its default route (functional.ROUTES), then on each route by name:
        # what the default is chosen from.
        layers = {"gelu": ("GELU", torch.nn.GELU()), "silu": ("SiLU", torch.nn.SiLU()),
                  "gelu_tanh": ("GELU(tanh)", torch.nn.GELU(approximate="tanh")),
                  "sigmoid": ("Sigmoid", torch.nn.Sigmoid()), "tanh": ("Tanh", torch.nn.Tanh())}
        # Any other activation by name against PyTorch's forward of it (functional.TORCH_FORWARD),
        # at its parameter's usual value
        params = {"softplus": 1.0, "elu": 1.0, "celu": 1.0, "leaky_relu": 0.01}
        for act in a.layer_acts.split(","):
            p = params.get(act, 0.0)
            ours = at.nn.FewbitActivation(act, bits=2, param=p)
            if act in layers:
                name, theirs = layers[act]
            else:
                name = ours.table.activation.name
                theirs = (lambda f, p: lambda x: f(x, p))(
                    at.functional.TORCH_FORWARD[ours.table.activation], p)
            routes = [(r, at.nn.FewbitActivation(act, bits=2, param=p, route=r))
                      for r in a.routes.split(",") if r]
            for size in [int(v) for v in a.layer_sizes.split(",")]:
                for dt in [getattr(torch, d) for d in a.layer_dtypes.split(",")]:
                    xl = torch.randn(size, dtype=dt, device=dev, requires_grad=True)
                    g = torch.randn(size, dtype=dt, device=dev)
                    lc = a.layer_calls * max(1, (1 << 20) // size)
                    label = "%s, %d %s" % (name, size, str(dt)[6:])
                    group([("nn.%s forward" % label, lambda: theirs(xl), lc),
                           ("actq %s(bits=2) forward" % name, lambda: ours(xl), lc)] +
                          [("  route=%s" % r, lambda m=m: m(xl), lc) for r, m in routes])
                    group([("nn.%s forward + backward" % label,
                            lambda: theirs(xl).backward(g), lc),
                           ("actq %s(bits=2) forward + backward" % name,
                            lambda: ours(xl).backward(g), lc)] +
                          [("  route=%s" % r, lambda m=m: m(xl).backward(g), lc)
                           for r, m in routes])
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
                       "device": a.device, "malloc": a.malloc_note,
                       "layer_autograd": layer_autograd(),
                       "implementation": impl, "argv": sys.argv[1:],
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
