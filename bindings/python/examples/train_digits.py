"""A small CNN on scikit-learn's handwritten digits (8x8 images, 10 classes), ActNN-style:
Conv2d and Linear save their input quantized, ReLU saves a 1-bit mask.

Each setting of common.DIGITS_SETTINGS trains the same model from the same initialization on the
same batches; the test accuracy, the loss curve, the bytes autograd held for backward
per step (common's meter), the time per step and the peak a step allocates (stepmeter,
from the allocator's records) are written to a JSON file.

    python3 train_digits.py                      # full run -> docs/training/digits.json
    python3 train_digits.py --quick --out DIR    # seconds: the CI smoke test
    python3 train_digits.py --quick --device cuda --out DIR   # -> DIR/digits-cuda.json

On a CUDA device each run also reports torch.cuda.max_memory_allocated() (common's
CudaMemory). The digits come with scikit-learn; on a machine without it, pass --data with
a file digits_data.py exported elsewhere.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import common
import digits_data
import stepmeter
from common import at


def make_model(setting, seed):
    """Conv(1->16) ReLU Conv(16->32, stride 2) ReLU Linear(512->64) ReLU Linear(64->10)."""
    torch.manual_seed(seed)  # the same initial weights in every setting
    q = common.quantizer_for(setting, seed)
    if q is None:
        conv = lambda *a, **k: nn.Conv2d(*a, **k)
        lin = lambda *a: nn.Linear(*a)
        relu = nn.ReLU
    else:
        conv = lambda *a, **k: at.nn.Conv2d(*a, quantizer=q, **k)
        lin = lambda *a: at.nn.Linear(*a, quantizer=q)
        relu = at.nn.ReLU
    model = nn.Sequential(
        conv(1, 16, 3, padding=1), relu(),
        conv(16, 32, 3, stride=2, padding=1), relu(),
        nn.Flatten(),
        lin(32 * 4 * 4, 64), relu(),
        lin(64, 10))
    return model, q


def load(seed, path=None, device="cpu"):
    xtr, ytr, xte, yte = digits_data.load(seed, path)  # N x 1 x 8 x 8 in [0, 1]
    t = lambda a, dt: torch.tensor(a, dtype=dt, device=device)
    return t(xtr, torch.float32), t(ytr, torch.long), t(xte, torch.float32), t(yte, torch.long)


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def train(setting, data, seed, epochs, batch, device="cpu"):
    xtr, ytr, xte, yte = data
    cuda = common.CudaMemory(device)
    cuda.start()  # the data is on the device already; the model and optimizer are not
    model, q = make_model(setting, seed)
    model.to(device)
    # ActNN's per-sample gradient-norm factor for mixed widths: ||dL/dlogits||^2 of each
    # training sample at its previous visit (1 before the first).
    per_sample = common.per_sample(q)
    grad_norm2 = torch.ones(len(xtr), dtype=torch.float64) if per_sample else None
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    order = torch.Generator().manual_seed(seed)  # the same batches in every setting
    meter = at.SavedTensorMeter()
    steps = stepmeter.StepMeter(device)
    losses, accs, held = [], [], []
    with common.Timer() as timer:
        for _ in range(epochs):
            perm = torch.randperm(len(xtr), generator=order)
            for i in range(0, len(xtr) - batch + 1, batch):
                with steps.step(len(losses)):
                    idx = perm[i:i + batch]  # CPU, as grad_norm2
                    idx_d = idx.to(device)
                    meter.reset()
                    if per_sample:
                        q.row_weight = grad_norm2[idx]
                    cuda.before_forward()
                    with meter.counting():
                        logits = model(xtr[idx_d])
                        loss = F.cross_entropy(logits, ytr[idx_d])
                    cuda.after_forward()
                    held.append(meter.activation_bytes)
                    if per_sample:
                        with torch.no_grad():  # d(mean CE)/dlogits, up to the 1/batch factor
                            g = logits.softmax(1)
                            g[torch.arange(len(idx), device=g.device), ytr[idx_d]] -= 1
                            grad_norm2[idx] = (g * g).sum(1).double().cpu()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    losses.append(round(loss.item(), 5))
            accs.append(accuracy(model, xte, yte))
    cuda.stop()
    stored = q.elements_per_width if q is not None else None
    return {"test_accuracy": accs[-1], "elements_per_width": stored,
            "test_accuracy_per_epoch": accs,
            "train_loss": losses, "saved_bytes_per_step": int(np.median(held)),
            "saved_bytes_max": int(max(held)), "seconds": timer.seconds, **steps.results(), **cuda.results()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 epochs, 1 seed: a smoke test")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--seeds", type=int, default=5, help="training runs per setting")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--data", help="the digits as digits_data.py exports them (default: "
                                   "from scikit-learn)")
    common.add_device_argument(ap)
    ap.add_argument("--out", default=os.path.join(common.HERE, "..", "..", "..", "docs",
                                                  "training"))
    a = ap.parse_args()
    if a.quick:
        a.epochs, a.seeds = 2, 1
    common.setup_threads(a.threads)
    runs = {}
    for setting in common.DIGITS_SETTINGS:
        runs[setting] = []
        for seed in range(a.seeds):
            r = train(setting, load(seed, a.data, a.device), seed, a.epochs, a.batch,
                      a.device)
            runs[setting].append(r)
            print("%-16s seed %d  test acc %.4f  saved %8d B/step  %.1f s%s%s"
                  % (setting, seed, r["test_accuracy"], r["saved_bytes_per_step"],
                     r["seconds"], stepmeter.StepMeter.line(r), common.CudaMemory.line(r)),
                  flush=True)
    name = "digits.json" if a.device == "cpu" else "digits-%s.json" % a.device
    common.write_results(os.path.join(a.out, name),
                         {"task": "digits CNN", "epochs": a.epochs, "batch": a.batch,
                          "seeds": a.seeds, "quick": a.quick,
                          "environment": common.environment(a.device), "runs": runs})


if __name__ == "__main__":
    main()
