"""GACT's AutoPrecision: one width per saved tensor, from gradients measured during training.

    ap = actq.torch.AutoPrecision(model, average_bits=2, refresh_every=100)
    def backprop():                      # one forward and backward of the current batch
        with actq.torch.compressed_saved_tensors(quantizer=ap):
            out = model(x)
        loss_fn(out, y).backward()
    for step ...:
        ap.step(backprop)                # re-measures every refresh_every steps
        optimizer.zero_grad(); backprop(); optimizer.step()

Saved tensors are identified by their order of saving within a forward pass, as in GACT.
The sensitivity of tensor i is the gradient variance that quantizing it alone at 1 bit
adds, measured as (1/P) sum_p ||g_p - g||^2 over P independent stochastic roundings
(`probes`), g the parameter gradient with nothing compressed. Since the variance at width b
is that at 1 bit times 1/(2^b - 1)^2 (docs/mixed-precision.md), the measured value is the
solver's s_i as it is, and actq_allocate_bits (EXACT) picks the widths minimizing
sum_i s_i / (2^b_i - 1)^2 within average_bits * total elements. A refresh costs
1 + probes * (number of saved tensors) extra forward and backward passes.
"""
import contextlib

import torch

from .. import rules
from ..errors import ActqError, Status
from . import ops
from .quantizer import Quantizer

_EXACT = "exact"  # probe mode: nothing compressed


def _fallback_bits(average_bits, allowed_bits):
    """The width of a tensor the last refresh did not see: the largest allowed width
    within the average, else the smallest allowed."""
    within = [b for b in allowed_bits if b <= average_bits]
    return max(within) if within else min(allowed_bits)


class AutoPrecision(Quantizer):
    def __init__(self, model, average_bits=2.0, *, allowed_bits=(1, 2, 3, 4, 8),
                 refresh_every=100, probes=2, group_size=256, rounding="stochastic",
                 meta_dtype="f32", seed=None, alloc_method="exact"):
        """model: the nn.Module whose parameter gradients measure the sensitivities (its
        batch-norm layers stop updating running statistics during a refresh)."""
        rules.allowed_widths(allowed_bits)
        rules.check("average_bits", average_bits)
        for name, v in (("refresh_every", refresh_every), ("probes", probes)):
            if not isinstance(v, int) or v < 1:
                rules.refuse(name, v, "an integer >= 1")
        allowed = sorted(set(allowed_bits))
        super().__init__(_fallback_bits(average_bits, allowed), group_size,
                         allowed_bits=allowed, rounding=rounding, meta_dtype=meta_dtype,
                         seed=seed, alloc_method=alloc_method)
        self.model = model
        self.target_bits = float(average_bits)
        self.allowed_bits = tuple(allowed)
        self.refresh_every = refresh_every
        self.probes = probes
        self.steps = 0
        self.refreshes = 0
        self.backprops = 0  # forward and backward passes the refreshes ran
        self.tensor_bits = []  # the width of the i-th saved tensor of a forward pass
        self.sensitivity = []  # s_i as last measured
        self.numel = []  # elements of the i-th saved tensor when last measured
        self._index = 0
        self._probe = None  # None, _EXACT, or the index of the one tensor compressed

    def begin_forward(self):
        """compressed_saved_tensors calls this on entry: saving order restarts at 0."""
        self._index = 0

    def step(self, backprop):
        """Once per training step, before it: refreshes the widths every refresh_every
        steps (the first step included). Returns whether it refreshed."""
        due = self.steps % self.refresh_every == 0
        if due:
            self.refresh(backprop)
        self.steps += 1
        return due

    def compress(self, x, rows=None):
        i = self._index
        self._index += 1
        if self._probe is _EXACT:
            self.numel.append(x.numel())
            return x
        if self._probe is not None:
            if i != self._probe:
                return x
            bits = min(self.allowed_bits)
        else:
            bits = self.tensor_bits[i] if i < len(self.tensor_bits) else self.bits
        fixed = self.bits
        self.bits = bits
        try:
            return super().compress(x, rows)
        finally:
            self.bits = fixed

    def refresh(self, backprop):
        """Measures every saved tensor's sensitivity with extra passes of backprop() and
        re-allocates the widths. The parameters' gradients and the count of stored elements
        (elements_per_width: what training stored, not the probes) are restored afterwards;
        the noise offset keeps advancing, so no probe's noise is reused."""
        params = [p for p in self.model.parameters() if p.requires_grad]
        kept = [p.grad for p in params]
        stored = self.stored.clone()
        with self._quiet_batch_norm(), _same_randomness() as replay:
            def run(probe):
                self._probe = probe
                for p in params:
                    p.grad = None
                replay()
                backprop()
                self.backprops += 1
                return torch.cat([p.grad.reshape(-1).double() for p in params
                                  if p.grad is not None])
            try:
                self.numel = []
                exact = run(_EXACT)
                count = len(self.numel)
                bits_unit = (2 ** min(self.allowed_bits) - 1) ** 2
                sens = []
                for i in range(count):
                    var = sum(float(((run(i) - exact) ** 2).sum())
                              for _ in range(self.probes)) / self.probes
                    sens.append(var * bits_unit if var == var and var < 1e30 else 1e30)
            finally:
                self._probe = None
                self.stored.copy_(stored)
                for p, g in zip(params, kept):
                    p.grad = g
        self.sensitivity = sens
        self.tensor_bits = self._allocate(sens, self.numel)
        self.refreshes += 1

    def _allocate(self, sens, numel):
        if not sens:
            return []
        mask = rules.allowed_widths(self.allowed_bits)
        try:
            bits, _ = ops.allocate_bits(sens, numel, self.target_bits, mask, self.alloc_method)
        except ActqError as e:
            # EXACT refuses instances past its limits; the greedy's answer is always valid.
            if e.status != Status.ERR_UNSUPPORTED:
                raise
            bits, _ = ops.allocate_bits(sens, numel, self.target_bits, mask, "greedy")
        return [int(b) for b in bits]

    @contextlib.contextmanager
    def _quiet_batch_norm(self):
        bns = [m for m in self.model.modules()
               if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.track_running_stats]
        saved = [(m.running_mean.clone(), m.running_var.clone(),
                  m.num_batches_tracked.clone()) for m in bns]
        try:
            yield
        finally:
            for m, (mean, var, n) in zip(bns, saved):
                m.running_mean.copy_(mean)
                m.running_var.copy_(var)
                m.num_batches_tracked.copy_(n)

    def __repr__(self):
        return "AutoPrecision(average %g bits of %s, refresh_every=%d, seed=%d)" % (
            self.target_bits, self.allowed_bits, self.refresh_every, self.seed)


@contextlib.contextmanager
def _same_randomness():
    """Every probe sees the same torch random numbers (dropout masks), so the gradients
    differ only by the quantization; the generators continue as before afterwards."""
    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None

    def replay():
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
    try:
        yield replay
    finally:
        replay()
