"""What both training examples share: the four settings compared, the per-step memory
measurement, and writing the results file."""
import json
import os
import platform
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the actq package next to this folder

import actq  # noqa: E402
import actq.torch as at  # noqa: E402

# name -> how saved activations are stored. "bits": every row at that width;
# "average": per-sample widths from actq_allocate_bits among ALLOWED with that average
# (ActNN); "adaptive": one width per saved tensor with that average, from the gradient
# effects AutoPrecision measures (GACT).
SETTINGS = {
    "fp32": {},
    "2-bit": {"bits": 2},
    "3-bit": {"bits": 3},
    "4-bit": {"bits": 4},
    "mixed 2-bit avg": {"average": 2.0},
    "adaptive 2-bit avg": {"adaptive": 2.0},
    "adaptive 3-bit avg": {"adaptive": 3.0},
}
DIGITS_SETTINGS = ("fp32", "2-bit", "4-bit", "mixed 2-bit avg")
ALLOWED = (1, 2, 3, 4, 8)


def quantizer_for(setting, seed, model=None, refresh_every=100, probes=2):
    """The Quantizer of a compressed setting, None for fp32; an adaptive setting needs
    the model whose gradients measure the sensitivities."""
    s = SETTINGS[setting]
    if not s:
        return None
    if "adaptive" in s:
        if model is None:
            raise ValueError("%s needs the model" % setting)
        return at.AutoPrecision(model, s["adaptive"], allowed_bits=ALLOWED,
                                refresh_every=refresh_every, probes=probes, seed=seed)
    if "average" in s:
        return at.Quantizer(2, average_bits=s["average"], allowed_bits=ALLOWED, seed=seed)
    return at.Quantizer(s["bits"], seed=seed)


def per_sample(q):
    """Whether the quantizer takes ActNN's per-sample widths, weighted by each sample's
    gradient norm at its last visit (q.row_weight), which only then is worth keeping."""
    return q is not None and q.average_bits is not None


def fewbit_bits(setting):
    """Width of the few-bit activation codes of a compressed setting: its width, or the
    whole bits of its average."""
    s = SETTINGS[setting]
    return s["bits"] if "bits" in s else int(s.get("average") or s["adaptive"])


def setup_threads(threads):
    torch.set_num_threads(threads)
    actq.default_context().set_threads(threads)


def add_device_argument(ap):
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                    help="where the model trains; cuda also measures PyTorch's peak "
                         "allocated memory per setting")


def environment(device="cpu"):
    env = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "actq": actq.__version__,
        "actq_context": actq.default_context().describe(),
        "torch_threads": torch.get_num_threads(),
        "device": str(device),
    }
    if torch.device(device).type == "cuda":
        env["cuda_device"] = torch.cuda.get_device_name(device)
        with at.context_for(torch.empty(0, device=device)) as ctx:
            env["actq_cuda_context"] = ctx.describe()
    return env


class CudaMemory:
    """PyTorch's allocator statistics over one setting's training on a CUDA device (a
    no-op on CPU). The peak, torch.cuda.max_memory_allocated() reset by start(), is the
    number users measure: besides what autograd saves it holds the parameters, optimizer
    state, the batch and each step's live tensors. after_forward() records per step how
    much the forward pass left allocated (the saved tensors, compressed or not, plus the
    logits and loss): the allocator's view of the meter's count."""

    def __init__(self, device):
        self.cuda = torch.device(device).type == "cuda"
        self.forward = []

    def start(self):
        if self.cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            self.base = torch.cuda.memory_allocated()

    def stop(self):
        if self.cuda:
            torch.cuda.synchronize()
            self.peak = torch.cuda.max_memory_allocated()

    def before_forward(self):
        if self.cuda:
            self._before = torch.cuda.memory_allocated()

    def after_forward(self):
        if self.cuda:
            self.forward.append(torch.cuda.memory_allocated() - self._before)

    def results(self):
        """The fields for a run's results (none on CPU)."""
        if not self.cuda:
            return {}
        return {"cuda_max_memory_allocated": self.peak,
                "cuda_memory_allocated_at_start": self.base,
                "cuda_forward_allocated_per_step": int(np.median(self.forward))
                if self.forward else None}

    @staticmethod
    def line(results):
        """The printed suffix for a run's results."""
        if "cuda_max_memory_allocated" not in results:
            return ""
        return "  peak %9d B  forward left %9d B/step" % (
            results["cuda_max_memory_allocated"], results["cuda_forward_allocated_per_step"])


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
