"""The hooks' noise offsets advance exactly as before: two forward and backward steps of a
tiny fixed model inside compressed_saved_tensors(bits=2, seed=1234) store, for every saved
tensor, the bytes stored before Quantizer.compress became one operator call (actq::compress,
C++ or Python) and the hooks became SavedTensorHooks, at the same Philox offsets, with the
same counters, and give the same gradients.

The constants below are what this file's record() gave with the package of commit 8d9a6b8
(before those changes), run as the generator:

    git worktree add /tmp/actq-before 8d9a6b8
    ACTQ_LIBRARY=... PYTHONPATH=/tmp/actq-before/bindings/python \\
        python bindings/python/tests/test_hooks_golden.py

They hold on every path: C++ operators, Python custom operators (ACTQ_TORCH_CPP=0), direct
calls (ACTQ_TORCH_OPS=0). Never regenerate them with the code under test: a difference is a
change of behaviour.

The weights and the batch are dyadic (model_and_batch), so that the first layer's output is
exact in float32 whatever the BLAS's order of summation, the activation is ReLU (exact;
PyTorch's GELU gives other bits on an AVX-512 CPU than on an AVX2 one, which changed a
group's metadata here), and the weights are not updated between the steps (the gradients
add up, as in gradient accumulation): every saved tensor, hence every stored byte, is then
the same on any PyTorch and CPU (checked on Debian's 1.13 and PyPI's 2.15, at PyTorch's
AVX2 and AVX-512 capabilities). The gradients are float arithmetic of PyTorch's own
(matrix products of dequantized tensors) and differ between those: they are compared only
on the PyTorch release, capability and CPU they were generated on (GRADIENTS_ON). The
constants were regenerated for the ReLU model, as above, with the package of 8d9a6b8.

This file imports no test helper (conftest), so that it runs as the generator against any
tree of the package.
"""
import contextlib
import hashlib
import inspect
import json
import re
import sys

import pytest
import torch
import torch.nn as nn

import actq.torch as at
from actq.torch.quantizer import Quantizer

SEED = 1234
BITS = 2


def sha(t):
    """sha256 of a tensor's bytes, in its dtype, row-major."""
    b = t.detach().cpu().contiguous().reshape(-1).view(torch.uint8)
    return hashlib.sha256(b.numpy().tobytes()).hexdigest()


def model_and_batch():
    """Linear(64, 256) - ReLU - Linear(256, 64) with PyTorch's initialisation at seed 0,
    its weights rounded to multiples of 2^-8 (|w| <= 1/8) and the batch to multiples of 2^-4
    (|x| < 8): the first layer's products are multiples of 2^-12 and their sums stay below
    2^6, exact in float32 in any order."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.round(p * 256) / 256)
    x = torch.round(torch.randn(32, 64) * 16) / 16
    target = torch.round(torch.randn(32, 64) * 16) / 16
    return model, x, target


@contextlib.contextmanager
def recording(calls):
    """Quantizer.compress appending what each call stored to `calls`; patched on the class,
    since the hooks make their own Quantizer and may bind its compress when they do."""
    compress = Quantizer.compress

    def recorded(self, t, *args, **kwargs):
        before = self.calls
        c = compress(self, t, *args, **kwargs)
        calls.append({"shape": list(t.shape), "offset": before, "after": self.calls,
                      "packed": sha(c.packed), "group_min": sha(c.group_min),
                      "group_scale": sha(c.group_scale)})
        return c

    Quantizer.compress = recorded
    try:
        yield
    finally:
        Quantizer.compress = compress


def cpu_capability():
    cpu = getattr(torch.backends, "cpu", None)
    return cpu.get_cpu_capability() if hasattr(cpu, "get_cpu_capability") else None


def cpu_id():
    """Vendor, family and model of the CPU (Linux), or None: the BLAS's kernels, hence the
    gradients' bits, depend on it beyond PyTorch's capability level."""
    try:
        with open("/proc/cpuinfo") as f:
            info = dict(line.split(":", 1) for line in f.read().split("\n\n")[0].splitlines()
                        if ":" in line)
        info = {k.strip(): v.strip() for k, v in info.items()}
        return "%s %s %s" % (info["vendor_id"], info["cpu family"], info["model"])
    except (OSError, KeyError):
        return None


def torch_release(version=None):
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version or torch.__version__)
    return "%s.%s.%s" % m.groups()


# Every saved tensor alike with f32 metadata, as the hooks did then: later trees give
# Linear inputs and attention's tensors widths of their own by default (ops=True,
# actq/torch/op_rules.py) and bf16 metadata
TENSORS_ONLY = ({"ops": False, "meta_dtype": "f32"} if "ops" in inspect.signature(
    at.compressed_saved_tensors.__wrapped__).parameters else {})


def record():
    """Every compress call of the two steps, the quantizer's offset and counters after each
    step, the final gradients: a JSON-able dict."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.random.fork_rng(devices=[]):
            model, x, target = model_and_batch()
        calls, steps = [], []
        q = None
        for _ in range(2):
            # The first step makes the hooks' own Quantizer, the second uses it again.
            with recording(calls), \
                    at.compressed_saved_tensors(bits=BITS, seed=SEED, quantizer=q,
                                                **TENSORS_ONLY) as q:
                out = model(x)
            # The loss head outside the compressed part, as the hooks' docs advise.
            loss = ((out - target) ** 2).mean()
            loss.backward()
            steps.append({"offset": q.calls, "stored": q.elements_per_width})
        grads = {name: sha(p.grad) for name, p in model.named_parameters()}
        return {"torch": torch_release(), "cpu": cpu_capability(), "cpu_id": cpu_id(),
                "calls": calls, "steps": steps, "grads": grads}
    finally:
        torch.set_num_threads(threads)


# ---- generated with the package of commit 8d9a6b8 (see the module's docstring) ----------
CALLS = [  # shape, offset before, offset after, sha256 of packed, group_min, group_scale
    ([32, 64], 0, 1,
     '4bd86302f20ca1d020f01dde043aacd4cb4ff66a898c06d74041386ce65ae93b',
     '3e83983c497e4b17386a0751d147648e606d918afac6b8564db0b7007b4555e1',
     'b6218bc8ca6303d66c66e2d6840fa91b54085916fad708312d286b68029088d1'),
    ([32, 256], 1, 2,
     '30962872f506244d1d3c5942760962181d7071ba34241527fb9ddcb460de757c',
     '38723a2e5e8a17aa7950dc008209944e898f69a7bd10a23c839d341e935fd5ca',
     'd38719bb2977cce6eec14a37e9615638000b1cadbcecbea789a2644f6905431e'),
    ([32, 256], 2, 3,
     'a9bfb956fe9543a5446e0285452b3f9f846fe3f1a61f46d57565ee4eaf84c991',
     '38723a2e5e8a17aa7950dc008209944e898f69a7bd10a23c839d341e935fd5ca',
     'd38719bb2977cce6eec14a37e9615638000b1cadbcecbea789a2644f6905431e'),
    ([32, 64], 3, 4,
     'a377361f6cb71825f3fefae1be6a83ba22390a0e865b04017fb91e1e5b3b1af9',
     '3e83983c497e4b17386a0751d147648e606d918afac6b8564db0b7007b4555e1',
     'b6218bc8ca6303d66c66e2d6840fa91b54085916fad708312d286b68029088d1'),
    ([32, 256], 4, 5,
     '865e6878f62334709533a22924ff77824ba748293d84c221535bcbcb7b71d5d6',
     '38723a2e5e8a17aa7950dc008209944e898f69a7bd10a23c839d341e935fd5ca',
     'd38719bb2977cce6eec14a37e9615638000b1cadbcecbea789a2644f6905431e'),
    ([32, 256], 5, 6,
     'ccd3b1d1be645a8b87f048c63a099f8bac16d1c4a2d0607d8c9b959a2692f945',
     '38723a2e5e8a17aa7950dc008209944e898f69a7bd10a23c839d341e935fd5ca',
     'd38719bb2977cce6eec14a37e9615638000b1cadbcecbea789a2644f6905431e'),
]
STEPS = [  # the quantizer's offset and elements stored per width 0..8 after each step
    (3, [0, 0, 18432, 0, 0, 0, 0, 0, 0]),
    (6, [0, 0, 36864, 0, 0, 0, 0, 0, 0]),
]
GRADS = {  # sha256 of each parameter's gradient after the two steps
    '0.weight': '2a24981aa37da5dafbec37dd1b0478e402337117bfc94c5e3d4345350d0b213a',
    '0.bias': '095387cea99ee948c5aebd3c92b9f6b1bfa53b7346f368e7792cd960d65d48f1',
    '2.weight': '12f040e1eedd3395470d1c3e5a34ae02b9774ca1aeab8a5cf657924f9529a384',
    '2.bias': '2ec7db314431099f44ef7e99cde75c49fa7600958bdca9113c05d150e8c5cbd0',
}
# PyTorch release, CPU capability and CPU (cpu_id) that GRADS were generated on
GRADIENTS_ON = ('2.15.0', 'AVX512', 'AuthenticAMD 26 2')


@pytest.fixture(scope="module")
def run():
    return record()


def test_hooks_store_the_bytes_and_advance_the_offsets_as_before(run):
    differ = []
    if len(run["calls"]) != len(CALLS):
        differ.append("%d compress calls, want %d" % (len(run["calls"]), len(CALLS)))
    for i, (got, want) in enumerate(zip(run["calls"], CALLS)):
        for k, w in zip(("shape", "offset", "after", "packed", "group_min", "group_scale"),
                        want):
            if got[k] != w:
                differ.append("call %d (shape %s): %s %s, want %s"
                              % (i, want[0], k, got[k], w))
    for i, (got, (offset, stored)) in enumerate(zip(run["steps"], STEPS)):
        if got["offset"] != offset or got["stored"] != stored:
            differ.append("after step %d: offset %d and stored %s, want %d and %s"
                          % (i + 1, got["offset"], got["stored"], offset, stored))
    assert not differ, "\n".join(differ)


@pytest.mark.skipif((torch_release(), cpu_capability(), cpu_id()) != GRADIENTS_ON,
                    reason="the gradients' constants are the float arithmetic of "
                    "PyTorch %s at capability %s on %s" % GRADIENTS_ON)
def test_hooks_give_the_gradients_of_before(run):
    differ = ["%s: %s, want %s" % (k, run["grads"].get(k), v) for k, v in GRADS.items()
              if run["grads"].get(k) != v]
    assert not differ, "\n".join(differ)


if __name__ == "__main__":
    json.dump(record(), sys.stdout, indent=1)
    sys.stdout.write("\n")
