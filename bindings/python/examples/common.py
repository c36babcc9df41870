"""What both training examples share: the four settings compared, the per-step memory
measurement, and writing the results file."""
import json
import os
import platform
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the actq package next to this folder

import actq  # noqa: E402
import actq.torch as at  # noqa: E402

# name -> how saved activations are stored. "bits": every row at that width;
# "average": per-sample widths from actq_allocate_bits among ALLOWED with that average.
SETTINGS = {
    "fp32": {},
    "2-bit": {"bits": 2},
    "4-bit": {"bits": 4},
    "mixed 2-bit avg": {"average": 2.0},
}
ALLOWED = (1, 2, 3, 4, 8)


def quantizer_for(setting, seed):
    """The Quantizer of a compressed setting, None for fp32."""
    s = SETTINGS[setting]
    if not s:
        return None
    if "average" in s:
        return at.Quantizer(2, average_bits=s["average"], allowed_bits=ALLOWED, seed=seed)
    return at.Quantizer(s["bits"], seed=seed)


def fewbit_bits(setting):
    """Width of the few-bit activation codes: the setting's width; 2 for the mixed one."""
    return SETTINGS[setting].get("bits", 2)


def setup_threads(threads):
    torch.set_num_threads(threads)
    actq.default_context().set_threads(threads)


def environment():
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "actq": actq.__version__,
        "actq_context": actq.default_context().describe(),
        "torch_threads": torch.get_num_threads(),
    }


def write_results(path, results):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("wrote", path)


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
