#!/usr/bin/env python3
"""peers.py - libactq against its peers on the same tensor, in one process.

Peers (CPU; x = torch.randn of --n elements, 2^26 by default; groups = rows of 256 values):
  torch-composed : ActNN-style stochastic quantize-and-pack written with PyTorch ops only
                   (per-group min/max, scale, torch.rand noise, floor, clamp, bit packing by
                   shifts), and its dequantize (unpacking by shifts, q * scale + min).
  fbgemm         : row-wise 8/4/2-bit quantization as torch exposes FBGEMM:
                   torch.ops.quantized.embedding_bag_{byte,4bit,2bit}_prepack and _unpack,
                   on x viewed as [n/256, 256]. Rounds to nearest, no noise; 8-bit stores f32
                   scale/bias per row, 4- and 2-bit store fp16 ones; both ops allocate their
                   output (there is no out= variant). Compared with our stochastic quantize
                   (kernel "quantize") and our nearest quantize (ACTQ_ROUND_NEAREST, kernel
                   "quantize_nearest"), both f32 input, f32 metadata, groups of 256, and with
                   our dequantize to f32.
  torch, torch-out : PyTorch's activation forwards F.gelu (exact, erf), F.silu, torch.sigmoid,
                   torch.tanh, allocating (torch) and into a preallocated tensor through the
                   out= overloads (torch-out: aten::gelu.out, aten::silu.out, sigmoid/tanh
                   out=), f32 and bf16, against our fewbit_encode with y (kernel
                   "fewbit_encode_y": packed 1/2/4-bit codes AND y = f(x) in x's dtype; the
                   peer writes y only), tables from fewbit_table_build(act, 0, bits, NULL).
  actq           : libactq through ctypes (ACTQ_BACKEND_CPU).

Threads: every row is measured with 1 and 2 threads (--threads), torch.set_num_threads and
actq_context_set_threads set to the same count. torch's OpenMP (libgomp) workers would
otherwise keep spinning after each parallel region and take a core from our next call (our
pool sleeps on a condition variable): this script sets OMP_WAIT_POLICY=PASSIVE before torch
is imported (an explicit OMP_WAIT_POLICY in the environment is kept and printed), and it
prints the CPU time the process burns in a 200 ms sleep right after a 2-thread torch call
as a check. On the 2-core Zen 1 machine (torch 2.15.0, libgomp): PASSIVE 0 ms, policy
unset 8 ms (libgomp's default spin before sleeping), ACTIVE 49 ms of the 200.

Timing: best of --reps calls (default 5) after one warm-up call, wall clock
(time.perf_counter), and the process's CPU time (time.process_time) as well: with 1 thread
that is the working thread's time and does not count time it lost to other processes on a
shared machine ("cpu rat": the ratio on CPU time; JSON: gelem_s_cpu, actq_gelem_s_cpu).
Prints a table of G elements/s and the ratio ours/peer (> 1: we are faster) and, with
--out BASE, writes BASE.txt (that output) and BASE.json (for bench/report.py --peers,
the "x peer" column). The CPU model (lscpu), torch version and load average are printed.

One command, after scripts/python-venv (which creates the venv with PyPI's torch) and
bench/run.sh (which installs the library into build-install/):
  VENV/bin/python bench/peers.py --lib build-install/lib/libactq.so \
      --out docs/bench-cpu-data/peers-zen1
Usage: peers.py [--lib libactq.so] [--n ELEMENTS] [--reps R] [--threads 1,2] [--quick]
                [--no-composed] [--out BASE] [--json OUT]
"""
import os

# Before torch (and its libgomp) is loaded: libgomp reads the policy once, at load time.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

GROUP = 256
ACTQ_F32, ACTQ_BF16 = 0, 2
ROUND_STOCHASTIC, ROUND_NEAREST = 0, 1
FEWBIT = {"gelu": 1, "silu": 3, "sigmoid": 4, "tanh": 5}  # include/fewbit.h


class Layout(ctypes.Structure):  # actq_layout
    _fields_ = [("rows", ctypes.c_size_t), ("cols", ctypes.c_size_t),
                ("group_size", ctypes.c_uint32), ("bits", ctypes.c_uint32),
                ("row_bits", ctypes.c_void_p), ("meta_dtype", ctypes.c_int)]


class FewbitTable(ctypes.Structure):  # fewbit_table
    _fields_ = [("bits", ctypes.c_uint32), ("activation", ctypes.c_uint32),
                ("param", ctypes.c_float), ("bounds", ctypes.c_float * 255),
                ("levels", ctypes.c_float * 256), ("error", ctypes.c_double)]


assert ctypes.sizeof(FewbitTable) == 2064 and FewbitTable.error.offset == 2056


def best_time(fn, reps):
    """(best wall time, best process CPU time) of reps calls, after one warm-up call."""
    fn()  # warm-up (allocations, first-touch)
    best, best_cpu = float("inf"), float("inf")
    for _ in range(reps):
        c = time.process_time()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - c)
    return best, best_cpu


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


def torch_activations():
    """name -> (allocating forward, out= forward or None)."""
    aten = torch.ops.aten

    def out_op(name):
        try:
            return getattr(getattr(aten, name), "out")
        except (AttributeError, RuntimeError):
            return None

    gelu_out, silu_out = out_op("gelu"), out_op("silu")
    return {
        "gelu": (F.gelu, (lambda x, y: gelu_out(x, out=y)) if gelu_out else None),
        "silu": (F.silu, (lambda x, y: silu_out(x, out=y)) if silu_out else None),
        "sigmoid": (torch.sigmoid, lambda x, y: torch.sigmoid(x, out=y)),
        "tanh": (torch.tanh, lambda x, y: torch.tanh(x, out=y)),
    }


def cpu_model():
    try:
        txt = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        txt = ""
    info = dict(line.split(":", 1) for line in txt.splitlines() if ":" in line)
    info = {k.strip(): v.strip() for k, v in info.items()}
    flags = info.get("Flags", "").split()
    isa = [f for f in ("avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vbmi") if f in flags]
    return "%s (family %s, model %s, %s cores, %s)" % (
        info.get("Model name", "?"), info.get("CPU family", "?"), info.get("Model", "?"),
        info.get("CPU(s)", "?"), " ".join(isa) or "?")


# Unit roundoff of the compared dtypes.
EPS = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8}
# Where torch's forward has an absolute error that scales with |x| rather than with the
# result: GELU as x (1 + erf(x / sqrt 2)) / 2, whose erf is rounded near -1 (an error of
# a few eps in 1 + erf, times |x| / 2) exactly where the result is small.
ABS_X_EPS = {"gelu": 16}


def y_mismatch(act, y, ref, x, dtype):
    """None when our f(x) agrees with torch's within what both may be off by, else a
    description of the worst element: 8 eps relative to the result (our 4 ulp, the
    contract's, and a few of torch's), plus ABS_X_EPS[act] eps |x| for the forms above,
    plus 8 smallest normals (subnormal results). A wrong function or table, or an error of
    2^-18 relative anywhere, still fails."""
    e = EPS[dtype]
    tol = 8 * e * ref.abs() + ABS_X_EPS.get(act, 0) * e * x.abs() + 8 * 2.0 ** -126
    excess = (y - ref).abs() - tol
    k = int(torch.argmax(excess))
    if excess[k] <= 0:
        return None
    return "y differs from torch by %g at x = %r (y %r, torch %r, tolerance %g)" % (
        (y[k] - ref[k]).abs().item(), x[k].item(), y[k].item(), ref[k].item(), tol[k].item())


def idle_spin_ms(threads):
    """CPU time (ms) the process burns in a 200 ms sleep right after a torch parallel call."""
    torch.set_num_threads(threads)
    z = torch.empty(1 << 22)
    torch.sigmoid(z, out=z)
    c = time.process_time()
    time.sleep(0.2)
    return (time.process_time() - c) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--lib", default=os.path.join(here, "..", "build-install", "lib", "libactq.so"))
    ap.add_argument("--n", type=int, default=1 << 26)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--no-composed", action="store_true",
                    help="skip the torch-composed peer (the slowest part of the run)")
    ap.add_argument("--quick", action="store_true",
                    help="2^16 elements, 1 rep, 1 thread, no composed peer: the CI's run that "
                    "keeps the script working (its timings mean nothing)")
    ap.add_argument("--out", help="writes OUT.txt (the printed output) and OUT.json")
    ap.add_argument("--json", help="writes the JSON here (as well)")
    a = ap.parse_args()
    if a.quick:
        a.n, a.reps, a.threads, a.no_composed = 1 << 16, 1, "1", True
    thread_counts = [int(t) for t in a.threads.split(",")]

    log = []

    def out(s=""):
        print(s, flush=True)
        log.append(s)

    lib = ctypes.CDLL(a.lib)
    lib.actq_context_describe.restype = ctypes.c_char_p
    lib.actq_context_describe.argtypes = [ctypes.c_void_p]
    lib.actq_context_set_threads.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.actq_context_destroy.argtypes = [ctypes.c_void_p]
    lib.actq_quantize.argtypes = [ctypes.c_void_p, ctypes.POINTER(Layout), ctypes.c_int,
                                  ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64,
                                  ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_void_p]
    lib.actq_dequantize.argtypes = [ctypes.c_void_p, ctypes.POINTER(Layout), ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                    ctypes.c_void_p]
    lib.fewbit_table_build.argtypes = [ctypes.c_int, ctypes.c_float, ctypes.c_uint32,
                                       ctypes.c_void_p, ctypes.POINTER(FewbitTable)]
    lib.fewbit_encode.argtypes = [ctypes.c_void_p, ctypes.POINTER(FewbitTable), ctypes.c_size_t,
                                  ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_void_p]
    ctx = ctypes.c_void_p()
    assert lib.actq_context_create(1, ctypes.byref(ctx)) == 0

    def check(status, what):
        if status != 0:
            raise RuntimeError("%s returned actq status %d" % (what, status))

    n = a.n - a.n % GROUP
    torch.manual_seed(0)
    x = torch.randn(n // GROUP, GROUP, dtype=torch.float32)
    results = []
    load0 = os.getloadavg()
    out("peers.py --n %d --reps %d --threads %s%s  (library: %s)" % (
        n, a.reps, a.threads, " --no-composed" if a.no_composed else "", os.path.basename(a.lib)))
    out("cpu: %s" % cpu_model())
    lib.actq_context_set_threads(ctx, max(thread_counts))
    out("actq: %s" % lib.actq_context_describe(ctx).decode())
    out("torch %s (quantized engines %s), OMP_WAIT_POLICY=%s, torch threads available %d" % (
        torch.__version__, torch.backends.quantized.supported_engines,
        os.environ.get("OMP_WAIT_POLICY"), torch.get_num_threads()))
    spin = idle_spin_ms(max(thread_counts))
    out("idle check: %.1f ms of CPU in a 200 ms sleep after a %d-thread torch call" % (
        spin, max(thread_counts)))
    out("load average at start: %.2f %.2f %.2f" % load0)
    out("%d elements (%.0f MiB f32), groups of %d, best of %d; ratio = actq / peer (> 1: actq faster)"
        % (n, n * 4 / 2**20, GROUP, a.reps))
    out()
    hdr = "%-16s %5s %4s %7s %8s %15s %9s %9s %7s"
    row = "%-16s %5s %4d %7d %8s %15s %9.3f %9.3f %6.2fx"
    out((hdr + " %7s") % ("kernel", "dtype", "bits", "threads", "act", "peer", "peer G/s",
                          "actq G/s", "ratio", "cpu rat"))

    def rate(fn):
        """(G elem/s on wall time, G elem/s on the process's CPU time)"""
        wall, cpu = best_time(fn, a.reps)
        return n / wall / 1e9, n / max(cpu, 1e-9) / 1e9

    def emit(kernel, dtype, bits, threads, act, peer, g, ours):
        # the CPU-time ratio only for 1 thread: there the process's CPU time is the one
        # working thread's, and it does not count time the thread was descheduled
        cpu_ratio = "%6.2fx" % (ours[1] / g[1]) if threads == 1 else "%7s" % "-"
        out(row % (kernel, dtype, bits, threads, act or "-", peer, g[0], ours[0],
                   ours[0] / g[0]) + " " + cpu_ratio)
        r = dict(kernel=kernel, dtype=dtype, bits=bits, threads=threads, peer=peer,
                 gelem_s=g[0], actq_gelem_s=ours[0])
        if threads == 1:
            r.update(gelem_s_cpu=g[1], actq_gelem_s_cpu=ours[1])
        if act:
            r["activation"] = act
        results.append(r)

    # ---- group quantization -----------------------------------------------------------
    for threads in thread_counts:
        torch.set_num_threads(threads)
        check(lib.actq_context_set_threads(ctx, threads), "actq_context_set_threads")
        for bits in (1, 2, 3, 4, 8):
            lay = Layout(1, n, GROUP, bits, None, ACTQ_F32)
            packed = torch.empty((n * bits + 7) // 8, dtype=torch.uint8)
            gmin = torch.empty(n // GROUP, dtype=torch.float32)
            gscale = torch.empty(n // GROUP, dtype=torch.float32)
            y = torch.empty(n, dtype=torch.float32)
            seed = [1]

            def ours_q(rounding):
                seed[0] += 1
                return lib.actq_quantize(ctx, ctypes.byref(lay), ACTQ_F32, x.data_ptr(),
                                         rounding, seed[0], 0, packed.data_ptr(),
                                         gmin.data_ptr(), gscale.data_ptr())

            def ours_dq():
                return lib.actq_dequantize(ctx, ctypes.byref(lay), packed.data_ptr(),
                                           gmin.data_ptr(), gscale.data_ptr(), ACTQ_F32,
                                           y.data_ptr())

            check(ours_q(ROUND_NEAREST), "actq_quantize (nearest)")
            tqn = rate(lambda: ours_q(ROUND_NEAREST))
            check(ours_dq(), "actq_dequantize")
            if threads == thread_counts[0]:
                # sanity: round to nearest lands within half a step of x
                err = ((y.view_as(x) - x).abs() / gscale.view(-1, 1)).max().item()
                assert err <= 0.5 + 1e-3, "nearest quantize: error %.3f steps" % err
            check(ours_q(ROUND_STOCHASTIC), "actq_quantize")
            tq = rate(lambda: ours_q(ROUND_STOCHASTIC))
            tdq = rate(ours_dq)
            peers = []
            if 8 % bits == 0 and not a.no_composed:
                tp = torch_quantize_pack(x, bits)
                g = rate(lambda: torch_quantize_pack(x, bits))
                peers.append(("quantize", "torch-composed", g, tq))
                g = rate(lambda: torch_dequantize(*tp, bits))
                peers.append(("dequantize", "torch-composed", g, tdq))
                del tp
            if bits in FBGEMM:
                pre, unp = (getattr(torch.ops.quantized, f) for f in FBGEMM[bits])
                q = pre(x)
                g = rate(lambda: pre(x))
                peers.append(("quantize", "fbgemm", g, tq))
                peers.append(("quantize_nearest", "fbgemm", g, tqn))
                g = rate(lambda: unp(q))
                peers.append(("dequantize", "fbgemm", g, tdq))
                del q
            if not peers:
                for kernel, ours in (("quantize", tq), ("quantize_nearest", tqn)):
                    out("%-16s %5s %4d %7d %8s %15s %9s %9.3f %7s %7s" % (
                        kernel, "f32", bits, threads, "-", "-", "-", ours[0], "-", "-"))
            for kernel, peer, g, ours in peers:
                emit(kernel, "f32", bits, threads, None, peer, g, ours)
            del packed, gmin, gscale, y

    # ---- activation forward: fewbit_encode with y against torch's forward ---------------
    tables = {}
    for act, code in FEWBIT.items():
        for bits in (1, 2, 4):
            t = FewbitTable()
            check(lib.fewbit_table_build(code, 0.0, bits, None, ctypes.byref(t)),
                  "fewbit_table_build(%s, b%d)" % (act, bits))
            tables[act, bits] = t
    fwd = torch_activations()
    missing = [k for k, (_, o) in fwd.items() if o is None]
    if missing:
        out("(no out= variant in this torch for: %s)" % ", ".join(missing))
    xf = x.view(-1)
    for dtype, tdt, adt in (("f32", torch.float32, ACTQ_F32), ("bf16", torch.bfloat16, ACTQ_BF16)):
        xd = xf.to(tdt)
        y = torch.empty_like(xd)
        yp = torch.empty_like(xd)
        codes = torch.empty(n // 2, dtype=torch.uint8)  # 4 bits per element at most
        for threads in thread_counts:
            torch.set_num_threads(threads)
            check(lib.actq_context_set_threads(ctx, threads), "actq_context_set_threads")
            for act, (f, f_out) in fwd.items():
                if threads == thread_counts[0]:
                    # sanity: our y against torch's (the tables do not change y)
                    check(lib.fewbit_encode(ctx, ctypes.byref(tables[act, 4]), n, adt,
                                            xd.data_ptr(), y.data_ptr(), codes.data_ptr()),
                          "fewbit_encode")
                    ref = f(xd).float()
                    bad = y_mismatch(act, y.float(), ref, xd.float(), dtype)
                    assert bad is None, "%s %s: %s" % (act, dtype, bad)
                    del ref
                gp = rate(lambda: f(xd))
                gpo = rate(lambda: f_out(xd, yp)) if f_out else None
                for bits in (1, 2, 4):
                    tab = tables[act, bits]

                    def ours():
                        return lib.fewbit_encode(ctx, ctypes.byref(tab), n, adt, xd.data_ptr(),
                                                 y.data_ptr(), codes.data_ptr())

                    g = rate(ours)
                    emit("fewbit_encode_y", dtype, bits, threads, act, "torch", gp, g)
                    if gpo:
                        emit("fewbit_encode_y", dtype, bits, threads, act, "torch-out", gpo, g)
        del xd, y, yp, codes

    load1 = os.getloadavg()
    out()
    out("load average at end: %.2f %.2f %.2f" % load1)
    out("idle check at end: %.1f ms of CPU in a 200 ms sleep after a %d-thread torch call" % (
        idle_spin_ms(max(thread_counts)), max(thread_counts)))
    lib.actq_context_set_threads(ctx, max(thread_counts))
    doc = dict(torch=torch.__version__, n=n, group=GROUP, cpu=cpu_model(),
               actq=lib.actq_context_describe(ctx).decode(),
               omp_wait_policy=os.environ.get("OMP_WAIT_POLICY"), reps=a.reps,
               loadavg_start=load0, loadavg_end=load1, results=results)
    paths = [p for p in (a.json, a.out and a.out + ".json") if p]
    for p in paths:
        with open(p, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    if a.out:
        with open(a.out + ".txt", "w") as f:
            f.write("\n".join(log) + "\n")
    lib.actq_context_destroy(ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
