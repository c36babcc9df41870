"""Time per training step, and the peak of memory a step allocates, both measured.

The peak is read from the allocator's own records: torch.profiler with
profile_memory=True logs every allocation and free of PyTorch's allocators (CPU, and the
CUDA caching allocator) with its size. Summing them in order gives the bytes live above
what was allocated when the step began; the step's peak is the largest such sum. It holds
everything the step creates: saved activations (compressed or not), the forward's live
tensors, gradients and the backward's temporaries (tensors alive at the start, the
weights, the batch, the optimizer's state after the first step, are the baseline, not
counted). The counts of SavedTensorMeter are one part of it.

The share of a step spent in actq's calls comes from a few other steps (OP_PROFILED),
profiled without memory records: the time covered by the torch.ops.actq.* operators
(quantize, dequantize, few-bit encode and backward, each with its dispatch, checks and
allocation of outputs) over the wall time of those steps. The Python around the calls
(the saved-tensor hooks, choosing widths) is not in it: the difference between the time
per step with and without compression is the whole cost. Operators with torch 2.x only
(Debian's torch 1.13 runs the direct ctypes path: no share is reported).

Profiling slows a step down, so only a few steps are profiled (after the first, which
creates the optimizer's state) and the time per step is the median of the others.
Works with torch 1.13 (event times in us) and 2.x (in ns).
"""
import contextlib
import time

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

PROFILED = (1, 2)  # step indices whose memory is profiled
OP_PROFILED = (3, 4)  # step indices whose operators are profiled


def _start(event):
    return event.start_ns() if hasattr(event, "start_ns") else event.start_us() * 1000


def _end(event):
    if hasattr(event, "end_ns"):
        return event.end_ns()
    return (event.start_us() + event.duration_us()) * 1000


def union_ns(spans):
    """Length of the union of (start, end) intervals: nested or overlapping ones once."""
    total, end = 0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def covered_ns(prof, prefix="actq::"):
    """Nanoseconds covered by the profiled events whose name starts with prefix."""
    return union_ns((_start(e), _end(e)) for e in prof.profiler.kineto_results.events()
                    if e.name().startswith(prefix))


def peak_above_start(prof, device_type="CPU"):
    """The largest sum of allocations minus frees, in the order the allocator made them,
    over the profiled block; device_type "CPU" or "CUDA"."""
    name = "DeviceType." + device_type
    records = [(_start(e), i, e.nbytes())
               for i, e in enumerate(prof.profiler.kineto_results.events())
               if e.name() == "[memory]" and str(e.device_type()) == name]
    records.sort()
    live = peak = 0
    for _, _, nbytes in records:
        live += nbytes
        peak = max(peak, live)
    return peak


class StepMeter:
    def __init__(self, device="cpu", profiled=PROFILED, op_profiled=OP_PROFILED):
        self.device = torch.device(device)
        self.cuda = self.device.type == "cuda"
        self.profiled = set(profiled)
        self.op_profiled = set(op_profiled) - self.profiled
        self.ms = []  # unprofiled steps
        self.peaks = []  # memory-profiled steps
        self.op_ns = []  # (actq operators, wall) of the operator-profiled steps

    def _sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)

    @contextlib.contextmanager
    def step(self, index):
        """Around one whole training step (forward, backward, optimizer)."""
        profiled = index in self.profiled
        op_profiled = index in self.op_profiled
        prof = (profile(activities=[ProfilerActivity.CPU], profile_memory=profiled)
                if profiled or op_profiled else contextlib.nullcontext())
        self._sync()
        t0 = time.perf_counter()
        with prof:
            yield
            self._sync()
        seconds = time.perf_counter() - t0
        if profiled:
            self.peaks.append(peak_above_start(prof, "CUDA" if self.cuda else "CPU"))
        elif op_profiled:
            self.op_ns.append((covered_ns(prof), seconds * 1e9))
        else:
            self.ms.append(seconds * 1e3)

    def results(self):
        ops, wall = (sum(v) for v in zip(*self.op_ns)) if self.op_ns else (0, 0)
        return {"ms_per_step": round(float(np.median(self.ms)), 3) if self.ms else None,
                "step_peak_bytes": int(max(self.peaks)) if self.peaks else None,
                "step_peak_profiled_steps": len(self.peaks),
                # None where no actq operator ran (fp32, or the ctypes path of torch 1.13)
                "actq_op_share": round(ops / wall, 4) if ops else None,
                "actq_op_ms_per_step": round(ops / len(self.op_ns) / 1e6, 3) if ops else None}

    @staticmethod
    def line(results):
        if results.get("step_peak_bytes") is None:
            return ""
        share = results.get("actq_op_share")
        return "  step peak %9d B  %.2f ms/step%s" % (
            results["step_peak_bytes"], results["ms_per_step"] or 0.0,
            "  %.0f%% in actq ops" % (100 * share) if share else "")
