"""The examples' step meter: peaks from the allocator's records, time of unprofiled steps."""
import os
import sys

import pytest
import torch

import actq.torch as at
from actq.torch import library

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


def test_overlapping_and_nested_operator_spans_count_once():
    assert stepmeter.union_ns([]) == 0
    assert stepmeter.union_ns([(0, 10), (2, 5), (8, 12), (20, 25)]) == 12 + 5
    assert stepmeter.union_ns([(20, 25), (0, 10)]) == 15


@pytest.mark.skipif(not library.AVAILABLE, reason="no torch.ops.actq: %s" % library.REASON)
def test_the_actq_share_covers_the_operators_and_only_them():
    meter = stepmeter.StepMeter("cpu", profiled=(), op_profiled=(0, 1))
    x = torch.randn(1 << 20)  # ops long against the Python and the profiler around them
    q = at.Quantizer(2, seed=1)
    q.decompress(q.compress(x))  # first-call costs outside the measured step
    with meter.step(0):  # actq only, but for the python around it
        for _ in range(4):
            q.decompress(q.compress(x))
    with meter.step(1):  # no actq at all: a matrix product of about as long
        a = torch.randn(256, 256)
        for _ in range(20):
            a = a @ a / 256
    (ops0, wall0), (ops1, wall1) = meter.op_ns
    # The ops are most of step 0 (the Python around them and a descheduled moment are not).
    assert 0.3 * wall0 < ops0 <= wall0 and ops1 == 0
    r = meter.results()
    assert r["actq_op_share"] == round(ops0 / (wall0 + wall1), 4)
    assert r["actq_op_ms_per_step"] == round(ops0 / 2 / 1e6, 3)
    assert stepmeter.StepMeter("cpu", profiled=()).results()["actq_op_share"] is None
