#!/usr/bin/env python3
"""layer_parts.py - where a few-bit GELU layer's forward (f32, 2 bits, training mode, grad
enabled, 1 thread) spends its time against torch's nn.GELU on the same tensor: the layer,
its autograd Function alone, the codes operator, the codes and y operator (the fused
route's call), the same codes through ctypes (the
kernel plus about 2 us of ctypes), at each size. Best of 5 runs of `calls` calls each.

  ACTQ_LIBRARY=build-test/libactq.so.0 PYTHONPATH=bindings/python \\
    build-venv/bin/python bench/layer_parts.py [sizes...]
"""
import os
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402

import actq  # noqa: E402
import actq.torch as at  # noqa: E402
from actq.torch import functional as AF, kernels, library, ops  # noqa: E402


def best_us(f, calls):
    for _ in range(max(calls // 10, 3)):
        f()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        best = min(best, (time.perf_counter() - t) / calls * 1e6)
    return best


def main():
    torch.set_num_threads(1)
    actq.default_context().set_threads(1)
    print(getattr(library, "IMPLEMENTATION", "?"))
    m, g = at.nn.GELU(bits=2), torch.nn.GELU()
    spec, ctx = m.spec, actq.default_context()
    st = library.table_struct(*spec)
    for n in [int(v) for v in sys.argv[1:]] or [1 << 16, 1 << 20]:
        x = torch.randn(n, requires_grad=True)
        xd = x.detach()
        calls = max(20, 2000 * 65536 // n)
        rows = [("nn.GELU", lambda: g(x)),
                ("actq nn.GELU(bits=2)", lambda: m(x)),
                ("its autograd Function", lambda: AF.FewbitActivation.apply(x, spec, None)),
                ("codes operator", lambda: ops.fewbit_encode(spec, xd, with_y=False)),
                ("codes and y operator", lambda: ops.fewbit_encode(spec, xd, with_y=True)),
                ("codes through ctypes", lambda: kernels.fewbit_encode(st, xd, False, ctx))]
        base = None
        for name, f in rows:
            us = best_us(f, calls)
            base = base or us
            print("%9d  %-24s %9.1f us  %5.2fx nn.GELU" % (n, name, us, us / base))


if __name__ == "__main__":
    main()
