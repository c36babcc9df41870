"""The examples' step meter: peaks from the allocator's records, time of unprofiled steps."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import stepmeter  # noqa: E402

MB = 1 << 20


def test_the_peak_is_the_most_bytes_live_at_once_not_the_total():
    meter = stepmeter.StepMeter("cpu", profiled=(0, 1))
    with meter.step(0):  # 8 MB and 4 MB at once, then 4 MB: the peak is 12 MB
        a = torch.ones(2 * MB, dtype=torch.float32)
        b = torch.ones(MB, dtype=torch.float32)
        del a, b
        c = torch.ones(MB, dtype=torch.float32)
        del c
    with meter.step(1):  # one at a time: 4 MB
        for _ in range(3):
            d = torch.ones(MB, dtype=torch.float32)
            del d
    with meter.step(2):  # not profiled: timed
        torch.ones(16)
    assert 12 * MB <= meter.peaks[0] < 12 * MB + 64 * 1024
    assert 4 * MB <= meter.peaks[1] < 4 * MB + 64 * 1024
    r = meter.results()
    assert r["step_peak_bytes"] == meter.peaks[0] and r["step_peak_profiled_steps"] == 2
    assert len(meter.ms) == 1 and r["ms_per_step"] == round(meter.ms[0], 3)
