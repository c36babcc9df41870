"""Counting the bytes autograd holds for backward (the activation memory of a step).

Every tensor saved for backward passes through torch.autograd.graph.saved_tensors_hooks.
The meter counts, per step:
- plain tensors by their storage, once per storage (several saved views of one tensor, or
  one tensor saved by two nodes, hold its memory once);
- compressed tensors (a Quantized made by compressed_saved_tensors) by their packed bytes
  plus metadata plus per-row widths;
- parameters (nn.Parameter, and views of them) apart: the model holds them whether or not they are saved.
Forward only adds saved tensors and backward only releases them, so the total at the end
of the forward pass is the step's peak.
"""
import contextlib

import torch


def is_parameter(t):
    """A parameter or a view of one (nn.Linear saves weight.t(), a view)."""
    base = getattr(t, "_base", None)
    return isinstance(t, torch.nn.Parameter) or isinstance(base, torch.nn.Parameter)


def _storage_key(t):
    # untyped_storage() since torch 2.0; storage() before (deprecated, not removed, later).
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    nbytes = st.nbytes() if callable(getattr(st, "nbytes", None)) else st.size() * t.element_size()
    return (t.device, st.data_ptr()), nbytes


class SavedTensorMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        """Call at the start of each step."""
        self.plain_bytes = 0
        self.compressed_bytes = 0
        self.compressed_original_bytes = 0  # what the compressed tensors were before
        self.parameter_bytes = 0
        self.tensors = 0
        self._seen = set()

    @property
    def activation_bytes(self):
        return self.plain_bytes + self.compressed_bytes

    def add_plain(self, t):
        self.tensors += 1
        key, nbytes = _storage_key(t)
        if key in self._seen:
            return
        self._seen.add(key)
        if is_parameter(t):
            self.parameter_bytes += nbytes
        else:
            self.plain_bytes += nbytes

    def add_compressed(self, q, original):
        self.tensors += 1
        self.compressed_bytes += q.nbytes
        self.compressed_original_bytes += original.numel() * original.element_size()

    @contextlib.contextmanager
    def counting(self):
        """Counts what autograd saves inside the block without changing it (baseline, and
        ActNN-style modules that save their own packed tensors)."""
        def pack(t):
            self.add_plain(t)
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            yield self
