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
exact in float32 whatever the BLAS's order of summation, and the weights are not updated
between the steps (the gradients add up, as in gradient accumulation): every saved tensor,
hence every stored byte, is then the same on any PyTorch (checked on Debian's 1.13 and
PyPI's 2.15). The gradients are float arithmetic of PyTorch's own (matrix products of
dequantized tensors) and differ between those two: they are compared only on the PyTorch
release and CPU capability the constants were generated on (GRADIENTS_ON).

This file imports no test helper (conftest), so that it runs as the generator against any
tree of the package.
"""
import contextlib
import hashlib
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
    """Linear(64, 256) - GELU - Linear(256, 64) with PyTorch's initialisation at seed 0,
    its weights rounded to multiples of 2^-8 (|w| <= 1/8) and the batch to multiples of 2^-4
    (|x| < 8): the first layer's products are multiples of 2^-12 and their sums stay below
    2^6, exact in float32 in any order."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))
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


def torch_release(version=None):
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version or torch.__version__)
    return "%s.%s.%s" % m.groups()


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
                    at.compressed_saved_tensors(bits=BITS, seed=SEED, quantizer=q) as q:
                out = model(x)
            # The loss head outside the compressed part, as the hooks' docs advise.
            loss = ((out - target) ** 2).mean()
            loss.backward()
            steps.append({"offset": q.calls, "stored": q.elements_per_width})
        grads = {name: sha(p.grad) for name, p in model.named_parameters()}
        return {"torch": torch_release(), "cpu": cpu_capability(), "calls": calls,
                "steps": steps, "grads": grads}
    finally:
        torch.set_num_threads(threads)


# ---- generated with the package of commit 8d9a6b8 (see the module's docstring) ----------
CALLS = [  # shape, offset before, offset after, sha256 of packed, group_min, group_scale
    ([32, 64], 0, 1,
     '4bd86302f20ca1d020f01dde043aacd4cb4ff66a898c06d74041386ce65ae93b',
     '3e83983c497e4b17386a0751d147648e606d918afac6b8564db0b7007b4555e1',
     'b6218bc8ca6303d66c66e2d6840fa91b54085916fad708312d286b68029088d1'),
    ([32, 256], 1, 2,
     '830480e66482522c8dbfc8428102a8dc137eaaefbd648dacafa87604496f5ec7',
     '8a3556bf45131ef65e403ed1ed548fca81e7c84bfa969b385db98b3c8b777b64',
     '7a9a6cf2404efea01052013b884f4032b4931f509e84cc29378276114fc0b1cd'),
    ([32, 256], 2, 3,
     'fd120dd659be42fcfa843131545bcce5b2865f6747ccb7817d208e4a043bf1ac',
     'dff418b34cc781f379e478ecba9a232df492c150e6b033e6b760b05be4508d0c',
     '1ce03c942e3191e9cdd9a94a374ecf72210999555bf519d4dd2b932ffde4e15f'),
    ([32, 64], 3, 4,
     'a377361f6cb71825f3fefae1be6a83ba22390a0e865b04017fb91e1e5b3b1af9',
     '3e83983c497e4b17386a0751d147648e606d918afac6b8564db0b7007b4555e1',
     'b6218bc8ca6303d66c66e2d6840fa91b54085916fad708312d286b68029088d1'),
    ([32, 256], 4, 5,
     '48966803a749a33c22425f15206213bcea7a5f734dd88b873717c362d7625aae',
     '8a3556bf45131ef65e403ed1ed548fca81e7c84bfa969b385db98b3c8b777b64',
     '7a9a6cf2404efea01052013b884f4032b4931f509e84cc29378276114fc0b1cd'),
    ([32, 256], 5, 6,
     'd580a83806b7dd57bb7638af9590e4452b00544f34bf7008e83cfbd915fde060',
     'dff418b34cc781f379e478ecba9a232df492c150e6b033e6b760b05be4508d0c',
     '1ce03c942e3191e9cdd9a94a374ecf72210999555bf519d4dd2b932ffde4e15f'),
]
STEPS = [  # the quantizer's offset and elements stored per width 0..8 after each step
    (3, [0, 0, 18432, 0, 0, 0, 0, 0, 0]),
    (6, [0, 0, 36864, 0, 0, 0, 0, 0, 0]),
]
GRADS = {  # sha256 of each parameter's gradient after the two steps
    '0.weight': '4c3276c2c6b23d163d1b81874065981cde15ee200cb01aa578901e9841ed6a72',
    '0.bias': '4773f4f150595f01e189801f6633b70aeb148ee0b3f56322e6d646c3a36391a6',
    '2.weight': '4ced78ebf5cee181fe9c53c1d2170f1bd70e94529a46f2eea2c264b0ad2a3dc2',
    '2.bias': 'e1e19cb6daf330b47205a4617e50f5435f69fd15c6777c1b2fa096e1a6bec762',
}
GRADIENTS_ON = ('2.15.0', 'AVX2')  # PyTorch release and CPU capability of GRADS


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


@pytest.mark.skipif((torch_release(), cpu_capability()) != GRADIENTS_ON,
                    reason="the gradients' constants are the float arithmetic of "
                    "PyTorch %s on %s" % GRADIENTS_ON)
def test_hooks_give_the_gradients_of_before(run):
    differ = ["%s: %s, want %s" % (k, run["grads"].get(k), v) for k, v in GRADS.items()
              if run["grads"].get(k) != v]
    assert not differ, "\n".join(differ)


if __name__ == "__main__":
    json.dump(record(), sys.stdout, indent=1)
    sys.stdout.write("\n")
