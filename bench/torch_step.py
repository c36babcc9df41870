#!/usr/bin/env python3
"""torch_step.py - what actq adds to a training step, measured in one process: the time per
step of a compressed setting against fp32's, the time a step spends in torch.ops.actq.*
operators, and the time its C kernels alone take.

Models (bindings/python/examples/train_chargpt.py's CharGPT, random tokens, AdamW, the
loss head outside the compressed block as the examples run it):
  chargpt       the README's char GPT: d 64, 4 heads, 2 layers, 64 positions, batch 16,
                vocabulary 96
  transformer4  d 256, 4 heads, 4 layers, 128 positions, batch 16 (run it with --threads 2)
Settings: fp32 (nn.GELU, no hooks), and N-bit: every saved tensor through
compressed_saved_tensors(bits=N) and the MLP's GELU as actq.torch.nn.GELU(bits=N); below 4
bits "N-bit" has the hooks' widths by op (their default) and "N-bit tensors" not (ops=False).

Per setting, after --warmup steps, --rounds rounds alternate the settings, --steps steps
each (so a slow moment of the machine hits every setting alike); ms per step is the median
of all of them. Then, per compressed setting:
  in actq ops   the time covered by torch.ops.actq.* events in --profiled steps
                (torch.profiler, as examples/stepmeter.py counts it), per step;
  kernels       the actq calls of one step, recorded (a TorchDispatchMode) and each replayed
                through the C ABI with its arguments prebuilt (ctypes), --replay times, minus
                the cost of a ctypes call itself (actq_version()): the time in libactq;
  ops replayed  the same recorded calls through their torch.ops.actq operators, for the
                ratio of operator to kernel on identical work.

  python bench/torch_step.py [--model chargpt|transformer4] [--bits 2] [--threads 1]
         [--rounds 5] [--steps 20] [--json OUT]
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python", "examples"))

import actq  # noqa: E402
import actq.torch as at  # noqa: E402
from actq import _lib, raw  # noqa: E402
from actq.torch import library  # noqa: E402
from actq.torch.device import TORCH_DTYPES, addr  # noqa: E402
from stepmeter import covered_ns  # noqa: E402
from torch_overhead import cpu_model  # noqa: E402
from train_chargpt import CharGPT  # noqa: E402

MODELS = {
    "chargpt": dict(vocab=96, block=64, d=64, heads=4, layers=2, batch=16),
    "transformer4": dict(vocab=96, block=128, d=256, heads=4, layers=4, batch=16),
}


class Setting:
    """A model, its optimizer and its step for one setting (bits None: fp32)."""

    def __init__(self, m, bits, seed=0, ops=True):
        torch.manual_seed(seed)  # the same weights in every setting
        self.ops = ops
        gelu = (lambda: at.nn.GELU(bits)) if bits else nn.GELU
        self.model = CharGPT(m["vocab"], m["block"], m["d"], m["heads"], m["layers"], gelu)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.quantizer = at.Quantizer(bits, seed=seed + 1) if bits else None
        self.vocab = m["vocab"]

    def step(self, x, y):
        if self.quantizer is None:
            logits = self.model(x)
        else:
            with at.compressed_saved_tensors(quantizer=self.quantizer, ops=self.ops):
                logits = self.model(x)
        loss = F.cross_entropy(logits.reshape(-1, self.vocab), y.reshape(-1))
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class Recorder(TorchDispatchMode):
    """The torch.ops.actq calls of a stretch of code, with their arguments."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.namespace == "actq":
            self.calls.append((func.__name__.split(".")[0], args, out))
        return out


def replay_us(calls, reps):
    """Microseconds in libactq for the recorded calls, each called `reps` times through
    ctypes with its arguments prebuilt, less a ctypes call's own cost."""
    ctx = actq.default_context()
    h = ctx.handle
    thunks = []
    for name, args, out in calls:
        if name in ("quantize", "compress"):
            if name == "quantize":
                x, row_bits, rows, bits, gs, rounding, seed, offset, meta = args
            else:
                x, offset, _stored, rows, bits, gs, rounding, seed, meta = args
                row_bits = None
            x = x.contiguous()
            lay = raw.layout(rows, x.numel() // rows if rows else 0, gs, bits, addr(row_bits),
                             actq.DType[meta.upper()])
            packed, gmin, gscale = (o.clone() for o in out)
            thunks.append((_lib.actq_quantize, (h, ctypes.byref(lay), int(TORCH_DTYPES[x.dtype]),
                                                addr(x), 0 if rounding == "stochastic" else 1,
                                                seed & (2 ** 64 - 1), 0, addr(packed),
                                                addr(gmin), addr(gscale)), (x, lay, packed,
                                                                            gmin, gscale)))
        elif name == "dequantize":
            packed, gmin, gscale, row_bits, shape, rows, bits, gs, dtype = args
            n = 1
            for s in shape:
                n *= s
            lay = raw.layout(rows, n // rows if rows else 0, gs, bits, addr(row_bits),
                             TORCH_DTYPES[gmin.dtype])
            y = out.clone()
            thunks.append((_lib.actq_dequantize, (h, ctypes.byref(lay), addr(packed), addr(gmin),
                                                  addr(gscale), int(TORCH_DTYPES[dtype]),
                                                  addr(y)), (lay, y)))
        elif name == "fewbit_encode":
            x, bits, act, param, bounds, levels, with_y = args
            t = library.table_struct(bits, act, param, bounds, levels)
            codes, y = (o.clone() for o in out)
            thunks.append((_lib.fewbit_encode, (h, ctypes.byref(t), x.numel(),
                                                int(TORCH_DTYPES[x.dtype]), addr(x),
                                                addr(y) if with_y else None, addr(codes)),
                           (t, codes, y)))
        elif name == "fewbit_backward":
            codes, g, bits, act, param, bounds, levels = args
            t = library.table_struct(bits, act, param, bounds, levels)
            gi = out.clone()
            thunks.append((_lib.fewbit_backward, (h, ctypes.byref(t), g.numel(), addr(codes),
                                                  int(TORCH_DTYPES[g.dtype]), addr(g),
                                                  addr(gi)), (t, gi)))
        else:
            raise ValueError("no replay for actq::%s" % name)
    for fn, cargs, _ in thunks:
        assert fn(*cargs) in (0, 5), fn  # NaN-free data: OK (5, nonfinite, is still timed)
    t0 = time.perf_counter()
    for _ in range(reps):
        for fn, cargs, _ in thunks:
            fn(*cargs)
    total = (time.perf_counter() - t0) / reps
    v = _lib.actq_version
    t0 = time.perf_counter()
    for _ in range(reps * len(thunks)):
        v()
    empty = (time.perf_counter() - t0) / reps
    return (total - empty) * 1e6


def op_replay_us(calls, reps):
    """Microseconds the same recorded calls take through their torch.ops.actq operators
    (compress on copies of its counters)."""
    prepared = []
    for name, args, _ in calls:
        if name == "compress":
            args = (args[0], args[1].clone(), args[2].clone()) + tuple(args[3:])
        prepared.append((getattr(torch.ops.actq, name).default, args))
    t0 = time.perf_counter()
    for _ in range(reps):
        for fn, args in prepared:
            fn(*args)
    return (time.perf_counter() - t0) / reps * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="chargpt", choices=sorted(MODELS))
    ap.add_argument("--bits", default="2", help="comma-separated widths of the settings")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--profiled", type=int, default=3)
    ap.add_argument("--replay", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    actq.default_context().set_threads(a.threads)
    m = MODELS[a.model]
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, m["vocab"], (64, m["block"] + 1), generator=gen)
    batches = [(tokens[i:i + m["batch"], :-1], tokens[i:i + m["batch"], 1:])
               for i in range(0, 64, m["batch"])]
    settings = {"fp32": Setting(m, None)}
    for b in (int(s) for s in a.bits.split(",")):
        settings["%d-bit" % b] = Setting(m, b)
        if b < 4:  # the hooks' widths by op (the default) apply: also without them
            settings["%d-bit tensors" % b] = Setting(m, b, ops=False)
    times = {k: [] for k in settings}
    for s in settings.values():
        for i in range(a.warmup):
            s.step(*batches[i % len(batches)])
    for _ in range(a.rounds):
        for k, s in settings.items():
            for i in range(a.steps):
                t0 = time.perf_counter()
                s.step(*batches[i % len(batches)])
                times[k].append((time.perf_counter() - t0) * 1e3)
    fp32 = statistics.median(times["fp32"])
    impl = getattr(library, "IMPLEMENTATION", "Python custom operators (a tree before the "
                   "C++ ones)" if library.AVAILABLE else "direct library calls")
    print("CPU: %s; torch %s; %d thread(s); model %s %s; actq %s; operators: %s"
          % (cpu_model(), torch.__version__, a.threads, a.model, m,
             os.path.dirname(actq.__file__), impl))
    rows = []
    for k, s in settings.items():
        ms = statistics.median(times[k])
        r = {"setting": k, "ms_per_step": ms, "vs_fp32": ms / fp32,
             "ms_min": min(times[k]), "ms_max": max(times[k])}
        if s.quantizer is not None:
            x, y = batches[0]
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                t0 = time.perf_counter()
                for _ in range(a.profiled):
                    s.step(x, y)
                wall = time.perf_counter() - t0
            ops_ms = covered_ns(prof) / 1e6 / a.profiled
            rec = Recorder()
            with rec:
                s.step(x, y)
            kernels_ms = replay_us(rec.calls, a.replay) / 1e3
            ops_replay_ms = op_replay_us(rec.calls, a.replay) / 1e3
            r.update({"ops_replay_ms": ops_replay_ms,
                      "ops_replay_vs_kernels": ops_replay_ms / kernels_ms,"actq_ops_ms": ops_ms, "actq_ops_share_profiled": ops_ms * a.profiled / wall,
                      "kernels_ms": kernels_ms, "ops_vs_kernels": ops_ms / kernels_ms,
                      "calls": len(rec.calls)})
        rows.append(r)
        line = "%-6s %8.2f ms/step (%.2f-%.2f)  %.2fx fp32" % (k, ms, r["ms_min"], r["ms_max"],
                                                                r["vs_fp32"])
        if "kernels_ms" in r:
            line += ("; %d actq calls a step: %.2f ms in actq ops (profiled in the step), "
                     "%.2f ms replayed through the ops, %.2f ms in their kernels (ops / "
                     "kernels %.2fx, replayed %.2fx)"
                     % (r["calls"], r["actq_ops_ms"], r["ops_replay_ms"], r["kernels_ms"],
                        r["ops_vs_kernels"], r["ops_replay_vs_kernels"]))
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_model(), "torch": torch.__version__, "threads": a.threads,
                       "model": a.model, "config": m, "implementation": impl,
                       "argv": sys.argv[1:], "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
