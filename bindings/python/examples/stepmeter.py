"""Time per training step, and the peak of memory a step allocates, both measured.

The peak is read from the allocator's own records: torch.profiler with
profile_memory=True logs every allocation and free of PyTorch's allocators (CPU, and the
CUDA caching allocator) with its size. Summing them in order gives the bytes live above
what was allocated when the step began; the step's peak is the largest such sum. It holds
everything the step creates: saved activations (compressed or not), the forward's live
tensors, gradients and the backward's temporaries (tensors alive at the start, the
weights, the batch, the optimizer's state after the first step, are the baseline, not
counted). The counts of SavedTensorMeter are one part of it.

Profiling slows a step down, so only a few steps are profiled (PROFILED, after the first,
which creates the optimizer's state) and the time per step is the median of the others.
Works with torch 1.13 (event times in us) and 2.x (in ns).
"""
import contextlib
import time

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

PROFILED = (1, 2)  # step indices whose memory is profiled


def _start(event):
    return event.start_ns() if hasattr(event, "start_ns") else event.start_us()


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
    def __init__(self, device="cpu", profiled=PROFILED):
        self.device = torch.device(device)
        self.cuda = self.device.type == "cuda"
        self.profiled = set(profiled)
        self.ms = []  # unprofiled steps
        self.peaks = []  # profiled steps

    def _sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.device)

    @contextlib.contextmanager
    def step(self, index):
        """Around one whole training step (forward, backward, optimizer)."""
        profiled = index in self.profiled
        prof = (profile(activities=[ProfilerActivity.CPU], profile_memory=True)
                if profiled else contextlib.nullcontext())
        self._sync()
        t0 = time.perf_counter()
        with prof:
            yield
            self._sync()
        seconds = time.perf_counter() - t0
        if profiled:
            self.peaks.append(peak_above_start(prof, "CUDA" if self.cuda else "CPU"))
        else:
            self.ms.append(seconds * 1e3)

    def results(self):
        return {"ms_per_step": round(float(np.median(self.ms)), 3) if self.ms else None,
                "step_peak_bytes": int(max(self.peaks)) if self.peaks else None,
                "step_peak_profiled_steps": len(self.peaks)}

    @staticmethod
    def line(results):
        if results.get("step_peak_bytes") is None:
            return ""
        return "  step peak %9d B  %.2f ms/step" % (results["step_peak_bytes"],
                                                     results["ms_per_step"] or 0.0)
